//! Target `search`: a text, a pattern, searched lines, context lines and a
//! character budget built from structured input (`arbitrary` over the raw
//! bytes), searched by `gitlab_file_mcp::window::search::search`.
//!
//! The text is a list of pieces: words of a small alphabet (so patterns
//! match often; `\r`, a tab, an escape character and multi-byte letters
//! among them), `\n` and `\r\n`, raw strings, lines repeated up to 3,000
//! times (the page's line cap) and one run of up to 1.5 MiB (the byte cap).
//! The pattern is a list of regex tokens (anchors, classes, groups, flags,
//! repetitions, literals, line breaks in every spelling; unbalanced
//! sequences make syntax errors) or any string.
//!
//! Properties, against [`Naive`], a line-by-line reference built with
//! `split_inclusive('\n')` and the `regex` crate's `is_match` on each line's
//! text without its terminator:
//! - the pattern compiles exactly when the `regex` crate compiles it (size
//!   limits aside), and a refusal is worded;
//! - the searched range, the inverted-range error, `total_lines` and the
//!   count of every match are the reference's (so a line break in a pattern
//!   matches nothing, and no match runs across lines), and a pattern said
//!   to match only across lines matches no line;
//! - the page is the reference's rendering (grep `-n`, context merged,
//!   `--` between groups) of its first groups whole, or of its first group
//!   from its first match to some line, or that match's line cut at a
//!   character boundary; it stays within the line cap, the byte cap and the
//!   budget (a cut line keeps its prefix and one character), and drops a
//!   group or a line only when it would pass the cap it names (the budget
//!   named only when the other caps would take it);
//! - `next_start` is the line after the last shown exactly when a match is
//!   not shown, and following it to the range's end (as the hint says)
//!   shows every match of the range exactly once, each page counting the
//!   matches left.

use arbitrary::{Arbitrary, Unstructured};
use gitlab_file_mcp::window::search::{
    MAX_CONTEXT_LINES, PageCap, PageShortened, Pattern, PatternError, Search, SearchPage, search,
};
use gitlab_file_mcp::window::{CONTROL_CHARGE, LineRequest, MAX_LIMIT, MAX_WINDOW_BYTES};

/// The most pages followed while checking that pages show every match.
const MAX_PAGES: usize = 64;

#[derive(Arbitrary, Debug)]
pub struct Input {
    pattern: PatternInput,
    ignore_case: bool,
    lines: Lines,
    context: u8,
    budget: Budget,
    text: Vec<Piece>,
}

const WORDS: [&str; 12] = [
    "fn", "let", "x", "X", "é", "É", "\r", "\t", " ", "\x1b", "😀", "ß",
];

#[derive(Arbitrary, Debug)]
enum Piece {
    Word(u8),
    Newline,
    CrLf,
    Raw(String),
    /// A line of words, repeated.
    Repeat {
        words: Vec<u8>,
        times: u16,
    },
    /// One character repeated (at most one such run counts).
    Run {
        word: u8,
        len: u32,
    },
}

const TOKENS: [&str; 41] = [
    "fn",
    "x",
    "é",
    "ß",
    "\\r",
    "\\n",
    ".",
    "*",
    "+",
    "?",
    "{2}",
    "{0,3}",
    "^",
    "$",
    "\\A",
    "\\z",
    "\\b",
    "\\B",
    "\\s",
    "\\w",
    "\\d",
    "[a-z]",
    "[^x]",
    "[[:upper:]]",
    "(",
    ")",
    "|",
    "(?m)",
    "(?s)",
    "(?-m)",
    "(?R)",
    "(?i)",
    "\\x1b",
    " ",
    // Line breaks, which match nothing in a line: in literals, classes,
    // alternations and escapes.
    "\\r\\n",
    "(?:.|\\n)",
    "[\\n]",
    "[^a\\n]",
    "\\x0A",
    "\n",
    "(?s:.)",
];

