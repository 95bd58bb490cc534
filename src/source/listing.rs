//! What the "is a directory" error says a directory holds: up to [`MAX_NAMED`] of its entries,
//! sub-directories first (each with a trailing `/`, as "Did you mean" writes them), then files,
//! in the order the source listed them, and how many more there are. Pure; both sources use it
//! (GitLab from the miss probe's page of the directory, the local source from the whole tree).
//! Entries the caller must not see (the project's Duo exclusion rules) are left out before
//! anything is counted, so neither their names nor their number show.

use std::fmt;

use super::suggest::{EntryKind, ListingEntry};
use crate::base::quote::shown;

/// The most entries an error names.
pub(crate) const MAX_NAMED: usize = 100;

/// A directory's entries, as the error names them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct DirEntries {
    /// At most [`MAX_NAMED`] names: directories (`name/`) first, then files.
    pub named: Vec<String>,
    /// How many more entries were listed.
    pub more: usize,
    /// True when the listing was only a page of the directory: there may be more than `more`.
    pub paged: bool,
}

impl DirEntries {
    /// The entries of a listing, of which `allowed` keeps those that may be named; `paged`
    /// says the listing may not be the whole directory.
    pub(crate) fn of(
        entries: &[ListingEntry],
        paged: bool,
        allowed: impl Fn(&ListingEntry) -> bool,
    ) -> Self {
        let kept = |kind: EntryKind| {
            entries
                .iter()
                .filter(move |e| e.kind == kind)
                .filter(|e| allowed(e))
        };
        let dirs = kept(EntryKind::Directory).map(|e| format!("{}/", e.name));
        let files = kept(EntryKind::File).map(|e| e.name.clone());
        let mut named: Vec<String> = dirs.chain(files).collect();
        let more = named.len().saturating_sub(MAX_NAMED);
        named.truncate(MAX_NAMED);
        DirEntries { named, more, paged }
    }
}

/// `It holds 'src/', 'Cargo.toml' and 'README.md'.`, `… 'Cargo.toml' and 3 more.` (`and at
/// least 3 more` / `and more` for a page); nothing when no entry may be named. Names are quoted
/// as errors quote any name ([`shown`]).
impl fmt::Display for DirEntries {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.named.is_empty() {
            return Ok(());
        }
        let quoted: Vec<String> = self
            .named
            .iter()
            .map(|n| format!("'{}'", shown(n)))
            .collect();
        let rest = match (self.more, self.paged) {
            (0, false) => None,
            (0, true) => Some("more".to_string()),
            (n, false) => Some(format!("{n} more")),
            (n, true) => Some(format!("at least {n} more")),
        };
        let listed = match (rest, quoted.split_last()) {
            (Some(rest), _) => format!("{} and {rest}", quoted.join(", ")),
            (None, Some((last, first))) if !first.is_empty() => {
                format!("{} and {last}", first.join(", "))
            }
            (None, _) => quoted.join(", "),
        };
        write!(f, "It holds {listed}.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, kind: EntryKind) -> ListingEntry {
        ListingEntry {
            name: name.into(),
            kind,
        }
    }

    fn listing(files: usize, dirs: usize) -> Vec<ListingEntry> {
        let files = (0..files).map(|i| entry(&format!("f{i}.rs"), EntryKind::File));
        let dirs = (0..dirs).map(|i| entry(&format!("d{i}"), EntryKind::Directory));
        files.chain(dirs).collect()
    }

    #[test]
    fn directories_first_with_a_slash_then_files() {
        let e = DirEntries::of(&listing(2, 1), false, |_| true);
        assert_eq!(e.named, ["d0/", "f0.rs", "f1.rs"]);
        assert_eq!(e.to_string(), "It holds 'd0/', 'f0.rs' and 'f1.rs'.");
        let one = DirEntries::of(&listing(1, 0), false, |_| true);
        assert_eq!(one.to_string(), "It holds 'f0.rs'.");
        assert_eq!(DirEntries::default().to_string(), "");
    }

    #[test]
    fn at_most_a_hundred_are_named_and_the_rest_counted() {
        let e = DirEntries::of(&listing(150, 3), false, |_| true);
        assert_eq!((e.named.len(), e.more), (MAX_NAMED, 53));
        assert_eq!(e.named[..3], ["d0/", "d1/", "d2/"]);
        assert!(e.to_string().ends_with("'f96.rs' and 53 more."), "{e}");
        assert!(
            e.to_string()
                .starts_with("It holds 'd0/', 'd1/', 'd2/', 'f0.rs', "),
            "{e}"
        );
        // A page: the count is a floor.
        let e = DirEntries::of(&listing(150, 3), true, |_| true);
        assert!(
            e.to_string().ends_with("'f96.rs' and at least 53 more."),
            "{e}"
        );
        let e = DirEntries::of(&listing(100, 0), true, |_| true);
        assert!(e.to_string().ends_with("'f99.rs' and more."), "{e}");
        let e = DirEntries::of(&listing(100, 0), false, |_| true);
        assert!(e.to_string().ends_with("'f98.rs' and 'f99.rs'."), "{e}");
    }

    #[test]
    fn entries_left_out_are_neither_named_nor_counted() {
        let e = DirEntries::of(&listing(102, 0), false, |e| e.name != "f1.rs");
        assert_eq!((e.named.len(), e.more), (MAX_NAMED, 1));
        assert!(!e.named.contains(&"f1.rs".to_string()));
        let odd = DirEntries::of(&[entry("a\nb", EntryKind::File)], false, |_| true);
        assert_eq!(odd.to_string(), "It holds 'a\\nb'.");
        let none = DirEntries::of(&listing(3, 0), false, |_| false);
        assert_eq!((none.to_string(), none.more), (String::new(), 0));
    }
}
