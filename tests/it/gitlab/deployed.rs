//! GitLab as it is deployed (issue 25), end to end: the real binary over MCP against the
//! GitLab stand-in (`standin/src/gitlab/`) told to be deployed, which compresses like Omnibus nginx, keeps LFS
//! objects on an S3-like storage that refuses a second credential, applies the 20 MiB rule to
//! full sizes, counts query complexity per path, and can be an older GitLab without `RefType`,
//! `permalinkPath`, `Repository.commit` and Duo exclusion settings.

use crate::support::gitlab;
use crate::support::gitlab_mock;
use crate::support::mcp;

use gitlab::{Gitlab, Storage};
use mcp::{err, ok, spawn};
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;

const MAIN: &str = "refs/heads/main";
const TOKEN: &str = "glpat-deployed-test-token";

/// Source-like text of about `bytes` bytes.
fn source(bytes: usize) -> String {
    let mut out = String::new();
    let mut i = 0;
    while out.len() < bytes {
        out.push_str(&format!(
            "    fn handler_{i}(&self, request: &Request) -> Result<Response, Error> {{\n        let value = self.lookup(request.key({i}))?;\n        Ok(Response::new(value))\n    }}\n"
        ));
        i += 1;
    }
    out
}

fn read(path: &str) -> Value {
    json!({"project_id": "grp/proj", "file_path": path, "ref": "main"})
}

async fn server_for(mock: &wiremock::MockServer, args: &[&str]) -> mcp::Server {
    spawn(
        args,
        &[("GITLAB_URL", &mock.uri()), ("GITLAB_TOKEN", TOKEN)],
    )
    .await
}

#[tokio::test]
async fn answers_come_gzip_compressed_and_are_read_decoded() {
    let gitlab = Gitlab {
        gzip: true,
        ..Gitlab::default()
    };
    let text = source(600_000);
    gitlab.put_at(MAIN, "src/big.rs", text.clone().into_bytes(), false);
    let mock = gitlab.start().await;
    let server = server_for(&mock, &[]).await;
    let out = ok(&server.call(read("src/big.rs")).await);
    let window = out["content"].as_str().unwrap();
    assert!(!window.is_empty() && text.starts_with(window));
    // The blob id is the decoded bytes' (the whole file came in the one answer).
    assert_eq!(
        out["metadata"]["blob_id"],
        json!(gitlab_mock::git_blob_id(text.as_bytes()))
    );
    let log = gitlab.log();
    assert!(
        log.wire * 10 < text.len() * 3,
        "{} bytes on the wire for a {}-byte file",
        log.wire,
        text.len()
    );
    assert!(log.plain > text.len(), "{log:?}");
    server.stop().await;
}

#[tokio::test]
async fn a_file_past_the_cut_is_verified_on_its_decoded_bytes() {
    let gitlab = Gitlab {
        gzip: true,
        ..Gitlab::default()
    };
    // 10.5 MiB: GraphQL sends the first 10 MiB, REST the whole blob (compressed).
    let line = "2026-12-01T20:00:00Z INFO request served in 3 ms\n";
    let text = line.repeat(10 * 1024 * 1024 / line.len() + 20_000);
    gitlab.put_at(MAIN, "logs/app.log", text.clone().into_bytes(), false);
    let mock = gitlab.start().await;
    let server = server_for(&mock, &[]).await;
    let total = text.lines().count();
    let mut args = read("logs/app.log");
    args["offset"] = json!(total - 3);
    let out = ok(&server.call(args).await);
    assert_eq!(out["content"].as_str().unwrap(), line.repeat(3));
    assert_eq!(out["metadata"]["total_lines"], json!(total));
    let log = gitlab.log();
    assert_eq!(log.rest.len(), 1, "{:?}", log.rest);
    assert!(log.wire * 5 < text.len(), "{} bytes on the wire", log.wire);
    server.stop().await;
}

