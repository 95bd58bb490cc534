//! `GET /authorize` and the consent that comes before GitLab: the client and its redirect URI
//! checked (an unknown client, a client metadata document that cannot be used, or an
//! unregistered URI is an error page, never a redirect), then
//! the request (`response_type=code`, PKCE S256 only, the one scope, this resource) or an error
//! redirect to the registered URI; then, unless this browser approved this client before (a
//! sealed cookie bound to the client), this server's consent page: one POST form, bound to
//! this browser by a cookie of its own ([`super::browser`]), not frameable. Approved, the
//! browser goes to GitLab's `/oauth/authorize` with this server's own PKCE and the sign-in
//! sealed as `state` ([`PendingSignIn`]), the browser given that sign-in's cookie.
//!
//! `GET /oauth/callback`: GitLab sends the browser back. The `state` must open as a sign-in
//! this server started, come back to the browser it was given to (its cookie), and be used
//! for the first time (else an error page: there is nowhere safe to redirect; a `state` sent
//! to another user's browser completes nothing); GitLab's code
//! is exchanged at GitLab's `/oauth/token` (this server's PKCE verifier); the browser then
//! goes to the client's redirect URI with this server's own code ([`AuthCode`]: sealed, single
//! use, short-lived, bound to the client, its redirect URI and PKCE challenge, carrying
//! GitLab's tokens), the client's `state` and RFC 9207's `iss`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Form;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, StatusCode};
use sha2::{Digest, Sha256};

use super::browser::{Binding, CookieScope, Purpose, append_cookie, cookie_value};
use super::client::{is_document_url, redirect};
use super::metadata::CONSENT_PATH;
use super::pages;
use super::refusal::{PageRefusal, RedirectRefusal, found, page, with_query};
use super::register;
use super::sealed::{
    AuthCode, ClientRequest, ConsentForm, ConsentGrant, PendingSignIn, now, open, seal,
};
use super::state::Oauth;
use super::upstream::{Upstream, UpstreamError};
use crate::config::Secret;

/// How long a consent form and a sign-in through GitLab may take.
const FLOW_SECS: u64 = 600;
/// How long a browser's approval of a client is remembered.
const CONSENT_SECS: u64 = 30 * 24 * 3600;
/// The scope a client may ask for besides ours, ignored (refresh tokens are issued anyway).
const OFFLINE_ACCESS: &str = "offline_access";

/// `GET /authorize`.
pub(crate) async fn authorize(
    State(oauth): State<Arc<Oauth>>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let param = |name: &str| query.get(name).map(String::as_str);
    let client = match param("client_id") {
        Some(id) => register::client(&oauth, id).await,
        None => Err(None),
    };
    let client = match client {
        Ok(client) => client,
        Err(None) => return PageRefusal::UnknownClient.into_response(),
        Err(Some(problem)) => return PageRefusal::ClientDocument(problem).into_response(),
    };
    let redirect_uri = match param("redirect_uri") {
        Some(uri)
            if client
                .redirect_uris
                .iter()
                .any(|r| redirect::matches(r, uri)) =>
        {
            uri
        }
        None if client.redirect_uris.len() == 1 => client.redirect_uris[0].as_str(),
        _ => return PageRefusal::RedirectUri.into_response(),
    };
    let state = param("state");
    if let Err(refusal) = check_request(&oauth, &param) {
        tracing::info!(%refusal, "OAuth authorization refused");
        return refusal.redirect(redirect_uri, state, &oauth.settings.public);
    }
    let request = ClientRequest {
        client_id: param("client_id").unwrap_or_default().to_string(),
        redirect_uri: redirect_uri.to_string(),
        code_challenge: param("code_challenge").unwrap_or_default().to_string(),
        state: state.map(str::to_string),
    };
    if approved(&oauth, &headers, &request.client_id) {
        return to_gitlab(&oauth, request, &[]);
    }
    consent_page(&oauth, &client.client_name, request)
}

/// The request's own checks, once the client and its redirect URI are known (pure).
fn check_request<'a>(
    oauth: &Oauth,
    param: &impl Fn(&str) -> Option<&'a str>,
) -> Result<(), RedirectRefusal> {
    if param("response_type") != Some("code") {
        return Err(RedirectRefusal::ResponseType);
    }
    let challenge = param("code_challenge").filter(|c| is_challenge(c));
    match (challenge, param("code_challenge_method")) {
        (None, _) => return Err(RedirectRefusal::NoChallenge),
        (Some(_), Some("S256")) => {}
        (Some(_), _) => return Err(RedirectRefusal::PlainChallenge),
    }
    let ours = &oauth.settings.scope;
    let foreign = |s: &str| !s.is_empty() && s != ours && s != OFFLINE_ACCESS;
    if param("scope").is_some_and(|scope| scope.split(' ').any(foreign)) {
        return Err(RedirectRefusal::Scope);
    }
    if param("resource").is_some_and(|r| !oauth.settings.is_resource(r)) {
        return Err(RedirectRefusal::Resource);
    }
    Ok(())
}

