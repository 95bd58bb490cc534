//! The one blob query (`graphql/blob.graphql`): one file (or several, `blobs(paths:)`) of one project, named by full path or
//! numeric id, with the project's Duo exclusion rules where the instance has them, with or
//! without the file's content; and what its answer says about the project ([`ProjectAnswer`])
//! and the blob (its `BlobFields` node).

use graphql_client::{GraphQLQuery, QueryBody};

use std::sync::LazyLock;

use super::capabilities::{EXCLUSIONS_FIELD, PERMALINK_FIELD, lacks_ref_type};
use super::connection::Connection;
use super::graphql::variants::BLOB_WITHOUT_DUO_EXCLUSIONS_IF_SUPPORTED;
use super::graphql::{
    Blob as BlobQuery, BlobFields, blob, global_id_number, project_global_id, without_permalink,
    without_ref_type,
};
use crate::config::Credential;
use crate::resolve::ProjectRef;
use crate::resolve::ref_name::{RefType, qualify_ref};
use crate::source::gitlab::wire::error::{GitlabError, ShapeProblem, answer_data_ignoring};
use crate::source::views::{Blamed, Commit};

/// One file to ask for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BlobRequest<'a> {
    pub project: &'a ProjectRef,
    pub git_ref: &'a str,
    pub path: &'a str,
    pub ref_type: Option<RefType>,
    /// Whether to ask for the file's `language` (an outline or a symbol parses it).
    pub language: bool,
    /// The lines to blame in the same request (the blame view), at most 100.
    pub blame: Option<(u64, u64)>,
    /// The other ref to read the file at in the same request (the diff view).
    pub base_ref: Option<&'a str>,
}

/// Several files of one project at one ref, in one request (`blobs(paths:)`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PathsRequest<'a> {
    pub project: &'a ProjectRef,
    pub git_ref: &'a str,
    pub paths: &'a [&'a str],
    pub ref_type: Option<RefType>,
    /// Whether to ask for the files' `language`.
    pub language: bool,
    /// The lines of the (one) file to blame in the same request, at most 100.
    pub blame: Option<(u64, u64)>,
    /// The other ref to read the files at in the same request.
    pub base_ref: Option<&'a str>,
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
    /// The blame of the lines asked (`None`: not asked, or no such file).
    pub blamed: Option<Blamed>,
    /// What the other ref asked holds at the path: `Some(None)` no blob, `None` not asked or
    /// not answered (GitLab refused that field: an invalid ref, say).
    pub base: Option<Option<Box<BlobFields>>>,
}

/// The alias under which the blob query blames the lines asked.
const BLAMED_FIELD: &str = "blamed";
/// The alias under which the blob query reads the paths at the other ref asked.
const BASE_FIELD: &str = "base";

/// The blob document for every combination of optional parts, by [`Optional::index`].
static DOCUMENTS: LazyLock<[String; 8]> =
    LazyLock::new(|| std::array::from_fn(|i| document(Optional::of_index(i))));

/// The blob document asking for the optional parts `asked` names.
fn document(asked: Optional) -> String {
    let mut document = match asked.rules {
        true => blob::QUERY.to_string(),
        false => BLOB_WITHOUT_DUO_EXCLUSIONS_IF_SUPPORTED.to_string(),
    };
    if !asked.permalink {
        document = without_permalink(&document);
    }
    if !asked.ref_type {
        document = without_ref_type(&document);
    }
    document
}

/// Every blob document this module may send, named by what it leaves out (for the schema and
/// cost tests).
pub(crate) fn documents() -> Vec<(String, String)> {
    (0..8)
        .map(|i| {
            let asked = Optional::of_index(i);
            (format!("Blob {asked:?}"), DOCUMENTS[i].clone())
        })
        .collect()
}

/// Asks for one file. `Ok(None)`: the project is missing or unreadable. The exclusion rules and
/// the permalink are asked for until the instance is seen to lack the field; then, from this
/// call on, never.
pub(crate) async fn ask_file(
    connection: &Connection,
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
        language: request.language,
        blame: request.blame,
        base_ref: request.base_ref,
    };
    ask_paths(connection, request, with_content, credential).await
}

