//! Git's rules for ref names and the revisions we accept, as pure checks: which strings can
//! name a branch or tag (`git check-ref-format --allow-onelevel`, plus GitLab's "does not start
//! with `-`"), and which revisions the local source resolves (a ref name followed by `~N` /
//! `^N` ancestry steps, nothing else of git's rev-spec syntax).
//!
//! Failures are [`RefNameError`]s.
use std::fmt::{self, Display, Formatter};

/// The kind of ref named by `?ref_type=` in a GitLab URL.
///
/// GitLab's web UI adds `ref_type=heads` or `ref_type=tags` when a branch and
/// a tag share a name; the GraphQL `RefType` enum then turns the ref into
/// `refs/heads/<ref>` or `refs/tags/<ref>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum RefType {
    /// A branch (`refs/heads/…`); GraphQL `HEADS`.
    Heads,
    /// A tag (`refs/tags/…`); GraphQL `TAGS`.
    Tags,
}

/// `refs/heads/<ref>` / `refs/tags/<ref>` when the ref type is known, the bare ref otherwise
/// (GitLab's `RefExtractor.qualify_ref`).
pub(crate) fn qualify_ref(git_ref: &str, ref_type: Option<RefType>) -> String {
    match ref_type {
        Some(RefType::Heads) => format!("refs/heads/{git_ref}"),
        Some(RefType::Tags) => format!("refs/tags/{git_ref}"),
        None => git_ref.to_string(),
    }
}

/// Why a string is not an acceptable ref name or revision. Checked in this order, so a name
/// with several problems reports the first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RefNameError {
    /// The name is empty.
    Empty,
    /// It contains this ASCII control character.
    ControlCharacter(char),
    /// It contains a space.
    Space,
    /// It contains `:` (as in `ref:path`).
    Colon,
    /// It contains one of `~ ^ ? * [ \`.
    Forbidden(char),
    /// It contains `..`.
    DoubleDot,
    /// It contains `@{`.
    AtBrace,
    /// It is exactly `@`.
    LoneAt,
    /// It starts with `-`.
    LeadingDash,
    /// It starts or ends with `/`, or contains `//`.
    BadSlashes,
    /// It ends with `.`.
    TrailingDot,
    /// A `/`-separated component starts with `.`.
    ComponentStartsWithDot,
    /// A `/`-separated component ends with `.lock`.
    ComponentEndsWithLock,
    /// A revision starts with an ancestry step (`~1`, `^main`): there is no name before it.
    StartsWithStep(char),
    /// A `~` or `^` is followed by something other than a number (`main^{tree}`, `main~x`).
    StepNotANumber,
}

/// What to pass instead of a bad local ref, appended to reasons.
pub(crate) const PASS_INSTEAD: &str = "pass a branch, tag or commit SHA";

impl Display for RefNameError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        use RefNameError as E;
        match self {
            E::Empty => f.write_str("it is empty"),
            E::ControlCharacter(c) => write!(f, "it contains the control character {c:?}"),
            E::Space => f.write_str("it contains a space"),
            E::Colon => {
                f.write_str("it contains ':' (name the file with the path, not as 'ref:path')")
            }
            E::Forbidden(c) => write!(f, "it contains '{c}'"),
            E::DoubleDot => f.write_str("it contains '..'"),
            E::AtBrace => f.write_str("it contains '@{'"),
            E::LoneAt => f.write_str("it is '@'"),
            E::LeadingDash => f.write_str("it starts with '-'"),
            E::BadSlashes => f.write_str("it starts or ends with '/' or contains '//'"),
            E::TrailingDot => f.write_str("it ends with '.'"),
            E::ComponentStartsWithDot => f.write_str("a '/'-separated part of it starts with '.'"),
            E::ComponentEndsWithLock => {
                f.write_str("a '/'-separated part of it ends with '.lock'")
            }
            E::StartsWithStep(c) => write!(
                f,
                "it starts with '{c}'; {PASS_INSTEAD}, optionally followed by ~N or ^N"
            ),
            E::StepNotANumber => f.write_str(
                "'~' and '^' may only be followed by a number (as in HEAD~1 or main^2); name the file with the path, not in the ref",
            ),
        }
    }
}