/// An S256 challenge: 43 characters of base64url.
fn is_challenge(challenge: &str) -> bool {
    challenge.len() == 43
        && challenge
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The consent page, its form bound to this browser by a cookie of its own.
fn consent_page(oauth: &Oauth, client_name: &str, request: ClientRequest) -> Response {
    let keys = &oauth.settings.keys;
    let Some(binding) = Binding::new(keys) else {
        return PageRefusal::Internal.into_response();
    };
    let host = redirect::shown_host(&request.redirect_uri);
    let publisher =
        is_document_url(&request.client_id).then(|| redirect::shown_host(&request.client_id));
    let name = super::client::shown_name(client_name);
    let set_cookie = binding.set_cookie(Purpose::Consent, scope(oauth), FLOW_SECS);
    let form = ConsentForm {
        request,
        binding,
        exp: now() + FLOW_SECS,
    };
    let Some(sealed) = seal(keys, &form) else {
        return PageRefusal::Internal.into_response();
    };
    let body = pages::consent(&pages::Consent {
        name: &name,
        gitlab: &oauth.settings.gitlab,
        host: &host,
        // Loopback: any program on this computer could use a published name (the draft's
        // advice on localhost-only clients).
        local: redirect::is_loopback_name(&host),
        publisher: publisher.as_deref(),
        scope: &oauth.settings.scope,
        action: CONSENT_PATH,
        form: &sealed,
    });
    let Some(body) = body else {
        return PageRefusal::Internal.into_response();
    };
    let mut response = page(StatusCode::OK, body);
    append_cookie(response.headers_mut(), &set_cookie);
    response
}

/// `POST /authorize/consent`: the form sent back from the browser it was shown in (its
/// cookie), then the client's error redirect (denied) or the consent remembered and on to
/// GitLab.
pub(crate) async fn consent(
    State(oauth): State<Arc<Oauth>>,
    headers: HeaderMap,
    Form(fields): Form<HashMap<String, String>>,
) -> Response {
    let form = fields
        .get("form")
        .and_then(|f| open::<ConsentForm>(&oauth.settings.keys, f, now()));
    let scope = scope(&oauth);
    let Some(form) = form.filter(|f| f.binding.held_by(Purpose::Consent, scope, &headers)) else {
        return PageRefusal::StaleForm.into_response();
    };
    let used = form.binding.clear_cookie(Purpose::Consent, scope);
    let request = form.request;
    if fields.get("decision").map(String::as_str) != Some("allow") {
        let state = request.state.as_deref();
        let mut denied =
            RedirectRefusal::Denied.redirect(&request.redirect_uri, state, &oauth.settings.public);
        append_cookie(denied.headers_mut(), &used);
        return denied;
    }
    let grant = ConsentGrant {
        client: client_hash(&request.client_id),
        exp: now() + CONSENT_SECS,
    };
    let mut cookies = vec![used];
    if let Some(sealed) = seal(&oauth.settings.keys, &grant) {
        let name = consent_cookie(&request.client_id);
        cookies.push(scope.set_cookie(&name, &sealed, CONSENT_SECS));
    }
    tracing::info!("OAuth consent given");
    to_gitlab(&oauth, request, &cookies)
}

/// The browser sent to GitLab's `/oauth/authorize`, the sign-in sealed as `state` and bound
/// to this browser by the sign-in's cookie; `cookies` are set too.
fn to_gitlab(oauth: &Oauth, request: ClientRequest, cookies: &[String]) -> Response {
    let keys = &oauth.settings.keys;
    let verifier = keys.random_text(32).and_then(Secret::new);
    let (Some(verifier), Some(binding)) = (verifier, Binding::new(keys)) else {
        return PageRefusal::Internal.into_response();
    };
    let bound = binding.set_cookie(Purpose::SignIn, scope(oauth), FLOW_SECS);
    let pending = PendingSignIn {
        request,
        gitlab_verifier: verifier.clone(),
        binding,
        exp: now() + FLOW_SECS,
    };
    let Some(state) = seal(keys, &pending) else {
        return PageRefusal::Internal.into_response();
    };
    let mut response = found(&Upstream::authorize_url(
        &oauth.settings,
        &state,
        verifier.expose(),
    ));
    for cookie in cookies.iter().chain([&bound]) {
        append_cookie(response.headers_mut(), cookie);
    }
    response
}

/// How this server's cookies are set (`__Host-` and `Secure` when public over https).
fn scope(oauth: &Oauth) -> CookieScope {
    CookieScope::of(&oauth.settings.public)
}

/// Whether this browser approved `client_id` before (its consent cookie opens and names it).
fn approved(oauth: &Oauth, headers: &HeaderMap, client_id: &str) -> bool {
    let name = scope(oauth).name(&consent_cookie(client_id));
    cookie_value(headers, &name)
        .and_then(|v| open::<ConsentGrant>(&oauth.settings.keys, &v, now()))
        .is_some_and(|grant| grant.client == client_hash(client_id))
}

/// A client id, hashed (hex SHA-256): what consent cookies and tokens name a client by.
pub(crate) fn client_hash(client_id: &str) -> String {
    Sha256::digest(client_id.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The consent cookie's name for a client: one per client.
fn consent_cookie(client_id: &str) -> String {
    format!("gfm-consent-{}", &client_hash(client_id)[..16])
}

/// How long this server's authorization code lives.
pub(crate) const CODE_SECS: u64 = 60;

/// `GET /oauth/callback`: the sign-in's own checks ([`pending_sign_in`]), then
/// [`complete`]; the sign-in's cookie is removed from the browser whatever the outcome.
pub(crate) async fn callback(
    State(oauth): State<Arc<Oauth>>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let pending = match pending_sign_in(&oauth, &headers, query.get("state")) {
        Ok(pending) => pending,
        Err(refusal) => return refusal.into_response(),
    };
    let used = pending.binding.clear_cookie(Purpose::SignIn, scope(&oauth));
    let mut response = complete(&oauth, pending, &query).await;
    append_cookie(response.headers_mut(), &used);
    response
}

/// The sign-in a callback's `state` names: one this server sealed, not expired, come back to
/// the browser it was sent from (that browser's cookie holds its nonce), and not completed
/// before (in this process).
fn pending_sign_in(
    oauth: &Oauth,
    headers: &HeaderMap,
    state: Option<&String>,
) -> Result<PendingSignIn, PageRefusal> {
    let now = now();
    let Some(pending) = state.and_then(|s| open::<PendingSignIn>(&oauth.settings.keys, s, now))
    else {
        tracing::info!("OAuth callback refused: unknown or expired state");
        return Err(PageRefusal::StaleState);
    };
    if !pending
        .binding
        .held_by(Purpose::SignIn, scope(oauth), headers)
    {
        tracing::warn!("OAuth callback refused: the state came back to another browser");
        return Err(PageRefusal::OtherBrowser);
    }
    if !oauth
        .used_states
        .first_use(pending.binding.id(), pending.exp, now)
    {
        tracing::warn!("OAuth callback refused: the state was used before");
        return Err(PageRefusal::StateUsed);
    }
    Ok(pending)
}

/// GitLab's code exchanged and the browser sent to the client with this server's code.
async fn complete(
    oauth: &Oauth,
    pending: PendingSignIn,
    query: &HashMap<String, String>,
) -> Response {
    let keys = &oauth.settings.keys;
    let request = pending.request;
    let iss = oauth.settings.public.as_str();
    let back = |refusal: RedirectRefusal| {
        refusal.redirect(&request.redirect_uri, request.state.as_deref(), iss)
    };
    let Some(code) = query.get("code") else {
        tracing::info!(error = ?query.get("error"), "OAuth sign-in: GitLab sent no code");
        return back(RedirectRefusal::GitlabDenied);
    };
    let gitlab = match oauth
        .upstream
        .exchange(&oauth.settings, code, pending.gitlab_verifier.expose())
        .await
    {
        Ok(tokens) => tokens,
        Err(failure @ UpstreamError::Refused { .. }) => {
            tracing::info!(%failure, "OAuth sign-in: GitLab refused its code");
            return back(RedirectRefusal::GitlabDenied);
        }
        Err(failure) => {
            tracing::warn!(%failure, "OAuth sign-in: GitLab's token endpoint failed");
            return back(RedirectRefusal::GitlabUnavailable);
        }
    };
    let Some(id) = keys.random_text(16) else {
        return back(RedirectRefusal::Internal);
    };
    let user = oauth
        .upstream
        .user_of(&oauth.settings, &gitlab.access_token)
        .await;
    let code = AuthCode {
        id,
        request: request.clone(),
        gitlab,
        exp: now() + CODE_SECS,
        user,
    };
    let Some(sealed) = seal(keys, &code) else {
        return back(RedirectRefusal::Internal);
    };
    let mut pairs = vec![("code", sealed)];
    if let Some(state) = &request.state {
        pairs.push(("state", state.clone()));
    }
    pairs.push(("iss", iss.to_string()));
    tracing::info!("OAuth sign-in: code issued");
    crate::metrics::sign_in(crate::metrics::SignInStep::SignedIn);
    found(&with_query(&request.redirect_uri, &pairs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_challenge_is_43_base64url_characters() {
        assert!(is_challenge("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"));
        assert!(!is_challenge("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-c"));
        assert!(!is_challenge("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw+cM"));
        assert_eq!(client_hash("a").len(), 64);
    }
}
