//! One character budget shared by a batch's entries, served in order (pure): each entry may
//! use what the entries before it left; once it is spent, the rest are not read.

/// The call's budget and what the entries so far were charged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SharedBudget {
    /// The call's `max_chars` (0 = no budget: each entry has only the byte cap).
    total: u64,
    spent: u64,
}

impl SharedBudget {
    pub(crate) fn new(total: u64) -> Self {
        Self { total, spent: 0 }
    }

    /// The call's budget as given.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// What the entries were charged so far.
    pub(crate) fn spent(&self) -> u64 {
        self.spent
    }

    /// The `max_chars` the next entry is fitted to: what is left (0 when there is no budget),
    /// or `None` once the budget is spent. Never `Some(0)` under a budget, which would mean none.
    pub(crate) fn next(&self) -> Option<u64> {
        match self.total {
            0 => Some(0),
            total if self.spent >= total => None,
            total => Some(total - self.spent),
        }
    }

    /// Charges an entry's content when it fits what is left, or when nothing was charged before
    /// it: a view returns its first line (or first group of definitions, or first match) even
    /// past its budget, as the single tool does, and only the first entry may take that floor.
    /// An entry past what is left after others were charged is refused (`false`: it is not
    /// read) and the budget is spent, so the entries after it are not read either and the
    /// batch never holds more than its budget but for its first entry's floor.
    pub(crate) fn take(&mut self, charged: u64) -> bool {
        let after = self.spent.saturating_add(charged);
        let fits = self.total == 0 || self.spent == 0 || after <= self.total;
        self.spent = if fits { after } else { self.total };
        fits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_share_what_is_left_in_order() {
        let mut b = SharedBudget::new(100);
        assert_eq!(b.next(), Some(100));
        assert!(b.take(60));
        assert_eq!(b.next(), Some(40));
        assert!(b.take(40));
        // Exactly spent: the next entry is not read (0 would mean no budget at all).
        assert_eq!(b.next(), None);
        assert_eq!(b.total(), 100);
    }

    #[test]
    fn only_the_first_entry_may_pass_the_budget() {
        // The first entry's floor (its first line) is taken past the budget, and spends it.
        let mut b = SharedBudget::new(10);
        assert!(b.take(25));
        assert_eq!(b.next(), None);
        // After others: an entry past what is left is refused, and the rest is spent.
        let mut b = SharedBudget::new(50);
        assert!(b.take(48));
        assert!(!b.take(8));
        assert_eq!((b.spent(), b.next()), (50, None));
        // An entry charged nothing (an error, an empty file) leaves the next one first.
        let mut b = SharedBudget::new(5);
        assert!(b.take(0));
        assert!(b.take(u64::MAX));
        assert_eq!(b.next(), None);
    }

    #[test]
    fn no_budget_is_never_spent() {
        let mut b = SharedBudget::new(0);
        assert!(b.take(5_000_000));
        assert!(b.take(5_000_000));
        assert_eq!(b.next(), Some(0));
    }
}
