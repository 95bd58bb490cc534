//! GitLab Duo context exclusion: decides whether GitLab would keep a repository
//! file away from AI features, so that this server never hands such a file to
//! an agent.
//!
//! This module owns exactly three pure functions and nothing else (fetching
//! `Project.duoContextExclusionSettings { exclusionRules }` over GraphQL and
//! reporting an excluded file belong to the callers):
//!
//! * [`fnmatch`] re-implements Ruby's `File.fnmatch(pattern, path)` called with
//!   **no flags**, i.e. the `fnmatch_helper` and `bracket` functions of Ruby's
//!   `dir.c` with `FNM_PATHNAME`, `FNM_DOTMATCH`, `FNM_NOESCAPE`,
//!   `FNM_CASEFOLD` and `FNM_EXTGLOB` all off.
//! * [`normalize_path`] re-implements the path clean-up of GitLab EE's
//!   `Ai::FileExclusionService#normalize_path`
//!   (`ee/app/services/ai/file_exclusion_service.rb` in `gitlabhq/gitlabhq`).
//! * [`is_excluded`] re-implements that service's `excluded?` /
//!   `rule_matches_path?`: every non-blank rule is tried in order against the
//!   normalized path, a rule starting with `!` re-includes, the last matching
//!   rule wins, and a path that no rule matches is not excluded.
//!
//! The only places where this module answers differently from GitLab are
//! where GitLab gives up, and there it fails closed (see [`is_excluded`]): a
//! path that GitLab refuses to evaluate (it contains `..`, `\`, a control
//! character, or is blank) and a rule that would make Ruby raise (it contains
//! NUL).
//!
//! Every function here is total: no input panics, and matching runs in
//! `O(pattern.len() * path.len())` time because, as in Ruby, only the most
//! recent `*` is ever backtracked to.

/// Reports whether `path` matches `pattern` exactly as Ruby's
/// `File.fnmatch(pattern, path)` does when called without flags.
///
/// The whole of `path` must match the whole of `pattern`, case-sensitively,
/// character by character (a character is a Unicode scalar value, so `é` and
/// `日` are one character each, as in Ruby's UTF-8 matching). Within the
/// pattern:
///
/// * `*` matches any sequence of characters, including the empty one and
///   including `/`. A run of `*` is a single `*`, so `**` is just `*`: there
///   is no globstar, and `**/x` needs at least one `/` before `x`.
/// * `?` matches exactly one character, `/` included.
/// * `[...]` matches exactly one character, `/` included; see `bracket` below for
///   its syntax (ranges, `!`/`^` negation, `\` escapes, `]` right after the
///   `[` closing an empty set). A `[` whose set is never closed matches
///   nothing, so a pattern containing one matches no path at all: Ruby does
///   **not** fall back to a literal `[`.
/// * `\c` matches the character `c` literally, for any `c` (`\*`, `\?`,
///   `\[`, `\\`, `\a`). A lone `\` at the very end of the pattern matches the
///   end of the path: `abc\` matches `abc` (but not `abc\`) and `*\` behaves
///   like `*`.
/// * `{`, `}` and `,` are ordinary characters (`FNM_EXTGLOB` is off), as are
///   `]`, `!`, `^` and `-` outside a set.
/// * Leading period (`FNM_DOTMATCH` is off): when `path` starts with `.`, the
///   pattern must start with a literal `.` (`.` or `\.`), or nothing matches.
///   Because `FNM_PATHNAME` is off this applies **only** at the start of the
///   whole path, never after a `/`: `*` and `*.env` do not match `.env`, but
///   `*` matches `a/.env` and `secrets/*` matches `secrets/.env`.
///
/// The empty pattern matches only the empty path; `*` and `\` match the empty
/// path too.
///
/// Ruby raises `ArgumentError` when either string contains a NUL character;
/// this function returns `false` instead.
pub(crate) fn fnmatch(pattern: &str, path: &str) -> bool {
    if pattern.contains('\0') || path.contains('\0') {
        return false;
    }
    let path: Vec<char> = path.chars().collect();
    fnmatch_chars(pattern, &path)
}

/// [`fnmatch`] on a path already split into characters and known to contain
/// no NUL, so that [`is_excluded`] splits the path once for all its rules.
/// A `pattern` containing NUL matches nothing, as in [`fnmatch`].
fn fnmatch_chars(pattern: &str, path: &[char]) -> bool {
    if pattern.contains('\0') {
        return false;
    }
    let pattern: Vec<char> = pattern.chars().collect();
    !leading_period_blocks(&pattern, path) && match_chars(&pattern, path)
}

