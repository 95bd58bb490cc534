//! "Did you mean": the existing paths most like one that does not exist, from the entries of
//! the directories above it. Pure; both sources use it, each listing the directories its own
//! way (GitLab in the one follow-up query of a miss, the local source with gix).
//!
//! Which directories: [`ancestors_to_list`] — the path's parent and up to two more levels, and
//! the root. The nearest of them that exists is where the path went wrong. Its entries are
//! compared with the path: files with the file name, directories with the first component that
//! does not exist (`app/model/user.rb` → `model`), or with the file name when the parent exists.
//! Files of the existing directories above it are compared with the file name too (a file asked
//! for in the wrong directory). [`rank`] orders them: the asked file's own directory first, then
//! case-insensitive equality, then edit distance (optimal string alignment, on lower case),
//! and keeps at most [`MAX_SUGGESTIONS`] that are close: equal but for case, within an edit
//! distance that grows with the name's length ([`max_distance`]), two neighbouring characters
//! swapped (`scr` for `src`), or with the same stem (`user.py` for `user.rb`, `README` for
//! `README.md`).

/// Most suggestions in one error.
pub(crate) const MAX_SUGGESTIONS: usize = 3;

/// Directories above the path whose entries are listed: the parent and this many more.
pub(crate) const LEVELS_ABOVE_PARENT: usize = 2;

/// What a directory entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum EntryKind {
    File,
    Directory,
}

/// One entry of a listed directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ListingEntry {
    pub name: String,
    pub kind: EntryKind,
}

/// An existing directory and (a page of) its entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listing {
    /// The directory's path, `""` for the root.
    pub dir: String,
    pub entries: Vec<ListingEntry>,
}

/// One existing path to suggest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Suggestion {
    /// Its path from the repository root (a directory without a trailing `/`).
    pub path: String,
    pub kind: EntryKind,
}

/// The directories to list for a missing `path`, nearest first: its parent and up to
/// [`LEVELS_ABOVE_PARENT`] more, then the root (`""`), each once.
/// `app/models/x/user.rb` → `["app/models/x", "app/models", "app", ""]`.
pub(crate) fn ancestors_to_list(path: &str) -> Vec<&str> {
    let mut dirs: Vec<&str> = Vec::new();
    let mut rest = path;
    while let Some((parent, _)) = rest.rsplit_once('/') {
        if dirs.len() > LEVELS_ABOVE_PARENT {
            break;
        }
        dirs.push(parent);
        rest = parent;
    }
    dirs.retain(|d| !d.is_empty());
    dirs.push("");
    dirs
}

/// The suggestions for `asked`, from `listings`: the existing directories of
/// [`ancestors_to_list`], nearest first (the first is the nearest existing ancestor). `allowed`
/// drops what must not be suggested (the project's Duo exclusion rules).
pub(crate) fn rank(
    asked: &str,
    listings: &[Listing],
    allowed: impl Fn(&Suggestion) -> bool,
) -> Vec<Suggestion> {
    let Some(file_name) = asked.rsplit('/').next().filter(|n| !n.is_empty()) else {
        return Vec::new();
    };
    let mut scored: Vec<(Score, Suggestion)> = Vec::new();
    // 0 for the nearest existing directory, 1 for the next one above, …
    let above = listings
        .iter()
        .filter_map(|l| below(asked, &l.dir).map(|rest| (l, rest)));
    for (level, (listing, rest)) in above.enumerate() {
        let first_missing = rest.split('/').next().unwrap_or(rest);
        let same_dir = !rest.contains('/');
        for entry in &listing.entries {
            let target = match entry.kind {
                EntryKind::File => file_name,
                // Above the nearest existing directory the path's directories exist: only a
                // file can have been asked for in the wrong place there.
                EntryKind::Directory if level > 0 => continue,
                EntryKind::Directory if same_dir => file_name,
                EntryKind::Directory => first_missing,
            };
            let Some(closeness) = closeness(&entry.name, target) else {
                continue;
            };
            let suggestion = Suggestion {
                path: join(&listing.dir, &entry.name),
                kind: entry.kind,
            };
            if allowed(&suggestion) {
                scored.push((Score::new(level, closeness, entry), suggestion));
            }
        }
    }
    scored.sort_by(|a, b| a.0.cmp(&b.0));
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(_, s)| s)
        .collect()
}

