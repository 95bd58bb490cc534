//! A GitLab stand-in that behaves like instances as they are deployed (issue 25), one project
//! `grp/proj` (id 42) with files at any ref (`refs/heads/main`, `refs/tags/v1`, …), resolved as
//! git resolves a ref name (`refs/<name>`, then tags, then heads) or by `refType`. What it can
//! be made to do:
//! - `gzip`: answers GraphQL and REST gzip-compressed (level 2, as Omnibus nginx) when the
//!   request says `Accept-Encoding: gzip`, and counts the bytes on the wire ([`Log::wire`]);
//!   `bomb`: a REST body that is a few KiB compressed and 64 MiB decoded.
//! - `storage`: LFS downloads (`raw?lfs=true`) answer `302` to a pre-signed URL on a second
//!   server ([`Storage`]) that refuses any request carrying a credential, as S3 does.
//! - GitLab's 20 MiB rule on FULL sizes, always: a multi-path content request whose blobs'
//!   sizes sum past 20,971,520 fails with "Max blobs size limit exceeded"; `cap`: another
//!   (smaller) cap, for "another version's rule".
//! - `complexity`: a limit and a cost per path (`blobs` paths and URL-split candidates alike),
//!   refused in graphql-ruby's words.
//! - `old`: an instance without `RefType`/`refType`, `permalinkPath`, `Repository.commit` and
//!   `duoContextExclusionSettings`, refusing any document naming one in graphql-ruby's words.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::Write as _;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::faulty_gitlab::{File, cut};

/// GitLab's cap on the full sizes of a multi-path content request.
pub const MAX_BLOBS_SIZE: usize = 20 * 1024 * 1024;

/// What the stand-in saw and sent.
#[derive(Default, Debug, Clone)]
pub struct Log {
    /// Every GraphQL request body, in order.
    pub graphql: Vec<Value>,
    /// The first error message of every GraphQL refusal, in order.
    pub refused: Vec<String>,
    /// Every REST path (with query) asked for.
    pub rest: Vec<String>,
    /// Response body bytes as sent (compressed when compressed).
    pub wire: usize,
    /// Response body bytes before compression.
    pub plain: usize,
}

/// Files by (fully qualified ref, path).
pub type Files = Arc<Mutex<HashMap<(String, String), Arc<File>>>>;

#[derive(Clone, Default)]
pub struct Deployed {
    pub files: Files,
    pub gzip: bool,
    pub bomb: bool,
    pub storage: Option<Storage>,
    /// A cap on full sizes other than GitLab's 20 MiB.
    pub cap: Option<usize>,
    /// (max complexity, cost per path or candidate).
    pub complexity: Option<(usize, usize)>,
    pub old: bool,
    pub log: Arc<Mutex<Log>>,
}

impl Deployed {
    /// Puts a file at a qualified ref (`refs/heads/main`).
    pub fn put(&self, git_ref: &str, path: &str, bytes: Vec<u8>, lfs: bool) {
        let file = Arc::new(File::new(bytes, lfs));
        if let (Some(storage), Some(sha)) = (&self.storage, &file.sha) {
            storage
                .objects
                .lock()
                .unwrap()
                .insert(sha.clone(), file.bytes.clone());
        }
        self.files
            .lock()
            .unwrap()
            .insert((git_ref.to_string(), path.to_string()), file);
    }

    pub fn log(&self) -> Log {
        self.log.lock().unwrap().clone()
    }

    fn ref_exists(&self, qualified: &str) -> bool {
        self.files
            .lock()
            .unwrap()
            .keys()
            .any(|(r, _)| r == qualified)
    }

    /// The qualified ref `git_ref` names, as GitLab resolves it.
    fn resolve(&self, git_ref: &str, ref_type: Option<&str>) -> Option<String> {
        let candidates = match ref_type {
            Some("HEADS") => vec![format!("refs/heads/{git_ref}")],
            Some("TAGS") => vec![format!("refs/tags/{git_ref}")],
            _ if git_ref.starts_with("refs/") => vec![git_ref.to_string()],
            _ => vec![
                format!("refs/tags/{git_ref}"),
                format!("refs/heads/{git_ref}"),
            ],
        };
        candidates.into_iter().find(|r| self.ref_exists(r))
    }

