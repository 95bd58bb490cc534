//! A search pattern, compiled twice: the regular expression as the agent
//! wrote it, which decides whether a line matches, and a line-mode copy that
//! finds candidate lines in the whole text at once.
//!
//! # Why two
//!
//! A line matches when the pattern matches the line's text without its
//! terminator (`\n`, or `\r\n`): `^` and `\A` are the text's start, `$` and
//! `\z` its end, as grep has it. Running the pattern line by line is exact
//! but pays a call per line; running it once over the whole text is as fast
//! as the engine (memchr and SIMD prefilters for literals) but sees lines
//! together. So the text is searched with [`Pattern::candidate`], a copy of
//! the pattern's syntax tree rewritten to accept at least every match a line
//! can have, and no span holding a `\n`; each candidate's line is then
//! checked with [`Pattern::is_match`] on the line alone. The rewrite:
//!
//! 1. A `\n` matches nothing, wherever the pattern names it: it is removed
//!    from every class (`.` under `(?s)`, `\s`, `[^a]`, `[\n]`), and a
//!    literal holding one (`\n`, `\r\n`, `\x0A`) becomes the empty class,
//!    which nothing matches (so does a concatenation holding it; an
//!    alternation keeps its other branches: `(?:.|\n)*` is `[^\n]*`). A
//!    line's text holds no `\n`, so no match of a line uses one; and no
//!    candidate runs across lines, so the search of the whole text stays
//!    linear in it ([`super::hits`] counts the work).
//! 2. Every start assertion (`^`, `\A`, `(?m)^`) becomes CRLF-aware
//!    multi-line `^`, every end assertion (`$`, `\z`, `(?m)$`) multi-line
//!    `$`: those hold at a line's start (after `\n`) and at its text's end
//!    (before `\r\n`, `\n` or the end), where the line-alone assertions hold,
//!    and at a few more places (around a lone `\r`), which the check rejects.
//! 3. Word boundaries are left alone: the byte before a line (`\n`) and
//!    after its text (`\r` or `\n`) are not word characters, as the text's
//!    edges are not.
//!
//! Capture groups are dropped from the copy (nothing reads them). So every
//! span that matches in a line alone matches at the same place in the whole
//! text, and the leftmost candidate at or after a line start is at or
//! before the first matching line's match: searching from each candidate's
//! next line on, no matching line is skipped (the property test and the
//! fuzz target check this against a line-by-line reference).
//!
//! A pattern whose copy matches nothing while the pattern itself can match
//! ([`Pattern::only_across_lines`], such as `foo\nbar`) can only match
//! across lines: no line matches it, and the answer says why.
//!
//! # Limits
//!
//! Both engines are regex-automata's meta regex (the `regex` crate's own):
//! finite automata, linear in the text, no backtracking, so no pattern can
//! make a search slow. The pattern's length is capped by the argument
//! parser; its compiled size here ([`MAX_COMPILED_BYTES`]), which a short
//! pattern can still blow up (`(a{100}){100}`).

use regex_automata::meta::{self, Regex};
use regex_syntax::hir::{Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange};
use regex_syntax::hir::{Hir, HirKind, Look, Repetition};

/// The largest compiled program a pattern may make (its Thompson NFA), in
/// bytes: 4 MiB, beyond which a pattern is refused as too complex. The
/// `regex` crate's default is 10 MiB; a pattern a person writes to find a
/// line needs far less (`\w+` with Unicode classes is about 30 KiB).
pub const MAX_COMPILED_BYTES: usize = 4 << 20;

/// The most characters of a pattern an error quotes.
const QUOTED_CHARS: usize = 60;

/// A compiled search pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// The pattern as written: decides whether a line's text matches.
    exact: Regex,
    /// The line-mode copy: finds candidates in the whole text.
    candidate: Regex,
    /// Whether the pattern can match only across lines (module doc).
    only_across_lines: bool,
}

/// Why a pattern cannot be searched with.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PatternError {
    /// The pattern is not a regular expression (or asks for something the
    /// syntax refuses, such as a class that can match invalid UTF-8).
    #[error(
        "Invalid pattern '{}': {} (at character {}). The pattern is a regular expression (Rust regex syntax); to search for text literally, put a backslash before each of the characters \\ . + * ? ( ) | [ ] {{ }} ^ $ in it, e.g. 'foo\\(x\\)' finds 'foo(x)'.",
        quoted(pattern),
        reason(source),
        at_char(pattern, source)
    )]
    Syntax {
        pattern: String,
        #[source]
        source: Box<regex_syntax::Error>,
    },
    /// The compiled program would be larger than [`MAX_COMPILED_BYTES`].
    #[error(
        "Pattern '{}' is too complex: compiled, it would pass the {limit}-byte limit. Use fewer or smaller counted repetitions (such as {{1000}}) and fewer alternatives, or search for a simpler pattern and read the lines around its matches.",
        quoted(pattern)
    )]
    TooComplex {
        pattern: String,
        limit: usize,
        #[source]
        source: Box<meta::BuildError>,
    },
}

