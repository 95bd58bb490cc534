//! An in-process GitLab for the benches (axum on 127.0.0.1) that answers like GitLab for one
//! project (`grp/proj`, `gid://gitlab/Project/42`) holding the files it was started with, and
//! counts, per endpoint, the requests and response body bytes it served.
//!
//! - `POST /api/graphql`: `project(fullPath:)` or `projects(ids:)` (`variables.byId`, or for
//!   older documents the field the query names) → `repository.blobs` for every
//!   path in `variables.paths` (or `variables.p0`). Each blob carries its git oid, its full
//!   `size`/`rawSize` as BigInt strings, and `rawTextBlob` cut at GitLab's 10 MiB read limit;
//!   `variables.withContent == false` leaves `rawTextBlob` out (`@include(if: false)`).
//!   Fields the query names are answered: `duoContextExclusionSettings` (no rules) and
//!   `commit(ref:) { sha }`.
//!   `variables.withBlame` adds the blob's `blamed` field for `blameFrom..blameTo`, and the
//!   `Blame` operation answers its aliased `blame` fields (groups of 10 lines, each from one of
//!   three commits, clamped to the file as GitLab clamps them).
//!   A file started as `"<ref>:<path>"` is `<path>` at that ref only (a diff's other side);
//!   every other file is at every ref. `variables.withBase` adds `base`, the paths at
//!   `baseRef`.
//! - `GET /api/v4/projects/:id/repository/blobs/:oid/raw`: the whole blob, or 404.
//! - `GET /api/v4/projects/:id/repository/files/:path/raw?ref=R[&lfs=true]`: the whole file.
//!
//! The answers are built from each request; the JSON-escaped content is prepared once per file
//! so that what the benches time is the server, not this mock.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::Value;

/// GitLab's `MAX_DATA_DISPLAY_SIZE`: `blobs` returns at most this many bytes of a blob.
pub const READ_LIMIT: usize = 10 * 1024 * 1024;
const PROJECT_GID: &str = "gid://gitlab/Project/42";
const PROJECT_PATH: &str = "grp/proj";
const PROJECT_ID: &str = "42";
/// The commit every ref points at (the files never change during a bench).
const COMMIT_SHA: &str = "0123456789abcdef0123456789abcdef01234567";

/// Requests and response body bytes of one endpoint.
#[derive(Debug, Default)]
pub struct Counter {
    requests: AtomicU64,
    bytes: AtomicU64,
}

impl Counter {
    fn record(&self, body_len: usize) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(body_len as u64, Ordering::Relaxed);
    }

    fn read(&self) -> Count {
        Count {
            requests: self.requests.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
        }
    }
}

/// The live counters of the mock, shared with the bench.
#[derive(Debug, Default)]
pub struct Traffic {
    graphql: Counter,
    blob_raw: Counter,
    file_raw: Counter,
}

impl Traffic {
    /// A copy of the counters now; subtract two to get what happened in between.
    pub fn snapshot(&self) -> TrafficSnapshot {
        TrafficSnapshot {
            graphql: self.graphql.read(),
            blob_raw: self.blob_raw.read(),
            file_raw: self.file_raw.read(),
        }
    }
}

/// Requests and bytes at one moment (or, after [`TrafficSnapshot::since`], in an interval).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    pub requests: u64,
    pub bytes: u64,
}

/// All endpoints' counts at one moment.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TrafficSnapshot {
    pub graphql: Count,
    pub blob_raw: Count,
    pub file_raw: Count,
}

impl TrafficSnapshot {
    /// What was served between `earlier` and `self`.
    pub fn since(&self, earlier: &TrafficSnapshot) -> TrafficSnapshot {
        let d = |a: Count, b: Count| Count {
            requests: a.requests - b.requests,
            bytes: a.bytes - b.bytes,
        };
        TrafficSnapshot {
            graphql: d(self.graphql, earlier.graphql),
            blob_raw: d(self.blob_raw, earlier.blob_raw),
            file_raw: d(self.file_raw, earlier.file_raw),
        }
    }

    /// REST raw requests of both kinds.
    pub fn rest(&self) -> Count {
        Count {
            requests: self.blob_raw.requests + self.file_raw.requests,
            bytes: self.blob_raw.bytes + self.file_raw.bytes,
        }
    }

