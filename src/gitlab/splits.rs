//! The one request that resolves a URL's ambiguous "ref/path": for every candidate split
//! (`release` + `2026/q4/x.rs`, `release/2026` + `q4/x.rs`, …) an aliased `blobs` field, and,
//! where the instance has `Repository.commit`, whether the candidate ref is a branch
//! (`refs/heads/…`) or a tag (`refs/tags/…`), the evidence GitLab's ExtractsRef rules need.
//!
//! The document is built at run time because the number of aliases varies; its shape is fixed
//! and `tests/graphql_schema.rs` validates generated documents against GitLab's full schema.

use serde_json::{Map, Value, json};

use super::source::BlobNode;
use super::transport::GraphqlResponse;
use crate::source::SourceError;
use crate::url::{Evidence, RefType, Split};

/// Candidates asked for in one request, chosen to stay well inside GitLab's query complexity
/// limits (250 points authenticated, 200 anonymous); see [`estimated_complexity`].
pub const MAX_PER_REQUEST: usize = 8;

/// What one candidate's aliases answered.
#[derive(Debug, Clone)]
pub struct SplitAnswer {
    /// The blob at this candidate's ref and path, if there is one.
    pub node: Option<BlobNode>,
    /// Whether the candidate ref is a branch or tag; `None` when the instance cannot say
    /// (no `Repository.commit`).
    pub ref_is_branch_or_tag: Option<bool>,
}

impl SplitAnswer {
    /// The evidence for [`crate::url::choose`]. A found blob also counts as an existing ref (a
    /// blob can only be found at a ref that exists), which covers instances without ref lookups
    /// and any whose `commit(ref:)` does not take fully qualified `refs/heads/…` names.
    pub fn evidence(&self) -> Evidence {
        let blob_found = self.node.is_some();
        Evidence {
            ref_is_branch_or_tag: self.ref_is_branch_or_tag.unwrap_or(false) || blob_found,
            blob_found,
        }
    }
}

/// A parsed answer for one batch.
#[derive(Debug)]
pub struct ParsedSplits {
    pub id: String,
    pub full_path: String,
    pub rules: Option<Vec<String>>,
    pub answers: Vec<SplitAnswer>,
    /// True when the answer carried the commit lookups.
    pub commit_known: bool,
}

const BLOB_FIELDS: &str = "path size rawSize rawTextBlob storedExternally externalStorage";

/// The GraphQL document for `count` candidates numbered from `offset`.
pub fn document(count: usize, offset: usize, with_exclusions: bool, with_commit: bool) -> String {
    let mut vars = String::from("$projectPath: ID!, $refType: RefType");
    let mut fields = String::new();
    for i in offset..offset + count {
        vars.push_str(&format!(", $r{i}: String!, $p{i}: [String!]!"));
        fields.push_str(&format!(
            " b{i}: blobs(ref: $r{i}, paths: $p{i}, refType: $refType, first: 1) {{ nodes {{ ...BlobFields }} }}"
        ));
        if with_commit {
            vars.push_str(&format!(", $h{i}: String!, $t{i}: String!"));
            fields.push_str(&format!(
                " h{i}: commit(ref: $h{i}) {{ sha }} t{i}: commit(ref: $t{i}) {{ sha }}"
            ));
        }
    }
    let exclusions = if with_exclusions {
        " duoContextExclusionSettings { exclusionRules }"
    } else {
        ""
    };
    format!(
        "query BlobBySplits({vars}) {{ project(fullPath: $projectPath) {{ id fullPath{exclusions} repository {{{fields} }} }} }} fragment BlobFields on RepositoryBlob {{ {BLOB_FIELDS} }}"
    )
}

/// GitLab's complexity score of [`document`], by GitLab's rules (`Types::BaseField`,
/// `Resolvers::BaseResolver`): a plain field costs 1 plus its children; a resolver field costs
/// its children + 1, + 1 if it calls Gitaly, and a connection adds 1% per item it may load
/// (`first`, else the 100-item page size), so `blobs(first: 1)` costs (7 + 1 + 1) × 1.01 → 9
/// and each `commit(ref:) { sha }` 3. Per candidate: 9 + 2 × 3 = 15.
pub fn estimated_complexity(count: usize, with_exclusions: bool, with_commit: bool) -> usize {
    let per_candidate = 9 + if with_commit { 6 } else { 0 };
    // project (resolver: 1 + 1) + id + fullPath + repository, plus the exclusion settings
    // object and its rules.
    let base = 5 + if with_exclusions { 2 } else { 0 };
    base + count * per_candidate
}

/// The request body (query, variables, operationName) for a batch of candidates.
pub fn request(
    project_path: &str,
    batch: &[Split],
    offset: usize,
    ref_type: Option<RefType>,
    with_exclusions: bool,
    with_commit: bool,
) -> Value {
    let mut variables = Map::new();
    variables.insert("projectPath".into(), json!(project_path));
    variables.insert("refType".into(), json!(ref_type.map(RefType::as_graphql)));
    for (k, split) in batch.iter().enumerate() {
        let i = offset + k;
        variables.insert(format!("r{i}"), json!(split.git_ref));
        variables.insert(format!("p{i}"), json!([split.path]));
        if with_commit {
            variables.insert(
                format!("h{i}"),
                json!(format!("refs/heads/{}", split.git_ref)),
            );
            variables.insert(
                format!("t{i}"),
                json!(format!("refs/tags/{}", split.git_ref)),
            );
        }
    }
    json!({
        "query": document(batch.len(), offset, with_exclusions, with_commit),
        "variables": variables,
        "operationName": "BlobBySplits",
    })
}