/// Ruby's leading-period rule: `true` when `path` starts with `.` and
/// `pattern` does not start with a literal `.` (that is, neither with `.` nor
/// with `\.`), in which case the pattern cannot match.
///
/// Only the first character of the path is looked at: without `FNM_PATHNAME`
/// a `.` after a `/` is an ordinary character. An empty path is never
/// blocked.
fn leading_period_blocks(pattern: &[char], path: &[char]) -> bool {
    path.first() == Some(&'.') && pattern.get(unescape(pattern, 0)) != Some(&'.')
}

/// The index of the character that the pattern element at `i` stands for
/// when read as a literal outside a set: `i + 1` when `pattern[i]` is `\`
/// (which is `pattern.len()` when that `\` is the last character), else `i`.
fn unescape(pattern: &[char], i: usize) -> usize {
    if pattern.get(i) == Some(&'\\') {
        i + 1
    } else {
        i
    }
}

/// Matches the whole of `path` against the whole of `pattern`, without the
/// leading-period rule (see [`leading_period_blocks`]).
///
/// This is the classic two-pointer glob matcher that Ruby's `fnmatch_helper`
/// is: it walks both sequences and, on a mismatch, retries from the most
/// recent `*` with that `*` swallowing one more character. Keeping only the
/// most recent `*` is enough because every other element matches exactly one
/// character, and it bounds the work by `pattern.len() * path.len()` steps.
///
/// Like Ruby, it answers "no match" without backtracking as soon as the path
/// is exhausted in front of a `?`, a `[`, a literal or a non-final `*`, since
/// each of those needs at least one more character and a later retry would
/// reach the same point with even fewer characters left.
fn match_chars(pattern: &[char], path: &[char]) -> bool {
    let (mut p, mut s) = (0, 0);
    // (pattern index just past the most recent run of `*`, path index that
    // run is currently made to stop at).
    let mut retry: Option<(usize, usize)> = None;
    loop {
        let advanced = match pattern.get(p) {
            Some('*') => {
                while pattern.get(p) == Some(&'*') {
                    p += 1;
                }
                if unescape(pattern, p) >= pattern.len() {
                    return true;
                }
                if s >= path.len() {
                    return false;
                }
                retry = Some((p, s));
                continue;
            }
            Some('?') => {
                if s >= path.len() {
                    return false;
                }
                p += 1;
                s += 1;
                continue;
            }
            Some('[') => {
                let Some(&c) = path.get(s) else {
                    return false;
                };
                bracket(pattern, p, c).map(|end| (end, s + 1))
            }
            _ => {
                let lit = unescape(pattern, p);
                match (pattern.get(lit), path.get(s)) {
                    (expected, None) => return expected.is_none(),
                    (Some(expected), Some(actual)) if expected == actual => Some((lit + 1, s + 1)),
                    _ => None,
                }
            }
        };
        match (advanced, retry) {
            (Some((next_p, next_s)), _) => (p, s) = (next_p, next_s),
            // Every mismatch above happens with `s < path.len()`, and the
            // retry position never passes `s`, so `from + 1 <= path.len()`.
            (None, Some((star_end, from))) => {
                retry = Some((star_end, from + 1));
                (p, s) = (star_end, from + 1);
            }
            (None, None) => return false,
        }
    }
}

