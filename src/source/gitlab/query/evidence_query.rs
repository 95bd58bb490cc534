//! The request that resolves a URL's ambiguous "ref/path": for every candidate split
//! (`release` + `2026/q4/x.rs`, `release/2026` + `q4/x.rs`, …) an aliased `blobs` field, and,
//! where the instance has `Repository.commit`, whether the candidate ref is a branch
//! (`refs/heads/…`) or a tag (`refs/tags/…`), the evidence GitLab's ExtractsRef rules need.
//!
//! The document is built at run time because the number of aliases varies; its shape is fixed,
//! its blob fields are the `BlobFields` fragment of `graphql/blob.graphql`, and
//! `tests/it/gitlab/graphql_schema.rs` validates generated documents against GitLab's full schema.

use serde_json::{Map, Value, json};

use super::blob_query::ProjectAnswer;
use super::capabilities::{
    COMMIT_FIELD, EXCLUSIONS_FIELD, MAX_CANDIDATES_PER_REQUEST, PERMALINK_FIELD, lacks_ref_type,
    too_costly,
};
use super::connection::Connection;
use super::graphql::fragments::{BLOB_FIELDS, DUO_EXCLUSIONS_IF_SUPPORTED};
use super::graphql::{BlobFields, global_id_number, without_permalink};
use crate::config::Credential;
use crate::resolve::Candidate;
use crate::resolve::choice::Evidence;
use crate::resolve::ref_name::{RefType, qualify_ref};
use crate::source::gitlab::wire::envelope::{GraphqlError, GraphqlResponse};
use crate::source::gitlab::wire::error::{
    GitlabError, ShapeProblem, answer_data, answer_data_ignoring,
};

/// Candidates asked for in one request at most, chosen to stay inside GitLab's query complexity
/// limits (250 points authenticated, 200 anonymous; `tests/it/gitlab/query_cost.rs` counts it). An
/// instance that counts dearer is asked fewer per request once it refuses ([`too_costly`]).
pub(crate) const MAX_PER_REQUEST: usize = MAX_CANDIDATES_PER_REQUEST;

/// What one candidate's aliases answered.
#[derive(Debug, Clone)]
pub(crate) struct CandidateAnswer {
    /// The blob at this candidate's ref and path, if there is one.
    pub node: Option<BlobFields>,
    /// Whether the candidate ref is a branch or tag; `None` when the instance cannot say
    /// (no `Repository.commit`).
    pub ref_is_branch_or_tag: Option<bool>,
}

impl CandidateAnswer {
    /// The evidence for `choice::choose`. A found blob also counts as an existing ref (a
    /// blob can only be found at a ref that exists), which covers instances without ref lookups
    /// and any whose `commit(ref:)` does not take fully qualified `refs/heads/…` names.
    pub(crate) fn evidence(&self) -> Evidence {
        let blob_found = self.node.is_some();
        Evidence {
            ref_is_branch_or_tag: self.ref_is_branch_or_tag.unwrap_or(false) || blob_found,
            blob_found,
        }
    }
}

/// Every candidate's answer, and the project (its `nodes` unused: the answers hold the blobs).
#[derive(Debug)]
pub(crate) struct CandidatesAnswer {
    pub project: ProjectAnswer,
    pub answers: Vec<CandidateAnswer>,
}

/// What one batch's request asks for besides the blobs' metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Extras {
    /// The project's Duo exclusion rules (asked in the first batch only).
    pub rules: bool,
    /// The branch/tag lookups per candidate.
    pub commit: bool,
    /// The blobs' content (not when the blob last named is cached).
    pub content: bool,
    /// The blobs' `language` (for an outline or a symbol).
    pub language: bool,
    /// The blobs' `permalinkPath` (unless the instance lacks the field).
    pub permalink: bool,
    /// The `$refType` variable (unless the instance lacks `RefType`: the refs are then
    /// qualified in the `ref` strings).
    pub ref_type: bool,
}