    fn file(&self, qualified: &str, path: &str) -> Option<Arc<File>> {
        let key = (qualified.to_string(), path.to_string());
        self.files.lock().unwrap().get(&key).cloned()
    }

    fn commit_of(qualified: &str) -> String {
        super::gitlab_mock::git_blob_id(qualified.as_bytes())
    }

    fn node(&self, qualified: &str, path: &str, file: &File, content: bool) -> Value {
        let mut node = json!({
            "oid": file.oid, "path": path,
            "size": file.blob.len().to_string(),
            "rawSize": file.bytes.len().to_string(),
            "storedExternally": file.lfs, "externalStorage": file.lfs.then_some("lfs"),
            "lfsOid": file.sha,
        });
        if !self.old {
            node["permalinkPath"] = json!(format!(
                "/grp/proj/-/blob/{}/{path}",
                Self::commit_of(qualified)
            ));
        }
        if content {
            node["rawTextBlob"] = match std::str::from_utf8(&file.blob) {
                Ok(text) => json!(cut(text)),
                Err(_) => Value::Null,
            };
        }
        node
    }

    /// graphql-ruby's validation errors for what an old instance lacks.
    fn old_refusals(query: &str) -> Vec<Value> {
        let mut errors = Vec::new();
        if query.contains("$refType: RefType") {
            errors.push(json!({"message": "RefType isn't a defined input type (on $refType)",
                "extensions": {"code": "variableRequiresValidType", "typeName": "RefType", "variableName": "refType"}}));
        }
        if query.contains("refType: $refType") {
            errors.push(json!({"message": "Field 'blobs' doesn't accept argument 'refType'",
                "extensions": {"code": "argumentNotAccepted", "name": "blobs", "typeName": "Field", "argumentName": "refType"}}));
        }
        for (field, type_name) in [
            ("permalinkPath", "RepositoryBlob"),
            ("commit(", "Repository"),
            ("duoContextExclusionSettings", "Project"),
        ] {
            if query.contains(field) {
                let field = field.trim_end_matches('(');
                errors.push(json!({"message": format!("Field '{field}' doesn't exist on type '{type_name}'"),
                    "extensions": {"code": "undefinedField", "typeName": type_name, "fieldName": field}}));
            }
        }
        errors
    }

    /// The number of paths a document asks about: `blobs(paths:)` and split candidates.
    fn paths_asked(vars: &Value) -> usize {
        let Some(vars) = vars.as_object() else {
            return 0;
        };
        vars.iter()
            .filter(|(k, _)| *k == "paths" || (k.starts_with('p') && k[1..].parse::<u32>().is_ok()))
            .map(|(_, v)| v.as_array().map_or(0, Vec::len))
            .sum()
    }

    fn refusal(&self, query: &str, vars: &Value) -> Option<Value> {
        let mut errors = if self.old {
            Self::old_refusals(query)
        } else {
            Vec::new()
        };
        if let Some((max, per_path)) = self.complexity {
            let cost = 10 + per_path * Self::paths_asked(vars);
            if cost > max {
                errors.push(json!({"message": format!(
                    "Query has complexity of {cost}, which exceeds max complexity of {max}")}));
            }
        }
        (!errors.is_empty()).then(|| json!({ "errors": errors }))
    }

    fn graphql(&self, request: &Request) -> Value {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        self.log.lock().unwrap().graphql.push(body.clone());
        let query = body["query"].as_str().unwrap_or_default();
        let vars = &body["variables"];
        if let Some(refused) = self.refusal(query, vars) {
            let first = refused["errors"][0]["message"].as_str().unwrap_or_default();
            self.log.lock().unwrap().refused.push(first.to_string());
            return refused;
        }
        if query.contains("query BlobBySplits") {
            self.splits(query, vars)
        } else if query.contains("query MissProbe") {
            self.probe(vars)
        } else {
            self.blobs(query, vars)
        }
    }

