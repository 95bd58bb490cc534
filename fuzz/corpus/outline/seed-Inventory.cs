using System;
using System.Collections.Generic;

namespace Warehouse
{
    /// <summary>Stock levels per item.</summary>
    public class Inventory
    {
        private readonly Dictionary<string, int> _stock = new();

        /// <summary>Items in stock.</summary>
        public int Count => _stock.Count;

        [Obsolete("Use Add(string, int)")]
        public void Add(string sku)
        {
            Add(sku, 1);
        }

        public void Add(string sku, int quantity)
        {
            _stock[sku] = _stock.GetValueOrDefault(sku) + quantity;
        }

        public Inventory() { }
    }

    public interface IAudit
    {
        void Record(string message);
    }

    public struct Slot
    {
        public int Row;
    }

    public enum Zone { Cold, Dry }
}
