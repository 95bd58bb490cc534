//! The bench's side of MCP: starts the release binary over stdio as rmcp's client, calls
//! `get_repository_file`, and reads what a client would hand the model from each result.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value};
use tokio::io::AsyncBufReadExt;

const BIN: &str = env!("CARGO_BIN_EXE_gitlab-file-mcp");
pub const TOOL: &str = "get_repository_file";

/// A server process and the MCP client connected to it.
pub struct Server {
    pub client: RunningService<RoleClient, ()>,
    pub pid: u32,
    own: Arc<Mutex<Vec<u64>>>,
}

/// Starts `gitlab-file-mcp` (stdio) against the GitLab at `base_url`; its logs are dropped.
pub async fn start(base_url: &str) -> Server {
    start_with(base_url, false).await
}

/// [`start`], keeping the server's own time per call (its `own_us` log field: the call's
/// time minus the time spent waiting on GitLab) for [`Server::own_times`].
pub async fn start_timed(base_url: &str) -> Server {
    start_with(base_url, true).await
}

async fn start_with(base_url: &str, timed: bool) -> Server {
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.env("GITLAB_URL", base_url)
        .env("GITLAB_TOKEN", "bench-token")
        .env_remove("GITLAB_FILE_MCP_LOG")
        .env_remove("GITLAB_FILE_MCP_MAX_CHARS");
    let stderr = if timed {
        cmd.env("GITLAB_FILE_MCP_LOG", "gitlab_file_mcp::calls=info");
        std::process::Stdio::piped()
    } else {
        std::process::Stdio::null()
    };
    let (transport, stderr) = TokioChildProcess::builder(cmd)
        .stderr(stderr)
        .spawn()
        .expect("spawn the server");
    let pid = transport.id().expect("the server's pid");
    let own = stderr.map(own_times_of).unwrap_or_default();
    let client = ().serve(transport).await.expect("MCP handshake");
    Server { client, pid, own }
}

/// The server's own time of each call in microseconds (its log's `own_us`), as the lines
/// of its log `stderr` arrive (the server logging `gitlab_file_mcp::calls=info`).
pub fn own_times_of(stderr: tokio::process::ChildStderr) -> Arc<Mutex<Vec<u64>>> {
    let own: Arc<Mutex<Vec<u64>>> = Arc::default();
    let kept = Arc::clone(&own);
    tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let us = line
                .split("own_us=")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .and_then(|v| v.parse::<u64>().ok());
            if let Some(us) = us {
                kept.lock().expect("lock").push(us);
            }
        }
    });
    own
}

/// One finished call: the result (or the JSON-RPC error) and how long the client waited.
pub struct Call {
    pub result: Result<CallToolResult, ServiceError>,
    pub elapsed: Duration,
}

impl Server {
    /// Calls the tool with `args` (a JSON object).
    pub async fn call(&self, args: &Map<String, Value>) -> Call {
        self.call_named(TOOL, args).await
    }

    /// Calls the tool `name` with `args` (a JSON object).
    pub async fn call_named(&self, name: &'static str, args: &Map<String, Value>) -> Call {
        let params = CallToolRequestParams::new(name).with_arguments(args.clone());
        let started = Instant::now();
        let result = self.client.call_tool(params).await;
        Call {
            result,
            elapsed: started.elapsed(),
        }
    }

    /// The server's own time of each call so far, in order ([`start_timed`] only): waits
    /// until the log line of call number `count` has arrived (it follows the answer closely).
    pub async fn own_times(&self, count: usize) -> Vec<Duration> {
        for _ in 0..200 {
            let own = self.own.lock().expect("lock").clone();
            if own.len() >= count {
                return own.into_iter().map(Duration::from_micros).collect();
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the server logged fewer than {count} calls");
    }

    /// Peak resident set size of the server so far (VmHWM), in KiB.
    pub fn peak_rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid)).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    pub async fn stop(self) {
        let _ = self.client.cancel().await;
    }
}

/// The arguments of a call to the mock project's `path` at `main`.
pub fn file_args(path: &str) -> Map<String, Value> {
    let mut args = Map::new();
    args.insert("project_id".into(), "grp/proj".into());
    args.insert("file_path".into(), path.into());
    args.insert("ref".into(), "main".into());
    args
}

/// All text content blocks of a result: what a client hands the model.
pub fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.as_str())
        .collect()
}

/// The tool's output object: `structuredContent`, else the JSON text block.
pub fn output_of(result: &CallToolResult) -> Option<Value> {
    if let Some(v) = &result.structured_content {
        return Some(v.clone());
    }
    serde_json::from_str(&text_of(result)).ok()
}

/// The error a call reported, as a tool error (`isError`) or a JSON-RPC error.
pub fn error_of(call: &Call) -> Option<String> {
    match &call.result {
        Err(e) => Some(e.to_string()),
        Ok(r) if r.is_error == Some(true) => Some(text_of(r)),
        Ok(_) => None,
    }
}

/// `p` in 0..=1 of sorted durations (nearest rank); zero when empty.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// `1234567` → `"1,234,567"`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
