//! Paging a file for the price of one download (issue 9), end to end: the real binary over
//! MCP against a GitLab stand-in that answers like GitLab — `$withContent: false` leaves the
//! content out, `oid` is the content's git blob id, GraphQL returns at most 10 MiB of a blob,
//! the REST raw endpoints stream whole blobs and LFS objects — and counts every request and
//! every byte it sends.

#[path = "support/gitlab_mock.rs"]
mod gitlab_mock;
#[path = "support/http_server.rs"]
mod http_server;
#[path = "support/mcp.rs"]
mod mcp;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use gitlab_mock::git_blob_id;
use mcp::{err, ok, spawn};
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// GitLab's GraphQL read limit.
const READ_LIMIT: usize = 10 * 1024 * 1024;

/// One file of the stand-in: its bytes, and whether it is stored in LFS.
#[derive(Clone)]
struct File {
    bytes: Vec<u8>,
    lfs: bool,
}

/// What the stand-in sent.
#[derive(Default, Debug, Clone)]
struct Sent {
    graphql: usize,
    /// GraphQL requests that asked for content.
    with_content: usize,
    rest: usize,
    /// Response body bytes, GraphQL and REST together.
    bytes: usize,
}

/// A GitLab with one project, `grp/proj` (id 42), on branch `main`.
#[derive(Clone, Default)]
struct Gitlab {
    files: Arc<Mutex<HashMap<String, File>>>,
    /// Every blob and LFS object ever served, by oid / sha256: content addresses are forever.
    objects: Arc<Mutex<HashMap<String, Vec<u8>>>>,
    sent: Arc<Mutex<Sent>>,
    /// The only token that can read the project (`None`: anyone can).
    reader: Option<String>,
    /// REST answers to fail with, in order, before answering normally.
    rest_faults: Arc<Mutex<Vec<u16>>>,
    /// How many times `main` moved (each [`Gitlab::put`] is a commit).
    commits: Arc<Mutex<u64>>,
}

impl Gitlab {
    fn put(&self, path: &str, bytes: Vec<u8>, lfs: bool) {
        *self.commits.lock().unwrap() += 1;
        self.files
            .lock()
            .unwrap()
            .insert(path.to_string(), File { bytes, lfs });
    }

    /// The commit `main` is at, as `permalinkPath` names it.
    fn head(&self) -> String {
        git_blob_id(format!("commit {}", self.commits.lock().unwrap()).as_bytes())
    }

    fn sent(&self) -> Sent {
        self.sent.lock().unwrap().clone()
    }

    fn count(&self, response: &[u8], graphql: bool, with_content: bool) {
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
    fn node(&self, path: &str, file: &File, with_content: bool) -> Value {
        let (blob, raw_size) = if file.lfs {
            let sha = hex(&Sha256::digest(&file.bytes));
            let pointer = format!(
                "version https://git-lfs.github.com/spec/v1\noid sha256:{sha}\nsize {}\n",
                file.bytes.len()
            );
            self.objects
                .lock()
                .unwrap()
                .insert(format!("lfs:{sha}"), file.bytes.clone());
            (pointer.into_bytes(), file.bytes.len())
        } else {
            (file.bytes.clone(), file.bytes.len())
        };
        let oid = git_blob_id(&blob);
        self.objects
            .lock()
            .unwrap()
            .insert(oid.clone(), blob.clone());
        let mut node = json!({
            "oid": oid, "path": path,
            "size": blob.len().to_string(), "rawSize": raw_size.to_string(),
            "storedExternally": file.lfs, "externalStorage": file.lfs.then_some("lfs"),
            "lfsOid": file.lfs.then(|| hex(&Sha256::digest(&file.bytes))),
            "permalinkPath": format!("/grp/proj/-/blob/{}/{path}", self.head()),
        });
        if with_content {
            node["rawTextBlob"] = match std::str::from_utf8(&blob) {
                Ok(text) => json!(cut(text)),
                Err(_) => Value::Null,
            };
        }
        node
    }

    fn graphql(&self, request: &Request) -> ResponseTemplate {
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
            gitlab_mock::project_answer("grp/proj", 42, nodes)
        };
        let bytes = serde_json::to_vec(&answer).unwrap();
        self.count(&bytes, true, with_content);
        ResponseTemplate::new(200).set_body_raw(bytes, "application/json")
    }