#[derive(Arbitrary, Debug)]
enum PatternInput {
    Tokens(Vec<u8>),
    Raw(String),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Lines {
    All,
    OffsetLimit(u16, u16),
    StartEnd(Option<i16>, Option<i16>),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Budget {
    Off,
    Small(u8),
    Medium(u16),
    Any(u64),
}

/// One search to check.
#[derive(Debug, Clone)]
pub struct Case {
    pub text: String,
    pub pattern: String,
    pub ignore_case: bool,
    pub lines: Option<LineRequest>,
    pub context: u64,
    pub max_chars: u64,
}

impl Input {
    fn case(&self) -> Case {
        let pattern = match &self.pattern {
            PatternInput::Tokens(t) => t
                .iter()
                .map(|&i| TOKENS[usize::from(i) % TOKENS.len()])
                .collect(),
            PatternInput::Raw(s) => s.clone(),
        };
        let word = |i: u8| WORDS[usize::from(i) % WORDS.len()];
        let mut text = String::new();
        let mut run_used = false;
        for piece in &self.text {
            match piece {
                Piece::Word(i) => text.push_str(word(*i)),
                Piece::Newline => text.push('\n'),
                Piece::CrLf => text.push_str("\r\n"),
                Piece::Raw(s) => text.push_str(s),
                Piece::Repeat { words, times } => {
                    let mut line: String = words.iter().map(|&i| word(i)).collect();
                    line.push('\n');
                    text.push_str(&line.repeat(usize::from(*times % 3001)));
                }
                Piece::Run { word: w, len } if !run_used => {
                    run_used = true;
                    let c = word(*w);
                    let n = (*len as usize % (1536 * 1024)) / c.len();
                    text.push_str(&c.repeat(n));
                }
                Piece::Run { .. } => {}
            }
        }
        let lines = match self.lines {
            Lines::All => None,
            Lines::OffsetLimit(offset, limit) => Some(LineRequest::OffsetLimit {
                offset: offset.into(),
                limit: u64::from(limit) % MAX_LIMIT + 1,
            }),
            Lines::StartEnd(start, end) => {
                LineRequest::from_line_args(start.map(i64::from), end.map(i64::from))
            }
        };
        let max_chars = match self.budget {
            Budget::Off => 0,
            Budget::Small(n) => n.into(),
            Budget::Medium(n) => n.into(),
            Budget::Any(n) => n,
        };
        Case {
            text,
            pattern,
            ignore_case: self.ignore_case,
            lines,
            context: u64::from(self.context) % (MAX_CONTEXT_LINES + 1),
            max_chars,
        }
    }
}

/// Decodes `data` and checks the search it describes.
pub fn check(data: &[u8]) {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    check_case(&input.case());
}

/// The reference: the text's lines and which of them match.
pub struct Naive<'a> {
    /// Each line, terminator included.
    pub lines: Vec<&'a str>,
    /// Whether each line's text matches.
    pub matches: Vec<bool>,
}

/// A line's text: without `\n` or `\r\n`.
fn text_of(line: &str) -> &str {
    line.strip_suffix("\r\n")
        .or_else(|| line.strip_suffix('\n'))
        .unwrap_or(line)
}

impl<'a> Naive<'a> {
    fn new(text: &'a str, regex: &regex::bytes::Regex) -> Self {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let matches = lines
            .iter()
            .map(|l| regex.is_match(text_of(l).as_bytes()))
            .collect();
        Naive { lines, matches }
    }

    fn total(&self) -> u64 {
        self.lines.len() as u64
    }

    /// The searched lines (1-indexed inclusive), `Err` for an inverted range.
    fn range(&self, req: Option<LineRequest>) -> Result<Option<(u64, u64)>, ()> {
        let total = self.total();
        match req {
            None => Ok((total > 0).then_some((1, total))),
            Some(LineRequest::OffsetLimit { offset, limit }) => Ok(
                (offset < total && limit > 0).then(|| (offset + 1, (offset + limit).min(total)))
            ),
            // A start past the end covers no line, as an offset past the end.
            Some(LineRequest::StartEnd { start: Some(s), .. }) if s > total => Ok(None),
            Some(LineRequest::StartEnd { start, end }) if total > 0 => {
                let (s, e) = (
                    start.unwrap_or(1).clamp(1, total),
                    end.unwrap_or(total).clamp(1, total),
                );
                if s > e { Err(()) } else { Ok(Some((s, e))) }
            }
            Some(LineRequest::StartEnd { .. }) => Ok(None),
        }
    }

    fn is_match(&self, n: u64) -> bool {
        self.matches[(n - 1) as usize]
    }

    /// The matching lines of `first..=last`.
    fn matching(&self, first: u64, last: u64) -> Vec<u64> {
        (first..=last).filter(|&n| self.is_match(n)).collect()
    }

    /// The groups of `first..=last` with `context`: each match's lines,
    /// clamped, merged when they overlap or touch.
    fn groups(&self, first: u64, last: u64, context: u64) -> Vec<(u64, u64)> {
        let mut groups: Vec<(u64, u64)> = Vec::new();
        for m in self.matching(first, last) {
            let (a, b) = (
                m.saturating_sub(context).max(first),
                (m + context).min(last),
            );
            match groups.last_mut() {
                Some(g) if a <= g.1 + 1 => g.1 = g.1.max(b),
                _ => groups.push((a, b)),
            }
        }
        groups
    }

