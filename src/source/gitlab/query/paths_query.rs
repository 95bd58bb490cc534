//! Many paths of one project at one ref, asked as this GitLab will answer them: in requests of
//! at most the instance's paths per request ([`Capabilities::paths`](super::capabilities)),
//! halved (and remembered) when GitLab finds a request too costly; with content, a request
//! GitLab refuses past its 20 MiB cap is asked again without content (which names every
//! blob's full size) and then in parts packed by those sizes ([`size_parts`]), and a part it
//! still refuses (another version's rule) is split in halves, down to single paths, which
//! GitLab never checks. One answer with every part's blobs; no path fails because of
//! another's size.

use super::blob_query::{self, PathsRequest, ProjectAnswer};
use super::capabilities::too_costly;
use super::connection::Connection;
use super::size_parts::{self, MAX_REQUEST_CONTENT};
use crate::config::Credential;
use crate::source::gitlab::wire::error::GitlabError;

/// GitLab's words when a request's full sizes pass its cap.
pub(crate) const SIZE_LIMIT_MESSAGE: &str = "Max blobs size limit exceeded";

pub(crate) type PathsAnswer = Result<Option<ProjectAnswer>, GitlabError>;

/// What to do when GitLab refuses a part for its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OnSize {
    /// Learn the full sizes, then pack parts by them (the first refusal).
    Pack,
    /// Split the part in halves (a part packed by full sizes that is still refused).
    Halve,
}

/// Asks for `request`'s paths (with or without content), as many requests as this instance
/// needs. `Ok(None)`: the project is missing or unreadable.
pub(crate) async fn ask_paths(
    connection: &Connection,
    request: PathsRequest<'_>,
    with_content: bool,
    credential: Option<&Credential>,
) -> PathsAnswer {
    ask_split(connection, request, with_content, OnSize::Pack, credential).await
}

async fn ask_split(
    connection: &Connection,
    request: PathsRequest<'_>,
    with_content: bool,
    on_size: OnSize,
    credential: Option<&Credential>,
) -> PathsAnswer {
    let per_request = connection.caps().paths.get();
    if request.paths.len() > per_request {
        let parts = request.paths.chunks(per_request).collect::<Vec<_>>();
        return ask_each(
            connection,
            request,
            &parts,
            with_content,
            on_size,
            credential,
        )
        .await;
    }
    let refused = match blob_query::ask_paths(connection, request, with_content, credential).await {
        Err(GitlabError::Graphql { messages }) => messages,
        other => return other,
    };
    let count = request.paths.len();
    if too_costly(&refused) && connection.caps().paths.shrink_below(count) {
        return Box::pin(ask_split(
            connection,
            request,
            with_content,
            on_size,
            credential,
        ))
        .await;
    }
    let halves = size_parts::halves(request.paths);
    match (
        refused.contains(SIZE_LIMIT_MESSAGE) && with_content,
        on_size,
        halves,
    ) {
        (true, OnSize::Pack, Some(_)) => {
            tracing::info!(
                files = count,
                "GitLab: {SIZE_LIMIT_MESSAGE}; asking by full sizes"
            );
            Box::pin(ask_packed(connection, request, credential)).await
        }
        (true, OnSize::Halve, Some((first, second))) => {
            tracing::info!(
                files = count,
                "GitLab: {SIZE_LIMIT_MESSAGE} for a packed part; halving it"
            );
            let parts = [first, second];
            ask_each(connection, request, &parts, true, OnSize::Halve, credential).await
        }
        _ => Err(GitlabError::Graphql { messages: refused }),
    }
}

/// Asks without content (the answer names each blob's full size), then with content in parts
/// packed by those sizes.
async fn ask_packed(
    connection: &Connection,
    request: PathsRequest<'_>,
    credential: Option<&Credential>,
) -> PathsAnswer {
    let Some(mut sized) = ask_split(connection, request, false, OnSize::Halve, credential).await?
    else {
        return Ok(None);
    };
    let sizes: Vec<(&str, Option<u64>)> = sized
        .nodes
        .iter()
        .map(|n| (n.path.as_str(), n.size.map(|s| s.0)))
        .collect();
    let per_request = connection.caps().paths.get();
    let parts: Vec<Vec<String>> =
        size_parts::by_full_size(&sizes, MAX_REQUEST_CONTENT, per_request)
            .into_iter()
            .map(|part| part.into_iter().map(str::to_string).collect())
            .collect();
    sized.nodes.clear();
    if parts.is_empty() {
        // Nothing found at any path: the sized answer (project, no blobs) is the answer.
        return Ok(Some(sized));
    }
    let parts: Vec<Vec<&str>> = parts
        .iter()
        .map(|p| p.iter().map(String::as_str).collect())
        .collect();
    let parts: Vec<&[&str]> = parts.iter().map(Vec::as_slice).collect();
    let Some(answer) =
        ask_each(connection, request, &parts, true, OnSize::Halve, credential).await?
    else {
        return Ok(None);
    };
    sized.nodes = answer.nodes;
    Ok(Some(sized))
}

/// Each of `parts` asked in turn; one answer with all their blobs.
async fn ask_each(
    connection: &Connection,
    request: PathsRequest<'_>,
    parts: &[&[&str]],
    with_content: bool,
    on_size: OnSize,
    credential: Option<&Credential>,
) -> PathsAnswer {
    let mut whole: Option<ProjectAnswer> = None;
    for paths in parts {
        let part = PathsRequest { paths, ..request };
        let asked = Box::pin(ask_split(
            connection,
            part,
            with_content,
            on_size,
            credential,
        ));
        let Some(answer) = asked.await? else {
            return Ok(None);
        };
        match &mut whole {
            Some(whole) => whole.nodes.extend(answer.nodes),
            None => whole = Some(answer),
        }
    }
    Ok(whole)
}
