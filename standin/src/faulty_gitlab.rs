//! A GitLab stand-in that answers like GitLab and fails the way networks and proxies do:
//! one project, `grp/proj` (id 42), on `main`; `$withContent: false` leaves the content out,
//! `oid` is the content's git blob id, GraphQL returns at most 10 MiB of a blob, the REST raw
//! endpoints stream whole blobs and LFS objects. It counts every request and byte it sends
//! ([`Sent`]), and bends answers on request: REST faults and bodies that are short, long,
//! altered, binary, stalled, a pointer or a redirect ([`Bent`]), GraphQL texts that are null
//! or short ([`BentText`]), lying `rawSize`s, and slow answers for one token.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::gitlab_mock::git_blob_id;

/// GitLab's GraphQL read limit.
pub const READ_LIMIT: usize = 10 * 1024 * 1024;

/// One file of the stand-in: its bytes, whether it is stored in LFS, and (worked out once, so
/// a request costs the stand-in no hashing) its blob — the bytes or their LFS pointer — and ids.
#[derive(Clone)]
pub struct File {
    pub bytes: Vec<u8>,
    pub lfs: bool,
    pub blob: Vec<u8>,
    pub oid: String,
    /// The LFS object's sha256.
    pub sha: Option<String>,
}

impl File {
    pub fn new(bytes: Vec<u8>, lfs: bool) -> File {
        let sha = lfs.then(|| hex(&Sha256::digest(&bytes)));
        let blob = match &sha {
            Some(sha) => format!(
                "version https://git-lfs.github.com/spec/v1\noid sha256:{sha}\nsize {}\n",
                bytes.len()
            )
            .into_bytes(),
            None => bytes.clone(),
        };
        let oid = git_blob_id(&blob);
        File {
            bytes,
            lfs,
            blob,
            oid,
            sha,
        }
    }
}

/// What the stand-in sent.
#[derive(Default, Debug, Clone)]
pub struct Sent {
    pub graphql: usize,
    /// GraphQL requests that asked for content.
    pub with_content: usize,
    pub rest: usize,
    /// Response body bytes, GraphQL and REST together.
    pub bytes: usize,
}

/// A GitLab with one project, `grp/proj` (id 42), on branch `main`.
#[derive(Clone, Default)]
pub struct Gitlab {
    pub files: Arc<Mutex<HashMap<String, Arc<File>>>>,
    /// Every blob and LFS object ever served, by oid / sha256: content addresses are forever.
    pub objects: Arc<Mutex<HashMap<String, Vec<u8>>>>,
    pub sent: Arc<Mutex<Sent>>,
    /// The only token that can read the project (`None`: anyone can).
    pub reader: Option<String>,
    /// REST answers to fail with, in order, before answering normally.
    pub rest_faults: Arc<Mutex<Vec<u16>>>,
    /// REST bodies to bend, in order, before answering normally (after `rest_faults`).
    pub rest_bodies: Arc<Mutex<Vec<Bent>>>,
    /// GraphQL contents to bend, in order, in answers asked with content.
    pub texts: Arc<Mutex<Vec<BentText>>>,
    /// `rawSize`s to report instead of the true ones, by path (an LFS pointer's size can lie).
    pub raw_sizes: Arc<Mutex<HashMap<String, usize>>>,
    /// A token whose GraphQL answers come this late.
    pub slow: Option<(String, std::time::Duration)>,
    /// How many times `main` moved (each [`Gitlab::put`] is a commit).
    pub commits: Arc<Mutex<u64>>,
}

/// A REST body that is not the blob: what a proxy or a broken cache in between can do.
#[derive(Clone, Copy, Debug)]
pub enum Bent {
    /// The first half, with a Content-Length to match.
    Short,
    /// The blob and more.
    Long,
    /// The same length, the first line replaced.
    Altered,
    /// The same length, a NUL first.
    Binary,
    /// An answer that does not come within the test (an hour late).
    Stalled,
    /// An LFS object's pointer instead of the object (GitLab's answer when it lacks it).
    Pointer,
    /// A redirect to another host, with secrets in its Location.
    Redirect,
}