    fn rest(&self, request: &Request) -> ResponseTemplate {
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
            match f {
                Some(f) => format!("lfs:{}", hex(&Sha256::digest(&f.bytes))),
                None => String::new(),
            }
        };
        let object = self.objects.lock().unwrap().get(&key).cloned();
        match (self.may_read(request), object) {
            (true, Some(bytes)) => {
                self.count(&bytes, false, false);
                ResponseTemplate::new(200).set_body_raw(bytes, "text/plain")
            }
            _ => {
                self.count(b"", false, false);
                ResponseTemplate::new(404).set_body_json(json!({"message": "404 Not Found"}))
            }
        }
    }

    fn may_read(&self, request: &Request) -> bool {
        let Some(reader) = &self.reader else {
            return true;
        };
        let token = request
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        token == Some(reader.as_str())
    }
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
fn cut(text: &str) -> &str {
    let mut end = text.len().min(READ_LIMIT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

async fn start(gitlab: &Gitlab) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::any())
        .respond_with(gitlab.clone())
        .mount(&server)
        .await;
    server
}

fn args(path: &str) -> Value {
    json!({"project_id": "grp/proj", "file_path": path, "ref": "main"})
}

/// `lines` lines of `width` bytes each (newline included), numbered.
fn text(lines: usize, width: usize) -> String {
    (0..lines)
        .map(|i| format!("{i:0w$}\n", w = width - 1))
        .collect()
}

/// Follows the hints from offset 0, returning the windows' contents joined and the outputs.
async fn page_whole(server: &mcp::Server, path: &str, limit: u64) -> (String, Vec<Value>) {
    let mut content = String::new();
    let mut outputs = Vec::new();
    let mut offset = 0;
    loop {
        let mut a = args(path);
        a["offset"] = json!(offset);
        a["limit"] = json!(limit);
        let out = ok(&server.call(a).await);
        content.push_str(out["content"].as_str().unwrap());
        let next = out["metadata"]["returned_lines"]["end"].as_u64();
        let more = out["system_instruction"]
            .as_str()
            .is_some_and(|s| s.contains("Remaining lines"));
        outputs.push(out);
        match (more, next) {
            (true, Some(end)) => offset = end,
            _ => return (content, outputs),
        }
    }
}

#[tokio::test]
async fn paging_a_file_whole_downloads_it_once() {
    let gitlab = Gitlab::default();
    let file = text(2_400, 20); // 48,000 bytes
    gitlab.put("src/big.rs", file.clone().into_bytes(), false);
    let mock = start(&gitlab).await;
    let server = spawn(&[], &[("GITLAB_URL", &mock.uri())]).await;
    let (content, outputs) = page_whole(&server, "src/big.rs", 500).await;
    assert_eq!(content, file);
    assert_eq!(outputs.len(), 5);
    let sent = gitlab.sent();
    // One request per window; only the first carries content.
    assert_eq!((sent.graphql, sent.with_content, sent.rest), (5, 1, 0));
    assert!(
        sent.bytes < file.len() * 12 / 10,
        "{} bytes sent for a {}-byte file",
        sent.bytes,
        file.len()
    );
    let blob_ids: Vec<&Value> = outputs.iter().map(|o| &o["metadata"]["blob_id"]).collect();
    assert!(
        blob_ids
            .iter()
            .all(|id| **id == json!(git_blob_id(file.as_bytes())))
    );
    // Later requests carried no content: their answers had no rawTextBlob.
    let bodies = gitlab_mock::bodies(&mock).await;
    let asked: Vec<&Value> = bodies
        .iter()
        .map(|b| &b["variables"]["withContent"])
        .collect();
    assert_eq!(asked[0], &json!(true));
    assert!(asked[1..].iter().all(|w| **w == json!(false)), "{asked:?}");
    server.stop().await;
}