    fn project(&self, query: &str, repository: Value) -> Value {
        let mut project = json!({"id": "gid://gitlab/Project/42", "fullPath": "grp/proj",
            "repository": repository});
        if query.contains("duoContextExclusionSettings") {
            project["duoContextExclusionSettings"] = json!({"exclusionRules": []});
        }
        project
    }

    fn blobs(&self, query: &str, vars: &Value) -> Value {
        let content = vars["withContent"] != json!(false);
        let paths: Vec<&str> = vars["paths"]
            .as_array()
            .map(|p| p.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let qualified = self.resolve(
            vars["ref"].as_str().unwrap_or_default(),
            vars["refType"].as_str(),
        );
        let found: Vec<(&str, Arc<File>)> = paths
            .iter()
            .filter_map(|p| Some((*p, self.file(qualified.as_deref()?, p)?)))
            .collect();
        let total: usize = found.iter().map(|(_, f)| f.blob.len()).sum();
        let cap = self.cap.unwrap_or(MAX_BLOBS_SIZE);
        let by_id = vars["byId"] == json!(true);
        let wrap = |project: Value| match by_id {
            true => json!({"projects": {"nodes": [project]}}),
            false => json!({ "project": project }),
        };
        if content && paths.len() > 1 && total > cap {
            let message = format!(
                "Max blobs size limit exceeded ({:.1} MB / {:.0} MB).",
                total as f64 / 1e6,
                cap as f64 / 1_048_576.0
            );
            self.log.lock().unwrap().refused.push(message.clone());
            let project = self.project(query, json!({ "blobs": null }));
            return json!({"data": wrap(project),
                "errors": [{"message": message, "path": ["project", "repository", "blobs"]}]});
        }
        let nodes: Vec<Value> = found
            .iter()
            .map(|(p, f)| self.node(qualified.as_deref().unwrap_or_default(), p, f, content))
            .collect();
        let project = self.project(query, json!({"blobs": {"nodes": nodes}}));
        json!({ "data": wrap(project) })
    }

    fn splits(&self, query: &str, vars: &Value) -> Value {
        let content = vars["withContent"] != json!(false);
        let mut repository = serde_json::Map::new();
        for i in 0.. {
            let Some(git_ref) = vars[format!("r{i}")].as_str() else {
                if i > 64 {
                    break;
                }
                continue;
            };
            let path = vars[format!("p{i}")][0].as_str().unwrap_or_default();
            let qualified = self.resolve(git_ref, vars["refType"].as_str());
            let nodes: Vec<Value> = qualified
                .iter()
                .filter_map(|q| {
                    let file = self.file(q, path)?;
                    Some(self.node(q, path, &file, content))
                })
                .collect();
            repository.insert(format!("b{i}"), json!({ "nodes": nodes }));
            for kind in ["h", "t"] {
                if let Some(r) = vars[format!("{kind}{i}")].as_str() {
                    let sha = self
                        .ref_exists(r)
                        .then(|| json!({"sha": Self::commit_of(r)}));
                    repository.insert(format!("{kind}{i}"), sha.unwrap_or(Value::Null));
                }
            }
        }
        json!({"data": {"project": self.project(query, Value::Object(repository))}})
    }

    /// The entries directly under `dir` at `qualified`: (subdirectories, files).
    fn entries(&self, qualified: &str, dir: &str) -> (Vec<String>, Vec<String>) {
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let (mut trees, mut blobs) = (Vec::new(), Vec::new());
        for (r, path) in self.files.lock().unwrap().keys() {
            let Some(rest) = path.strip_prefix(&prefix).filter(|_| r == qualified) else {
                continue;
            };
            match rest.split_once('/') {
                Some((sub, _)) if !trees.contains(&sub.to_string()) => trees.push(sub.to_string()),
                Some(_) => {}
                None => blobs.push(rest.to_string()),
            }
        }
        (trees, blobs)
    }

    fn listing(&self, qualified: Option<&str>, dir: &str) -> Value {
        let (trees, blobs) = qualified.map(|q| self.entries(q, dir)).unwrap_or_default();
        let names = |v: Vec<String>| {
            json!({"nodes": v.into_iter().map(|n| json!({"name": n})).collect::<Vec<_>>(),
                   "pageInfo": {"hasNextPage": false}})
        };
        json!({"trees": names(trees), "blobs": names(blobs)})
    }

    fn probe(&self, vars: &Value) -> Value {
        let git_ref = vars["ref"].as_str().unwrap_or_default();
        let qualified = self.resolve(git_ref, None);
        let q = qualified.as_deref();
        let mut root = self.listing(q, "");
        root["lastCommit"] = match q {
            Some(q) => json!({"sha": Self::commit_of(q)}),
            None => Value::Null,
        };
        let mut repository = json!({
            "root": root,
            "dir": self.listing(q, vars["path"].as_str().unwrap_or_default()),
        });
        for level in ["up0", "up1", "up2"] {
            if vars[format!("withUp{}", &level[2..])] == json!(true) {
                repository[level] = self.listing(q, vars[level].as_str().unwrap_or_default());
            }
        }
        json!({"data": {"project": {"repository": repository}}})
    }

    fn rest(&self, request: &Request) -> ResponseTemplate {
        let path = request.url.path();
        let shown = match request.url.query() {
            Some(q) => format!("{path}?{q}"),
            None => path.to_string(),
        };
        self.log.lock().unwrap().rest.push(shown);
        if self.bomb {
            return self.send(request, vec![b'a'; 64 * 1024 * 1024], "text/plain", 200);
        }
        // The project by id or by its URL-encoded full path, as GitLab's REST API takes either.
        let path = &path.replacen("/projects/grp%2Fproj/", "/projects/42/", 1);
        let file = if let Some(rest) = path.strip_prefix("/api/v4/projects/42/repository/blobs/") {
            let oid = rest.trim_end_matches("/raw");
            let files = self.files.lock().unwrap();
            files.values().find(|f| f.oid == oid).cloned()
        } else {
            let encoded = path
                .strip_prefix("/api/v4/projects/42/repository/files/")
                .unwrap_or_default()
                .trim_end_matches("/raw");
            let file_path = percent_encoding::percent_decode_str(encoded)
                .decode_utf8_lossy()
                .to_string();
            let git_ref = request
                .url
                .query_pairs()
                .find(|(k, _)| k == "ref")
                .map(|(_, v)| v.to_string())
                .unwrap_or_default();
            let file = self
                .resolve(&git_ref, None)
                .and_then(|q| self.file(&q, &file_path));
            match (file, &self.storage) {
                (Some(f), Some(storage)) if f.lfs => {
                    let sha = f.sha.clone().unwrap_or_default();
                    return ResponseTemplate::new(302)
                        .insert_header("location", storage.signed_url(&sha));
                }
                (Some(f), None) if f.lfs => {
                    return self.send(request, f.bytes.clone(), "text/plain", 200);
                }
                (file, _) => file,
            }
        };
        match file {
            Some(f) => self.send(request, f.blob.clone(), "text/plain", 200),
            None => self.send(
                request,
                br#"{"message":"404 Not Found"}"#.to_vec(),
                "application/json",
                404,
            ),
        }
    }

    /// `body`, gzip-compressed when the stand-in compresses and the request accepts it.
    fn send(&self, request: &Request, body: Vec<u8>, mime: &str, status: u16) -> ResponseTemplate {
        let accepts = request
            .headers
            .get("accept-encoding")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.contains("gzip"));
        let mut log = self.log.lock().unwrap();
        log.plain += body.len();
        if !(self.gzip && accepts) {
            log.wire += body.len();
            return ResponseTemplate::new(status).set_body_raw(body, mime);
        }
        let compressed = gzip(&body);
        log.wire += compressed.len();
        ResponseTemplate::new(status)
            .insert_header("content-encoding", "gzip")
            .insert_header("vary", "Accept-Encoding")
            .set_body_raw(compressed, mime)
    }
}

