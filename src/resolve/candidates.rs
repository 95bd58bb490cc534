//! A URL's "ref/path" as candidates, and their narrowing: [`enumerate`] lists the ways to cut
//! it into a ref and a path (GitLab's `ExtractsRef`), [`narrow`] keeps those that agree with
//! the call's `file_path` and `ref` and whose ref can be a git ref name. Which one is read is
//! the source's evidence and [`super::choice`]'s rule. Pure.

use super::error::ResolveError;
use super::given::{check_ref, clean_file_path, given_ref};
use super::split_error::SplitError;
use crate::resolve::args::ToolArgs;
use crate::resolve::ref_name::check_ref_name;

/// One way to cut a "ref/path" string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Candidate {
    /// The ref: branch, tag or commit SHA. Never empty.
    pub git_ref: String,
    /// The file path inside the repository. Never empty.
    pub path: String,
}

/// The most candidate splits [`enumerate`] returns; each costs the caller a
/// repository lookup.
pub(crate) const MAX_CANDIDATES: usize = 32;

/// The ways a "ref/path" string can be cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Candidates {
    /// A leading 40- or 64-hex SHA: the only split (ref = the SHA, path =
    /// the rest minus one leading and one trailing `/`).
    Sha(Candidate),
    /// Candidate splits in order of increasing ref length: ref = the first k
    /// segments, path = the rest (non-empty), k = 1, 2, …; see [`enumerate`]
    /// for the candidates left out. Never empty, at most [`MAX_CANDIDATES`].
    Segments(Vec<Candidate>),
}

/// Lists the ways to cut `ref_and_path` into a ref and a file path, following
/// GitLab's `ExtractsRef::RefExtractor#extract_ref`.
///
/// Leading `/`s of `ref_and_path` are ignored. (GitLab never finds a ref for
/// such a string and falls back to its first non-empty segment; ignoring
/// them gives the same ref in that case and lets longer refs be found.)
///
/// * SHA: when the string starts with exactly 40 or exactly 64 ASCII hex
///   digits (either case) followed by `/` or the end, that SHA is the ref and
///   the only split: [`Candidates::Sha`]. The path is the rest with one leading
///   and one trailing `/` removed. GitLab also takes the first 40 hex digits
///   of a longer hex run (`<41 hex>/x` gives ref `<40 hex>`, path `<1
///   hex>/x`); here such a segment is not a SHA and goes to the candidates,
///   because it is far more likely a branch name.
/// * Otherwise [`Candidates::Segments`]: one candidate per `/` in the string,
///   in order, with the ref = the text before that `/` and the path = the
///   text after it with one leading and one trailing `/` removed (GitLab's
///   `delete_prefix('/').delete_suffix('/')`: `main//x/` gives path `x`,
///   `main/x//` gives `x/`). The ref has Ruby `strip`'s whitespace (space,
///   `\t`, `\n`, `\v`, `\f`, `\r`, NUL) removed from both ends. A
///   candidate is left out when its path is empty (`main/`), its ref is empty
///   after stripping, or its ref ends in `/` (`main/` from `main//x`: git
///   ref names cannot end in `/`). So index 0 is the first segment whenever
///   that segment can be a ref.
///
/// Errors: no candidate (the empty string, no `/` at all as in `main`, or
/// only trailing `/`s as in `main/`) or a SHA with an empty path is
/// [`SplitError::NoPath`]; more than [`MAX_CANDIDATES`] candidates is
/// [`SplitError::TooManySegments`]. Runs in time linear in the input.
pub(crate) fn enumerate(ref_and_path: &str) -> Result<Candidates, SplitError> {
    let no_path = || SplitError::NoPath {
        ref_and_path: ref_and_path.to_string(),
    };
    let s = ref_and_path.trim_start_matches('/');
    if let Some(sha_len) = sha_prefix_len(s) {
        let path = trim_one_slash_each_end(&s[sha_len..]);
        if path.is_empty() {
            return Err(no_path());
        }
        return Ok(Candidates::Sha(Candidate {
            git_ref: s[..sha_len].to_string(),
            path: path.to_string(),
        }));
    }
    let points = candidate_points(s);
    if points.is_empty() {
        return Err(no_path());
    }
    if points.len() > MAX_CANDIDATES {
        return Err(SplitError::TooManySegments {
            count: points.len(),
            max: MAX_CANDIDATES,
        });
    }
    let candidates = points
        .into_iter()
        .map(|slash| Candidate {
            git_ref: s[..slash].trim_matches(is_ruby_space).to_string(),
            path: trim_one_slash_each_end(&s[slash + 1..]).to_string(),
        })
        .collect();
    Ok(Candidates::Segments(candidates))
}

