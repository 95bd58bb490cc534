//! GitLab's own code search, asked for candidate files only (`GET /projects/:id/search
//! ?scope=blobs`, every tier): a literal, matched case-insensitively, at a commit, 100 results
//! a page, asked page after page (page 1 of 100 never says there is a next one) up to
//! [`MAX_PAGES`]. Every result names a path; a path is a candidate, which `search_repository`
//! verifies on the blob itself. A search turned off (403), rate limited (429) or otherwise
//! failing leaves the caller to scan, and says why.

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

use crate::config::Credential;
use crate::source::gitlab::query::connection::Connection;
use crate::source::gitlab::wire::transport_error::TransportError;
use crate::source::tree::{Proposed, RefCommit};

/// Results per page (GitLab's largest).
const PER_PAGE: usize = 100;

/// The most pages asked for one literal (10,000 results: chunks of matching lines).
const MAX_PAGES: usize = 100;

/// The most bytes of one page's answer read.
const MAX_PAGE_BYTES: usize = 16 << 20;

/// How many files a scan may read on GitLab when its search cannot be used.
pub(crate) const SCAN_LIMIT: usize = 500;

/// The paths GitLab's search finds `literal` in under `dir` at `at`'s commit.
pub(crate) async fn propose(
    connection: &Connection,
    at: &RefCommit,
    literal: &str,
    dir: &str,
    credential: Option<&Credential>,
) -> Proposed {
    if literal.is_empty() {
        return unavailable("no literal to search for".into());
    }
    let project = match (at.project_id, at.project_path.as_deref()) {
        (Some(id), _) => id.to_string(),
        (None, Some(p)) => utf8_percent_encode(p, NON_ALPHANUMERIC).to_string(),
        (None, None) => return unavailable("the project is not known".into()),
    };
    let term = utf8_percent_encode(literal, NON_ALPHANUMERIC);
    let mut paths = Vec::new();
    for page in 1..=MAX_PAGES {
        let query = format!(
            "projects/{project}/search?scope=blobs&search={term}&ref={}&per_page={PER_PAGE}&page={page}",
            at.sha
        );
        let results = match ask_page(connection, &query, credential).await {
            Ok(results) => results,
            Err(e) => return unavailable(why(&e)),
        };
        let count = results.len();
        let prefix = format!("{dir}/");
        paths.extend(
            results
                .into_iter()
                .filter(|p| dir.is_empty() || p.starts_with(&prefix)),
        );
        if count < PER_PAGE {
            paths.sort();
            paths.dedup();
            return Proposed::Paths {
                paths,
                complete: true,
            };
        }
    }
    paths.sort();
    paths.dedup();
    Proposed::Paths {
        paths,
        complete: false,
    }
}

fn unavailable(why: String) -> Proposed {
    Proposed::Unavailable {
        why,
        scan_limit: SCAN_LIMIT,
    }
}

/// What the answer says of a search GitLab refused.
fn why(e: &TransportError) -> String {
    match e {
        TransportError::Rejected { status: 403, .. } => {
            "GitLab's code search is turned off on this instance or not allowed to this token (403)"
                .into()
        }
        TransportError::Raw { status: 429, .. }
        | TransportError::RetriesExhausted { status: 429, .. } => {
            "GitLab's code search is rate limited now (429)".into()
        }
        other => format!("GitLab's code search failed ({other})"),
    }
}

/// One page of results: the path each names.
async fn ask_page(
    connection: &Connection,
    query: &str,
    credential: Option<&Credential>,
) -> Result<Vec<String>, TransportError> {
    let mut body = connection
        .get_rest(query, "GitLab's code search", credential)
        .await?;
    let mut bytes = Vec::new();
    while let Some(chunk) = body.chunk().await? {
        bytes.extend_from_slice(&chunk);
        if bytes.len() > MAX_PAGE_BYTES {
            break;
        }
    }
    let results: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let paths = results
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|r| r.get("path").or_else(|| r.get("filename")))
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    Ok(paths)
}
