//! `search_repository`'s GraphQL: the commit a ref names (`graphql/tree_commit.graphql`, one
//! request that also proves the caller may read the project and brings its Duo exclusion rules)
//! and a directory's paths at that commit, page by page (`graphql/tree_page.graphql`,
//! `Repository.paginatedTree`: 100 entries a request). Answers are read as JSON values.

use serde_json::{Value, json};

use crate::config::Credential;
use crate::resolve::ProjectRef;
use crate::source::gitlab::query::capabilities::EXCLUSIONS_FIELD;
use crate::source::gitlab::query::connection::Connection;
use crate::source::gitlab::query::graphql::variants::TREE_COMMIT_WITHOUT_TREE_EXCLUSIONS_IF_SUPPORTED;
use crate::source::gitlab::query::graphql::{
    global_id_number, project_global_id, tree_commit, tree_page,
};
use crate::source::gitlab::wire::envelope::GraphqlResponse;
use crate::source::gitlab::wire::error::{GitlabError, answer_data, answer_data_ignoring};
use crate::source::tree::{ItemKind, RefCommit, TreeItem};

/// The field an old instance lacks (`Repository.commit`, about GitLab 17.10).
const COMMIT_FIELD: &str = "commit";

/// The most pages of one listing (100 entries each): a tree of more than a million paths is
/// refused rather than listed for minutes.
const MAX_PAGES: usize = 10_000;

/// The commit document for what the instance has.
fn commit_document(rules: bool, commit: bool) -> String {
    let mut document = match rules {
        true => tree_commit::QUERY.to_string(),
        false => TREE_COMMIT_WITHOUT_TREE_EXCLUSIONS_IF_SUPPORTED.to_string(),
    };
    if !commit {
        document = without_commit(&document);
    }
    document
}

/// `document` without its `commit(ref: $ref) { sha }` selection.
fn without_commit(document: &str) -> String {
    let start = document.find("commit(ref: $ref)");
    let Some(start) = start else {
        return document.to_string();
    };
    let end = document[start..]
        .find('}')
        .map_or(document.len(), |e| start + e + 1);
    format!("{}{}", &document[..start], &document[end..])
}

/// Every document this module may send (for the schema and cost tests).
pub(crate) fn documents() -> Vec<(String, String)> {
    let mut all = vec![("TreePage".to_string(), tree_page::QUERY.to_string())];
    for (rules, commit) in [(true, true), (true, false), (false, true), (false, false)] {
        let name = format!("TreeCommit rules={rules} commit={commit}");
        all.push((name, commit_document(rules, commit)));
    }
    all
}

/// What the commit request found: `None` when the project is missing or unreadable; a
/// [`RefCommit`] whose `sha` is empty when the ref is missing.
pub(crate) async fn ask_commit(
    connection: &Connection,
    project: &ProjectRef,
    git_ref: &str,
    credential: Option<&Credential>,
) -> Result<Option<RefCommit>, GitlabError> {
    let caps = connection.caps();
    for _ in 0..3 {
        let (rules, commit) = (caps.exclusions.worth_asking(), caps.commit.worth_asking());
        let (by_id, path, ids) = match project {
            ProjectRef::Id(id) => (true, String::new(), vec![project_global_id(*id)]),
            ProjectRef::Path(p) => (false, p.clone(), Vec::new()),
        };
        let body = json!({
            "query": commit_document(rules, commit),
            "variables": {"byId": by_id, "projectPath": path, "ids": ids, "ref": git_ref},
        });
        let answer: GraphqlResponse<Value> = connection.post(&body, credential).await?;
        if rules && answer.lacks_field(EXCLUSIONS_FIELD) {
            caps.exclusions.record(false);
            continue;
        }
        if commit && answer.lacks_field(COMMIT_FIELD) {
            caps.commit.record(false);
            continue;
        }
        let data = answer_data_ignoring(answer, &[EXCLUSIONS_FIELD])?;
        return Ok(read_commit(&data));
    }
    Err(GitlabError::NoData)
}

