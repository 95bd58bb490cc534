//! Reading one file from GitLab: the single blob query (by full path or by numeric id, with the
//! project's Duo exclusion rules where the instance has them), the follow-up query that tells a
//! missing ref from a missing path, and the mapping of GitLab's answers to our types.
//!
//! A successful call costs exactly one request. Which optional fields the instance knows
//! (`duoContextExclusionSettings`, `Repository.commit`) is detected on first use and remembered.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use graphql_client::GraphQLQuery;

use super::operations::{
    BlobById, BlobByIdWithExclusions, BlobByPath, BlobByPathWithExclusions, RefCommit, RefTree,
    blob_by_id, blob_by_id_with_exclusions, blob_by_path, blob_by_path_with_exclusions, ref_commit,
    ref_tree,
};
use super::splits::{self, SplitAnswer};
use super::transport::{GraphqlError, GraphqlResponse, Transport};
use crate::config::Credential;
use crate::exclusion::is_excluded;
use crate::resolve::{Lookup, ProjectRef, Target};
use crate::source::{Blob, BlobKind, SourceError};
use crate::url::{Choice, RefType, Split, qualify_ref};

/// Whether the instance has an optional schema field: not yet known, yes, no.
#[derive(Debug, Default)]
pub struct Support(AtomicU8);

impl Support {
    // 0 (the default) means not yet known.
    const YES: u8 = 1;
    const NO: u8 = 2;

    /// True unless we have seen the instance reject the field.
    pub fn maybe(&self) -> bool {
        self.0.load(Ordering::Relaxed) != Self::NO
    }
    fn set(&self, yes: bool) {
        self.0
            .store(if yes { Self::YES } else { Self::NO }, Ordering::Relaxed);
    }
}

/// What the instance supports, shared by every call.
#[derive(Debug, Default)]
pub struct Capabilities {
    /// `Project.duoContextExclusionSettings` (GitLab EE 18.2+).
    pub exclusions: Support,
    /// `Repository.commit(ref:)`.
    pub commit: Support,
}

/// A blob plus what GitLab told us about its project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    pub blob: Blob,
    /// The project's numeric id (from its global id).
    pub project_id: Option<u64>,
    /// The project's full path.
    pub project_path: String,
    /// For a URL whose ref/path GitLab would have split differently: the ref GitLab would
    /// have used (and failed with).
    pub split_fallback_from: Option<String>,
}

/// The GitLab source: one transport plus remembered capabilities.
#[derive(Debug, Clone)]
pub struct GitlabSource {
    transport: Transport,
    caps: Arc<Capabilities>,
}

/// The project part of a blob answer, the same whichever of the four operations produced it.
#[derive(Debug, Default)]
struct ProjectAnswer {
    id: String,
    full_path: String,
    rules: Option<Vec<String>>,
    nodes: Vec<BlobNode>,
}

/// The blob fields we ask for (the `BlobFields` fragment).
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlobNode {
    pub path: String,
    pub size: Option<super::scalars::BigInt>,
    pub raw_size: Option<super::scalars::BigInt>,
    pub raw_text_blob: Option<super::scalars::BlobText>,
    pub stored_externally: Option<bool>,
    pub external_storage: Option<String>,
}

/// Whether a generated `dir: tree(ref:, path:)` answer lists any entry: git stores no empty
/// directories, so a path with entries is a directory.
macro_rules! has_entries {
    ($d:expr) => {{
        let d = $d;
        d.trees
            .nodes
            .is_some_and(|n| n.iter().flatten().next().is_some())
            || d.blobs
                .nodes
                .is_some_and(|n| n.iter().flatten().next().is_some())
    }};
}

/// Our [`RefType`] → the generated `RefType` of operation module `$m`.
macro_rules! ref_type {
    ($m:ident, $t:expr) => {
        $t.map(|t| match t {
            RefType::Heads => $m::RefType::HEADS,
            RefType::Tags => $m::RefType::TAGS,
        })
    };
}

