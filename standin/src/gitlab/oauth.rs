//! GitLab as an OAuth provider, as Doorkeeper answers (`../shared/gitlab/OAUTH.md` §1):
//! `GET /oauth/authorize` approves at once for a signed-in user (a 302 to the redirect URI with
//! `code` and `state`); `POST /oauth/token` exchanges a code (once, PKCE S256 checked, the
//! redirect URI matched) or a refresh token (rotated: the old one is spent, and replaying it
//! revokes the whole family), errors as Doorkeeper's JSON (`invalid_grant`, 400);
//! `GET /oauth/token/info` names a live token's user (`resource_owner_id`: [`Ledger::user`] when
//! its family was signed in) or answers 401 `invalid_token`. With a [`Provider`], the stand-in's
//! GraphQL accepts only a live access token and answers any other with 401 `Invalid token`.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use base64::Engine;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use wiremock::{Request, ResponseTemplate};

/// The GitLab application's id the server is configured with.
pub const APP_ID: &str = "gitlab-app-4f2c";
/// The file the sign-in GitLab's project (`g/p`, id 1) holds on `main`, as `README.md`.
pub const README: &str = "hello from GitLab\n";

/// What the provider remembers.
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

/// The provider, its ledger shared with the test.
#[derive(Clone, Default)]
pub struct Provider(pub Arc<Mutex<Ledger>>);

impl Provider {
    /// A provider whose access tokens live `expires_in` seconds.
    pub fn new(expires_in: u64) -> Provider {
        Provider(Arc::new(Mutex::new(Ledger {
            expires_in,
            ..Ledger::default()
        })))
    }

    /// Starts a GitLab whose project `g/p` (id 1) holds [`README`] and which only a live
    /// access token of this provider may read; its access tokens live `expires_in` seconds.
    pub async fn start(expires_in: u64) -> (wiremock::MockServer, Provider) {
        let provider = Provider::new(expires_in);
        let gitlab = super::Gitlab {
            access: super::Access::SignedIn(provider.clone()),
            ..super::Gitlab::of_project("g/p", 1)
        };
        gitlab.put("README.md", README.as_bytes().to_vec(), false);
        (gitlab.start().await, provider)
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

    /// The user a live access token acts for.
    pub fn user_of(&self, token: &str) -> Option<u64> {
        let ledger = self.0.lock().unwrap();
        let family = ledger
            .access
            .get(token)
            .filter(|f| !ledger.revoked.contains(f))?;
        ledger.users.get(family).copied()
    }

    /// The answer to a sign-in endpoint, `None` for any other path.
    pub fn answer(&self, request: &Request) -> Option<ResponseTemplate> {
        let mut ledger = self.0.lock().unwrap();
        Some(match request.url.path() {
            "/oauth/authorize" => ledger.authorize(request),
            "/oauth/token" => ledger.token(request),
            "/oauth/token/info" => {
                drop(ledger);
                self.token_info(request)
            }
            _ => return None,
        })
    }

    /// Doorkeeper's token info: the live token's user.
    fn token_info(&self, request: &Request) -> ResponseTemplate {
        let token = super::access::bearer(request).unwrap_or_default();
        let Some(user) = self.user_of(token) else {
            return ResponseTemplate::new(401).set_body_json(json!({"error": "invalid_token", "error_description": "The access token is invalid"}));
        };
        let ledger = self.0.lock().unwrap();
        ResponseTemplate::new(200).set_body_json(json!({
            "resource_owner_id": user, "scope": ["read_api"], "expires_in": ledger.expires_in,
            "application": {"uid": APP_ID}, "created_at": 1_700_000_000u64
        }))
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
        let answer: Value = json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.expires_in,
            "refresh_token": refresh,
            "scope": "read_api",
            "created_at": 1_700_000_000u64,
        });
        ResponseTemplate::new(200).set_body_json(answer)
    }
}