/// The project node of a commit answer, read into a [`RefCommit`].
fn read_commit(data: &Value) -> Option<RefCommit> {
    let node = match data.get("project") {
        Some(p) if !p.is_null() => p,
        _ => data.pointer("/projects/nodes/0")?,
    };
    if node.is_null() {
        return None;
    }
    let repository = node.get("repository")?;
    let sha = repository
        .pointer("/commit/sha")
        .or_else(|| repository.pointer("/tree/lastCommit/sha"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let rules = node
        .pointer("/duoContextExclusionSettings/exclusionRules")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        });
    Some(RefCommit {
        sha: sha.to_string(),
        project_path: node
            .get("fullPath")
            .and_then(Value::as_str)
            .map(String::from),
        project_id: node
            .get("id")
            .and_then(Value::as_str)
            .and_then(global_id_number),
        rules,
    })
}

/// Every path under `path` at `at`'s commit, page by page (unsorted).
pub(crate) async fn ask_tree(
    connection: &Connection,
    at: &RefCommit,
    path: &str,
    credential: Option<&Credential>,
) -> Result<Vec<TreeItem>, GitlabError> {
    let project = at.project_path.as_deref().unwrap_or_default();
    let mut items = Vec::new();
    let mut after: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let body = json!({
            "query": tree_page::QUERY,
            "variables": {"projectPath": project, "ref": at.sha, "path": path, "after": after},
        });
        let answer: GraphqlResponse<Value> = connection.post(&body, credential).await?;
        let data = answer_data(answer)?;
        let Some(connection) = data.pointer("/project/repository/paginatedTree") else {
            return Ok(items);
        };
        read_page(connection, &mut items);
        let more = connection.pointer("/pageInfo/hasNextPage") == Some(&Value::Bool(true));
        let cursor = connection
            .pointer("/pageInfo/endCursor")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty());
        match cursor {
            Some(c) if more => after = Some(c.to_string()),
            _ => return Ok(items),
        }
    }
    Err(GitlabError::Graphql {
        messages: format!("the tree has more than {} paths", MAX_PAGES * 100),
    })
}

/// The entries of one page's `Tree` node(s).
fn read_page(connection: &Value, items: &mut Vec<TreeItem>) {
    let trees = connection.get("nodes").and_then(Value::as_array);
    for tree in trees.into_iter().flatten() {
        for (field, kind) in [("trees", ItemKind::Tree), ("blobs", ItemKind::Blob)] {
            let nodes = tree.get(field).and_then(|c| c.get("nodes"));
            for node in nodes.and_then(Value::as_array).into_iter().flatten() {
                let text = |k: &str| node.get(k).and_then(Value::as_str).map(String::from);
                let (Some(path), Some(oid)) = (text("path"), text("sha")) else {
                    continue;
                };
                items.push(TreeItem {
                    path: path.into(),
                    kind,
                    oid: oid.into(),
                    size: None,
                    lfs: text("lfsOid").is_some(),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commit_field_can_be_left_out() {
        for rules in [true, false] {
            let full = commit_document(rules, true);
            let without = commit_document(rules, false);
            assert!(full.contains("commit(ref: $ref)"));
            assert!(!without.contains("commit(ref: $ref)") && without.contains("lastCommit"));
        }
        assert!(!commit_document(false, true).contains("duoContextExclusionSettings"));
    }

    #[test]
    fn answers_are_read() {
        let data = json!({"project": {"id": "gid://gitlab/Project/7", "fullPath": "g/p",
            "duoContextExclusionSettings": {"exclusionRules": ["secret/**"]},
            "repository": {"commit": null, "tree": {"lastCommit": {"sha": "abc"}}}}});
        let at = read_commit(&data).unwrap();
        assert_eq!((at.sha.as_str(), at.project_id), ("abc", Some(7)));
        assert_eq!(at.rules, Some(vec!["secret/**".to_string()]));
        assert_eq!(read_commit(&json!({"project": null})), None);
        let page = json!({"nodes": [{"trees": {"nodes": [{"path": "a", "sha": "1"}]},
            "blobs": {"nodes": [{"path": "a/b", "sha": "2", "lfsOid": "x"}]}}]});
        let mut items = Vec::new();
        read_page(&page, &mut items);
        assert_eq!(items.len(), 2);
        assert!(items[1].lfs && items[0].kind == ItemKind::Tree);
    }
}
