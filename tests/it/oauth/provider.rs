//! A GitLab stand-in answering as GitLab's OAuth provider (Doorkeeper) does
//! (`../shared/gitlab/OAUTH.md` §1): `GET /oauth/authorize` approves at once for a signed-in user
//! (a 302 to the redirect URI with `code` and `state`), `POST /oauth/token` exchanges a code
//! (once, PKCE S256 checked, the redirect URI matched) or a refresh token (rotated: the old one
//! is spent, and replaying it revokes the whole family), errors as Doorkeeper's JSON
//! (`invalid_grant`, 400); `GET /oauth/token/info` names a live token's user
//! (`resource_owner_id`: [`Ledger::user`] when its family was signed in) or answers 401
//! `invalid_token`; `POST /api/graphql` accepts a live access token (the token check and a file
//! read) and answers any other with 401 `Invalid token`.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use base64::Engine;
use serde_json::json;
use sha2::{Digest, Sha256};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::support::gitlab_mock::{project_answer, text_node};
use crate::support::users;

/// The GitLab application's id the server is configured with.
pub const APP_ID: &str = "gitlab-app-4f2c";
/// The file every read gets.
pub const README: &str = "hello from GitLab\n";

/// What the stand-in remembers.
#[derive(Debug, Default)]
pub struct Ledger {
    /// Codes issued at `/oauth/authorize`: code → (redirect URI, PKCE challenge).
    codes: HashMap<String, (String, String)>,
    /// Access tokens: token → family.
    pub access: HashMap<String, u32>,
    /// Live refresh tokens: token → family.
    refresh: HashMap<String, u32>,
    /// Refresh tokens already used: token → family.
    spent: HashMap<String, u32>,
    /// Revoked families (the user revoked the application, or a refresh token was replayed).
    pub revoked: HashSet<u32>,
    /// Seconds each access token is said to live (`expires_in`).
    pub expires_in: u64,
    next: u32,
    /// The user who signs in next (7 unless a test says).
    pub user: Option<u64>,
    /// Each family's user.
    users: HashMap<u32, u64>,
    /// Token requests, by grant type.
    pub grants: Vec<String>,
    /// The client id and secret each token request carried.
    pub clients: Vec<(Option<String>, Option<String>)>,
}

/// The stand-in, its ledger shared with the test.
#[derive(Clone)]
pub struct Provider(pub Arc<Mutex<Ledger>>);

impl Provider {
    /// Starts the stand-in: access tokens live `expires_in` seconds.
    pub async fn start(expires_in: u64) -> (MockServer, Provider) {
        let server = MockServer::start().await;
        let provider = Provider(Arc::new(Mutex::new(Ledger {
            expires_in,
            ..Ledger::default()
        })));
        for (verb, route) in [
            ("GET", "/oauth/authorize"),
            ("GET", "/oauth/token/info"),
            ("POST", "/oauth/token"),
            ("POST", "/api/graphql"),
        ] {
            Mock::given(method(verb))
                .and(path(route))
                .respond_with(provider.clone())
                .mount(&server)
                .await;
        }
        (server, provider)
    }

    /// The user revokes the application: every token GitLab issued stops working.
    pub fn revoke_all(&self) {
        let mut ledger = self.0.lock().unwrap();
        let families: Vec<u32> = ledger.access.values().copied().collect();
        ledger.revoked.extend(families);
    }

    /// The live GitLab access tokens.
    pub fn live_access_tokens(&self) -> Vec<String> {
        let ledger = self.0.lock().unwrap();
        ledger
            .access
            .iter()
            .filter(|(_, f)| !ledger.revoked.contains(f))
            .map(|(t, _)| t.clone())
            .collect()
    }
}

fn form(request: &Request) -> HashMap<String, String> {
    url::form_urlencoded::parse(&request.body)
        .into_owned()
        .collect()
}

fn doorkeeper_error(error: &str) -> ResponseTemplate {
    let description = match error {
        "invalid_grant" => {
            "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client."
        }
        _ => "The request is missing a required parameter.",
    };
    ResponseTemplate::new(400)
        .set_body_json(json!({"error": error, "error_description": description}))
}