#[tokio::test]
async fn a_changed_blob_gives_the_new_content_and_says_so() {
    let gitlab = Gitlab::default();
    gitlab.put("a.txt", b"one\ntwo\nthree\n".to_vec(), false);
    let mock = start(&gitlab).await;
    let server = spawn(&[], &[("GITLAB_URL", &mock.uri())]).await;
    let mut first = args("a.txt");
    first["limit"] = json!(1);
    let out = ok(&server.call(first).await);
    assert_eq!(out["content"], "one\n");
    let first_commit = out["metadata"]["commit_sha"].clone();
    assert_eq!(first_commit, gitlab.head());
    assert!(
        !out["system_instruction"]
            .as_str()
            .unwrap()
            .contains("changed")
    );
    // The branch moves: a.txt has new content.
    gitlab.put("a.txt", b"ONE\nTWO\nTHREE\n".to_vec(), false);
    let mut next = args("a.txt");
    next["offset"] = json!(1);
    next["limit"] = json!(1);
    let out = ok(&server.call(next.clone()).await);
    assert_eq!(out["content"], "TWO\n");
    let hint = out["system_instruction"].as_str().unwrap();
    assert!(
        hint.contains("changed at ref 'main' since your previous window"),
        "{hint}"
    );
    assert_eq!(
        out["metadata"]["blob_id"],
        git_blob_id(b"ONE\nTWO\nTHREE\n")
    );
    // The branch moved: the answer is cited at the new commit.
    assert_eq!(out["metadata"]["commit_sha"], gitlab.head());
    assert_ne!(out["metadata"]["commit_sha"], first_commit);
    // Asked without content, named a blob not cached: one more request, with content.
    let sent = gitlab.sent();
    assert_eq!((sent.graphql, sent.with_content), (3, 2));
    // Said once: the next window of the new blob is quiet again.
    next["offset"] = json!(2);
    let out = ok(&server.call(next).await);
    assert!(
        out.get("system_instruction")
            .is_none_or(|s| !s.as_str().unwrap().contains("changed"))
    );
    server.stop().await;
}

#[tokio::test]
async fn a_file_past_the_read_limit_is_read_whole_over_rest() {
    let gitlab = Gitlab::default();
    let lines = 120_000;
    let file = text(lines, 100); // 12,000,000 bytes: GraphQL returns 104,857.6 lines of it
    gitlab.put("huge.log", file.clone().into_bytes(), false);
    let mock = start(&gitlab).await;
    let server = spawn(&[], &[("GITLAB_URL", &mock.uri())]).await;
    // A window inside the part GraphQL returned: served from it, flagged as before.
    let out = ok(&server.call(args("huge.log")).await);
    assert_eq!(out["metadata"]["returned_lines"]["end"], 500);
    assert!(
        out["system_instruction"]
            .as_str()
            .unwrap()
            .contains("larger than the read limit")
    );
    assert_eq!(gitlab.sent().rest, 0);
    // A caller holding the file asks for the tail: unchanged, and nothing is downloaded for
    // it (the cached part does not reach the tail, so the window's metadata is left out).
    let mut held = args("huge.log");
    held["offset"] = json!(lines - 10);
    held["if_none_match"] = json!(git_blob_id(file.as_bytes()));
    let out = ok(&server.call(held).await);
    assert_eq!(out["metadata"]["unchanged"], true);
    assert!(out.get("content").is_none() && out["metadata"].get("total_lines").is_none());
    let sent = gitlab.sent();
    assert_eq!((sent.graphql, sent.with_content, sent.rest), (2, 1, 0));
    // The tail: one REST download by oid, then exact.
    let mut tail = args("huge.log");
    tail["offset"] = json!(lines - 10);
    let out = ok(&server.call(tail).await);
    assert_eq!(out["metadata"]["total_lines"], lines);
    assert_eq!(out["content"], &file[file.len() - 1000..]);
    assert!(
        !out["system_instruction"]
            .as_str()
            .unwrap_or("")
            .contains("read limit")
    );
    assert_eq!(out["metadata"]["truncated"], true);
    // Later windows anywhere come from the cache: no more content.
    let mut middle = args("huge.log");
    middle["offset"] = json!(104_000);
    middle["limit"] = json!(2000);
    // 2,000 lines of 100 bytes: past the default character budget, which is not tested here.
    middle["max_chars"] = json!(0);
    let out = ok(&server.call(middle).await);
    assert_eq!(out["metadata"]["total_lines"], lines);
    assert_eq!(out["metadata"]["returned_lines"]["end"], 106_000);
    let sent = gitlab.sent();
    assert_eq!((sent.graphql, sent.with_content, sent.rest), (4, 1, 1));
    assert!(
        sent.bytes < file.len() * 22 / 10,
        "{} bytes sent",
        sent.bytes
    );
    server.stop().await;
}

