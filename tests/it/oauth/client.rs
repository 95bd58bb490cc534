//! A scripted MCP client signing in as a browser and a client would, step by step, with no
//! redirect followed by itself: discovery, registration, `/authorize`, the consent form (its
//! cookie sent back), GitLab's `/oauth/authorize` (the stand-in approves), the callback, the
//! client's redirect URI read for `code`, `state` and `iss`, then `/token`. The server's public
//! URL is [`PUBLIC`], mapped onto the process actually asked (as a load balancer would).

use std::collections::HashMap;

use base64::Engine;
use reqwest::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::support::http_server::{HttpServer as Server, http_client};

/// The public URL every test server is started with.
pub const PUBLIC: &str = "http://localhost";
/// The redirect URI the client registers.
pub const REDIRECT: &str = "http://127.0.0.1:1/callback";
/// The client's PKCE verifier (RFC 7636 Appendix B) and its S256 challenge.
pub const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
pub const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

/// A response's parts a test looks at.
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub location: Option<String>,
    pub cookies: Vec<String>,
    pub headers: reqwest::header::HeaderMap,
    pub body: String,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|_| panic!("not JSON: {}", self.body))
    }

    /// The query of the `Location` this answer redirects to.
    pub fn redirect_query(&self) -> HashMap<String, String> {
        let location = self.location.as_deref().expect("a redirect");
        url::Url::parse(location)
            .unwrap()
            .query_pairs()
            .into_owned()
            .collect()
    }
}

/// `url` (under [`PUBLIC`] or the GitLab stand-in) asked of `server` or GitLab.
pub async fn get(server: &Server, url: &str, cookies: &[String]) -> Answer {
    let client = no_redirects();
    let mut request = client.get(local(server, url));
    if !cookies.is_empty() {
        request = request.header("cookie", cookies.join("; "));
    }
    answer(request.send().await.unwrap()).await
}

/// A form posted to `path` of `server`.
pub async fn post_form(
    server: &Server,
    path: &str,
    form: &[(&str, &str)],
    cookies: &[String],
) -> Answer {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let mut request = no_redirects()
        .post(format!("{}{path}", server.base))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body);
    if !cookies.is_empty() {
        request = request.header("cookie", cookies.join("; "));
    }
    answer(request.send().await.unwrap()).await
}

/// `body` posted as JSON to `path` of `server`.
pub async fn post_json(server: &Server, path: &str, body: &Value) -> Answer {
    let request = no_redirects()
        .post(format!("{}{path}", server.base))
        .json(body);
    answer(request.send().await.unwrap()).await
}

fn no_redirects() -> reqwest::Client {
    let _ = http_client();
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

async fn answer(response: reqwest::Response) -> Answer {
    let headers = response.headers().clone();
    Answer {
        status: response.status(),
        location: headers
            .get("location")
            .map(|v| v.to_str().unwrap().to_string()),
        cookies: headers
            .get_all("set-cookie")
            .iter()
            .map(|v| v.to_str().unwrap().split(';').next().unwrap().to_string())
            .collect(),
        headers,
        body: response.text().await.unwrap_or_default(),
    }
}

/// `url` with [`PUBLIC`] replaced by the server's own address.
pub fn local(server: &Server, url: &str) -> String {
    match url.strip_prefix(PUBLIC) {
        Some(rest) => format!("{}{rest}", server.base),
        None => url.to_string(),
    }
}

/// Registers a client with [`REDIRECT`]; its `client_id`.
pub async fn register(server: &Server) -> String {
    let answer = post_json(
        server,
        "/register",
        &json!({"redirect_uris": [REDIRECT], "client_name": "Scripted client", "token_endpoint_auth_method": "none"}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    answer.json()["client_id"].as_str().unwrap().to_string()
}

/// `/authorize`'s URL for `client_id` with `extra` parameters (the usual ones unless given).
pub fn authorize_url(client_id: &str, extra: &[(&str, &str)]) -> String {
    let mut pairs: Vec<(&str, &str)> = vec![
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", REDIRECT),
        ("code_challenge", CHALLENGE),
        ("code_challenge_method", "S256"),
        ("state", "client-state-1"),
        ("scope", "read_api"),
        ("resource", "http://localhost/mcp"),
    ];
    for (name, value) in extra {
        pairs.retain(|(n, _)| n != name);
        if !value.is_empty() {
            pairs.push((name, value));
        }
    }
    let query = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish();
    format!("{PUBLIC}/authorize?{query}")
}

/// The hidden `form` field of a consent page.
pub fn consent_form(page: &str) -> String {
    let marker = "name=\"form\" value=\"";
    let start = page.find(marker).expect("a consent form") + marker.len();
    let end = start + page[start..].find('"').unwrap();
    page[start..end].to_string()
}

/// A whole sign-in for a registered `client_id`, consent given: the client's redirect query
/// (`code`, `state`, `iss`) and the cookies the browser holds after it (as `name=value`, the
/// newest last; a cookie the server removed stays, as it is never sent first).
pub async fn sign_in(
    server: &Server,
    client_id: &str,
    cookies: &[String],
) -> (HashMap<String, String>, Vec<String>) {
    let mut jar = cookies.to_vec();
    let mut step = get(server, &authorize_url(client_id, &[]), &jar).await;
    if step.status == StatusCode::OK {
        jar.extend(step.cookies.clone());
        let form = consent_form(&step.body);
        step = post_form(
            server,
            "/authorize/consent",
            &[("form", &form), ("decision", "allow")],
            &jar,
        )
        .await;
    }
    // The sign-in's own cookie comes with the redirect to GitLab (consent given or remembered).
    jar.extend(step.cookies.clone());
    assert_eq!(step.status, StatusCode::FOUND, "{}", step.body);
    let at_gitlab = get(server, step.location.as_deref().unwrap(), &[]).await;
    assert_eq!(at_gitlab.status, StatusCode::FOUND, "{}", at_gitlab.body);
    let back = get(server, at_gitlab.location.as_deref().unwrap(), &jar).await;
    assert_eq!(back.status, StatusCode::FOUND, "{}", back.body);
    assert!(back.location.as_deref().unwrap().starts_with(REDIRECT));
    (back.redirect_query(), jar)
}

/// `/token` for an authorization code.
pub async fn exchange(server: &Server, client_id: &str, code: &str, verifier: &str) -> Answer {
    post_form(
        server,
        "/token",
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", REDIRECT),
            ("client_id", client_id),
            ("code_verifier", verifier),
        ],
        &[],
    )
    .await
}

/// `/token` for a refresh.
pub async fn refresh(server: &Server, client_id: &str, refresh_token: &str) -> Answer {
    post_form(
        server,
        "/token",
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token),
            ("client_id", client_id),
        ],
        &[],
    )
    .await
}

/// Signed in from scratch: the client id and the token answer.
pub async fn tokens(server: &Server) -> (String, Value) {
    let client_id = register(server).await;
    let (query, _) = sign_in(server, &client_id, &[]).await;
    let answer = exchange(server, &client_id, &query["code"], VERIFIER).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    (client_id, answer.json())
}

/// S256 of `verifier` (to check the constant pair).
pub fn s256(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}
