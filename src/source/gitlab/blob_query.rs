//! The one blob query (`graphql/blob.graphql`): one file (or several, `blobs(paths:)`) of one project, named by full path or
//! numeric id, with the project's Duo exclusion rules where the instance has them, with or
//! without the file's content; and what its answer says about the project ([`ProjectAnswer`])
//! and the blob (its `BlobFields` node).

use graphql_client::{GraphQLQuery, QueryBody};

use std::sync::LazyLock;

use super::capabilities::{EXCLUSIONS_FIELD, PERMALINK_FIELD};
use super::client::Client;
use super::error::{GitlabError, ShapeProblem, answer_data, answer_data_ignoring};
use super::graphql::variants::BLOB_WITHOUT_DUO_EXCLUSIONS_IF_SUPPORTED;
use super::graphql::{
    Blob as BlobQuery, BlobFields, blob, global_id_number, project_global_id, without_permalink,
};
use crate::config::Credential;
use crate::ref_name::RefType;
use crate::resolve::ProjectRef;

/// One file to ask for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BlobRequest<'a> {
    pub project: &'a ProjectRef,
    pub git_ref: &'a str,
    pub path: &'a str,
    pub ref_type: Option<RefType>,
}

/// Several files of one project at one ref, in one request (`blobs(paths:)`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PathsRequest<'a> {
    pub project: &'a ProjectRef,
    pub git_ref: &'a str,
    pub paths: &'a [&'a str],
    pub ref_type: Option<RefType>,
}

/// What a blob answer says about the project, whichever way it was named.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ProjectAnswer {
    /// The numeric id (from its global id).
    pub id: Option<u64>,
    pub full_path: String,
    /// The Duo exclusion rules; `None` when the instance has none to give.
    pub rules: Option<Vec<String>>,
    /// The blobs found at the ref and paths asked for.
    pub nodes: Vec<BlobFields>,
}

/// The blob documents without `permalinkPath`, with and without the exclusion rules.
static WITHOUT_PERMALINK: LazyLock<[String; 2]> = LazyLock::new(|| {
    [
        without_permalink(blob::QUERY),
        without_permalink(BLOB_WITHOUT_DUO_EXCLUSIONS_IF_SUPPORTED),
    ]
});

/// Asks for one file. `Ok(None)`: the project is missing or unreadable. The exclusion rules and
/// the permalink are asked for until the instance is seen to lack the field; then, from this
/// call on, never.
pub(crate) async fn ask(
    client: &Client,
    request: BlobRequest<'_>,
    with_content: bool,
    credential: Option<&Credential>,
) -> Result<Option<ProjectAnswer>, GitlabError> {
    let paths = [request.path];
    let request = PathsRequest {
        project: request.project,
        git_ref: request.git_ref,
        paths: &paths,
        ref_type: request.ref_type,
    };
    ask_paths(client, request, with_content, credential).await
}

/// Like [`ask`], for several paths of one project at one ref: the same document, the same
/// validation, one request.
pub(crate) async fn ask_paths(
    client: &Client,
    request: PathsRequest<'_>,
    with_content: bool,
    credential: Option<&Credential>,
) -> Result<Option<ProjectAnswer>, GitlabError> {
    // Each round that learns of an absent field stops asking for it, so with two optional
    // fields (the exclusion rules and the permalink) the third round at the latest answers.
    const ROUNDS: usize = 3;
    for _ in 0..ROUNDS {
        let caps = client.caps();
        let asked = Optional {
            rules: caps.exclusions.worth_asking(),
            permalink: caps.permalink.worth_asking(),
        };
        let answer = client
            .post(&body(request, asked, with_content), credential)
            .await?;
        let no_rules = asked.rules && answer.lacks_field(EXCLUSIONS_FIELD);
        let no_permalink = asked.permalink && answer.lacks_field(PERMALINK_FIELD);
        for (lacks, field, support) in [
            (no_rules, EXCLUSIONS_FIELD, &caps.exclusions),
            (no_permalink, PERMALINK_FIELD, &caps.permalink),
        ] {
            if lacks {
                tracing::info!("this GitLab has no {field}; not asking again");
                support.record(false);
            }
        }
        if no_rules || no_permalink {
            continue;
        }
        let data: blob::ResponseData = if asked.rules {
            caps.exclusions.record(true);
            answer_data_ignoring(answer, EXCLUSIONS_FIELD)?
        } else {
            answer_data(answer)?
        };
        return Ok(project_of(data).map(ProjectAnswer::from));
    }
    Err(ShapeProblem::FieldsStillAbsent { rounds: ROUNDS }.into())
}

