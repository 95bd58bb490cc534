//! What `search_repository` reads of the local repository: a ref resolved to its commit, the
//! paths under a directory from the git objects (no working tree is read), a blob by its id.
//! `mod.rs` serves them as the tree contract; a local repository has no code search.

use gix::hash::ObjectId;
use gix::object::tree::EntryKind;

use super::error::LocalRefError;
use super::repo::{LocalRepo, TreeEntry, find_path, invalid_ref, read_error, resolve_commit_tree};
use crate::resolve::ref_name::check_rev;
use crate::source::blob::{BlobKind, SourceError};
use crate::source::classify::classify;
use crate::source::tree::{ItemKind, RefCommit, TreeItem};

impl LocalRepo {
    /// The commit `rev` names (checked as a read's ref is).
    pub(super) fn commit_of(&self, rev: &str) -> Result<RefCommit, SourceError> {
        check_rev(rev).map_err(|reason| invalid_ref(rev, LocalRefError::Syntax(reason)))?;
        let repo = self.repo.to_thread_local();
        let (commit, _) = resolve_commit_tree(&repo, rev)?;
        Ok(RefCommit {
            sha: commit.to_string(),
            project_path: None,
            project_id: None,
            rules: None,
        })
    }

    /// The paths under `path` at the commit `sha`, sorted; a file is itself, a missing path
    /// nothing.
    pub(super) fn items(&self, sha: &str, path: &str) -> Result<Vec<TreeItem>, SourceError> {
        let repo = self.repo.to_thread_local();
        let (_, root) = resolve_commit_tree(&repo, sha)?;
        let dir = if path.is_empty() {
            root
        } else {
            let components: Vec<&str> = path.split('/').collect();
            match find_path(&repo, root, &components).map_err(read_error)? {
                TreeEntry::Tree(id) => id,
                TreeEntry::Blob(id) => return Ok(vec![blob_item(&repo, path.to_string(), id)]),
                TreeEntry::Submodule | TreeEntry::Missing => return Ok(Vec::new()),
            }
        };
        let tree = repo.find_tree(dir).map_err(read_error)?;
        let records = tree.traverse().breadthfirst.files().map_err(read_error)?;
        let prefix = if path.is_empty() {
            String::new()
        } else {
            format!("{path}/")
        };
        let mut items: Vec<TreeItem> = records
            .into_iter()
            .filter_map(|r| {
                let name = String::from_utf8(r.filepath.into()).ok()?;
                let full = format!("{prefix}{name}");
                match r.mode.kind() {
                    EntryKind::Tree => Some(tree_item(full, r.oid)),
                    EntryKind::Commit => None,
                    EntryKind::Blob | EntryKind::BlobExecutable | EntryKind::Link => {
                        Some(blob_item(&repo, full, r.oid))
                    }
                }
            })
            .collect();
        items.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(items)
    }

    /// A blob's content by its id.
    pub(super) fn blob_kind(&self, oid: &str) -> Result<BlobKind, SourceError> {
        let repo = self.repo.to_thread_local();
        let id = ObjectId::from_hex(oid.as_bytes()).map_err(read_error)?;
        let data = repo.find_blob(id).map_err(read_error)?.take_data();
        Ok(classify(data).1)
    }
}

fn tree_item(path: String, oid: ObjectId) -> TreeItem {
    TreeItem {
        path: path.into(),
        kind: ItemKind::Tree,
        oid: oid.to_string().into(),
        size: None,
        lfs: false,
    }
}

/// A blob's item, with its size from the object's header (unknown if that cannot be read).
fn blob_item(repo: &gix::Repository, path: String, oid: ObjectId) -> TreeItem {
    TreeItem {
        path: path.into(),
        kind: ItemKind::Blob,
        oid: oid.to_string().into(),
        size: repo.find_header(oid).ok().map(|h| h.size()),
        lfs: false,
    }
}
