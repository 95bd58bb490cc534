//! The sign-in as clients go through it: discovery, registration, consent (remembered per
//! client), GitLab, the code, `/token`, then a `tools/call` read with GitLab's token, which
//! the client never sees; refresh (one GitLab refresh per refresh, GitLab's rotation
//! followed); two processes sharing keys; a key rotation; nothing secret in the debug log.

use super::client::{self, PUBLIC, REDIRECT, VERIFIER};
use super::{KEY_A, KEY_B, start};
use crate::support::gitlab::{Provider, README};
use crate::support::http_server::{HttpServer as Server, http_client, mcp_client, text};

use reqwest::StatusCode;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

/// A `tools/call` over stateless HTTP with `token` as Bearer: its status and the
/// `WWW-Authenticate` of a 401.
pub async fn call(server: &Server, token: &str) -> (StatusCode, Option<String>, String) {
    let body = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_repository_file","arguments":{"project_id":"g/p","file_path":"README.md","ref":"main"}}});
    let response = http_client()
        .post(server.mcp())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_string());
    (status, challenge, response.text().await.unwrap())
}

pub fn read_readme() -> CallToolRequestParams {
    let Value::Object(args) = json!({"project_id": "g/p", "file_path": "README.md", "ref": "main"})
    else {
        unreachable!()
    };
    CallToolRequestParams::new("get_repository_file").with_arguments(args)
}