/// Asks about every candidate, at most [`MAX_PER_REQUEST`] per request. `Ok(None)`: the project
/// is missing or unreadable. When an answer shows the instance lacks an optional field, the
/// field is remembered as absent and the batches are asked again without it; when it finds a
/// request too costly, the instance is asked half as many candidates per request from then on.
pub(crate) async fn ask_candidates(
    connection: &Connection,
    asked: CandidatesAsked<'_>,
    credential: Option<&Credential>,
) -> Result<Option<CandidatesAnswer>, GitlabError> {
    // Each round that learns of an absent field stops asking for it, and each that finds a
    // request too costly halves the candidates per request: with four optional parts (the ref
    // lookups, the exclusion rules, the permalink, the ref type) and 8 → 4 → 2 → 1 candidates,
    // the eighth round at the latest answers.
    const ROUNDS: usize = 8;
    for _ in 0..ROUNDS {
        if let Batches::Answered(answer) = ask_batches(connection, asked, credential).await? {
            return Ok(answer);
        }
    }
    Err(ShapeProblem::FieldsStillAbsent { rounds: ROUNDS }.into())
}

/// The question, as every batch asks it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CandidatesAsked<'a> {
    pub project_path: &'a str,
    pub candidates: &'a [Candidate],
    pub ref_type: Option<RefType>,
    /// Whether to ask for the blobs' content.
    pub content: bool,
    /// Whether to ask for the blobs' `language`.
    pub language: bool,
}

enum Batches {
    Answered(Option<CandidatesAnswer>),
    /// An optional field turned out to be absent, or a request too costly (now remembered):
    /// ask again.
    Learned,
}

async fn ask_batches(
    connection: &Connection,
    asked: CandidatesAsked<'_>,
    credential: Option<&Credential>,
) -> Result<Batches, GitlabError> {
    let caps = connection.caps();
    let mut project: Option<ProjectAnswer> = None;
    let mut answers: Vec<CandidateAnswer> = Vec::with_capacity(asked.candidates.len());
    for batch in asked.candidates.chunks(caps.candidates.get()) {
        let extras = Extras {
            rules: caps.exclusions.worth_asking() && project.is_none(),
            commit: caps.commit.worth_asking(),
            content: asked.content,
            language: asked.language,
            permalink: caps.permalink.worth_asking(),
            ref_type: caps.ref_type.worth_asking(),
        };
        let offset = answers.len();
        let body = request(asked.project_path, batch, offset, asked.ref_type, extras);
        let r: GraphqlResponse<Value> = connection.post(&body, credential).await?;
        if learned_absent_fields(connection, &r, extras)
            || (too_costly(&r.error_messages().unwrap_or_default())
                && caps.candidates.shrink_below(batch.len()))
        {
            return Ok(Batches::Learned);
        }
        let Some(parsed) = parse(r, batch.len(), offset, extras)? else {
            return Ok(Batches::Answered(None));
        };
        if extras.rules {
            caps.exclusions.record(true);
        }
        if extras.commit && parsed.commit_known {
            caps.commit.record(true);
        }
        project.get_or_insert(parsed.project);
        answers.extend(parsed.answers);
    }
    Ok(Batches::Answered(
        project.map(|project| CandidatesAnswer { project, answers }),
    ))
}

/// Records the optional fields an answer says the instance lacks; true if there were any.
fn learned_absent_fields(
    connection: &Connection,
    r: &GraphqlResponse<Value>,
    extras: Extras,
) -> bool {
    let no_rules = extras.rules && r.lacks_field(EXCLUSIONS_FIELD);
    let no_commit = extras.commit && r.lacks_field(COMMIT_FIELD);
    let no_permalink = extras.permalink && r.lacks_field(PERMALINK_FIELD);
    let no_ref_type = extras.ref_type && lacks_ref_type(r.errors());
    if no_ref_type {
        tracing::info!("this GitLab has no RefType; qualifying refs instead");
        connection.caps().ref_type.record(false);
    }
    if no_rules {
        connection.caps().exclusions.record(false);
    }
    if no_commit {
        connection.caps().commit.record(false);
    }
    if no_permalink {
        connection.caps().permalink.record(false);
    }
    no_rules || no_commit || no_permalink || no_ref_type
}

