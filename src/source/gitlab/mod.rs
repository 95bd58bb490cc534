//! The GitLab source: reads a [`ProjectFile`] over GitLab's GraphQL API.
//!
//! A successful call costs exactly one request: the blob query ([`blob_query`]) for a file named
//! by ref and path, or the URL-split query ([`splits`]) for a URL whose "ref/path" splits
//! several ways. Only a miss costs a second one ([`probe`]), to tell a missing ref from a
//! missing file or a directory. The project's Duo exclusion rules ride along in the first
//! request where the instance has them ([`exclusion`] matches them). Which optional fields the
//! instance knows is learned once ([`capabilities`]).

mod blob_query;
mod capabilities;
mod client;
mod envelope;
pub(crate) mod error;
pub(crate) mod exclusion;
pub(crate) mod graphql;
pub(crate) mod json_text;
mod probe;
pub(crate) mod scalars;
pub(crate) mod splits;
pub(crate) mod transport;

use blob_query::{BlobRequest, ProjectAnswer, to_blob};
use client::Client;
pub(crate) use error::GitlabError;
use transport::Transport;

use crate::config::{ConfigError, Credential, GitlabConfig};
use crate::resolve::{Lookup, ProjectFile, ProjectRef, RefType, Split};
use crate::source::blob::{Fetched, SourceError};
use crate::source::split_choice::choose;

/// The GitLab source; cheap to clone and share across calls.
#[derive(Debug, Clone)]
pub(crate) struct GitlabSource {
    client: Client,
    base: ::url::Url,
}

impl GitlabSource {
    pub(crate) fn new(config: &GitlabConfig) -> Result<Self, ConfigError> {
        Ok(Self {
            client: Client::new(Transport::new(config)?),
            base: config.base_url.clone(),
        })
    }

    /// The instance's base URL (file URLs must be on it).
    pub(crate) fn base(&self) -> &::url::Url {
        &self.base
    }

    /// Reads the file with the caller's credential.
    pub(crate) async fn fetch(
        &self,
        file: &ProjectFile,
        credential: Option<&Credential>,
    ) -> Result<Fetched, SourceError> {
        match file {
            ProjectFile::Named {
                project,
                git_ref,
                path,
            } => {
                let request = BlobRequest {
                    project,
                    git_ref,
                    path,
                    ref_type: None,
                };
                Ok(self.fetch_exact(request, credential).await?.0)
            }
            ProjectFile::Url {
                project_path,
                expect_project_id,
                file,
            } => {
                let (fetched, project) = self.fetch_url(project_path, file, credential).await?;
                check_project_id(*expect_project_id, &project)?;
                Ok(fetched)
            }
        }
    }

    async fn fetch_url(
        &self,
        project_path: &str,
        file: &Lookup,
        credential: Option<&Credential>,
    ) -> Result<(Fetched, ProjectAnswer), SourceError> {
        match file {
            Lookup::Exact {
                git_ref,
                path,
                ref_type,
            } => {
                let project = ProjectRef::Path(project_path.to_string());
                let request = BlobRequest {
                    project: &project,
                    git_ref,
                    path,
                    ref_type: *ref_type,
                };
                self.fetch_exact(request, credential).await
            }
            Lookup::Split {
                candidates,
                ref_type,
            } => {
                self.fetch_split(project_path, candidates, *ref_type, credential)
                    .await
            }
        }
    }

    async fn fetch_exact(
        &self,
        request: BlobRequest<'_>,
        credential: Option<&Credential>,
    ) -> Result<(Fetched, ProjectAnswer), SourceError> {
        let answer = blob_query::ask(&self.client, request, credential)
            .await
            .map_err(|e| SourceError::from(e).naming_ref(request.git_ref))?;
        let Some(mut project) = answer else {
            return Err(SourceError::ProjectNotFound {
                project: request.project.to_string(),
            });
        };
        let Some(node) = project.take_node(request.path) else {
            let missing = probe::why_missing(
                &self.client,
                &project.full_path,
                request.git_ref,
                request.path,
                request.ref_type,
                project.rules.as_deref(),
                credential,
            );
            return Err(missing.await);
        };
        refuse_excluded(&project, request.path)?;
        let fetched = Fetched {
            blob: to_blob(node, request.git_ref)?,
            split_fallback_from: None,
        };
        Ok((fetched, project))
    }