#[tokio::test]
async fn a_file_larger_than_the_maximum_is_refused_naming_the_limit() {
    let gitlab = Gitlab::default();
    gitlab.put("big.txt", text(40, 50).into_bytes(), false); // 2,000 bytes
    let mock = start(&gitlab).await;
    let server = spawn(
        &["--max-file-bytes", "1000"],
        &[("GITLAB_URL", &mock.uri())],
    )
    .await;
    let e = err(&server.call(args("big.txt")).await);
    assert!(
        e.contains("2000 bytes") && e.contains("1000") && e.contains("--max-file-bytes"),
        "{e}"
    );
    server.stop().await;
}

#[tokio::test]
async fn lfs_text_is_read_like_any_file_and_lfs_binary_keeps_its_error() {
    let gitlab = Gitlab::default();
    let csv = "id,name\n1,alpha\n2,beta\n".repeat(100);
    gitlab.put("data/table.csv", csv.clone().into_bytes(), true);
    let mut binary = vec![0u8, 1, 2, 3];
    binary.extend(std::iter::repeat_n(7u8, 20_000));
    gitlab.put("files/blob.iso", binary.clone(), true);
    let mock = start(&gitlab).await;
    let server = spawn(&[], &[("GITLAB_URL", &mock.uri())]).await;
    let (content, outputs) = page_whole(&server, "data/table.csv", 100).await;
    assert_eq!(content, csv);
    assert_eq!(outputs[0]["metadata"]["size_bytes"], csv.len());
    assert_eq!(outputs[0]["metadata"]["total_lines"], 300);
    let everything = serde_json::to_string(&outputs).unwrap();
    assert!(!everything.contains("git-lfs.github.com") && !everything.contains("sha256:"));
    // The object was downloaded once, for all three windows.
    assert_eq!(gitlab.sent().rest, 1);
    let result = server.call(args("files/blob.iso")).await;
    let e = err(&result);
    assert!(
        e.contains("stored in LFS") && e.contains(&format!("Size: {} bytes", binary.len())),
        "{e}"
    );
    assert!(!serde_json::to_string(&result).unwrap().contains("sha256:"));
    // Known binary: asking again downloads nothing more.
    let rest = gitlab.sent().rest;
    err(&server.call(args("files/blob.iso")).await);
    assert_eq!(gitlab.sent().rest, rest);
    server.stop().await;
}

#[tokio::test]
async fn concurrent_first_reads_download_a_blob_once() {
    let gitlab = Gitlab::default();
    let file = text(3_000, 40);
    gitlab.put("shared.rs", file.into_bytes(), false);
    let huge = text(120_000, 100);
    gitlab.put("huge.log", huge.into_bytes(), false);
    let mock = start(&gitlab).await;
    let server = spawn(&[], &[("GITLAB_URL", &mock.uri())]).await;
    let calls = (0..8).map(|i| {
        let mut a = args("shared.rs");
        a["offset"] = json!(i * 100);
        server.call(a)
    });
    for result in futures::future::join_all(calls).await {
        ok(&result);
    }
    let sent = gitlab.sent();
    assert_eq!((sent.graphql, sent.with_content), (8, 1));
    // Eight windows past the read limit at once: one REST download.
    let before = gitlab.sent();
    let calls = (0..8).map(|i| {
        let mut a = args("huge.log");
        a["offset"] = json!(110_000 + i * 100);
        server.call(a)
    });
    for result in futures::future::join_all(calls).await {
        assert_eq!(ok(&result)["metadata"]["total_lines"], 120_000);
    }
    let sent = gitlab.sent();
    assert_eq!(sent.rest - before.rest, 1);
    assert_eq!(sent.with_content - before.with_content, 1);
    server.stop().await;
}

#[tokio::test]
async fn eviction_under_the_byte_budget() {
    let gitlab = Gitlab::default();
    gitlab.put("a.txt", text(60, 10).into_bytes(), false); // 600 bytes
    gitlab.put("b.txt", text(60, 10).replace('0', "x").into_bytes(), false);
    let mock = start(&gitlab).await;
    let server = spawn(&["--cache-bytes", "1000"], &[("GITLAB_URL", &mock.uri())]).await;
    for path in ["a.txt", "a.txt", "b.txt", "b.txt", "a.txt"] {
        ok(&server.call(args(path)).await);
    }
    // a (content), a (cached), b (content: a evicted), b (cached), a (content again).
    assert_eq!(gitlab.sent().with_content, 3);
    assert_eq!(gitlab.sent().graphql, 5);
    server.stop().await;
}

