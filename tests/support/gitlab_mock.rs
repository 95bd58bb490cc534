//! Test support: a wiremock GitLab answering `POST /api/graphql` with GitLab-shaped JSON
//! (BigInt as strings, `project: null`, empty `nodes`, graphql-ruby errors), matched on the
//! GraphQL variables and on words in the query document. Include with
//! `#[path = "support/gitlab_mock.rs"] mod gitlab_mock;`.
#![allow(dead_code)]

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Match, Mock, MockServer, Request, ResponseTemplate};

/// Matches a GraphQL request whose query document contains `needle`.
pub struct QueryContains(pub &'static str);

impl Match for QueryContains {
    fn matches(&self, request: &Request) -> bool {
        serde_json::from_slice::<Value>(&request.body)
            .ok()
            .and_then(|b| {
                b.get("query")
                    .and_then(Value::as_str)
                    .map(|q| q.contains(self.0))
            })
            .unwrap_or(false)
    }
}

/// Matches a GraphQL request whose query document does not contain `needle`.
pub struct QueryLacks(pub &'static str);

impl Match for QueryLacks {
    fn matches(&self, request: &Request) -> bool {
        !QueryContains(self.0).matches(request)
    }
}

/// Matches requests whose variables include all of `vars` (a JSON object).
pub struct Variables(pub Value);

impl Match for Variables {
    fn matches(&self, request: &Request) -> bool {
        let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
            return false;
        };
        let Some(want) = self.0.as_object() else {
            return false;
        };
        want.iter()
            .all(|(k, v)| body.pointer(&format!("/variables/{k}")) == Some(v))
    }
}

/// A blob node as GitLab returns it for a text file.
pub fn text_node(path: &str, content: &str) -> Value {
    json!({
        "oid": git_blob_id(content.as_bytes()),
        "path": path,
        "size": content.len().to_string(),
        "rawSize": content.len().to_string(),
        "rawTextBlob": content,
        "storedExternally": false,
        "externalStorage": null
    })
}

/// The git blob id of `bytes`, as GitLab reports it in `oid` (the SHA-1 of
/// `blob <len>\0<bytes>`): the same bytes, the same id.
pub fn git_blob_id(bytes: &[u8]) -> String {
    gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, bytes)
        .expect("hash a blob")
        .to_string()
}

/// `{"data":{"project":{...blobs: nodes}}}` for a project by full path.
pub fn project_answer(full_path: &str, id: u64, nodes: Vec<Value>) -> Value {
    json!({"data": {"project": {
        "id": format!("gid://gitlab/Project/{id}"),
        "fullPath": full_path,
        "repository": {"blobs": {"nodes": nodes}}
    }}})
}

/// Like [`project_answer`], with Duo exclusion rules.
pub fn project_answer_with_rules(
    full_path: &str,
    id: u64,
    nodes: Vec<Value>,
    rules: Value,
) -> Value {
    let mut v = project_answer(full_path, id, nodes);
    v["data"]["project"]["duoContextExclusionSettings"] = json!({"exclusionRules": rules});
    v
}

/// `{"data":{"projects":{"nodes":[...]}}}` for a project by numeric id.
pub fn projects_answer(full_path: &str, id: u64, nodes: Vec<Value>) -> Value {
    json!({"data": {"projects": {"nodes": [{
        "id": format!("gid://gitlab/Project/{id}"),
        "fullPath": full_path,
        "repository": {"blobs": {"nodes": nodes}}
    }]}}})
}

/// graphql-ruby's answer to a field the instance does not have.
pub fn undefined_field(field: &str, type_name: &str) -> Value {
    json!({"errors": [{
        "message": format!("Field '{field}' doesn't exist on type '{type_name}'"),
        "locations": [{"line": 1, "column": 60}],
        "path": ["query", "project", field],
        "extensions": {"code": "undefinedField", "typeName": type_name, "fieldName": field}
    }]})
}

/// The ref-check answer: `commit` present or null, directory entries or none.
pub fn ref_check_answer(commit_exists: bool, is_dir: bool) -> Value {
    let commit = if commit_exists {
        json!({"sha": "9a1c8e2f0d8e7a6b5c4d3e2f1a0b9c8d7e6f5a4b"})
    } else {
        Value::Null
    };
    let entries = if is_dir {
        json!([{"name": "x"}])
    } else {
        json!([])
    };
    json!({"data": {"project": {"repository": {
        "commit": commit,
        "dir": {"trees": {"nodes": entries}, "blobs": {"nodes": []}}
    }}}})
}

/// A mock for `POST /api/graphql`.
pub fn graphql() -> wiremock::MockBuilder {
    Mock::given(method("POST")).and(path("/api/graphql"))
}

/// 200 with a JSON body.
pub fn json_response(body: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(body)
}

/// The bodies of every GraphQL request the mock received.
pub async fn bodies(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .filter_map(|r| serde_json::from_slice(&r.body).ok())
        .collect()
}
