//! The resources' MCP edge: a resource read timed, logged and counted in `/metrics` as a
//! `get_repository_file` call (it is one), and a [`ResourceError`] as an MCP error whose
//! message is the tool's sentence: a missing project, ref or file is "resource not found"
//! (the same words whether the project is missing or unreadable), a bad URI or cursor
//! "invalid params".

use rmcp::ErrorData as McpError;
use rmcp::model::ReadResourceResult;

use crate::base::tool_name::ToolName;
use crate::metrics::{self, ErrorKind};
use crate::reader::caller::CallerContext;
use crate::resources::{ResourceError, Resources};
use crate::tool::outcome::error_kind;

/// `resources/read` of `uri` for `who`, counted and logged as a call.
pub(super) async fn read(
    resources: &Resources,
    uri: &str,
    who: CallerContext<'_>,
) -> Result<ReadResourceResult, McpError> {
    let (read, timing) = crate::base::timing::measure(resources.read(uri, who)).await;
    let kind = read.as_ref().err().map(kind);
    metrics::tool_call(
        ToolName::GetRepositoryFile,
        kind,
        timing.total,
        timing.upstream,
    );
    tracing::info!(
        target: "gitlab_file_mcp::calls",
        is_error = kind.is_some(),
        total_us = timing.total.as_micros() as u64,
        upstream_us = timing.upstream.as_micros() as u64,
        "resources/read"
    );
    read.map_err(|e| mcp_error(&e))
}

/// The kind a failed resource request counts as.
fn kind(e: &ResourceError) -> ErrorKind {
    match e {
        ResourceError::Read(e) => error_kind(e),
        ResourceError::List(crate::find::FindError::Source(e)) => {
            crate::tool::outcome::source_kind(e)
        }
        ResourceError::List(_) => ErrorKind::Internal,
        ResourceError::Uri(_) | ResourceError::BadCursor => ErrorKind::BadArgument,
        ResourceError::TooLargeBlob(_) => ErrorKind::TooLarge,
    }
}

/// A resource request's failure as an MCP error with its sentence.
pub(super) fn mcp_error(e: &ResourceError) -> McpError {
    let message = e.to_string();
    match kind(e) {
        ErrorKind::NotFound => McpError::resource_not_found(message, None),
        ErrorKind::BadArgument
        | ErrorKind::Binary
        | ErrorKind::Lfs
        | ErrorKind::Excluded
        | ErrorKind::TooLarge => McpError::invalid_params(message, None),
        _ => McpError::internal_error(message, None),
    }
}
