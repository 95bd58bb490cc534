//! The one GitLab stand-in of the tests and benches: the projects it hosts ([`projects`]; by
//! default `grp/proj`, id 42), each a repository the test fills ([`repository`]), answering
//! GraphQL ([`graphql`]), REST ([`rest`]) and the sign-in ([`oauth`]) as GitLab does
//! (`../shared/gitlab/samples/`), and logging what it saw and sent ([`log`]). What it can be
//! told, each a field of [`Gitlab`]:
//! - who may read ([`Access`]: anyone, one token, users each to their projects, or the
//!   signed-in users of a [`Provider`]);
//! - the faults of networks and proxies ([`faults`]): REST statuses, bent REST bodies, bent
//!   GraphQL texts, lying `rawSize`s, slow answers for one token or for all, refused refs;
//! - GitLab as deployed ([`deployment`]): a relative URL root, gzip, a decompression bomb, LFS
//!   on object storage, another size cap, a complexity limit, an old instance;
//! - each project's Duo rules, and how the code search answers.
//!
//! A test serves it whole ([`Gitlab::start`]) or mounts it behind its own matchers (it is a
//! wiremock `Respond`).

pub mod access;
pub mod deployment;
pub mod faults;
pub mod graphql;
pub mod log;
pub mod oauth;
pub mod projects;
pub mod repository;
pub mod rest;

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

pub use access::{Access, User, Verdict, bearer, current_user, is_token_check};
pub use deployment::{Storage, StorageRequest, gzip};
pub use faults::{Bent, BentText, secret_location};
pub use log::{Count, Endpoint, Log, Sent, Traffic};
pub use oauth::{APP_ID, Ledger, Provider, README};
pub use projects::{Hosted, Project, Projects};
pub use repository::{File, MAIN, READ_LIMIT, Repository, cut, hex};
pub use rest::{Route, SearchMode};

