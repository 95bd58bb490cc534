//! One call of the tool, start to finish: arguments → target → blob (from GitLab or a local
//! repository) → window → output. Both sources share everything after the blob, so they
//! share one contract.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::args;
use crate::config::Credential;
use crate::gitlab::source::{Fetched, GitlabSource};
use crate::resolve::{self, Lookup, Mode, Target};
use crate::response::{self, ReadFacts};
use crate::source::local::LocalRepo;
use crate::source::{Blob, BlobKind, SourceError};
use crate::url::{Choice, Evidence, choose, qualify_ref};
use crate::window;

/// Where files come from.
#[derive(Debug, Clone)]
pub enum Backend {
    /// A GitLab instance at `base`.
    Gitlab {
        source: GitlabSource,
        base: ::url::Url,
    },
    /// A local git repository.
    Local(Arc<LocalRepo>),
}

/// Reads files for the tool; cheap to clone and share across calls.
#[derive(Debug, Clone)]
pub struct Reader {
    backend: Backend,
}

impl Reader {
    pub fn new(backend: Backend) -> Self {
        Self { backend }
    }

    /// Runs one call. `Ok` is the output object; `Err` is the sentence for an `isError` result.
    pub async fn read(
        &self,
        arguments: Option<&Map<String, Value>>,
        credential: Option<&Credential>,
    ) -> Result<Value, String> {
        let args = args::parse(arguments).map_err(|e| e.to_string())?;
        let mode = match &self.backend {
            Backend::Gitlab { base, .. } => Mode::Gitlab { base },
            Backend::Local(_) => Mode::Local,
        };
        let target = resolve::resolve(&args, mode).map_err(|e| e.to_string())?;
        let fetched = match &self.backend {
            Backend::Gitlab { source, .. } => source.fetch(&target, credential).await,
            Backend::Local(repo) => {
                let repo = Arc::clone(repo);
                let lookup = target.lookup.clone();
                tokio::task::spawn_blocking(move || read_local(&repo, &lookup))
                    .await
                    .unwrap_or_else(|e| Err(SourceError::Local(format!("local read failed: {e}"))))
            }
        }
        .map_err(|e| response::source_error(&e))?;
        render(&target, &fetched)
    }
}

/// Windows a fetched blob and serialises the output (or the binary/LFS/range error).
pub fn render(target: &Target, fetched: &Fetched) -> Result<Value, String> {
    let blob = &fetched.blob;
    let (content, cut_by_read_limit) = match &blob.kind {
        BlobKind::Text {
            content,
            cut_by_read_limit,
        } => (content.as_str(), *cut_by_read_limit),
        BlobKind::Binary => return Err(response::binary_error(&blob.path, blob.size_bytes)),
        BlobKind::Lfs { storage } => {
            return Err(response::lfs_error(&blob.path, storage, blob.size_bytes));
        }
    };
    let w = window::window(content, target.lines).map_err(|e| response::window_error(&e))?;
    let facts = ReadFacts {
        path: &blob.path,
        git_ref: &blob.git_ref,
        size_bytes: blob.size_bytes,
        cut_by_read_limit,
        hint_style: target.hint_style,
        split_fallback_from: fetched.split_fallback_from.as_deref(),
    };
    serde_json::to_value(response::file_output(facts, &w))
        .map_err(|e| format!("internal error: cannot serialise the output: {e}"))
}

/// The local source for a lookup, with the same split precedence as GitLab.
pub fn read_local(repo: &LocalRepo, lookup: &Lookup) -> Result<Fetched, SourceError> {
    let done = |blob: Blob, fallback: Option<String>| Fetched {
        blob,
        project_id: None,
        project_path: String::new(),
        split_fallback_from: fallback,
    };
    match lookup {
        Lookup::Exact {
            git_ref,
            path,
            ref_type,
        } => {
            let mut blob = repo
                .read(&qualify_ref(git_ref, *ref_type), path)
                .map_err(|e| name_ref_as_given(e, git_ref))?;
            blob.git_ref = git_ref.clone();
            Ok(done(blob, None))
        }
        Lookup::Split {
            candidates,
            ref_type,
        } => {
            let mut results: Vec<Result<Blob, SourceError>> = Vec::with_capacity(candidates.len());
            let mut evidence: Vec<Evidence> = Vec::with_capacity(candidates.len());
            for c in candidates {
                let read = repo
                    .read(&qualify_ref(&c.git_ref, *ref_type), &c.path)
                    .map_err(|e| name_ref_as_given(e, &c.git_ref));
                evidence.push(Evidence {
                    ref_is_branch_or_tag: repo.is_branch_or_tag(&c.git_ref),
                    blob_found: read.is_ok(),
                });
                results.push(read);
            }
            let (used, fallback) = match choose(&evidence) {
                Choice::Gitlab(i) => (i, None),
                Choice::Fallback { gitlab, used } => {
                    (used, Some(candidates[gitlab].git_ref.clone()))
                }
                Choice::NotFound { gitlab } => {
                    return Err(results.swap_remove(gitlab).err().unwrap_or_else(|| {
                        SourceError::Local("internal: no candidate matched".into())
                    }));
                }
            };
            let mut blob = results.swap_remove(used)?;
            blob.git_ref = candidates[used].git_ref.clone();
            Ok(done(blob, fallback))
        }
    }
}

/// Errors name the ref as the caller gave it (`v1.0`), not as qualified for the lookup
/// (`refs/tags/v1.0`), as the GitLab source does.
fn name_ref_as_given(e: SourceError, given: &str) -> SourceError {
    let given = given.to_string();
    match e {
        SourceError::RefNotFound { .. } => SourceError::RefNotFound { git_ref: given },
        SourceError::FileNotFound { path, .. } => SourceError::FileNotFound {
            path,
            git_ref: given,
        },
        SourceError::IsDirectory { path, .. } => SourceError::IsDirectory {
            path,
            git_ref: given,
        },
        SourceError::InvalidRef { reason, .. } => SourceError::InvalidRef {
            git_ref: given,
            reason,
        },
        other => other,
    }
}
