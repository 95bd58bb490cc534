//! The window's byte cap, and what a cap did to a window: whether it shortened it
//! ([`Cap`]), which cap did ([`CapKind`]), how ([`Shortened`]), and how a single line
//! was cut ([`LineCut`]).

/// The most bytes one window returns (1 MiB), GitLab's cap.
pub const MAX_WINDOW_BYTES: usize = 1_048_576;

/// Whether, and how, a cap shortened a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cap {
    /// The window holds every line the request covered.
    None,
    /// The window holds whole lines, but fewer than the request covered.
    DroppedLines,
    /// The window's single line was over a cap (for [`window`](super::window), longer than
    /// [`MAX_WINDOW_BYTES`]) and holds only its start, cut at a character
    /// boundary.
    LineCut,
}

/// Which cap shortened a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapKind {
    /// The byte cap, [`MAX_WINDOW_BYTES`]; also named when both caps bind
    /// alike.
    Bytes,
    /// The character budget, [`Fit::max_chars`](super::Fit::max_chars); named only when it is
    /// strictly tighter, so `max_chars: 0` returns more.
    Chars,
}

/// Whether, and how, a cap shortened a fitted window, and which.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shortened {
    /// The window holds every line the request covered, each whole.
    None,
    /// The window holds whole lines, but fewer than the request covered,
    /// because of `by`. The next window starts at [`Window::next_offset`](super::Window::next_offset).
    DroppedLines { by: CapKind },
    /// The window's single line was over a cap and holds only its start.
    LineCut(LineCut),
}

impl Shortened {
    /// The same outcome without naming the cap.
    pub fn cap(&self) -> Cap {
        match self {
            Shortened::None => Cap::None,
            Shortened::DroppedLines { .. } => Cap::DroppedLines,
            Shortened::LineCut(_) => Cap::LineCut,
        }
    }
}

/// How a window's single line was cut. Sizes are of the line's own text,
/// without its line-number prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineCut {
    /// The cap that cut it.
    pub by: CapKind,
    /// The line's length in bytes from where the window starts in it (its
    /// whole length without a column), its `\n` (if any) included.
    pub line_bytes: usize,
    /// The bytes of the line returned, [`Window::content`](super::Window::content)'s length: at
    /// least its first character, less than `line_bytes`.
    pub returned_bytes: usize,
    /// The bytes of the line the same request returns with `max_chars: 0`:
    /// `returned_bytes` when `by` is [`CapKind::Bytes`], else up to
    /// [`MAX_WINDOW_BYTES`] minus the prefix, or `line_bytes` when the whole
    /// line fits. Beyond that a window from a column reads on ([`super::Window::next_column`]).
    pub bytes_without_budget: usize,
    /// The whole line's characters as the budget charges them (its text,
    /// no prefix), counted only when `by` is [`CapKind::Chars`], so a hint
    /// can weigh the line in the budget's own unit; `None` for a line the
    /// byte cap cut (named in bytes, and not worth counting).
    pub line_chars: Option<usize>,
    /// The characters (Unicode scalar values) of the line from where the window starts in
    /// it, its `\n` included: the line's length when the window starts at its start.
    /// Always counted, so a hint can say where the line ends.
    pub chars: u64,
}

impl LineCut {
    /// Whether `max_chars: 0` returns the whole line.
    pub fn whole_without_budget(&self) -> bool {
        self.bytes_without_budget == self.line_bytes
    }
}