    /// Line `n` as the page shows it.
    fn render_line(&self, n: u64) -> String {
        let line = self.lines[(n - 1) as usize];
        let mark = if self.is_match(n) { ':' } else { '-' };
        let end = if line.ends_with('\n') { "" } else { "\n" };
        format!("{n}{mark}{line}{end}")
    }

    /// Lines `a..=b` as the page shows them, one piece each.
    fn lines_of(&self, a: u64, b: u64) -> Vec<String> {
        (a..=b).map(|n| self.render_line(n)).collect()
    }

    /// Groups as the page shows them: their lines, and `--` between them.
    fn pieces(&self, groups: &[(u64, u64)]) -> Vec<String> {
        let mut pieces = Vec::new();
        for (i, &(a, b)) in groups.iter().enumerate() {
            if i > 0 {
                pieces.push("--\n".to_string());
            }
            pieces.extend(self.lines_of(a, b));
        }
        pieces
    }
}

/// The budget's charge of `s`: 6 for a C0 control other than `\b \t \n \f
/// \r`, 1 for every other character.
fn charge(s: &str) -> usize {
    s.chars()
        .map(|c| match c {
            '\u{8}' | '\t' | '\n' | '\u{c}' | '\r' => 1,
            c if c < ' ' => CONTROL_CHARGE,
            _ => 1,
        })
        .sum()
}

/// The caps as the search applies them.
struct Caps {
    max_chars: Option<usize>,
}

impl Caps {
    fn new(max_chars: u64) -> Self {
        let chars = usize::try_from(max_chars).unwrap_or(usize::MAX);
        let binds = chars > 0 && chars < MAX_WINDOW_BYTES.saturating_mul(CONTROL_CHARGE);
        Caps {
            max_chars: binds.then_some(chars),
        }
    }

    /// Whether `content` (of `lines` lines) passes `cap`.
    fn passes(&self, content: &str, lines: u64, cap: PageCap) -> bool {
        match cap {
            PageCap::Lines => lines > MAX_LIMIT,
            PageCap::Bytes => content.len() > MAX_WINDOW_BYTES,
            PageCap::Chars => self.max_chars.is_some_and(|m| charge(content) > m),
        }
    }

    /// The first cap `content` (of `lines` lines) passes, in the order lines,
    /// bytes, characters.
    fn passed(&self, content: &str, lines: u64) -> Option<PageCap> {
        [PageCap::Lines, PageCap::Bytes, PageCap::Chars]
            .into_iter()
            .find(|&cap| self.passes(content, lines, cap))
    }

    /// Walking `pieces` (lines, and `--` separators), the cap the first
    /// piece that does not fit passes (in the order lines, bytes,
    /// characters); `None` when all fit.
    fn first_passed(&self, pieces: &[String]) -> Option<PageCap> {
        let mut content = String::new();
        let mut lines = 0;
        for piece in pieces {
            content.push_str(piece);
            lines += u64::from(piece != "--\n");
            if let Some(cap) = self.passed(&content, lines) {
                return Some(cap);
            }
        }
        None
    }

