//! `serve --http` end to end: the real binary listening on 127.0.0.1, driven by rmcp's
//! streamable-HTTP client and by raw HTTP, against a wiremock GitLab that answers according to
//! the token it is sent (alice can read `grp/alice`, bob `grp/bob`, the server's token both).
//!
//! Covers: per-user tokens in stateless and session mode (and the token of each request, not of
//! the session), the shared-token default, the refusals (401, 403, 413, 503, 504), /healthz,
//! SIGTERM draining, HTTPS_PROXY/NO_PROXY, and that no token reaches the logs. No test asserts
//! a duration: waits are on conditions, with generous hang guards.

use crate::support::gitlab::{Access, Gitlab, User};
use crate::support::http_server;
use crate::support::users;

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_server::{
    HttpServer as Server, PATIENCE, http_client as http, mcp_client, text, wait_for_gitlab_requests,
};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::{Value, json};

use wiremock::MockServer;

const BIN: &str = env!("CARGO_BIN_EXE_gitlab-file-mcp");
const ALICE: &str = "glpat-ALICE-aaaaaaaaaaaaaaaa";
const BOB: &str = "glpat-BOB-bbbbbbbbbbbbbbbbbb";
const SERVER_TOKEN: &str = "glpat-SERVER-ssssssssssssss";

// ---------------------------------------------------------------------------------------------
// A GitLab that knows who may read what.

/// The files each project holds on `main`; a file's text names its project and path.
const FILES: &[&str] = &[
    "a.txt",
    "after-delete.txt",
    "after.txt",
    "alice-denied.txt",
    "as-alice.txt",
    "as-bob.txt",
    "bob-denied.txt",
    "in-flight.txt",
    "no-token.txt",
    "p.txt",
    "refused.txt",
    "shared.txt",
    "slow.txt",
];

/// The GitLab stand-in with `grp/alice` and `grp/bob`: the server's token reads both, Alice's
/// and Bob's tokens their own, any other token is refused (401); each answer comes `delay` late.
async fn gitlab(delay: Duration) -> MockServer {
    let users = vec![
        User::new(SERVER_TOKEN, 1, &[]),
        User::new(ALICE, 2, &["grp/alice"]),
        User::new(BOB, 3, &["grp/bob"]),
    ];
    let gitlab = Gitlab {
        access: Access::Users(users),
        delay: (!delay.is_zero()).then_some(delay),
        ..Gitlab::of_project("grp/alice", 42)
    };
    gitlab.host("grp/bob", 43);
    let numbered = (0..8)
        .map(|i| format!("alice-{i}.txt"))
        .chain((0..8).map(|i| format!("bob-{i}.txt")));
    let names: Vec<String> = FILES
        .iter()
        .map(|f| f.to_string())
        .chain(numbered)
        .collect();
    for project in ["grp/alice", "grp/bob"] {
        for name in &names {
            let text = format!("{project}:{name}\n").into_bytes();
            gitlab.put_in(project, "refs/heads/main", name, text, false);
        }
    }
    gitlab.start().await
}

use users::bearer;

/// (file path, token) of every GitLab request but the token checks (tests/it/serving/sessions.rs counts
/// those), in order.
async fn seen(gitlab: &MockServer) -> Vec<(String, Option<String>)> {
    gitlab
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .filter(|r| !users::is_token_check(r))
        .map(|r| {
            let body: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
            let file = body
                .pointer("/variables/paths/0")
                .and_then(Value::as_str)
                .unwrap_or("");
            (file.to_string(), bearer(r))
        })
        .collect()
}

/// Awaits `f` with the hang guard.
async fn patiently<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(PATIENCE, f)
        .await
        .expect("hung: no answer")
}

// ---------------------------------------------------------------------------------------------
// The server under test (tests/it/support/http_server.rs) and its clients.

/// No token ever appears in the server's log (run at debug level).
fn assert_no_secrets(server: &Server) {
    let log = server.log();
    for token in [ALICE, BOB, SERVER_TOKEN] {
        assert!(!log.contains(token), "a token reached the log:\n{log}");
    }
}

fn read_args(project: &str, file: &str) -> CallToolRequestParams {
    let args = json!({"project_id": project, "file_path": file, "ref": "main"});
    let Value::Object(map) = args else {
        unreachable!()
    };
    CallToolRequestParams::new("get_repository_file").with_arguments(map)
}

