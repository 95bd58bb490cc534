//! The one GitLab stand-in of the tests and benches: one project (`grp/proj`, id 42, unless
//! told) whose repository ([`Repository`]) the test fills, answering GraphQL ([`graphql`]),
//! REST ([`rest`]) and the sign-in ([`oauth`]) as GitLab does (`../shared/gitlab/samples/`),
//! logging what it saw and sent ([`Log`]). What it can be told, each a field:
//! - who may read ([`Access`]: anyone, one token, or a signed-in user of a [`Provider`]);
//! - the faults of networks and proxies ([`faults`]): REST statuses, bent REST bodies, bent
//!   GraphQL texts, lying `rawSize`s, slow answers for one token;
//! - GitLab as deployed ([`deployment`]): gzip, a decompression bomb, LFS on object storage,
//!   another size cap, a complexity limit, an old instance;
//! - the Duo rules, and how the code search answers.

pub mod access;
pub mod deployment;
pub mod faults;
pub mod graphql;
pub mod log;
pub mod oauth;
pub mod repository;
pub mod rest;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

pub use access::{Access, Verdict, bearer, current_user, is_token_check};
pub use deployment::{Storage, StorageRequest, gzip};
pub use faults::{Bent, BentText, secret_location};
pub use log::{Count, Endpoint, Log, Sent, Traffic};
pub use oauth::{APP_ID, Ledger, Provider, README};
pub use repository::{File, MAIN, READ_LIMIT, Repository, cut, hex};
pub use rest::{Route, SearchMode};

/// The stand-in's project: its full path and numeric id.
#[derive(Clone, Debug)]
pub struct Project {
    pub path: String,
    pub id: u64,
}

impl Project {
    pub fn gid(&self) -> String {
        format!("gid://gitlab/Project/{}", self.id)
    }
}

impl Default for Project {
    fn default() -> Self {
        Project {
            path: "grp/proj".into(),
            id: 42,
        }
    }
}

/// A GitLab, its state shared by every clone (the test keeps one, the server answers with one).
#[derive(Clone, Default)]
pub struct Gitlab {
    pub project: Project,
    pub repo: Arc<Mutex<Repository>>,
    pub access: Access,
    /// The project's Duo context exclusion rules (none: an empty list).
    pub rules: Option<Vec<String>>,
    pub search: SearchMode,
    // The faults of networks and proxies.
    /// REST answers to fail with, in order, before answering normally.
    pub rest_faults: Arc<Mutex<Vec<u16>>>,
    /// REST bodies to bend, in order, before answering normally (after `rest_faults`).
    pub rest_bodies: Arc<Mutex<Vec<Bent>>>,
    /// GraphQL contents to bend, in order, in answers asked with content.
    pub texts: Arc<Mutex<Vec<BentText>>>,
    /// `rawSize`s to report instead of the true ones, by path (an LFS pointer's size can lie).
    pub raw_sizes: Arc<Mutex<HashMap<String, usize>>>,
    /// A token whose GraphQL answers come this late.
    pub slow: Option<(String, Duration)>,
    // GitLab as deployed.
    /// Gzip answers (level 2, as Omnibus nginx) when the request accepts it.
    pub gzip: bool,
    /// Every REST body a few KiB compressed and 64 MiB decoded.
    pub bomb: bool,
    /// LFS objects on object storage: `raw?lfs=true` answers 302 to it.
    pub storage: Option<Storage>,
    /// A cap on full sizes other than GitLab's 20 MiB.
    pub cap: Option<usize>,
    /// (max complexity, cost per path or candidate).
    pub complexity: Option<(usize, usize)>,
    /// An instance without `refType`, `permalinkPath`, `Repository.commit` and the Duo rules.
    pub old: bool,
    pub log: Arc<Mutex<Log>>,
}

/// An answer before it is counted and sent.
pub enum Reply {
    Body {
        status: u16,
        body: Vec<u8>,
        mime: &'static str,
        headers: Vec<(&'static str, String)>,
    },
    /// A 302 to this location.
    Redirect(String),
}

impl Reply {
    pub fn json(status: u16, body: Vec<u8>) -> Reply {
        Reply::Body {
            status,
            body,
            mime: "application/json",
            headers: Vec::new(),
        }
    }