/// The path a directory suggestion leads to: the directory, then what `asked` had after the
/// component it replaces (`app/models` for `app/model/user.rb` → `app/models/user.rb`). Used to
/// check the exclusion rules against what the agent would read next.
pub(crate) fn through(suggestion: &Suggestion, asked: &str) -> String {
    let parent = suggestion.path.rsplit_once('/').map_or("", |(p, _)| p);
    let after = below(asked, parent)
        .and_then(|rest| rest.split_once('/'))
        .map_or("", |(_, after)| after);
    join(&suggestion.path, after)
}

/// `path` relative to the directory `dir` (`""`: the root), or `None` when `dir` is not above
/// it.
fn below<'p>(path: &'p str, dir: &str) -> Option<&'p str> {
    if dir.is_empty() {
        return Some(path);
    }
    path.strip_prefix(dir)?.strip_prefix('/')
}

fn join(dir: &str, name: &str) -> String {
    match (dir.is_empty(), name.is_empty()) {
        (true, _) => name.to_string(),
        (_, true) => dir.to_string(),
        _ => format!("{dir}/{name}"),
    }
}

/// How close an entry's name is to the name it is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Closeness {
    case_insensitive_equal: bool,
    /// Edit distance of the lower-case names.
    distance: usize,
    /// Edit distance of the names as they are (ties).
    exact_distance: usize,
}

/// `Some` when `name` is close enough to `target` to suggest.
fn closeness(name: &str, target: &str) -> Option<Closeness> {
    let (lower_name, lower_target) = (name.to_lowercase(), target.to_lowercase());
    let distance = strsim::osa_distance(&lower_name, &lower_target);
    // One edit that is two for Levenshtein: two neighbours swapped (`scr` for `src`), a typo
    // even in a short name.
    let swapped = distance == 1 && strsim::levenshtein(&lower_name, &lower_target) == 2;
    let close =
        distance <= max_distance(target) || swapped || same_stem(&lower_name, &lower_target);
    close.then(|| Closeness {
        case_insensitive_equal: distance == 0,
        distance,
        exact_distance: strsim::osa_distance(name, target),
    })
}

/// The edit distance still counted as a typo of `name`: none for names of up to 3 characters
/// (`api` is not a typo of `app`), 1 up to 7 (`model` → `models`), 2 up to 15, else 3.
fn max_distance(name: &str) -> usize {
    match name.chars().count() {
        0..=3 => 0,
        4..=7 => 1,
        8..=15 => 2,
        _ => 3,
    }
}

/// Whether two lower-case names share a stem of at least two characters: `user.py` and
/// `user.rb`, `readme` and `readme.md`. A leading `.` is part of the stem (`.env`).
fn same_stem(a: &str, b: &str) -> bool {
    let stem = |s: &'_ str| -> String {
        match s.rfind('.') {
            Some(i) if i > 0 => s[..i].to_string(),
            _ => s.to_string(),
        }
    };
    let (sa, sb) = (stem(a), stem(b));
    sa.chars().count() >= 2 && sa == sb
}

/// The sort key: own directory first (then nearer ones), equal but for case, fewer edits,
/// fewer edits as written, files before directories, then by name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Score {
    level: usize,
    not_case_equal: bool,
    distance: usize,
    exact_distance: usize,
    kind: EntryKind,
    name: String,
}

