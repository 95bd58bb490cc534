//! Test support: the real `gitlab-file-mcp` binary serving streamable HTTP on 127.0.0.1:0,
//! rmcp's streamable-HTTP client for it, and raw HTTP/1.1 over TCP for requests no client
//! library would send.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use http::{HeaderName, HeaderValue};
use rmcp::model::ClientConfig;
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};

use super::env;

const BIN: &str = env!("CARGO_BIN_EXE_gitlab-file-mcp");
/// Hang guard for waits on a condition; never an assertion about speed.
pub const PATIENCE: Duration = Duration::from_secs(90);

/// A running `serve --http 127.0.0.1:0` and its stderr.
pub struct HttpServer {
    child: Child,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    pub port: u16,
    log: Arc<Mutex<String>>,
}

impl HttpServer {
    /// Starts `serve --http 127.0.0.1:0 <extra>` against `gitlab`, with `token` as the
    /// server's own GITLAB_TOKEN, and waits for its "listening on" line.
    pub fn start(gitlab: &str, extra: &[&str], token: Option<&str>) -> HttpServer {
        Self::start_with_env(gitlab, extra, token, &[])
    }

    /// [`Self::start`] with `vars` set in the server's environment.
    pub fn start_with_env(
        gitlab: &str,
        extra: &[&str],
        token: Option<&str>,
        vars: &[(&str, &str)],
    ) -> HttpServer {
        let mut cmd = Command::new(BIN);
        for var in env::cleared() {
            cmd.env_remove(var);
        }
        cmd.arg("serve");
        // A test may name its own address (`--http 127.0.0.1:PORT`).
        if !extra.contains(&"--http") {
            cmd.args(["--http", "127.0.0.1:0"]);
        }
        cmd.args(extra)
            .env("GITLAB_URL", gitlab)
            .env("GITLAB_FILE_MCP_LOG", "debug")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(token) = token {
            cmd.env("GITLAB_TOKEN", token);
        }
        cmd.envs(vars.iter().copied());
        let mut child = cmd.spawn().expect("spawn the server");
        let stderr = child.stderr.take().expect("piped stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = mpsc::channel();
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("listening on ").nth(1) {
                    let _ = tx.send(rest.trim().trim_end_matches("/mcp").to_string());
                }
                let mut log = sink.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        let base = rx.recv_timeout(PATIENCE).unwrap_or_else(|_| {
            panic!(
                "the server printed no 'listening on' line:\n{}",
                log.lock().unwrap()
            )
        });
        let port = base
            .strip_prefix("http://127.0.0.1:")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("not a loopback address: {base}"));
        HttpServer {
            child,
            base,
            port,
            log,
        }
    }

    /// The server's process id (to read its CPU time from `/proc`).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn mcp(&self) -> String {
        format!("{}/mcp", self.base)
    }

    /// The server's `/metrics` page, as a scraper reads it.
    pub async fn metrics(&self) -> String {
        let page = http_client().get(format!("{}/metrics", self.base)).send();
        page.await.unwrap().text().await.unwrap()
    }

    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    pub fn sigterm(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success());
    }

    /// Waits for the process to exit (hang guard only).
    pub async fn exit_status(&mut self) -> ExitStatus {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for the server") {
                return status;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the server did not exit:\n{}",
                self.log()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A TCP connection to the server, with the hang guard as read timeout.
    pub fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        stream
    }

    /// Sends `request` (raw HTTP/1.1 bytes, which should ask `Connection: close`) on a new
    /// connection and reads the whole answer.
    pub async fn raw(&self, request: Vec<u8>) -> RawResponse {
        let mut stream = self.connect();
        tokio::task::spawn_blocking(move || {
            // The server may answer and close before all of a refused request is sent.
            let _ = stream.write_all(&request);
            let mut answer = Vec::new();
            let _ = stream.read_to_end(&mut answer);
            RawResponse::parse(&answer)
        })
        .await
        .unwrap()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A response read off the wire.
#[derive(Debug)]
pub struct RawResponse {
    pub status: u16,
    /// Header lines, lower-cased.
    pub head: String,
    pub body: String,
}

impl RawResponse {
    pub fn parse(bytes: &[u8]) -> RawResponse {
        let text = String::from_utf8_lossy(bytes);
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status line in {text:?}"));
        RawResponse {
            status,
            head: head.to_ascii_lowercase(),
            body: body.to_string(),
        }
    }

    /// The body as JSON (panics if it is not).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {:?}", self.body))
    }
}

/// A POST to /mcp with `headers` (each `Name: value`) and `body`, declared by Content-Length,
/// asking the server to close the connection after answering.
pub fn post(host: &str, headers: &[&str], body: &[u8]) -> Vec<u8> {
    let mut head = format!("POST /mcp HTTP/1.1\r\nHost: {host}\r\n");
    for header in headers {
        head.push_str(header);
        head.push_str("\r\n");
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    [head.as_bytes(), body].concat()
}

/// The headers MCP requires on a POST.
pub const MCP_HEADERS: [&str; 2] = [
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
];

/// An HTTP client that ignores any proxy settings of the test environment.
pub fn http_client() -> reqwest::Client {
    // reqwest is built without a default TLS provider; an Err means one is installed already.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("reqwest client")
}

/// rmcp's streamable-HTTP client sending `headers` on every request.
pub async fn mcp_client(
    url: &str,
    headers: &[(&str, &str)],
) -> RunningService<RoleClient, ClientConfig> {
    let custom: HashMap<HeaderName, HeaderValue> = headers
        .iter()
        .map(|(k, v)| {
            (
                HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            )
        })
        .collect();
    let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom);
    let transport = StreamableHttpClientTransport::with_client(http_client(), config);
    ClientConfig::default()
        .serve(transport)
        .await
        .expect("MCP client connects")
}

/// Waits (at most [`PATIENCE`]) until `gitlab` has received `n` requests.
pub async fn wait_for_gitlab_requests(gitlab: &wiremock::MockServer, n: usize) {
    let waited = tokio::time::timeout(PATIENCE, async {
        while gitlab.received_requests().await.unwrap_or_default().len() < n {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(waited.is_ok(), "GitLab never received {n} request(s)");
}

/// The text of all of a result's content blocks, joined.
pub fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}