    /// A raw blob as GitLab's raw endpoints send it, with its `X-Gitlab-*` headers.
    fn raw(body: Vec<u8>, oid: &str, repo: &Repository) -> Reply {
        let size = body.len().to_string();
        Reply::Body {
            status: 200,
            body,
            mime: "text/plain; charset=utf-8",
            headers: vec![
                ("x-gitlab-size", size),
                ("x-gitlab-blob-id", oid.to_string()),
                ("x-gitlab-commit-id", repo.commit_of(MAIN)),
            ],
        }
    }

    fn with_header(mut self, name: &'static str, value: &str) -> Reply {
        if let Reply::Body { headers, .. } = &mut self {
            headers.push((name, value.to_string()));
        }
        self
    }
}

impl Gitlab {
    /// A GitLab whose project is `path` with id `id`.
    pub fn of_project(path: &str, id: u64) -> Gitlab {
        Gitlab {
            project: Project {
                path: path.into(),
                id,
            },
            ..Gitlab::default()
        }
    }

    /// Stores a file on `main`: one commit more.
    pub fn put(&self, path: &str, bytes: Vec<u8>, lfs: bool) {
        self.put_at(MAIN, path, bytes, lfs);
    }

    /// Stores a file at a qualified ref (`refs/tags/v1`).
    pub fn put_at(&self, git_ref: &str, path: &str, bytes: Vec<u8>, lfs: bool) {
        let file = self.repo.lock().unwrap().put(git_ref, path, bytes, lfs);
        if let (Some(storage), Some(sha)) = (&self.storage, &file.sha) {
            let mut objects = storage.objects.lock().unwrap();
            objects.insert(sha.clone(), file.bytes.clone());
        }
    }

    /// Stores text files on `main`.
    pub fn with_files<P: AsRef<str>, T: AsRef<str>>(
        self,
        files: impl IntoIterator<Item = (P, T)>,
    ) -> Gitlab {
        for (path, text) in files {
            self.put(path.as_ref(), text.as_ref().as_bytes().to_vec(), false);
        }
        self
    }

    /// The commit `main` is at, as `permalinkPath` names it.
    pub fn head(&self) -> String {
        self.commit_of("HEAD")
    }

    /// The commit a ref name resolves to (empty for none).
    pub fn commit_of(&self, git_ref: &str) -> String {
        let repo = self.repo.lock().unwrap();
        repo.resolve(git_ref, None)
            .map(|q| repo.commit_of(&q))
            .unwrap_or_default()
    }

    pub fn log(&self) -> Log {
        self.log.lock().unwrap().clone()
    }

    /// Requests and bytes so far, by endpoint.
    pub fn traffic(&self) -> Traffic {
        self.log.lock().unwrap().traffic
    }

    /// What the stand-in sent so far.
    pub fn sent(&self) -> Sent {
        Sent::from(&self.traffic())
    }

    /// Starts the stand-in on 127.0.0.1, recording requests for `received_requests`.
    pub async fn start(&self) -> MockServer {
        self.mount(MockServer::start().await).await
    }

    /// Starts the stand-in without recording requests (the benches: thousands of them).
    pub async fn start_quietly(&self) -> MockServer {
        let server = MockServer::builder()
            .disable_request_recording()
            .start()
            .await;
        self.mount(server).await
    }

    async fn mount(&self, server: MockServer) -> MockServer {
        Mock::given(wiremock::matchers::any())
            .respond_with(self.clone())
            .mount(&server)
            .await;
        server
    }