/// The file content of a successful call.
fn content(result: &CallToolResult) -> String {
    assert_ne!(result.is_error, Some(true), "tool error: {}", text(result));
    let value = result
        .structured_content
        .as_ref()
        .expect("structured content");
    value["content"].as_str().expect("content").to_string()
}

fn call_body(id: u64, project: &str, file: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "get_repository_file",
        "arguments": {"project_id": project, "file_path": file, "ref": "main"}
    }})
}

/// POSTs one JSON-RPC message to /mcp with the headers MCP requires plus `headers`.
async fn post(url: &str, body: &Value, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut request = http()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    request.send().await.expect("POST /mcp")
}

/// Borrowed header pairs from owned ones.
fn with<'a>(headers: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    headers.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// The JSON-RPC message answering `id`, from a JSON or SSE response body.
async fn answer(response: reqwest::Response, id: u64) -> Value {
    let body = response.text().await.expect("response body");
    if let Ok(v) = serde_json::from_str::<Value>(&body) {
        return v;
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|v| v["id"] == json!(id))
        .unwrap_or_else(|| panic!("no answer to {id} in: {body}"))
}

// ---------------------------------------------------------------------------------------------
// Per-user tokens.

/// Alice (Authorization: Bearer) and Bob (PRIVATE-TOKEN) share one server and read at the same
/// time; each reads what their own token allows, and GitLab sees each token only on its own
/// user's calls.
async fn two_users_share_one_server(mode: &[&str]) {
    let gitlab = gitlab(Duration::ZERO).await;
    let mut flags = vec!["--token-from-request"];
    flags.extend_from_slice(mode);
    let server = Server::start(&gitlab.uri(), &flags, Some(SERVER_TOKEN));
    let bearer = format!("Bearer {ALICE}");
    let alice = Arc::new(mcp_client(&server.mcp(), &[("authorization", &bearer)]).await);
    let bob = Arc::new(mcp_client(&server.mcp(), &[("private-token", BOB)]).await);

    let mut calls = tokio::task::JoinSet::new();
    for i in 0..8 {
        let (client, project, file) = if i % 2 == 0 {
            (Arc::clone(&alice), "grp/alice", format!("alice-{i}.txt"))
        } else {
            (Arc::clone(&bob), "grp/bob", format!("bob-{i}.txt"))
        };
        calls.spawn(async move {
            let result = client
                .call_tool(read_args(project, &file))
                .await
                .expect("call");
            assert_eq!(content(&result), format!("{project}:{file}\n"));
        });
    }
    while let Some(done) = calls.join_next().await {
        done.expect("a call panicked");
    }

    // Neither can read the other's project.
    let denied = alice
        .call_tool(read_args("grp/bob", "alice-denied.txt"))
        .await
        .expect("call");
    assert_eq!(denied.is_error, Some(true));
    assert!(
        text(&denied).contains("not found or inaccessible"),
        "{}",
        text(&denied)
    );
    let denied = bob
        .call_tool(read_args("grp/alice", "bob-denied.txt"))
        .await
        .expect("call");
    assert_eq!(denied.is_error, Some(true));

    let seen = seen(&gitlab).await;
    assert_eq!(
        seen.iter().filter(|(f, _)| !f.is_empty()).count(),
        10,
        "{seen:?}"
    );
    for (file, token) in &seen {
        let expected = if file.starts_with("alice") {
            ALICE
        } else {
            BOB
        };
        assert_eq!(
            token.as_deref(),
            Some(expected),
            "{file} was read with the wrong token"
        );
    }
    assert_no_secrets(&server);
}

#[tokio::test]
async fn two_users_share_a_stateless_server() {
    two_users_share_one_server(&["--stateless"]).await;
}

#[tokio::test]
async fn two_users_share_a_session_server() {
    two_users_share_one_server(&[]).await;
}