macro_rules! blob_node {
    ($n:expr) => {{
        let n = $n;
        BlobNode {
            path: n.path,
            size: n.size,
            raw_size: n.raw_size,
            raw_text_blob: n.raw_text_blob,
            stored_externally: n.stored_externally,
            external_storage: n.external_storage,
        }
    }};
}

/// A generated project type → [`ProjectAnswer`]; `with_rules` also takes its exclusion rules.
macro_rules! project_answer {
    ($p:expr, with_rules) => {{
        let mut p = $p;
        let rules = p
            .duo_context_exclusion_settings
            .take()
            .and_then(|s| s.exclusion_rules);
        project_answer!(p, rules)
    }};
    ($p:expr, $rules:expr) => {{
        let p = $p;
        ProjectAnswer {
            id: p.id,
            full_path: p.full_path,
            rules: $rules,
            nodes: p
                .repository
                .and_then(|r| r.blobs)
                .and_then(|b| b.nodes)
                .unwrap_or_default()
                .into_iter()
                .flatten()
                .map(|n| blob_node!(n))
                .collect(),
        }
    }};
}

impl GitlabSource {
    pub fn new(transport: Transport) -> Self {
        Self {
            transport,
            caps: Arc::new(Capabilities::default()),
        }
    }

    /// Reads the target's file with the caller's credential.
    pub async fn fetch(
        &self,
        target: &Target,
        credential: Option<&Credential>,
    ) -> Result<Fetched, SourceError> {
        let Some(project) = &target.project else {
            return Err(SourceError::Upstream(
                "project_id is missing. Provide either url, or project_id, file_path, and ref."
                    .to_string(),
            ));
        };
        let fetched = match &target.lookup {
            Lookup::Exact {
                git_ref,
                path,
                ref_type,
            } => {
                self.fetch_exact(project, git_ref, path, *ref_type, credential)
                    .await?
            }
            Lookup::Split {
                candidates,
                ref_type,
            } => {
                let ProjectRef::Path(project_path) = project else {
                    return Err(SourceError::Upstream(
                        "a URL names its project by path".into(),
                    ));
                };
                self.fetch_split(project_path, candidates, *ref_type, credential)
                    .await?
            }
        };
        if let (Some(want), Some(got)) = (target.expect_project_id, fetched.project_id)
            && want != got
        {
            return Err(SourceError::Upstream(format!(
                "Project mismatch: project_id is '{want}' but url contains '{}' (project id {got}). Pass one of them, or make them agree.",
                fetched.project_path
            )));
        }
        Ok(fetched)
    }

    async fn fetch_exact(
        &self,
        project: &ProjectRef,
        git_ref: &str,
        path: &str,
        ref_type: Option<RefType>,
        credential: Option<&Credential>,
    ) -> Result<Fetched, SourceError> {
        let answer = self
            .blob_query(project, git_ref, path, ref_type, credential)
            .await
            .map_err(|e| match e {
                SourceError::InvalidRef { reason, .. } => SourceError::InvalidRef {
                    git_ref: git_ref.to_string(),
                    reason,
                },
                other => other,
            })?;
        let Some(answer) = answer else {
            return Err(SourceError::ProjectNotFound {
                project: project.to_string(),
            });
        };
        // One path was asked for, so GitLab answers with at most one node (prefer an exact match
        // should it ever answer more).
        let mut nodes = answer.nodes;
        let exact = nodes.iter().position(|n| n.path == path).unwrap_or(0);
        let node = (exact < nodes.len()).then(|| nodes.swap_remove(exact));
        let Some(node) = node else {
            return Err(self
                .missing(&answer.full_path, git_ref, path, ref_type, credential)
                .await);
        };
        if let Some(rules) = &answer.rules
            && is_excluded(rules, path)
        {
            return Err(SourceError::Excluded {
                path: path.to_string(),
            });
        }
        Ok(Fetched {
            blob: to_blob(node, git_ref)?,
            project_id: global_id_number(&answer.id),
            project_path: answer.full_path,
            split_fallback_from: None,
        })
    }

