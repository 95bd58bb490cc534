//! Test support: the real `gitlab-file-mcp` binary spawned over stdio and driven by rmcp's MCP
//! client.
#![allow(dead_code)]

use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value};

use super::env;

/// A running server and the client talking to it.
pub struct Server {
    client: RunningService<RoleClient, ()>,
    /// The server process (to read its CPU time from `/proc`).
    pid: Option<u32>,
}

/// Spawns the binary with `args` and `env` (on top of a cleaned environment).
pub async fn spawn(args: &[&str], env: &[(&str, &str)]) -> Server {
    let mut cmd = command(args, env);
    cmd.stderr(std::process::Stdio::inherit());
    let transport = TokioChildProcess::new(cmd).expect("spawn gitlab-file-mcp");
    let pid = transport.id();
    let client = ().serve(transport).await.expect("MCP handshake with gitlab-file-mcp");
    Server { client, pid }
}

/// Like [`spawn`], but starting the session the 2026-07-28 way: `server/discover` instead of
/// `initialize`.
pub async fn spawn_discovering(args: &[&str], env: &[(&str, &str)]) -> Server {
    use rmcp::ClientServiceExt;
    use rmcp::model::ProtocolVersion;
    let mut cmd = command(args, env);
    cmd.stderr(std::process::Stdio::inherit());
    let transport = TokioChildProcess::new(cmd).expect("spawn gitlab-file-mcp");
    let pid = transport.id();
    let lifecycle = rmcp::ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client =
        ().serve_with_lifecycle(transport, lifecycle)
            .await
            .expect("server/discover with gitlab-file-mcp");
    Server { client, pid }
}

/// Like [`spawn`], with the server's stderr piped back: read it to the end after
/// [`Server::stop`] (which ends the process).
pub async fn spawn_with_stderr(
    args: &[&str],
    env: &[(&str, &str)],
) -> (Server, tokio::process::ChildStderr) {
    let (transport, stderr) = TokioChildProcess::builder(command(args, env))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn gitlab-file-mcp");
    let pid = transport.id();
    let client = ().serve(transport).await.expect("MCP handshake with gitlab-file-mcp");
    (Server { client, pid }, stderr.expect("piped stderr"))
}

/// The binary with `args`, in a cleaned environment plus `env`.
fn command(args: &[&str], env: &[(&str, &str)]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_gitlab-file-mcp"));
    cmd.args(args);
    for name in env::cleared() {
        cmd.env_remove(name);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// Spawns the server against a GitLab at `gitlab_url`, with an optional token.
pub async fn spawn_gitlab(gitlab_url: &str, token: Option<&str>) -> Server {
    let mut env = vec![("GITLAB_URL", gitlab_url)];
    if let Some(t) = token {
        env.push(("GITLAB_TOKEN", t));
    }
    spawn(&[], &env).await
}

impl Server {
    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.pid.expect("the server's process id")
    }

    /// Calls `get_repository_file` with a JSON object of arguments.
    pub async fn call(&self, arguments: Value) -> CallToolResult {
        self.call_tool("get_repository_file", arguments).await
    }

    /// Calls `get_repository_files` with a JSON object of arguments.
    pub async fn call_many(&self, arguments: Value) -> CallToolResult {
        self.call_tool("get_repository_files", arguments).await
    }

    async fn call_tool(&self, name: &'static str, arguments: Value) -> CallToolResult {
        let Value::Object(map) = arguments else {
            panic!("arguments must be an object");
        };
        self.client
            .call_tool(CallToolRequestParams::new(name).with_arguments(map))
            .await
            .expect("tools/call transport")
    }

    /// Calls a tool by name (for the unknown-tool test).
    pub async fn call_named(&self, name: &str, arguments: Value) -> Result<CallToolResult, String> {
        let Value::Object(map) = arguments else {
            panic!("arguments must be an object");
        };
        self.client
            .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(map))
            .await
            .map_err(|e| e.to_string())
    }

    /// `tools/list`.
    pub async fn list_tools(&self) -> Vec<Tool> {
        self.client.list_all_tools().await.expect("tools/list")
    }

    /// `resources/templates/list`.
    pub async fn resource_templates(&self) -> Vec<rmcp::model::ResourceTemplate> {
        self.client
            .list_resource_templates(None)
            .await
            .expect("resources/templates/list")
            .resource_templates
    }

    /// `resources/read` of `uri`: the result, or the MCP error's code and message.
    pub async fn read_resource(
        &self,
        uri: &str,
    ) -> Result<rmcp::model::ReadResourceResult, (i32, String)> {
        let params = rmcp::model::ReadResourceRequestParams::new(uri);
        match self.client.read_resource(params).await {
            Ok(r) => Ok(r),
            Err(rmcp::ServiceError::McpError(e)) => Err((e.code.0, e.message.to_string())),
            Err(e) => panic!("resources/read transport: {e}"),
        }
    }

    /// One page of `resources/list`.
    pub async fn list_resources(&self, cursor: Option<String>) -> rmcp::model::ListResourcesResult {
        let params = rmcp::model::PaginatedRequestParams::default().with_cursor(cursor);
        self.client
            .list_resources(Some(params))
            .await
            .expect("resources/list")
    }

    /// `completion/complete` of `argument` = `value` of the template `template`, with the
    /// other variables `filled`.
    pub async fn complete(
        &self,
        template: &str,
        argument: &str,
        value: &str,
        filled: &[(&str, &str)],
    ) -> rmcp::model::CompletionInfo {
        use rmcp::model::{ArgumentInfo, CompleteRequestParams, CompletionContext, Reference};
        let filled = filled
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let params = CompleteRequestParams::new(
            Reference::for_resource(template),
            ArgumentInfo::new(argument, value),
        )
        .with_context(CompletionContext::with_arguments(filled));
        self.client
            .complete(params)
            .await
            .expect("completion/complete")
            .completion
    }

    /// The `instructions` the server sent when the session started.
    pub fn instructions(&self) -> Option<String> {
        self.client
            .peer_info()
            .and_then(|info| info.instructions.clone())
    }

    /// Ends the session and the child process.
    pub async fn stop(self) {
        let _ = self.client.cancel().await;
    }
}