/// In session mode a call reads with the token of the request carrying it: a session opened
/// with Alice's token and then used with Bob's reads as Bob, never as Alice.
/// A session answers only the token that opened it (issue 20): another token naming it gets
/// the 404 of an unknown session, for a call and for `DELETE`, and GitLab never sees that
/// token; the owner's calls read with the owner's token, and only the owner can end it.
#[tokio::test]
async fn a_session_answers_only_the_token_that_opened_it() {
    let gitlab = gitlab(Duration::ZERO).await;
    let server = Server::start(&gitlab.uri(), &["--token-from-request"], None);
    let as_alice = format!("Bearer {ALICE}");
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}
    }});
    let response = post(&server.mcp(), &init, &[("authorization", &as_alice)]).await;
    assert_eq!(response.status(), 200);
    let session = response
        .headers()
        .get("mcp-session-id")
        .expect("session mode gives a session id")
        .to_str()
        .unwrap()
        .to_string();
    let version = answer(response, 1).await["result"]["protocolVersion"]
        .as_str()
        .unwrap()
        .to_string();
    let in_session = |token: &'static str| {
        vec![
            ("mcp-session-id", session.clone()),
            ("mcp-protocol-version", version.clone()),
            ("private-token", token.to_string()),
        ]
    };

    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = post(&server.mcp(), &initialized, &with(&in_session(ALICE))).await;
    assert_eq!(response.status(), 202);

    // Bob's token in Alice's session: as if it did not exist.
    let bob = in_session(BOB);
    let response = post(
        &server.mcp(),
        &call_body(2, "grp/bob", "as-bob.txt"),
        &with(&bob),
    )
    .await;
    assert_eq!(response.status(), 404);
    assert_eq!(
        response.text().await.unwrap(),
        "Not Found: Session not found"
    );
    // Nor can Bob end it.
    let mut delete = http().delete(server.mcp());
    for (k, v) in &bob {
        delete = delete.header(*k, v);
    }
    assert_eq!(delete.send().await.unwrap().status(), 404);

    // Alice's own calls go on, with her token.
    let response = post(
        &server.mcp(),
        &call_body(3, "grp/alice", "as-alice.txt"),
        &with(&in_session(ALICE)),
    )
    .await;
    assert_eq!(response.status(), 200);
    let result = answer(response, 3).await;
    assert_eq!(
        result["result"]["structuredContent"]["content"], "grp/alice:as-alice.txt\n",
        "{result}"
    );

    // The same session without a token at all is refused outright.
    let no_token: Vec<_> = bob
        .iter()
        .filter(|(k, _)| *k != "private-token")
        .cloned()
        .collect();
    let response = post(
        &server.mcp(),
        &call_body(4, "grp/alice", "no-token.txt"),
        &with(&no_token),
    )
    .await;
    assert_eq!(response.status(), 401);

    // Alice ends it; then it is gone for her too.
    let mut delete = http().delete(server.mcp());
    for (k, v) in &in_session(ALICE) {
        delete = delete.header(*k, v);
    }
    // 204, what the Python SDK expects (rmcp says 202, which it logs as a failed termination).
    let ended = delete.send().await.unwrap();
    assert_eq!(ended.status(), 204);
    assert_eq!(ended.bytes().await.unwrap().len(), 0);
    let response = post(
        &server.mcp(),
        &call_body(5, "grp/alice", "after-delete.txt"),
        &with(&in_session(ALICE)),
    )
    .await;
    assert_eq!(response.status(), 404);

    let seen = seen(&gitlab).await;
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0], ("as-alice.txt".into(), Some(ALICE.to_string())));
    // Bob's call, his DELETE and Alice's call after hers, counted by the guard that refused
    // them (an ended session is unknown to it too).
    let exposition = server.metrics().await;
    assert!(
        exposition.contains("gitlab_file_mcp_http_refused_requests_total{guard=\"session\"} 3"),
        "{exposition}"
    );
    assert_no_secrets(&server);
}

/// The default: every call reads with the server's configured token, whatever the caller sends.
#[tokio::test]
async fn default_mode_reads_with_the_servers_token() {
    let gitlab = gitlab(Duration::ZERO).await;
    let server = Server::start(&gitlab.uri(), &["--stateless"], Some(SERVER_TOKEN));
    let as_bob = format!("Bearer {BOB}");
    let client = mcp_client(&server.mcp(), &[("authorization", &as_bob)]).await;
    let result = client
        .call_tool(read_args("grp/alice", "shared.txt"))
        .await
        .expect("call");
    assert_eq!(content(&result), "grp/alice:shared.txt\n");
    let seen = seen(&gitlab).await;
    assert_eq!(
        seen,
        vec![("shared.txt".to_string(), Some(SERVER_TOKEN.to_string()))]
    );
    client.cancel().await.ok();
    assert_no_secrets(&server);
}