impl Pattern {
    /// Compiles `pattern` (Rust regex syntax, Unicode-aware), matching
    /// letters of any case when `ignore_case`.
    pub fn new(pattern: &str, ignore_case: bool) -> Result<Pattern, PatternError> {
        let hir = regex_syntax::ParserBuilder::new()
            .case_insensitive(ignore_case)
            .build()
            .parse(pattern)
            .map_err(|source| PatternError::Syntax {
                pattern: pattern.to_string(),
                source: Box::new(source),
            })?;
        let build = |hir: &Hir| {
            meta::Builder::new()
                .configure(
                    meta::Config::new()
                        .nfa_size_limit(Some(MAX_COMPILED_BYTES))
                        .which_captures(regex_automata::nfa::thompson::WhichCaptures::Implicit),
                )
                .build_from_hir(hir)
                .map_err(|source| PatternError::TooComplex {
                    pattern: pattern.to_string(),
                    limit: MAX_COMPILED_BYTES,
                    source: Box::new(source),
                })
        };
        let line_hir = line_mode(&hir);
        Ok(Pattern {
            exact: build(&hir)?,
            candidate: build(&line_hir)?,
            only_across_lines: matches_nothing(&line_hir) && !matches_nothing(&hir),
        })
    }

    /// Whether the pattern matches `line`, a line's text without its
    /// terminator.
    pub fn is_match(&self, line: &[u8]) -> bool {
        self.exact.is_match(line)
    }

    /// Where the pattern's leftmost match in `line` (a line's text without its terminator)
    /// starts, a byte index; `None` when it does not match.
    pub(super) fn first_match(&self, line: &[u8]) -> Option<usize> {
        self.exact
            .search(&regex_automata::Input::new(line))
            .map(|m| m.start())
    }

    /// Whether the pattern can match only across lines, so that no line
    /// matches it (module doc).
    pub fn only_across_lines(&self) -> bool {
        self.only_across_lines
    }

    /// The leftmost candidate match in `text[from..to]`, as a span, the
    /// text around `from..to` being seen by assertions. Every line whose
    /// text matches has a candidate at or before its match, and no
    /// candidate holds a `\n` (module doc).
    pub(super) fn candidate(
        &self,
        text: &[u8],
        from: usize,
        to: usize,
    ) -> Option<std::ops::Range<usize>> {
        let input = regex_automata::Input::new(text).span(from..to);
        self.candidate.search(&input).map(|m| m.range())
    }
}

/// `hir` rewritten to line mode (module doc): no `\n` in classes, literals
/// holding one match nothing, start and end assertions multi-line and
/// CRLF-aware, no captures.
fn line_mode(hir: &Hir) -> Hir {
    match hir.kind() {
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(lit) if lit.0.contains(&b'\n') => Hir::fail(),
        HirKind::Literal(lit) => Hir::literal(lit.0.clone()),
        HirKind::Class(Class::Unicode(class)) => {
            let mut class = class.clone();
            class.difference(&ClassUnicode::new([ClassUnicodeRange::new('\n', '\n')]));
            Hir::class(Class::Unicode(class))
        }
        HirKind::Class(Class::Bytes(class)) => {
            let mut class = class.clone();
            class.difference(&ClassBytes::new([ClassBytesRange::new(b'\n', b'\n')]));
            Hir::class(Class::Bytes(class))
        }
        HirKind::Look(look) => Hir::look(match look {
            Look::Start | Look::StartLF => Look::StartCRLF,
            Look::End | Look::EndLF => Look::EndCRLF,
            other => *other,
        }),
        HirKind::Repetition(rep) => {
            let sub = line_mode(&rep.sub);
            // A repetition of what matches nothing matches only the empty
            // string, if it may repeat zero times.
            match (matches_nothing(&sub), rep.min) {
                (true, 0) => Hir::empty(),
                (true, _) => Hir::fail(),
                (false, _) => Hir::repetition(Repetition {
                    sub: Box::new(sub),
                    ..rep.clone()
                }),
            }
        }
        HirKind::Capture(capture) => line_mode(&capture.sub),
        HirKind::Concat(subs) => Hir::concat(subs.iter().map(line_mode).collect()),
        // A branch that matches nothing is dropped (none left: nothing).
        HirKind::Alternation(subs) => Hir::alternation(
            subs.iter()
                .map(line_mode)
                .filter(|sub| !matches_nothing(sub))
                .collect(),
        ),
    }
}