/// Matches the character `c` against the bracket expression whose `[` is at
/// `pattern[open]`, as Ruby's `bracket` does without flags. Returns the index
/// just past the closing `]` when `c` is selected, and `None` when it is not
/// or when the set is never closed.
///
/// The syntax, read left to right after the `[`:
///
/// * An optional `!` or `^` negates the set.
/// * The set closes at the first `]` that is not escaped and not a member's
///   second character. That includes a `]` straight after `[`, `[!` or `[^`:
///   `[]` is an empty set matching nothing, `[]a]` is `[]` then a literal
///   `a]`, and `[!]` / `[^]` match any one character. (POSIX would make
///   that `]` a member; Ruby does not.) To put `]` in a set, escape it:
///   `[\]]`.
/// * Each member is one character, optionally preceded by `\` to take it
///   literally (so `[\!a]`, `[\]]`, `[\\]` and `[\a-c]` work).
/// * A member followed by `-` and then anything but `]` is a range whose
///   upper end is the next (optionally escaped) character. A range selects
///   `c` when `c` equals either end or lies between them by code point, so
///   a reversed range like `[z-a]` selects only `z` and `a`. A `-` first, or
///   right before the closing `]`, is an ordinary member (`[-a]`, `[a-]`).
/// * `/` is selected like any other character (`FNM_PATHNAME` is off).
///
/// The set is unclosed, and `None` is returned whatever `c` is, when the
/// pattern ends after `[`, after the negation, after a `\`, after a member,
/// or after a range's `-`.
fn bracket(pattern: &[char], open: usize, c: char) -> Option<usize> {
    let mut i = open + 1;
    if i >= pattern.len() {
        return None;
    }
    let negated = matches!(pattern.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut selected = false;
    while pattern.get(i) != Some(&']') {
        let lo = set_member(pattern, i)?;
        i = lo + 1;
        if i >= pattern.len() {
            return None;
        }
        if pattern.get(i) == Some(&'-') && pattern.get(i + 1) != Some(&']') {
            let hi = set_member(pattern, i + 1)?;
            i = hi + 1;
            // `set_member` only returns indices inside `pattern`.
            let (lo, hi) = (pattern[lo], pattern[hi]);
            selected |= c == lo || c == hi || (lo..=hi).contains(&c);
        } else {
            // `set_member` only returns indices inside `pattern`.
            selected |= c == pattern[lo];
        }
    }
    (selected != negated).then_some(i + 1)
}

/// The index of the set member starting at `pattern[i]`: `i`, or `i + 1`
/// when `pattern[i]` is an escaping `\`. `None` when that index is past the
/// end of the pattern (the set is unclosed), so the returned index is always
/// valid for `pattern`.
fn set_member(pattern: &[char], i: usize) -> Option<usize> {
    let member = unescape(pattern, i);
    (member < pattern.len()).then_some(member)
}

/// Normalizes a file path the way GitLab's `Ai::FileExclusionService`
/// does before matching rules, or returns `None` for a path GitLab refuses
/// to evaluate (GitLab then reports it as not excluded; [`is_excluded`]
/// fails closed instead).
///
/// In order:
///
/// 1. All leading `/` are removed (`/app/x.rb` is `app/x.rb`).
/// 2. The path is refused if it contains `..` anywhere (even inside a name
///    such as `a..b`), contains `\`, is empty or made only of ASCII
///    whitespace (Ruby `\s`), or contains an ASCII control character
///    (U+0000–U+001F or U+007F).
/// 3. Ruby's `Pathname#cleanpath` is applied: empty components (from `//` or
///    a trailing `/`) and `.` components are dropped, and a path left with no
///    component becomes `.` (`./` and `.` both become `.`). `..` components
///    cannot occur after step 2.
/// 4. The result is refused if it is blank in the ActiveSupport sense, i.e.
///    made only of Unicode whitespace (`" /"` cleans to `" "`; a lone
///    U+00A0 passes step 2 but not this one).
pub(crate) fn normalize_path(path: &str) -> Option<String> {
    let path = path.trim_start_matches('/');
    let refused = path.contains("..")
        || path.contains('\\')
        || path.chars().all(is_ruby_regex_space)
        || path.chars().any(|c| c.is_ascii_control());
    if refused {
        return None;
    }
    let clean = cleanpath(path);
    (!is_blank(&clean)).then_some(clean)
}

/// Ruby's `Pathname#cleanpath` for a relative path without `..`
/// components: drops empty and `.` components and joins the rest with `/`,
/// or returns `.` when nothing is left.
fn cleanpath(path: &str) -> String {
    let parts: Vec<&str> = path
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

/// Ruby's regex `\s`: space, tab, line feed, vertical tab, form feed and
/// carriage return; ASCII only (unlike [`is_blank`]).
fn is_ruby_regex_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0B' | '\x0C' | '\r')
}

/// ActiveSupport's `String#blank?`: the string is empty or made only of
/// characters matching Ruby's `[[:space:]]`, which for UTF-8 strings is
/// exactly the Unicode `White_Space` set that [`char::is_whitespace`]
/// tests (tabs and line breaks, U+0020, U+0085, U+00A0, U+1680,
/// U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000; not U+180E or
/// U+200B).
fn is_blank(s: &str) -> bool {
    s.chars().all(char::is_whitespace)
}

/// What a matching rule does to a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Effect {
    /// A plain rule: a matching path is excluded.
    Exclude,
    /// A rule that started with `!`: a matching path is included again.
    Include,
}

/// Splits a non-blank rule into its effect and its pattern, as GitLab does:
/// a rule starting with `!` is an include rule whose pattern is the rest of
/// the rule after that single `!` (possibly empty, possibly starting with
/// another `!`, which is then an ordinary character); any other rule is an
/// exclude rule whose pattern is the whole rule. Nothing is trimmed: in
/// `" !a"` the `!` does not negate and the space is part of the pattern.
fn parse_rule(rule: &str) -> (Effect, &str) {
    match rule.strip_prefix('!') {
        Some(pattern) => (Effect::Include, pattern),
        None => (Effect::Exclude, rule),
    }
}