    /// `reply` counted under `endpoint` and sent, gzip-compressed when told and accepted.
    fn send(&self, request: &Request, endpoint: Endpoint, reply: Reply) -> ResponseTemplate {
        let (status, body, mime, headers) = match reply {
            Reply::Redirect(location) => {
                self.log.lock().unwrap().sent(endpoint, 0, 0);
                return ResponseTemplate::new(302).insert_header("location", location.as_str());
            }
            Reply::Body {
                status,
                body,
                mime,
                headers,
            } => (status, body, mime, headers),
        };
        let mut response = ResponseTemplate::new(status);
        for (name, value) in headers {
            response = response.insert_header(name, value.as_str());
        }
        if !(self.gzip && deployment::accepts_gzip(request)) {
            self.log
                .lock()
                .unwrap()
                .sent(endpoint, body.len(), body.len());
            return response.set_body_raw(body, mime);
        }
        let compressed = gzip(&body);
        self.log
            .lock()
            .unwrap()
            .sent(endpoint, body.len(), compressed.len());
        response
            .insert_header("content-encoding", "gzip")
            .insert_header("vary", "Accept-Encoding")
            .set_body_raw(compressed, mime)
    }

    fn graphql(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        self.log.lock().unwrap().graphql.push(body.clone());
        let with_content =
            body["variables"]["withContent"] != Value::Bool(false) && !is_token_check(request);
        let endpoint = Endpoint::Graphql { with_content };
        let answer = match self.access.verdict(request) {
            Verdict::Invalid => return current_user(None),
            _ if is_token_check(request) => {
                let user = match self.access.verdict(request) {
                    Verdict::Reads(user) => user,
                    _ => 8,
                };
                return current_user(Some(user));
            }
            Verdict::Hidden => serde_json::json!({"data": {"project": null}})
                .to_string()
                .into_bytes(),
            Verdict::Reads(_) => self.graphql_answer(&body).render(),
        };
        let response = self.send(request, endpoint, Reply::json(200, answer));
        match &self.slow {
            Some((token, delay)) if bearer(request) == Some(token.as_str()) => {
                response.set_delay(*delay)
            }
            _ => response,
        }
    }

    fn rest(&self, request: &Request) -> ResponseTemplate {
        let path = request.url.path();
        let shown = match request.url.query() {
            Some(q) => format!("{path}?{q}"),
            None => path.to_string(),
        };
        self.log.lock().unwrap().rest.push(shown);
        let route = Route::parse(&request.url, (self.project.id, &self.project.path));
        let endpoint = route.endpoint();
        if let Some(status) = faults::next(&self.rest_faults) {
            self.log.lock().unwrap().sent(endpoint, 0, 0);
            return ResponseTemplate::new(status).insert_header("retry-after", "0");
        }
        if self.bomb {
            let body = vec![b'a'; 64 * 1024 * 1024];
            return self.send(
                request,
                endpoint,
                Reply::raw(body, "", &self.repo.lock().unwrap()),
            );
        }
        match self.access.verdict(request) {
            Verdict::Invalid => {
                return self.send(
                    request,
                    endpoint,
                    Reply::json(401, br#"{"message":"401 Unauthorized"}"#.to_vec()),
                );
            }
            Verdict::Hidden => return self.send(request, endpoint, rest::not_found("Project")),
            Verdict::Reads(_) => {}
        }
        let reply = self.rest_answer(&route);
        match (faults::next(&self.rest_bodies), reply) {
            (
                Some(how),
                Reply::Body {
                    status: 200, body, ..
                },
            ) => {
                self.log
                    .lock()
                    .unwrap()
                    .sent(endpoint, body.len(), body.len());
                faults::bend(body, how)
            }
            (_, reply) => self.send(request, endpoint, reply),
        }
    }
}

impl Respond for Gitlab {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let provider = match &self.access {
            Access::SignedIn(provider) => provider.answer(request),
            _ => None,
        };
        if let Some(answer) = provider {
            return answer;
        }
        if request.url.path() == "/api/graphql" {
            self.graphql(request)
        } else {
            self.rest(request)
        }
    }
}

/// The requests a recording stand-in received: (GraphQL operation or `REST`, URL).
pub async fn requests(server: &MockServer) -> Vec<(String, String)> {
    let received = server.received_requests().await.unwrap_or_default();
    received
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
