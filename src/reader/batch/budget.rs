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

    /// Charges an entry's content. A first line is returned even past what is left (at least
    /// its first character), so `charged` may pass the rest: the budget is then spent.
    pub(crate) fn spend(&mut self, charged: u64) {
        self.spent = self.spent.saturating_add(charged);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_share_what_is_left_in_order() {
        let mut b = SharedBudget::new(100);
        assert_eq!(b.next(), Some(100));
        b.spend(60);
        assert_eq!(b.next(), Some(40));
        b.spend(40);
        // Exactly spent: the next entry is not read (0 would mean no budget at all).
        assert_eq!(b.next(), None);
        assert_eq!(b.total(), 100);
    }

    #[test]
    fn a_first_line_past_the_rest_spends_it() {
        let mut b = SharedBudget::new(10);
        b.spend(25);
        assert_eq!(b.next(), None);
        b.spend(u64::MAX);
        assert_eq!(b.next(), None);
    }

    #[test]
    fn no_budget_is_never_spent() {
        let mut b = SharedBudget::new(0);
        b.spend(5_000_000);
        assert_eq!(b.next(), Some(0));
    }
}
