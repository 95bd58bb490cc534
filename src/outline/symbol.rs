//! One definition found by name (pure): a qualified name as the outline prints it, or any
//! end of it made of whole parts (`Cart.total`, `total` for `Billing.Cart.total`); `::` and
//! `#` are read as `.` (`Cart#total`, `Matrix::transpose`). Adjacent definitions of one name (overloads, a
//! signature and its body) are one; several apart are an error listing them, and no match an
//! error naming the closest names. Never a guess.

use std::fmt::{self, Display, Formatter};

use super::definition::{Definition, Kind, Outline};
use crate::base::quote::shown;

/// Candidates listed in an ambiguity error.
pub(crate) const MAX_CANDIDATES: usize = 20;
/// Names offered when none matches.
const MAX_NEAR: usize = 5;
/// The longest name (in characters) looked for among near names by edit distance: the
/// distance costs the product of the two lengths, so a longer one is only looked for inside
/// names (a 1,024-character name against a file of long names took a minute).
const MAX_NEAR_CHARS: usize = 64;
/// The most definitions compared for near names (the first in the file).
const MAX_NEAR_COMPARED: usize = 20_000;
/// Definitions compared between two questions whether to go on.
const COMPARED_PER_ASK: usize = 256;

/// The definition a name picked: its lines span every adjacent definition of that name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Picked {
    pub name: String,
    pub kind: Kind,
    pub start_line: u64,
    pub end_line: u64,
}

/// Why a name picked no definition.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SymbolError {
    /// Several definitions apart from each other (the first [`MAX_CANDIDATES`], of `total`).
    Ambiguous {
        name: String,
        path: String,
        total: usize,
        candidates: Vec<Definition>,
    },
    /// None; `near` are the closest names (possibly none).
    NotFound {
        name: String,
        path: String,
        near: Vec<String>,
    },
}

impl Display for SymbolError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            SymbolError::Ambiguous {
                name,
                path,
                total,
                candidates,
            } => {
                write!(
                    f,
                    "Symbol '{}' matches {total} definitions in '{}'",
                    shown(name),
                    shown(path)
                )?;
                if candidates.len() < *total {
                    write!(f, " (the first {} listed)", candidates.len())?;
                }
                f.write_str(":")?;
                for c in candidates {
                    write!(f, "\n  {}", c.line())?;
                }
                how_to_read_each(f, candidates)
            }
            SymbolError::NotFound { name, path, near } => {
                write!(
                    f,
                    "No definition named '{}' in '{}'.",
                    shown(name),
                    shown(path)
                )?;
                if !near.is_empty() {
                    let quoted: Vec<String> = near.iter().map(|n| format!("'{n}'")).collect();
                    write!(f, " Did you mean {}?", quoted.join(", "))?;
                }
                f.write_str(" Call with outline: true to list the file's definitions.")
            }
        }
    }
}

/// The ambiguity error's last sentence: a qualified name tells a definition apart only when it
/// is listed once (a Rust `struct Lru` and its `impl Lru` share the name `Lru`), so a name
/// listed twice is read by its lines. `candidates` is never empty (a match made the error).
fn how_to_read_each(f: &mut Formatter<'_>, candidates: &[Definition]) -> fmt::Result {
    let listed_once = |d: &&Definition| candidates.iter().filter(|o| o.name == d.name).count() == 1;
    let by_lines = |d: &Definition| {
        format!(
            "{{\"start_line\": {}, \"end_line\": {}}}",
            d.start_line, d.end_line
        )
    };
    let once = candidates.iter().find(listed_once);
    let twice = candidates.iter().find(|d| !listed_once(d));
    match (once, twice) {
        (Some(d), None) => write!(
            f,
            "\nCall again with symbol set to one of the qualified names above (e.g. {{\"symbol\": {}}}), or read a definition's lines with start_line and end_line (e.g. {}).",
            serde_json::Value::from(d.name.as_str()),
            by_lines(d)
        ),
        (Some(d), Some(same)) => write!(
            f,
            "\nCall again with symbol set to a qualified name listed once above (e.g. {{\"symbol\": {}}}); definitions listed under one name are read by their lines with start_line and end_line (e.g. {}).",
            serde_json::Value::from(d.name.as_str()),
            by_lines(same)
        ),
        (None, Some(same)) => write!(
            f,
            "\nThese definitions share one qualified name: read one by its lines with start_line and end_line (e.g. {}).",
            by_lines(same)
        ),
        (None, None) => Ok(()),
    }
}

