//! What can go wrong reading from GitLab, below the domain errors (missing project, ref, file):
//! the request itself, or an answer this server cannot use.

use super::envelope::GraphqlResponse;
use super::json_text::JsonTextError;
use super::transport_error::TransportError;
use super::verify::LfsObjectMissing;
use crate::base::cause::Shared;
use crate::source::SourceError;
use crate::source::blob::invalid_ref;
use std::fmt::{self, Display, Formatter};

/// A failure of the GitLab source that is not an answer about the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum GitlabError {
    /// The HTTP exchange failed (status, body, network).
    Transport(#[source] TransportError),
    /// GitLab answered with GraphQL errors (messages joined with `; `).
    Graphql { messages: String },
    /// GitLab's "Ref is not valid" (the messages as GitLab wrote them).
    InvalidRef { messages: String },
    /// A GraphQL answer with neither data nor errors.
    NoData,
    /// An answer that is not shaped as this server reads it.
    Shape(#[source] ShapeProblem),
    /// `rawTextBlob` that is not a valid JSON string.
    Content(#[source] JsonTextError),
    /// Bytes from GitLab that are not the content they were asked for as (worded beside it).
    Mismatch(#[source] super::verify::Mismatch),
    /// GitLab served an LFS pointer for its object (worded beside it).
    LfsObjectMissing(#[source] LfsObjectMissing),
}

impl Display for GitlabError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            GitlabError::Transport(e) => e.fmt(f),
            GitlabError::Graphql { messages } => write!(f, "GitLab reported: {messages}"),
            GitlabError::InvalidRef { messages } => invalid_ref(f, None, messages),
            GitlabError::NoData => f.write_str("GitLab returned no data and no error"),
            GitlabError::Shape(problem) => {
                write!(
                    f,
                    "GitLab's blob answer was not shaped as expected: {problem}"
                )
            }
            GitlabError::Content(e) => write!(f, "GitLab's rawTextBlob could not be decoded: {e}"),
            GitlabError::Mismatch(e) => e.fmt(f),
            GitlabError::LfsObjectMissing(e) => e.fmt(f),
        }
    }
}

/// Why an answer is not shaped as this server reads it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ShapeProblem {
    /// A blob that does not parse as one (the parser's words).
    #[error(transparent)]
    Blob(Shared<serde_json::Error>),
    /// Each round learned of another optional field the instance lacks, and the last too.
    #[error("an optional field was still reported absent after {rounds} rounds")]
    FieldsStillAbsent { rounds: usize },
    /// No project id, which a REST download needs.
    #[error("the answer for '{path}' has no project id")]
    NoProjectId { path: String },
}

impl From<ShapeProblem> for GitlabError {
    fn from(problem: ShapeProblem) -> Self {
        GitlabError::Shape(problem)
    }
}

impl From<TransportError> for GitlabError {
    fn from(e: TransportError) -> Self {
        GitlabError::Transport(e)
    }
}

/// The data of a GraphQL answer, or its errors as a [`GitlabError`]: "Ref is not valid" is
/// [`GitlabError::InvalidRef`], anything else [`GitlabError::Graphql`].
pub(crate) fn answer_data<T>(r: GraphqlResponse<T>) -> Result<T, GitlabError> {
    if let Some(messages) = r.error_messages() {
        return Err(if messages.contains("Ref is not valid") {
            GitlabError::InvalidRef { messages }
        } else {
            GitlabError::Graphql { messages }
        });
    }
    r.data.ok_or(GitlabError::NoData)
}

/// Like [`answer_data`], but errors that all lie under `fields` (e.g. Duo exclusion settings a
/// user may not read) leave the rest of the answer usable: they are logged and the data used.
pub(crate) fn answer_data_ignoring<T>(
    r: GraphqlResponse<T>,
    fields: &[&str],
) -> Result<T, GitlabError> {
    let errors = r.errors();
    let ignorable = |e: &super::envelope::GraphqlError| fields.iter().any(|f| e.is_under(f));
    if !errors.is_empty() && errors.iter().all(ignorable) {
        tracing::warn!(
            ?errors,
            "GitLab could not answer {fields:?}; going on without it"
        );
        return r.data.ok_or(GitlabError::NoData);
    }
    answer_data(r)
}

/// GitLab's own words for a ref it refuses ("Ref is not valid"), the reason of a
/// [`SourceError::InvalidRef`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{messages}")]
pub(crate) struct RefRefused {
    pub messages: String,
}

impl From<GitlabError> for SourceError {
    /// GitLab's "Ref is not valid" is an invalid ref like any other (named by the caller with
    /// [`SourceError::naming_ref`] where the ref is known); the rest is a GitLab failure.
    fn from(e: GitlabError) -> Self {
        match e {
            GitlabError::InvalidRef { messages } => SourceError::InvalidRef {
                git_ref: None,
                reason: Shared::any(RefRefused { messages }),
            },
            other => SourceError::failed(other),
        }
    }
}

impl From<LfsObjectMissing> for SourceError {
    fn from(e: LfsObjectMissing) -> Self {
        SourceError::from(GitlabError::LfsObjectMissing(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn response(v: serde_json::Value) -> GraphqlResponse<serde_json::Value> {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn errors_become_typed() {
        let r = response(json!({"data": null, "errors": [{"message": "Ref is not valid"}]}));
        assert!(matches!(
            answer_data(r),
            Err(GitlabError::InvalidRef { .. })
        ));
        let r = response(json!({"data": null, "errors": [{"message": "boom"}]}));
        assert_eq!(
            answer_data(r),
            Err(GitlabError::Graphql {
                messages: "boom".into()
            })
        );
        assert_eq!(
            answer_data(response(json!({"data": null}))),
            Err(GitlabError::NoData)
        );
    }

    #[test]
    fn errors_under_one_field_can_be_ignored() {
        let r = response(json!({"data": {"x": 1}, "errors": [
            {"message": "not allowed", "path": ["project", "duoContextExclusionSettings"]}
        ]}));
        assert_eq!(
            answer_data_ignoring(r, &["duoContextExclusionSettings"]),
            Ok(json!({"x": 1}))
        );
        let r = response(json!({"data": {"x": 1}, "errors": [
            {"message": "boom", "path": ["project", "repository"]}
        ]}));
        assert!(answer_data_ignoring(r, &["duoContextExclusionSettings"]).is_err());
        let under_either = || {
            response(json!({"data": {"x": 1}, "errors": [
                {"message": "no rules", "path": ["project", "duoContextExclusionSettings"]},
                {"message": "no blame", "path": ["project", "repository", "blamed", "nodes", 0]}
            ]}))
        };
        let both = ["duoContextExclusionSettings", "blamed"];
        assert_eq!(
            answer_data_ignoring(under_either(), &both),
            Ok(json!({"x": 1}))
        );
        assert!(answer_data_ignoring(under_either(), &both[..1]).is_err());
        assert!(answer_data_ignoring(under_either(), &[]).is_err());
    }
}