/// Whether `hir` matches nothing at all: an empty class, or made of one
/// where it must be matched.
fn matches_nothing(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Class(Class::Unicode(class)) => class.ranges().is_empty(),
        HirKind::Class(Class::Bytes(class)) => class.ranges().is_empty(),
        HirKind::Repetition(rep) => rep.min > 0 && matches_nothing(&rep.sub),
        HirKind::Capture(capture) => matches_nothing(&capture.sub),
        HirKind::Concat(subs) => subs.iter().any(matches_nothing),
        HirKind::Alternation(subs) => subs.iter().all(matches_nothing),
        HirKind::Empty | HirKind::Literal(_) | HirKind::Look(_) => false,
    }
}

/// A pattern for an error message: its first [`QUOTED_CHARS`] characters,
/// control characters escaped, `…` when cut.
fn quoted(pattern: &str) -> String {
    let mut out = String::new();
    for c in pattern.chars().take(QUOTED_CHARS) {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    if pattern.chars().nth(QUOTED_CHARS).is_some() {
        out.push('…');
    }
    out
}

/// The parser's reason, without the pattern and caret its `Display` draws.
fn reason(error: &regex_syntax::Error) -> String {
    match error {
        regex_syntax::Error::Parse(e) => e.kind().to_string(),
        regex_syntax::Error::Translate(e) => e.kind().to_string(),
        other => other.to_string(),
    }
}

/// The 1-indexed character of `pattern` where `error` starts.
fn at_char(pattern: &str, error: &regex_syntax::Error) -> usize {
    let offset = match error {
        regex_syntax::Error::Parse(e) => e.span().start.offset,
        regex_syntax::Error::Translate(e) => e.span().start.offset,
        _ => 0,
    };
    pattern.get(..offset).map_or(0, |s| s.chars().count()) + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line_matches(pattern: &str, ignore_case: bool, line: &str) -> bool {
        Pattern::new(pattern, ignore_case)
            .unwrap()
            .is_match(line.as_bytes())
    }

    #[test]
    fn exact_matching_is_per_line_text() {
        assert!(line_matches("^fn", false, "fn main() {"));
        assert!(!line_matches("^fn", false, "  fn main() {"));
        assert!(line_matches("}$", false, "}"));
        assert!(line_matches(r"\Afn\z", false, "fn"));
        assert!(line_matches("FN", true, "fn"));
        assert!(!line_matches("FN", false, "fn"));
        // Unicode case folding.
        assert!(line_matches("straße", true, "STRASSE") || line_matches("É", true, "é"));
        assert!(line_matches("", false, ""));
    }

    #[test]
    fn candidates_cover_lines_and_do_not_cross_them() {
        let text = b"ab\r\ncd\nx\rz\n";
        let p = Pattern::new("^cd$", false).unwrap();
        assert_eq!(p.candidate(text, 0, text.len()).map(|m| m.start), Some(4));
        // `\A` and `\z` hold at each line's edges in the candidate copy.
        let p = Pattern::new(r"\Acd\z", false).unwrap();
        assert_eq!(p.candidate(text, 0, text.len()).map(|m| m.start), Some(4));
        // `b$` holds before `\r\n`.
        let p = Pattern::new("b$", false).unwrap();
        assert_eq!(p.candidate(text, 0, text.len()).map(|m| m.start), Some(1));
        // A class never takes the `\n`: `b\sc` cannot join lines 1 and 2.
        let p = Pattern::new(r"b\s+c", false).unwrap();
        assert_eq!(p.candidate(text, 0, text.len()).map(|m| m.start), None);
        let p = Pattern::new(r"(?s)d.x", false).unwrap();
        assert_eq!(p.candidate(text, 0, text.len()).map(|m| m.start), None);
        // A lone `\r` is content: `x.z` matches the line, and the candidate.
        let p = Pattern::new("x.z", false).unwrap();
        assert!(p.is_match(b"x\rz"));
        assert_eq!(p.candidate(text, 0, text.len()).map(|m| m.start), Some(7));
        // The span limits where a candidate starts; assertions see around it.
        let p = Pattern::new("^c", false).unwrap();
        assert_eq!(p.candidate(text, 5, text.len()).map(|m| m.start), None);
        assert_eq!(p.candidate(text, 4, text.len()).map(|m| m.start), Some(4));
    }

    #[test]
    fn a_line_break_in_the_pattern_matches_nothing_in_the_copy() {
        let text = b"ab\r\ncd\nab\n";
        let spans = |pattern: &str| {
            let p = Pattern::new(pattern, false).unwrap();
            p.candidate(text, 0, text.len())
        };
        // Literals holding `\n`, in any spelling, match nothing.
        for pattern in [
            r"b\r\nc", r"b\nc", r"\x0A", r"\u{a}", "b\nc", r"[\n]", r"(?s)b.c",
        ] {
            assert_eq!(spans(pattern), None, "{pattern}");
            assert!(!Pattern::new(pattern, false).unwrap().is_match(b"b"));
        }
        // An alternation keeps its other branches; a repetition of nothing
        // is empty: each candidate stays within its line.
        // (`$` holds before `\r\n`, not between its bytes.)
        assert_eq!(spans(r"(?:.|\n)*$"), Some(0..2));
        assert_eq!(spans(r"(?:.|\n)*cd"), Some(4..6));
        assert_eq!(spans(r"(?:.|\n)+cd"), None);
        assert_eq!(spans(r"(?s)(?:.|\r\n)+\z"), Some(0..2));
        assert_eq!(spans(r"\s+c"), None);
    }

    #[test]
    fn patterns_that_match_only_across_lines_say_so() {
        let across = |pattern: &str| Pattern::new(pattern, false).unwrap().only_across_lines();
        for pattern in [
            r"foo\nbar",
            r"\n",
            r"\r\n",
            r"a[\n]b",
            r"(?:x\n)+",
            r"^$\n",
            r"\n|ab\n",
            r"([^\s\S]|a)\n",
        ] {
            assert!(across(pattern), "{pattern}");
        }
        // A pattern that can match within a line, or that never matches at
        // all, is not said to match across lines.
        for pattern in [
            r"a|\n", r"\n|", r"ab|\n", r"(?:\n)*", r"(?s).", "", r"[^\s\S]", r"\r",
        ] {
            assert!(!across(pattern), "{pattern}");
        }
    }

    #[test]
    fn syntax_errors_quote_the_pattern_and_say_how_to_escape() {
        let e = Pattern::new("foo(bar", false).unwrap_err();
        assert!(matches!(e, PatternError::Syntax { .. }));
        let s = e.to_string();
        assert!(
            s.starts_with("Invalid pattern 'foo(bar': unclosed group (at character 4)."),
            "{s}"
        );
        assert!(
            s.contains("put a backslash before each of the characters"),
            "{s}"
        );
        assert!(s.contains(r"'foo\(x\)' finds 'foo(x)'"), "{s}");
        // The position counts characters, not bytes.
        let s = Pattern::new("éé[", false).unwrap_err().to_string();
        assert!(s.contains("(at character 3)"), "{s}");
        // A long pattern is quoted by its start only; control characters
        // are escaped.
        let long = format!("{}(", "a\n".repeat(100));
        let s = Pattern::new(&long, false).unwrap_err().to_string();
        assert!(
            s.starts_with(&format!("Invalid pattern '{}…'", "a\\n".repeat(30))),
            "{s}"
        );
        // Translation errors too (a class matching invalid UTF-8).
        let s = Pattern::new(r"(?-u)\xFF", false).unwrap_err().to_string();
        assert!(s.starts_with(r"Invalid pattern '(?-u)\xFF': "), "{s}");
    }

    #[test]
    fn a_pattern_too_large_compiled_is_refused_naming_the_limit() {
        let e = Pattern::new(r"(\w{100}){100}", false).unwrap_err();
        assert!(matches!(e, PatternError::TooComplex { .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            format!(
                "Pattern '(\\w{{100}}){{100}}' is too complex: compiled, it would pass the {MAX_COMPILED_BYTES}-byte limit. Use fewer or smaller counted repetitions (such as {{1000}}) and fewer alternatives, or search for a simpler pattern and read the lines around its matches."
            )
        );
        assert!(std::error::Error::source(&e).is_some());
        // Ordinary patterns are far below it.
        assert!(Pattern::new(r"(?i)\bfn\s+\w+\s*\(", true).is_ok());
        assert!(Pattern::new(r"\w{1,20}", false).is_ok());
    }
}