/// The length of the SHA at the start of `s`: `Some(40)` or `Some(64)` when
/// `s` starts with exactly that many ASCII hex digits (either case) followed
/// by `/` or the end of `s`; `None` otherwise (39, 41, 63, 65 hex digits, or
/// 40 followed by `g`).
fn sha_prefix_len(s: &str) -> Option<usize> {
    let hex = s.bytes().take_while(u8::is_ascii_hexdigit).count();
    let bounded = matches!(s.as_bytes().get(hex), None | Some(b'/'));
    (bounded && (hex == 40 || hex == 64)).then_some(hex)
}

/// The byte offsets of the `/`s in `s` that give a [`enumerate`] candidate:
/// the ref before it is non-empty after Ruby `strip` and, stripped, does not
/// end in `/`, and the path after it is non-empty once one leading and one trailing
/// `/` are removed. Linear time.
fn candidate_points(s: &str) -> Vec<usize> {
    // The ref `s[..slash]` strips to "" exactly when no non-space character
    // comes before `slash`.
    let first_non_space = s.find(|c: char| !is_ruby_space(c)).unwrap_or(s.len());
    s.match_indices('/')
        .map(|(slash, _)| slash)
        .filter(|&slash| {
            first_non_space < slash
                && !s[..slash].trim_end_matches(is_ruby_space).ends_with('/')
                && !trim_one_slash_each_end(&s[slash + 1..]).is_empty()
        })
        .collect()
}

/// Removes at most one `/` from the start and then at most one from the end:
/// `/x/` → `x`, `//x//` → `/x/`, `/` → ``, `//` → ``, `x` → `x`.
fn trim_one_slash_each_end(s: &str) -> &str {
    let s = s.strip_prefix('/').unwrap_or(s);
    s.strip_suffix('/').unwrap_or(s)
}

/// The characters Ruby's `String#strip` removes: NUL, `\t`, `\n`, `\v`,
/// `\f`, `\r` and space.
fn is_ruby_space(c: char) -> bool {
    matches!(c, '\0' | '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ')
}

/// The candidates of `url` that agree with the call's `file_path` and `ref` (when given: none
/// left is a mismatch about the first candidate, what GitLab would have read) and whose ref
/// can be a git ref name; each path cleaned, and each remaining ref checked.
pub(super) fn narrow(
    candidates: Vec<Candidate>,
    args: &ToolArgs,
    url: &str,
) -> Result<Vec<Candidate>, ResolveError> {
    let mut kept = clean_candidates(candidates, url)?;
    if let Some(p) = args.file_path.as_deref().map(clean_file_path).transpose()? {
        kept = keep_agreeing(
            kept,
            |s| s.path == p,
            |first| ResolveError::PathMismatch {
                given: p.clone(),
                in_url: first.path.clone(),
            },
        )?;
    }
    if let Some(r) = given_ref(args)? {
        kept = keep_agreeing(
            kept,
            |s| s.git_ref == r,
            |first| ResolveError::RefMismatch {
                given: r.to_string(),
                in_url: first.git_ref.clone(),
            },
        )?;
    }
    let kept = valid_refs_only(kept);
    for s in &kept {
        check_ref(&s.git_ref)?;
    }
    Ok(kept)
}

/// Each candidate's path through [`clean_file_path`]; a bad one fails the URL.
fn clean_candidates(candidates: Vec<Candidate>, url: &str) -> Result<Vec<Candidate>, ResolveError> {
    candidates
        .into_iter()
        .map(|c| {
            let path = clean_file_path(&c.path).map_err(|error| ResolveError::UrlPath {
                url: url.to_string(),
                error,
            })?;
            Ok(Candidate {
                git_ref: c.git_ref,
                path,
            })
        })
        .collect()
}

/// The candidates whose ref can be a git ref name (`main/dir with space` cannot: GitLab would
/// answer that alias "Ref is not valid"). When none can, the first is kept (GitLab's own
/// first-segment split), so the answer is about the ref GitLab would have used.
fn valid_refs_only(candidates: Vec<Candidate>) -> Vec<Candidate> {
    let first = candidates.first().cloned();
    let valid: Vec<Candidate> = candidates
        .into_iter()
        .filter(|s| check_ref_name(&s.git_ref).is_ok())
        .collect();
    match first {
        Some(first) if valid.is_empty() => vec![first],
        _ => valid,
    }
}