#[tokio::test]
async fn rest_faults_are_retried_and_worded() {
    let gitlab = Gitlab::default();
    gitlab.put("huge.log", text(120_000, 100).into_bytes(), false);
    let mock = start(&gitlab).await;
    let server = spawn(&[], &[("GITLAB_URL", &mock.uri())]).await;
    let mut tail = args("huge.log");
    tail["offset"] = json!(119_000);
    // A 429 and a 502 are retried (Retry-After: 0 waits the backoff floor), then it works.
    *gitlab.rest_faults.lock().unwrap() = vec![429, 502];
    let out = ok(&server.call(tail.clone()).await);
    assert_eq!(out["metadata"]["total_lines"], 120_000);
    assert_eq!(gitlab.sent().rest, 3);
    // A fresh server, three 503s: retries exhausted, said so.
    server.stop().await;
    let server = spawn(&[], &[("GITLAB_URL", &mock.uri())]).await;
    *gitlab.rest_faults.lock().unwrap() = vec![503, 503, 503];
    let e = err(&server.call(tail.clone()).await);
    assert!(e.contains("HTTP 503") && e.contains("2 retries"), "{e}");
    // A 404 from the raw endpoint.
    *gitlab.rest_faults.lock().unwrap() = vec![404];
    let e = err(&server.call(tail).await);
    assert!(e.contains("raw file endpoint") && e.contains("404"), "{e}");
    server.stop().await;
}

#[tokio::test]
async fn a_reset_connection_is_retried_like_a_502_and_worded() {
    let gitlab = Gitlab::default();
    let file = "line\n".repeat(10);
    // A 20 MiB file of which GraphQL sent only these 50 bytes: any window past them needs REST.
    let mut node = gitlab.node(
        "cut.log",
        &File {
            bytes: file.clone().into_bytes(),
            lfs: false,
        },
        true,
    );
    node["rawSize"] = json!("20971520");
    let answer =
        serde_json::to_vec(&gitlab_mock::project_answer("grp/proj", 42, vec![node])).unwrap();
    let (url, resets) = gitlab_mock::resetting_gitlab(Some(answer)).await;
    let server = spawn(&[], &[("GITLAB_URL", &url)]).await;
    let e = err(&server.call(args("cut.log")).await);
    assert!(
        e.contains("closed the connection") && e.contains("2 retries"),
        "{e}"
    );
    assert_eq!(*resets.lock().unwrap(), 3);
    server.stop().await;
}

#[tokio::test]
async fn one_cache_many_users_and_no_content_without_access() {
    let gitlab = Gitlab {
        reader: Some("alice-token".into()),
        ..Gitlab::default()
    };
    gitlab.put("secret.txt", b"the secret\n".to_vec(), false);
    let mock = start(&gitlab).await;
    let server =
        http_server::HttpServer::start(&mock.uri(), &["--stateless", "--token-from-request"], None);
    let call = |token: &'static str| {
        let url = server.mcp();
        async move {
            let client =
                http_server::mcp_client(&url, &[("authorization", &format!("Bearer {token}"))])
                    .await;
            let Value::Object(map) = args("secret.txt") else {
                unreachable!()
            };
            let result = client
                .call_tool(CallToolRequestParams::new("get_repository_file").with_arguments(map))
                .await
                .expect("tools/call");
            let _ = client.cancel().await;
            result
        }
    };
    let alice = call("alice-token").await;
    assert_eq!(ok(&alice)["content"], "the secret\n");
    // Now cached; bob's own request is still made, answered "not found", and nothing leaks.
    let bob = call("bob-token").await;
    let e = err(&bob);
    assert!(
        e.starts_with("Project 'grp/proj' not found or inaccessible."),
        "{e}"
    );
    assert!(!serde_json::to_string(&bob).unwrap().contains("the secret"));
    let sent = gitlab.sent();
    assert_eq!(sent.graphql, 2);
    // Alice again: from the cache, her request without content.
    assert_eq!(ok(&call("alice-token").await)["content"], "the secret\n");
    assert_eq!(gitlab.sent().with_content, 1);
}

