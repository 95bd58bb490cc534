//! The MCP face: the `get_repository_file` tool's published definition (its input and output
//! schemas are the public contract, snapshotted in `tests/snapshots/`), and the rmcp server
//! handler that turns a `tools/call` into a [`Reader`] call and its result into an MCP result.
//! No GitLab or git knowledge lives here.

use crate::quote::shown;
use std::fmt::{self, Display, Formatter};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, Implementation, ListToolsResult, MetaObject, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

mod batch;

use crate::args::ArgName;
use crate::batch::BatchError;
use crate::config::Credential;
use crate::cutoff::Cutoffs;
use crate::history::Caller;
use crate::limits::{MAX_RESULT_CHARS, MAX_RESULT_ENVELOPE};
use crate::metrics::{self, ErrorKind};
use crate::reader::{ReadDefaults, ReadError, Reader};
use crate::window::search::{DEFAULT_CONTEXT_LINES, MAX_CONTEXT_LINES, MAX_PATTERN_BYTES};
use crate::window::{CONTROL_CHARGE, DEFAULT_LIMIT, MAX_LIMIT, MAX_WINDOW_BYTES};

/// The tool's name, as GitLab's own tool calls it.
pub(crate) const TOOL_NAME: &str = "get_repository_file";

/// The tools a `tools/call` may name, as a refusal lists them.
const TOOL_NAMES: &str = "get_repository_file, get_repository_files";

/// The `_meta` key that tells Claude Code how large a result of this tool may be inline.
const MAX_RESULT_SIZE_KEY: &str = "anthropic/maxResultSizeChars";

/// The largest result declared for a server whose default budget is `default_max_chars`:
/// twice the budget (a content charged `B` is at most `2 × B` characters as a JSON string)
/// plus [`MAX_RESULT_ENVELOPE`], at most [`MAX_RESULT_CHARS`]; no budget (0) declares
/// [`MAX_RESULT_CHARS`].
pub(crate) fn declared_result_chars(default_max_chars: u64) -> u64 {
    if default_max_chars == 0 {
        return MAX_RESULT_CHARS;
    }
    default_max_chars
        .saturating_mul(2)
        .saturating_add(MAX_RESULT_ENVELOPE)
        .min(MAX_RESULT_CHARS)
}

/// The default budget as the schema names it.
fn default_budget(defaults: ReadDefaults) -> String {
    match defaults.max_chars {
        0 => "0 (no budget)".to_string(),
        n => n.to_string(),
    }
}

/// The tool's description, with the window limits it names.
fn description(defaults: ReadDefaults) -> String {
    let budget = default_budget(defaults);
    format!(
        "Read a file from a GitLab repository at a branch, tag or commit. \
It reads what is committed in GitLab, not your local working copy: use it for projects you have \
not checked out, or for another ref. Pass a file URL, or project_id + file_path + ref (HEAD = the \
default branch). Large files come in line windows (offset/limit, zero-indexed, up to {MAX_LIMIT} lines, \
or start_line/end_line, 1-indexed inclusive); when the window is not the whole file, \
system_instruction names the exact arguments of the next call. Content is returned byte-for-byte \
(unless line_numbers), at most max_chars characters per call (default {budget}), so consecutive \
windows join back into the file. Use pattern to find the lines you need in a large file before \
paging it. metadata.commit_sha (and on GitLab metadata.web_url, a permalink of the lines returned) \
are what to cite; pass metadata.blob_id as if_none_match to re-read a file without its content \
when it has not changed."
    )
}

/// The tool's input schema, one property per [`ArgName`], in that order. No property is
/// required by the schema (url, or project_id + file_path + ref); unknown properties are
/// rejected.
pub(crate) fn input_schema(defaults: ReadDefaults) -> Value {
    arguments_schema(ArgName::ALL.into_iter(), defaults)
}