/// Which optional fields a request asks for.
#[derive(Debug, Clone, Copy)]
struct Optional {
    rules: bool,
    permalink: bool,
}

/// The request body; without the optional fields the instance lacks.
fn body(
    request: PathsRequest<'_>,
    asked: Optional,
    with_content: bool,
) -> QueryBody<blob::Variables> {
    let (by_id, project_path, ids) = match request.project {
        ProjectRef::Path(p) => (false, Some(p.clone()), None),
        ProjectRef::Id(id) => (true, None, Some(vec![project_global_id(*id)])),
    };
    let mut body = BlobQuery::build_query(blob::Variables {
        by_id,
        project_path,
        ids,
        ref_: request.git_ref.to_string(),
        paths: request.paths.iter().map(|p| p.to_string()).collect(),
        ref_type: request.ref_type,
        with_content,
    });
    body.query = match (asked.rules, asked.permalink) {
        (true, true) => blob::QUERY,
        (false, true) => BLOB_WITHOUT_DUO_EXCLUSIONS_IF_SUPPORTED,
        (true, false) => &WITHOUT_PERMALINK[0],
        (false, false) => &WITHOUT_PERMALINK[1],
    };
    body
}

/// The project, from `project` (by path) or the first `projects` node (by id).
fn project_of(data: blob::ResponseData) -> Option<blob::ProjectBlob> {
    if let Some(project) = data.project {
        return Some(project);
    }
    data.projects?.nodes?.into_iter().flatten().next()
}

impl From<blob::ProjectBlob> for ProjectAnswer {
    fn from(p: blob::ProjectBlob) -> Self {
        let rules = p
            .duo_exclusions_if_supported
            .duo_context_exclusion_settings
            .and_then(|s| s.exclusion_rules);
        let nodes = p
            .repository
            .and_then(|r| r.blobs)
            .and_then(|b| b.nodes)
            .unwrap_or_default()
            .into_iter()
            .flatten()
            .collect();
        ProjectAnswer {
            id: global_id_number(&p.id),
            full_path: p.full_path,
            rules,
            nodes,
        }
    }
}

impl ProjectAnswer {
    /// The node for `path` (one path was asked for, so GitLab answers with at most one; an
    /// exact match is preferred should it ever answer more).
    pub(crate) fn take_node(&mut self, path: &str) -> Option<BlobFields> {
        let exact = self.nodes.iter().position(|n| n.path == path).unwrap_or(0);
        (exact < self.nodes.len()).then(|| self.nodes.swap_remove(exact))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_by_path_and_by_id() {
        let path = ProjectRef::Path("g/p".into());
        let request = PathsRequest {
            project: &path,
            git_ref: "main",
            paths: &["a.txt", "b/c.rs"],
            ref_type: Some(RefType::Tags),
        };
        let all = Optional {
            rules: true,
            permalink: true,
        };
        let v = serde_json::to_value(body(request, all, true)).unwrap();
        assert_eq!(v["variables"]["withContent"], true);
        assert_eq!(v["variables"]["projectPath"], "g/p");
        assert_eq!(v["variables"]["byId"], false);
        assert_eq!(v["variables"]["refType"], "TAGS");
        assert_eq!(
            v["variables"]["paths"],
            serde_json::json!(["a.txt", "b/c.rs"])
        );
        assert!(v["query"].as_str().unwrap().contains(EXCLUSIONS_FIELD));
        let id = ProjectRef::Id(42);
        let v = serde_json::to_value(body(
            PathsRequest {
                project: &id,
                ..request
            },
            Optional {
                rules: false,
                permalink: false,
            },
            false,
        ))
        .unwrap();
        assert_eq!(v["variables"]["withContent"], false);
        assert_eq!(
            v["variables"]["ids"],
            serde_json::json!(["gid://gitlab/Project/42"])
        );
        assert_eq!(v["variables"]["byId"], true);
        assert!(!v["query"].as_str().unwrap().contains(EXCLUSIONS_FIELD));
        assert!(!v["query"].as_str().unwrap().contains("  permalinkPath"));
    }
}