/// Reports whether GitLab's Duo context exclusion `rules` (the project's
/// `exclusionRules`, in their stored order) exclude the file at `path`, a
/// repository-relative path.
///
/// As in GitLab's `Ai::FileExclusionService`:
///
/// * `path` goes through [`normalize_path`] first (leading `/` removed,
///   `//` and `.` components collapsed, trailing `/` dropped).
/// * Blank rules (empty, or only Unicode whitespace) are skipped. Other rules
///   are used untrimmed. A `null` element in the GraphQL list is blank too
///   (Ruby's `nil.present?` is false), so callers should simply drop it.
/// * Each remaining rule is split by `parse_rule` into an effect (`!` means
///   include) and a pattern, and the pattern is matched against the
///   normalized path with [`fnmatch`]. Every rule is tried; the effect of
///   the **last** matching rule decides. No matching rule (including no rules
///   at all) means not excluded.
///
/// So `["*.md", "!README.md"]` excludes `docs/a.md` but not `README.md`, and
/// appending `"README*"` excludes `README.md` again. A rule ending in `/`
/// (such as `node_modules/`) matches no normalized path, since normalization
/// drops trailing slashes; `node_modules/*` is the rule that works.
///
/// Where GitLab does not evaluate the rules this function fails closed
/// rather than report "not excluded" as GitLab does:
///
/// * A path that [`normalize_path`] refuses is excluded when at least one
///   non-blank rule is an exclude rule (i.e. the rules could exclude some
///   path), and not excluded otherwise.
/// * If any non-blank rule contains NUL, on which Ruby's `File.fnmatch`
///   raises and GitLab's service errors out, every path is excluded.
pub(crate) fn is_excluded<S: AsRef<str>>(rules: &[S], path: &str) -> bool {
    let rules = || {
        rules
            .iter()
            .map(AsRef::as_ref)
            .filter(|rule| !is_blank(rule))
    };
    if rules().any(|rule| rule.contains('\0')) {
        return true;
    }
    let Some(path) = normalize_path(path) else {
        return rules().any(|rule| parse_rule(rule).0 == Effect::Exclude);
    };
    let path: Vec<char> = path.chars().collect();
    rules().fold(false, |excluded, rule| {
        let (effect, pattern) = parse_rule(rule);
        if fnmatch_chars(pattern, &path) {
            effect == Effect::Exclude
        } else {
            excluded
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Runs `fnmatch` over `(pattern, path, expected)` rows and reports every
    /// row that disagrees, all at once.
    fn check_fnmatch(rows: &[(&str, &str, bool)]) {
        let failures: Vec<String> = rows
            .iter()
            .filter(|&&(pattern, path, want)| fnmatch(pattern, path) != want)
            .map(|(pattern, path, want)| format!("fnmatch({pattern:?}, {path:?}) should be {want}"))
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    // Every row of the `fnmatch` tables below was checked against Ruby 3.1's
    // `File.fnmatch(pattern, path)`, and every `normalize_path` and
    // `is_excluded` row against a Ruby transcription of GitLab's
    // `Ai::FileExclusionService` (with the fail-closed cases adjusted).

    #[test]
    fn fnmatch_literals() {
        check_fnmatch(&[
            ("", "", true),
            ("", "a", false),
            ("a", "", false),
            ("abc", "abc", true),
            ("abc", "abcd", false),
            ("abcd", "abc", false),
            ("A", "a", false),
            ("a", "A", false),
            ("app/models/user.rb", "app/models/user.rb", true),
            ("app/models/user.rb", "/app/models/user.rb", false),
            ("é", "é", true),
            ("é", "e", false),
            ("日本", "日本", true),
            // Outside a set these are ordinary characters.
            ("]", "]", true),
            ("!a", "!a", true),
            ("^a", "^a", true),
            ("a-b", "a-b", true),
            (" a", " a", true),
            (" a", "a", false),
        ]);
    }

    #[test]
    fn fnmatch_star() {
        check_fnmatch(&[
            ("*", "", true),
            ("*", "a", true),
            ("*", "a/b/c.rb", true),
            ("*.rb", "app/models/user.rb", true),
            ("app/*", "app/models/user.rb", true),
            ("app/*.rb", "app/models/user.rb", true),
            ("app/models/*.rb", "app/models/user.rb", true),
            ("app/controllers/*.rb", "app/models/user.rb", false),
            ("*/user.rb", "user.rb", false),
            ("*/user.rb", "a/b/user.rb", true),
            ("a*", "a", true),
            ("*a", "a", true),
            ("a*b", "ab", true),
            ("a*b", "a/x/b", true),
            ("a*b", "abc", false),
            ("a*b*c", "aXbYbZc", true),
            ("a*b*c", "aXbYbZ", false),
            ("*x*", "abc", false),
            ("*c", "abcabc", true),
            ("*bc", "abcabd", false),
            ("*a?", "aaa", true),
            ("*?", "", false),
            ("*?", "a", true),
        ]);
    }

    #[test]
    fn fnmatch_double_star_is_a_single_star() {
        check_fnmatch(&[
            ("**", "a/b/c", true),
            ("***", "a", true),
            ("app/**/*.rb", "app/models/user.rb", true),
            ("app/**/*.rb", "app/a/b/c/user.rb", true),
            // No globstar: `**/` needs a `/` to match.
            ("app/**/*.rb", "app/user.rb", false),
            ("**/*.rb", "user.rb", false),
            ("**/*.rb", "lib/user.rb", true),
            ("**/secrets/**", "a/secrets/b", true),
            ("**/secrets/**", "secrets/b", false),
            ("**.rb", "a/b.rb", true),
        ]);
    }

    #[test]
    fn fnmatch_question_mark() {
        check_fnmatch(&[
            ("?", "", false),
            ("?", "a", true),
            ("?", "ab", false),
            ("??", "ab", true),
            ("a?b", "a/b", true),
            ("?", "/", true),
            // A whole character, not a byte.
            ("?", "é", true),
            ("?.txt", "é.txt", true),
            ("??.txt", "é.txt", false),
            ("?", "日", true),
            ("???", "日本語", true),
            ("??", "日本語", false),
            ("?", "🦀", true),
        ]);
    }

    #[test]
    fn fnmatch_bracket_members_and_ranges() {
        check_fnmatch(&[
            ("[abc]", "b", true),
            ("[abc]", "d", false),
            ("[abc]", "", false),
            ("[abc]", "ab", false),
            ("[a-z]", "m", true),
            ("[a-z]", "a", true),
            ("[a-z]", "z", true),
            ("[a-z]", "M", false),
            ("[a-z0-9_]", "7", true),
            ("[a-z0-9_]", "_", true),
            ("[a-z0-9_]", "-", false),
            ("[a-z]", "/", false),
            ("[/]", "/", true),
            ("a[/]b", "a/b", true),
            ("[é]", "é", true),
            ("[a-é]", "b", true),
            ("[à-ÿ]", "é", true),
            ("[日本]", "本", true),
            // A reversed range selects only its two ends.
            ("[z-a]", "z", true),
            ("[z-a]", "a", true),
            ("[z-a]", "m", false),
            // `-` first or last is a member.
            ("[-a]", "-", true),
            ("[a-]", "-", true),
            ("[a-]", "a", true),
            ("[a-]]", "a]", true),
            ("[a-]]", "-]", true),
            ("[a-z-9]", "-", true),
            ("[a-z-9]", "9", true),
            ("*.[ch]", "src/main.c", true),
            ("*.[ch]", "src/main.h", true),
            ("*.[ch]", "src/main.o", false),
        ]);
    }

    #[test]
    fn fnmatch_bracket_negation() {
        check_fnmatch(&[
            ("[!abc]", "d", true),
            ("[!abc]", "a", false),
            ("[^abc]", "d", true),
            ("[^abc]", "a", false),
            ("[!a-c]", "d", true),
            ("[!a-c]", "b", false),
            ("[^a-c]", "b", false),
            ("[!a]", "/", true),
            ("[!a]", "é", true),
            ("[!a]", "", false),
            // `!` or `^` anywhere else is a member.
            ("[a!]", "!", true),
            ("[a^]", "^", true),
            ("[!!]", "!", false),
            ("[!!]", "a", true),
        ]);
    }

    #[test]
    fn fnmatch_bracket_close_first_is_an_empty_set() {
        check_fnmatch(&[
            ("[]", "", false),
            ("[]", "]", false),
            ("[]]", "]", false),
            ("[]a]", "a", false),
            ("[]a]", "]", false),
            ("[]a]", "a]", false),
            // `[!]` is the negated empty set: any one character.
            ("[!]", "x", true),
            ("[!]", "]", true),
            ("[!]", "", false),
            ("[!]", "xy", false),
            ("[^]", "/", true),
            ("[!]]", "x]", true),
            ("[!]]", "x", false),
        ]);
    }

    #[test]
    fn fnmatch_bracket_escapes() {
        check_fnmatch(&[
            ("[\\]]", "]", true),
            ("[\\]a]", "a", true),
            ("[\\!a]", "!", true),
            ("[\\!a]", "b", false),
            ("[\\\\]", "\\", true),
            ("[\\a-c]", "b", true),
            ("[a-\\c]", "b", true),
            ("[\\-a]", "-", true),
            ("[a\\-z]", "-", true),
            ("[a\\-z]", "m", false),
            ("[*?]", "*", true),
            ("[*?]", "?", true),
            ("[*?]", "a", false),
            ("[[]", "[", true),
        ]);
    }

    #[test]
    fn fnmatch_unclosed_bracket_matches_nothing() {
        check_fnmatch(&[
            ("[", "[", false),
            ("[", "", false),
            ("[", "a", false),
            ("a[", "a[", false),
            ("[a", "[a", false),
            ("[a", "a", false),
            ("*[", "x[", false),
            ("x[a-z", "x[", false),
            ("x[a-z", "x[a-z", false),
            ("[!", "a", false),
            ("[^", "a", false),
            ("[a-", "a", false),
            ("[a-", "[a-", false),
            ("[a\\]", "a", false),
            ("[a\\]", "a]", false),
            ("[\\", "\\", false),
            ("*[a", "[a", false),
            // Escaped, the `[` is an ordinary character.
            ("\\[", "[", true),
            ("a\\[", "a[", true),
            ("\\[a", "[a", true),
        ]);
    }

    #[test]
    fn fnmatch_escapes_outside_sets() {
        check_fnmatch(&[
            ("\\*", "*", true),
            ("\\*", "a", false),
            ("\\?", "?", true),
            ("\\?", "a", false),
            ("\\\\", "\\", true),
            ("\\a", "a", true),
            ("\\a", "\\a", false),
            ("a\\*b", "a*b", true),
            ("a\\*b", "axb", false),
            ("*\\*", "note*", true),
            ("*\\*", "note", false),
            // A lone trailing `\` matches the end of the path.
            ("\\", "", true),
            ("\\", "\\", false),
            ("abc\\", "abc", true),
            ("abc\\", "abc\\", false),
            ("abc\\", "abcd", false),
            ("*\\", "abc", true),
            ("*\\", "", true),
            ("*c\\", "abc", true),
        ]);
    }

    #[test]
    fn fnmatch_braces_are_literal() {
        check_fnmatch(&[
            ("{a,b}", "a", false),
            ("{a,b}", "{a,b}", true),
            ("*.{yml,yaml}", "config.yml", false),
            ("*.{yml,yaml}", "config.{yml,yaml}", true),
            ("{*}", "{x}", true),
        ]);
    }

    #[test]
    fn fnmatch_leading_period() {
        check_fnmatch(&[
            ("*", ".env", false),
            ("*.env", ".env", false),
            ("*env", ".env", false),
            ("?env", ".env", false),
            ("[.]env", ".env", false),
            ("[!a]env", ".env", false),
            ("**/.env", ".env", false),
            (".env", ".env", true),
            ("\\.env", ".env", true),
            (".*", ".env", true),
            (".e?v", ".env", true),
            ("*", ".", false),
            (".", ".", true),
            ("*", ".git/config", false),
            (".git/*", ".git/config", true),
            (".*/*", ".git/config", true),
            // Only the very start of the path: `.` after `/` is ordinary.
            ("*", "a/.env", true),
            ("*.env", "config/.env", true),
            ("*/.env", "config/.env", true),
            ("**/.env", "a/b/.env", true),
            ("secrets/*", "secrets/.env", true),
            ("secrets/?env", "secrets/.env", true),
            ("secrets/[.]env", "secrets/.env", true),
            ("*", "a.b", true),
            ("a*", "a.b", true),
            // The path starting with `.` is what matters, not the pattern.
            (".*", "env", false),
            (".*", ".", true),
        ]);
    }

    #[test]
    fn fnmatch_nul_matches_nothing() {
        check_fnmatch(&[
            ("a\0", "a", false),
            ("a\0", "a\0", false),
            ("*", "a\0", false),
            ("\0", "\0", false),
        ]);
    }

    #[test]
    fn fnmatch_backtracking_is_not_exponential() {
        let path = "a".repeat(20_000);
        let pattern = "*a".repeat(200) + "b";
        assert!(!fnmatch(&pattern, &path));
        let pattern = "*a".repeat(200);
        assert!(fnmatch(&pattern, &path));
        let pattern = "*?".repeat(300) + "[!a]";
        assert!(!fnmatch(&pattern, &path));
    }

    #[test]
    fn normalize_path_strips_and_cleans() {
        let rows: &[(&str, Option<&str>)] = &[
            ("app/models/user.rb", Some("app/models/user.rb")),
            ("/app/models/user.rb", Some("app/models/user.rb")),
            ("///app/x.rb", Some("app/x.rb")),
            ("app//models///user.rb", Some("app/models/user.rb")),
            ("app/./models/user.rb", Some("app/models/user.rb")),
            ("./app/x.rb", Some("app/x.rb")),
            ("app/models/", Some("app/models")),
            ("app/.", Some("app")),
            ("./.env", Some(".env")),
            (".env", Some(".env")),
            (".", Some(".")),
            ("./", Some(".")),
            ("/./", Some(".")),
            ("x/ ", Some("x/ ")),
            (" a", Some(" a")),
            ("a b/c", Some("a b/c")),
            ("é/日本.md", Some("é/日本.md")),
            ("...x", None),
            ("../../../config/secrets.yml", None),
            ("a/../b", None),
            ("a..b.txt", None),
            ("app\\models\\user.rb", None),
            ("", None),
            ("/", None),
            ("///", None),
            ("   ", None),
            ("/ ", None),
            ("\t\n", None),
            ("app/models/user\u{0}.rb", None),
            ("app/\u{1F}models/user.rb", None),
            ("a\u{7F}", None),
            ("a\nb", None),
            // Passes the ASCII checks, then cleans to something blank.
            (" /", None),
            ("\u{A0}", None),
            ("\u{3000}/.", None),
            // Not `White_Space`, so not blank.
            ("\u{200B}", Some("\u{200B}")),
        ];
        let failures: Vec<String> = rows
            .iter()
            .filter(|(path, want)| normalize_path(path).as_deref() != *want)
            .map(|(path, want)| {
                format!(
                    "normalize_path({path:?}) = {:?}, want {want:?}",
                    normalize_path(path)
                )
            })
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn is_blank_is_unicode_white_space() {
        for blank in [
            "", " ", "\t\n\r", "\u{85}", "\u{A0}", "\u{2003}", "\u{3000}",
        ] {
            assert!(is_blank(blank), "{blank:?}");
        }
        for not_blank in ["a", " a ", "\u{180E}", "\u{200B}", "\u{FEFF}", "!"] {
            assert!(!is_blank(not_blank), "{not_blank:?}");
        }
    }

    #[test]
    fn parse_rule_strips_exactly_one_bang() {
        assert_eq!(parse_rule("*.md"), (Effect::Exclude, "*.md"));
        assert_eq!(parse_rule("!README.md"), (Effect::Include, "README.md"));
        assert_eq!(parse_rule("!"), (Effect::Include, ""));
        assert_eq!(parse_rule("!!a"), (Effect::Include, "!a"));
        assert_eq!(parse_rule(" !a"), (Effect::Exclude, " !a"));
        assert_eq!(parse_rule("\\!a"), (Effect::Exclude, "\\!a"));
        assert_eq!(parse_rule("a!"), (Effect::Exclude, "a!"));
    }

    /// Runs `is_excluded` over `(rules, path, expected)` rows and reports
    /// every row that disagrees, all at once.
    fn check_excluded(rows: &[(&[&str], &str, bool)]) {
        let failures: Vec<String> = rows
            .iter()
            .filter(|&&(rules, path, want)| is_excluded(rules, path) != want)
            .map(|(rules, path, want)| format!("is_excluded({rules:?}, {path:?}) should be {want}"))
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn is_excluded_last_matching_rule_wins() {
        check_excluded(&[
            (&[], "a.md", false),
            (&["*.md"], "docs/a.md", true),
            (&["*.md"], "a.rs", false),
            (&["*.md", "!README.md"], "docs/a.md", true),
            (&["*.md", "!README.md"], "README.md", false),
            (&["*.md", "!README.md"], "docs/README.md", true),
            (&["*.md", "!README.md", "README*"], "README.md", true),
            (&["*.md", "!README.md", "README*"], "docs/a.md", true),
            (&["*.md", "!*", "secrets/*"], "secrets/a.md", true),
            (&["*.md", "!*", "secrets/*"], "docs/a.md", false),
            // A rule that does not match leaves the verdict alone.
            (&["*.md", "!*.rs"], "a.md", true),
            (&["!*.md"], "a.md", false),
            (&["!*"], "a", false),
            // The GitLab spec's cases.
            (&["app/*", "!app/models/*.rb"], "app/models/user.rb", false),
            (&["!app/*", "app/models/*.rb"], "app/models/user.rb", true),
            (&["app/models/*.rb", "!app/*"], "app/models/user.rb", false),
            (&["app/**/*.rb"], "app/models/user.rb", true),
            (&["app/controllers/*.rb"], "app/models/user.rb", false),
            (
                &["config/*.yml", "app/models/user.rb", "public/*"],
                "config/database.yml",
                true,
            ),
            (
                &["config/*.yml", "app/models/user.rb", "public/*"],
                "app/controllers/users_controller.rb",
                false,
            ),
        ]);
    }

    #[test]
    fn is_excluded_rule_syntax() {
        check_excluded(&[
            // Blank rules are skipped, other rules are not trimmed.
            (&["", "   ", "\u{A0}"], "a", false),
            (&["*", ""], "a", true),
            (&["*", " "], "a", true),
            (&[" *.md"], "a.md", false),
            (&[" *.md"], " a.md", true),
            (&["*.md "], "a.md", false),
            // Exactly one `!` is removed; the rest is the pattern.
            (&["*", "!"], "a", true),
            (&["*", "!!a"], "a", true),
            (&["*", "!!a"], "!a", false),
            (&["\\!a"], "!a", true),
            (&["!a"], "!a", false),
            (&[" !a"], " !a", true),
            // A trailing `/` never matches: normalized paths have none.
            (&["node_modules/"], "node_modules/x.js", false),
            (&["node_modules/"], "node_modules/", false),
            (&["node_modules/*"], "node_modules/x.js", true),
            (&["node_modules"], "node_modules/", true),
            // Case-sensitive.
            (&["*.MD"], "a.md", false),
            // Unclosed `[` never matches.
            (&["secrets/[a"], "secrets/[a", false),
        ]);
    }

    #[test]
    fn is_excluded_leading_dot() {
        check_excluded(&[
            (&["*"], ".env", false),
            (&["*.env"], ".env", false),
            (&["*.env"], "config/.env", true),
            (&[".env"], ".env", true),
            (&[".*"], ".gitlab-ci.yml", true),
            (&["*"], ".git/config", false),
            (&["secrets/*"], "secrets/.env", true),
            (&["**/.env"], ".env", false),
            (&["**/.env", ".env"], ".env", true),
            // Normalization can expose a leading dot.
            (&["*"], "./.env", false),
            (&["*"], "/.env", false),
        ]);
    }

    #[test]
    fn is_excluded_normalizes_the_path() {
        check_excluded(&[
            (&["app/models/*.rb"], "/app/models/user.rb", true),
            (&["app/models/user.rb"], "app//models/./user.rb", true),
            (&["app/models"], "app/models/", true),
            (&["app/models"], "./app/models", true),
            (&["."], "./", true),
            (&["*"], ".", false),
        ]);
    }

    #[test]
    fn is_excluded_fails_closed_on_refused_paths() {
        check_excluded(&[
            // GitLab reports these as not excluded; we exclude them whenever
            // some rule could exclude anything.
            (&["*"], "../../../config/secrets.yml", true),
            (&["secrets/*"], "docs/a..b.md", true),
            (&["*.rb"], "app\\models\\user.rb", true),
            (&["*"], "   ", true),
            (&["*"], "", true),
            (&["*"], "app/models/user\u{0}.rb", true),
            (&["*"], "\u{A0}", true),
            (&["!*", "*.md"], "a..b", true),
            // Without a non-blank exclude rule nothing can be excluded.
            (&[], "../x", false),
            (&["", " "], "../x", false),
            (&["!*"], "../x", false),
        ]);
    }

    #[test]
    fn is_excluded_fails_closed_on_nul_rules() {
        check_excluded(&[
            (&["a\0"], "b", true),
            (&["!a\0"], "b", true),
            (&["*.md", "!\0"], "a.rs", true),
        ]);
    }

    #[test]
    fn is_excluded_accepts_owned_rules() {
        let rules = vec!["*.md".to_owned(), "!README.md".to_owned()];
        assert!(is_excluded(&rules, "a.md"));
        assert!(!is_excluded(&rules, "README.md"));
    }

    /// Characters that exercise every branch of the matcher, plus ordinary
    /// ASCII and multibyte characters.
    fn glob_text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                4 => prop::sample::select(vec![
                    '*', '?', '[', ']', '!', '^', '-', '\\', '/', '.', '{', '}', ',',
                ]),
                4 => prop::sample::select(vec!['a', 'b', 'z', 'A', ' ', 'é', '日', '🦀']),
                1 => any::<char>(),
            ],
            0..12,
        )
        .prop_map(|chars| chars.into_iter().collect())
    }

    /// Text without `*`, `?`, `[`, `\` or NUL: as a pattern it has no
    /// special character.
    fn literal_text() -> impl Strategy<Value = String> {
        glob_text().prop_map(|text| text.replace(['*', '?', '[', '\\', '\0'], "x"))
    }

    proptest! {
        #[test]
        fn fnmatch_never_panics(pattern in glob_text(), path in glob_text()) {
            let _ = fnmatch(&pattern, &path);
            let _ = normalize_path(&path);
            let _ = is_excluded(&[pattern.as_str(), "!a*"], &path);
        }

        #[test]
        fn literal_pattern_matches_only_itself(pattern in literal_text(), path in glob_text()) {
            prop_assert!(fnmatch(&pattern, &pattern));
            prop_assert_eq!(fnmatch(&pattern, &path), pattern == path);
            let longer = format!("{pattern}a");
            prop_assert!(!fnmatch(&pattern, &longer));
            let mut shorter = pattern.clone();
            if shorter.pop().is_some() {
                prop_assert!(!fnmatch(&pattern, &shorter));
            }
        }

        #[test]
        fn escaped_text_matches_only_itself(text in glob_text(), path in glob_text()) {
            prop_assume!(!text.contains('\0'));
            let pattern: String = text.chars().flat_map(|c| ['\\', c]).collect();
            prop_assert!(fnmatch(&pattern, &text));
            prop_assert_eq!(fnmatch(&pattern, &path), text == path);
        }

        #[test]
        fn star_matches_every_path_not_starting_with_a_dot(path in glob_text()) {
            prop_assume!(!path.contains('\0'));
            prop_assert_eq!(fnmatch("*", &path), !path.starts_with('.'));
        }
    }
}
