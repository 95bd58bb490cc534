//! Client ID Metadata Documents: a `client_id` that is an https URL, fetched from an HTTPS
//! server on 127.0.0.1 ([`DocumentHost`], its CA given as `GITLAB_CA_FILE`). A whole sign-in
//! with one through the consent page to a `tools/call`, the document fetched once (cached);
//! refused without `--oauth-allow-private-client-metadata` because 127.0.0.1 and localhost are
//! loopback (nothing fetched); and each document that cannot be used refused with an error
//! page naming why (never a redirect): another `client_id`, over 5 KiB (said or streamed), a
//! redirect (not followed), a 404, a confidential client; and none accepted with
//! `--oauth-no-client-metadata-documents`.

use reqwest::StatusCode;
use serde_json::json;

use super::KEY_A;
use super::client::{self, PUBLIC, REDIRECT, VERIFIER};
use super::document_host::{DocumentHost, Reply, ca_file};
use super::sign_in::call;
use crate::support::gitlab::{Provider, README};
use crate::support::http_server::HttpServer as Server;

/// `serve --http --oauth` trusting the test CA, with `extra` flags.
fn start(gitlab: &wiremock::MockServer, extra: &[&str]) -> Server {
    let mut flags = vec!["--oauth", "--public-url", PUBLIC, "--stateless"];
    flags.extend_from_slice(extra);
    let ca = ca_file();
    Server::start_with_env(
        &gitlab.uri(),
        &flags,
        None,
        &[
            ("GITLAB_OAUTH_CLIENT_ID", crate::support::gitlab::APP_ID),
            ("GITLAB_FILE_MCP_OAUTH_KEYS", KEY_A),
            ("GITLAB_CA_FILE", ca.to_str().unwrap()),
        ],
    )
}

const ALLOW_PRIVATE: &str = "--oauth-allow-private-client-metadata";

/// A document for `client_id` with [`REDIRECT`] and a port-less `localhost` one.
fn document(client_id: &str) -> serde_json::Value {
    json!({
        "client_id": client_id,
        "client_name": "Document client",
        "redirect_uris": [REDIRECT, "http://localhost/callback"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    })
}

/// `step`'s count in the server's `/metrics`.
async fn sign_in_steps(server: &Server, step: &str) -> u64 {
    let text = server.metrics().await;
    let label = format!("oauth_sign_in_steps_total{{step=\"{step}\"}}");
    text.lines()
        .find(|line| line.contains(&label))
        .and_then(|line| line.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no {label} in:\n{text}"))
}

#[tokio::test]
async fn a_document_client_signs_in_through_consent_to_a_tool_call() {
    let (gitlab, _provider) = Provider::start(7200).await;
    let host = DocumentHost::start();
    let client_id = host.url("/oauth/client.json");
    let mut reply = Reply::json(&document(&client_id));
    reply
        .headers
        .push(("Cache-Control".into(), "public, max-age=60".into()));
    host.reply("/oauth/client.json", reply);
    let server = start(&gitlab, &[ALLOW_PRIVATE]);
    let meta = client::get(
        &server,
        &format!("{PUBLIC}/.well-known/oauth-authorization-server"),
        &[],
    )
    .await
    .json();
    assert_eq!(meta["client_id_metadata_document_supported"], true);
    // The consent page names the document's client, its redirect host and where it lives.
    let page = client::get(&server, &client::authorize_url(&client_id, &[]), &[]).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(page.body.contains("Document client"), "{}", page.body);
    assert!(
        page.body
            .contains("It describes itself at <strong>127.0.0.1</strong>")
    );
    // Its redirect URI is on this computer: any program could use the name.
    assert!(page.body.contains("any program on it could use this name"));
    // The sign-in, the code exchanged, a tool call read with GitLab's token.
    let (query, _) = client::sign_in(&server, &client_id, &[]).await;
    let answer = client::exchange(&server, &client_id, &query["code"], VERIFIER).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let access = answer.json()["access_token"].as_str().unwrap().to_string();
    let (status, _, body) = call(&server, &access).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains(README.trim()), "{body}");
    // Three lookups (page, sign-in, token), one fetch: the document was cached.
    assert_eq!(host.requests("/oauth/client.json"), 1);
    assert_eq!(sign_in_steps(&server, "client_metadata_fetched").await, 1);
    assert_eq!(sign_in_steps(&server, "client_metadata_refused").await, 0);
    // `http://localhost/callback` listed without a port stands for any port (Claude Code's
    // document lists it so and listens on a port of its choosing).
    let any_port = client::get(
        &server,
        &client::authorize_url(
            &client_id,
            &[("redirect_uri", "http://localhost:55611/callback")],
        ),
        &[],
    )
    .await;
    assert_eq!(any_port.status, StatusCode::OK, "{}", any_port.body);
    // A redirect URI the document does not list is refused with a page.
    let wrong = client::get(
        &server,
        &client::authorize_url(&client_id, &[("redirect_uri", "http://127.0.0.1:1/other")]),
        &[],
    )
    .await;
    assert_eq!(wrong.status, StatusCode::BAD_REQUEST);
    assert!(wrong.location.is_none());
}

#[tokio::test]
async fn loopback_documents_are_refused_without_the_flag_and_never_fetched() {
    let (gitlab, _provider) = Provider::start(7200).await;
    let host = DocumentHost::start();
    let by_ip = host.url("/client.json");
    let by_name = format!("https://localhost:{}/client.json", host.port);
    let by_ipv6 = format!("https://[::1]:{}/client.json", host.port);
    for client_id in [&by_ip, &by_name, &by_ipv6] {
        host.reply("/client.json", Reply::json(&document(client_id)));
    }
    let server = start(&gitlab, &[]);
    for client_id in [&by_ip, &by_name, &by_ipv6] {
        let page = client::get(&server, &client::authorize_url(client_id, &[]), &[]).await;
        assert_eq!(page.status, StatusCode::BAD_REQUEST, "{client_id}");
        assert!(page.location.is_none());
        assert!(
            page.body.contains("loopback, private, link-local"),
            "{client_id}: {}",
            page.body
        );
    }
    // The token endpoint refuses the client too.
    let token = client::exchange(&server, &by_name, "any-code", VERIFIER).await;
    assert_eq!(token.status, StatusCode::UNAUTHORIZED, "{}", token.body);
    assert_eq!(token.json()["error"], "invalid_client");
    assert_eq!(host.all_requests(), 0);
    assert_eq!(sign_in_steps(&server, "client_metadata_refused").await, 4);
}

#[tokio::test]
async fn documents_can_be_turned_off_for_servers_without_egress() {
    let (gitlab, _provider) = Provider::start(7200).await;
    let host = DocumentHost::start();
    let client_id = host.url("/client.json");
    host.reply("/client.json", Reply::json(&document(&client_id)));
    let server = start(&gitlab, &["--oauth-no-client-metadata-documents"]);
    let meta = client::get(
        &server,
        &format!("{PUBLIC}/.well-known/oauth-authorization-server"),
        &[],
    )
    .await
    .json();
    assert_eq!(meta["client_id_metadata_document_supported"], false);
    let page = client::get(&server, &client::authorize_url(&client_id, &[]), &[]).await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST);
    assert!(page.body.contains("not registered"), "{}", page.body);
    assert_eq!(host.all_requests(), 0);
    // Registering still works.
    let registered = client::register(&server).await;
    let page = client::get(&server, &client::authorize_url(&registered, &[]), &[]).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
}