/// A strict object schema of `names`' properties, in that order.
fn arguments_schema(names: impl Iterator<Item = ArgName>, defaults: ReadDefaults) -> Value {
    let properties: Map<String, Value> = names
        .map(|name| (name.as_str().to_string(), property(name, defaults)))
        .collect();
    json!({
        "type": "object",
        "properties": properties,
        "additionalProperties": false
    })
}

/// One argument's schema, its limits taken from the windowing constants.
fn property(name: ArgName, defaults: ReadDefaults) -> Value {
    match name {
        ArgName::Url => json!({
            "type": "string",
            "description": "GitLab URL of the file, e.g. https://gitlab.com/gitlab-org/gitlab/-/blob/master/app/models/user.rb (also /-/raw/ and /-/blame/; a #L10-20 anchor selects those lines). Provide this, or project_id, file_path and ref."
        }),
        ArgName::ProjectId => json!({
            "type": "string",
            "description": "Numeric id or full path of the project, e.g. \"42\" or \"gitlab-org/gitlab\". Required if url is not provided; if url is also provided, both must name the same project."
        }),
        ArgName::FilePath => json!({
            "type": "string",
            "description": "Path of the file from the repository root, e.g. app/models/user.rb. Required if url is not provided."
        }),
        ArgName::Ref => json!({
            "type": "string",
            "description": "Branch name, tag name, or commit SHA. Use HEAD for the default branch. Required if url is not provided."
        }),
        ArgName::Offset => json!({
            "type": "integer",
            "minimum": 0,
            "description": "Zero-indexed line to start reading from. Default 0."
        }),
        ArgName::Limit => json!({
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_LIMIT,
            "description": format!("Maximum number of lines to return. Default {DEFAULT_LIMIT}, maximum {MAX_LIMIT}.")
        }),
        ArgName::StartLine => json!({
            "type": "integer",
            "description": "Alternative to offset/limit: first line to return, 1-indexed; below 1 is clamped to 1, past the end to the last line. start_line 0 with end_line 0 means no line range."
        }),
        ArgName::EndLine => json!({
            "type": "integer",
            "description": format!("Alternative to offset/limit: last line to return, 1-indexed, inclusive; 0 or below (or absent) means to the end of the file, past the end is clamped to it. At most {MAX_LIMIT} lines are returned.")
        }),
        ArgName::MaxChars => json!({
            "type": "integer",
            "minimum": 0,
            "description": format!("Most characters of content per call, line-number prefixes included (a control character other than tab, newline, carriage return, backspace and form feed counts {CONTROL_CHARGE}, as JSON escapes it); 0 = no budget (up to {MAX_WINDOW_BYTES} bytes). Whole lines are dropped from the end to fit; a single longer line is cut, and system_instruction says how to read it. Default {}.", default_budget(defaults))
        }),
        ArgName::LineNumbers => json!({
            "type": "boolean",
            "description": "Prefix each line with its number, cat -n style (number right-aligned, a tab). Default false."
        }),
        ArgName::Pattern => json!({
            "type": "string",
            "maxLength": MAX_PATTERN_BYTES,
            "description": format!("Find the lines matching this regular expression instead of reading a window: Rust regex syntax (linear time, no backtracking; no look-around or backreferences), matched against each line without its line ending. The window arguments (offset/limit or start_line/end_line) select the lines searched; without them the whole file is. content is grep -n output: 'N:line' for a match, 'N-line' for context, '--' between groups; metadata.matches lists the matching lines. At most {MAX_PATTERN_BYTES} bytes.")
        }),
        ArgName::IgnoreCase => json!({
            "type": "boolean",
            "description": "With pattern: match letters of any case. Default false."
        }),
        ArgName::ContextLines => json!({
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_CONTEXT_LINES,
            "description": format!("With pattern: lines shown before and after each match. Default {DEFAULT_CONTEXT_LINES}, maximum {MAX_CONTEXT_LINES}.")
        }),
        ArgName::IfNoneMatch => json!({
            "type": "string",
            "maxLength": crate::args::MAX_BLOB_ID_BYTES,
            "description": "metadata.blob_id of an earlier answer for this file, to re-read cheaply: if the file at the ref is still that blob, the answer has no content and metadata.unchanged is true (the content you hold is current); otherwise it is the normal answer."
        }),
    }
}