/// The Location of [`Bent::Redirect`]: user info, a token in the query, and a long path.
pub fn secret_location() -> String {
    format!(
        "https://robot:hunter2@elsewhere.example/{}?private_token=SECRET-TOKEN&x=1",
        "very/long/".repeat(30)
    )
}

/// A GraphQL `rawTextBlob` that is not the blob's.
#[derive(Clone, Copy, Debug)]
pub enum BentText {
    /// `null`, GitLab's word for a binary blob.
    Null,
    /// Half of it.
    Short,
}

impl Gitlab {
    pub fn put(&self, path: &str, bytes: Vec<u8>, lfs: bool) {
        *self.commits.lock().unwrap() += 1;
        let file = Arc::new(File::new(bytes, lfs));
        let mut objects = self.objects.lock().unwrap();
        objects.insert(file.oid.clone(), file.blob.clone());
        if let Some(sha) = &file.sha {
            objects.insert(format!("lfs:{sha}"), file.bytes.clone());
        }
        self.files.lock().unwrap().insert(path.to_string(), file);
    }

    /// The commit `main` is at, as `permalinkPath` names it.
    pub fn head(&self) -> String {
        git_blob_id(format!("commit {}", self.commits.lock().unwrap()).as_bytes())
    }

    pub fn sent(&self) -> Sent {
        self.sent.lock().unwrap().clone()
    }

    pub fn count(&self, response: &[u8], graphql: bool, with_content: bool) {
        let mut sent = self.sent.lock().unwrap();
        sent.bytes += response.len();
        if graphql {
            sent.graphql += 1;
            sent.with_content += usize::from(with_content);
        } else {
            sent.rest += 1;
        }
    }

    /// The GraphQL node for a file, as GitLab builds it.
    pub fn node(&self, path: &str, file: &File, with_content: bool) -> Value {
        let blob = &file.blob;
        let mut node = json!({
            "oid": file.oid, "path": path,
            "size": blob.len().to_string(),
            "rawSize": self.raw_sizes.lock().unwrap().get(path).unwrap_or(&file.bytes.len()).to_string(),
            "storedExternally": file.lfs, "externalStorage": file.lfs.then_some("lfs"),
            "lfsOid": file.sha,
            "permalinkPath": format!("/grp/proj/-/blob/{}/{path}", self.head()),
        });
        if with_content {
            node["rawTextBlob"] = match (std::str::from_utf8(blob), self.next_text()) {
                (Ok(_), Some(BentText::Null)) | (Err(_), _) => Value::Null,
                (Ok(text), Some(BentText::Short)) => json!(&text[..text.len() / 2]),
                (Ok(text), None) => json!(cut(text)),
            };
        }
        node
    }

    pub fn next_text(&self) -> Option<BentText> {
        let mut texts = self.texts.lock().unwrap();
        (!texts.is_empty()).then(|| texts.remove(0))
    }

    pub fn next_body(&self) -> Option<Bent> {
        let mut bodies = self.rest_bodies.lock().unwrap();
        (!bodies.is_empty()).then(|| bodies.remove(0))
    }