#[tokio::test]
async fn a_cache_hit_is_citable_and_content_free() {
    let gitlab = Gitlab::default();
    gitlab.put("a.txt", text(30, 10).into_bytes(), false);
    let mock = start(&gitlab).await;
    let server = spawn(&[], &[("GITLAB_URL", &mock.uri())]).await;
    let mut a = args("a.txt");
    a["limit"] = json!(10);
    let first = ok(&server.call(a.clone()).await);
    a["offset"] = json!(10);
    let second = ok(&server.call(a).await);
    // The second window came from the cache, after a request without content...
    assert_eq!((gitlab.sent().graphql, gitlab.sent().with_content), (2, 1));
    // ...and is cited at the same commit, with its own lines' anchor.
    let url = format!("{}/grp/proj/-/blob/{}/a.txt", mock.uri(), gitlab.head());
    assert_eq!(first["metadata"]["commit_sha"], gitlab.head());
    assert_eq!(second["metadata"]["commit_sha"], gitlab.head());
    assert_eq!(first["metadata"]["web_url"], format!("{url}#L1-10"));
    assert_eq!(second["metadata"]["web_url"], format!("{url}#L11-20"));
    server.stop().await;
}

#[tokio::test]
async fn if_none_match_costs_one_content_free_request_when_unchanged() {
    let gitlab = Gitlab::default();
    let file = text(30, 10);
    gitlab.put("a.txt", file.clone().into_bytes(), false);
    let held = git_blob_id(file.as_bytes());
    let mock = start(&gitlab).await;
    // A fresh server (nothing cached): one request, without content, and no window.
    let server = spawn(&[], &[("GITLAB_URL", &mock.uri())]).await;
    let mut a = args("a.txt");
    a["if_none_match"] = json!(held);
    let out = ok(&server.call(a.clone()).await);
    assert_eq!((gitlab.sent().graphql, gitlab.sent().with_content), (1, 0));
    assert_eq!(out.get("content"), None);
    let url = format!("{}/grp/proj/-/blob/{}/a.txt", mock.uri(), gitlab.head());
    assert_eq!(
        out["metadata"],
        json!({"size_bytes": file.len(), "blob_id": held, "commit_sha": gitlab.head(),
               "web_url": url, "unchanged": true})
    );
    assert_eq!(
        out["system_instruction"],
        format!(
            "The file at ref 'main' (commit {}) is unchanged since blob {}; the content you hold is current.",
            &gitlab.head()[..12],
            &held[..12]
        )
    );
    // After a read has cached it, an unchanged answer has the window's metadata too, and
    // still costs one request without content.
    ok(&server.call(args("a.txt")).await);
    let before = gitlab.sent();
    a["limit"] = json!(5);
    a["if_none_match"] = json!(held.to_uppercase());
    let out = ok(&server.call(a.clone()).await);
    let after = gitlab.sent();
    assert_eq!(
        (
            after.graphql - before.graphql,
            after.with_content - before.with_content,
            after.rest
        ),
        (1, 0, 0)
    );
    assert_eq!(out.get("content"), None);
    assert_eq!(out["metadata"]["unchanged"], true);
    assert_eq!(
        out["metadata"]["returned_lines"],
        json!({"start": 1, "end": 5})
    );
    assert_eq!(out["metadata"]["total_lines"], 30);
    assert_eq!(out["metadata"]["web_url"], format!("{url}#L1-5"));
    server.stop().await;
}

#[tokio::test]
async fn if_none_match_of_an_older_blob_gets_the_normal_answer() {
    let gitlab = Gitlab::default();
    let old = b"one\ntwo\n".to_vec();
    gitlab.put("a.txt", old.clone(), false);
    let mock = start(&gitlab).await;
    let server = spawn(&[], &[("GITLAB_URL", &mock.uri())]).await;
    let old_commit = gitlab.head();
    // The branch moves before the caller re-reads with the blob it holds.
    gitlab.put("a.txt", b"ONE\nTWO\n".to_vec(), false);
    let mut a = args("a.txt");
    a["if_none_match"] = json!(git_blob_id(&old));
    let out = ok(&server.call(a).await);
    assert_eq!(out["content"], "ONE\nTWO\n");
    assert!(out["metadata"].get("unchanged").is_none(), "{out}");
    assert_eq!(out["metadata"]["blob_id"], git_blob_id(b"ONE\nTWO\n"));
    assert_eq!(out["metadata"]["commit_sha"], gitlab.head());
    assert_ne!(out["metadata"]["commit_sha"], json!(old_commit));
    // Asked without content first (the caller said what it holds), then with content.
    let sent = gitlab.sent();
    assert_eq!((sent.graphql, sent.with_content), (2, 1));
    server.stop().await;
}