    /// Asserts that `pieces` do not fit because of `by`: taken whole they
    /// pass it, and when `by` is the budget, the walk passes no other cap
    /// first (so `max_chars: 0` shows more).
    fn assert_named(&self, pieces: &[String], by: PageCap) {
        let content = pieces.concat();
        let lines = pieces.iter().filter(|p| *p != "--\n").count() as u64;
        assert!(self.passes(&content, lines, by), "{by:?} binds");
        if by == PageCap::Chars {
            assert_eq!(
                self.first_passed(pieces),
                Some(PageCap::Chars),
                "only the budget binds"
            );
        }
    }
}

/// Checks one search, and the pages that follow it.
pub fn check_case(case: &Case) {
    let reference = regex::bytes::RegexBuilder::new(&case.pattern)
        .case_insensitive(case.ignore_case)
        .build();
    let pattern = match (Pattern::new(&case.pattern, case.ignore_case), reference) {
        (Ok(p), Ok(r)) => (p, r),
        (Err(PatternError::TooComplex { .. }), _) | (_, Err(regex::Error::CompiledTooBig(_))) => {
            return;
        }
        (Err(e), Err(_)) => {
            assert!(e.to_string().starts_with("Invalid pattern '"), "{e}");
            return;
        }
        (ours, theirs) => panic!(
            "{:?}: compiles {} here, {} with regex",
            case.pattern,
            ours.is_ok(),
            theirs.is_ok()
        ),
    };
    let (pattern, regex) = pattern;
    let naive = Naive::new(&case.text, &regex);
    let run = |lines: Option<LineRequest>| {
        search(
            &case.text,
            &Search {
                pattern: &pattern,
                lines,
                context_lines: case.context,
                max_chars: case.max_chars,
            },
        )
    };
    let range = match (run(case.lines), naive.range(case.lines)) {
        (Err(_), Err(())) => return,
        (Ok(found), Ok(range)) => {
            check_page(&naive, case, &found, range);
            range
        }
        (ours, theirs) => panic!("range: {ours:?} but the reference says {theirs:?}"),
    };
    let Some((first, last)) = range else {
        return;
    };
    // Follow the pages as the hints say: from the line after the last shown
    // to the same end.
    let mut seen = Vec::new();
    let mut lines = case.lines;
    for _ in 0..MAX_PAGES {
        let found = run(lines).expect("a page's range is never inverted");
        let start = found.searched.map_or(first, |s| s.0);
        check_page(&naive, case, &found, Some((start, last)));
        seen.extend(found.shown.iter().copied());
        match found.next_start {
            Some(next) => {
                lines = Some(LineRequest::StartEnd {
                    start: Some(next),
                    end: Some(last),
                })
            }
            None => {
                assert_eq!(seen, naive.matching(first, last), "pages' matches");
                return;
            }
        }
    }
}

/// Checks one page against the reference for the searched lines `range`.
fn check_page(naive: &Naive<'_>, case: &Case, found: &SearchPage, range: Option<(u64, u64)>) {
    assert_eq!(found.total_lines, naive.total());
    assert_eq!(found.searched, range, "searched lines");
    let Some((first, last)) = range else {
        assert_eq!((found.total_matches, found.content.as_str()), (0, ""));
        return;
    };
    let all = naive.matching(first, last);
    assert_eq!(found.total_matches, all.len() as u64, "total");
    if found.only_across_lines {
        assert_eq!(
            found.total_matches, 0,
            "only across lines, yet a line matches"
        );
    }
    assert_eq!(
        found.shown[..],
        all[..found.shown.len()],
        "shown is a prefix"
    );
    let groups = naive.groups(first, last, case.context);
    let caps = Caps::new(case.max_chars);
    let lines = found.content.lines().filter(|l| *l != "--").count() as u64;
    match found.shortened {
        PageShortened::None => {
            assert_eq!(found.content, naive.pieces(&groups).concat());
            assert_eq!(found.shown, all);
        }
        PageShortened::DroppedGroups { by } => {
            let k = groups
                .iter()
                .take_while(|g| found.shown.last().is_some_and(|&l| g.0 <= l))
                .count();
            assert!(k >= 1 && k < groups.len(), "{k} of {} groups", groups.len());
            assert_eq!(found.content, naive.pieces(&groups[..k]).concat());
            caps.assert_named(&naive.pieces(&groups[..=k]), by);
        }
        PageShortened::GroupCut { by } => {
            let (g, m) = (groups[0], all[0]);
            let end = m + lines - 1;
            assert!(end <= g.1);
            assert_eq!(found.content, naive.lines_of(m, end).concat());
            assert!(caps.first_passed(&naive.lines_of(g.0, g.1)).is_some());
            if end < g.1 {
                caps.assert_named(&naive.lines_of(m, end + 1), by);
            } else {
                caps.assert_named(&naive.lines_of(g.0, g.1), by);
            }
        }
        PageShortened::LineCut { number, cut } => {
            assert_eq!((number, &found.shown[..]), (all[0], &[all[0]][..]));
            let prefix = format!("{number}:");
            let kept = found.content.strip_prefix(&prefix).expect("the prefix");
            let line = naive.lines[(number - 1) as usize];
            assert!(line.starts_with(kept) && kept.len() < line.len());
            assert_eq!(
                (cut.line_bytes, cut.returned_bytes),
                (line.len(), kept.len())
            );
            let one_char = kept.chars().count() == 1;
            assert!(caps.passed(&found.content, 1).is_none() || one_char);
            assert!(caps.passed(&naive.render_line(number), 1).is_some());
        }
    }
    // A page's first line keeps its prefix and one character: a line of
    // one character may pass a budget smaller than that, whole.
    let floor = lines == 1
        && found
            .shown
            .first()
            .is_some_and(|&n| naive.lines[(n - 1) as usize].chars().count() == 1);
    if !matches!(found.shortened, PageShortened::LineCut { .. }) && !floor {
        assert_eq!(caps.passed(&found.content, lines), None, "within the caps");
    }
    let last_shown = found
        .content
        .lines()
        .rfind(|l| *l != "--")
        .and_then(|l| l.split([':', '-']).next()?.parse::<u64>().ok());
    let want_next = (found.shown.len() < all.len()).then(|| last_shown.map(|n| n + 1));
    assert_eq!(found.next_start.map(Some), want_next, "next_start");
}