/// The tool's output schema.
pub(crate) fn output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": { "type": "string", "description": "Path of the file read." },
            "ref": { "type": "string", "description": "Ref the file was read at." },
            "metadata": {
                "type": "object",
                "properties": {
                    "total_lines": { "type": "integer", "minimum": 0, "description": "Lines in the file (in the part retrieved, if the file exceeded GitLab's read limit and the window lay inside that part)." },
                    "returned_lines": {
                        "description": "1-indexed inclusive range of the lines in content; null when content is empty.",
                        "anyOf": [
                            {
                                "type": "object",
                                "properties": {
                                    "start": { "type": "integer", "minimum": 1 },
                                    "end": { "type": "integer", "minimum": 1 }
                                },
                                "required": ["start", "end"]
                            },
                            { "type": "null" }
                        ]
                    },
                    "truncated": { "type": "boolean", "description": "True when content is not the whole file; with pattern, when not every match is in content." },
                    "size_bytes": { "type": "integer", "minimum": 0, "description": "Size of the whole file in bytes." },
                    "blob_id": { "type": "string", "description": "Git blob id of the content read: the same id means the same bytes (pass it as if_none_match to re-read cheaply). When it differs from the previous window's, the file changed at the ref in between (system_instruction says so)." },
                    "commit_sha": { "type": "string", "pattern": "^([0-9a-f]{40}|[0-9a-f]{64})$", "description": "The commit the ref resolved to: cite it, the ref may move." },
                    "web_url": { "type": "string", "description": "Permalink of the lines returned, at commit_sha (GitLab only): .../-/blob/<commit_sha>/<path>#L10-20. Cite it." },
                    "unchanged": { "type": "boolean", "const": true, "description": "Present (true) when the file is still the blob if_none_match named: there is no content, the content you hold is current." },
                    "matches": {
                        "type": "object",
                        "description": "With pattern: the matching lines. total counts every match in the lines searched, returned those in content, lines their 1-indexed numbers.",
                        "properties": {
                            "total": { "type": "integer", "minimum": 0 },
                            "returned": { "type": "integer", "minimum": 0 },
                            "lines": { "type": "array", "items": { "type": "integer", "minimum": 1 } }
                        },
                        "required": ["total", "returned", "lines"]
                    }
                },
                "required": ["size_bytes"]
            },
            "system_instruction": { "type": "string", "description": "What to do next: the next window's arguments, or why the window was shortened. Absent when there is nothing to say. Sent before content." },
            "content": { "type": "string", "description": "The lines, byte-for-byte, with their line terminators (each prefixed with its number and a tab when line_numbers is true); with pattern, grep -n output. Absent when metadata.unchanged." }
        },
        "required": ["path", "ref", "metadata"],
        // Every answer but an unchanged one has the content and the window's metadata; an
        // unchanged one has them when the server had the content at hand.
        "if": {
            "properties": { "metadata": { "required": ["unchanged"] } }
        },
        "else": {
            "required": ["content"],
            "properties": {
                "metadata": { "required": ["total_lines", "returned_lines", "truncated", "size_bytes"] }
            }
        }
    })
}

/// The published tool definition, for a server whose calls get `defaults`.
pub(crate) fn tool(defaults: ReadDefaults) -> Tool {
    let face = Face {
        name: TOOL_NAME,
        title: "Get repository file",
        description: description(defaults),
    };
    published(face, input_schema(defaults), output_schema(), defaults)
}

/// What a tool is called and says it does.
struct Face {
    name: &'static str,
    title: &'static str,
    description: String,
}

