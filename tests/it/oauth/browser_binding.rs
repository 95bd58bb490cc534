//! The sign-in bound to the browser that consented (issue 44): the attack in which a stranger
//! approves his own client, keeps the URL to GitLab and has a signed-in user open it (the
//! victim's GitLab code would have reached the stranger's redirect URI); a `state` completing
//! one callback at most; two consent pages open in one browser; and the smaller findings of
//! the same attacker's run: `resource` at `/token`, redirect URIs and names at registration,
//! `Retry-After` on `/register`'s 429, and the answer to a client this server no longer knows.

use super::client::{self, Answer, REDIRECT, VERIFIER};
use super::{KEY_A, KEY_B, start};
use crate::support::gitlab::Provider;
use crate::support::http_server::HttpServer as Server;

use reqwest::StatusCode;
use serde_json::json;

const EVIL: &str = "https://evil.example/cb";

/// Token requests the GitLab stand-in has had (each a code exchanged or a refresh).
fn gitlab_grants(provider: &Provider) -> usize {
    provider.0.lock().unwrap().grants.len()
}

/// A client registered as `name` with `redirect_uri`; its `client_id`.
async fn register_as(server: &Server, name: &str, redirect_uri: &str) -> String {
    let answer = client::post_json(
        server,
        "/register",
        &json!({"client_name": name, "redirect_uris": [redirect_uri]}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    answer.json()["client_id"].as_str().unwrap().to_string()
}

/// In one browser (`jar`): `/authorize` for `client_id` with `redirect_uri`, the consent
/// given; the redirect to GitLab (its `Location` holds the sealed `state`).
async fn consent(
    server: &Server,
    client_id: &str,
    redirect_uri: &str,
    jar: &mut Vec<String>,
) -> Answer {
    let url = client::authorize_url(client_id, &[("redirect_uri", redirect_uri)]);
    let page = client::get(server, &url, jar).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    jar.extend(page.cookies.clone());
    let form = client::consent_form(&page.body);
    let to_gitlab = client::post_form(
        server,
        "/authorize/consent",
        &[("form", &form), ("decision", "allow")],
        jar,
    )
    .await;
    assert_eq!(to_gitlab.status, StatusCode::FOUND, "{}", to_gitlab.body);
    jar.extend(to_gitlab.cookies.clone());
    to_gitlab
}

#[tokio::test]
async fn a_state_sent_to_another_users_browser_completes_nothing() {
    let (gitlab, provider) = Provider::start(7200).await;
    let server = start(&gitlab, KEY_A, &[]);
    // The victim has signed in before with their own client: their browser holds that
    // client's remembered consent (and GitLab remembers their approval of this server).
    let own = client::register(&server).await;
    let (_, mut victim) = client::sign_in(&server, &own, &[]).await;
    // The attacker registers a client whose redirect URI is his own site, approves it in his
    // own browser, and keeps the URL to GitLab.
    let evil = register_as(&server, "Totally Legit", EVIL).await;
    let mut attacker = Vec::new();
    let kept = consent(&server, &evil, EVIL, &mut attacker).await;
    let to_gitlab = kept.location.unwrap();
    // The victim opens it: GitLab approves at once and sends the victim's browser back.
    let before = gitlab_grants(&provider);
    let at_gitlab = client::get(&server, &to_gitlab, &victim).await;
    let callback = at_gitlab.location.unwrap();
    let refused = client::get(&server, &callback, &victim).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    assert!(
        refused.location.is_none(),
        "redirected to {:?}",
        refused.location
    );
    assert!(
        refused.body.contains("started in another browser"),
        "{}",
        refused.body
    );
    assert_eq!(
        gitlab_grants(&provider),
        before,
        "the victim's GitLab code was exchanged"
    );
    // Nor does a browser with no cookies at all complete it.
    let bare = client::get(&server, &callback, &[]).await;
    assert_eq!(bare.status, StatusCode::BAD_REQUEST);
    assert!(bare.location.is_none());
    // The victim's own sign-ins still work in the same browser.
    let (query, jar) = client::sign_in(&server, &own, &victim).await;
    victim = jar;
    let answer = client::exchange(&server, &own, &query["code"], VERIFIER).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert!(!victim.is_empty());
}

#[tokio::test]
async fn a_state_completes_one_callback_at_most() {
    let (gitlab, provider) = Provider::start(7200).await;
    let server = start(&gitlab, KEY_A, &[]);
    let client_id = client::register(&server).await;
    let mut jar = Vec::new();
    let to_gitlab = consent(&server, &client_id, REDIRECT, &mut jar).await;
    // GitLab sends the browser back twice with the same state (a reload, a replay).
    let first_trip = client::get(&server, to_gitlab.location.as_deref().unwrap(), &[]).await;
    let second_trip = client::get(&server, to_gitlab.location.as_deref().unwrap(), &[]).await;
    let first = client::get(&server, first_trip.location.as_deref().unwrap(), &jar).await;
    assert_eq!(first.status, StatusCode::FOUND, "{}", first.body);
    assert!(first.location.as_deref().unwrap().starts_with(REDIRECT));
    // The sign-in's cookie is removed once used.
    let removed = first.headers.get_all("set-cookie").iter().any(|c| {
        let c = c.to_str().unwrap();
        c.starts_with("gfm-signin-") && c.contains("Max-Age=0")
    });
    assert!(removed, "{:?}", first.headers);
    let grants = gitlab_grants(&provider);
    let again = client::get(&server, second_trip.location.as_deref().unwrap(), &jar).await;
    assert_eq!(again.status, StatusCode::BAD_REQUEST, "{}", again.body);
    assert!(again.location.is_none());
    assert!(
        again.body.contains("already been completed"),
        "{}",
        again.body
    );
    assert_eq!(gitlab_grants(&provider), grants);
}

#[tokio::test]
async fn two_consent_pages_in_one_browser_both_work() {
    let (gitlab, _provider) = Provider::start(7200).await;
    let server = start(&gitlab, KEY_A, &[]);
    let client_id = client::register(&server).await;
    let url = client::authorize_url(&client_id, &[]);
    let mut jar = Vec::new();
    let first = client::get(&server, &url, &jar).await;
    jar.extend(first.cookies.clone());
    let second = client::get(&server, &url, &jar).await;
    jar.extend(second.cookies.clone());
    for page in [&first, &second] {
        let form = client::consent_form(&page.body);
        let answer = client::post_form(
            &server,
            "/authorize/consent",
            &[("form", &form), ("decision", "deny")],
            &jar,
        )
        .await;
        assert_eq!(answer.status, StatusCode::FOUND, "{}", answer.body);
        assert_eq!(answer.redirect_query()["error"], "access_denied");
    }
}

#[tokio::test]
async fn resource_is_checked_at_token_too() {
    let (gitlab, _provider) = Provider::start(7200).await;
    let server = start(&gitlab, KEY_A, &[]);
    let client_id = client::register(&server).await;
    let (query, _) = client::sign_in(&server, &client_id, &[]).await;
    let exchange = |resource: &'static str| {
        let code = query["code"].clone();
        let client_id = client_id.clone();
        let server = &server;
        async move {
            client::post_form(
                server,
                "/token",
                &[
                    ("grant_type", "authorization_code"),
                    ("code", &code),
                    ("redirect_uri", REDIRECT),
                    ("client_id", &client_id),
                    ("code_verifier", VERIFIER),
                    ("resource", resource),
                ],
                &[],
            )
            .await
        }
    };
    let foreign = exchange("https://evil.example/mcp").await;
    assert_eq!(foreign.status, StatusCode::BAD_REQUEST, "{}", foreign.body);
    assert_eq!(foreign.json()["error"], "invalid_target");
    let ours = exchange("http://localhost/mcp").await;
    assert_eq!(ours.status, StatusCode::OK, "{}", ours.body);
    let refresh = ours.json()["refresh_token"].as_str().unwrap().to_string();
    let foreign_refresh = client::post_form(
        &server,
        "/token",
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", &refresh),
            ("client_id", &client_id),
            ("resource", "https://evil.example/mcp"),
        ],
        &[],
    )
    .await;
    assert_eq!(foreign_refresh.json()["error"], "invalid_target");
}

