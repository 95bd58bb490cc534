//! Test support: a GitLab stand-in for `search_repository`, answering from a repository model
//! (paths and their text) as GitLab does: `TreeCommit` (the ref's commit; `project: null` for
//! a project the token cannot see, null commits for a missing ref), `TreePage`
//! (`Repository.paginatedTree`: one `Tree` node of at most 100 entries a page, trees first as
//! Gitaly sorts them, `endCursor` "" on the last page), the blob query (`blobs(paths:)` with
//! content), and REST code search (`GET /projects/:id/search?scope=blobs`: a case-insensitive
//! literal, path matches first then one result per matching chunk, `per_page` 20 by default,
//! at most 100; or 403 / 429 when told).
#![allow(dead_code)]

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::gitlab_mock::git_blob_id;

/// The commit every ref but `missing` resolves to.
pub const TREE_COMMIT: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// The project's full path and id.
pub const PROJECT: &str = "group/project";
pub const PROJECT_ID: u64 = 7;

/// How the code search answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchMode {
    Works,
    Forbidden,
    RateLimited,
}

/// The repository model.
#[derive(Debug, Clone)]
pub struct Repo {
    pub files: Arc<Vec<(String, String)>>,
    /// The project's Duo context exclusion rules (none: the field is null).
    pub rules: Option<Vec<String>>,
    /// Each directory's listing as answered, built once.
    listings: Arc<Mutex<HashMap<String, Arc<Vec<Value>>>>>,
}

impl Repo {
    pub fn new(files: Vec<(String, String)>) -> Self {
        let mut files = files;
        files.sort();
        Self {
            files: Arc::new(files),
            rules: None,
            listings: Arc::default(),
        }
    }

    /// `n` Python files in 10 directories (`pkg<d>/mod_<i>.py`), the middle one defining
    /// `retry_policy`: the repository the `search_repository` tests and bench list and search.
    pub fn python_modules(n: usize) -> Self {
        let files = (0..n)
            .map(|i| {
                let body = if i == n / 2 {
                    "import os\n\n\ndef retry_policy(attempts):\n    return min(attempts, 5)\n"
                        .to_string()
                } else {
                    format!("# module {i}\nVALUE = {i}\n")
                };
                (format!("pkg{}/mod_{i:05}.py", i % 10), body)
            })
            .collect();
        Self::new(files)
    }

    /// Every directory and file under `dir`, trees first then blobs, each sorted.
    fn entries(&self, dir: &str) -> (Vec<String>, Vec<&(String, String)>) {
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let blobs: Vec<&(String, String)> = self
            .files
            .iter()
            .filter(|(p, _)| p.starts_with(&prefix))
            .collect();
        let mut trees = BTreeSet::new();
        for (p, _) in &blobs {
            let mut at = prefix.len();
            while let Some(i) = p[at..].find('/') {
                trees.insert(p[..at + i].to_string());
                at += i + 1;
            }
        }
        (trees.into_iter().collect(), blobs)
    }

    /// `dir`'s entries as the tree pages answer them, trees first.
    fn listing(&self, dir: &str) -> Arc<Vec<Value>> {
        let mut listings = self.listings.lock().unwrap();
        let built = listings.entry(dir.to_string()).or_insert_with(|| {
            let (trees, blobs) = self.entries(dir);
            let all = trees
                .iter()
                .map(|t| json!({"kind": "tree", "path": t, "sha": git_blob_id(t.as_bytes())}))
                .chain(blobs.iter().map(|(p, c)| {
                    json!({"kind": "blob", "path": p, "sha": git_blob_id(c.as_bytes()), "lfsOid": null})
                }))
                .collect();
            Arc::new(all)
        });
        Arc::clone(built)
    }

    fn tree_page(&self, vars: &Value) -> Value {
        let dir = vars["path"].as_str().unwrap_or_default();
        let all = self.listing(dir);
        let start: usize = vars["after"]
            .as_str()
            .and_then(|a| a.parse().ok())
            .unwrap_or(0);
        let end = (start + 100).min(all.len());
        let page = &all[start.min(end)..end];
        let of = |kind: &str| -> Vec<Value> {
            page.iter()
                .filter(|e| e["kind"] == kind)
                .map(|e| {
                    let mut e = e.clone();
                    e.as_object_mut().unwrap().remove("kind");
                    e
                })
                .collect()
        };
        let more = end < all.len();
        json!({"data": {"project": {"repository": {"paginatedTree": {
            "pageInfo": {"endCursor": if more { end.to_string() } else { String::new() }, "hasNextPage": more},
            "nodes": [{"trees": {"nodes": of("tree")}, "blobs": {"nodes": of("blob")}}]
        }}}}})
    }