/// The GraphQL document for `count` candidates numbered from `offset`.
pub(crate) fn document(count: usize, offset: usize, extras: Extras) -> String {
    let (ref_type_var, ref_type_arg) = match extras.ref_type {
        true => (", $refType: RefType", ", refType: $refType"),
        false => ("", ""),
    };
    let mut vars =
        format!("$projectPath: ID!{ref_type_var}, $withContent: Boolean!, $withLanguage: Boolean!");
    let mut fields = String::new();
    for i in offset..offset + count {
        vars.push_str(&format!(", $r{i}: String!, $p{i}: [String!]!"));
        fields.push_str(&format!(
            " b{i}: blobs(ref: $r{i}, paths: $p{i}{ref_type_arg}, first: 1) {{ nodes {{ ...BlobFields }} }}"
        ));
        if extras.commit {
            vars.push_str(&format!(", $h{i}: String!, $t{i}: String!"));
            fields.push_str(&format!(
                " h{i}: commit(ref: $h{i}) {{ sha }} t{i}: commit(ref: $t{i}) {{ sha }}"
            ));
        }
    }
    let (spread, fragment) = if extras.rules {
        (
            " ...DuoExclusionsIfSupported",
            format!(" {DUO_EXCLUSIONS_IF_SUPPORTED}"),
        )
    } else {
        ("", String::new())
    };
    let blob_fields = match extras.permalink {
        true => BLOB_FIELDS.to_string(),
        false => without_permalink(BLOB_FIELDS),
    };
    format!(
        "query BlobBySplits({vars}) {{ project(fullPath: $projectPath) {{ id fullPath{spread} repository {{{fields} }} }} }} {blob_fields}{fragment}"
    )
}

/// The request body (query, variables, operationName) for a batch of candidates.
pub(crate) fn request(
    project_path: &str,
    batch: &[Candidate],
    offset: usize,
    ref_type: Option<RefType>,
    extras: Extras,
) -> Value {
    let mut variables = Map::new();
    variables.insert("projectPath".into(), json!(project_path));
    if extras.ref_type {
        variables.insert("refType".into(), json!(ref_type));
    }
    variables.insert("withContent".into(), json!(extras.content));
    variables.insert("withLanguage".into(), json!(extras.language));
    for (k, split) in batch.iter().enumerate() {
        let i = offset + k;
        let git_ref = match extras.ref_type {
            true => split.git_ref.clone(),
            false => qualify_ref(&split.git_ref, ref_type),
        };
        variables.insert(format!("r{i}"), json!(git_ref));
        variables.insert(format!("p{i}"), json!([split.path]));
        if extras.commit {
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
        "query": document(batch.len(), offset, extras),
        "variables": variables,
        "operationName": "BlobBySplits",
    })
}

/// A parsed answer for one batch.
#[derive(Debug)]
pub(crate) struct ParsedBatch {
    pub project: ProjectAnswer,
    pub answers: Vec<CandidateAnswer>,
    /// True when the answer carried the commit lookups.
    pub commit_known: bool,
}

/// Reads a batch's answer. `Ok(None)`: the project is missing or unreadable. An error confined
/// to one candidate's aliases (GitLab's "Ref is not valid" for a ref no split should have) only
/// means that candidate has no blob and is no branch or tag; see [`without_alias_errors`].
pub(crate) fn parse(
    r: GraphqlResponse<Value>,
    count: usize,
    offset: usize,
    extras: Extras,
) -> Result<Option<ParsedBatch>, GitlabError> {
    let r = without_alias_errors(r, count, offset);
    let mut data = if extras.rules {
        answer_data_ignoring(r, &[EXCLUSIONS_FIELD])?
    } else {
        answer_data(r)?
    };
    let Some(project) = data.get_mut("project").filter(|p| !p.is_null()) else {
        return Ok(None);
    };
    let mut repo = project.get_mut("repository").map(Value::take);
    let mut answers = Vec::with_capacity(count);
    let mut commit_known = false;
    for i in offset..offset + count {
        let node = take_node(repo.as_mut(), i)?;
        let ref_is_branch_or_tag = branch_or_tag(repo.as_ref(), i);
        commit_known |= ref_is_branch_or_tag.is_some();
        answers.push(CandidateAnswer {
            node,
            ref_is_branch_or_tag,
        });
    }
    Ok(Some(ParsedBatch {
        project: project_of(project),
        answers,
        commit_known,
    }))
}