/// A tool definition: read-only, open-world, its result ceiling declared in `_meta`.
fn published(face: Face, input: Value, output: Value, defaults: ReadDefaults) -> Tool {
    let object = |v: Value| match v {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(serde_json::Map::new()),
    };
    let mut meta = Map::new();
    meta.insert(
        MAX_RESULT_SIZE_KEY.to_string(),
        Value::from(declared_result_chars(defaults.max_chars)),
    );
    Tool::new(face.name, face.description, object(input))
        .with_title(face.title)
        .with_meta(MetaObject::from(meta))
        .with_raw_output_schema(object(output))
        .with_annotations(
            ToolAnnotations::with_title(face.title)
                .read_only(true)
                .open_world(true),
        )
}

/// Whose token a call uses.
#[derive(Debug, Clone)]
pub(crate) enum TokenSource {
    /// The server's configured token (or none) for every call.
    Configured(Option<Credential>),
    /// The token of the HTTP request carrying the call: the HTTP layer reads it from the
    /// request's headers and puts it in the request's extensions as a [`Credential`] (rmcp
    /// hands the handler those as `http::request::Parts`); it refuses requests without one.
    FromRequest,
}

/// A `tools/call` refused before any reading.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CallRefusal {
    /// Not our tool's name.
    UnknownTool { name: String, ours: &'static str },
    /// `--token-from-request` and the request carried no token.
    NoCallerToken,
}

impl Display for CallRefusal {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            CallRefusal::UnknownTool { name, ours } => write!(
                f,
                "Unknown tool '{}'. This server's tools: {ours}.",
                shown(name)
            ),
            CallRefusal::NoCallerToken => f.write_str(
                "This server reads with each caller's own GitLab token: send it as 'Authorization: Bearer <token>' or 'PRIVATE-TOKEN: <token>'.",
            ),
        }
    }
}

/// The MCP server: one tool, backed by a [`Reader`].
#[derive(Debug, Clone)]
pub(crate) struct FileServer {
    reader: Reader,
    tokens: TokenSource,
    cutoffs: Cutoffs,
    /// The published definition, built once: rmcp asks for it on every `tools/call` too.
    tool: Arc<Tool>,
    /// Whether calls come in MCP sessions (HTTP without `--stateless`), whose ids tell
    /// clients apart.
    sessions: bool,
    /// `get_repository_files`'s, likewise.
    batch_tool: Arc<Tool>,
}

impl FileServer {
    pub(crate) fn new(reader: Reader, tokens: TokenSource) -> Self {
        let tool = Arc::new(tool(reader.defaults()));
        let batch_tool = Arc::new(batch::batch_tool(reader.defaults()));
        Self {
            reader,
            tokens,
            cutoffs: Cutoffs::default(),
            tool,
            sessions: false,
            batch_tool,
        }
    }

    /// Calls come in MCP sessions (a session id the transport has checked).
    pub(crate) fn with_sessions(mut self) -> Self {
        self.sessions = true;
        self
    }

    /// A `tools/call` running longer than `limit` is answered with a tool error, `message`.
    pub(crate) fn with_call_timeout(
        mut self,
        limit: Duration,
        message: impl Into<Arc<str>>,
    ) -> Self {
        self.cutoffs = self.cutoffs.with_time_limit(limit, message);
        self
    }

    /// A `tools/call` still running when `token` fires is answered with a tool error, `message`.
    pub(crate) fn with_shutdown(
        mut self,
        token: CancellationToken,
        message: impl Into<Arc<str>>,
    ) -> Self {
        self.cutoffs = self.cutoffs.with_shutdown(token, message);
        self
    }