    /// The one blob query, with exclusion rules where the instance has them. `Ok(None)`: the
    /// project is missing or unreadable.
    async fn blob_query(
        &self,
        project: &ProjectRef,
        git_ref: &str,
        path: &str,
        ref_type: Option<RefType>,
        credential: Option<&Credential>,
    ) -> Result<Option<ProjectAnswer>, SourceError> {
        let paths = vec![path.to_string()];
        if self.caps.exclusions.maybe() {
            let result = match project {
                ProjectRef::Path(p) => {
                    let vars = blob_by_path_with_exclusions::Variables {
                        project_path: p.clone(),
                        ref_: git_ref.to_string(),
                        paths: paths.clone(),
                        ref_type: ref_type!(blob_by_path_with_exclusions, ref_type),
                    };
                    let r: GraphqlResponse<blob_by_path_with_exclusions::ResponseData> = self
                        .post(&BlobByPathWithExclusions::build_query(vars), credential)
                        .await?;
                    self.exclusion_answer(r, |d| d.project.map(|p| project_answer!(p, with_rules)))?
                }
                ProjectRef::Id(id) => {
                    let vars = blob_by_id_with_exclusions::Variables {
                        ids: Some(vec![format!("gid://gitlab/Project/{id}")]),
                        ref_: git_ref.to_string(),
                        paths: paths.clone(),
                        ref_type: ref_type!(blob_by_id_with_exclusions, ref_type),
                    };
                    let r: GraphqlResponse<blob_by_id_with_exclusions::ResponseData> = self
                        .post(&BlobByIdWithExclusions::build_query(vars), credential)
                        .await?;
                    self.exclusion_answer(r, |d| {
                        d.projects
                            .and_then(|c| c.nodes)
                            .and_then(|n| n.into_iter().flatten().next())
                            .map(|p| project_answer!(p, with_rules))
                    })?
                }
            };
            if let Some(answer) = result {
                return Ok(answer);
            }
        }
        match project {
            ProjectRef::Path(p) => {
                let vars = blob_by_path::Variables {
                    project_path: p.clone(),
                    ref_: git_ref.to_string(),
                    paths,
                    ref_type: ref_type!(blob_by_path, ref_type),
                };
                let r: GraphqlResponse<blob_by_path::ResponseData> = self
                    .post(&BlobByPath::build_query(vars), credential)
                    .await?;
                let data = checked(r)?;
                Ok(data.project.map(|p| project_answer!(p, None)))
            }
            ProjectRef::Id(id) => {
                let vars = blob_by_id::Variables {
                    ids: Some(vec![format!("gid://gitlab/Project/{id}")]),
                    ref_: git_ref.to_string(),
                    paths,
                    ref_type: ref_type!(blob_by_id, ref_type),
                };
                let r: GraphqlResponse<blob_by_id::ResponseData> =
                    self.post(&BlobById::build_query(vars), credential).await?;
                let data = checked(r)?;
                Ok(data
                    .projects
                    .and_then(|c| c.nodes)
                    .and_then(|n| n.into_iter().flatten().next())
                    .map(|p| project_answer!(p, None)))
            }
        }
    }

    /// Interprets an answer to a `...WithExclusions` query. `Ok(None)` means "the instance does
    /// not know the field: ask again without it" (remembered for every later call).
    fn exclusion_answer<T>(
        &self,
        r: GraphqlResponse<T>,
        project: impl FnOnce(T) -> Option<ProjectAnswer>,
    ) -> Result<Option<Option<ProjectAnswer>>, SourceError> {
        if let Some(errors) = &r.errors
            && errors
                .iter()
                .any(|e| mentions_unknown_field(e, "duoContextExclusionSettings"))
        {
            tracing::info!("this GitLab has no duoContextExclusionSettings; not asking again");
            self.caps.exclusions.set(false);
            return Ok(None);
        }
        // Errors confined to the exclusion field (e.g. not permitted for this user) leave the
        // rest of the answer usable: we read no rules then.
        let only_exclusion_errors = r.errors.as_ref().is_some_and(|errors| {
            errors
                .iter()
                .all(|e| error_path_has(e, "duoContextExclusionSettings"))
        });
        let data = if only_exclusion_errors {
            tracing::warn!(errors = ?r.errors, "could not read Duo exclusion rules; none applied");
            r.data
                .ok_or_else(|| SourceError::Upstream("GitLab returned no data".into()))?
        } else {
            checked(r)?
        };
        self.caps.exclusions.set(true);
        Ok(Some(project(data)))
    }