/// Reads a batch's answer. `Ok(None)`: the project is missing or unreadable.
pub fn parse(
    mut r: GraphqlResponse<Value>,
    count: usize,
    offset: usize,
    with_exclusions: bool,
) -> Result<Option<ParsedSplits>, SourceError> {
    if let Some(errors) = &r.errors {
        let harmless = with_exclusions
            && errors.iter().all(|e| {
                e.path.as_ref().is_some_and(|p| {
                    p.iter()
                        .any(|s| s.as_str() == Some("duoContextExclusionSettings"))
                })
            });
        if !harmless {
            return super::source::checked(r).map(|_| None);
        }
    }
    let Some(project) = r
        .data
        .as_mut()
        .and_then(|d| d.get_mut("project"))
        .filter(|p| !p.is_null())
    else {
        return Ok(None);
    };
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_string();
    let rules = project
        .pointer("/duoContextExclusionSettings/exclusionRules")
        .and_then(Value::as_array)
        .map(|rules| {
            rules
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        });
    let id = text(project.get("id"));
    let full_path = text(project.get("fullPath"));
    let mut repo = project.get_mut("repository").map(Value::take);
    let mut answers = Vec::with_capacity(count);
    let mut commit_known = false;
    for i in offset..offset + count {
        // Taken, not cloned: a node may hold a 10 MiB file.
        let node = repo
            .as_mut()
            .and_then(|r| r.get_mut(format!("b{i}")))
            .and_then(|b| b.get_mut("nodes"))
            .and_then(Value::as_array_mut)
            .and_then(|nodes| nodes.iter_mut().find(|n| !n.is_null()))
            .map(|n| serde_json::from_value::<BlobNode>(n.take()))
            .transpose()
            .map_err(|e| {
                SourceError::Upstream(format!(
                    "GitLab's blob answer was not shaped as expected: {e}"
                ))
            })?;
        let field = |name: String| repo.as_ref().and_then(|r| r.get(&name));
        let heads = field(format!("h{i}"));
        let tags = field(format!("t{i}"));
        let ref_is_branch_or_tag = if heads.is_some() || tags.is_some() {
            commit_known = true;
            Some(heads.is_some_and(|v| !v.is_null()) || tags.is_some_and(|v| !v.is_null()))
        } else {
            None
        };
        answers.push(SplitAnswer {
            node,
            ref_is_branch_or_tag,
        });
    }
    Ok(Some(ParsedSplits {
        id,
        full_path,
        rules,
        answers,
        commit_known,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(r: &str, p: &str) -> Split {
        Split {
            git_ref: r.into(),
            path: p.into(),
        }
    }

    #[test]
    fn document_shape() {
        let d = document(2, 3, true, true);
        assert!(d.starts_with("query BlobBySplits($projectPath: ID!, $refType: RefType, $r3: String!, $p3: [String!]!, $h3: String!, $t3: String!, $r4"), "{d}");
        assert!(d.contains("b4: blobs(ref: $r4, paths: $p4, refType: $refType, first: 1)"));
        assert!(d.contains("duoContextExclusionSettings"));
        let d = document(1, 0, false, false);
        assert!(!d.contains("commit") && !d.contains("duoContext"), "{d}");
    }

    #[test]
    fn a_full_batch_stays_inside_gitlabs_complexity_limits() {
        let worst = estimated_complexity(MAX_PER_REQUEST, true, true);
        assert_eq!(worst, 127);
        assert!(worst <= 200, "anonymous limit");
        // Without `first: 1` each blobs field would cost twice as much (9 × 2 = 18).
        assert!(document(1, 0, false, false).contains("first: 1"));
    }

    #[test]
    fn request_variables() {
        let body = request(
            "g/p",
            &[split("release", "2026/x"), split("release/2026", "x")],
            0,
            Some(RefType::Tags),
            false,
            true,
        );
        assert_eq!(body["variables"]["r1"], "release/2026");
        assert_eq!(body["variables"]["p1"], json!(["x"]));
        assert_eq!(body["variables"]["h1"], "refs/heads/release/2026");
        assert_eq!(body["variables"]["t0"], "refs/tags/release");
        assert_eq!(body["variables"]["refType"], "TAGS");
    }

    #[test]
    fn parse_answers() {
        let r: GraphqlResponse<Value> = serde_json::from_value(json!({"data": {"project": {
            "id": "gid://gitlab/Project/42", "fullPath": "g/p",
            "repository": {
                "b0": {"nodes": []}, "h0": {"sha": "abc"}, "t0": null,
                "b1": {"nodes": [{"path": "x", "size": "1", "rawSize": "1", "rawTextBlob": "x", "storedExternally": false, "externalStorage": null}]},
                "h1": null, "t1": null
            }}}})).unwrap();
        let p = parse(r, 2, 0, false).unwrap().unwrap();
        assert!(p.commit_known);
        assert_eq!(
            p.answers[0].evidence(),
            Evidence {
                ref_is_branch_or_tag: true,
                blob_found: false
            }
        );
        // h1/t1 are null (e.g. a short SHA, or commit(ref:) not taking qualified names), but a
        // blob was found there, so the ref exists.
        assert_eq!(p.answers[1].ref_is_branch_or_tag, Some(false));
        assert_eq!(
            p.answers[1].evidence(),
            Evidence {
                ref_is_branch_or_tag: true,
                blob_found: true
            }
        );
        let r: GraphqlResponse<Value> =
            serde_json::from_value(json!({"data": {"project": null}})).unwrap();
        assert!(parse(r, 1, 0, false).unwrap().is_none());
    }
}
