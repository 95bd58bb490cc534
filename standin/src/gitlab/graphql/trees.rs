//! What the server asks of a ref's trees: `MissProbe` (whether the ref exists, and what a
//! missing path's directory and its parents hold, a page of 100 of each kind), `TreeCommit`
//! (the project, its Duo rules and the ref's commit) and `TreePage` (`paginatedTree`, recursive,
//! at most 100 entries a page, trees first as Gitaly sorts them, `endCursor` "" on the last).

use serde_json::{Value, json};

use super::Asked;
use crate::gitlab::Gitlab;
use crate::gitlab::projects::Hosted;
use crate::gitlab::repository::{Entry, Repository};
use crate::gitlab_mock::git_blob_id;

/// A directory's direct entries as `tree(ref:, path:)` lists them.
fn listing(repo: &Repository, qualified: Option<&str>, dir: &str) -> Value {
    let (trees, blobs) = qualified.map(|q| repo.children(q, dir)).unwrap_or_default();
    let names = |v: Vec<String>| {
        let more = v.len() > 100;
        let nodes: Vec<Value> = v
            .into_iter()
            .take(100)
            .map(|n| json!({"name": n}))
            .collect();
        json!({"nodes": nodes, "pageInfo": {"hasNextPage": more}})
    };
    json!({"trees": names(trees), "blobs": names(blobs)})
}

impl Gitlab {
    /// `MissProbe`: whether the ref exists, and what the path and its parents hold.
    pub(super) fn probe(&self, asked: &Asked<'_>, hosted: Option<&mut Hosted>) -> Value {
        let Some(hosted) = hosted else {
            return json!({"data": {"project": null}});
        };
        let repo = &hosted.repo;
        let qualified = repo.resolve(asked.str("ref"), None);
        let q = qualified.as_deref();
        let mut root = listing(repo, q, "");
        root["lastCommit"] = json!(q.map(|q| json!({"sha": repo.commit_of(q)})));
        let mut repository = json!({"root": root, "dir": listing(repo, q, asked.str("path"))});
        for level in ["up0", "up1", "up2"] {
            if asked.flag(&format!("withUp{}", &level[2..])) {
                repository[level] = listing(repo, q, asked.str(level));
            }
        }
        json!({"data": {"project": {"repository": repository}}})
    }

    /// `TreeCommit`: the project, its Duo rules and the ref's commit (null for a missing ref).
    pub(super) fn tree_commit(&self, asked: &Asked<'_>, hosted: Option<&mut Hosted>) -> Value {
        let Some(hosted) = hosted else {
            return self.wrap(asked, None);
        };
        let sha = hosted
            .repo
            .resolve(asked.str("ref"), None)
            .map(|q| json!({"sha": hosted.repo.commit_of(&q)}));
        let repository = json!({"commit": sha, "tree": {"lastCommit": sha}});
        self.wrap(asked, Some(self.project_fields(asked, hosted, repository)))
    }

    /// `TreePage`: one page of `paginatedTree`.
    pub(super) fn tree_page(&self, asked: &Asked<'_>, hosted: Option<&mut Hosted>) -> Value {
        let Some(hosted) = hosted else {
            return json!({"data": {"project": null}});
        };
        let qualified = hosted
            .repo
            .resolve(asked.str("ref"), None)
            .unwrap_or_default();
        let all = hosted.repo.listing(&qualified, asked.str("path"));
        let start: usize = asked.str("after").parse().unwrap_or(0);
        let end = (start + 100).min(all.len());
        let (mut trees, mut blobs) = (Vec::new(), Vec::new());
        for entry in &all[start.min(end)..end] {
            match entry {
                Entry::Tree(p) => trees.push(json!({"path": p, "sha": git_blob_id(p.as_bytes())})),
                Entry::Blob(p, f) => blobs.push(json!({"path": p, "sha": f.oid, "lfsOid": f.sha})),
            }
        }
        let more = end < all.len();
        let cursor = if more { end.to_string() } else { String::new() };
        json!({"data": {"project": {"repository": {"paginatedTree": {
            "pageInfo": {"endCursor": cursor, "hasNextPage": more},
            "nodes": [{"trees": {"nodes": trees}, "blobs": {"nodes": blobs}}]
        }}}}})
    }
}