impl Ledger {
    fn authorize(&mut self, request: &Request) -> ResponseTemplate {
        let query: HashMap<String, String> = request.url.query_pairs().into_owned().collect();
        let ok = query.get("client_id").map(String::as_str) == Some(APP_ID)
            && query.get("scope").map(String::as_str) == Some("read_api")
            && query.get("code_challenge_method").map(String::as_str) == Some("S256");
        let redirect = query.get("redirect_uri").cloned().unwrap_or_default();
        if !ok {
            return ResponseTemplate::new(400).set_body_string("bad authorize request");
        }
        self.next += 1;
        let code = format!("gl-code-{}", self.next);
        let challenge = query.get("code_challenge").cloned().unwrap_or_default();
        self.codes
            .insert(code.clone(), (redirect.clone(), challenge));
        let mut location = url::Url::parse(&redirect).unwrap();
        location
            .query_pairs_mut()
            .append_pair("code", &code)
            .append_pair("state", query.get("state").map_or("", String::as_str));
        ResponseTemplate::new(302).insert_header("location", location.as_str())
    }

    fn token(&mut self, request: &Request) -> ResponseTemplate {
        let form = form(request);
        let field = |name: &str| form.get(name).cloned();
        self.grants.push(field("grant_type").unwrap_or_default());
        self.clients
            .push((field("client_id"), field("client_secret")));
        if field("client_id").as_deref() != Some(APP_ID) {
            return ResponseTemplate::new(401).set_body_json(json!({"error": "invalid_client", "error_description": "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method."}));
        }
        match field("grant_type").as_deref() {
            Some("authorization_code") => {
                let Some((redirect, challenge)) = field("code").and_then(|c| self.codes.remove(&c))
                else {
                    return doorkeeper_error("invalid_grant");
                };
                let verifier = field("code_verifier").unwrap_or_default();
                let s256 = base64::engine::general_purpose::URL_SAFE_NO_PAD
                    .encode(Sha256::digest(verifier.as_bytes()));
                if field("redirect_uri") != Some(redirect) || s256 != challenge {
                    return doorkeeper_error("invalid_grant");
                }
                self.next += 1;
                let family = self.next;
                self.users.insert(family, self.user.unwrap_or(7));
                self.issue(family)
            }
            Some("refresh_token") => {
                let token = field("refresh_token").unwrap_or_default();
                if let Some(family) = self.spent.get(&token).copied() {
                    // Doorkeeper: a replayed refresh token revokes its family.
                    self.revoked.insert(family);
                    return doorkeeper_error("invalid_grant");
                }
                let Some(family) = self.refresh.remove(&token) else {
                    return doorkeeper_error("invalid_grant");
                };
                if self.revoked.contains(&family) {
                    return doorkeeper_error("invalid_grant");
                }
                self.spent.insert(token, family);
                self.issue(family)
            }
            _ => doorkeeper_error("unsupported_grant_type"),
        }
    }

    fn issue(&mut self, family: u32) -> ResponseTemplate {
        self.next += 1;
        let access = format!("gl-access-{}", self.next);
        let refresh = format!("gl-refresh-{}", self.next);
        self.access.insert(access.clone(), family);
        self.refresh.insert(refresh.clone(), family);
        ResponseTemplate::new(200).set_body_json(json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.expires_in,
            "refresh_token": refresh,
            "scope": "read_api",
            "created_at": 1_700_000_000u64,
        }))
    }

    /// Doorkeeper's token info: the live token's user.
    fn token_info(&self, request: &Request) -> ResponseTemplate {
        let token = users::bearer(request).unwrap_or_default();
        let family = self
            .access
            .get(&token)
            .filter(|f| !self.revoked.contains(f));
        let Some(user) = family.and_then(|f| self.users.get(f)) else {
            return ResponseTemplate::new(401).set_body_json(json!({"error": "invalid_token", "error_description": "The access token is invalid"}));
        };
        ResponseTemplate::new(200).set_body_json(json!({
            "resource_owner_id": user, "scope": ["read_api"], "expires_in": self.expires_in,
            "application": {"uid": APP_ID}, "created_at": 1_700_000_000u64
        }))
    }

    fn graphql(&self, request: &Request) -> ResponseTemplate {
        let token = users::bearer(request).unwrap_or_default();
        let live = self
            .access
            .get(&token)
            .is_some_and(|f| !self.revoked.contains(f));
        if !live {
            return users::current_user(None);
        }
        if users::is_token_check(request) {
            return users::current_user(Some(7));
        }
        ResponseTemplate::new(200).set_body_json(project_answer(
            "g/p",
            1,
            vec![text_node("README.md", README)],
        ))
    }
}

impl Respond for Provider {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let mut ledger = self.0.lock().unwrap();
        match request.url.path() {
            "/oauth/authorize" => ledger.authorize(request),
            "/oauth/token" => ledger.token(request),
            "/oauth/token/info" => ledger.token_info(request),
            _ => ledger.graphql(request),
        }
    }
}