/// `bytes` gzip-compressed at nginx's `gzip_comp_level 2`.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(2));
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

impl Respond for Deployed {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        if request.url.path() == "/api/graphql" {
            let answer = serde_json::to_vec(&self.graphql(request)).unwrap();
            self.send(request, answer, "application/json", 200)
        } else {
            self.rest(request)
        }
    }
}

/// One request the storage saw.
#[derive(Debug, Clone)]
pub struct StorageRequest {
    pub path: String,
    /// Whether it carried `Authorization`, `PRIVATE-TOKEN` or a cookie.
    pub credential: bool,
    pub signed: bool,
}

/// Object storage (S3-like) on its own server: objects by sha256 at `/lfs-objects/<sha>`,
/// served only to a request with the signature and no other credential.
#[derive(Clone, Default)]
pub struct Storage {
    pub uri: String,
    pub objects: Arc<Mutex<HashMap<String, Vec<u8>>>>,
    pub seen: Arc<Mutex<Vec<StorageRequest>>>,
    /// Answer 403 (an expired signature) to everything.
    pub expired: bool,
    /// Answer this status (a 5xx of the storage itself) to everything.
    pub failing: Arc<Mutex<Option<u16>>>,
    /// Bytes sent after each object (a storage streaming more than the pointer says).
    pub tail: Arc<Mutex<usize>>,
}