/// `r` without the errors whose `path` runs through one candidate's alias (`b{i}`, `h{i}`,
/// `t{i}`): the alias's field is null in the data, which reads as "no blob" / "not a branch or
/// tag". When every candidate's blob alias failed, nothing is dropped, so the errors are
/// reported as before.
fn without_alias_errors(
    mut r: GraphqlResponse<Value>,
    count: usize,
    offset: usize,
) -> GraphqlResponse<Value> {
    let candidate_of = |e: &GraphqlError| {
        e.path.as_deref().and_then(|path| {
            path.iter()
                .filter_map(Value::as_str)
                .find_map(|segment| alias_index(segment, offset..offset + count))
        })
    };
    let Some(errors) = r.errors.take() else {
        return r;
    };
    let blob_failed = |i: usize| {
        let alias = format!("b{i}");
        errors.iter().any(|e| e.is_under(&alias))
    };
    if (offset..offset + count).all(blob_failed) {
        r.errors = Some(errors);
        return r;
    }
    let (per_alias, rest): (Vec<_>, Vec<_>) =
        errors.into_iter().partition(|e| candidate_of(e).is_some());
    if !per_alias.is_empty() {
        tracing::debug!(
            ?per_alias,
            "GitLab refused some URL-split candidates; using the others"
        );
    }
    r.errors = (!rest.is_empty()).then_some(rest);
    r
}

/// `i` when `segment` is `b{i}`, `h{i}` or `t{i}` for an `i` in `range`.
fn alias_index(segment: &str, range: std::ops::Range<usize>) -> Option<usize> {
    let digits = segment.strip_prefix(['b', 'h', 't'])?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|i| range.contains(i))
}

/// The project's id, full path and rules (the blobs are in the per-candidate answers).
fn project_of(project: &Value) -> ProjectAnswer {
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
    ProjectAnswer {
        id: global_id_number(&text(project.get("id"))),
        full_path: text(project.get("fullPath")),
        rules,
        nodes: Vec::new(),
        blamed: None,
        base: None,
    }
}

/// Candidate `i`'s blob, taken (not cloned: a node may hold a 10 MiB file).
fn take_node(repo: Option<&mut Value>, i: usize) -> Result<Option<BlobFields>, GitlabError> {
    repo.and_then(|r| r.get_mut(format!("b{i}")))
        .and_then(|b| b.get_mut("nodes"))
        .and_then(Value::as_array_mut)
        .and_then(|nodes| nodes.iter_mut().find(|n| !n.is_null()))
        .map(|n| serde_json::from_value::<BlobFields>(n.take()))
        .transpose()
        .map_err(|e| ShapeProblem::Blob(crate::base::cause::Shared::new(e)).into())
}