/// A GitLab, its state shared by every clone (the test keeps one, the server answers with one).
#[derive(Clone, Default)]
pub struct Gitlab {
    /// The hosted projects; the first (`grp/proj`, id 42, unless told) is the default one.
    pub projects: Projects,
    pub access: Access,
    pub search: SearchMode,
    /// The instance's relative URL root (`/gitlab`): its API and permalinks are below it.
    pub root: String,
    /// Every answer comes this late (a slow GitLab, so that requests sent together overlap).
    pub delay: Option<Duration>,
    /// Ref names GitLab is told to refuse "Ref is not valid", besides those git would refuse.
    pub refused_refs: Arc<Mutex<BTreeSet<String>>>,
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
    fn raw(body: Vec<u8>, oid: &str, commit: String) -> Reply {
        let size = body.len().to_string();
        Reply::Body {
            status: 200,
            body,
            mime: "text/plain; charset=utf-8",
            headers: vec![
                ("x-gitlab-size", size),
                ("x-gitlab-blob-id", oid.to_string()),
                ("x-gitlab-commit-id", commit),
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
    /// A GitLab whose one project is `path` with id `id`.
    pub fn of_project(path: &str, id: u64) -> Gitlab {
        Gitlab {
            projects: Projects::of(Hosted::new(path, id)),
            ..Gitlab::default()
        }
    }

    /// Hosts one more project, `path` with id `id`.
    pub fn host(&self, path: &str, id: u64) {
        self.projects.lock().push(Hosted::new(path, id));
    }

    /// Stores a file on `main` of the default project: one commit more.
    pub fn put(&self, path: &str, bytes: Vec<u8>, lfs: bool) {
        self.put_at(MAIN, path, bytes, lfs);
    }

    /// Stores a file at a qualified ref (`refs/tags/v1`) of the default project.
    pub fn put_at(&self, git_ref: &str, path: &str, bytes: Vec<u8>, lfs: bool) {
        let first = self.projects.lock()[0].project.path.clone();
        self.put_in(&first, git_ref, path, bytes, lfs);
    }

    /// Stores a file at a qualified ref of the hosted project `project`.
    pub fn put_in(&self, project: &str, git_ref: &str, path: &str, bytes: Vec<u8>, lfs: bool) {
        let file = self.with_project(project, |h| h.repo.put(git_ref, path, bytes, lfs));
        if let (Some(storage), Some(sha)) = (&self.storage, &file.sha) {
            let mut objects = storage.objects.lock().unwrap();
            objects.insert(sha.clone(), file.bytes.clone());
        }
    }

    /// Stores text files on `main` of the default project.
    pub fn with_files<P: AsRef<str>, T: AsRef<str>>(
        self,
        files: impl IntoIterator<Item = (P, T)>,
    ) -> Gitlab {
        for (path, text) in files {
            self.put(path.as_ref(), text.as_ref().as_bytes().to_vec(), false);
        }
        self
    }

    /// Sets the Duo context exclusion rules of the hosted project `project`.
    pub fn set_rules(&self, project: &str, rules: &[&str]) {
        let rules = rules.iter().map(|r| r.to_string()).collect();
        self.with_project(project, |h| h.rules = Some(rules));
    }

    /// Tells GitLab to refuse the ref name `name` "Ref is not valid".
    pub fn refuse_ref(&self, name: &str) {
        self.refused_refs.lock().unwrap().insert(name.to_string());
    }

    fn with_project<T>(&self, project: &str, f: impl FnOnce(&mut Hosted) -> T) -> T {
        let mut projects = self.projects.lock();
        let hosted = projects::find(&mut projects[..], &projects::Named::Path(project));
        f(hosted.unwrap_or_else(|| panic!("the stand-in hosts no {project}")))
    }

    /// The commit the default project's `main` is at, as `permalinkPath` names it.
    pub fn head(&self) -> String {
        self.commit_of("HEAD")
    }

    /// The commit a ref name of the default project resolves to (empty for none).
    pub fn commit_of(&self, git_ref: &str) -> String {
        let projects = self.projects.lock();
        let repo = &projects[0].repo;
        repo.resolve(git_ref, None)
            .map(|q| repo.commit_of(&q))
            .unwrap_or_default()
    }

    /// The body of GitLab's answer to a GraphQL request `body` with no token, rendered once:
    /// for a bench that serves one canned answer at load.
    pub fn graphql_body(&self, body: &Value) -> Vec<u8> {
        self.graphql_answer(body, None).render()
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

    /// Starts the stand-in without recording requests or logging their bodies (the benches:
    /// thousands of them); the traffic counts are kept.
    pub async fn start_quietly(&self) -> MockServer {
        self.log.lock().unwrap().forget_bodies = true;
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
        self.log.lock().unwrap().keep(&body);
        let token = bearer(request);
        let verdict = self.access.verdict(token);
        if is_token_check(request) || matches!(verdict, Verdict::Invalid) {
            return current_user(match verdict {
                Verdict::Reads(user) => Some(user),
                Verdict::Hidden => Some(8),
                Verdict::Invalid => None,
            });
        }
        let with_content = body["variables"]["withContent"] != Value::Bool(false);
        let answer = self.graphql_answer(&body, token).render();
        let endpoint = Endpoint::Graphql { with_content };
        let response = self.send(request, endpoint, Reply::json(200, answer));
        match &self.slow {
            Some((slow, delay)) if token == Some(slow.as_str()) => response.set_delay(*delay),
            _ => response,
        }
    }

    fn rest(&self, request: &Request, path: &str) -> ResponseTemplate {
        let shown = match request.url.query() {
            Some(q) => format!("{path}?{q}"),
            None => path.to_string(),
        };
        self.log.lock().unwrap().rest.push(shown);
        let asked = rest::Asked::parse(path, &request.url);
        let endpoint = asked.endpoint();
        if let Some(status) = faults::next(&self.rest_faults) {
            self.log.lock().unwrap().sent(endpoint, 0, 0);
            return ResponseTemplate::new(status).insert_header("retry-after", "0");
        }
        let token = bearer(request);
        let reply = match self.access.verdict(token) {
            _ if self.bomb => Reply::raw(vec![b'a'; 64 * 1024 * 1024], "", String::new()),
            Verdict::Invalid => Reply::json(401, br#"{"message":"401 Unauthorized"}"#.to_vec()),
            _ => self.rest_answer(&asked, token),
        };
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

    /// The answer to any request, before the instance's own delay.
    fn answer(&self, request: &Request) -> ResponseTemplate {
        if let Access::SignedIn(provider) = &self.access
            && let Some(answer) = provider.answer(request)
        {
            return answer;
        }
        let path = request.url.path();
        let below_root = path.strip_prefix(self.root.as_str()).unwrap_or(path);
        if below_root == "/api/graphql" {
            self.graphql(request)
        } else {
            self.rest(request, below_root)
        }
    }
}

impl Respond for Gitlab {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let response = self.answer(request);
        match self.delay {
            Some(delay) => response.set_delay(delay),
            None => response,
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