#[tokio::test]
async fn a_small_compressed_body_that_expands_past_the_maximum_is_refused() {
    let gitlab = Gitlab {
        gzip: true,
        bomb: true,
        ..Gitlab::default()
    };
    // An LFS file of 1,000 bytes, whose download expands to 64 MiB.
    gitlab.put_at(MAIN, "data/small.txt", vec![b'x'; 1_000], true);
    let mock = gitlab.start().await;
    let server = server_for(&mock, &["--max-file-bytes", "1000000"]).await;
    let e = err(&server.call(read("data/small.txt")).await);
    // Refused one byte past the pointer's size (issue 35), long before the maximum: a body
    // longer than the object is not the object.
    assert!(
        e.starts_with("GitLab's answer did not match the LFS object")
            && e.contains("longer than the 1000 bytes"),
        "{e}"
    );
    let log = gitlab.log();
    assert!(log.wire < 1_000_000, "{} bytes sent", log.wire);
    server.stop().await;
}

/// An LFS file on object storage, and the server with its stderr.
async fn lfs_on_storage(
    expired: bool,
) -> (
    Gitlab,
    Storage,
    (wiremock::MockServer, wiremock::MockServer),
    String,
) {
    let (storage, storage_server) = Storage::start(expired).await;
    let gitlab = Gitlab {
        storage: Some(storage.clone()),
        ..Gitlab::default()
    };
    let text = source(5_000);
    gitlab.put_at(MAIN, "assets/model.txt", text.clone().into_bytes(), true);
    let mock = gitlab.start().await;
    (gitlab, storage, (mock, storage_server), text)
}

#[tokio::test]
async fn lfs_from_object_storage_is_fetched_without_the_token_and_verified() {
    let (gitlab, storage, (mock, _s), text) = lfs_on_storage(false).await;
    let (server, mut stderr) = mcp::spawn_with_stderr(
        &[],
        &[
            ("GITLAB_URL", &mock.uri()),
            ("GITLAB_TOKEN", TOKEN),
            ("GITLAB_FILE_MCP_LOG", "info"),
        ],
    )
    .await;
    let out = ok(&server.call(read("assets/model.txt")).await);
    let window = out["content"].as_str().unwrap();
    assert!(!window.is_empty() && text.starts_with(window), "{out}");
    let seen = storage.seen();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(!seen[0].credential && seen[0].signed, "{seen:?}");
    assert!(gitlab.log().rest[0].contains("lfs=true"));
    // Read again: from the cache, no second download.
    ok(&server.call(read("assets/model.txt")).await);
    assert_eq!(storage.seen().len(), 1);
    server.stop().await;
    let mut logged = String::new();
    stderr.read_to_string(&mut logged).await.unwrap();
    assert!(logged.contains("/lfs-objects/"), "{logged}");
    assert!(!logged.contains("STORAGE-SIGNATURE-SECRET"), "{logged}");
    assert!(!logged.contains(TOKEN), "{logged}");
}

#[tokio::test]
async fn storage_bytes_that_are_not_the_object_are_refused_and_never_cached() {
    let (_gitlab, storage, (mock, _s), _text) = lfs_on_storage(false).await;
    for bytes in storage.objects.lock().unwrap().values_mut() {
        bytes[0] = b'#';
    }
    let server = server_for(&mock, &[]).await;
    for _ in 0..2 {
        let e = err(&server.call(read("assets/model.txt")).await);
        assert!(!e.contains("GITLAB_URL"), "{e}");
    }
    // Refused both times (each call downloads twice: a mismatch is asked once more), so
    // downloaded again the second time: nothing was cached.
    assert_eq!(storage.seen().len(), 4);
    server.stop().await;
}