impl Storage {
    pub async fn start(expired: bool) -> (Storage, MockServer) {
        let server = MockServer::start().await;
        let storage = Storage {
            uri: server.uri(),
            expired,
            ..Storage::default()
        };
        Mock::given(wiremock::matchers::any())
            .respond_with(storage.clone())
            .mount(&server)
            .await;
        (storage, server)
    }

    /// A pre-signed URL for an object, with S3's query (the signature is a secret).
    pub fn signed_url(&self, sha: &str) -> String {
        format!(
            "{}/lfs-objects/{sha}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAEXAMPLE%2F20261201&X-Amz-Expires=600&X-Amz-Signature=STORAGE-SIGNATURE-SECRET",
            self.uri
        )
    }

    pub fn seen(&self) -> Vec<StorageRequest> {
        self.seen.lock().unwrap().clone()
    }
}

fn s3_error(status: u16, code: &str, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_raw(
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>{code}</Code><Message>{message}</Message></Error>"),
        "application/xml",
    )
}

impl Respond for Storage {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let credential = ["authorization", "private-token", "cookie"]
            .iter()
            .any(|h| request.headers.contains_key(*h));
        let signed = request
            .url
            .query_pairs()
            .any(|(k, v)| k == "X-Amz-Signature" && v == "STORAGE-SIGNATURE-SECRET");
        let path = request.url.path().to_string();
        self.seen.lock().unwrap().push(StorageRequest {
            path: path.clone(),
            credential,
            signed,
        });
        if credential {
            return s3_error(
                400,
                "InvalidArgument",
                "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified",
            );
        }
        if self.expired || !signed {
            return s3_error(403, "AccessDenied", "Request has expired");
        }
        if let Some(status) = *self.failing.lock().unwrap() {
            return s3_error(status, "InternalError", "We encountered an internal error.");
        }
        let sha = path.strip_prefix("/lfs-objects/").unwrap_or_default();
        match self.objects.lock().unwrap().get(sha) {
            Some(bytes) => {
                let mut body = bytes.clone();
                body.resize(bytes.len() + *self.tail.lock().unwrap(), b'x');
                ResponseTemplate::new(200).set_body_raw(body, "application/octet-stream")
            }
            None => s3_error(404, "NoSuchKey", "The specified key does not exist."),
        }
    }
}

/// Starts the stand-in (with its storage, if any, already started by [`Storage::start`]).
pub async fn start(gitlab: &Deployed) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::any())
        .respond_with(gitlab.clone())
        .mount(&server)
        .await;
    server
}