    /// Tells "ref not found" from "file not found" from "directory" with one more query.
    async fn missing(
        &self,
        project_path: &str,
        git_ref: &str,
        path: &str,
        ref_type: Option<RefType>,
        credential: Option<&Credential>,
    ) -> SourceError {
        let qualified = qualify_ref(git_ref, ref_type);
        let probe = self
            .probe_ref(project_path, &qualified, path, credential)
            .await;
        match probe {
            Ok(RefProbe { exists: false, .. }) => SourceError::RefNotFound {
                git_ref: git_ref.to_string(),
            },
            Ok(RefProbe { is_dir: true, .. }) => SourceError::IsDirectory {
                path: path.to_string(),
                git_ref: git_ref.to_string(),
            },
            Ok(_) => SourceError::FileNotFound {
                path: path.to_string(),
                git_ref: git_ref.to_string(),
            },
            Err(e) => e,
        }
    }

    async fn probe_ref(
        &self,
        project_path: &str,
        git_ref: &str,
        path: &str,
        credential: Option<&Credential>,
    ) -> Result<RefProbe, SourceError> {
        if self.caps.commit.maybe() {
            let vars = ref_commit::Variables {
                project_path: project_path.to_string(),
                ref_: git_ref.to_string(),
                path: path.to_string(),
            };
            let r: GraphqlResponse<ref_commit::ResponseData> =
                self.post(&RefCommit::build_query(vars), credential).await?;
            let unknown = r
                .errors
                .as_ref()
                .is_some_and(|es| es.iter().any(|e| mentions_unknown_field(e, "commit")));
            if unknown {
                tracing::info!("this GitLab has no Repository.commit; using tree.lastCommit");
                self.caps.commit.set(false);
            } else {
                self.caps.commit.set(true);
                let repo = checked(r)?.project.and_then(|p| p.repository);
                let exists = repo.as_ref().is_some_and(|r| r.commit.is_some());
                let is_dir = repo.and_then(|r| r.dir).is_some_and(|d| has_entries!(d));
                return Ok(RefProbe { exists, is_dir });
            }
        }
        let vars = ref_tree::Variables {
            project_path: project_path.to_string(),
            ref_: git_ref.to_string(),
            path: path.to_string(),
        };
        let r: GraphqlResponse<ref_tree::ResponseData> =
            self.post(&RefTree::build_query(vars), credential).await?;
        let repo = checked(r)?.project.and_then(|p| p.repository);
        let exists = repo
            .as_ref()
            .and_then(|r| r.tree.as_ref())
            .is_some_and(|t| t.last_commit.is_some());
        let is_dir = repo.and_then(|r| r.dir).is_some_and(|d| has_entries!(d));
        Ok(RefProbe { exists, is_dir })
    }

