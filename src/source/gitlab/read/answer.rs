//! The validating request of one lookup: may this caller read this file at this ref now, and
//! which blob is it (with its content when asked)? The blob query ([`blob_query`]) for a file
//! named by ref and path, the evidence query ([`evidence_query`]) for a URL whose "ref/path"
//! splits several ways, where GitLab's precedence ([`choose`]) picks the answer. What GitLab
//! answered is a [`Reply`], which [`super::finish`] turns into a blob or an error.

use super::finish::Reply;
use crate::config::Credential;
use crate::resolve::choice::choose;
use crate::resolve::ref_name::RefType;
use crate::resolve::{Lookup, ProjectFile, ProjectRef};
use crate::source::blob::SourceError;
use crate::source::gitlab::query::blob_query::{self, BlobRequest};
use crate::source::gitlab::query::connection::Connection;
use crate::source::gitlab::query::evidence_query;
use crate::source::views::Also;
use crate::window::Extent;

/// What a round asks of the file besides its metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fields<'a> {
    /// Its content (not when the blob is cached).
    pub content: bool,
    /// Its `language` (for an outline or a symbol: [`Extent::Parsed`]).
    pub language: bool,
    /// The lines to blame with it (the blame view; at most 100): a file named by ref and path
    /// only, a URL whose ref is not known yet asks its blame after the read.
    pub blame: Option<(u64, u64)>,
    /// The other ref to read the file at with it (the diff view; a file named by ref and path
    /// only, like the blame).
    pub base_ref: Option<&'a str>,
}

impl<'a> Fields<'a> {
    /// The fields of a round with content or without, for a call needing `extent` (and what
    /// its view asks `also`).
    pub(crate) fn of(content: bool, extent: Extent, also: &'a Also) -> Self {
        Fields {
            content,
            language: extent == Extent::Parsed,
            blame: also.blame,
            base_ref: also.base_ref.as_deref(),
        }
    }

    /// The request for one file, asking its language when these fields do.
    fn request(
        self,
        project: &'a ProjectRef,
        git_ref: &'a str,
        path: &'a str,
        ref_type: Option<RefType>,
    ) -> BlobRequest<'a> {
        BlobRequest {
            project,
            git_ref,
            path,
            ref_type,
            language: self.language,
            blame: self.blame,
            base_ref: self.base_ref,
        }
    }
}

/// Asks GitLab about `lookup`, with the `fields` asked.
pub(crate) async fn ask_lookup(
    connection: &Connection,
    lookup: &ProjectFile,
    fields: Fields<'_>,
    credential: Option<&Credential>,
) -> Result<Reply, SourceError> {
    match lookup {
        ProjectFile::Named {
            project,
            git_ref,
            path,
        } => {
            let request = fields.request(project, git_ref, path, None);
            exact(connection, request, fields.content, credential).await
        }
        ProjectFile::Url {
            project_path,
            file:
                Lookup::Exact {
                    git_ref,
                    path,
                    ref_type,
                },
            ..
        } => {
            let project = ProjectRef::Path(project_path.clone());
            let request = fields.request(&project, git_ref, path, *ref_type);
            exact(connection, request, fields.content, credential).await
        }
        ProjectFile::Url {
            project_path,
            file:
                Lookup::Candidates {
                    candidates,
                    ref_type,
                },
            ..
        } => {
            let asked = evidence_query::CandidatesAsked {
                project_path,
                candidates,
                ref_type: *ref_type,
                content: fields.content,
                language: fields.language,
            };
            split(connection, asked, credential).await
        }
    }
}

async fn exact(
    connection: &Connection,
    request: BlobRequest<'_>,
    with_content: bool,
    credential: Option<&Credential>,
) -> Result<Reply, SourceError> {
    let answer = blob_query::ask_file(connection, request, with_content, credential)
        .await
        .map_err(|e| SourceError::from(e).naming_ref(request.git_ref))?;
    let Some(mut project) = answer else {
        return Err(SourceError::ProjectNotFound {
            project: request.project.to_string(),
            anonymous: credential.is_none(),
        });
    };
    let node = project.take_node(request.path);
    Ok(Reply {
        project,
        node,
        git_ref: request.git_ref.to_string(),
        path: request.path.to_string(),
        ref_type: request.ref_type,
        split_fallback_from: None,
    })
}

/// A URL whose "ref/path" splits several ways: one request asks for every candidate (and
/// whether each candidate ref is a branch or tag); GitLab's precedence picks the answer, or the
/// candidate whose miss is the one to explain.
async fn split(
    connection: &Connection,
    asked: evidence_query::CandidatesAsked<'_>,
    credential: Option<&Credential>,
) -> Result<Reply, SourceError> {
    let Some(evidence_query::CandidatesAnswer {
        project,
        mut answers,
    }) = evidence_query::ask_candidates(connection, asked, credential).await?
    else {
        return Err(SourceError::ProjectNotFound {
            project: asked.project_path.to_string(),
            anonymous: credential.is_none(),
        });
    };
    let evidence: Vec<_> = answers
        .iter()
        .map(evidence_query::CandidateAnswer::evidence)
        .collect();
    let candidates = asked.candidates;
    // Indexes from `choose` are into `evidence`: one per candidate and per answer.
    let (used, node, fallback_from) = match choose(&evidence).pick() {
        Ok(pick) => {
            let chosen = &candidates[pick.used];
            let Some(node) = answers.swap_remove(pick.used).node else {
                // `choose` only picks candidates whose blob was found.
                return Err(SourceError::FileNotFound {
                    path: chosen.path.clone(),
                    git_ref: chosen.git_ref.clone(),
                });
            };
            (pick.used, Some(node), pick.fallback_from)
        }
        Err(gitlab) => (gitlab, None, None),
    };
    let at = &candidates[used];
    Ok(Reply {
        project,
        node,
        git_ref: at.git_ref.clone(),
        path: at.path.clone(),
        ref_type: asked.ref_type,
        split_fallback_from: fallback_from.map(|g| candidates[g].git_ref.clone()),
    })
}
