//! The protocol edges, against the real binary (`serve --http 127.0.0.1:0`, and stdio): what a
//! hostile or broken client sends, and what the server answers.
//!
//! Covers: stalled uploads take no capacity (2 × --max-concurrent of them while a real client
//! is served), body and header deadlines, idle connections closed; Origin validation before
//! the token check; 400 for bodies that are not JSON-RPC (with the JSON-RPC error), bad
//! chunking, duplicate or empty Host, while 406/415 stay; -32602 with a reason for malformed
//! `tools/call` params (HTTP and stdio); -32700 for stdio lines that are not JSON while the
//! server keeps serving; calls cut off by the drain answered that the server is shutting down.
//! Everything asserted is counted; durations only bound waits.

use crate::support::gitlab_mock;
use crate::support::http_server;
use crate::support::mcp;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Stdio;
use std::time::Duration;

use gitlab_mock::{graphql, json_response, project_answer, text_node};
use http_server::{
    HttpServer, MCP_HEADERS, PATIENCE, RawResponse, mcp_client, post, text,
    wait_for_gitlab_requests,
};
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use wiremock::MockServer;

const TOKEN: &str = "glpat-HARDEN-hhhhhhhhhhhhhhhh";
const FILE: &str = "a.txt";
const CONTENT: &str = "hello\n";

/// A GitLab that serves `grp/p`'s `a.txt` to anyone, after `delay`.
async fn gitlab(delay: Duration) -> MockServer {
    let server = MockServer::start().await;
    let answer = project_answer("grp/p", 42, vec![text_node(FILE, CONTENT)]);
    graphql()
        .respond_with(json_response(answer).set_delay(delay))
        .mount(&server)
        .await;
    server
}

async fn gitlab_requests(gitlab: &MockServer) -> usize {
    gitlab.received_requests().await.unwrap_or_default().len()
}

fn arguments() -> serde_json::Map<String, Value> {
    let Value::Object(map) = json!({"project_id": "grp/p", "file_path": FILE, "ref": "main"})
    else {
        unreachable!()
    };
    map
}

fn read_call() -> CallToolRequestParams {
    CallToolRequestParams::new("get_repository_file").with_arguments(arguments())
}

fn call_body(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "get_repository_file", "arguments": arguments()}})
}

/// A POST with the MCP headers plus `extra`.
fn mcp_post(server: &HttpServer, extra: &[&str], body: &[u8]) -> Vec<u8> {
    let mut headers = MCP_HEADERS.to_vec();
    headers.extend_from_slice(extra);
    post(&format!("127.0.0.1:{}", server.port), &headers, body)
}

// ---------------------------------------------------------------------------------------------
// 1. Stalled clients take no capacity; deadlines; idle connections.

