//! Test support: GitLab's answer to the token check the server makes before it opens a session
//! (`query CurrentUser { currentUser { id } }`), as GitLab gives it: the user for a token it
//! knows, and for any other token HTTP 401 with `{"errors":[{"message":"Invalid token"}]}`
//! (`../shared/gitlab/samples/invalid-token-401.json`).
#![allow(dead_code)]

use serde_json::{Value, json};
use wiremock::{Request, ResponseTemplate};

/// Whether `request` is the token check.
pub fn is_token_check(request: &Request) -> bool {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    body["query"]
        .as_str()
        .is_some_and(|q| q.contains("currentUser"))
}

/// The bearer token of a GitLab request.
pub fn bearer(request: &Request) -> Option<String> {
    let value = request.headers.get("authorization")?.to_str().ok()?;
    value.strip_prefix("Bearer ").map(str::to_string)
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