/// Whether candidate `i`'s ref is a branch or tag; `None` when the answer has no lookups.
fn branch_or_tag(repo: Option<&Value>, i: usize) -> Option<bool> {
    let field = |name: String| repo.and_then(|r| r.get(&name));
    let heads = field(format!("h{i}"));
    let tags = field(format!("t{i}"));
    (heads.is_some() || tags.is_some())
        .then(|| heads.is_some_and(|v| !v.is_null()) || tags.is_some_and(|v| !v.is_null()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(r: &str, p: &str) -> Candidate {
        Candidate {
            git_ref: r.into(),
            path: p.into(),
        }
    }

    const ALL: Extras = Extras {
        rules: true,
        commit: true,
        content: true,
        language: true,
        permalink: true,
        ref_type: true,
    };
    const NONE: Extras = Extras {
        rules: false,
        commit: false,
        content: false,
        language: false,
        permalink: false,
        ref_type: false,
    };

    #[test]
    fn document_shape() {
        let d = document(2, 3, ALL);
        assert!(d.starts_with("query BlobBySplits($projectPath: ID!, $refType: RefType, $withContent: Boolean!, $withLanguage: Boolean!, $r3: String!, $p3: [String!]!, $h3: String!, $t3: String!, $r4"), "{d}");
        assert!(d.contains("b4: blobs(ref: $r4, paths: $p4, refType: $refType, first: 1)"));
        assert!(d.contains("duoContextExclusionSettings"));
        assert!(d.contains("fragment BlobFields on RepositoryBlob"));
        assert!(d.contains("permalinkPath"), "{d}");
        let d = document(1, 0, NONE);
        assert!(!d.contains("commit") && !d.contains("duoContext"), "{d}");
        assert!(
            !d.contains("efType") && d.contains("b0: blobs(ref: $r0, paths: $p0, first: 1)"),
            "{d}"
        );
        assert!(!d.contains("permalinkPath") && d.contains("lfsOid"), "{d}");
    }

    #[test]
    fn each_candidate_asks_for_one_blob() {
        // Without `first: 1` each blobs field would cost twice as much (GitLab's connection
        // rule); tests/it/gitlab/query_cost.rs scores the documents as sent.
        assert!(document(1, 0, NONE).contains("first: 1"));
    }

    #[test]
    fn request_variables() {
        let body = request(
            "g/p",
            &[split("release", "2026/x"), split("release/2026", "x")],
            0,
            Some(RefType::Tags),
            Extras {
                rules: false,
                commit: true,
                content: false,
                language: false,
                permalink: true,
                ref_type: true,
            },
        );
        assert_eq!(body["variables"]["r1"], "release/2026");
        assert_eq!(body["variables"]["p1"], json!(["x"]));
        assert_eq!(body["variables"]["h1"], "refs/heads/release/2026");
        assert_eq!(body["variables"]["t0"], "refs/tags/release");
        assert_eq!(body["variables"]["refType"], "TAGS");
        assert_eq!(body["variables"]["withContent"], false);
        assert_eq!(body["variables"]["withLanguage"], false);
        // Without RefType on the instance, the hint is in the ref string instead.
        let old = Extras {
            ref_type: false,
            ..NONE
        };
        let body = request("g/p", &[split("v1", "x")], 0, Some(RefType::Tags), old);
        assert_eq!(body["variables"]["r0"], "refs/tags/v1");
        assert!(body["variables"].get("refType").is_none());
        let body = request("g/p", &[split("v1", "x")], 0, None, old);
        assert_eq!(body["variables"]["r0"], "v1");
    }

    #[test]
    fn parse_answers() {
        let r: GraphqlResponse<Value> = serde_json::from_value(json!({"data": {"project": {
            "id": "gid://gitlab/Project/42", "fullPath": "g/p",
            "repository": {
                "b0": {"nodes": []}, "h0": {"sha": "abc"}, "t0": null,
                "b1": {"nodes": [{"oid": "1", "path": "x", "size": "1", "rawSize": "1", "rawTextBlob": "x", "storedExternally": false, "externalStorage": null}]},
                "h1": null, "t1": null
            }}}})).unwrap();
        let p = parse(r, 2, 0, NONE).unwrap().unwrap();
        assert!(p.commit_known);
        assert_eq!(p.project.id, Some(42));
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
        assert!(parse(r, 1, 0, NONE).unwrap().is_none());
    }

    fn invalid_ref_at(alias: &str) -> Value {
        json!({"message": "Ref is not valid", "locations": [{"line": 1, "column": 99}],
               "path": ["project", "repository", alias]})
    }

    #[test]
    fn an_error_on_one_candidates_aliases_does_not_fail_the_others() {
        let r: GraphqlResponse<Value> = serde_json::from_value(json!({
            "errors": [invalid_ref_at("b4"), invalid_ref_at("h4"), invalid_ref_at("t4")],
            "data": {"project": {
            "id": "gid://gitlab/Project/42", "fullPath": "g/p",
            "repository": {
                "b3": {"nodes": [{"oid": "1", "path": "dir with space/f", "size": "1", "rawSize": "1", "rawTextBlob": "x", "storedExternally": false, "externalStorage": null}]},
                "h3": {"sha": "abc"}, "t3": null,
                "b4": null, "h4": null, "t4": null
            }}}})).unwrap();
        let p = parse(r, 2, 3, ALL).unwrap().unwrap();
        assert!(p.answers[0].node.is_some());
        assert!(p.answers[1].node.is_none());
        assert_eq!(p.answers[1].ref_is_branch_or_tag, Some(false));
    }

    #[test]
    fn errors_on_every_candidate_or_elsewhere_still_fail() {
        let all: GraphqlResponse<Value> = serde_json::from_value(json!({
            "errors": [invalid_ref_at("b0"), invalid_ref_at("b1")],
            "data": {"project": {"id": "gid://gitlab/Project/42", "fullPath": "g/p",
                "repository": {"b0": null, "b1": null}}}}))
        .unwrap();
        assert!(matches!(
            parse(all, 2, 0, NONE),
            Err(GitlabError::InvalidRef { .. })
        ));
        let elsewhere: GraphqlResponse<Value> = serde_json::from_value(json!({
            "errors": [invalid_ref_at("b0"), {"message": "boom", "path": ["project"]}],
            "data": {"project": null}}))
        .unwrap();
        assert!(matches!(
            parse(elsewhere, 2, 0, NONE),
            Err(GitlabError::Graphql { .. })
        ));
        // Aliases of another batch are not this batch's.
        assert_eq!(alias_index("b12", 8..16), Some(12));
        assert_eq!(alias_index("b2", 8..16), None);
        assert_eq!(alias_index("blobs", 0..8), None);
        assert_eq!(alias_index("h", 0..8), None);
    }
}
