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
mod serve;

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use wiremock::{Mock, MockServer};

pub use access::{Access, User, Verdict, bearer, current_user, is_token_check};
pub use deployment::{Storage, StorageRequest, gzip};
pub use faults::{Bent, BentText, secret_location};
pub use log::{Count, Endpoint, Log, Sent, Traffic};
pub use oauth::{APP_ID, Ledger, Provider, README};
pub use projects::{Hosted, Project, Projects};
pub use repository::{File, MAIN, READ_LIMIT, Repository, cut, hex};
pub use rest::{Route, SearchMode};
pub use serve::Reply;

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