/// The candidates that `keep`; none left is the `mismatch` error about the first candidate
/// (what GitLab would have read).
fn keep_agreeing(
    candidates: Vec<Candidate>,
    keep: impl Fn(&Candidate) -> bool,
    mismatch: impl FnOnce(&Candidate) -> ResolveError,
) -> Result<Vec<Candidate>, ResolveError> {
    let Some(first) = candidates.first().cloned() else {
        return Ok(candidates);
    };
    let kept: Vec<Candidate> = candidates.into_iter().filter(|s| keep(s)).collect();
    if kept.is_empty() {
        return Err(mismatch(&first));
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn split(git_ref: &str, path: &str) -> Candidate {
        Candidate {
            git_ref: git_ref.to_string(),
            path: path.to_string(),
        }
    }

    fn candidates(pairs: &[(&str, &str)]) -> Result<Candidates, SplitError> {
        Ok(Candidates::Segments(
            pairs.iter().map(|&(r, p)| split(r, p)).collect(),
        ))
    }

    fn no_path(s: &str) -> Result<Candidates, SplitError> {
        Err(SplitError::NoPath {
            ref_and_path: s.to_string(),
        })
    }

    #[test]
    fn splits_sha() {
        let sha1 = "f4b14494ef6abf3d144c28e4af0c20143383e062";
        let sha256 = "f4b14494ef6abf3d144c28e4af0c20143383e062f4b14494ef6abf3d144c2801";
        let upper = "F4B14494EF6ABF3D144C28E4AF0C20143383E062";
        let cases: Vec<(String, Result<Candidates, SplitError>)> = vec![
            (
                format!("{sha1}/CHANGELOG"),
                Ok(Candidates::Sha(split(sha1, "CHANGELOG"))),
            ),
            (
                format!("{sha1}/a/b/c.rs"),
                Ok(Candidates::Sha(split(sha1, "a/b/c.rs"))),
            ),
            (
                format!("{sha1}/dir/"),
                Ok(Candidates::Sha(split(sha1, "dir"))),
            ),
            (format!("{sha1}//x"), Ok(Candidates::Sha(split(sha1, "/x")))),
            (format!("/{sha1}/x"), Ok(Candidates::Sha(split(sha1, "x")))),
            (
                format!("{sha256}/x"),
                Ok(Candidates::Sha(split(sha256, "x"))),
            ),
            (format!("{upper}/x"), Ok(Candidates::Sha(split(upper, "x")))),
            (sha1.to_string(), no_path(sha1)),
            (format!("{sha1}/"), no_path(&format!("{sha1}/"))),
            (sha256.to_string(), no_path(sha256)),
            // Not a SHA: wrong length or not bounded by '/'.
            (
                format!("{sha1}a/x"),
                candidates(&[(&format!("{sha1}a"), "x")]),
            ),
            (
                format!("{}/x", &sha1[..39]),
                candidates(&[(&sha1[..39], "x")]),
            ),
            (
                format!("{sha1}g/x"),
                candidates(&[(&format!("{sha1}g"), "x")]),
            ),
            (
                format!("{}/x", &sha256[..63]),
                candidates(&[(&sha256[..63], "x")]),
            ),
        ];
        for (input, want) in cases {
            assert_eq!(enumerate(&input), want, "input {input:?}");
        }
    }

    #[test]
    fn splits_candidates() {
        let cases: &[(&str, Result<Candidates, SplitError>)] = &[
            ("main/README.md", candidates(&[("main", "README.md")])),
            (
                "release/2026/q4/src/main.rs",
                candidates(&[
                    ("release", "2026/q4/src/main.rs"),
                    ("release/2026", "q4/src/main.rs"),
                    ("release/2026/q4", "src/main.rs"),
                    ("release/2026/q4/src", "main.rs"),
                ]),
            ),
            // Trailing slash: one removed from the path; empty paths omitted.
            ("main/dir/", candidates(&[("main", "dir")])),
            ("main/a/b/", candidates(&[("main", "a/b"), ("main/a", "b")])),
            ("main/dir//", candidates(&[("main", "dir/")])),
            // Leading slashes of the whole string ignored.
            ("/main/x", candidates(&[("main", "x")])),
            ("//main/x", candidates(&[("main", "x")])),
            // Double slash: one extra leading '/' removed; ref ending in '/' omitted.
            ("main//x", candidates(&[("main", "x")])),
            (
                "main//x/y",
                candidates(&[("main", "x/y"), ("main//x", "y")]),
            ),
            // Ref whitespace stripped as Ruby's strip; whitespace-only refs omitted.
            (" main /x", candidates(&[("main", "x")])),
            ("\tv1\r\n/x", candidates(&[("v1", "x")])),
            (" /x/y", candidates(&[("/x", "y")])),
            // The stripped ref must not end in '/' either (found by fuzzing: these gave
            // the refs "main/" and "/").
            ("main/ /x", candidates(&[("main", " /x")])),
            ("a/\t/b", candidates(&[("a", "\t/b")])),
            ("\0\0\0/\0/x/y", candidates(&[("/\0/x", "y")])),
            // The path is not stripped.
            ("main/ x ", candidates(&[("main", " x ")])),
            // Unicode.
            (
                "fé/日本/x",
                candidates(&[("fé", "日本/x"), ("fé/日本", "x")]),
            ),
        ];
        for (input, want) in cases {
            assert_eq!(&enumerate(input), want, "input {input:?}");
        }
    }

    #[test]
    fn splits_no_path() {
        for input in [
            "", "/", "//", "main", "main/", "main//", "/main", "/main/", " /x", "   /", "\u{0B}/a",
        ] {
            assert_eq!(enumerate(input), no_path(input), "input {input:?}");
        }
    }

    #[test]
    fn splits_too_many() {
        // 32 separators → 32 candidates exactly: allowed.
        let ok = format!("{}x", "a/".repeat(MAX_CANDIDATES));
        match enumerate(&ok) {
            Ok(Candidates::Segments(c)) => {
                assert_eq!(c.len(), MAX_CANDIDATES);
                assert_eq!(c[0], split("a", &ok[2..]));
                assert_eq!(c[MAX_CANDIDATES - 1].path, "x");
            }
            other => panic!("{other:?}"),
        }
        let too_many = format!("{}x", "a/".repeat(MAX_CANDIDATES + 1));
        assert_eq!(
            enumerate(&too_many),
            Err(SplitError::TooManySegments {
                count: MAX_CANDIDATES + 1,
                max: MAX_CANDIDATES
            })
        );
        // Omitted candidates do not count: slashes alone are not segments.
        let slashes = format!("main{}x", "/".repeat(100));
        assert!(matches!(enumerate(&slashes), Ok(Candidates::Segments(c)) if c.len() == 1));
        // Large input stays linear.
        let huge = "a/".repeat(200_000);
        assert_eq!(
            enumerate(&huge),
            Err(SplitError::TooManySegments {
                count: 199_999,
                max: MAX_CANDIDATES
            })
        );
    }

    #[test]
    fn split_error_display() {
        let msg = SplitError::NoPath {
            ref_and_path: "main".into(),
        }
        .to_string();
        assert!(
            msg.contains("'main'") && msg.contains("no file path"),
            "{msg}"
        );
        let msg = SplitError::NoPath {
            ref_and_path: String::new(),
        }
        .to_string();
        assert!(msg.contains("no ref and no file"), "{msg}");
        let msg = SplitError::TooManySegments { count: 40, max: 32 }.to_string();
        assert!(msg.contains("40 ways") && msg.contains("32"), "{msg}");
    }

    proptest! {
        #[test]
        fn splits_invariants(s in "[g-i/ ]{0,40}") {
            match enumerate(&s) {
                Ok(Candidates::Segments(c)) => {
                    prop_assert!(!c.is_empty() && c.len() <= MAX_CANDIDATES);
                    for w in c.windows(2) {
                        prop_assert!(w[0].git_ref.len() < w[1].git_ref.len());
                    }
                    for split in &c {
                        prop_assert!(!split.git_ref.is_empty() && !split.path.is_empty());
                        prop_assert!(s.contains(&split.path));
                    }
                }
                Ok(Candidates::Sha(_)) => prop_assert!(false, "no hex in the alphabet"),
                Err(SplitError::NoPath { ref_and_path }) => prop_assert_eq!(ref_and_path, s),
                Err(SplitError::TooManySegments { .. }) => prop_assert!(false, "at most 20 slashes"),
            }
        }
    }
}
