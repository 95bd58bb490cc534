//! Who may read: a request's bearer token, GitLab's token check (`query CurrentUser {
//! currentUser { id } }`, answered with the user, or HTTP 401 `{"errors":[{"message":"Invalid
//! token"}]}` as `../shared/gitlab/samples/invalid-token-401.json`), and the stand-in's rule.

use serde_json::{Value, json};
use wiremock::{Request, ResponseTemplate};

use super::oauth::Provider;

/// The token a request carries (`Authorization: Bearer …`).
pub fn bearer(request: &Request) -> Option<&str> {
    let value = request.headers.get("authorization")?.to_str().ok()?;
    value.strip_prefix("Bearer ")
}

/// Whether `request` is the token check.
pub fn is_token_check(request: &Request) -> bool {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    body["query"]
        .as_str()
        .is_some_and(|q| q.contains("currentUser"))
}

/// GitLab's answer to the token check: user `id` when `known`, else 401 Invalid token.
pub fn current_user(known: Option<u64>) -> ResponseTemplate {
    match known {
        Some(id) => ResponseTemplate::new(200).set_body_json(
            json!({"data": {"currentUser": {"id": format!("gid://gitlab/User/{id}")}}}),
        ),
        None => ResponseTemplate::new(401)
            .set_body_json(json!({"errors": [{"message": "Invalid token"}]})),
    }
}

/// Who may read the project.
#[derive(Clone, Default)]
pub enum Access {
    /// Anyone, with or without a token (a public project).
    #[default]
    Anyone,
    /// Only this token; GitLab hides the project from any other (`project: null`, REST 404).
    Only(String),
    /// Only a live access token of this provider; any other is 401 `Invalid token`.
    SignedIn(Provider),
}

/// What GitLab makes of a request's credential.
pub enum Verdict {
    /// It may read, as this user.
    Reads(u64),
    /// The project is hidden from it.
    Hidden,
    /// GitLab refuses the token itself.
    Invalid,
}

impl Access {
    pub fn verdict(&self, request: &Request) -> Verdict {
        let token = bearer(request);
        match self {
            Access::Anyone => Verdict::Reads(7),
            Access::Only(reader) if token == Some(reader.as_str()) => Verdict::Reads(7),
            Access::Only(_) => Verdict::Hidden,
            Access::SignedIn(provider) => match token.and_then(|t| provider.user_of(t)) {
                Some(user) => Verdict::Reads(user),
                None => Verdict::Invalid,
            },
        }
    }
}