/// The definition of `outline` named `name`, in the file at `path` (for the errors). The
/// search for near names asks `go_on` as it goes, and ends early (with the names found so far)
/// when it says no: the caller has given up.
pub(crate) fn pick(
    outline: &Outline,
    name: &str,
    path: &str,
    go_on: &dyn Fn() -> bool,
) -> Result<Picked, SymbolError> {
    let asked = name.trim();
    let wanted = asked.replace("::", ".").replace('#', ".");
    let defs = &outline.definitions;
    let named = |name: &dyn Fn(&Definition) -> &str| -> Vec<usize> {
        (0..defs.len())
            .filter(|&i| [asked, wanted.as_str()].contains(&name(&defs[i])))
            .collect()
    };
    let mut matches = named(&|d| d.name.as_str());
    if matches.is_empty() {
        matches = (0..defs.len())
            .filter(|&i| is_suffix(&defs[i].name, &wanted))
            .collect();
    }
    let Some(&first) = matches.first() else {
        return Err(SymbolError::NotFound {
            name: name.to_string(),
            path: path.to_string(),
            near: near(defs, &wanted, go_on),
        });
    };
    if !matches.windows(2).all(|w| adjacent(defs, w[0], w[1])) {
        return Err(SymbolError::Ambiguous {
            name: name.to_string(),
            path: path.to_string(),
            total: matches.len(),
            candidates: matches
                .iter()
                .take(MAX_CANDIDATES)
                .map(|&i| defs[i].clone())
                .collect(),
        });
    }
    let group = || matches.iter().map(|&i| &defs[i]);
    Ok(Picked {
        name: defs[first].name.clone(),
        kind: defs[first].kind,
        start_line: group().map(|d| d.start_line).min().unwrap_or_default(),
        end_line: group().map(|d| d.end_line).max().unwrap_or_default(),
    })
}

/// Whether `wanted` ends the qualified name `name` at a part's start (`Cart.total` ends
/// `Billing.Cart.total`, `total` too; `art.total` does not).
fn is_suffix(name: &str, wanted: &str) -> bool {
    !wanted.is_empty()
        && name
            .strip_suffix(wanted)
            .is_some_and(|head| head.is_empty() || head.ends_with('.'))
}

/// Whether definitions `a < b` are one name's adjacent definitions: the same qualified name,
/// and nothing but `a`'s own contents between them.
fn adjacent(defs: &[Definition], a: usize, b: usize) -> bool {
    defs[a].name == defs[b].name
        && defs[a].depth == defs[b].depth
        && defs[a + 1..b].iter().all(|d| d.depth > defs[a].depth)
}