/// The object store streams far more than the pointer's size (issue 35: 1 GiB for a 92 KB
/// pointer was read up to --max-file-bytes and reported as the file's size); the download
/// stops one byte past the size and is refused as not the LFS object.
#[tokio::test]
async fn a_storage_body_longer_than_the_pointer_says_is_refused() {
    let (_gitlab, storage, (mock, _s), text) = lfs_on_storage(false).await;
    *storage.tail.lock().unwrap() = 8 << 20;
    let server = server_for(&mock, &[]).await;
    let e = err(&server.call(read("assets/model.txt")).await);
    assert!(
        e.starts_with("GitLab's answer did not match the LFS object"),
        "{e}"
    );
    assert!(
        e.contains(&format!("longer than the {} bytes", text.len())),
        "{e}"
    );
    assert!(!e.contains("larger than this server reads"), "{e}");
    server.stop().await;
}

/// A 5xx of the object store, still failing after the retries, is the object store's, not
/// GitLab's ("GitLab answered HTTP 500 … GitLab may be down" before).
#[tokio::test]
async fn a_failing_object_store_is_named_as_such() {
    let (_gitlab, storage, (mock, _s), _text) = lfs_on_storage(false).await;
    *storage.failing.lock().unwrap() = Some(500);
    let server = server_for(&mock, &[]).await;
    let e = err(&server.call(read("assets/model.txt")).await);
    assert!(
        e.starts_with("The object storage GitLab sent the LFS object "),
        "{e}"
    );
    assert!(!e.contains("of the LFS object"), "{e}");
    assert!(e.contains("answered HTTP 500"), "{e}");
    assert!(!e.contains("GitLab may be down"), "{e}");
    server.stop().await;
}

/// An object store that sends its headers and then only the first bytes of the object (issue
/// 50: a store trickling 1 byte/s was reported as "GitLab at … did not answer in time").
async fn stalling_storage(object_len: usize) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let uri = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = vec![0u8; 65536];
                let _ = socket.read(&mut request).await;
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: {object_len}\r\n\r\nfn"
                );
                let _ = socket.write_all(head.as_bytes()).await;
                tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
            });
        }
    });
    uri
}

#[tokio::test]
async fn a_slow_object_store_is_named_as_such() {
    let text = source(5_000);
    let storage = Storage {
        uri: stalling_storage(text.len()).await,
        ..Storage::default()
    };
    let gitlab = Gitlab {
        storage: Some(storage),
        ..Gitlab::default()
    };
    gitlab.put_at(MAIN, "assets/model.txt", text.into_bytes(), true);
    let mock = gitlab.start().await;
    let server = server_for(&mock, &["--request-timeout", "1"]).await;
    let e = err(&server.call(read("assets/model.txt")).await);
    assert!(
        e.starts_with("The object storage GitLab sent the LFS object "),
        "{e}"
    );
    assert!(e.contains("did not send it in time"), "{e}");
    assert!(
        e.contains("/lfs-objects/") && !e.contains("SIGNATURE-SECRET"),
        "{e}"
    );
    assert!(!e.contains("GitLab at"), "{e}");
    server.stop().await;
}

#[tokio::test]
async fn an_expired_storage_link_is_its_own_error() {
    let (_gitlab, storage, (mock, _s), _text) = lfs_on_storage(true).await;
    let server = server_for(&mock, &[]).await;
    let e = err(&server.call(read("assets/model.txt")).await);
    assert!(e.contains("HTTP 403") && e.contains("expired"), "{e}");
    assert!(e.contains("/lfs-objects/"), "{e}");
    assert!(
        !e.contains("GITLAB_URL") && !e.contains("SIGNATURE-SECRET"),
        "{e}"
    );
    assert!(!e.contains("rejected the token"), "{e}");
    assert_eq!(storage.seen().len(), 1);
    server.stop().await;
}

#[tokio::test]
async fn a_missing_storage_object_is_its_own_error() {
    let (_gitlab, storage, (mock, _s), _text) = lfs_on_storage(false).await;
    storage.objects.lock().unwrap().clear();
    let server = server_for(&mock, &[]).await;
    let e = err(&server.call(read("assets/model.txt")).await);
    assert!(
        e.contains("HTTP 404") && e.contains("no such object"),
        "{e}"
    );
    server.stop().await;
}

