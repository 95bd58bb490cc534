//! What the sign-in refuses, and how: PKCE plain or missing (an error redirect to the registered
//! URI), an unregistered redirect URI or an unknown client (an error page, never a redirect),
//! a code used twice or with a wrong verifier (`invalid_grant`), a GitLab token sent as Bearer,
//! GitLab's token expired or revoked (401 `invalid_token`, also for a `tools/call` after a call
//! that succeeded).

use super::client::{self, CHALLENGE, PUBLIC, REDIRECT, VERIFIER};
use super::sign_in::call;
use super::{KEY_A, start};
use crate::support::gitlab::Provider;

use reqwest::StatusCode;

#[tokio::test]
async fn pkce_plain_or_missing_and_wrong_redirect_uris_are_refused() {
    let (gitlab, _provider) = Provider::start(7200).await;
    let server = start(&gitlab, KEY_A, &[]);
    let client_id = client::register(&server).await;
    assert_eq!(client::s256(VERIFIER), CHALLENGE);
    for extra in [
        vec![("code_challenge_method", "plain")],
        vec![("code_challenge_method", "")],
        vec![("code_challenge", ""), ("code_challenge_method", "")],
    ] {
        let answer = client::get(&server, &client::authorize_url(&client_id, &extra), &[]).await;
        assert_eq!(
            answer.status,
            StatusCode::FOUND,
            "{extra:?}: {}",
            answer.body
        );
        assert!(answer.location.as_deref().unwrap().starts_with(REDIRECT));
        let query = answer.redirect_query();
        assert_eq!(query["error"], "invalid_request", "{extra:?}");
        assert_eq!(query["state"], "client-state-1");
        assert_eq!(query["iss"], PUBLIC);
    }
    for (extra, what) in [
        (
            vec![("redirect_uri", "https://evil.example/callback")],
            "an unregistered URI",
        ),
        (
            vec![("redirect_uri", "http://127.0.0.1:1/other")],
            "another path",
        ),
        (vec![("client_id", "made-up")], "an unknown client"),
    ] {
        let answer = client::get(&server, &client::authorize_url(&client_id, &extra), &[]).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{what}");
        assert!(answer.location.is_none(), "{what} was redirected");
        assert!(
            answer.body.contains("Sign-in refused"),
            "{what}: {}",
            answer.body
        );
    }
    // A loopback IP's port may vary (RFC 8252).
    let any_port = client::get(
        &server,
        &client::authorize_url(
            &client_id,
            &[("redirect_uri", "http://127.0.0.1:43210/callback")],
        ),
        &[],
    )
    .await;
    assert_eq!(any_port.status, StatusCode::OK);
    // Any other scope than the one granted.
    let scope = client::get(
        &server,
        &client::authorize_url(&client_id, &[("scope", "api")]),
        &[],
    )
    .await;
    assert_eq!(scope.redirect_query()["error"], "invalid_scope");
    assert!(gitlab.received_requests().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_code_is_used_once_and_only_with_its_verifier() {
    let (gitlab, _provider) = Provider::start(7200).await;
    let server = start(&gitlab, KEY_A, &[]);
    let client_id = client::register(&server).await;
    let (query, _) = client::sign_in(&server, &client_id, &[]).await;
    let code = &query["code"];
    let wrong = client::exchange(&server, &client_id, code, &"x".repeat(43)).await;
    assert_eq!(wrong.status, StatusCode::BAD_REQUEST);
    assert_eq!(wrong.json()["error"], "invalid_grant");
    let other = client::register(&server).await;
    let stolen = client::exchange(&server, &other, code, VERIFIER).await;
    assert_eq!(stolen.json()["error"], "invalid_grant");
    let first = client::exchange(&server, &client_id, code, VERIFIER).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    let twice = client::exchange(&server, &client_id, code, VERIFIER).await;
    assert_eq!(twice.status, StatusCode::BAD_REQUEST);
    assert_eq!(twice.json()["error"], "invalid_grant");
}

#[tokio::test]
async fn a_gitlab_token_sent_as_bearer_is_refused_without_asking_gitlab() {
    let (gitlab, provider) = Provider::start(7200).await;
    let server = start(&gitlab, KEY_A, &["--stateless"]);
    let _ = client::tokens(&server).await;
    let gitlab_token = provider.live_access_tokens().pop().unwrap();
    let before = gitlab.received_requests().await.unwrap().len();
    let (status, challenge, body) = call(&server, &gitlab_token).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let challenge = challenge.unwrap();
    assert!(
        challenge.contains("error=\"invalid_token\"") && challenge.contains("resource_metadata=")
    );
    assert!(body.contains("GitLab token is not accepted"), "{body}");
    assert_eq!(gitlab.received_requests().await.unwrap().len(), before);
}

#[tokio::test]
async fn gitlabs_token_expired_or_revoked_is_a_401_invalid_token() {
    // GitLab's token lives a second: this server's lives a share of it, so it has expired.
    let (gitlab, _provider) = Provider::start(1).await;
    let server = start(&gitlab, KEY_A, &["--stateless"]);
    let (_, tokens) = client::tokens(&server).await;
    let (status, challenge, _) = call(&server, tokens["access_token"].as_str().unwrap()).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(challenge.unwrap().contains("error=\"invalid_token\""));
    // Revoked at GitLab after a call succeeded (its verdict remembered as accepted): the
    // next call meets GitLab's 401 itself and is answered 401, as is every later request.
    let (gitlab, provider) = Provider::start(7200).await;
    let server = start(&gitlab, KEY_A, &["--stateless"]);
    let (_, tokens) = client::tokens(&server).await;
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(call(&server, access).await.0, StatusCode::OK);
    provider.revoke_all();
    for round in ["the call that met the refusal", "the next request"] {
        let (status, challenge, body) = call(&server, access).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{round}: {body}");
        assert!(
            challenge.unwrap().contains("error=\"invalid_token\""),
            "{round}"
        );
    }
    // Revoked before any request: tools/call, in both modes, gets 401.
    let (gitlab, provider) = Provider::start(7200).await;
    for flags in [&["--stateless"][..], &[]] {
        let server = start(&gitlab, KEY_A, flags);
        let (_, tokens) = client::tokens(&server).await;
        provider.revoke_all();
        let access = tokens["access_token"].as_str().unwrap();
        let (status, challenge, body) = call(&server, access).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{flags:?}: {body}");
        assert!(challenge.unwrap().contains("error=\"invalid_token\""));
        assert!(body.contains("GitLab refused"), "{body}");
    }
}

/// `initialize` and `notifications/initialized` over HTTP in session mode with `token`: the
/// session's id.
async fn open_session(server: &crate::support::http_server::HttpServer, token: &str) -> String {
    let post = |body: serde_json::Value, session: Option<String>| {
        let mut request = crate::support::http_server::http_client()
            .post(server.mcp())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .bearer_auth(token)
            .json(&body);
        if let Some(session) = session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25");
        }
        request.send()
    };
    let init = post(
        serde_json::json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
        None,
    )
    .await
    .unwrap();
    assert_eq!(init.status(), StatusCode::OK);
    let session = init.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    let _ = init.text().await;
    let initialized = post(
        serde_json::json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        Some(session.clone()),
    )
    .await
    .unwrap();
    assert_eq!(initialized.status(), StatusCode::ACCEPTED);
    session
}

/// A `tools/call` reading `README.md` in `session` with `token`.
async fn session_call(
    server: &crate::support::http_server::HttpServer,
    session: &str,
    token: &str,
) -> reqwest::Result<reqwest::Response> {
    crate::support::http_server::http_client()
        .post(server.mcp())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .bearer_auth(token)
        .json(&serde_json::json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_repository_file","arguments":{"project_id":"g/p","file_path":"README.md","ref":"main"}}}))
        .send()
        .await
}

#[tokio::test]
async fn the_call_that_meets_a_revocation_is_itself_a_401_in_session_mode_too() {
    // Session mode answers a call as an SSE stream; its status is still the 401 when GitLab
    // refused the token during that very call, which is what makes a client sign in again.
    let (gitlab, provider) = Provider::start(7200).await;
    let server = start(&gitlab, KEY_A, &[]);
    let (_, tokens) = client::tokens(&server).await;
    let access = tokens["access_token"].as_str().unwrap();
    let session = open_session(&server, access).await;
    let call = || session_call(&server, &session, access);
    let first = call().await.unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    assert!(first.text().await.unwrap().contains("hello from GitLab"));
    // Revoked at GitLab after the token's verdict was remembered as accepted.
    provider.revoke_all();
    for round in ["the call that met the refusal", "the next call"] {
        let answer = call().await.unwrap();
        assert_eq!(answer.status(), StatusCode::UNAUTHORIZED, "{round}");
        let challenge = answer.headers()["www-authenticate"].to_str().unwrap();
        assert!(
            challenge.contains("error=\"invalid_token\""),
            "{round}: {challenge}"
        );
    }
}

#[tokio::test]
async fn a_session_belongs_to_the_gitlab_user_across_refreshes_and_sign_ins() {
    // Each refresh, and each new sign-in, brings a new GitLab token: the session belongs to
    // the GitLab user (`/oauth/token/info`), as the MCP spec advises, not to the token, or it
    // would end every two hours (404, and a client that does not open a new session stops).
    let (gitlab, provider) = Provider::start(7200).await;
    let server = start(&gitlab, KEY_A, &[]);
    let (client_id, first) = client::tokens(&server).await;
    let session = open_session(&server, first["access_token"].as_str().unwrap()).await;
    let (server_at, session_id) = (&server, session.as_str());
    let call = |token: String| async move { session_call(server_at, session_id, &token).await };
    let access = |tokens: &serde_json::Value| tokens["access_token"].as_str().unwrap().to_string();
    let refreshed = client::refresh(
        &server,
        &client_id,
        first["refresh_token"].as_str().unwrap(),
    )
    .await;
    assert_eq!(refreshed.status, StatusCode::OK, "{}", refreshed.body);
    let answer = call(access(&refreshed.json())).await.unwrap();
    assert_eq!(answer.status(), StatusCode::OK, "after a refresh");
    assert!(answer.text().await.unwrap().contains("hello from GitLab"));
    // Revoked, and the same user signs in afresh: the session goes on.
    provider.revoke_all();
    let (_, again) = client::tokens(&server).await;
    assert_eq!(call(access(&again)).await.unwrap().status(), StatusCode::OK);
    // Another GitLab user is a stranger to it.
    provider.0.lock().unwrap().user = Some(8);
    let (_, other) = client::tokens(&server).await;
    assert_eq!(
        call(access(&other)).await.unwrap().status(),
        StatusCode::NOT_FOUND
    );
}
