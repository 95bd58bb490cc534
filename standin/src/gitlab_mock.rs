//! GitLab's answer shapes for scripted wiremock tests (BigInt as strings, `project: null`,
//! empty `nodes`, graphql-ruby errors), the matchers on GraphQL variables and on words in the
//! query document, the git blob id every answer names blobs by, and servers that fail below
//! HTTP (a reset, a stalled body). The stateful stand-in, [`crate::gitlab`], builds its answers
//! with the same shapes.
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

/// A blob node as GitLab returns it (`RepositoryBlob`, BigInt sizes as strings): `size` is the
/// blob's (an LFS pointer's for a file in LFS), `raw_size` the file's, `lfs_oid` the LFS
/// object's sha256. The stand-in's nodes and [`text_node`] are both this.
pub fn blob_node(
    path: &str,
    oid: &str,
    size: usize,
    raw_size: usize,
    lfs_oid: Option<&str>,
) -> Value {
    json!({
        "oid": oid,
        "path": path,
        "size": size.to_string(),
        "rawSize": raw_size.to_string(),
        "storedExternally": lfs_oid.is_some(),
        "externalStorage": lfs_oid.map(|_| "lfs"),
        "lfsOid": lfs_oid
    })
}

/// A blob node as GitLab returns it for a text file, with its text.
pub fn text_node(path: &str, content: &str) -> Value {
    let oid = git_blob_id(content.as_bytes());
    let mut node = blob_node(path, &oid, content.len(), content.len(), None);
    node["rawTextBlob"] = json!(content);
    node
}

/// A `Project` as GitLab returns it: its global id, full path and `repository` as asked.
pub fn project_node(full_path: &str, id: u64, repository: Value) -> Value {
    json!({"id": format!("gid://gitlab/Project/{id}"), "fullPath": full_path, "repository": repository})
}

/// The git blob id of `bytes`, as GitLab reports it in `oid` (the SHA-1 of
/// `blob <len>\0<bytes>`): the same bytes, the same id.
pub fn git_blob_id(bytes: &[u8]) -> String {
    gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, bytes)
        .expect("hash a blob")
        .to_string()
}

/// The commit the refs of the mock resolve to, as `permalinkPath` names it.
pub const COMMIT: &str = "9a1c8e2f0d8e7a6b5c4d3e2f1a0b9c8d7e6f5a4b";

/// `node` with GitLab's `permalinkPath` (`BlobPresenter#permalink_path`:
/// `<root>/<full path>/-/blob/<commit>/<path>`, `root` being the instance's relative URL root,
/// `""` for none), unless the node already says (a `null` stands for an answer without one).
pub fn with_permalink(mut node: Value, root: &str, full_path: &str, commit: &str) -> Value {
    if node.get("permalinkPath").is_none() {
        let path = node["path"].as_str().unwrap_or_default().to_string();
        node["permalinkPath"] = json!(format!("{root}/{full_path}/-/blob/{commit}/{path}"));
    }
    node
}

/// The nodes of a project's answer, each with its permalink at [`COMMIT`], as GitLab answers.
fn permalinked(full_path: &str, nodes: Vec<Value>) -> Vec<Value> {
    nodes
        .into_iter()
        .map(|n| with_permalink(n, "", full_path, COMMIT))
        .collect()
}