// ---------------------------------------------------------------------------------------------
// Refusals.

#[tokio::test]
async fn missing_token_is_401_with_a_challenge_and_gitlab_sees_nothing() {
    let gitlab = gitlab(Duration::ZERO).await;
    let server = Server::start(
        &gitlab.uri(),
        &["--stateless", "--token-from-request"],
        Some(SERVER_TOKEN),
    );
    let body = call_body(1, "grp/alice", "a.txt");
    for headers in [
        vec![],
        vec![("authorization", "Basic YWxpY2U6cHc=")],
        vec![("authorization", "Bearer  ")],
        vec![("private-token", "")],
    ] {
        let response = post(&server.mcp(), &body, &headers).await;
        assert_eq!(response.status(), 401, "{headers:?}");
        assert_eq!(
            response
                .headers()
                .get("www-authenticate")
                .and_then(|v| v.to_str().ok()),
            Some("Bearer realm=\"gitlab-file-mcp\"")
        );
    }
    assert!(
        seen(&gitlab).await.is_empty(),
        "GitLab was asked before authentication"
    );
    // The configured token is not a fallback: a 401 is not a read with the server's token.
    let health = http()
        .get(format!("{}/healthz", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
}

#[tokio::test]
async fn foreign_host_is_403_and_an_allowed_host_is_served() {
    let gitlab = gitlab(Duration::ZERO).await;
    let server = Server::start(
        &gitlab.uri(),
        &[
            "--stateless",
            "--token-from-request",
            "--allowed-host",
            "mcp.example.com",
        ],
        None,
    );
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let token = ("private-token", ALICE);
    // A foreign Host is refused before authentication.
    for headers in [
        vec![("host", "evil.example"), token],
        vec![("host", "evil.example")],
    ] {
        let response = post(&server.mcp(), &list, &headers).await;
        assert_eq!(response.status(), 403, "{headers:?}");
    }
    let response = post(
        &server.mcp(),
        &list,
        &[("host", "mcp.example.com:8443"), token],
    )
    .await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        answer(response, 1).await["result"]["tools"][0]["name"],
        "get_repository_file"
    );
    let response = post(&server.mcp(), &list, &[token]).await;
    assert_eq!(response.status(), 200, "loopback stays allowed");
    assert!(seen(&gitlab).await.is_empty());
}

#[tokio::test]
async fn oversized_body_is_413_declared_or_chunked() {
    let gitlab = gitlab(Duration::ZERO).await;
    let server = Server::start(
        &gitlab.uri(),
        &["--stateless", "--max-body-bytes", "1024"],
        Some(SERVER_TOKEN),
    );
    let mut big = call_body(1, "grp/alice", "a.txt");
    big["params"]["arguments"]["file_path"] = json!("x".repeat(4096));
    let response = post(&server.mcp(), &big, &[]).await;
    assert_eq!(response.status(), 413);

    // Without Content-Length (chunked), the limit holds while the body streams in.
    let port = server.base.rsplit(':').next().unwrap().to_string();
    let status = tokio::task::spawn_blocking(move || chunked_post(&port, &big.to_string()))
        .await
        .unwrap();
    assert_eq!(status, 413);

    // A body within the limit is served.
    let response = post(&server.mcp(), &call_body(2, "grp/alice", "a.txt"), &[]).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        seen(&gitlab).await.len(),
        1,
        "only the small request reached GitLab"
    );
}