/// Opens a request that declares a 94-byte body, sends 1 byte of it, and waits.
fn stalled_upload(server: &HttpServer) -> TcpStream {
    let mut stream = server.connect();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer x\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: 94\r\n\r\n{{",
        server.port
    );
    stream
        .write_all(head.as_bytes())
        .expect("send the stalled request");
    stream
}

async fn answer_of(mut stream: TcpStream) -> Vec<u8> {
    tokio::task::spawn_blocking(move || {
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        answer
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn stalled_uploads_take_no_capacity_from_a_real_client() {
    let gitlab = gitlab(Duration::ZERO).await;
    let server = HttpServer::start(
        &gitlab.uri(),
        &[
            "--stateless",
            "--token-from-request",
            "--max-concurrent",
            "2",
            "--body-timeout-secs",
            "10",
        ],
        None,
    );
    let stalled: Vec<TcpStream> = (0..4).map(|_| stalled_upload(&server)).collect();

    let bearer = format!("Bearer {TOKEN}");
    let client = mcp_client(&server.mcp(), &[("authorization", &bearer)]).await;
    for _ in 0..10 {
        let result = client.call_tool(read_call()).await.expect("answered");
        assert_ne!(result.is_error, Some(true), "{}", text(&result));
        assert_eq!(result.structured_content.unwrap()["content"], CONTENT);
    }
    assert_eq!(gitlab_requests(&gitlab).await, 10);
    client.cancel().await.ok();

    // The stalled requests were held at their body, then refused with 408.
    for stream in stalled {
        let answer = RawResponse::parse(&answer_of(stream).await);
        assert_eq!(answer.status, 408, "{answer:?}");
        assert!(answer.body.contains("--body-timeout-secs"), "{answer:?}");
    }
    assert_eq!(
        gitlab_requests(&gitlab).await,
        10,
        "no stalled request reached GitLab"
    );
}

#[tokio::test]
async fn slow_headers_and_idle_connections_are_closed() {
    let gitlab = gitlab(Duration::ZERO).await;
    let server = HttpServer::start(
        &gitlab.uri(),
        &["--stateless", "--header-timeout-secs", "1"],
        None,
    );
    // Headers that never end: the connection is closed without an answer.
    let mut slow = server.connect();
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .unwrap();
    assert_eq!(answer_of(slow).await, b"", "no answer, just closed");

    // A kept-alive connection that goes idle after one answer is closed.
    let mut idle = server.connect();
    let request = format!(
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
        server.port
    );
    idle.write_all(request.as_bytes()).unwrap();
    let answer = answer_of(idle).await;
    let answer = RawResponse::parse(&answer);
    assert_eq!((answer.status, answer.body.as_str()), (200, "ok\n"));
    assert!(!answer.head.contains("connection: close"), "{answer:?}");

    // The server still serves.
    let health = server
        .raw(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".to_vec())
        .await;
    assert_eq!(health.status, 200);
}

/// The header deadline runs only while a connection waits for a request: a session call
/// whose SSE answer streams for longer, and the session's standing stream, are not cut.
#[tokio::test]
async fn answers_streaming_longer_than_the_header_timeout_are_not_cut() {
    let gitlab = gitlab(Duration::from_secs(3)).await;
    let server = HttpServer::start(&gitlab.uri(), &["--header-timeout-secs", "1"], None);
    let client = mcp_client(&server.mcp(), &[]).await;
    for _ in 0..2 {
        let result = client.call_tool(read_call()).await.expect("answered");
        assert_ne!(result.is_error, Some(true), "{}", text(&result));
        assert_eq!(result.structured_content.unwrap()["content"], CONTENT);
    }
    assert_eq!(gitlab_requests(&gitlab).await, 2);
    client.cancel().await.ok();
}

// ---------------------------------------------------------------------------------------------
// 2. Origin.

#[tokio::test]
async fn origins_other_than_the_servers_own_are_403_before_the_token_check() {
    let gitlab = gitlab(Duration::ZERO).await;
    let server = HttpServer::start(
        &gitlab.uri(),
        &[
            "--stateless",
            "--token-from-request",
            "--allowed-origin",
            "https://app.example.com",
            "--allowed-host",
            "mcp.example.com",
        ],
        None,
    );
    let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let token = format!("PRIVATE-TOKEN: {TOKEN}");
    let own = format!("Origin: http://127.0.0.1:{}", server.port);
    let own_localhost = format!("Origin: http://localhost:{}", server.port);
    let cases: Vec<(Vec<&str>, u16)> = vec![
        (vec!["Origin: http://evil.example"], 403),
        (vec!["Origin: http://evil.example", &token], 403),
        (vec!["Origin: null", &token], 403),
        (vec!["Origin: http://localhost:1", &token], 403),
        (vec![&own, "Origin: http://evil.example", &token], 403),
        // An allowed Origin passes on to the token check.
        (vec![&own], 401),
        (vec![&own, &token], 200),
        (vec![&own_localhost, &token], 200),
        (vec!["Origin: https://app.example.com", &token], 200),
        (vec![&token], 200),
    ];
    for (headers, status) in &cases {
        let answer = server.raw(mcp_post(&server, headers, list)).await;
        assert_eq!(answer.status, *status, "{headers:?}: {answer:?}");
        if *status == 403 {
            assert!(answer.body.contains("--allowed-origin"), "{answer:?}");
        }
    }
    // Same origin as the (allowed) Host the request was sent to, e.g. behind a TLS proxy.
    let headers = [
        MCP_HEADERS[0],
        MCP_HEADERS[1],
        "Origin: https://mcp.example.com:8443",
        &token,
    ];
    let answer = server
        .raw(post("mcp.example.com:8443", &headers, list))
        .await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(gitlab_requests(&gitlab).await, 0);
}

// ---------------------------------------------------------------------------------------------
// 3. Status codes.

#[tokio::test]
async fn bodies_that_are_not_jsonrpc_get_400_with_the_jsonrpc_error() {
    let gitlab = gitlab(Duration::ZERO).await;
    let server = HttpServer::start(&gitlab.uri(), &["--stateless"], None);
    for (body, code) in [
        (&b"not json"[..], -32700),
        (b"", -32700),
        (b"{\"jsonrpc\":\"2.0\",\"id\":1,", -32700),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
            -32700,
        ),
        (
            br#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#,
            -32600,
        ),
        (b"{}", -32600),
        (b"42", -32600),
    ] {
        let answer = server.raw(mcp_post(&server, &[], body)).await;
        assert_eq!(answer.status, 400, "{body:?}: {answer:?}");
        assert!(
            answer.head.contains("content-type: application/json"),
            "{answer:?}"
        );
        let error = answer.json();
        assert_eq!(error["error"]["code"], code, "{body:?}: {error}");
        assert!(
            error["id"].is_null() && error.get("id").is_some(),
            "{error}"
        );
    }
    assert_eq!(gitlab_requests(&gitlab).await, 0);
}

#[tokio::test]
async fn bad_framing_and_bad_hosts_are_400_and_406_415_stay() {
    let gitlab = gitlab(Duration::ZERO).await;
    let server = HttpServer::start(&gitlab.uri(), &["--stateless"], None);
    let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let port = server.port;

    let bad_chunk = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{}\r\n{}\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
        MCP_HEADERS[0], MCP_HEADERS[1]
    );
    let answer = server.raw(bad_chunk.into_bytes()).await;
    assert_eq!(answer.status, 400, "{answer:?}");

    let own = format!("Host: 127.0.0.1:{port}");
    for (hosts, said) in [
        (
            vec![own.as_str(), "Host: evil.example"],
            "more than one Host",
        ),
        (vec![own.as_str(), own.as_str()], "more than one Host"),
        (vec!["Host:"], "empty Host"),
        (vec!["Host:   "], "empty Host"),
    ] {
        let mut request = String::from("POST /mcp HTTP/1.1\r\n");
        for line in hosts.iter().chain(MCP_HEADERS.iter()) {
            request.push_str(line);
            request.push_str("\r\n");
        }
        request.push_str(&format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            list.len()
        ));
        let mut bytes = request.into_bytes();
        bytes.extend_from_slice(list);
        let answer = server.raw(bytes).await;
        assert_eq!(answer.status, 400, "{hosts:?}: {answer:?}");
        assert!(answer.body.contains(said), "{hosts:?}: {answer:?}");
    }

    // 415 only for a wrong Content-Type (whatever the body), 406 for a wrong Accept.
    let host = format!("127.0.0.1:{port}");
    let typed = ["Content-Type: text/plain", MCP_HEADERS[1]];
    assert_eq!(
        server.raw(post(&host, &typed, b"not json")).await.status,
        415
    );
    let accepts = [MCP_HEADERS[0], "Accept: application/json"];
    assert_eq!(server.raw(post(&host, &accepts, list)).await.status, 406);
    // And a well-formed request after all that.
    assert_eq!(server.raw(mcp_post(&server, &[], list)).await.status, 200);
}

// ---------------------------------------------------------------------------------------------
// 4. JSON-RPC errors.

fn malformed_calls() -> Vec<(Value, &'static str)> {
    let name = "get_repository_file";
    vec![
        (
            json!({"name": name, "arguments": "x"}),
            "params.arguments must be an object",
        ),
        (json!({"name": name, "arguments": [1, 2]}), "not an array"),
        (
            json!({"name": 5, "arguments": {}}),
            "params.name must be a string",
        ),
        (json!({"arguments": {}}), "params.name is missing"),
        (Value::Null, "params are missing"),
    ]
}

#[tokio::test]
async fn malformed_tools_call_params_are_invalid_params_with_a_reason() {
    let gitlab = gitlab(Duration::ZERO).await;
    let server = HttpServer::start(&gitlab.uri(), &["--stateless"], None);
    for (params, reason) in malformed_calls() {
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
        let answer = server
            .raw(mcp_post(&server, &[], body.to_string().as_bytes()))
            .await;
        assert_eq!(answer.status, 200, "{answer:?}");
        let reply = answer.json();
        assert_eq!(reply["id"], 7, "{reply}");
        assert_eq!(reply["error"]["code"], -32602, "{params}: {reply}");
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(reason), "{params}: {message}");
    }
    let unknown = br#"{"jsonrpc":"2.0","id":8,"method":"no/such/method"}"#;
    let reply = server.raw(mcp_post(&server, &[], unknown)).await.json();
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
    assert_eq!(gitlab_requests(&gitlab).await, 0);
}

#[tokio::test]
async fn stdio_answers_lines_that_are_not_json_and_keeps_serving() {
    let gitlab = gitlab(Duration::ZERO).await;
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_gitlab-file-mcp"));
    for name in crate::support::env::cleared() {
        cmd.env_remove(name);
    }
    let mut child = cmd
        .env("GITLAB_URL", gitlab.uri())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn gitlab-file-mcp");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();

    let mut input: Vec<u8> = Vec::new();
    let mut line = |v: Value| {
        input.extend_from_slice(v.to_string().as_bytes());
        input.push(b'\n');
    };
    line(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}}),
    );
    line(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    for (id, (params, _)) in (10..).zip(malformed_calls()) {
        line(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}));
    }
    input.extend_from_slice(b"not json\n\xff\xfe\xfd\n[]\n{\"jsonrpc\":\"2.0\",\n");
    // Valid JSON beyond serde's reach: answered with its own id where that can be read.
    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":201,\"method\":\"tools/call\",\"params\":{}1{}}}\n",
        "[".repeat(200),
        "]".repeat(200)
    );
    input.extend_from_slice(deep.as_bytes());
    input.extend_from_slice(
        br#"{"jsonrpc":"2.0","id":"s-202","method":"tools/call","params":{"name":"\ud800"}}"#,
    );
    input.push(b'\n');
    input.extend_from_slice(
        br#"{"jsonrpc":"2.0","id":203,"method":"tools/call","params":{"x":1e400}}"#,
    );
    input.push(b'\n');
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"params\":{\"x\":1e400}}\n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"tools/list\"}\n");
    stdin.write_all(&input).await.unwrap();
    stdin.flush().await.unwrap();

    // rmcp answers requests concurrently, so replies come in any order: one per line sent
    // (the initialized notification gets none).
    let expected = 1 + malformed_calls().len() + 4 + 4 + 1;
    let mut replies: Vec<Value> = Vec::new();
    while replies.len() < expected {
        let next = tokio::time::timeout(PATIENCE, stdout.next_line()).await;
        let line = next.expect("hung: no reply").unwrap().expect("stdout open");
        replies.push(serde_json::from_str(&line).expect("every line on stdout is JSON"));
    }
    let codes = |id: &Value| -> Vec<Value> {
        replies
            .iter()
            .filter(|r| &r["id"] == id)
            .map(|r| r["error"]["code"].clone())
            .collect()
    };
    let mut anonymous = codes(&Value::Null);
    anonymous.sort_by_key(|c| c.as_i64());
    assert_eq!(
        anonymous,
        [
            json!(-32700),
            json!(-32700),
            json!(-32700),
            json!(-32600),
            json!(-32600)
        ]
    );
    for id in [json!(201), json!("s-202"), json!(203)] {
        assert_eq!(codes(&id), [json!(-32600)], "{id}");
    }
    for (offset, (_, reason)) in malformed_calls().into_iter().enumerate() {
        let id = json!(10 + offset);
        let reply = replies.iter().find(|r| r["id"] == id).expect("answered");
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
        assert!(
            reply["error"]["message"].as_str().unwrap().contains(reason),
            "{reply}"
        );
    }
    let listed = replies.iter().find(|r| r["id"] == 99).unwrap();
    assert_eq!(listed["result"]["tools"][0]["name"], "get_repository_file");

    drop(stdin);
    let status = tokio::time::timeout(PATIENCE, child.wait())
        .await
        .expect("exits")
        .unwrap();
    assert!(status.success(), "{status}");
}