/// `{"data":{"project":{...blobs: nodes}}}` for a project by full path; each node gets its
/// `permalinkPath` at [`COMMIT`] unless it has one (or an explicit `null`).
pub fn project_answer(full_path: &str, id: u64, nodes: Vec<Value>) -> Value {
    let blobs = json!({"blobs": {"nodes": permalinked(full_path, nodes)}});
    json!({"data": {"project": project_node(full_path, id, blobs)}})
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
    let blobs = json!({"blobs": {"nodes": permalinked(full_path, nodes)}});
    json!({"data": {"projects": {"nodes": [project_node(full_path, id, blobs)]}}})
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

/// The miss-probe answer (`graphql/miss_probe.graphql`) with no listings: whether the ref exists
/// (its root tree has a last commit; a missing ref's tree has none, and no entries, as GitLab's
/// `Repository#tree` answers it) and whether the path is a directory (its tree has entries).
pub fn ref_check_answer(ref_exists: bool, is_dir: bool) -> Value {
    let last_commit = if ref_exists {
        json!({"sha": COMMIT})
    } else {
        Value::Null
    };
    let entries = if is_dir {
        json!([{"name": "x"}])
    } else {
        json!([])
    };
    let page = json!({"hasNextPage": false});
    json!({"data": {"project": {"repository": {
        "root": {"lastCommit": last_commit, "trees": {"nodes": []}, "blobs": {"nodes": []}},
        "dir": {"trees": {"nodes": entries, "pageInfo": page}, "blobs": {"nodes": [], "pageInfo": page}}
    }}}})
}

/// The answer to a project completion (`query CompleteProjects`): `paths` as GitLab lists
/// them, `more` when it has another page.
pub fn projects_search_answer(paths: &[&str], more: bool) -> Value {
    let nodes: Vec<Value> = paths.iter().map(|p| json!({"fullPath": p})).collect();
    json!({"data": {"projects": {"nodes": nodes, "pageInfo": {"hasNextPage": more}}}})
}

/// The answer to a ref completion (`query CompleteRefs`): the default branch and the branches
/// matching the pattern; `None` for a project the token cannot read (`project: null`).
pub fn refs_answer(found: Option<(&str, &[&str])>) -> Value {
    match found {
        None => json!({"data": {"project": null}}),
        Some((root, branches)) => json!({"data": {"project": {"repository": {
            "rootRef": root, "branchNames": branches}}}}),
    }
}

/// A mock for `GET /api/v4/projects/:id/repository/tags` (REST: GraphQL lists no tags).
pub fn tags() -> wiremock::MockBuilder {
    Mock::given(method("GET")).and(wiremock::matchers::path_regex(
        r"^/api/v4/projects/[^/]+/repository/tags$",
    ))
}

/// GitLab's tags answer: one object per tag, as `GET .../repository/tags` lists them.
pub fn tags_answer(names: &[&str]) -> Value {
    let tags: Vec<Value> = names
        .iter()
        .map(|n| json!({"name": n, "message": "", "target": COMMIT, "commit": {"id": COMMIT}}))
        .collect();
    Value::Array(tags)
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

/// A GitLab that resets the connection of every REST request (GET), and of every GraphQL
/// request (POST) too unless `graphql_answer` is given, which then answers each POST. A raw
/// TCP server, since wiremock always answers. Returns its URL and the count of resets.
pub async fn resetting_gitlab(
    graphql_answer: Option<Vec<u8>>,
) -> (String, std::sync::Arc<std::sync::Mutex<usize>>) {
    raw_gitlab(graphql_answer, OnGet::Reset).await
}

/// A GitLab that answers each GraphQL request (POST) with `graphql_answer`, and each REST
/// request (GET) with its headers and the first bytes of a body it then never finishes (a
/// stalled download). Returns its URL and the count of stalled bodies.
pub async fn body_stalling_gitlab(
    graphql_answer: Vec<u8>,
) -> (String, std::sync::Arc<std::sync::Mutex<usize>>) {
    raw_gitlab(Some(graphql_answer), OnGet::StallBody).await
}

/// What [`raw_gitlab`] does with a GET.
#[derive(Clone, Copy)]
enum OnGet {
    Reset,
    StallBody,
}

async fn raw_gitlab(
    graphql_answer: Option<Vec<u8>>,
    on_get: OnGet,
) -> (String, std::sync::Arc<std::sync::Mutex<usize>>) {
    use std::sync::{Arc, Mutex};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let faults = Arc::new(Mutex::new(0));
    let count = Arc::clone(&faults);
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let answer = graphql_answer.clone();
            let count = Arc::clone(&count);
            tokio::spawn(async move {
                let mut buf = vec![0u8; 65536];
                let n = socket.read(&mut buf).await.unwrap_or(0);
                let is_get = buf[..n].starts_with(b"GET ");
                if is_get && matches!(on_get, OnGet::StallBody) {
                    *count.lock().unwrap() += 1;
                    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 1000000\r\n\r\nthe first bytes\n";
                    let _ = socket.write_all(head.as_bytes()).await;
                    tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
                    return;
                }
                let Some(answer) = answer.filter(|_| !is_get) else {
                    *count.lock().unwrap() += 1;
                    // SO_LINGER 0 makes the close a reset (the deprecation is about blocking
                    // on drop, which a linger of zero does not).
                    #[allow(deprecated)]
                    let _ = socket.set_linger(Some(std::time::Duration::ZERO));
                    return; // dropped: RST
                };
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    answer.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(&answer).await;
            });
        }
    });
    (format!("http://{addr}"), faults)
}

/// A commit of `Repository.commits` as GitLab answers it (`authoredDate` with the author's
/// offset, `webUrl` the commit's page).
pub fn commit_node(sha: &str, title: &str, parent: Option<&str>) -> Value {
    json!({
        "sha": sha,
        "title": title,
        "authorName": "Ann Author",
        "authoredDate": "2026-01-02T10:00:00+01:00",
        "parentSha": parent,
        "webUrl": format!("https://gitlab.example.com/grp/proj/-/commit/{sha}")
    })
}

/// `Repository.commits` answered with one page of `nodes` (newest first).
pub fn commits_answer(nodes: Vec<Value>, has_next: bool, end_cursor: Option<&str>) -> Value {
    json!({"data": {"project": {"repository": {"commits": {
        "nodes": nodes,
        "pageInfo": {"hasNextPage": has_next, "endCursor": end_cursor}
    }}}}})
}

/// A blame group as GitLab answers it: `lines` are highlighted HTML, never the text.
pub fn blame_group(lineno: u64, span: u64, commit: Value) -> Value {
    let lines: Vec<String> = (0..span)
        .map(|i| format!("<span class=\"line\">{}</span>", lineno + i))
        .collect();
    json!({"lineno": lineno, "span": span, "commit": commit, "lines": lines, "previousPath": null})
}

/// `RepositoryBlob.blame` answered for aliased fields (`("b0", groups)`, ...).
pub fn blame_answer(fields: Vec<(&str, Vec<Value>)>) -> Value {
    let mut node = serde_json::Map::new();
    for (alias, groups) in fields {
        node.insert(alias.to_string(), json!({"groups": groups}));
    }
    json!({"data": {"project": {"repository": {"blobs": {"nodes": [node]}}}}})
}
