//! The MCP face: the rmcp server handler that turns a `tools/call` into a [`Reader`] call (or a
//! batch's) and its result into an MCP result, with the call's log line and metrics; the tools'
//! published definitions are in [`definition`] and [`batch`]. No GitLab or git knowledge lives
//! here. Beside it: the JSON-RPC edges both transports share ([`jsonrpc`]), calls cut off at
//! their time limit or at shutdown ([`cutoff`]), and the metrics' kind of a failed call
//! ([`outcome`]).
//!
//! May import the reader and the floors below it; only the transports import this module.

use crate::base::quote::shown;
use std::fmt::{self, Display, Formatter};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    ContentBlock, CustomRequest, CustomResult, Implementation, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, Reference, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

mod batch;
mod cutoff;
mod definition;
mod find;
pub(crate) mod jsonrpc;
mod outcome;
mod resources;

pub(crate) use cutoff::ClientLeft;

use crate::base::tool_name::ToolName;
use definition::tool;

use crate::config::{Admitted, Credential};
use crate::find::{FindAnswer, Finder};
use crate::metrics::{self, ErrorKind};
use crate::reader::Reader;
use crate::reader::batch::BatchError;
use crate::reader::caller::CallerContext;
use crate::reader::history::Caller;
use crate::resources::Resources;
use crate::tool::cutoff::Cutoffs;

/// A `tools/call` refused before any reading.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CallRefusal {
    /// Not our tool's name.
    UnknownTool { name: String, ours: &'static str },
    /// A request over HTTP the door did not admit (never expected: the door refuses a request
    /// without the token its mode needs before it reaches the tool).
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
    /// The token of a call that does not come over HTTP (stdio, `read`): the configured one.
    /// Over HTTP a call reads with what the door admitted ([`Admitted`]).
    configured: Option<Credential>,
    cutoffs: Cutoffs,
    /// The published definition, built once: rmcp asks for it on every `tools/call` too.
    tool: Arc<Tool>,
    /// Whether calls come in MCP sessions (HTTP without `--stateless`), whose ids tell
    /// clients apart.
    sessions: bool,
    /// `get_repository_files`'s, likewise.
    batch_tool: Arc<Tool>,
    /// `search_repository`'s, likewise.
    find_tool: Arc<Tool>,
    /// Runs `search_repository`.
    finder: Finder,
    /// Fired when the one client of the process is gone (stdio: stdin closed): every call
    /// still running is ended, its work stopped.
    client_gone: CancellationToken,
    /// The resources: templates, reads, the local list, completion.
    resources: Resources,
}

impl FileServer {
    /// A server reading through `reader`, with `configured` for calls not over HTTP.
    pub(crate) fn new(reader: Reader, configured: Option<Credential>) -> Self {
        let tool = Arc::new(tool(reader.defaults()));
        let batch_tool = Arc::new(batch::batch_tool(reader.defaults()));
        let find_tool = Arc::new(find::find_tool(reader.defaults()));
        let finder = Finder::new(reader.backend().clone(), reader.defaults().max_chars);
        let resources = Resources::new(reader.clone(), finder.clone());
        Self {
            reader,
            configured,
            cutoffs: Cutoffs::default(),
            tool,
            sessions: false,
            batch_tool,
            find_tool,
            finder,
            client_gone: CancellationToken::new(),
            resources,
        }
    }

