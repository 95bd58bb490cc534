//! The limits a content met, as the hints name them: what fits in one message, and the budget
//! a batch's entries share. Pure words, imported by every hint module and by the read's facts.

/// The cap a content fitted to one message met, as the hints name it.
pub(super) const ONE_MESSAGE: &str =
    "what fits in one message (1000000 bytes, the content being sent twice)";

/// The limit a batch's shared budget was, as the hint of an entry it did not reach names it:
/// the words name the limit that actually stopped the entries before (issue 34).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SharedLimit {
    /// The call's own `max_chars`, of this many characters.
    Call(u64),
    /// The server's default budget (the call sent no `max_chars`), of this many characters.
    Default(u64),
    /// What fits in one message, smaller than the call's or the default budget.
    OneMessage,
}

impl SharedLimit {
    /// The limit's words, as they end "the entries before this one used …".
    pub(super) fn words(self) -> String {
        match self {
            SharedLimit::Call(total) => format!("the call's {total} character budget (max_chars)"),
            SharedLimit::Default(total) => {
                format!("the default {total} character budget (the call sent no max_chars)")
            }
            SharedLimit::OneMessage => ONE_MESSAGE.to_string(),
        }
    }
}