/// An older GitLab with a branch and a tag both named `v1`.
async fn old_gitlab() -> (Gitlab, wiremock::MockServer) {
    let gitlab = Gitlab {
        old: true,
        ..Gitlab::default()
    };
    gitlab.put_at(
        "refs/heads/v1",
        "dir/a.txt",
        b"on the branch\n".to_vec(),
        false,
    );
    gitlab.put_at("refs/tags/v1", "dir/a.txt", b"on the tag\n".to_vec(), false);
    gitlab.put_at(MAIN, "dir/a.txt", b"on main\nsecond\n".to_vec(), false);
    gitlab.put_at(MAIN, "dir/b.txt", b"b on main\n".to_vec(), false);
    let mock = gitlab.start().await;
    (gitlab, mock)
}

#[tokio::test]
async fn an_older_gitlab_answers_reads_urls_misses_searches_and_batches() {
    let (gitlab, mock) = old_gitlab().await;
    let server = server_for(&mock, &[]).await;
    let by_url = |kind: &str| json!({"url": format!("{}/grp/proj/-/blob/v1/dir/a.txt?ref_type={kind}", mock.uri())});
    let branch = ok(&server.call(by_url("heads")).await);
    assert_eq!(branch["content"], "on the branch\n");
    let tag = ok(&server.call(by_url("tags")).await);
    assert_eq!(tag["content"], "on the tag\n");
    // Without a permalink the answer names no commit and no web URL.
    assert!(branch["metadata"].get("commit_sha").is_none(), "{branch}");
    let main = ok(&server.call(read("dir/a.txt")).await);
    assert_eq!(main["content"], "on main\nsecond\n");
    let mut search = read("dir/a.txt");
    search["pattern"] = json!("^second$");
    let found = ok(&server.call(search).await);
    assert!(
        found["content"].as_str().unwrap().contains("second"),
        "{found}"
    );
    let miss = err(&server.call(read("dir/c.txt")).await);
    assert!(miss.contains("dir/c.txt"), "{miss}");
    let batch = ok(&server
        .call_many(json!({"project_id": "grp/proj", "ref": "main", "files": [
            {"file_path": "dir/a.txt"}, {"file_path": "dir/b.txt"}]}))
        .await);
    let files = batch["files"].as_array().unwrap();
    assert_eq!(files[1]["content"], "b on main\n", "{batch}");
    // Each missing part was learned from one refusal, not once per call.
    let refused = gitlab.log().refused;
    assert!(refused.len() <= 4, "{refused:?}");
    let last = gitlab.log().graphql.last().unwrap().clone();
    assert!(
        !last["query"].as_str().unwrap().contains("efType"),
        "{last}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_costly_url_split_is_asked_in_smaller_requests_and_remembered() {
    // 10 + 14 per candidate: 8 candidates cost 122, past this instance's 100.
    let gitlab = Gitlab {
        complexity: Some((100, 14)),
        ..Gitlab::default()
    };
    let deep = "a/b/c/d/e/f/g/h/i/j.txt";
    gitlab.put_at(
        "refs/heads/a/b/c/d/e/f/g/h/i",
        "j.txt",
        b"deep\n".to_vec(),
        false,
    );
    let mock = gitlab.start().await;
    let server = server_for(&mock, &[]).await;
    let url = json!({"url": format!("{}/grp/proj/-/blob/{deep}", mock.uri())});
    let out = ok(&server.call(url.clone()).await);
    assert_eq!(out["content"], "deep\n");
    let refused = gitlab.log().refused;
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].contains("exceeds max complexity of 100"));
    // The smaller size is remembered: the next split is never refused.
    let mut again = url.clone();
    again["offset"] = json!(0);
    let other =
        json!({"url": format!("{}/grp/proj/-/blob/a/b/c/d/e/f/g/h/i/j.txt#L1", mock.uri())});
    ok(&server.call(other).await);
    assert_eq!(gitlab.log().refused.len(), 1);
    server.stop().await;
}