/// Like [`ask_file`], for several paths of one project at one ref: the same document, the same
/// validation, one request.
pub(crate) async fn ask_paths(
    connection: &Connection,
    request: PathsRequest<'_>,
    with_content: bool,
    credential: Option<&Credential>,
) -> Result<Option<ProjectAnswer>, GitlabError> {
    // Each round that learns of an absent part stops asking for it, so with three optional
    // parts (the exclusion rules, the permalink, the ref type) the fourth round at the latest
    // answers.
    const ROUNDS: usize = 4;
    for _ in 0..ROUNDS {
        let caps = connection.caps();
        let asked = Optional {
            rules: caps.exclusions.worth_asking(),
            permalink: caps.permalink.worth_asking(),
            ref_type: caps.ref_type.worth_asking(),
        };
        let answer = connection
            .post(&body(request, asked, with_content), credential)
            .await?;
        let no_rules = asked.rules && answer.lacks_field(EXCLUSIONS_FIELD);
        let no_permalink = asked.permalink && answer.lacks_field(PERMALINK_FIELD);
        let no_ref_type = asked.ref_type && lacks_ref_type(answer.errors());
        for (lacks, field, support) in [
            (no_rules, EXCLUSIONS_FIELD, &caps.exclusions),
            (no_permalink, PERMALINK_FIELD, &caps.permalink),
            (no_ref_type, "RefType", &caps.ref_type),
        ] {
            if lacks {
                tracing::info!("this GitLab has no {field}; not asking again");
                support.record(false);
            }
        }
        if no_rules || no_permalink || no_ref_type {
            continue;
        }
        if asked.rules {
            caps.exclusions.record(true);
        }
        // Rules a user may not read, and a blame or another ref's file GitLab cannot give
        // (the view then asks it alone, and says why: "Ref 'x' is not valid" names its ref),
        // leave the file readable.
        let ignorable = [
            (asked.rules, EXCLUSIONS_FIELD),
            (request.blame.is_some(), BLAMED_FIELD),
            (request.base_ref.is_some(), BASE_FIELD),
        ];
        let ignorable: Vec<&str> = ignorable.iter().filter(|i| i.0).map(|i| i.1).collect();
        let data: blob::ResponseData = answer_data_ignoring(answer, &ignorable)?;
        let blame = request.blame;
        return Ok(project_of(data).map(|p| ProjectAnswer::of(p, blame)));
    }
    Err(ShapeProblem::FieldsStillAbsent { rounds: ROUNDS }.into())
}

/// Which optional parts a request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Optional {
    rules: bool,
    permalink: bool,
    /// The `$refType` variable (else the ref is qualified in the `ref` string).
    ref_type: bool,
}

impl Optional {
    /// The combination numbered `i` (bit 0 rules, 1 permalink, 2 ref type).
    fn of_index(i: usize) -> Self {
        Self {
            rules: i & 1 != 0,
            permalink: i & 2 != 0,
            ref_type: i & 4 != 0,
        }
    }

    fn index(self) -> usize {
        usize::from(self.rules) | usize::from(self.permalink) << 1 | usize::from(self.ref_type) << 2
    }
}

/// The request body; without the optional parts the instance lacks (without `refType`, the
/// ref qualified as GitLab would qualify it).
fn body(
    request: PathsRequest<'_>,
    asked: Optional,
    with_content: bool,
) -> QueryBody<blob::Variables> {
    let (by_id, project_path, ids) = match request.project {
        ProjectRef::Path(p) => (false, Some(p.clone()), None),
        ProjectRef::Id(id) => (true, None, Some(vec![project_global_id(*id)])),
    };
    let (ref_, ref_type) = match asked.ref_type {
        true => (request.git_ref.to_string(), request.ref_type),
        false => (qualify_ref(request.git_ref, request.ref_type), None),
    };
    let mut body = BlobQuery::build_query(blob::Variables {
        by_id,
        project_path,
        ids,
        ref_,
        paths: request.paths.iter().map(|p| p.to_string()).collect(),
        ref_type,
        with_content,
        with_language: request.language,
        with_blame: request.blame.map(|_| true),
        blame_from: request.blame.map(|(from, _)| from as i64),
        blame_to: request.blame.map(|(_, to)| to as i64),
        with_base: request.base_ref.map(|_| true),
        base_ref: request.base_ref.map(str::to_string),
    });
    body.query = &DOCUMENTS[asked.index()];
    body
}

/// The project, from `project` (by path) or the first `projects` node (by id).
fn project_of(data: blob::ResponseData) -> Option<blob::ProjectBlob> {
    if let Some(project) = data.project {
        return Some(project);
    }
    data.projects?.nodes?.into_iter().flatten().next()
}