/// The text of a result's first content block.
pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default()
}

/// Asserts a successful result and returns its structured content (checking the text copy).
pub fn ok(result: &CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "tool error: {}", text(result));
    let structured = result
        .structured_content
        .clone()
        .expect("structuredContent");
    let copy: Value = serde_json::from_str(&text(result)).expect("text block is JSON");
    assert_eq!(copy, structured, "text block and structuredContent differ");
    structured
}

/// Asserts an `isError` result and returns its message.
pub fn err(result: &CallToolResult) -> String {
    assert_eq!(
        result.is_error,
        Some(true),
        "expected an error, got {:?}",
        result.structured_content
    );
    text(result)
}

/// The keys of an answer, in the order the server sends them (issue 18: the hint before the
/// content, so a client keeping only a result's head keeps it).
pub const OUTPUT_KEYS: [&str; 5] = ["path", "ref", "system_instruction", "metadata", "content"];

/// The keys of `metadata`, in the order the server sends them (each only when present).
pub const METADATA_KEYS: [&str; 12] = [
    "total_lines",
    "returned_lines",
    "truncated",
    "columns",
    "size_bytes",
    "blob_id",
    "commit_sha",
    "web_url",
    "unchanged",
    "matches",
    "outline",
    "symbol",
];

/// The keys of a JSON object in their order (the client parses with `preserve_order`, so that
/// is the order on the wire); none for another value.
pub fn keys(value: &Value) -> Vec<&str> {
    value
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// A JSON value for an assertion message: at most 200 characters of it.
pub fn shown(value: &Value) -> String {
    value.to_string().chars().take(200).collect()
}

/// The first argument object a hint names: the call that continues exactly where the content
/// stopped, which an agent merges into its previous arguments; `None` when the hint names no
/// call. Panics when what follows the first `{` is not a JSON object.
pub fn first_call(hint: &str) -> Option<Map<String, Value>> {
    let at = hint.find('{')?;
    let mut objects = serde_json::Deserializer::from_str(&hint[at..]).into_iter::<Value>();
    match objects.next()? {
        Ok(Value::Object(call)) => Some(call),
        other => panic!("the hint's first object is not JSON: {other:?} in {hint}"),
    }
}