    /// A URL whose "ref/path" splits several ways: one request asks for every candidate (and
    /// whether each candidate ref is a branch or tag); GitLab's precedence picks the answer.
    async fn fetch_split(
        &self,
        project_path: &str,
        candidates: &[Split],
        ref_type: Option<RefType>,
        credential: Option<&Credential>,
    ) -> Result<Fetched, SourceError> {
        let mut answers: Vec<SplitAnswer> = Vec::with_capacity(candidates.len());
        let mut project: Option<(String, String, Option<Vec<String>>)> = None;
        for batch in candidates.chunks(splits::MAX_PER_REQUEST) {
            let offset = answers.len();
            let with_exclusions = self.caps.exclusions.maybe() && project.is_none();
            let with_commit = self.caps.commit.maybe();
            let body = splits::request(
                project_path,
                batch,
                offset,
                ref_type,
                with_exclusions,
                with_commit,
            );
            let r: GraphqlResponse<serde_json::Value> = self.post(&body, credential).await?;
            if let Some(errors) = &r.errors {
                let no_excl = errors
                    .iter()
                    .any(|e| mentions_unknown_field(e, "duoContextExclusionSettings"));
                let no_commit = errors.iter().any(|e| mentions_unknown_field(e, "commit"));
                if no_excl || no_commit {
                    if no_excl {
                        self.caps.exclusions.set(false);
                    }
                    if no_commit {
                        self.caps.commit.set(false);
                    }
                    return Box::pin(self.fetch_split(
                        project_path,
                        candidates,
                        ref_type,
                        credential,
                    ))
                    .await;
                }
            }
            let parsed = splits::parse(r, batch.len(), offset, with_exclusions)?;
            let Some(parsed) = parsed else {
                return Err(SourceError::ProjectNotFound {
                    project: project_path.to_string(),
                });
            };
            if with_exclusions {
                self.caps.exclusions.set(true);
            }
            if with_commit && parsed.commit_known {
                self.caps.commit.set(true);
            }
            if project.is_none() {
                project = Some((parsed.id, parsed.full_path, parsed.rules));
            }
            answers.extend(parsed.answers);
        }
        let Some((id, full_path, rules)) = project else {
            return Err(SourceError::ProjectNotFound {
                project: project_path.to_string(),
            });
        };
        let evidence: Vec<crate::url::Evidence> =
            answers.iter().map(SplitAnswer::evidence).collect();
        let (used, gitlab) = match crate::url::choose(&evidence) {
            Choice::Gitlab(i) => (i, None),
            Choice::Fallback { gitlab, used } => (used, Some(gitlab)),
            Choice::NotFound { gitlab } => {
                let c = &candidates[gitlab];
                return Err(self
                    .missing(&full_path, &c.git_ref, &c.path, ref_type, credential)
                    .await);
            }
        };
        let chosen = &candidates[used];
        if let Some(rules) = &rules
            && is_excluded(rules, &chosen.path)
        {
            return Err(SourceError::Excluded {
                path: chosen.path.clone(),
            });
        }
        let node = answers.swap_remove(used).node.ok_or_else(|| {
            SourceError::Upstream("internal: chosen candidate has no blob".into())
        })?;
        Ok(Fetched {
            blob: to_blob(node, &chosen.git_ref)?,
            project_id: global_id_number(&id),
            project_path: full_path,
            split_fallback_from: gitlab.map(|g| candidates[g].git_ref.clone()),
        })
    }

    async fn post<B: serde::Serialize, T: serde::de::DeserializeOwned>(
        &self,
        body: &B,
        credential: Option<&Credential>,
    ) -> Result<GraphqlResponse<T>, SourceError> {
        self.transport
            .post(body, credential)
            .await
            .map_err(|e| SourceError::Upstream(e.to_string()))
    }
}

struct RefProbe {
    exists: bool,
    is_dir: bool,
}

/// The data of an answer, or its GraphQL errors as a [`SourceError`].
pub(super) fn checked<T>(r: GraphqlResponse<T>) -> Result<T, SourceError> {
    if let Some(messages) = r.error_messages() {
        if messages.contains("Ref is not valid") {
            return Err(SourceError::InvalidRef {
                git_ref: String::new(),
                reason: messages,
            });
        }
        return Err(SourceError::Upstream(format!(
            "GitLab reported: {messages}"
        )));
    }
    r.data
        .ok_or_else(|| SourceError::Upstream("GitLab returned no data and no error".into()))
}

/// graphql-ruby's "Field 'x' doesn't exist on type 'Y'" (code `undefinedField`) for `field`.
pub(super) fn mentions_unknown_field(e: &GraphqlError, field: &str) -> bool {
    let by_code = e.extensions.as_ref().is_some_and(|x| {
        x.get("code").and_then(|c| c.as_str()) == Some("undefinedField")
            && x.get("fieldName").and_then(|f| f.as_str()) == Some(field)
    });
    by_code
        || e.message
            .contains(&format!("Field '{field}' doesn't exist"))
}

