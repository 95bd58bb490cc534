//! A missing token, as the clients people run read it (issue 27, item 6): the real binary with
//! `serve --http --token-from-request`, asked without a token the way each client asks.
//!
//! - The `401` keeps its bare challenge (`Bearer realm=…`, no `error`: RFC 6750 §3.1) and, to a
//!   `POST`, carries a JSON-RPC error with the sentence, which the Python MCP SDK raises as the
//!   error of `initialize` (it reads a JSON-RPC error body at any status).
//! - Claude Code and the Inspector take any `401` for an OAuth challenge: they look for the
//!   protected-resource and authorization-server metadata on this origin, then register a
//!   client at `/register`, and show that answer's body ("Dynamic Client Registration rejected
//!   (HTTP 404): <body>"). Every path not served answers `404` saying there is no OAuth here.
//!
//! What each client prints, before and after, is in docs/deploy.md ("What clients show for a
//! missing token").

use crate::support::http_server;

use http_server::{HttpServer as Server, RawResponse};
use serde_json::json;
use wiremock::MockServer;

const ALICE: &str = "glpat-ALICE-aaaaaaaaaaaaaaaa";
const SERVER_TOKEN: &str = "glpat-SERVER-ssssssssssssss";
/// The 401's sentence (`src/http/wording.rs`, `UNAUTHORIZED`).
const SENTENCE: &str = "Unauthorized: send your GitLab token as 'Authorization: Bearer <token>' or 'PRIVATE-TOKEN: <token>'";
/// The 404's (`NO_OAUTH`).
const NO_OAUTH: &str = "Not Found: this server has no OAuth. Send your GitLab token in an 'Authorization: Bearer' or a 'PRIVATE-TOKEN' header.\n";

/// The requests Claude Code 2.1.332 sends after the 401, in its order (seen on the wire); the
/// Inspector 2.12 sends the same but for the first.
const DISCOVERY: [(&str, &str); 5] = [
    ("GET", "/.well-known/oauth-protected-resource/mcp"),
    ("GET", "/.well-known/oauth-protected-resource"),
    ("GET", "/.well-known/oauth-authorization-server"),
    ("GET", "/.well-known/openid-configuration"),
    ("POST", "/register"),
];

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}"#;

/// A raw request on a new connection (`Connection: close`), with `headers` and `body`.
async fn send(
    server: &Server,
    method: &str,
    path: &str,
    headers: &[&str],
    body: &str,
) -> RawResponse {
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n",
        server.port
    );
    for header in headers {
        head.push_str(header);
        head.push_str("\r\n");
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ));
    server.raw(head.into_bytes()).await
}

fn header<'a>(response: &'a RawResponse, name: &str) -> Option<&'a str> {
    response.head.lines().find_map(|line| {
        let (n, v) = line.split_once(':')?;
        (n.trim() == name).then_some(v.trim())
    })
}

async fn server(flags: &[&str]) -> (MockServer, Server) {
    let gitlab = MockServer::start().await;
    let server = Server::start(&gitlab.uri(), flags, Some(SERVER_TOKEN));
    (gitlab, server)
}

#[tokio::test]
async fn a_post_without_a_token_is_401_with_a_json_rpc_error_saying_so() {
    let (gitlab, server) = server(&["--token-from-request"]).await;
    let mcp_headers = [
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
    ];
    let response = send(&server, "POST", "/mcp", &mcp_headers, INITIALIZE).await;
    assert_eq!(response.status, 401, "{response:?}");
    // Lower-cased by RawResponse: the challenge is `Bearer realm="gitlab-file-mcp"`, nothing
    // more (no error="invalid_token" for a request that sent no token).
    assert_eq!(
        header(&response, "www-authenticate"),
        Some("bearer realm=\"gitlab-file-mcp\"")
    );
    assert_eq!(header(&response, "content-type"), Some("application/json"));
    assert_eq!(
        response.json(),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32001, "message": SENTENCE}})
    );

    // Not a JSON-RPC message (the SSE stream's GET, a DELETE): the sentence as text.
    for method in ["GET", "DELETE"] {
        let response = send(&server, method, "/mcp", &["Accept: text/event-stream"], "").await;
        assert_eq!(response.status, 401, "{method}: {response:?}");
        assert!(
            header(&response, "content-type").is_some_and(|t| t.starts_with("text/plain")),
            "{method}: {response:?}"
        );
        assert_eq!(response.body, format!("{SENTENCE}\n"), "{method}");
    }
    assert!(
        gitlab
            .received_requests()
            .await
            .unwrap_or_default()
            .is_empty()
    );
}

#[tokio::test]
async fn where_clients_look_for_oauth_the_server_says_there_is_none() {
    let (gitlab, server) = server(&["--token-from-request", "--stateless"]).await;
    for (method, path) in DISCOVERY {
        let body = if method == "POST" {
            r#"{"client_name":"probe","redirect_uris":["http://localhost:3118/callback"]}"#
        } else {
            ""
        };
        let response = send(
            &server,
            method,
            path,
            &["Content-Type: application/json"],
            body,
        )
        .await;
        assert_eq!(response.status, 404, "{method} {path}: {response:?}");
        assert_eq!(response.body, NO_OAUTH, "{method} {path}");
    }
    // A token sent there is neither echoed nor logged, and GitLab is never asked.
    let bearer = format!("Authorization: Bearer {ALICE}");
    let response = send(&server, "POST", "/register", &[&bearer], "{}").await;
    assert_eq!(response.status, 404);
    assert!(!response.head.contains(&ALICE.to_ascii_lowercase()));
    assert!(!response.body.contains(ALICE));
    assert!(!server.log().contains(ALICE), "{}", server.log());
    assert!(
        gitlab
            .received_requests()
            .await
            .unwrap_or_default()
            .is_empty()
    );
    // The paths served are as before.
    let health = send(&server, "GET", "/healthz", &[], "").await;
    assert_eq!((health.status, health.body.as_str()), (200, "ok\n"));
}

#[tokio::test]
async fn without_token_from_request_an_unknown_path_is_a_plain_404() {
    let (_gitlab, server) = server(&[]).await;
    let response = send(
        &server,
        "GET",
        "/.well-known/oauth-authorization-server",
        &[],
        "",
    )
    .await;
    assert_eq!(response.status, 404);
    assert!(!response.body.contains("OAuth"), "{response:?}");
}