    /// Runs the tool with explicit arguments and credential (used by the `read` command too).
    pub async fn call(
        &self,
        arguments: Option<&serde_json::Map<String, Value>>,
        credential: Option<&Credential>,
        caller: Option<Caller>,
    ) -> CallToolResult {
        // Boxed: the call's future is large, and is moved into `logged` by value.
        let read = Box::pin(self.reader.read(arguments, credential, caller));
        let kind = |e: &ReadError| crate::outcome::error_kind(e);
        logged(
            (TOOL_NAME, metrics::Tool::GetRepositoryFile),
            arguments,
            read,
            kind,
        )
        .await
    }

    /// Runs `get_repository_files` with explicit arguments and credential.
    pub async fn call_many(
        &self,
        arguments: Option<&serde_json::Map<String, Value>>,
        credential: Option<&Credential>,
        caller: Option<Caller>,
    ) -> CallToolResult {
        let read = Box::pin(crate::batch::read_many(
            &self.reader,
            arguments,
            (credential, caller),
        ));
        // Only a malformed call is the batch's own error; an entry's is inside its answer.
        let kind = |_: &BatchError| ErrorKind::BadArgument;
        let tool = (batch::BATCH_TOOL_NAME, metrics::Tool::GetRepositoryFiles);
        logged(tool, arguments, read, kind).await
    }
}

