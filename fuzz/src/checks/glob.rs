//! Target `glob`: Duo exclusion rules and a path built from structured input (`arbitrary`
//! over the raw bytes), each a string of tokens: the glob metacharacters, `/`, `.`, a few
//! ASCII and multibyte letters, NUL, tab, and any character.
//!
//! Properties:
//! - `fnmatch`, `is_excluded` and the path normalisation never panic;
//! - `fnmatch` agrees with [`reference_fnmatch`] on patterns without `[`: a dynamic program
//!   over every (pattern, path) position written from `fnmatch`'s documentation. The real
//!   matcher backtracks only to the most recent `*`, an optimisation that is only right
//!   because every other element matches exactly one character; the program tries every way
//!   a `*` can match, so it checks that optimisation (and the escape, trailing-`\` and
//!   leading-period rules) independently;
//! - `*` matches exactly the paths without NUL that do not start with `.`, and a path with
//!   every character escaped matches exactly itself;
//! - normalising is idempotent and yields no blank path, no empty or `.` component, no `/`
//!   at either end;
//! - `is_excluded` is [`reference_excluded`]: blank rules skipped, a NUL rule excludes all, a
//!   refused path is excluded iff some rule excludes, else the last matching rule (matched
//!   with `fnmatch` against the normalised path) wins; for one rule `p` without `!`, that is
//!   `is_excluded(&[p], path) == fnmatch(p, normalised)`.

use arbitrary::{Arbitrary, Unstructured};
use gitlab_file_mcp::fuzzing::{fnmatch, is_excluded, normalize_exclusion_path};

#[derive(Arbitrary, Debug)]
pub struct Input {
    rules: Vec<Glob>,
    path: Glob,
}

#[derive(Arbitrary, Debug)]
struct Glob(Vec<Token>);

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Token {
    Star,
    Question,
    Open,
    Close,
    Bang,
    Caret,
    Dash,
    Backslash,
    Slash,
    Dot,
    Brace,
    Comma,
    A,
    B,
    Z,
    Space,
    Accent,
    Wide,
    Crab,
    Nul,
    Tab,
    Char(char),
}

/// Reference matching runs only while pattern × path stays this small.
const MAX_REFERENCE_CELLS: usize = 100_000;

pub fn check(data: &[u8]) {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let rules: Vec<String> = input.rules.iter().map(Glob::render).collect();
    let path = input.path.render();
    for rule in &rules {
        let matched = fnmatch(rule, &path);
        if let Some(want) = reference_fnmatch(rule, &path) {
            assert_eq!(matched, want, "fnmatch({rule:?}, {path:?})");
        }
        assert_eq!(
            is_excluded(std::slice::from_ref(rule), &path),
            reference_excluded(std::slice::from_ref(rule), &path),
            "is_excluded([{rule:?}], {path:?})"
        );
    }
    let plain = !path.contains('\0');
    assert_eq!(
        fnmatch("*", &path),
        plain && !path.starts_with('.'),
        "{path:?}"
    );
    let escaped: String = path.chars().flat_map(|c| ['\\', c]).collect();
    assert_eq!(fnmatch(&escaped, &path), plain, "{escaped:?}");
    check_normalized(&path);
    assert_eq!(
        is_excluded(&rules, &path),
        reference_excluded(&rules, &path),
        "is_excluded({rules:?}, {path:?})"
    );
}

impl Glob {
    fn render(&self) -> String {
        self.0.iter().map(|t| t.char()).collect()
    }
}

impl Token {
    fn char(self) -> char {
        match self {
            Token::Star => '*',
            Token::Question => '?',
            Token::Open => '[',
            Token::Close => ']',
            Token::Bang => '!',
            Token::Caret => '^',
            Token::Dash => '-',
            Token::Backslash => '\\',
            Token::Slash => '/',
            Token::Dot => '.',
            Token::Brace => '{',
            Token::Comma => ',',
            Token::A => 'a',
            Token::B => 'b',
            Token::Z => 'z',
            Token::Space => ' ',
            Token::Accent => 'é',
            Token::Wide => '日',
            Token::Crab => '🦀',
            Token::Nul => '\0',
            Token::Tab => '\t',
            Token::Char(c) => c,
        }
    }
}

fn check_normalized(path: &str) {
    let Some(normal) = normalize_exclusion_path(path) else {
        return;
    };
    assert_eq!(
        normalize_exclusion_path(&normal).as_deref(),
        Some(&*normal),
        "normalising {path:?} is not idempotent"
    );
    assert!(!normal.chars().all(char::is_whitespace), "{path:?}");
    if normal != "." {
        assert!(
            !normal.starts_with('/') && !normal.ends_with('/'),
            "{normal:?}"
        );
        assert!(
            normal.split('/').all(|c| !c.is_empty() && c != "."),
            "{normal:?}"
        );
    }
}

/// One element of a pattern without `[`.
#[derive(Clone, Copy, PartialEq)]
enum Element {
    Star,
    Any,
    Literal(char),
}

/// `File.fnmatch(pattern, path)` without flags as `fnmatch`'s documentation states it, for a
/// pattern without `[`; `None` for a pattern with `[` or inputs too large to check cheaply.
pub fn reference_fnmatch(pattern: &str, path: &str) -> Option<bool> {
    if pattern.contains('\0') || path.contains('\0') {
        return Some(false);
    }
    let elements = elements(pattern)?;
    let path: Vec<char> = path.chars().collect();
    if elements.len().saturating_mul(path.len() + 1) > MAX_REFERENCE_CELLS {
        return None;
    }
    if path.first() == Some(&'.') && elements.first() != Some(&Element::Literal('.')) {
        return Some(false);
    }
    // `matches[j]`: the elements so far match the first `j` characters of the path.
    let mut matches = vec![false; path.len() + 1];
    matches[0] = true;
    for element in elements {
        let mut next = vec![false; path.len() + 1];
        for j in 0..=path.len() {
            next[j] = match element {
                Element::Star => matches[j] || (j > 0 && next[j - 1]),
                Element::Any => j > 0 && matches[j - 1],
                Element::Literal(c) => j > 0 && matches[j - 1] && path[j - 1] == c,
            };
        }
        matches = next;
    }
    Some(matches[path.len()])
}

/// The elements of `pattern`: `*`, `?`, `\c` (the literal `c`), a lone `\` at the end
/// (nothing: it matches the end of the path), any other character itself; `None` with `[`.
fn elements(pattern: &str) -> Option<Vec<Element>> {
    let mut out = Vec::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        out.push(match c {
            '*' => Element::Star,
            '?' => Element::Any,
            '[' => return None,
            '\\' => match chars.next() {
                Some(escaped) => Element::Literal(escaped),
                None => break,
            },
            c => Element::Literal(c),
        });
    }
    Some(out)
}

/// `is_excluded` as its documentation states it, on top of `fnmatch`.
pub fn reference_excluded(rules: &[String], path: &str) -> bool {
    let rules: Vec<&str> = rules
        .iter()
        .map(String::as_str)
        .filter(|r| !r.chars().all(char::is_whitespace))
        .collect();
    if rules.iter().any(|r| r.contains('\0')) {
        return true;
    }
    let Some(normal) = normalize_exclusion_path(path) else {
        return rules.iter().any(|r| !r.starts_with('!'));
    };
    let mut excluded = false;
    for rule in rules {
        let (include, pattern) = match rule.strip_prefix('!') {
            Some(pattern) => (true, pattern),
            None => (false, rule),
        };
        if fnmatch(pattern, &normal) {
            excluded = !include;
        }
    }
    excluded
}