#[tokio::test]
async fn registration_refuses_unsafe_redirect_uris_and_hides_invisible_name_characters() {
    let (gitlab, _provider) = Provider::start(7200).await;
    let server = start(&gitlab, KEY_A, &[]);
    for uri in [
        "blob:https://a.example/1",
        "view-source:https://a.example/",
        "ftp://a.example/cb",
        "https://a.example/cb\r\nSet-Cookie: x=1",
        "myapp:/cb",
    ] {
        let answer = client::post_json(
            &server,
            "/register",
            &json!({"client_name": "x", "redirect_uris": [uri]}),
        )
        .await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{uri:?}");
        assert_eq!(answer.json()["error"], "invalid_redirect_uri", "{uri:?}");
    }
    // A native app's reverse-DNS scheme registers.
    register_as(&server, "App", "com.example.app:/oauth2redirect").await;
    // U+202E would show "Totally Legit" as a reversed, misleading name.
    let client_id = register_as(&server, "Good\u{202E}tigeL yllatoT\u{200B}", REDIRECT).await;
    let page = client::get(&server, &client::authorize_url(&client_id, &[]), &[]).await;
    assert!(page.body.contains("GoodtigeL yllatoT"), "{}", page.body);
    assert!(!page.body.contains('\u{202E}') && !page.body.contains('\u{200B}'));
}

#[tokio::test]
async fn registrations_past_the_limit_say_when_to_retry() {
    let (gitlab, _provider) = Provider::start(7200).await;
    let server = start(&gitlab, KEY_A, &[]);
    let body = json!({"client_name": "x", "redirect_uris": [REDIRECT]});
    let mut last = None;
    for _ in 0..31 {
        last = Some(client::post_json(&server, "/register", &body).await);
    }
    let last = last.unwrap();
    assert_eq!(last.status, StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = last.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=3600).contains(&retry), "{retry}");
}

#[tokio::test]
async fn a_client_from_before_the_keys_changed_is_told_invalid_client() {
    let (gitlab, _provider) = Provider::start(7200).await;
    let old = start(&gitlab, KEY_A, &[]);
    let (client_id, tokens) = client::tokens(&old).await;
    let refresh = tokens["refresh_token"].as_str().unwrap();
    // The keys wholly replaced: the client's refresh gets `invalid_client` (401), on which
    // clients drop the registration and register anew, not `invalid_grant`, on which they
    // keep it and land on an error page at `/authorize`.
    let new = start(&gitlab, KEY_B, &[]);
    let answer = client::refresh(&new, &client_id, refresh).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{}", answer.body);
    assert_eq!(answer.json()["error"], "invalid_client");
    let page = client::get(&new, &client::authorize_url(&client_id, &[]), &[]).await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST);
    assert!(page.body.contains("keys changed"), "{}", page.body);
    assert!(page.body.contains("Clear authentication"), "{}", page.body);
}