// ---------------------------------------------------------------------------------------------
// 5. Drain.

#[tokio::test]
async fn a_stateless_call_cut_off_by_the_drain_is_told_the_server_is_shutting_down() {
    let gitlab = gitlab(Duration::from_secs(120)).await;
    let mut server = HttpServer::start(
        &gitlab.uri(),
        &["--stateless", "--drain-timeout-secs", "1"],
        Some(TOKEN),
    );
    let request = mcp_post(&server, &[], call_body(1).to_string().as_bytes());
    let mut stream = server.connect();
    stream.write_all(&request).unwrap();
    wait_for_gitlab_requests(&gitlab, 1).await;
    server.sigterm();
    let answer = RawResponse::parse(&answer_of(stream).await);
    assert_eq!(answer.status, 200, "{answer:?}");
    let reply = answer.json();
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    let said = reply["result"]["content"][0]["text"].as_str().unwrap();
    assert!(said.contains("shutting down"), "{said}");
    let exit = server.exit_status().await;
    assert_eq!(exit.code(), Some(0), "{}", server.log());
}

#[tokio::test]
async fn a_session_call_cut_off_by_the_drain_is_told_the_server_is_shutting_down() {
    let gitlab = gitlab(Duration::from_secs(120)).await;
    let mut server = HttpServer::start(&gitlab.uri(), &["--drain-timeout-secs", "1"], Some(TOKEN));
    let client = mcp_client(&server.mcp(), &[]).await;
    let call = tokio::spawn(async move { client.call_tool(read_call()).await });
    wait_for_gitlab_requests(&gitlab, 1).await;
    server.sigterm();
    let result = tokio::time::timeout(PATIENCE, call)
        .await
        .expect("hung: no answer")
        .unwrap()
        .expect("the call is answered");
    assert_eq!(result.is_error, Some(true));
    assert!(text(&result).contains("shutting down"), "{}", text(&result));
    let exit = server.exit_status().await;
    assert_eq!(exit.code(), Some(0), "{}", server.log());
}

