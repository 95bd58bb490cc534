//! `completion/complete` of the templates' variables. `path`: the entries of the directory
//! typed so far that start with what was typed, as full paths from the root, directories with
//! a trailing `/`, from `search_repository`'s tree cache (by commit), after the ref is resolved
//! with the caller's own credential (one request on GitLab when the tree is cached). On GitLab,
//! `project`: the caller's projects matching what was typed (one request); `ref`: the default
//! branch first, then branches and tags starting with it (two requests). A project or ref the
//! caller cannot read completes to nothing.

use rmcp::model::CompletionInfo;

use crate::config::Credential;
use crate::find::{Depth, Finder};
use crate::resolve::ProjectRef;
use crate::source::gitlab::{CompletedRefs, GitlabSource};
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

/// The completion of `typed` as a project of the caller's.
pub(crate) async fn project(
    gitlab: &GitlabSource,
    typed: &str,
    credential: Option<&Credential>,
) -> CompletionInfo {
    let (values, more) = gitlab.complete_projects(typed, credential).await;
    let mut info = info(values);
    if more {
        info.has_more = Some(true);
        info.total = None;
    }
    info
}

/// The completion of `typed` as a ref of `project`.
pub(crate) async fn git_ref(
    gitlab: &GitlabSource,
    project: Option<&str>,
    typed: &str,
    credential: Option<&Credential>,
) -> CompletionInfo {
    let Some(project) = project
        .map(|p| p.trim().trim_matches('/'))
        .filter(|p| !p.is_empty())
    else {
        return info(Vec::new());
    };
    match gitlab.complete_refs(project, typed, credential).await {
        Some(found) => refs(found, typed),
        None => info(Vec::new()),
    }
}

/// The default branch first (when it starts with `typed`), then the branches, then the tags,
/// each sorted, each name once; more when GitLab had more than it was asked for.
fn refs(found: CompletedRefs, typed: &str) -> CompletionInfo {
    let more = found.branches.len() > MAX_VALUES || found.tags.len() > MAX_VALUES;
    let default_branch = found.default_branch.filter(|d| d.starts_with(typed));
    let mut values: Vec<String> = default_branch.iter().cloned().collect();
    for mut names in [found.branches, found.tags] {
        names.sort();
        let fitting = names.into_iter().filter(|n| n.starts_with(typed));
        let new: Vec<String> = fitting.filter(|n| !values.contains(n)).collect();
        values.extend(new);
    }
    let mut info = info(values);
    if more {
        info.has_more = Some(true);
        info.total = None;
    }
    info
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
        TreeItem::for_tests(path, kind)
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
    fn the_default_branch_comes_first_and_each_ref_once() {
        let found = CompletedRefs {
            default_branch: Some("main".into()),
            branches: vec!["release/2".into(), "main".into(), "mainline".into()],
            tags: vec!["main".into(), "m1".into()],
        };
        let c = refs(found.clone(), "m");
        assert_eq!(c.values, ["main", "mainline", "m1"]);
        assert_eq!((c.total, c.has_more), (Some(3), Some(false)));
        let c = refs(found, "r");
        assert_eq!(c.values, ["release/2"]);
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
