//! `resources/list`: a local repository's files at `HEAD`, in path order, a page at a time
//! (the protocol's cursor is the last path sent). On GitLab the list is empty: a resource needs
//! a project, and listing every file of every project the caller can read is neither bounded
//! nor what a person looks for; the template, completed as one types, is the way in.

use rmcp::model::{ListResourcesResult, Resource};

use super::error::ResourceError;
use super::uri::local_uri;
use crate::find::{Depth, Finder};
use crate::source::tree::{ItemKind, Scope, TreeItem};

/// Resources per page.
pub(crate) const PAGE: usize = 200;

/// One page of the local repository's files, after the path `cursor` names.
pub(crate) async fn local(
    finder: &Finder,
    cursor: Option<&str>,
) -> Result<ListResourcesResult, ResourceError> {
    let scope = Scope {
        project: None,
        git_ref: "HEAD".into(),
        path: String::new(),
    };
    let items = finder.entries(&scope, Depth::All, None).await;
    let items = items.map_err(ResourceError::List)?.unwrap_or_default();
    let (page, next) = page(&items, cursor, PAGE)?;
    let mut result = ListResourcesResult::with_all_items(page.iter().map(resource).collect());
    result.next_cursor = next;
    Ok(result)
}

/// The files after `cursor` (a path this server sent), at most `size`, and the next cursor.
fn page<'a>(
    items: &'a [TreeItem],
    cursor: Option<&str>,
    size: usize,
) -> Result<(Vec<&'a TreeItem>, Option<String>), ResourceError> {
    let start = match cursor.filter(|c| !c.is_empty()) {
        None => 0,
        Some(after) => match items.binary_search_by(|i| (*i.path).cmp(after)) {
            Ok(i) => i + 1,
            Err(_) => return Err(ResourceError::BadCursor),
        },
    };
    let blobs: Vec<&TreeItem> = items[start..]
        .iter()
        .filter(|i| i.kind == ItemKind::Blob)
        .take(size + 1)
        .collect();
    let more = blobs.len() > size;
    let page: Vec<&TreeItem> = blobs.into_iter().take(size).collect();
    let next = more
        .then(|| page.last().map(|i| i.path.to_string()))
        .flatten();
    Ok((page, next))
}

/// A file as a listed resource: its path as its name, its size where known.
fn resource(item: &&TreeItem) -> Resource {
    let r = Resource::new(local_uri(&item.path, None), item.path.to_string());
    match item.size {
        Some(size) => r.with_size(size),
        None => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(path: &str, kind: ItemKind) -> TreeItem {
        TreeItem::for_tests(path, kind)
    }

    #[test]
    fn pages_follow_the_last_path_and_skip_directories() {
        let items = vec![
            item("a", ItemKind::Tree),
            item("a/1", ItemKind::Blob),
            item("a/2", ItemKind::Blob),
            item("b", ItemKind::Blob),
        ];
        let (first, next) = page(&items, None, 2).unwrap();
        let paths: Vec<&str> = first.iter().map(|i| &*i.path).collect();
        assert_eq!((paths, next.as_deref()), (vec!["a/1", "a/2"], Some("a/2")));
        let (second, next) = page(&items, Some("a/2"), 2).unwrap();
        assert_eq!((second.len(), next), (1, None));
        assert!(matches!(
            page(&items, Some("zz"), 2),
            Err(ResourceError::BadCursor)
        ));
    }
}