impl ProjectAnswer {
    /// The answer about project `p`, with the blame of the lines `blame` asked.
    fn of(mut p: blob::ProjectBlob, blame: Option<(u64, u64)>) -> Self {
        let blamed = blame.and_then(|lines| blamed(p.repository.as_ref()?, lines));
        let base = p.repository.as_mut().and_then(|r| r.base.take()).map(|b| {
            let nodes = b.nodes.unwrap_or_default();
            nodes.into_iter().flatten().next().map(Box::new)
        });
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
            blamed,
            base,
        }
    }

    /// The node for `path` (one path was asked for, so GitLab answers with at most one; an
    /// exact match is preferred should it ever answer more).
    pub(crate) fn take_node(&mut self, path: &str) -> Option<BlobFields> {
        let exact = self.nodes.iter().position(|n| n.path == path).unwrap_or(0);
        (exact < self.nodes.len()).then(|| self.nodes.swap_remove(exact))
    }
}

/// The blame the `blamed` field answered for the lines `first..=last`.
fn blamed(repository: &blob::ProjectBlobRepository, (first, last): (u64, u64)) -> Option<Blamed> {
    let node = repository
        .blamed
        .as_ref()?
        .nodes
        .as_ref()?
        .iter()
        .flatten()
        .next()?;
    let groups = node.blame.as_ref()?.groups.as_ref()?.iter().map(|g| {
        let c = &g.commit;
        let commit = Commit {
            sha: c.sha.clone(),
            title: c.title.clone().unwrap_or_default(),
            author_name: c.author_name.clone().unwrap_or_default(),
            authored_date: c.authored_date.clone().unwrap_or_default(),
            parent_sha: c.parent_sha.clone(),
            web_url: Some(c.web_url.clone()),
        };
        (g.lineno as u64, g.span as u64, commit)
    });
    Some(Blamed::of_groups(groups.collect()).within(first, last))
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
            language: false,
            blame: None,
            base_ref: None,
        };
        let all = Optional {
            rules: true,
            permalink: true,
            ref_type: true,
        };
        let v = serde_json::to_value(body(request, all, true)).unwrap();
        assert_eq!(v["variables"]["withContent"], true);
        assert_eq!(v["variables"]["withLanguage"], false);
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
                language: true,
                blame: None,
                base_ref: None,
                ..request
            },
            Optional {
                rules: false,
                permalink: false,
                ref_type: true,
            },
            false,
        ))
        .unwrap();
        assert_eq!(v["variables"]["withContent"], false);
        assert_eq!(v["variables"]["withLanguage"], true);
        assert_eq!(
            v["variables"]["ids"],
            serde_json::json!(["gid://gitlab/Project/42"])
        );
        assert_eq!(v["variables"]["byId"], true);
        assert!(!v["query"].as_str().unwrap().contains(EXCLUSIONS_FIELD));
        assert!(!v["query"].as_str().unwrap().contains("  permalinkPath"));
    }

    #[test]
    fn without_ref_type_the_ref_is_qualified_in_the_ref_string() {
        let path = ProjectRef::Path("g/p".into());
        let request = |ref_type| PathsRequest {
            project: &path,
            git_ref: "v1",
            paths: &["a.txt"],
            ref_type,
            language: false,
            blame: None,
            base_ref: None,
        };
        let old = Optional {
            rules: false,
            permalink: false,
            ref_type: false,
        };
        for (ref_type, sent) in [
            (Some(RefType::Tags), "refs/tags/v1"),
            (Some(RefType::Heads), "refs/heads/v1"),
            (None, "v1"),
        ] {
            let v = serde_json::to_value(body(request(ref_type), old, true)).unwrap();
            assert_eq!(v["variables"]["ref"], sent);
            assert!(v["variables"].get("refType").is_none(), "{v}");
            assert!(!v["query"].as_str().unwrap().contains("efType"), "{v}");
        }
    }

    #[test]
    fn every_combination_has_its_document() {
        for i in 0..8 {
            let asked = Optional::of_index(i);
            assert_eq!(asked.index(), i);
            let d = &DOCUMENTS[i];
            assert_eq!(
                d.contains("duoContextExclusionSettings"),
                asked.rules,
                "{d}"
            );
            assert_eq!(d.contains("  permalinkPath"), asked.permalink, "{d}");
            assert_eq!(d.contains("$refType"), asked.ref_type, "{d}");
        }
        assert_eq!(documents().len(), 8);
    }
}
