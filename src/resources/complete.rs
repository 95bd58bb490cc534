//! `completion/complete` of the templates' `path`: the entries of the directory typed so far
//! that start with what was typed, as full paths from the root, directories with a trailing
//! `/`. The directory's listing comes from `search_repository`'s tree cache (by commit), after
//! the ref is resolved with the caller's own credential (one request on GitLab when the tree is
//! cached); a project or ref the caller cannot read completes to nothing.

use rmcp::model::CompletionInfo;

use crate::config::Credential;
use crate::find::{Depth, Finder};
use crate::resolve::ProjectRef;
use crate::source::tree::{ItemKind, Scope, TreeItem};

/// The values a completion sends at most (the protocol's limit).
pub(crate) const MAX_VALUES: usize = CompletionInfo::MAX_VALUES;

/// Where a path is completed: the project (GitLab) and ref the other variables hold.
#[derive(Debug, Clone, Copy)]
pub(crate) struct At<'a> {
    pub project: Option<&'a str>,
    pub git_ref: Option<&'a str>,
}

/// The completion of `typed` as a path at `at`.
pub(crate) async fn path(
    finder: &Finder,
    at: At<'_>,
    typed: &str,
    gitlab: bool,
    credential: Option<&Credential>,
) -> CompletionInfo {
    let project = at.project.map(str::trim).filter(|p| !p.is_empty());
    if gitlab && project.is_none() {
        return info(Vec::new());
    }
    let scope = Scope {
        project: project.map(project_ref),
        git_ref: at
            .git_ref
            .filter(|r| !r.is_empty())
            .unwrap_or("HEAD")
            .into(),
        path: dir_of(typed).into(),
    };
    match finder.entries(&scope, Depth::Children, credential).await {
        Ok(Some(items)) => info(matching(&items, typed)),
        // Still listing, or nothing the caller may read: no values.
        Ok(None) | Err(_) => info(Vec::new()),
    }
}

/// A project as the templates name it: a numeric id or a full path.
fn project_ref(p: &str) -> ProjectRef {
    let p = p.trim_matches('/');
    match p.parse::<u64>() {
        Ok(id) => ProjectRef::Id(id),
        Err(_) => ProjectRef::Path(p.to_string()),
    }
}

/// The directory `typed` lies in: up to its last `/` (`""` = the root).
fn dir_of(typed: &str) -> &str {
    let typed = typed.trim_start_matches('/');
    typed.rfind('/').map_or("", |i| &typed[..i])
}

/// The entries whose path starts with `typed`, directories with a trailing `/`, sorted.
fn matching(items: &[TreeItem], typed: &str) -> Vec<String> {
    let typed = typed.trim_start_matches('/');
    let mut values: Vec<String> = items
        .iter()
        .filter(|i| i.path.starts_with(typed))
        .map(|i| match i.kind {
            ItemKind::Tree => format!("{}/", i.path),
            ItemKind::Blob => i.path.to_string(),
        })
        .collect();
    values.sort();
    values
}

/// At most [`MAX_VALUES`] values, with the total and whether more were left out.
pub(crate) fn info(mut values: Vec<String>) -> CompletionInfo {
    let total = values.len();
    values.truncate(MAX_VALUES);
    let mut info = CompletionInfo::default();
    info.has_more = Some(total > MAX_VALUES);
    info.total = Some(u32::try_from(total).unwrap_or(u32::MAX));
    info.values = values;
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(path: &str, kind: ItemKind) -> TreeItem {
        TreeItem {
            path: path.into(),
            kind,
            oid: "0".into(),
            size: None,
            lfs: false,
        }
    }

    #[test]
    fn the_directory_is_up_to_the_last_slash() {
        assert_eq!(dir_of(""), "");
        assert_eq!(dir_of("sr"), "");
        assert_eq!(dir_of("src/"), "src");
        assert_eq!(dir_of("/src/a/ma"), "src/a");
    }

    #[test]
    fn entries_are_full_paths_with_directories_marked() {
        let items = [
            item("src/main.rs", ItemKind::Blob),
            item("src/bin", ItemKind::Tree),
            item("src/lib.rs", ItemKind::Blob),
        ];
        assert_eq!(
            matching(&items, "src/"),
            ["src/bin/", "src/lib.rs", "src/main.rs"]
        );
        assert_eq!(matching(&items, "src/m"), ["src/main.rs"]);
    }

    #[test]
    fn at_most_a_hundred_values_with_the_total() {
        let c = info((0..150).map(|i| i.to_string()).collect());
        assert_eq!(
            (c.values.len(), c.total, c.has_more),
            (100, Some(150), Some(true))
        );
    }
}