#[tokio::test]
async fn a_whole_sign_in_then_a_tool_call_reads_with_gitlabs_token() {
    let (gitlab, provider) = Provider::start(7200).await;
    let server = start(&gitlab, KEY_A, &[]);
    // Discovery: the 401's challenge names the resource metadata, which names this server.
    let (status, challenge, _) = call(&server, "").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let challenge = challenge.expect("a challenge");
    assert!(
        challenge.contains(&format!(
            "resource_metadata=\"{PUBLIC}/.well-known/oauth-protected-resource/mcp\""
        )),
        "{challenge}"
    );
    assert!(!challenge.contains("error="), "{challenge}");
    // The body of that POST was left unread: the 401 closes its connection, so that the
    // client's discovery goes on a new one (the Python SDK reused it and failed, 2 runs in 9).
    let unread = http_client()
        .post(server.mcp())
        .header("content-type", "application/json")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(unread.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(unread.headers()["connection"], "close");
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let prm = client::get(&server, &format!("{PUBLIC}{path}"), &[])
            .await
            .json();
        assert_eq!(prm["resource"], format!("{PUBLIC}/mcp"));
        assert_eq!(prm["authorization_servers"], json!([PUBLIC]));
        assert_eq!(prm["scopes_supported"], json!(["read_api"]));
    }
    for path in [
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
    ] {
        let meta = client::get(&server, &format!("{PUBLIC}{path}"), &[])
            .await
            .json();
        assert_eq!(meta["issuer"], PUBLIC);
        assert_eq!(meta["code_challenge_methods_supported"], json!(["S256"]));
        assert_eq!(
            meta["grant_types_supported"],
            json!(["authorization_code", "refresh_token"])
        );
        assert_eq!(meta["scopes_supported"], json!(["read_api"]));
        assert_eq!(meta["authorization_response_iss_parameter_supported"], true);
        assert_eq!(meta["registration_endpoint"], format!("{PUBLIC}/register"));
    }
    // Registration, then the consent page: the client's name and redirect host, unframeable.
    let client_id = client::register(&server).await;
    let page = client::get(&server, &client::authorize_url(&client_id, &[]), &[]).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(page.body.contains("Scripted client") && page.body.contains("127.0.0.1"));
    assert!(page.body.contains("method=\"post\""));
    assert_eq!(page.headers["x-frame-options"], "DENY");
    assert!(
        page.headers["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("frame-ancestors 'none'")
    );
    // Without the page's cookie the form is refused (CSRF).
    let form = client::consent_form(&page.body);
    let forged = client::post_form(
        &server,
        "/authorize/consent",
        &[("form", &form), ("decision", "allow")],
        &[],
    )
    .await;
    assert_eq!(forged.status, StatusCode::BAD_REQUEST);
    assert!(forged.location.is_none());
    // The sign-in: code, the client's state and the issuer come back to the redirect URI.
    let (query, jar) = client::sign_in(&server, &client_id, &[]).await;
    assert_eq!(query["state"], "client-state-1");
    assert_eq!(query["iss"], PUBLIC);
    let answer = client::exchange(&server, &client_id, &query["code"], VERIFIER).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let tokens = answer.json();
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(tokens["token_type"], "Bearer");
    assert!(tokens["expires_in"].as_u64().unwrap() <= 7200 * 3 / 4);
    assert!(!answer.body.contains("gl-access") && !answer.body.contains("gl-refresh"));
    // The tool reads with GitLab's token.
    let mcp = mcp_client(
        &server.mcp(),
        &[("authorization", &format!("Bearer {access}"))],
    )
    .await;
    let result = mcp.call_tool(read_readme()).await.expect("tools/call");
    assert!(text(&result).contains(README.trim()), "{}", text(&result));
    let live = provider.live_access_tokens();
    let requests = gitlab.received_requests().await.unwrap();
    assert!(
        requests
            .iter()
            .filter(|r| r.url.path() == "/api/graphql")
            .all(|r| { crate::support::users::bearer(r).is_some_and(|t| live.contains(&t)) })
    );
    // The browser's consent is remembered for this client: no page the second time.
    let again = client::get(&server, &client::authorize_url(&client_id, &[]), &jar).await;
    assert_eq!(again.status, StatusCode::FOUND, "{}", again.body);
    assert!(again.location.unwrap().starts_with(&gitlab.uri()));
    // ... but not for another client.
    let other = client::register(&server).await;
    let page = client::get(&server, &client::authorize_url(&other, &[]), &jar).await;
    assert_eq!(page.status, StatusCode::OK);
    let log = server.log();
    for secret in [
        "gl-access-",
        "gl-refresh-",
        "gl-code-",
        access,
        &query["code"],
        KEY_A,
        &client_id,
    ] {
        assert!(!log.contains(secret), "the log shows {secret}:\n{log}");
    }
    let _ = REDIRECT;
}

#[tokio::test]
async fn a_refresh_refreshes_gitlabs_token_once_and_follows_its_rotation() {
    let (gitlab, provider) = Provider::start(7200).await;
    let server = start(&gitlab, KEY_A, &["--stateless"]);
    let (client_id, first) = client::tokens(&server).await;
    let old_refresh = first["refresh_token"].as_str().unwrap();
    let refreshed = client::refresh(&server, &client_id, old_refresh).await;
    assert_eq!(refreshed.status, StatusCode::OK, "{}", refreshed.body);
    let second = refreshed.json();
    assert_ne!(second["refresh_token"], first["refresh_token"]);
    assert_eq!(
        provider.0.lock().unwrap().grants,
        ["authorization_code", "refresh_token"]
    );
    let new_access = second["access_token"].as_str().unwrap();
    assert_eq!(call(&server, new_access).await.0, StatusCode::OK);
    // Another client cannot use it.
    let other = client::register(&server).await;
    let stolen = client::refresh(&server, &other, second["refresh_token"].as_str().unwrap()).await;
    assert_eq!(stolen.status, StatusCode::BAD_REQUEST);
    assert_eq!(stolen.json()["error"], "invalid_grant");
    // Replaying the spent refresh token: GitLab refuses (and revokes the family).
    let replay = client::refresh(&server, &client_id, old_refresh).await;
    assert_eq!(replay.status, StatusCode::BAD_REQUEST, "{}", replay.body);
    assert_eq!(replay.json()["error"], "invalid_grant");
    let log = server.log();
    for secret in ["gl-access-", "gl-refresh-", new_access, old_refresh] {
        assert!(!log.contains(secret), "the log shows {secret}:\n{log}");
    }
}

#[tokio::test]
async fn two_processes_share_keys_and_a_rotation_keeps_what_the_old_key_sealed() {
    let (gitlab, _provider) = Provider::start(7200).await;
    let first = start(&gitlab, KEY_A, &["--stateless"]);
    let (client_id, tokens) = client::tokens(&first).await;
    let access = tokens["access_token"].as_str().unwrap();
    // A replica with the same key serves the token and its refresh.
    let replica = start(&gitlab, KEY_A, &["--stateless"]);
    assert_eq!(call(&replica, access).await.0, StatusCode::OK);
    // Rotated: a new key first, the old one still opens.
    let rotated = start(&gitlab, &format!("{KEY_B},{KEY_A}"), &["--stateless"]);
    assert_eq!(call(&rotated, access).await.0, StatusCode::OK);
    let refreshed = client::refresh(
        &rotated,
        &client_id,
        tokens["refresh_token"].as_str().unwrap(),
    )
    .await;
    assert_eq!(refreshed.status, StatusCode::OK, "{}", refreshed.body);
    let sealed_by_b = refreshed.json()["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    // The old key dropped: what it sealed no longer opens (the client signs in again).
    let new_only = start(&gitlab, KEY_B, &["--stateless"]);
    let (status, challenge, _) = call(&new_only, access).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(challenge.unwrap().contains("error=\"invalid_token\""));
    assert_eq!(call(&new_only, &sealed_by_b).await.0, StatusCode::OK);
    // The process with only the old key cannot open the new key's token.
    assert_eq!(call(&first, &sealed_by_b).await.0, StatusCode::UNAUTHORIZED);
}