    /// Calls still running when `token` fires are ended: their client is gone.
    pub(crate) fn with_client_gone(mut self, token: CancellationToken) -> Self {
        self.client_gone = token;
        self
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

    /// Runs the tool with explicit arguments for a caller (used by the `read` command too).
    pub async fn call(
        &self,
        arguments: Option<&serde_json::Map<String, Value>>,
        who: CallerContext<'_>,
    ) -> CallToolResult {
        // Boxed: the call's future is large, and is moved into `logged` by value.
        let read = Box::pin(self.reader.read(arguments, who));
        logged(
            ToolName::GetRepositoryFile,
            arguments,
            read,
            crate::tool::outcome::error_kind,
        )
        .await
    }

    /// Runs `get_repository_files` with explicit arguments for a caller.
    pub async fn call_many(
        &self,
        arguments: Option<&serde_json::Map<String, Value>>,
        who: CallerContext<'_>,
    ) -> CallToolResult {
        let read = Box::pin(self.reader.read_many(arguments, who));
        // Only a malformed call is the batch's own error; an entry's is inside its answer.
        let kind = |_: &BatchError| ErrorKind::BadArgument;
        logged(ToolName::GetRepositoryFiles, arguments, read, kind).await
    }
}

impl FileServer {
    /// Runs `search_repository` with explicit arguments for a caller.
    pub async fn call_find(
        &self,
        arguments: Option<&serde_json::Map<String, Value>>,
        who: CallerContext<'_>,
    ) -> CallToolResult {
        let find = Box::pin(self.finder.find(arguments, who));
        let kind = |e: &crate::find::FindError| match e {
            crate::find::FindError::Source(s) => crate::tool::outcome::source_kind(s),
            _ => ErrorKind::BadArgument,
        };
        logged(ToolName::SearchRepository, arguments, find, kind).await
    }
}

/// An answer as an MCP result.
trait Answer {
    fn result(self) -> CallToolResult;
}

impl Answer for Value {
    fn result(self) -> CallToolResult {
        CallToolResult::structured(self)
    }
}

/// `search_repository`'s: the structured output, and the same answer in grep form as text.
impl Answer for FindAnswer {
    fn result(self) -> CallToolResult {
        let mut result = CallToolResult::structured(self.structured);
        result.content = vec![ContentBlock::text(self.text)];
        result
    }
}

/// A call of `tool` (its name is also its label in the metrics) as an MCP result (an error as a
/// tool error, counted as `kind` says), with its log lines: the arguments (redacted) at debug,
/// the times at info.
async fn logged<T: Answer, E: std::fmt::Display>(
    label: ToolName,
    arguments: Option<&serde_json::Map<String, Value>>,
    read: impl Future<Output = Result<T, E>>,
    kind: impl Fn(&E) -> ErrorKind,
) -> CallToolResult {
    let tool = label.as_str();
    tracing::debug!(
        target: "gitlab_file_mcp::calls",
        arguments = %crate::base::redact::arguments(arguments),
        "{tool} arguments"
    );
    let (read, timing) = crate::base::timing::measure(read).await;
    metrics::tool_call(
        label,
        read.as_ref().err().map(kind),
        timing.total,
        timing.upstream,
    );
    let result = match read {
        Ok(value) => value.result(),
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
    /// Fires when the call of `context` is cancelled: by its client (`notifications/cancelled`,
    /// which rmcp turns into the request's token), because the client is gone (stdio), or
    /// because it left the HTTP request carrying the call ([`ClientLeft`]; in session mode
    /// rmcp keeps a call running when its stream is dropped, for a client that resumes it).
    async fn cancelled(&self, context: &RequestContext<RoleServer>) {
        let left = context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<ClientLeft>())
            .cloned();
        let left = async {
            match left {
                Some(ClientLeft(token)) => token.cancelled().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = context.ct.cancelled() => {}
            () = self.client_gone.cancelled() => {}
            () = left => {}
        }
    }

    /// Who a call comes from, for the "file changed" memory: the process's one client without
    /// HTTP; over HTTP, the caller's own token and the session, where they exist.
    fn caller(&self, context: &RequestContext<RoleServer>) -> Option<Caller> {
        let Some(parts) = context.extensions.get::<http::request::Parts>() else {
            return Some(Caller::Process);
        };
        let own_token = parts
            .extensions
            .get::<Admitted>()
            .and_then(Admitted::own_token);
        let session = parts
            .headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .filter(|_| self.sessions);
        Caller::over_http(own_token, session)
    }

    /// The credential a request reads with: without HTTP the configured one; over HTTP what
    /// the door admitted, or `Err` for a request it did not admit.
    fn credential(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<Option<Credential>, CallRefusal> {
        match context.extensions.get::<http::request::Parts>() {
            None => Ok(self.configured.clone()),
            Some(parts) => parts
                .extensions
                .get::<Admitted>()
                .map(|admitted| admitted.credential.clone())
                .ok_or(CallRefusal::NoCallerToken),
        }
    }
}

/// What the server tells an agent at initialization (and in `server/discover`): how to use the
/// tool well, in a few lines.
pub(crate) const INSTRUCTIONS: &str = "\
get_repository_file reads one file of a GitLab repository (or of a local git repository) at a branch, tag or commit, in line windows.
- Name the file by its URL (.../-/blob/<ref>/<path>, a #L10-20 anchor selects lines) or by project_id + file_path + ref (HEAD = the default branch).
- Follow system_instruction: it names the exact arguments of the next window, or says why a window was shortened.
- In a large file, search with pattern (a regular expression) instead of paging through it; to find files or lines in a whole ref, call search_repository (glob, pattern): each hit names the get_repository_file call that reads it.
- In a source file, pass outline: true to see its definitions with their lines, then symbol (a name it lists) to read one definition whole.
- To read several files at once (up to 20, each with its own window or pattern), call get_repository_files: one request per project and ref, one shared budget.
- To re-read a file you already hold, pass its metadata.blob_id as if_none_match: an unchanged file comes back without content.
- Cite metadata.web_url (a permalink at metadata.commit_sha, with the lines' anchor) rather than a URL naming a branch, which may move.";

fn server_info() -> &'static ServerConfig {
    static INFO: OnceLock<ServerConfig> = OnceLock::new();
    INFO.get_or_init(|| {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_completions()
            .build();
        ServerConfig::new(capabilities)
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
            (*self.find_tool).clone(),
        ]))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        match ToolName::of(name)? {
            ToolName::GetRepositoryFile => Some((*self.tool).clone()),
            ToolName::GetRepositoryFiles => Some((*self.batch_tool).clone()),
            ToolName::SearchRepository => Some((*self.find_tool).clone()),
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let _running = crate::metrics::call_running();
        let Some(tool) = ToolName::of(&request.name) else {
            let refusal = CallRefusal::UnknownTool {
                name: request.name.to_string(),
                ours: ToolName::listed(),
            };
            return Err(McpError::invalid_params(refusal.to_string(), None));
        };
        let credential = match self.credential(&context) {
            Ok(credential) => credential,
            Err(refusal) => {
                metrics::tool_call_not_run(tool, ErrorKind::NoToken);
                let refusal = refusal.to_string();
                return Ok(CallToolResult::error(vec![ContentBlock::text(refusal)]).into());
            }
        };
        let who = CallerContext {
            credential: credential.as_ref(),
            caller: self.caller(&context),
        };
        // The pool's slots are shared by the callers it can tell apart (`base::cpu`).
        let pool_key = match who.caller {
            Some(Caller::Http(key)) => Some(key),
            Some(Caller::Process) | None => None,
        };
        let arguments = request.arguments.as_ref();
        let call = async {
            match tool {
                ToolName::GetRepositoryFiles => {
                    let call = self.call_many(arguments, who);
                    self.cutoffs
                        .bound(tool, call, self.cancelled(&context))
                        .await
                }
                ToolName::GetRepositoryFile => {
                    let call = self.call(arguments, who);
                    self.cutoffs
                        .bound(tool, call, self.cancelled(&context))
                        .await
                }
                ToolName::SearchRepository => {
                    let call = self.call_find(arguments, who);
                    self.cutoffs
                        .bound(tool, call, self.cancelled(&context))
                        .await
                }
            }
        };
        let result = crate::base::cpu::as_caller(pool_key, call).await;
        Ok(result.into())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(
            self.resources.templates(),
        ))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        let listed = self.resources.list(cursor).await;
        listed.map_err(|e| resources::mcp_error(&e))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let _running = crate::metrics::call_running();
        let credential = self
            .credential(&context)
            .map_err(|refusal| McpError::invalid_request(refusal.to_string(), None))?;
        let who = CallerContext {
            credential: credential.as_ref(),
            caller: self.caller(&context),
        };
        let read = resources::read(&self.resources, &request.uri, who).await?;
        Ok(read.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let Reference::Resource(template) = &request.r#ref else {
            return Ok(CompleteResult::default());
        };
        let credential = self.credential(&context).ok().flatten();
        let filled = request
            .context
            .as_ref()
            .and_then(|c| c.arguments.clone())
            .unwrap_or_default();
        let argument = &request.argument;
        let completion = self.resources.complete(
            &template.uri,
            &argument.name,
            &argument.value,
            &filled,
            credential.as_ref(),
        );
        Ok(CompleteResult::new(completion.await))
    }

    /// rmcp hands over requests it could not type; a `tools/call` with malformed params is one.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        Err(crate::tool::jsonrpc::answer_untyped(&request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::args::ArgError;
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
                anonymous: true,
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
