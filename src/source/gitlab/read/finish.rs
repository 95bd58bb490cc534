//! One lookup finished from GitLab's reply, the same for a single read and for each lookup of a
//! batch: a miss is probed ([`probe`]: ref, directory or file not found), Duo exclusions refused,
//! the content the answer named remembered for the lookup, a URL's project id checked, then (a
//! first read that follows another only now, validated) the content read
//! ([`ContentStore::read`](crate::source::gitlab::content::store::ContentStore::read)) and the blob
//! built.

use super::shared::GitlabState;
use crate::config::Credential;
use crate::resolve::ref_name::{RefType, qualify_ref};
use crate::source::blob::{Blob, Fetched, SourceError};
use crate::source::gitlab::content::download::Landed;
use crate::source::gitlab::content::flights::Follow;
use crate::source::gitlab::content::keys::{ContentKey, LookupKey, Named};
use crate::source::gitlab::content::store::{Asked, FileAt};
use crate::source::gitlab::query::blob_query::ProjectAnswer;
use crate::source::gitlab::query::graphql::BlobFields;
use crate::source::gitlab::query::probe;
use crate::source::gitlab::rules::exclusion;
use crate::source::gitlab::rules::permalink;
use crate::window::Extent;

/// GitLab's reply for one lookup: the project, and the blob where the lookup was looked for
/// (`None`: nothing there).
#[derive(Debug)]
pub(crate) struct Reply {
    pub project: ProjectAnswer,
    pub node: Option<BlobFields>,
    /// The ref and path looked at (of a URL that splits several ways, the split chosen, or the
    /// one whose miss is explained), and the ref's type.
    pub git_ref: String,
    pub path: String,
    pub ref_type: Option<RefType>,
    pub split_fallback_from: Option<String>,
}

/// What the finish needs besides the reply: the lookup's key and project-id check, and what the
/// round asked.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Finish<'a> {
    pub key: &'a LookupKey,
    /// With a URL, a numeric `project_id` the URL's project must have.
    pub expect_project_id: Option<u64>,
    pub extent: Extent,
    /// Whether the request carried content.
    pub content: bool,
    /// The blob id the caller holds (`if_none_match`).
    pub held: Option<&'a str>,
    pub credential: Option<&'a Credential>,
}

/// What came of a finish: what the answer named (`None` when it named no blob), and the blob
/// (`Ok(None)`: asked without content, and the blob named is not cached).
#[derive(Debug)]
pub(crate) struct Finished {
    pub named: Option<Named>,
    pub fetched: Result<Option<Fetched>, SourceError>,
}

/// Finishes `reply`; `flight`, a first read of the same lookup in flight, is waited for only
/// once this caller's own reply has validated the lookup, and its failure taken as this call's
/// when it is about the same content.
pub(crate) async fn finish(
    shared: &GitlabState,
    reply: Reply,
    ask: Finish<'_>,
    flight: Option<Follow<Landed<Named>>>,
) -> Finished {
    let mut named = None;
    let fetched = steps(shared, reply, ask, flight, &mut named).await;
    Finished { named, fetched }
}

async fn steps(
    shared: &GitlabState,
    mut reply: Reply,
    ask: Finish<'_>,
    flight: Option<Follow<Landed<Named>>>,
    named: &mut Option<Named>,
) -> Result<Option<Fetched>, SourceError> {
    let Some(node) = reply.node.take() else {
        return Err(why_missing(shared, &reply, ask.credential).await);
    };
    refuse_excluded(&reply.project, &reply.path)?;
    let content = ContentKey::of(&node);
    shared.last_blobs.remember(ask.key, &content);
    let path = node.path.clone();
    let named = named.insert(Named { content, path });
    check_project_id(ask.expect_project_id, &reply.project)?;
    if let Some(flight) = flight
        && let Some(failure) = flight.outcome().await.and_then(|l| l.failure_for(named))
    {
        return Err(failure);
    }
    let asked = Asked::of(&node, ask.extent, ask.content, ask.held);
    blob(shared, reply, node, asked, ask.credential).await
}

/// The error for a blob GitLab did not find where the reply looked.
async fn why_missing(
    shared: &GitlabState,
    reply: &Reply,
    credential: Option<&Credential>,
) -> SourceError {
    let missing = probe::Missing {
        project_path: &reply.project.full_path,
        git_ref: &reply.git_ref,
        path: &reply.path,
        ref_type: reply.ref_type,
        rules: reply.project.rules.as_deref(),
    };
    probe::why_missing(&shared.connection, missing, credential).await
}

/// The blob of `node`, with its content as `asked` ([`ContentStore::read`]).
///
/// [`ContentStore::read`]: crate::source::gitlab::content::store::ContentStore::read
async fn blob(
    shared: &GitlabState,
    reply: Reply,
    node: BlobFields,
    asked: Asked,
    credential: Option<&Credential>,
) -> Result<Option<Fetched>, SourceError> {
    let Reply {
        project,
        git_ref,
        ref_type,
        split_fallback_from,
        ..
    } = reply;
    let (path, oid, language) = (node.path.clone(), node.oid.clone(), node.language.clone());
    let cited = node
        .permalink_path
        .as_deref()
        .and_then(|p| permalink::read(&shared.site, &project.full_path, p));
    if node.permalink_path.is_some() && cited.is_none() {
        tracing::debug!(permalink_path = ?node.permalink_path, "a permalink that names no commit of the project read");
    }
    let rest_ref = qualify_ref(&git_ref, ref_type);
    let at = FileAt {
        project_id: project.id,
        path: &path,
        git_ref: &rest_ref,
    };
    let Some(read) = shared.store.read(node, at, asked, credential).await? else {
        return Ok(None);
    };
    let (commit_sha, web_url) = cited.map(|c| (c.commit_sha, c.web_url)).unzip();
    let blob = Blob {
        path,
        git_ref,
        size_bytes: read.size_bytes,
        kind: read.kind,
        id: Some(oid),
        commit_sha,
    };
    Ok(Some(Fetched {
        blob,
        project: Some(project.full_path),
        split_fallback_from,
        web_url,
        language,
    }))
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