    /// `bytes` bent as `how` says.
    pub fn bend(bytes: Vec<u8>, how: Bent) -> ResponseTemplate {
        let mut bytes = bytes;
        match how {
            Bent::Short => bytes.truncate(bytes.len() / 2),
            Bent::Long => bytes.extend_from_slice(b"POISONED tail\n"),
            Bent::Altered => bytes[..9].copy_from_slice(b"POISONED "),
            Bent::Binary => bytes[0] = 0,
            Bent::Stalled => {
                return ResponseTemplate::new(200)
                    .set_body_raw(bytes, "text/plain")
                    .set_delay(std::time::Duration::from_secs(3600));
            }
            Bent::Redirect => {
                return ResponseTemplate::new(302).insert_header("location", secret_location());
            }
            Bent::Pointer => {
                let sha = hex(&Sha256::digest(&bytes));
                bytes = format!(
                    "version https://git-lfs.github.com/spec/v1\noid sha256:{sha}\nsize {}\n",
                    bytes.len()
                )
                .into_bytes();
            }
        }
        ResponseTemplate::new(200).set_body_raw(bytes, "text/plain")
    }

    pub fn graphql(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let vars = &body["variables"];
        let with_content = vars["withContent"] != json!(false);
        let path = vars["paths"][0].as_str().unwrap_or_default().to_string();
        let answer = if !self.may_read(request) {
            json!({"data": {"project": null}})
        } else {
            let file = self.files.lock().unwrap().get(&path).cloned();
            let nodes: Vec<Value> = file
                .map(|f| self.node(&path, &f, with_content))
                .into_iter()
                .collect();
            super::gitlab_mock::project_answer("grp/proj", 42, nodes)
        };
        let bytes = serde_json::to_vec(&answer).unwrap();
        self.count(&bytes, true, with_content);
        let response = ResponseTemplate::new(200).set_body_raw(bytes, "application/json");
        match &self.slow {
            Some((token, delay)) if bearer(request) == Some(token.as_str()) => {
                response.set_delay(*delay)
            }
            _ => response,
        }
    }

    pub fn rest(&self, request: &Request) -> ResponseTemplate {
        let fault = {
            let mut faults = self.rest_faults.lock().unwrap();
            (!faults.is_empty()).then(|| faults.remove(0))
        };
        if let Some(status) = fault {
            self.count(b"", false, false);
            return ResponseTemplate::new(status).insert_header("retry-after", "0");
        }
        let path = request.url.path();
        let key = if let Some(rest) = path.strip_prefix("/api/v4/projects/42/repository/blobs/") {
            rest.trim_end_matches("/raw").to_string()
        } else {
            let file = path
                .strip_prefix("/api/v4/projects/42/repository/files/")
                .unwrap_or_default()
                .trim_end_matches("/raw");
            let file = percent_encoding::percent_decode_str(file)
                .decode_utf8_lossy()
                .to_string();
            let f = self.files.lock().unwrap().get(&file).cloned();
            match f.as_deref() {
                Some(File { sha: Some(sha), .. }) => format!("lfs:{sha}"),
                _ => String::new(),
            }
        };
        let object = self.objects.lock().unwrap().get(&key).cloned();
        match (self.may_read(request), object) {
            (true, Some(bytes)) => {
                self.count(&bytes, false, false);
                match self.next_body() {
                    Some(how) => Self::bend(bytes, how),
                    None => ResponseTemplate::new(200).set_body_raw(bytes, "text/plain"),
                }
            }
            _ => {
                self.count(b"", false, false);
                ResponseTemplate::new(404).set_body_json(json!({"message": "404 Not Found"}))
            }
        }
    }

    pub fn may_read(&self, request: &Request) -> bool {
        let Some(reader) = &self.reader else {
            return true;
        };
        bearer(request) == Some(reader.as_str())
    }
}

/// The token a request carries.
pub fn bearer(request: &Request) -> Option<&str> {
    request
        .headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
}

impl Respond for Gitlab {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        if request.url.path() == "/api/graphql" {
            self.graphql(request)
        } else {
            self.rest(request)
        }
    }
}

/// GitLab's cut: at most [`READ_LIMIT`] bytes, at a character boundary.
pub fn cut(text: &str) -> &str {
    let mut end = text.len().min(READ_LIMIT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub async fn start(gitlab: &Gitlab) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::any())
        .respond_with(gitlab.clone())
        .mount(&server)
        .await;
    server
}