    /// Every request to GitLab.
    pub fn total(&self) -> Count {
        let rest = self.rest();
        Count {
            requests: self.graphql.requests + rest.requests,
            bytes: self.graphql.bytes + rest.bytes,
        }
    }
}

/// One file of the mock repository, with what GitLab would say about it.
struct Blob {
    path: String,
    bytes: Bytes,
    oid: String,
    /// `rawTextBlob` as a JSON string literal: the first `READ_LIMIT` bytes, cut at a char boundary.
    raw_text_json: String,
}

impl Blob {
    fn new(path: &str, content: String) -> Blob {
        let mut cut = content.len().min(READ_LIMIT);
        while !content.is_char_boundary(cut) {
            cut -= 1;
        }
        // Serialising a &str cannot fail.
        let raw_text_json = serde_json::to_string(&content[..cut]).expect("a str serialises");
        Blob {
            path: path.to_string(),
            oid: git_blob_oid(content.as_bytes()),
            raw_text_json,
            bytes: Bytes::from(content),
        }
    }

    /// The `RepositoryBlob` node, with or without `rawTextBlob`.
    fn node_json(&self, with_content: bool) -> String {
        let size = self.bytes.len();
        let path = Value::from(self.path.as_str());
        let mut node = format!(
            r#"{{"oid":"{}","path":{path},"size":"{size}","rawSize":"{size}","#,
            self.oid
        );
        if with_content {
            node.reserve(self.raw_text_json.len() + 80);
            node.push_str(r#""rawTextBlob":"#);
            node.push_str(&self.raw_text_json);
            node.push(',');
        }
        node.push_str(r#""storedExternally":false,"externalStorage":null}"#);
        node
    }
}

impl Blob {
    /// A `Blame` of lines `from..=to` (the end clamped to the file): groups of 10 lines, each
    /// from one of three commits; `lines` as GitLab's highlighted HTML.
    fn blame_json(&self, (from, to): (u64, u64)) -> String {
        let total = self.bytes.iter().filter(|b| **b == b'\n').count() as u64;
        let to = to.min(total);
        let mut groups = Vec::new();
        let mut line = from;
        while line <= to {
            let end = ((line - 1) / 10 * 10 + 10).min(to);
            let sha = format!("{:040x}", (line - 1) / 10 % 3 + 1);
            let html: Vec<String> = (line..=end).map(|n| format!("<span>{n}</span>")).collect();
            groups.push(serde_json::json!({
                "lineno": line, "span": end - line + 1, "previousPath": null, "lines": html,
                "commit": {"sha": sha, "title": "A change", "authorName": "Ann Author",
                    "authoredDate": "2026-01-02T10:00:00+01:00", "parentSha": null,
                    "webUrl": format!("https://gitlab.example.com/grp/proj/-/commit/{sha}")}
            }));
            line = end + 1;
        }
        serde_json::json!({"groups": groups}).to_string()
    }
}

/// The git blob id (the stand-ins' one helper).
pub use gitlab_standin::gitlab_mock::git_blob_id as git_blob_oid;

struct Repo {
    /// By path, or by `"<ref>:<path>"` for a file at one ref only.
    by_path: HashMap<String, Arc<Blob>>,
    by_oid: HashMap<String, Arc<Blob>>,
    traffic: Arc<Traffic>,
}

impl Repo {
    /// The file at `path` at ref `git_ref`.
    fn at(&self, git_ref: &str, path: &str) -> Option<&Arc<Blob>> {
        (self.by_path.get(&format!("{git_ref}:{path}"))).or_else(|| self.by_path.get(path))
    }
}

/// A running mock: its base URL (for `GITLAB_URL`) and its counters.
pub struct MockGitlab {
    pub base_url: String,
    pub traffic: Arc<Traffic>,
}

/// Starts the mock on 127.0.0.1 with `files` as (path, content).
pub async fn start(files: Vec<(&str, String)>) -> MockGitlab {
    let traffic = Arc::new(Traffic::default());
    let mut by_path = HashMap::new();
    let mut by_oid = HashMap::new();
    for (name, content) in files {
        let path = name.split_once(':').map_or(name, |(_, path)| path);
        let blob = Arc::new(Blob::new(path, content));
        by_oid.insert(blob.oid.clone(), Arc::clone(&blob));
        by_path.insert(name.to_string(), blob);
    }
    let repo = Arc::new(Repo {
        by_path,
        by_oid,
        traffic: Arc::clone(&traffic),
    });
    let app = Router::new()
        .route("/api/graphql", post(graphql))
        .route(
            "/api/v4/projects/{id}/repository/blobs/{oid}/raw",
            get(blob_raw),
        )
        .route(
            "/api/v4/projects/{id}/repository/files/{path}/raw",
            get(file_raw),
        )
        .with_state(repo);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1");
    let addr = listener.local_addr().expect("local addr");
    tokio::spawn(async move { axum::serve(listener, app).await.expect("mock serve") });
    MockGitlab {
        base_url: format!("http://{addr}"),
        traffic,
    }
}

/// What a blob query asks for, read from its text and variables.
struct BlobQuery<'a> {
    git_ref: &'a str,
    /// `blameFrom..=blameTo` when `withBlame`.
    blame: Option<(u64, u64)>,
    /// `baseRef` when `withBase`.
    base_ref: Option<&'a str>,
    by_ids: bool,
    project_known: bool,
    paths: Vec<&'a str>,
    with_content: bool,
    wants_rules: bool,
    wants_commit: bool,
}

impl<'a> BlobQuery<'a> {
    fn parse(request: &'a Value) -> BlobQuery<'a> {
        let query = request["query"].as_str().unwrap_or_default();
        let vars = &request["variables"];
        // One operation serves both: `$byId` says which field is included.
        let by_ids = vars["byId"] == Value::Bool(true)
            || (vars.get("byId").is_none() && query.contains("projects("));
        let project_known = if by_ids {
            vars["ids"]
                .as_array()
                .is_some_and(|ids| ids.iter().any(|id| id == PROJECT_GID))
        } else {
            vars["projectPath"] == PROJECT_PATH
        };
        let mut paths: Vec<&str> = vars["paths"]
            .as_array()
            .map(|ps| ps.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if paths.is_empty() {
            paths.extend(vars["p0"].as_str());
        }
        let blame = (vars["withBlame"] == Value::Bool(true)).then(|| {
            let line = |k: &str| vars[k].as_u64().unwrap_or(1);
            (line("blameFrom"), line("blameTo"))
        });
        let base_ref = (vars["withBase"] == Value::Bool(true))
            .then(|| vars["baseRef"].as_str().unwrap_or_default());
        BlobQuery {
            git_ref: vars["ref"].as_str().unwrap_or_default(),
            blame,
            base_ref,
            by_ids,
            project_known,
            paths,
            with_content: vars["withContent"] != Value::Bool(false),
            wants_rules: query.contains("duoContextExclusionSettings"),
            wants_commit: query.contains("commit("),
        }
    }
}

async fn graphql(State(repo): State<Arc<Repo>>, body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        let answer = r#"{"errors":[{"message":"Invalid JSON"}]}"#;
        repo.traffic.graphql.record(answer.len());
        return (StatusCode::BAD_REQUEST, json_headers(), answer).into_response();
    };
    let q = BlobQuery::parse(&request);
    let answer = match request["operationName"].as_str() {
        Some("Blame") => blame_answer(&repo, &q, &request["variables"]),
        _ => graphql_answer(&repo, &q),
    };
    repo.traffic.graphql.record(answer.len());
    (json_headers(), answer).into_response()
}

fn graphql_answer(repo: &Repo, q: &BlobQuery<'_>) -> String {
    let project = if q.project_known {
        let found: Vec<&Arc<Blob>> = q
            .paths
            .iter()
            .filter_map(|p| repo.at(q.git_ref, p))
            .collect();
        let node = found
            .iter()
            .map(|b| b.node_json(q.with_content))
            .collect::<Vec<_>>()
            .join(",");
        let blamed = match (q.blame, found.first()) {
            (Some(lines), Some(blob)) => {
                format!(
                    r#","blamed":{{"nodes":[{{"blame":{}}}]}}"#,
                    blob.blame_json(lines)
                )
            }
            _ => String::new(),
        };
        let base = match q.base_ref {
            Some(base_ref) => {
                let nodes: Vec<String> = (q.paths.iter())
                    .filter_map(|p| repo.at(base_ref, p))
                    .map(|b| b.node_json(q.with_content))
                    .collect();
                format!(r#","base":{{"nodes":[{}]}}"#, nodes.join(","))
            }
            None => String::new(),
        };
        let rules = if q.wants_rules {
            r#""duoContextExclusionSettings":{"exclusionRules":[]},"#
        } else {
            ""
        };
        let commit = if q.wants_commit {
            format!(r#","commit":{{"sha":"{COMMIT_SHA}"}}"#)
        } else {
            String::new()
        };
        let mut p = String::with_capacity(node.len() + 200);
        p.push_str(&format!(
            r#"{{"id":"{PROJECT_GID}","fullPath":"{PROJECT_PATH}",{rules}"repository":{{"blobs":{{"nodes":["#
        ));
        p.push_str(&node);
        p.push_str(&format!("]}}{blamed}{base}{commit}}}}}"));
        Some(p)
    } else {
        None
    };
    match (q.by_ids, project) {
        (false, Some(p)) => format!(r#"{{"data":{{"project":{p}}}}}"#),
        (false, None) => r#"{"data":{"project":null}}"#.to_string(),
        (true, Some(p)) => format!(r#"{{"data":{{"projects":{{"nodes":[{p}]}}}}}}"#),
        (true, None) => r#"{"data":{"projects":{"nodes":[]}}}"#.to_string(),
    }
}

/// The `Blame` operation: its aliased fields `b0`..`b9` (those `withN` includes) of the file.
fn blame_answer(repo: &Repo, q: &BlobQuery<'_>, vars: &Value) -> String {
    let path = vars["path"].as_str().unwrap_or_default();
    let Some(blob) = repo.at(q.git_ref, path) else {
        return r#"{"data":{"project":{"repository":{"blobs":{"nodes":[]}}}}}"#.to_string();
    };
    let fields: Vec<String> = (0..10)
        .filter(|i| *i == 0 || vars[format!("with{i}")] == Value::Bool(true))
        .map(|i| {
            let line = |k: String| vars[k].as_u64().unwrap_or(1);
            let lines = (line(format!("from{i}")), line(format!("to{i}")));
            format!(r#""b{i}":{}"#, blob.blame_json(lines))
        })
        .collect();
    format!(
        r#"{{"data":{{"project":{{"repository":{{"blobs":{{"nodes":[{{{}}}]}}}}}}}}}}"#,
        fields.join(",")
    )
}

async fn blob_raw(
    State(repo): State<Arc<Repo>>,
    Path((id, oid)): Path<(String, String)>,
) -> Response {
    let blob = known_project(&id).then(|| repo.by_oid.get(&oid)).flatten();
    raw_answer(&repo.traffic.blob_raw, blob, "404 Blob Not Found")
}

async fn file_raw(
    State(repo): State<Arc<Repo>>,
    Path((id, path)): Path<(String, String)>,
) -> Response {
    let blob = known_project(&id)
        .then(|| repo.by_path.get(&path))
        .flatten();
    raw_answer(&repo.traffic.file_raw, blob, "404 File Not Found")
}

fn known_project(id: &str) -> bool {
    id == PROJECT_ID || id == PROJECT_PATH
}

/// The whole blob as GitLab's raw endpoints send it, or GitLab's 404 body.
fn raw_answer(counter: &Counter, blob: Option<&Arc<Blob>>, not_found: &str) -> Response {
    let Some(blob) = blob else {
        let body = format!(r#"{{"message":"{not_found}"}}"#);
        counter.record(body.len());
        return (StatusCode::NOT_FOUND, json_headers(), body).into_response();
    };
    counter.record(blob.bytes.len());
    let mut headers = HeaderMap::new();
    let value = |s: &str| HeaderValue::from_str(s).expect("ASCII header value");
    headers.insert(header::CONTENT_TYPE, value("text/plain; charset=utf-8"));
    headers.insert("x-gitlab-size", value(&blob.bytes.len().to_string()));
    headers.insert("x-gitlab-blob-id", value(&blob.oid));
    headers.insert("x-gitlab-commit-id", value(COMMIT_SHA));
    (headers, blob.bytes.clone()).into_response()
}

fn json_headers() -> [(header::HeaderName, &'static str); 1] {
    [(header::CONTENT_TYPE, "application/json")]
}
