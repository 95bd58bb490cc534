//! Which cap ended a page of matches ([`PageCap`]), and whether, and how, the caps
//! shortened it ([`PageShortened`]).

use super::super::cap::{CapKind, LineCut};

/// Which cap ended a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageCap {
    /// [`MAX_LIMIT`](crate::window::MAX_LIMIT) lines.
    Lines,
    /// [`MAX_WINDOW_BYTES`](crate::window::MAX_WINDOW_BYTES) bytes.
    Bytes,
    /// The character budget; named only when the other two would take more,
    /// so `max_chars: 0` shows more.
    Chars,
}

/// Whether, and how, the caps shortened a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageShortened {
    /// Every group of the searched lines is shown whole.
    None,
    /// Whole groups are shown, and the next one did not fit.
    DroppedGroups { by: PageCap },
    /// The page's only group did not fit whole and is shown from its first
    /// match, as many lines as fit.
    GroupCut { by: PageCap },
    /// The page's only line, a match, was over a cap and is cut.
    LineCut { number: u64, cut: LineCut },
}

impl From<CapKind> for PageCap {
    fn from(kind: CapKind) -> Self {
        match kind {
            CapKind::Bytes => PageCap::Bytes,
            CapKind::Chars => PageCap::Chars,
        }
    }
}