    /// A URL whose "ref/path" splits several ways: one request asks for every candidate (and
    /// whether each candidate ref is a branch or tag); GitLab's precedence picks the answer.
    async fn fetch_split(
        &self,
        project_path: &str,
        candidates: &[Split],
        ref_type: Option<RefType>,
        credential: Option<&Credential>,
    ) -> Result<(Fetched, ProjectAnswer), SourceError> {
        let answer =
            splits::ask(&self.client, project_path, candidates, ref_type, credential).await?;
        let Some(splits::SplitsAnswer {
            project,
            mut answers,
        }) = answer
        else {
            return Err(SourceError::ProjectNotFound {
                project: project_path.to_string(),
            });
        };
        let evidence: Vec<_> = answers.iter().map(splits::SplitAnswer::evidence).collect();
        // Indexes from `choose` are into `evidence`: one per candidate and per answer.
        let pick = match choose(&evidence).pick() {
            Ok(pick) => pick,
            Err(gitlab) => {
                let c = &candidates[gitlab];
                let missing = probe::why_missing(
                    &self.client,
                    &project.full_path,
                    &c.git_ref,
                    &c.path,
                    ref_type,
                    project.rules.as_deref(),
                    credential,
                );
                return Err(missing.await);
            }
        };
        let chosen = &candidates[pick.used];
        refuse_excluded(&project, &chosen.path)?;
        let Some(node) = answers.swap_remove(pick.used).node else {
            // `choose` only picks candidates whose blob was found.
            return Err(SourceError::FileNotFound {
                path: chosen.path.clone(),
                git_ref: chosen.git_ref.clone(),
            });
        };
        let fetched = Fetched {
            blob: to_blob(node, &chosen.git_ref)?,
            split_fallback_from: pick.fallback_from.map(|g| candidates[g].git_ref.clone()),
        };
        Ok((fetched, project))
    }
}

/// The project's Duo exclusion rules, applied to the path that is about to be returned.
fn refuse_excluded(project: &ProjectAnswer, path: &str) -> Result<(), SourceError> {
    match &project.rules {
        Some(rules) if exclusion::is_excluded(rules, path) => Err(SourceError::Excluded {
            path: path.to_string(),
        }),
        _ => Ok(()),
    }
}

/// With a URL, a numeric `project_id` must be the id of the project the URL named.
fn check_project_id(expected: Option<u64>, project: &ProjectAnswer) -> Result<(), SourceError> {
    match (expected, project.id) {
        (Some(given), Some(got)) if given != got => Err(SourceError::ProjectMismatch {
            given,
            url_project: project.full_path.clone(),
            url_project_id: got,
        }),
        _ => Ok(()),
    }
}

/// Every GraphQL document this source may send, named: the checked-in operations, their
/// variants without optional fields, and the run-time URL-split documents (every batch size
/// and combination of optional fields).
pub(crate) fn all_documents() -> Vec<(String, String)> {
    use graphql::{blob, miss_probe, variants};
    let mut documents: Vec<(String, String)> = vec![
        ("Blob".into(), blob::QUERY.into()),
        (
            "Blob without exclusions".into(),
            variants::BLOB_WITHOUT_DUO_EXCLUSIONS_IF_SUPPORTED.into(),
        ),
        ("MissProbe".into(), miss_probe::QUERY.into()),
    ];
    for count in 1..=splits::MAX_PER_REQUEST {
        for rules in [false, true] {
            for commit in [false, true] {
                let extras = splits::Extras { rules, commit };
                documents.push((
                    format!("BlobBySplits {count} {extras:?}"),
                    splits::document(count, 3, extras),
                ));
            }
        }
    }
    documents
}