/// A call of `tool` (its name, and its label in the metrics) as an MCP result (an error as a
/// tool error, counted as `kind` says), with its log lines: the arguments (redacted) at debug,
/// the times at info.
async fn logged<E: std::fmt::Display>(
    (tool, label): (&'static str, metrics::Tool),
    arguments: Option<&serde_json::Map<String, Value>>,
    read: impl Future<Output = Result<Value, E>>,
    kind: impl Fn(&E) -> ErrorKind,
) -> CallToolResult {
    tracing::debug!(
        target: "gitlab_file_mcp::calls",
        arguments = %crate::redact::arguments(arguments),
        "{tool} arguments"
    );
    let (read, timing) = crate::timing::measure(read).await;
    metrics::tool_call(
        label,
        read.as_ref().err().map(kind),
        timing.total,
        timing.upstream,
    );
    let result = match read {
        Ok(value) => CallToolResult::structured(value),
        Err(e) => CallToolResult::error(vec![ContentBlock::text(e.to_string())]),
    };
    tracing::info!(
        target: "gitlab_file_mcp::calls",
        is_error = result.is_error == Some(true),
        total_us = timing.total.as_micros() as u64,
        upstream_us = timing.upstream.as_micros() as u64,
        own_us = timing.own().as_micros() as u64,
        "{tool}"
    );
    result
}

impl FileServer {
    /// Who a call comes from, for the "file changed" memory: the process's one client without
    /// HTTP; over HTTP, the token sent with the request and the session, where they exist.
    fn caller(
        &self,
        context: &RequestContext<RoleServer>,
        credential: Option<&Credential>,
    ) -> Option<Caller> {
        let Some(parts) = context.extensions.get::<http::request::Parts>() else {
            return Some(Caller::Process);
        };
        let own_token = credential.filter(|_| matches!(self.tokens, TokenSource::FromRequest));
        let session = parts
            .headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .filter(|_| self.sessions);
        Caller::over_http(own_token, session)
    }
}

/// What the server tells an agent at initialization (and in `server/discover`): how to use the
/// tool well, in a few lines.
pub(crate) const INSTRUCTIONS: &str = "\
get_repository_file reads one file of a GitLab repository (or of a local git repository) at a branch, tag or commit, in line windows.
- Name the file by its URL (.../-/blob/<ref>/<path>, a #L10-20 anchor selects lines) or by project_id + file_path + ref (HEAD = the default branch).
- Follow system_instruction: it names the exact arguments of the next window, or says why a window was shortened.
- In a large file, search with pattern (a regular expression) instead of paging through it.
- To read several files at once (up to 20, each with its own window or pattern), call get_repository_files: one request per project and ref, one shared budget.
- To re-read a file you already hold, pass its metadata.blob_id as if_none_match: an unchanged file comes back without content.
- Cite metadata.web_url (a permalink at metadata.commit_sha, with the lines' anchor) rather than a URL naming a branch, which may move.";

fn server_info() -> &'static ServerConfig {
    static INFO: OnceLock<ServerConfig> = OnceLock::new();
    INFO.get_or_init(|| {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "gitlab-file-mcp",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(INSTRUCTIONS)
    })
}

impl ServerHandler for FileServer {
    fn get_info(&self) -> ServerConfig {
        server_info().clone()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(vec![
            (*self.tool).clone(),
            (*self.batch_tool).clone(),
        ]))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        match name {
            TOOL_NAME => Some((*self.tool).clone()),
            batch::BATCH_TOOL_NAME => Some((*self.batch_tool).clone()),
            _ => None,
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let _running = crate::metrics::call_running();
        let batch = request.name == batch::BATCH_TOOL_NAME;
        if request.name != TOOL_NAME && !batch {
            let refusal = CallRefusal::UnknownTool {
                name: request.name.to_string(),
                ours: TOOL_NAMES,
            };
            return Err(McpError::invalid_params(refusal.to_string(), None));
        }
        let credential = match &self.tokens {
            TokenSource::Configured(c) => c.clone(),
            TokenSource::FromRequest => context
                .extensions
                .get::<http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<Credential>())
                .cloned(),
        };
        if matches!(self.tokens, TokenSource::FromRequest) && credential.is_none() {
            let tool = if batch {
                metrics::Tool::GetRepositoryFiles
            } else {
                metrics::Tool::GetRepositoryFile
            };
            metrics::tool_call_not_run(tool, ErrorKind::NoToken);
            let refusal = CallRefusal::NoCallerToken.to_string();
            return Ok(CallToolResult::error(vec![ContentBlock::text(refusal)]).into());
        }
        let caller = self.caller(&context, credential.as_ref());
        let (arguments, credential) = (request.arguments.as_ref(), credential.as_ref());
        if batch {
            let call = self.call_many(arguments, credential, caller);
            let tool = metrics::Tool::GetRepositoryFiles;
            return Ok(self.cutoffs.bound(tool, call).await.into());
        }
        let call = self.call(arguments, credential, caller);
        let tool = metrics::Tool::GetRepositoryFile;
        Ok(self.cutoffs.bound(tool, call).await.into())
    }

    /// rmcp hands over requests it could not type; a `tools/call` with malformed params is one.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        Err(crate::jsonrpc::answer_untyped(&request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::ArgError;
    use crate::resolve::{PathError, ResolveError};
    use crate::source::SourceError;

    #[test]
    fn every_echo_of_a_huge_value_is_short() {
        let huge = "x".repeat(1 << 20);
        let errors: Vec<String> = vec![
            ResolveError::NotAProject { raw: huge.clone() }.to_string(),
            ResolveError::ProjectIdTooLarge { raw: huge.clone() }.to_string(),
            ResolveError::RefMismatch {
                given: huge.clone(),
                in_url: huge.clone(),
            }
            .to_string(),
            ResolveError::UrlPath {
                url: huge.clone(),
                error: PathError::Traversal { path: huge.clone() },
            }
            .to_string(),
            SourceError::ProjectNotFound {
                project: huge.clone(),
            }
            .to_string(),
            SourceError::FileNotFound {
                path: huge.clone(),
                git_ref: huge.clone(),
            }
            .to_string(),
            SourceError::RefNotFound {
                git_ref: huge.clone(),
            }
            .to_string(),
            ArgError::Unknown {
                names: vec![huge.clone()],
                more: 0,
            }
            .to_string(),
            CallRefusal::UnknownTool {
                name: huge.clone(),
                ours: "t",
            }
            .to_string(),
        ];
        for e in errors {
            assert!(e.len() < 1_000, "{} bytes: {}…", e.len(), &e[..200]);
        }
    }
}