impl Score {
    fn new(level: usize, c: Closeness, entry: &ListingEntry) -> Self {
        Score {
            level,
            not_case_equal: !c.case_insensitive_equal,
            distance: c.distance,
            exact_distance: c.exact_distance,
            kind: entry.kind,
            name: entry.name.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str) -> ListingEntry {
        ListingEntry {
            name: name.into(),
            kind: EntryKind::File,
        }
    }

    fn dir(name: &str) -> ListingEntry {
        ListingEntry {
            name: name.into(),
            kind: EntryKind::Directory,
        }
    }

    fn listing(dir: &str, entries: Vec<ListingEntry>) -> Listing {
        Listing {
            dir: dir.into(),
            entries,
        }
    }

    /// The suggested paths, directories with a trailing `/`.
    fn paths(asked: &str, listings: &[Listing]) -> Vec<String> {
        rank(asked, listings, |_| true)
            .into_iter()
            .map(|s| match s.kind {
                EntryKind::File => s.path,
                EntryKind::Directory => format!("{}/", s.path),
            })
            .collect()
    }

    fn root() -> Listing {
        listing(
            "",
            vec![
                file("README.md"),
                file("Cargo.toml"),
                file("user.rb"),
                dir("app"),
                dir("api"),
                dir("src"),
            ],
        )
    }

    fn app() -> Listing {
        listing(
            "app",
            vec![
                dir("models"),
                dir("controllers"),
                dir("views"),
                file("app.rb"),
            ],
        )
    }

    fn models() -> Listing {
        listing(
            "app/models",
            vec![
                file("user.rb"),
                file("users.rb"),
                file("User.rb"),
                file("group.rb"),
                dir("concerns"),
            ],
        )
    }

    #[test]
    fn ancestors_are_the_parent_two_more_and_the_root() {
        assert_eq!(ancestors_to_list("README.md"), [""]);
        assert_eq!(ancestors_to_list("a/b.rs"), ["a", ""]);
        assert_eq!(ancestors_to_list("a/b/c.rs"), ["a/b", "a", ""]);
        assert_eq!(ancestors_to_list("a/b/c/d.rs"), ["a/b/c", "a/b", "a", ""]);
        assert_eq!(
            ancestors_to_list("a/b/c/d/e/f.rs"),
            ["a/b/c/d/e", "a/b/c/d", "a/b/c", ""]
        );
        assert_eq!(ancestors_to_list(""), [""]);
    }

    #[test]
    fn a_case_typo_comes_first() {
        assert_eq!(paths("readme.md", &[root()]), ["README.md"]);
        assert_eq!(paths("README.MD", &[root()]), ["README.md"]);
        // Equal but for case beats one edit; as written breaks the tie.
        assert_eq!(
            paths("app/models/USER.rb", &[models(), app(), root()]),
            [
                "app/models/User.rb",
                "app/models/user.rb",
                "app/models/users.rb"
            ]
        );
    }

    #[test]
    fn a_file_typo_in_its_own_directory() {
        // Its own directory first; a file of the same name higher up after.
        assert_eq!(
            paths("app/models/usr.rb", &[models(), app(), root()]),
            ["app/models/user.rb", "app/models/User.rb", "user.rb"]
        );
        assert_eq!(
            paths("app/models/grop.rb", &[models(), app(), root()]),
            ["app/models/group.rb"]
        );
    }

    #[test]
    fn a_directory_typo_suggests_the_directory() {
        assert_eq!(
            paths("app/model/user.rb", &[app(), root()]),
            ["app/models/", "user.rb"]
        );
        assert_eq!(paths("app/model/x/y/user.rb", &[app()]), ["app/models/"]);
        // A directory named like the file, in the file's own directory.
        assert_eq!(paths("app/model", &[app(), root()]), ["app/models/"]);
        // The existing ancestors themselves are never suggested, nor their siblings.
        assert_eq!(
            paths("app/nope/x.rb", &[app(), root()]),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_file_in_the_wrong_directory_is_found_above() {
        let concerns = listing("app/models/concerns", vec![file("taggable.rb")]);
        assert_eq!(
            paths(
                "app/models/concerns/user.rb",
                &[concerns, models(), app(), root()]
            ),
            [
                "app/models/user.rb",
                "app/models/User.rb",
                "app/models/users.rb"
            ]
        );
        // Its own directory first, even when a farther one has an exact name.
        let near = listing("app/models/concerns", vec![file("users.rb")]);
        assert_eq!(
            paths("app/models/concerns/user.rb", &[near, models()])[..2],
            ["app/models/concerns/users.rb", "app/models/user.rb"]
        );
        assert_eq!(paths("lib/deep/user.rb", &[root()]), ["user.rb"]);
    }

    #[test]
    fn same_stems_count_as_close() {
        assert_eq!(paths("README", &[root()]), ["README.md"]);
        assert_eq!(
            paths("app/models/user.py", &[models()])[0],
            "app/models/user.rb"
        );
        assert_eq!(paths("Cargo.lock", &[root()]), ["Cargo.toml"]);
    }

    #[test]
    fn nothing_close_suggests_nothing() {
        for asked in [
            "zzz.txt",
            "nope.md",
            "app/zebra/giraffe.rb",
            "xy",
            "a/b/c/d/e/f/g.rs",
        ] {
            assert_eq!(
                paths(asked, &[models(), app(), root()]),
                Vec::<String>::new(),
                "{asked}"
            );
        }
        assert!(paths("x.rs", &[]).is_empty());
        assert!(paths("", &[root()]).is_empty());
        assert!(paths("dir/", &[root()]).is_empty());
    }

    #[test]
    fn distances_grow_with_the_name() {
        assert_eq!(max_distance("api"), 0);
        assert_eq!(max_distance("model"), 1);
        assert_eq!(max_distance("user.rb"), 1);
        assert_eq!(max_distance("config.yml"), 2);
        assert_eq!(max_distance("docker-compose.yml"), 3);
        // Characters, not bytes.
        assert_eq!(max_distance("éééé"), 1);
        assert!(closeness("api", "app").is_none());
        assert!(
            closeness("src", "scr").is_some(),
            "a swap counts even in a short name"
        );
        assert!(closeness("src", "rcs").is_none());
        assert!(
            closeness("mian.rs", "main.rs").is_some(),
            "a transposition is one edit"
        );
        assert!(closeness("notes.md", "nope.md").is_none());
        assert!(same_stem(".env", ".env.local"));
        assert!(
            !same_stem("a.x", "a.y"),
            "a one-character stem is no evidence"
        );
        assert!(same_stem("ab.x", "ab.y"));
        assert!(!same_stem("ab.x", "abc.x"));
    }

    #[test]
    fn at_most_three_and_never_what_is_not_allowed() {
        let many = listing("d", (0..10).map(|i| file(&format!("file{i}.rs"))).collect());
        assert_eq!(
            paths("d/file.rs", std::slice::from_ref(&many)).len(),
            MAX_SUGGESTIONS
        );
        let allowed = rank("d/file.rs", &[many], |s| s.path != "d/file0.rs");
        assert_eq!(allowed.len(), 3);
        assert!(allowed.iter().all(|s| s.path != "d/file0.rs"));
        assert!(rank("readme.md", &[root()], |_| false).is_empty());
    }

    #[test]
    fn listings_not_above_the_path_are_ignored() {
        let other = listing("lib", vec![file("user.rb")]);
        assert!(paths("app/x/user.rb", &[other]).is_empty());
        // A listing of `ap` is not above `app/...`.
        let prefix = listing("ap", vec![file("user.rb")]);
        assert!(paths("app/user.rb", &[prefix]).is_empty());
    }

    #[test]
    fn through_leads_into_the_suggested_directory() {
        let models = Suggestion {
            path: "app/models".into(),
            kind: EntryKind::Directory,
        };
        assert_eq!(through(&models, "app/model/user.rb"), "app/models/user.rb");
        assert_eq!(through(&models, "app/model/a/b.rb"), "app/models/a/b.rb");
        assert_eq!(through(&models, "app/model"), "app/models");
        let top = Suggestion {
            path: "src".into(),
            kind: EntryKind::Directory,
        };
        assert_eq!(through(&top, "scr/main.rs"), "src/main.rs");
    }
}
