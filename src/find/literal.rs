//! The literal GitLab's search is asked for (pure): a substring every match of the pattern
//! holds, so every file with a matching line is among the files GitLab finds it in. GitLab's
//! basic search is a case-insensitive literal, so the pattern is read case-sensitively here
//! whatever `ignore_case` says: a match under `ignore_case` holds the literal in some case,
//! which GitLab finds all the same. The literal is one word (no white space: GitLab re-joins
//! terms with single spaces, and `filename:`-style words are filters), at least
//! [`MIN_LITERAL_CHARS`] characters (shorter ones find too much) and at most
//! [`MAX_LITERAL_CHARS`] (GitLab's limit).

use regex_syntax::hir::{Hir, HirKind};

/// The shortest literal worth asking GitLab for.
pub(crate) const MIN_LITERAL_CHARS: usize = 3;

/// The longest term GitLab's search takes.
const MAX_LITERAL_CHARS: usize = 100;

/// A literal every match of `pattern` holds, if it has one worth asking for.
pub(crate) fn required(pattern: &str) -> Option<String> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    let literal = longest(&hir)?;
    let word = literal
        .split(|c: char| c.is_whitespace() || c == ':')
        .max_by_key(|w| w.chars().count())?;
    (word.chars().count() >= MIN_LITERAL_CHARS)
        .then(|| word.chars().take(MAX_LITERAL_CHARS).collect())
}

/// The longest literal text that every match of `hir` holds.
fn longest(hir: &Hir) -> Option<String> {
    match hir.kind() {
        HirKind::Literal(lit) => String::from_utf8(lit.0.to_vec()).ok(),
        HirKind::Capture(cap) => longest(&cap.sub),
        HirKind::Repetition(rep) if rep.min >= 1 => longest(&rep.sub),
        HirKind::Concat(parts) => parts
            .iter()
            .filter_map(longest)
            .max_by_key(|s| s.chars().count()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_every_match_holds() {
        assert_eq!(required("retry_policy").as_deref(), Some("retry_policy"));
        assert_eq!(
            required(r"def\s+handle_request\(").as_deref(),
            Some("handle_request(")
        );
        assert_eq!(required(r"(?:max)+_retries\d").as_deref(), Some("_retries"));
        assert_eq!(required("fn main").as_deref(), Some("main"));
        assert_eq!(required("foo|barbaz"), None);
        assert_eq!(required(r"\w+"), None);
        assert_eq!(required("ab"), None);
        assert_eq!(required("(?i)retry"), None);
        assert_eq!(required("filename:x.py").as_deref(), Some("filename"));
        assert_eq!(required("(unclosed"), None);
    }
}
