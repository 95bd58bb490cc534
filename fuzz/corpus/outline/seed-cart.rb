# frozen_string_literal: true

require "bigdecimal"

# Shopping carts and their items.
module Shop
  # One item in a cart.
  class Item
    attr_reader :sku, :price

    def initialize(sku, price)
      @sku = sku
      @price = BigDecimal(price)
    end
  end

  class Cart
    # Builds an empty cart.
    def self.empty
      new([])
    end

    def initialize(items)
      @items = items
    end

    def total
      @items.sum(&:price)
    end
  end
end

def checkout(cart)
  cart.total
end