fn error_path_has(e: &GraphqlError, field: &str) -> bool {
    e.path
        .as_ref()
        .is_some_and(|p| p.iter().any(|s| s.as_str() == Some(field)))
}

/// `gid://gitlab/Project/42` → 42.
pub fn global_id_number(gid: &str) -> Option<u64> {
    gid.rsplit('/').next()?.parse().ok()
}

/// GitLab's blob node → our [`Blob`]: LFS first (the pointer text is dropped), then binary
/// (`rawTextBlob` null), then text; `size_bytes` is `rawSize` (falling back to `size`).
pub(super) fn to_blob(node: BlobNode, git_ref: &str) -> Result<Blob, SourceError> {
    let size_bytes = node.raw_size.or(node.size).map(|s| s.0).unwrap_or_else(|| {
        node.raw_text_blob
            .as_ref()
            .map_or(0, |t| t.raw_len() as u64)
    });
    let kind = if node.stored_externally == Some(true) {
        BlobKind::Lfs {
            storage: node.external_storage.unwrap_or_else(|| "lfs".to_string()),
        }
    } else {
        match node.raw_text_blob {
            None => BlobKind::Binary,
            Some(raw) => {
                let content = raw.decode().map_err(|e| {
                    SourceError::Upstream(format!("GitLab's rawTextBlob could not be decoded: {e}"))
                })?;
                let cut_by_read_limit = size_bytes > content.len() as u64;
                BlobKind::Text {
                    content,
                    cut_by_read_limit,
                }
            }
        }
    };
    Ok(Blob {
        path: node.path,
        git_ref: git_ref.to_string(),
        size_bytes,
        kind,
    })
}

#[cfg(test)]
mod tests {
    use super::super::scalars::BigInt;
    use super::*;

    #[test]
    fn gid_numbers() {
        assert_eq!(global_id_number("gid://gitlab/Project/42"), Some(42));
        assert_eq!(global_id_number("nonsense"), None);
    }

    fn text(s: &str) -> super::super::scalars::BlobText {
        serde_json::from_str(&serde_json::to_string(s).unwrap()).unwrap()
    }

    #[test]
    fn blob_kinds() {
        let text_node = BlobNode {
            path: "a".into(),
            size: Some(BigInt(3)),
            raw_size: Some(BigInt(3)),
            raw_text_blob: Some(text("a\nb")),
            ..BlobNode::default()
        };
        assert_eq!(
            to_blob(text_node.clone(), "main").unwrap().kind,
            BlobKind::Text {
                content: "a\nb".into(),
                cut_by_read_limit: false
            }
        );
        let cut = BlobNode {
            raw_size: Some(BigInt(20_000_000)),
            ..text_node.clone()
        };
        assert!(matches!(
            to_blob(cut, "main").unwrap().kind,
            BlobKind::Text {
                cut_by_read_limit: true,
                ..
            }
        ));
        let bin = BlobNode {
            raw_text_blob: None,
            ..text_node.clone()
        };
        assert_eq!(to_blob(bin, "main").unwrap().kind, BlobKind::Binary);
        let lfs = BlobNode {
            stored_externally: Some(true),
            external_storage: Some("lfs".into()),
            raw_size: Some(BigInt(1_575_078)),
            raw_text_blob: Some(text("version https://git-lfs...")),
            ..text_node
        };
        let b = to_blob(lfs, "main").unwrap();
        assert_eq!(
            (b.kind, b.size_bytes),
            (
                BlobKind::Lfs {
                    storage: "lfs".into()
                },
                1_575_078
            )
        );
    }

    #[test]
    fn unknown_field_detection() {
        let e: GraphqlError = serde_json::from_value(serde_json::json!({
            "message": "Field 'duoContextExclusionSettings' doesn't exist on type 'Project'",
            "extensions": {"code": "undefinedField", "typeName": "Project", "fieldName": "duoContextExclusionSettings"}
        })).unwrap();
        assert!(mentions_unknown_field(&e, "duoContextExclusionSettings"));
        assert!(!mentions_unknown_field(&e, "commit"));
    }
}