/// POSTs `body` to /mcp with `Transfer-Encoding: chunked`; returns the status code.
fn chunked_post(port: &str, body: &str) -> u16 {
    let mut stream = std::net::TcpStream::connect(format!("127.0.0.1:{port}")).expect("connect");
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).unwrap();
    for chunk in body.as_bytes().chunks(512) {
        // The server may answer and close before the whole body is sent.
        if stream
            .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
            .is_err()
            || stream.write_all(chunk).is_err()
            || stream.write_all(b"\r\n").is_err()
        {
            break;
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n");
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let response = String::from_utf8_lossy(&response);
    response
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {response:?}"))
}

#[tokio::test]
async fn saturated_server_answers_503_then_recovers() {
    let gitlab = gitlab(Duration::from_secs(3)).await;
    let server = Server::start(
        &gitlab.uri(),
        &["--stateless", "--max-concurrent", "1"],
        Some(SERVER_TOKEN),
    );
    let url = server.mcp();
    let first = tokio::spawn(async move {
        let response = post(&url, &call_body(1, "grp/alice", "slow.txt"), &[]).await;
        (response.status(), answer(response, 1).await)
    });
    wait_for_gitlab_requests(&gitlab, 1).await;

    let response = post(
        &server.mcp(),
        &call_body(2, "grp/alice", "refused.txt"),
        &[],
    )
    .await;
    assert_eq!(response.status(), 503);
    assert_eq!(
        response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok()),
        Some("1")
    );

    let (status, result) = patiently(first).await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(
        result["result"]["structuredContent"]["content"],
        "grp/alice:slow.txt\n"
    );
    // The slot came back: the next call is served.
    let response = post(&server.mcp(), &call_body(3, "grp/alice", "after.txt"), &[]).await;
    assert_eq!(response.status(), 200);
    let files: Vec<String> = seen(&gitlab).await.into_iter().map(|(f, _)| f).collect();
    assert_eq!(
        files,
        ["slow.txt", "after.txt"],
        "the refused call never reached GitLab"
    );
}

