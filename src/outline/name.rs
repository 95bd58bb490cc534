//! A definition's name as the outline prints it (pure): characters that would break its line
//! escaped, so a name cannot start a line of its own (a TypeScript method named by a template
//! literal holding a newline cannot forge a definition), and a very long name shortened with
//! a marker saying how much is left out, so one name never makes a page of megabytes.

/// The most characters of one part of a name (a class's, a function's, an impl's path) shown:
/// longer ones end in [`marker`].
pub(crate) const MAX_NAME_CHARS: usize = 200;

/// The marker ending a shortened name: `…[+N bytes]`, `N` the source bytes left out.
pub(crate) fn marker(left_out: usize) -> String {
    format!("…[+{left_out} bytes]")
}

/// `raw` as printed, and whether it was shortened: each character that ends or breaks a line
/// (a control character, U+2028, U+2029) or reorders text (the bidirectional controls) as
/// `\n`, `\t`, `\u{2028}`…; cut after [`MAX_NAME_CHARS`] characters of that, with
/// [`marker`]. Reads no further than it shows (a 5 MB name costs what its first part does).
pub(crate) fn printed(raw: &str) -> (String, bool) {
    let mut out = String::with_capacity(raw.len().min(4 * MAX_NAME_CHARS));
    for (chars, (at, c)) in raw.char_indices().enumerate() {
        if chars >= MAX_NAME_CHARS {
            out.push_str(&marker(raw.len() - at));
            return (out, true);
        }
        if escaped(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    (out, false)
}

/// Whether `c` is printed escaped.
fn escaped(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaking_characters_are_escaped() {
        assert_eq!(printed("plain.name"), ("plain.name".to_string(), false));
        assert_eq!(printed("a\nb").0, "a\\nb");
        assert_eq!(printed("a\r\n\tb\0").0, "a\\r\\n\\tb\\u{0}");
        assert_eq!(printed("a\u{2028}b\u{2029}c").0, "a\\u{2028}b\\u{2029}c");
        assert_eq!(printed("a\u{85}b").0, "a\\u{85}b");
        assert_eq!(printed("\u{202e}x\u{2066}").0, "\\u{202e}x\\u{2066}");
        // PHP namespaces and C++ operators keep their characters.
        assert_eq!(printed("App\\Mail").0, "App\\Mail");
        assert_eq!(printed("operator<<").0, "operator<<");
        assert_eq!(printed("naïve_数").0, "naïve_数");
        assert!(!printed("a\nb").0.contains('\n'));
    }

    #[test]
    fn a_long_name_is_cut_with_a_marker_counting_what_is_left_out() {
        let exact = "x".repeat(MAX_NAME_CHARS);
        assert_eq!(printed(&exact), (exact.clone(), false));
        let one_more = "x".repeat(MAX_NAME_CHARS + 1);
        assert_eq!(printed(&one_more), (format!("{exact}…[+1 bytes]"), true));
        let huge = "é".repeat(5_000_000);
        let (shown, cut) = printed(&huge);
        assert!(cut);
        let kept = "é".repeat(MAX_NAME_CHARS);
        let left = 2 * (5_000_000 - MAX_NAME_CHARS);
        assert_eq!(shown, format!("{kept}…[+{left} bytes]"));
    }
}