// ---------------------------------------------------------------------------------------------
// Faults on the way to GitLab (item 6).

#[tokio::test]
async fn a_graphql_connection_reset_is_retried_like_a_502_with_our_own_message() {
    let (url, resets) = gitlab_mock::resetting_gitlab(None).await;
    let server = quiet_stdio_server(&url).await;
    let result = server
        .call(json!({"project_id": "g/p", "file_path": "a", "ref": "main"}))
        .await;
    let text = mcp::text(&result);
    assert_eq!(result.is_error, Some(true));
    assert!(
        text.contains("closed the connection before answering") && text.contains("2 retries"),
        "{text}"
    );
    assert!(
        !text.contains("hyper") && !text.contains("reqwest"),
        "{text}"
    );
    // One request and two retries: the same bound as a 502.
    assert_eq!(*resets.lock().unwrap(), 3);
    server.stop().await;
}

/// The binary over stdio against `gitlab`, logging only errors (retries warn).
async fn quiet_stdio_server(gitlab: &str) -> mcp::Server {
    mcp::spawn(
        &[],
        &[("GITLAB_URL", gitlab), ("GITLAB_FILE_MCP_LOG", "error")],
    )
    .await
}

#[tokio::test]
async fn retry_after_zero_waits_the_backoff_floor_and_is_bounded() {
    let gitlab = MockServer::start().await;
    graphql()
        .respond_with(wiremock::ResponseTemplate::new(503).insert_header("retry-after", "0"))
        .expect(3)
        .mount(&gitlab)
        .await;
    let server = quiet_stdio_server(&gitlab.uri()).await;
    let result = server
        .call(json!({"project_id": "g/p", "file_path": "a", "ref": "main"}))
        .await;
    let text = mcp::text(&result);
    assert!(
        text.contains("HTTP 503") && text.contains("2 retries"),
        "{text}"
    );
    // The gaps between the three requests are the backoff (250 ms, then 500 ms), not zero:
    // checked as an order of arrival with a floor, never as a duration bound above.
    let received = gitlab.received_requests().await.unwrap();
    assert_eq!(received.len(), 3);
    server.stop().await;
}