#[tokio::test]
async fn documents_that_cannot_be_used_are_refused_with_a_page_saying_why() {
    let (gitlab, _provider) = Provider::start(7200).await;
    let host = DocumentHost::start();
    let good = host.url("/client.json");
    host.reply("/client.json", Reply::json(&document(&good)));
    host.reply(
        "/other-id.json",
        Reply::json(&document(&host.url("/client.json"))),
    );
    let mut big = document(&host.url("/big.json"));
    big["client_name"] = json!("x".repeat(6 * 1024));
    host.reply("/big.json", Reply::json(&big));
    let mut streamed = document(&host.url("/streamed.json"));
    streamed["client_name"] = json!("x".repeat(6 * 1024));
    let mut streamed = Reply::json(&streamed);
    streamed.with_length = false;
    host.reply("/streamed.json", streamed);
    host.reply("/moved.json", Reply::redirect(&good));
    let mut secret = document(&host.url("/secret.json"));
    secret["token_endpoint_auth_method"] = json!("client_secret_basic");
    host.reply("/secret.json", Reply::json(&secret));
    let server = start(&gitlab, &[ALLOW_PRIVATE]);
    let cases = [
        ("/other-id.json", "not exactly the URL it was fetched from"),
        ("/big.json", "over 5 KiB"),
        ("/streamed.json", "over 5 KiB"),
        (
            "/moved.json",
            "answered with a redirect, which is not followed",
        ),
        ("/missing.json", "answered HTTP 404"),
        ("/secret.json", "token_endpoint_auth_method is not none"),
    ];
    for (path, why) in cases {
        let page = client::get(&server, &client::authorize_url(&host.url(path), &[]), &[]).await;
        assert_eq!(
            page.status,
            StatusCode::BAD_REQUEST,
            "{path}: {}",
            page.body
        );
        assert!(page.location.is_none(), "{path} was redirected");
        assert!(page.body.contains("Sign-in refused"), "{path}");
        assert!(page.body.contains(why), "{path}: {}", page.body);
        assert_eq!(host.requests(path), 1, "{path}");
    }
    // Not canonical, so not fetched: a dot segment, an upper-case host.
    for odd in [
        format!("https://127.0.0.1:{}/x/../client.json", host.port),
        format!("https://LOCALHOST:{}/client.json", host.port),
    ] {
        let page = client::get(&server, &client::authorize_url(&odd, &[]), &[]).await;
        assert_eq!(page.status, StatusCode::BAD_REQUEST, "{odd}");
        assert!(page.body.contains("canonical form"), "{odd}: {}", page.body);
    }
    // The redirect was not followed, and refusals are not cached as documents.
    assert_eq!(host.requests("/client.json"), 0);
    assert_eq!(
        sign_in_steps(&server, "client_metadata_refused").await,
        cases.len() as u64 + 2
    );
    assert_eq!(sign_in_steps(&server, "client_metadata_fetched").await, 0);
}