    fn commit(&self, vars: &Value) -> Value {
        if vars["projectPath"] == "group/private" {
            return json!({"data": {"project": null}});
        }
        let sha = (vars["ref"] != "missing").then_some(TREE_COMMIT);
        let project = json!({
            "id": format!("gid://gitlab/Project/{PROJECT_ID}"),
            "fullPath": PROJECT,
            "duoContextExclusionSettings": self.rules.as_ref().map(|r| json!({"exclusionRules": r})),
            "repository": {"commit": sha.map(|s| json!({"sha": s})),
                "tree": {"lastCommit": sha.map(|s| json!({"sha": s}))}}
        });
        if vars["byId"] == true {
            return json!({"data": {"projects": {"nodes": [project]}}});
        }
        json!({"data": {"project": project}})
    }

    fn blobs(&self, vars: &Value) -> Value {
        let wanted: Vec<&str> = vars["paths"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let nodes: Vec<Value> = self
            .files
            .iter()
            .filter(|(p, _)| wanted.contains(&p.as_str()))
            .map(|(p, c)| {
                json!({"oid": git_blob_id(c.as_bytes()), "path": p, "size": c.len().to_string(),
                "rawSize": c.len().to_string(), "rawTextBlob": c, "storedExternally": false,
                "externalStorage": null,
                "permalinkPath": format!("/{PROJECT}/-/blob/{TREE_COMMIT}/{p}")})
            })
            .collect();
        json!({"data": {"project": {"id": format!("gid://gitlab/Project/{PROJECT_ID}"),
            "fullPath": PROJECT, "repository": {"blobs": {"nodes": nodes}}}}})
    }

    /// GitLab's basic search: path matches first, then one result per chunk of matching
    /// lines (each a run of lines with 2 of context).
    fn search(&self, term: &str) -> Vec<Value> {
        let needle = term.to_lowercase();
        let mut results: Vec<Value> = self
            .files
            .iter()
            .filter(|(p, _)| p.to_lowercase().contains(&needle))
            .map(|(p, c)| json!({"path": p, "filename": p, "id": git_blob_id(c.as_bytes()), "data": c, "startline": 1}))
            .collect();
        for (p, c) in self.files.iter() {
            for (i, line) in c.lines().enumerate() {
                if line.to_lowercase().contains(&needle) {
                    results.push(json!({"path": p, "filename": p, "id": null, "data": line, "startline": i + 1}));
                }
            }
        }
        results
    }
}

struct Answers(Repo);

impl Respond for Answers {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let query = body["query"].as_str().unwrap_or_default();
        let vars = &body["variables"];
        let answer = if query.contains("paginatedTree") {
            self.0.tree_page(vars)
        } else if query.contains("TreeCommit") {
            self.0.commit(vars)
        } else if query.contains("blobs(") {
            self.0.blobs(vars)
        } else {
            json!({"errors": [{"message": "unexpected query"}]})
        };
        ResponseTemplate::new(200).set_body_json(answer)
    }
}

struct Search(Repo, SearchMode);

impl Respond for Search {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        match self.1 {
            SearchMode::Forbidden => {
                return ResponseTemplate::new(403)
                    .set_body_json(json!({"message": "403 Forbidden"}));
            }
            SearchMode::RateLimited => {
                return ResponseTemplate::new(429)
                    .insert_header("Retry-After", "0")
                    .set_body_json(json!({"message": "429 Too Many Requests"}));
            }
            SearchMode::Works => {}
        }
        let q = |k: &str| {
            request
                .url
                .query_pairs()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.to_string())
        };
        let per_page: usize = q("per_page")
            .and_then(|p| p.parse().ok())
            .unwrap_or(20)
            .min(100);
        let page: usize = q("page").and_then(|p| p.parse().ok()).unwrap_or(1).max(1);
        let all = self.0.search(&q("search").unwrap_or_default());
        let start = (page - 1) * per_page;
        let slice: Vec<Value> = all.into_iter().skip(start).take(per_page).collect();
        ResponseTemplate::new(200).set_body_json(Value::Array(slice))
    }
}

/// A GitLab serving `repo`, its code search answering as `mode` says.
pub async fn serve(repo: Repo, mode: SearchMode) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/graphql"))
        .respond_with(Answers(repo.clone()))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path_regex(r"^/api/v4/projects/[^/]+/search$"))
        .respond_with(Search(repo, mode))
        .mount(&server)
        .await;
    server
}

/// The requests the stand-in received: (GraphQL operation or REST path, body or query).
pub async fn requests(server: &MockServer) -> Vec<(String, String)> {
    server
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(|r| {
            let body: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
            let query = body["query"].as_str().unwrap_or_default();
            let kind = if query.contains("paginatedTree") {
                "TreePage"
            } else if query.contains("TreeCommit") {
                "TreeCommit"
            } else if query.contains("blobs(") {
                "Blob"
            } else {
                "REST"
            };
            (kind.to_string(), r.url.to_string())
        })
        .collect()
}