#[tokio::test]
async fn slow_call_is_504_in_stateless_mode() {
    let gitlab = gitlab(Duration::from_secs(20)).await;
    let server = Server::start(
        &gitlab.uri(),
        &["--stateless", "--request-timeout-secs", "1"],
        Some(SERVER_TOKEN),
    );
    let response = post(&server.mcp(), &call_body(1, "grp/alice", "slow.txt"), &[]).await;
    assert_eq!(response.status(), 504);
    // The timed-out call gave its slot back.
    let health = http()
        .get(format!("{}/healthz", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
}

#[tokio::test]
async fn slow_call_is_a_tool_error_in_session_mode() {
    let gitlab = gitlab(Duration::from_secs(20)).await;
    let server = Server::start(
        &gitlab.uri(),
        &["--request-timeout-secs", "1"],
        Some(SERVER_TOKEN),
    );
    let client = mcp_client(&server.mcp(), &[]).await;
    let result = client
        .call_tool(read_args("grp/alice", "slow.txt"))
        .await
        .expect("call");
    assert_eq!(result.is_error, Some(true));
    assert!(
        text(&result).contains("did not finish within 1 s"),
        "{}",
        text(&result)
    );
    client.cancel().await.ok();
}

// ---------------------------------------------------------------------------------------------
// Health and shutdown.

#[tokio::test]
async fn healthz_is_200_without_token_or_host_check() {
    let gitlab = gitlab(Duration::ZERO).await;
    let server = Server::start(&gitlab.uri(), &["--token-from-request"], None);
    let response = http()
        .get(format!("{}/healthz", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let response = http()
        .get(format!("{}/healthz", server.base))
        .header("host", "pod-10-0-0-5.internal")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn sigterm_lets_an_in_flight_stateless_call_finish_and_exits_0() {
    let gitlab = gitlab(Duration::from_secs(3)).await;
    let mut server = Server::start(&gitlab.uri(), &["--stateless"], Some(SERVER_TOKEN));
    let url = server.mcp();
    let call = tokio::spawn(async move {
        let response = post(&url, &call_body(1, "grp/alice", "in-flight.txt"), &[]).await;
        (response.status(), answer(response, 1).await)
    });
    wait_for_gitlab_requests(&gitlab, 1).await;
    server.sigterm();
    let (status, result) = patiently(call).await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(
        result["result"]["structuredContent"]["content"],
        "grp/alice:in-flight.txt\n"
    );
    let exit = server.exit_status().await;
    assert_eq!(exit.code(), Some(0), "{}", server.log());
    assert!(
        server.log().contains("in-flight calls drained"),
        "{}",
        server.log()
    );
}

#[tokio::test]
async fn sigterm_lets_an_in_flight_session_call_finish_and_exits_0() {
    let gitlab = gitlab(Duration::from_secs(3)).await;
    let mut server = Server::start(&gitlab.uri(), &[], Some(SERVER_TOKEN));
    // The session's client also holds a standing SSE stream, which must not keep the server up.
    let client = Arc::new(mcp_client(&server.mcp(), &[]).await);
    let caller = Arc::clone(&client);
    let call = tokio::spawn(async move {
        caller
            .call_tool(read_args("grp/alice", "in-flight.txt"))
            .await
    });
    wait_for_gitlab_requests(&gitlab, 1).await;
    server.sigterm();
    let result = patiently(call)
        .await
        .unwrap()
        .expect("the in-flight call is answered");
    assert_eq!(content(&result), "grp/alice:in-flight.txt\n");
    let exit = server.exit_status().await;
    assert_eq!(exit.code(), Some(0), "{}", server.log());
    assert!(
        server.log().contains("in-flight calls drained"),
        "{}",
        server.log()
    );
}

// ---------------------------------------------------------------------------------------------
// Self-managed GitLab behind a proxy (reqwest reads HTTPS_PROXY/HTTP_PROXY/NO_PROXY).

/// A proxy that records the request line of each connection and refuses it (403: not a
/// status the GitLab client retries).
async fn recording_proxy() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let lines = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&lines);
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        while let Ok((mut conn, _)) = listener.accept().await {
            let mut buf = vec![0u8; 4096];
            let n = conn.read(&mut buf).await.unwrap_or(0);
            let head = String::from_utf8_lossy(&buf[..n]).to_string();
            record
                .lock()
                .unwrap()
                .push(head.lines().next().unwrap_or("").to_string());
            let _ = conn
                .write_all(
                    b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                )
                .await;
        }
    });
    (url, lines)
}

/// `read` once with `env`; returns whether it succeeded.
async fn read_once(gitlab: &str, env: &[(&str, &str)]) -> bool {
    let mut cmd = Command::new(BIN);
    cmd.args([
        "read",
        "--project",
        "grp/alice",
        "--path",
        "p.txt",
        "--ref",
        "main",
    ])
    .env("GITLAB_URL", gitlab)
    .env("GITLAB_TOKEN", SERVER_TOKEN)
    .env("GITLAB_CONNECT_TIMEOUT", "5")
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    for var in crate::support::env::PROXY_ENV {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    tokio::task::spawn_blocking(move || cmd.status().expect("run read").success())
        .await
        .unwrap()
}

#[tokio::test]
async fn https_gitlab_is_reached_through_https_proxy() {
    let (proxy, lines) = recording_proxy().await;
    // Only the proxy is contacted: the GitLab host itself is never resolved.
    let ok = read_once("https://gitlab.example.test", &[("HTTPS_PROXY", &proxy)]).await;
    assert!(!ok, "the proxy refused the tunnel, so the read fails");
    let lines = lines.lock().unwrap().clone();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("CONNECT gitlab.example.test:443 ")),
        "no CONNECT through HTTPS_PROXY: {lines:?}"
    );
}

#[tokio::test]
async fn no_proxy_bypasses_the_proxy() {
    let gitlab = gitlab(Duration::ZERO).await;
    let (proxy, lines) = recording_proxy().await;
    let everything = [
        ("HTTP_PROXY", proxy.as_str()),
        ("HTTPS_PROXY", proxy.as_str()),
        ("ALL_PROXY", proxy.as_str()),
    ];
    assert!(
        !read_once(&gitlab.uri(), &everything).await,
        "through the proxy (which refuses)"
    );
    assert_eq!(
        lines.lock().unwrap().len(),
        1,
        "HTTP_PROXY was used for an http:// GitLab"
    );
    let mut bypass = everything.to_vec();
    bypass.push(("NO_PROXY", "127.0.0.1"));
    assert!(
        read_once(&gitlab.uri(), &bypass).await,
        "NO_PROXY reaches GitLab directly"
    );
    assert_eq!(
        lines.lock().unwrap().len(),
        1,
        "the proxy saw no more requests"
    );
    assert_eq!(seen(&gitlab).await.len(), 1);
}