/// Checks a revision: a ref name ([`check_ref_name`]) followed by zero or more ancestry steps,
/// each `~` or `^` with optional decimal digits (`HEAD~1`, `main^2`, `v1.0~`).
pub(crate) fn check_rev(rev: &str) -> Result<(), RefNameError> {
    // `find` returns the index of an ASCII char, always a char boundary: `split_at` cannot panic.
    let (name, steps) = rev.split_at(rev.find(['~', '^']).unwrap_or(rev.len()));
    if let (true, Some(first)) = (name.is_empty(), steps.chars().next()) {
        return Err(RefNameError::StartsWithStep(first));
    }
    check_ref_name(name)?;
    let steps_ok = steps
        .split(['~', '^'])
        .skip(1) // the (empty) text before the first '~' or '^'
        .all(|count| count.bytes().all(|b| b.is_ascii_digit()));
    if !steps_ok {
        return Err(RefNameError::StepNotANumber);
    }
    Ok(())
}

/// Checks a ref name with `git check-ref-format --allow-onelevel` rules, plus GitLab's "does not
/// start with '-'". The first rule broken, in [`RefNameError`]'s order, is the error.
pub(crate) fn check_ref_name(name: &str) -> Result<(), RefNameError> {
    use RefNameError as E;
    if name.is_empty() {
        return Err(E::Empty);
    }
    if let Some(c) = name.chars().find(char::is_ascii_control) {
        return Err(E::ControlCharacter(c));
    }
    if name.contains(' ') {
        return Err(E::Space);
    }
    if name.contains(':') {
        return Err(E::Colon);
    }
    if let Some(c) = name.chars().find(|c| "~^?*[\\".contains(*c)) {
        return Err(E::Forbidden(c));
    }
    whole_name_rules(name)?;
    component_rules(name)
}

/// The rules about `..`, `@`, `-`, `/` and `.` that look at the name as a whole.
fn whole_name_rules(name: &str) -> Result<(), RefNameError> {
    use RefNameError as E;
    let rules = [
        (name.contains(".."), E::DoubleDot),
        (name.contains("@{"), E::AtBrace),
        (name == "@", E::LoneAt),
        (name.starts_with('-'), E::LeadingDash),
        (
            name.starts_with('/') || name.ends_with('/') || name.contains("//"),
            E::BadSlashes,
        ),
        (name.ends_with('.'), E::TrailingDot),
    ];
    match rules.into_iter().find(|(broken, _)| *broken) {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

/// The rules for each `/`-separated component.
fn component_rules(name: &str) -> Result<(), RefNameError> {
    for component in name.split('/') {
        if component.starts_with('.') {
            return Err(RefNameError::ComponentStartsWithDot);
        }
        if component.ends_with(".lock") {
            return Err(RefNameError::ComponentEndsWithLock);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_rev_accepts_names_shas_and_ancestry() {
        for rev in [
            "main",
            "HEAD",
            "v1.0",
            "release/2026/q4",
            "refs/heads/main",
            "refs/tags/v1.0",
            "0123abcd",
            "HEAD~1",
            "HEAD^",
            "main^2~3",
            "v1.0~",
            "feature@x",
            "ünïcode",
        ] {
            assert_eq!(check_rev(rev), Ok(()), "{rev}");
        }
    }

    #[test]
    fn check_rev_rejects_git_invalid_and_revspec_syntax() {
        for (rev, reason_has) in [
            ("", "empty"),
            ("a..b", "'..'"),
            ("main:README.md", "':'"),
            (":README.md", "':'"),
            ("HEAD:", "':'"),
            ("main^{tree}", "followed by a number"),
            ("main^{/fix}", "followed by a number"),
            ("main~x", "followed by a number"),
            ("main^!", "followed by a number"),
            ("^main", "starts with '^'"),
            ("~1", "starts with '~'"),
            ("main@{1}", "'@{'"),
            ("@{-1}", "'@{'"),
            ("@", "'@'"),
            ("has space", "space"),
            ("tab\there", "control"),
            ("nul\0x", "control"),
            ("del\u{7f}", "control"),
            ("what?", "'?'"),
            ("glob*", "'*'"),
            ("br[ack", "'['"),
            ("back\\slash", "'\\'"),
            ("-main", "'-'"),
            ("/main", "'/'"),
            ("main/", "'/'"),
            ("a//b", "'//'"),
            ("main.", "ends with '.'"),
            (".hidden", "starts with '.'"),
            ("a/.b", "starts with '.'"),
            ("main.lock", "'.lock'"),
            ("a.lock/b", "'.lock'"),
            ("main..", "'..'"),
        ] {
            let reason = check_rev(rev).expect_err(rev).to_string();
            assert!(reason.contains(reason_has), "{rev:?}: {reason}");
        }
    }

    #[test]
    fn ref_names_take_no_ancestry_steps() {
        assert_eq!(check_ref_name("main"), Ok(()));
        assert_eq!(check_ref_name("HEAD~1"), Err(RefNameError::Forbidden('~')));
        assert_eq!(check_ref_name("main/"), Err(RefNameError::BadSlashes));
    }
}
