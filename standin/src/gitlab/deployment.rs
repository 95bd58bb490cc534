//! What instances as deployed do to a request that the stand-in can be told to do (issue 25):
//! refuse a document an old instance lacks a field or type of, or one past a complexity limit,
//! in graphql-ruby's words; refuse a multi-path content request past GitLab's 20 MiB rule;
//! gzip answers as Omnibus nginx does; and keep LFS objects on object storage ([`Storage`],
//! S3-like, on a server of its own).

use std::collections::HashMap;
use std::io::Write as _;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// GitLab's cap on the full sizes of a multi-path content request.
pub const MAX_BLOBS_SIZE: usize = 20 * 1024 * 1024;

/// graphql-ruby's validation errors for what an old instance lacks.
pub fn old_refusals(query: &str) -> Vec<Value> {
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
pub fn paths_asked(vars: &Value) -> usize {
    let Some(vars) = vars.as_object() else {
        return 0;
    };
    vars.iter()
        .filter(|(k, _)| *k == "paths" || (k.starts_with('p') && k[1..].parse::<u32>().is_ok()))
        .map(|(_, v)| v.as_array().map_or(0, Vec::len))
        .sum()
}

/// graphql-ruby's refusal of a document past `max`, at 10 plus `per_path` a path.
pub fn too_complex(vars: &Value, (max, per_path): (usize, usize)) -> Option<Value> {
    let cost = 10 + per_path * paths_asked(vars);
    (cost > max).then(|| {
        json!({"message": format!("Query has complexity of {cost}, which exceeds max complexity of {max}")})
    })
}

/// GitLab's words for a multi-path content request past `cap` bytes of full sizes.
pub fn too_large(total: usize, cap: usize) -> String {
    format!(
        "Max blobs size limit exceeded ({:.1} MB / {:.0} MB).",
        total as f64 / 1e6,
        cap as f64 / 1_048_576.0
    )
}

/// Whether a request says `Accept-Encoding: gzip`.
pub fn accepts_gzip(request: &Request) -> bool {
    request
        .headers
        .get("accept-encoding")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("gzip"))
}

/// `bytes` gzip-compressed at nginx's `gzip_comp_level 2`.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(2));
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
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
