//! A blob's text as read, with its line index, worked out the first time a window needs it
//! and kept with the text: a cached blob is windowed again and again, and with the index each
//! window costs its own lines, not a walk of the whole text ([`crate::window::LineIndex`]).

use std::ops::Deref;
use std::sync::OnceLock;

use crate::window::LineIndex;

/// A blob's text (UTF-8) and, once asked, its line index.
pub(crate) struct Text {
    content: String,
    lines: OnceLock<LineIndex>,
}

impl Text {
    pub(crate) fn new(content: String) -> Text {
        Text {
            content,
            lines: OnceLock::new(),
        }
    }

    /// The text's line index: one pass the first time, kept after.
    pub(crate) fn line_index(&self) -> &LineIndex {
        self.lines
            .get_or_init(|| LineIndex::of(self.content.as_bytes()))
    }
}

impl Deref for Text {
    type Target = String;

    fn deref(&self) -> &String {
        &self.content
    }
}

impl From<String> for Text {
    fn from(content: String) -> Text {
        Text::new(content)
    }
}

impl From<&str> for Text {
    fn from(content: &str) -> Text {
        Text::new(content.to_owned())
    }
}

/// Texts are equal when their contents are: the index is derived from the content.
impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.content == other.content
    }
}

impl Eq for Text {}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.content.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_is_worked_out_once_and_is_the_texts() {
        let text = Text::from("a\nb\nc");
        assert_eq!(text.line_index().total(), 3);
        assert!(std::ptr::eq(text.line_index(), text.line_index()));
        assert_eq!(text.len(), 5);
        assert_eq!(Text::from("x"), Text::new("x".to_string()));
    }
}
