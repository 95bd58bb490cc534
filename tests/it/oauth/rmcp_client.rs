//! rmcp's own OAuth client (its `auth` feature) signs in to `--oauth` as a client program
//! would: discovery, dynamic registration, PKCE, the authorization URL opened in a "browser"
//! (the consent form posted, GitLab's stand-in approving), the redirect URL handed back with its
//! `state` and `iss` checked, the token exchange; then `tools/call` through rmcp's
//! authorizing HTTP client. Once registering, once naming itself by a Client ID Metadata
//! Document. The server's public URL is its real address here, since rmcp's
//! client fetches every URL the metadata names.

use super::client::{self, REDIRECT};
use super::document_host::{DocumentHost, Reply, ca_file};
use super::{KEY_A, sign_in::read_readme};
use crate::support::gitlab::{APP_ID, Provider, README};
use crate::support::http_server::{HttpServer as Server, http_client, text};

use reqwest::StatusCode;
use rmcp::ServiceExt;
use rmcp::model::ClientConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::auth::{AuthClient, AuthorizationRequest, OAuthState};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `serve --http --oauth` on a port of its own, its public URL its real address, trusting the
/// test CA, with `extra` flags.
fn start_on_own_port(gitlab: &wiremock::MockServer, extra: &[&str]) -> Server {
    let port = free_port();
    let address = format!("127.0.0.1:{port}");
    let public = format!("http://127.0.0.1:{port}");
    let mut flags = vec!["--http", &address, "--oauth", "--public-url", &public];
    flags.extend_from_slice(extra);
    let ca = ca_file();
    Server::start_with_env(
        &gitlab.uri(),
        &flags,
        None,
        &[
            ("GITLAB_OAUTH_CLIENT_ID", APP_ID),
            ("GITLAB_FILE_MCP_OAUTH_KEYS", KEY_A),
            ("GITLAB_CA_FILE", ca.to_str().unwrap()),
        ],
    )
}

#[tokio::test]
async fn rmcps_own_oauth_client_signs_in_and_calls_the_tool() {
    let (gitlab, _provider) = Provider::start(7200).await;
    let server = start_on_own_port(&gitlab, &[]);
    let request = AuthorizationRequest::new(REDIRECT).with_client_name("rmcp client");
    sign_in_and_call(&server, request, "rmcp client").await;
}

#[tokio::test]
async fn rmcps_own_oauth_client_signs_in_with_a_client_metadata_document() {
    let (gitlab, _provider) = Provider::start(7200).await;
    let host = DocumentHost::start();
    let client_id = host.url("/rmcp-client.json");
    host.reply(
        "/rmcp-client.json",
        Reply::json(&serde_json::json!({
            "client_id": client_id,
            "client_name": "rmcp by its document",
            "redirect_uris": [REDIRECT],
            "token_endpoint_auth_method": "none",
        })),
    );
    let server = start_on_own_port(&gitlab, &["--oauth-allow-private-client-metadata"]);
    // rmcp prefers the document to registration when the server advertises it.
    let request = AuthorizationRequest::new(REDIRECT)
        .with_client_name("rmcp by registration")
        .with_client_metadata_url(&client_id);
    sign_in_and_call(&server, request, "rmcp by its document").await;
    assert_eq!(host.requests("/rmcp-client.json"), 1);
}

/// rmcp's client through discovery, `request`'s registration or document, the consent page
/// (naming `shown_name`), GitLab and the token exchange, then a `tools/call`.
async fn sign_in_and_call(server: &Server, request: AuthorizationRequest, shown_name: &str) {
    let mut state = OAuthState::new(server.mcp(), Some(http_client()))
        .await
        .expect("discovery starts");
    state
        .start_authorization(request)
        .await
        .expect("registration and the authorization URL");
    let url = state.get_authorization_url().await.unwrap();
    // The browser: the consent page, its form posted with its cookie, GitLab, the callback.
    let page = client::get(server, &url, &[]).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(page.body.contains(shown_name), "{}", page.body);
    let form = client::consent_form(&page.body);
    let to_gitlab = client::post_form(
        server,
        "/authorize/consent",
        &[("form", &form), ("decision", "allow")],
        &page.cookies,
    )
    .await;
    let at_gitlab = client::get(server, to_gitlab.location.as_deref().unwrap(), &[]).await;
    // Back from GitLab, the browser brings the sign-in's cookie it was given on the way there.
    let back = client::get(
        server,
        at_gitlab.location.as_deref().unwrap(),
        &to_gitlab.cookies,
    )
    .await;
    let redirect = back.location.expect("back at the client");
    assert!(redirect.starts_with(REDIRECT), "{redirect}");
    state
        .handle_callback_url(&redirect)
        .await
        .expect("rmcp accepts the code, state and iss, and exchanges the code");
    let manager = state.into_authorization_manager().expect("authorized");
    let transport = StreamableHttpClientTransport::with_client(
        AuthClient::new(http_client(), manager),
        StreamableHttpClientTransportConfig::with_uri(server.mcp()),
    );
    let mcp = ClientConfig::default()
        .serve(transport)
        .await
        .expect("MCP connects with the access token");
    let result = mcp.call_tool(read_readme()).await.expect("tools/call");
    assert!(text(&result).contains(README.trim()), "{}", text(&result));
}