/// The names closest to `wanted` (qualified names, or their last parts), closest first: by
/// edit distance (at most a quarter of the name) for a name of at most [`MAX_NEAR_CHARS`], and
/// names containing it; among the first [`MAX_NEAR_COMPARED`] definitions, while `go_on`.
fn near(defs: &[Definition], wanted: &str, go_on: &dyn Fn() -> bool) -> Vec<String> {
    let wanted = wanted.to_lowercase();
    let wanted_chars = wanted.chars().count();
    let limit = (wanted_chars / 4).max(1);
    let fuzzy = wanted_chars <= MAX_NEAR_CHARS;
    // The edit distance is at least the difference of the lengths.
    let distance = |name: &str| {
        let chars = name.chars().count();
        (fuzzy && chars.abs_diff(wanted_chars) <= limit)
            .then(|| strsim::osa_distance(name, &wanted))
            .filter(|&d| d <= limit)
    };
    let mut scored: Vec<(usize, &str)> = Vec::new();
    for (i, d) in defs.iter().take(MAX_NEAR_COMPARED).enumerate() {
        if i % COMPARED_PER_ASK == 0 && !go_on() {
            break;
        }
        let name = d.name.to_lowercase();
        let last = d.last_part().to_lowercase();
        let best = match (distance(&name), distance(&last)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let contains = name.contains(&wanted);
        if let Some(score) = best.or(contains.then_some(limit + 1)) {
            scored.push((score, d.name.as_str()));
        }
    }
    scored.sort_unstable();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(MAX_NEAR)
        .map(|(_, n)| n.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::Language;
    use super::*;

    fn def(start: u64, end: u64, depth: usize, kind: Kind, name: &str) -> Definition {
        Definition {
            start_line: start,
            end_line: end,
            depth,
            kind,
            name: name.to_string(),
            shortened: false,
        }
    }

    fn outline() -> Outline {
        Outline {
            language: Language::TypeScript,
            definitions: vec![
                def(1, 1, 0, Kind::Function, "parse"),
                def(2, 2, 0, Kind::Function, "parse"),
                def(3, 9, 0, Kind::Function, "parse"),
                def(11, 30, 0, Kind::Class, "Router"),
                def(12, 14, 1, Kind::Method, "Router.add"),
                def(16, 18, 1, Kind::Method, "Router.match"),
                def(20, 28, 1, Kind::Class, "Router.Inner"),
                def(21, 22, 2, Kind::Method, "Router.Inner.add"),
            ],
            partial: false,
            too_deep: 0,
        }
    }

    #[test]
    fn overloads_are_one_window() {
        let p = pick(&outline(), "parse", "r.ts", &|| true).unwrap();
        assert_eq!((p.start_line, p.end_line, p.kind), (1, 9, Kind::Function));
    }

    #[test]
    fn qualified_names_win_over_last_parts() {
        let p = pick(&outline(), "Router.add", "r.ts", &|| true).unwrap();
        assert_eq!((p.start_line, p.end_line), (12, 14));
        let p = pick(&outline(), "Router::Inner::add", "r.ts", &|| true).unwrap();
        assert_eq!((p.start_line, p.end_line), (21, 22));
    }

    fn rust(definitions: Vec<Definition>) -> Outline {
        Outline {
            language: Language::Rust,
            definitions,
            partial: false,
            too_deep: 0,
        }
    }

    #[test]
    fn one_name_listed_twice_is_read_by_its_lines() {
        // A struct and its impl share the qualified name: naming it again would loop.
        let o = rust(vec![
            def(11, 22, 0, Kind::Struct, "Lru"),
            def(24, 29, 0, Kind::Struct, "Slot"),
            def(31, 127, 0, Kind::Impl, "Lru"),
        ]);
        let e = pick(&o, "Lru", "lru.rs", &|| true).unwrap_err().to_string();
        assert_eq!(
            e,
            "Symbol 'Lru' matches 2 definitions in 'lru.rs':\n  11-22 struct Lru\n  31-127 impl Lru\nThese definitions share one qualified name: read one by its lines with start_line and end_line (e.g. {\"start_line\": 11, \"end_line\": 22})."
        );
    }

    #[test]
    fn a_name_listed_once_is_offered_beside_the_lines_of_the_others() {
        let o = rust(vec![
            def(1, 10, 0, Kind::Impl, "A"),
            def(2, 4, 1, Kind::Method, "A.add"),
            def(12, 20, 0, Kind::Impl, "A"),
            def(13, 15, 1, Kind::Method, "A.add"),
            def(22, 30, 0, Kind::Impl, "B"),
            def(23, 25, 1, Kind::Method, "B.add"),
        ]);
        let e = pick(&o, "add", "a.rs", &|| true).unwrap_err().to_string();
        assert!(
            e.ends_with("Call again with symbol set to a qualified name listed once above (e.g. {\"symbol\": \"B.add\"}); definitions listed under one name are read by their lines with start_line and end_line (e.g. {\"start_line\": 2, \"end_line\": 4})."),
            "{e}"
        );
    }

    #[test]
    fn a_last_part_of_several_is_ambiguous() {
        let e = pick(&outline(), "add", "r.ts", &|| true)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "Symbol 'add' matches 2 definitions in 'r.ts':\n  12-14 method Router.add\n  21-22 method Router.Inner.add\nCall again with symbol set to one of the qualified names above (e.g. {\"symbol\": \"Router.add\"}), or read a definition's lines with start_line and end_line (e.g. {\"start_line\": 12, \"end_line\": 14})."
        );
    }

    #[test]
    fn a_missing_name_suggests_the_closest() {
        let e = pick(&outline(), "Router.mach", "r.ts", &|| true)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "No definition named 'Router.mach' in 'r.ts'. Did you mean 'Router.match'? Call with outline: true to list the file's definitions."
        );
        let e = pick(&outline(), "zzzzzzzz", "r.ts", &|| true)
            .unwrap_err()
            .to_string();
        assert!(!e.contains("Did you mean"), "{e}");
    }

    #[test]
    fn any_qualified_end_of_a_name_picks_it_in_each_notation() {
        let o = outline();
        for name in ["Inner.add", "Inner::add", "Inner#add", " Router.Inner.add "] {
            let p = pick(&o, name, "r.ts", &|| true).unwrap();
            assert_eq!(
                (p.start_line, p.name.as_str()),
                (21, "Router.Inner.add"),
                "{name}"
            );
        }
        // Whole parts only.
        let e = pick(&o, "nner.add", "r.ts", &|| true).unwrap_err();
        assert!(matches!(e, SymbolError::NotFound { .. }), "{e}");
        // An end that several names share is ambiguous.
        let mut o = outline();
        o.definitions.push(def(31, 40, 0, Kind::Class, "Other"));
        o.definitions
            .push(def(32, 39, 1, Kind::Class, "Other.Inner"));
        o.definitions
            .push(def(33, 34, 2, Kind::Method, "Other.Inner.add"));
        let e = pick(&o, "Inner::add", "r.ts", &|| true).unwrap_err();
        assert!(matches!(e, SymbolError::Ambiguous { total: 2, .. }), "{e}");
        assert!(
            e.to_string().contains("33-34 method Other.Inner.add"),
            "{e}"
        );
        assert!(is_suffix("a.b", "a.b") && is_suffix("a.b", "b") && !is_suffix("ab", "b"));
        assert!(!is_suffix("a.b", ""));
    }

    #[test]
    fn definitions_apart_are_not_overloads() {
        let mut o = outline();
        o.definitions.push(def(31, 32, 0, Kind::Function, "parse"));
        let e = pick(&o, "parse", "r.ts", &|| true).unwrap_err();
        assert!(matches!(e, SymbolError::Ambiguous { total: 4, .. }), "{e}");
    }
}