fn batch(paths: &[&str]) -> Value {
    let files: Vec<Value> = paths.iter().map(|p| json!({ "file_path": p })).collect();
    json!({"project_id": "grp/proj", "ref": "main", "files": files})
}

/// Every entry of a batch answered, with its first line.
fn first_lines(result: &rmcp::model::CallToolResult) -> Vec<String> {
    ok(result)["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let content = f["content"].as_str().unwrap_or_else(|| panic!("{f}"));
            content.lines().next().unwrap_or_default().to_string()
        })
        .collect()
}

/// `bytes` of text whose first line is `name`.
fn named_text(name: &str, bytes: usize) -> Vec<u8> {
    let mut text = format!("{name}\n").into_bytes();
    text.resize(bytes - 1, b'x');
    text.push(b'\n');
    text
}

#[tokio::test]
async fn files_too_large_together_by_full_size_are_asked_in_parts() {
    let gitlab = Gitlab::default();
    // 12 MB + 9.3 MB: their cut parts (10 MiB + 9.3 MB) fit 20 MiB, their full sizes do not.
    gitlab.put_at(MAIN, "big.log", named_text("big", 12_000_000), false);
    gitlab.put_at(MAIN, "mid.log", named_text("mid", 9_300_000), false);
    gitlab.put_at(MAIN, "small.txt", named_text("small", 100), false);
    let mock = gitlab.start().await;
    let server = server_for(&mock, &[]).await;
    let got = first_lines(
        &server
            .call_many(batch(&["big.log", "mid.log", "small.txt"]))
            .await,
    );
    assert_eq!(got, ["big", "mid", "small"]);
    let log = gitlab.log();
    let size_refusals = log
        .refused
        .iter()
        .filter(|r| r.contains("Max blobs size"))
        .count();
    // One refusal of the whole group; the parts packed by full size are never refused.
    assert_eq!(size_refusals, 1, "{:?}", log.refused);
    server.stop().await;
}

#[tokio::test]
async fn a_part_refused_under_another_versions_rule_is_halved_not_failed() {
    // An instance with a 1 MB cap: 20 MiB packing is not enough, halving is.
    let gitlab = Gitlab {
        cap: Some(1_000_000),
        ..Gitlab::default()
    };
    for name in ["a", "b", "c"] {
        gitlab.put_at(
            MAIN,
            &format!("{name}.txt"),
            named_text(name, 600_000),
            false,
        );
    }
    let mock = gitlab.start().await;
    let server = server_for(&mock, &[]).await;
    let got = first_lines(&server.call_many(batch(&["a.txt", "b.txt", "c.txt"])).await);
    assert_eq!(got, ["a", "b", "c"]);
    server.stop().await;
}

#[tokio::test]
async fn a_costly_batch_is_asked_in_smaller_requests_and_remembered() {
    // GitLab 18.4.2 counted about 14 per path: 20 paths cost 290, past 250.
    let gitlab = Gitlab {
        complexity: Some((250, 14)),
        ..Gitlab::default()
    };
    let names: Vec<String> = (0..20).map(|i| format!("f{i}.txt")).collect();
    for name in &names {
        gitlab.put_at(MAIN, name, named_text(name, 50), false);
    }
    let mock = gitlab.start().await;
    let server = server_for(&mock, &[]).await;
    let paths: Vec<&str> = names.iter().map(String::as_str).collect();
    let got = first_lines(&server.call_many(batch(&paths)).await);
    assert_eq!(got, names);
    assert_eq!(gitlab.log().refused.len(), 1, "{:?}", gitlab.log().refused);
    // Remembered: the same batch again (without content now) is not refused.
    first_lines(&server.call_many(batch(&paths)).await);
    assert_eq!(gitlab.log().refused.len(), 1, "{:?}", gitlab.log().refused);
    server.stop().await;
}
