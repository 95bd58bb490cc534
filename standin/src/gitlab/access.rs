//! Who may read: a request's bearer token, GitLab's token check (`query CurrentUser {
//! currentUser { id } }`, answered with the user, or HTTP 401 `{"errors":[{"message":"Invalid
//! token"}]}` as `../shared/gitlab/samples/invalid-token-401.json`), and the stand-in's rule.

use serde_json::{Value, json};
use wiremock::{Request, ResponseTemplate};

use super::oauth::Provider;

/// The token a request carries (`Authorization: Bearer …`, or `PRIVATE-TOKEN`).
pub fn bearer(request: &Request) -> Option<&str> {
    let header = |name: &str| request.headers.get(name)?.to_str().ok();
    header("authorization")
        .and_then(|v| v.strip_prefix("Bearer "))
        .or_else(|| header("private-token"))
}

/// Whether `request` is the token check.
pub fn is_token_check(request: &Request) -> bool {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    asks_current_user(&body)
}

/// Whether a GraphQL body (already parsed) is the token check.
pub fn asks_current_user(body: &Value) -> bool {
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

/// A user of [`Access::Users`]: the token, the user's id, the projects the user may read
/// (none listed: every project).
#[derive(Clone, Debug)]
pub struct User {
    pub token: String,
    pub id: u64,
    pub projects: Vec<String>,
}

impl User {
    /// A user with token `token` and id `id` who may read `projects` (none: every project).
    pub fn new(token: &str, id: u64, projects: &[&str]) -> User {
        User {
            token: token.into(),
            id,
            projects: projects.iter().map(|p| p.to_string()).collect(),
        }
    }
}

/// Who may read the projects.
#[derive(Clone, Default)]
pub enum Access {
    /// Anyone, with or without a token (public projects).
    #[default]
    Anyone,
    /// Only this token; GitLab hides the projects from any other (`project: null`, REST 404).
    Only(String),
    /// Only a live access token of this provider; any other is 401 `Invalid token`.
    SignedIn(Provider),
    /// These users, each to their projects; any other token is 401 `Invalid token`.
    Users(Vec<User>),
}

/// What GitLab makes of a request's credential.
pub enum Verdict {
    /// It may read what it sees, as this user.
    Reads(u64),
    /// A token GitLab knows, to which every project is hidden.
    Hidden,
    /// GitLab refuses the token itself.
    Invalid,
}

impl Access {
    pub fn verdict(&self, token: Option<&str>) -> Verdict {
        match self {
            Access::Anyone => Verdict::Reads(7),
            Access::Only(reader) if token == Some(reader.as_str()) => Verdict::Reads(7),
            Access::Only(_) => Verdict::Hidden,
            Access::SignedIn(provider) => match token.and_then(|t| provider.user_of(t)) {
                Some(user) => Verdict::Reads(user),
                None => Verdict::Invalid,
            },
            Access::Users(users) => match users.iter().find(|u| Some(u.token.as_str()) == token) {
                Some(user) => Verdict::Reads(user.id),
                None => Verdict::Invalid,
            },
        }
    }

    /// Whether `token` sees the project at `path`.
    pub fn sees(&self, token: Option<&str>, path: &str) -> bool {
        match (self, self.verdict(token)) {
            (_, Verdict::Hidden | Verdict::Invalid) => false,
            (Access::Users(users), _) => users.iter().any(|u| {
                Some(u.token.as_str()) == token
                    && (u.projects.is_empty()
                        || u.projects.iter().any(|p| p.eq_ignore_ascii_case(path)))
            }),
            _ => true,
        }
    }
}
