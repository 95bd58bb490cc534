//! Paging a file for the price of one download (issue 9), and the cache's integrity (issue 20),
//! end to end: the real binary over MCP against the GitLab stand-in of
//! `standin/src/gitlab/` (`Gitlab`), which answers like GitLab, counts every request and byte it
//! sends, and bends its answers the way networks and proxies do.

use crate::support::gitlab;
use crate::support::gitlab_mock;
use crate::support::http_server;
use crate::support::mcp;

use gitlab::{Access, Bent, BentText, Gitlab, hex, secret_location};
use gitlab_mock::git_blob_id;
use mcp::{err, ok, spawn};
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

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
    let mock = gitlab.start().await;
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
    let mock = gitlab.start().await;
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
    let mock = gitlab.start().await;
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
    let mock = gitlab.start().await;
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
    let mock = gitlab.start().await;
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
    // Known binary, but not proven (the object was not hashed whole): asked again, its first
    // bytes are downloaded again, and the verdict is the same.
    let rest = gitlab.sent().rest;
    let e = err(&server.call(args("files/blob.iso")).await);
    assert!(e.contains("stored in LFS"), "{e}");
    assert_eq!(gitlab.sent().rest, rest + 1);
    server.stop().await;
}

/// Checks one bent REST body of each kind is retried into the blob, two are an error naming
/// the blob, and nothing bent is served or cached.
#[tokio::test]
async fn rest_bodies_that_are_not_the_blob_are_retried_once_never_served_never_cached() {
    let gitlab = Gitlab::default();
    let mock = gitlab.start().await;
    let server = spawn(&[], &[("GITLAB_URL", &mock.uri())]).await;
    for (i, how) in [Bent::Short, Bent::Long, Bent::Altered, Bent::Binary]
        .into_iter()
        .enumerate()
    {
        // GraphQL sends half of each file: not the blob by its size, so it is read over REST.
        for (lines, path, bodies) in [
            (3_000, "once.txt", vec![how]),
            (3_001, "twice.txt", vec![how, how]),
        ] {
            let file = text(lines, 40 + i);
            let oid = git_blob_id(file.as_bytes());
            let path = format!("{i}-{path}");
            gitlab.put(&path, file.clone().into_bytes(), false);
            *gitlab.texts.lock().unwrap() = vec![BentText::Short];
            *gitlab.rest_bodies.lock().unwrap() = bodies.clone();
            let rest = gitlab.sent().rest;
            let result = server.call(args(&path)).await;
            assert!(!serde_json::to_string(&result).unwrap().contains("POISONED"));
            assert_eq!(gitlab.sent().rest, rest + 2, "{how:?}: one retry");
            if bodies.len() == 1 {
                assert_eq!(ok(&result)["content"], file[..500 * (40 + i)], "{how:?}");
                continue;
            }
            let e = err(&result);
            let blob = format!("GitLab's answer did not match blob {oid} of '{path}': ");
            assert!(e.starts_with(&blob), "{how:?}: {e}");
            // Nothing was cached: the next call downloads it again, and gets the blob.
            *gitlab.texts.lock().unwrap() = vec![BentText::Short];
            let out = ok(&server.call(args(&path)).await);
            assert_eq!(out["content"], file[..500 * (40 + i)]);
            assert_eq!(gitlab.sent().rest, rest + 3);
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn past_the_read_limit_an_altered_body_is_retried_into_the_blob() {
    let gitlab = Gitlab::default();
    let file = text(120_000, 100);
    gitlab.put("huge.log", file.clone().into_bytes(), false);
    let mock = gitlab.start().await;
    let server = spawn(&[], &[("GITLAB_URL", &mock.uri())]).await;
    *gitlab.rest_bodies.lock().unwrap() = vec![Bent::Altered];
    let mut tail = args("huge.log");
    tail["offset"] = json!(119_999);
    let out = ok(&server.call(tail).await);
    assert_eq!(out["metadata"]["total_lines"], 120_000);
    assert_eq!(out["content"], &file[file.len() - 100..]);
    assert_eq!(gitlab.sent().rest, 2);
    // The first line of the cached blob is the blob's, not the altered body's.
    let out = ok(&server.call(args("huge.log")).await);
    assert!(out["content"].as_str().unwrap().starts_with(&file[..100]));
    assert_eq!(gitlab.sent().rest, 2);
    server.stop().await;
}

#[tokio::test]
async fn graphql_verdicts_are_not_sticky_and_do_not_overwrite_proven_content() {
    let gitlab = Gitlab::default();
    let file = text(300, 30);
    gitlab.put("a.txt", file.clone().into_bytes(), false);
    gitlab.put("copy-of-a.txt", file.clone().into_bytes(), false);
    gitlab.put("b.txt", text(200, 30).into_bytes(), false);
    let mock = gitlab.start().await;
    let server = spawn(&[], &[("GITLAB_URL", &mock.uri())]).await;
    // One answer whose rawTextBlob is null: that call is told the file is binary…
    *gitlab.texts.lock().unwrap() = vec![BentText::Null];
    let e = err(&server.call(args("b.txt")).await);
    assert!(e.contains("is binary"), "{e}");
    // …and the next is not: the verdict was not kept.
    assert_eq!(
        ok(&server.call(args("b.txt")).await)["metadata"]["total_lines"],
        200
    );
    assert_eq!(gitlab.sent().with_content, 2);
    // a.txt is cached, proven by its size; an answer calling the same blob binary (under
    // another path) is outweighed by it.
    ok(&server.call(args("a.txt")).await);
    *gitlab.texts.lock().unwrap() = vec![BentText::Null];
    let out = ok(&server.call(args("copy-of-a.txt")).await);
    assert_eq!(out["metadata"]["total_lines"], 300);
    assert_eq!(out["metadata"]["blob_id"], git_blob_id(file.as_bytes()));
    assert_eq!(gitlab.sent().rest, 0);
    server.stop().await;
}

#[tokio::test]
async fn lfs_objects_are_hashed_and_a_missing_one_is_a_permanent_error() {
    let gitlab = Gitlab::default();
    let csv = "id,name\n1,alpha\n2,beta\n".repeat(100);
    gitlab.put("data/table.csv", csv.clone().into_bytes(), true);
    let sha = hex(&Sha256::digest(csv.as_bytes()));
    let mock = gitlab.start().await;
    let server = spawn(&[], &[("GITLAB_URL", &mock.uri())]).await;
    // Altered twice: an error naming the object; nothing kept.
    *gitlab.rest_bodies.lock().unwrap() = vec![Bent::Altered, Bent::Altered];
    let e = err(&server.call(args("data/table.csv")).await);
    let object = format!("GitLab's answer did not match the LFS object {sha} of 'data/table.csv'");
    assert!(e.starts_with(&object), "{e}");
    assert_eq!(gitlab.sent().rest, 2);
    // GitLab without the object serves its pointer: said so, not retried, not "call again".
    *gitlab.rest_bodies.lock().unwrap() = vec![Bent::Pointer];
    let e = err(&server.call(args("data/table.csv")).await);
    assert!(
        e.contains("does not have its LFS object") && e.contains("will not help"),
        "{e}"
    );
    assert!(!e.contains("sha256:"), "{e}");
    assert_eq!(gitlab.sent().rest, 3);
    // Not found by the raw endpoint: worded for an LFS object too.
    *gitlab.rest_faults.lock().unwrap() = vec![404];
    let e = err(&server.call(args("data/table.csv")).await);
    let nothing = format!("found nothing for the LFS object {sha} of 'data/table.csv'");
    assert!(e.contains(&nothing), "{e}");
    assert_eq!(gitlab.sent().rest, 4);
    // The LFS route follows one redirect to object storage (issue 25), without credentials;
    // the storage is named without its user info and query, cut.
    *gitlab.rest_bodies.lock().unwrap() = vec![Bent::Redirect];
    let result = server.call(args("data/table.csv")).await;
    let e = err(&result);
    assert!(
        e.contains("object storage") && e.contains("(https://elsewhere.example/very/"),
        "{e}"
    );
    assert!(!e.contains("GITLAB_URL") && !e.contains("robot"), "{e}");
    let everything = serde_json::to_string(&result).unwrap();
    assert!(
        !everything.contains("hunter2") && !everything.contains("SECRET-TOKEN"),
        "{e}"
    );
    assert!(
        !e.contains(&secret_location()[40..]),
        "the Location is cut: {e}"
    );
    assert_eq!(gitlab.sent().rest, 5);
    // A good answer at last: the object, once.
    assert_eq!(
        ok(&server.call(args("data/table.csv")).await)["metadata"]["total_lines"],
        300
    );
    assert_eq!(gitlab.sent().rest, 6);
    server.stop().await;
}

#[tokio::test]
async fn concurrent_first_reads_download_a_blob_once() {
    let gitlab = Gitlab::default();
    let file = text(3_000, 40);
    gitlab.put("shared.rs", file.into_bytes(), false);
    let huge = text(120_000, 100);
    gitlab.put("huge.log", huge.into_bytes(), false);
    let mock = gitlab.start().await;
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
    let mock = gitlab.start().await;
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
    let mock = gitlab.start().await;
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
    let file = "line\n".repeat(10);
    // A 20 MiB file of which GraphQL sent only these 50 bytes: any window past them needs REST.
    let mut node = gitlab_mock::text_node("cut.log", &file);
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
        access: Access::Only("alice-token".into()),
        ..Gitlab::default()
    };
    gitlab.put("secret.txt", b"the secret\n".to_vec(), false);
    let mock = gitlab.start().await;
    let server =
        http_server::HttpServer::start(&mock.uri(), &["--stateless", "--token-from-request"], None);
    let call = |token: &'static str| call_as(server.mcp(), token, "secret.txt");
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

/// One `tools/call` over HTTP with `token`, reading `path`.
async fn call_as(url: String, token: &str, path: &str) -> rmcp::model::CallToolResult {
    let client =
        http_server::mcp_client(&url, &[("authorization", &format!("Bearer {token}"))]).await;
    let Value::Object(map) = args(path) else {
        unreachable!()
    };
    let result = client
        .call_tool(CallToolRequestParams::new("get_repository_file").with_arguments(map))
        .await
        .expect("tools/call");
    let _ = client.cancel().await;
    result
}

#[tokio::test]
async fn a_caller_without_access_never_waits_on_the_owners_read() {
    // The owner's answer takes an hour; the other caller's is immediate and says "no".
    let gitlab = Gitlab {
        access: Access::Only("owner-token".into()),
        slow: Some(("owner-token".into(), std::time::Duration::from_secs(3600))),
        ..Gitlab::default()
    };
    gitlab.put("private.txt", b"the secret\n".to_vec(), false);
    let mock = gitlab.start().await;
    let server = http_server::HttpServer::start(
        &mock.uri(),
        &[
            "--stateless",
            "--token-from-request",
            "--request-timeout",
            "3000",
        ],
        None,
    );
    let owner = tokio::spawn(call_as(server.mcp(), "owner-token", "private.txt"));
    // The owner's first read is in flight (its request is at GitLab) before the other asks.
    while gitlab.sent().graphql == 0 {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    // Had it waited on the owner's read, this would not come back within the hour.
    let guard = std::time::Duration::from_secs(60);
    for token in ["other-token", "not-a-token"] {
        let result = tokio::time::timeout(guard, call_as(server.mcp(), token, "private.txt"))
            .await
            .expect("answered while the owner's read is still in flight");
        let e = err(&result);
        assert!(
            e.starts_with("Project 'grp/proj' not found or inaccessible."),
            "{e}"
        );
    }
    assert!(!owner.is_finished());
    owner.abort();
    assert_eq!(gitlab.sent().graphql, 3);
}

#[tokio::test]
async fn waiters_of_a_stalled_download_share_its_one_failure_and_the_next_call_starts_afresh() {
    let gitlab = Gitlab::default();
    let file = text(120_000, 100);
    gitlab.put("huge.log", file.clone().into_bytes(), false);
    let mock = gitlab.start().await;
    let server = spawn(&["--request-timeout", "15"], &[("GITLAB_URL", &mock.uri())]).await;
    *gitlab.rest_bodies.lock().unwrap() = vec![Bent::Stalled];
    let calls = (0..4).map(|i| {
        let mut tail = args("huge.log");
        tail["offset"] = json!(119_000 + i * 100);
        server.call(tail)
    });
    for result in futures::future::join_all(calls).await {
        let e = err(&result);
        assert!(
            e.contains("did not answer in time") && e.contains("GITLAB_REQUEST_TIMEOUT"),
            "{e}"
        );
    }
    // One download for the four: its one timeout was handed to every waiter.
    assert_eq!(gitlab.sent().rest, 1);
    assert_eq!(gitlab.sent().with_content, 1);
    // The failure is not kept: the next call downloads again, and gets the file.
    let mut tail = args("huge.log");
    tail["offset"] = json!(119_999);
    let out = ok(&server.call(tail).await);
    assert_eq!(out["content"], &file[file.len() - 100..]);
    assert_eq!(gitlab.sent().rest, 2);
    server.stop().await;
}

/// Whether a call's hint says the file changed since the caller's previous window.
fn says_changed(result: &rmcp::model::CallToolResult) -> bool {
    ok(result)["system_instruction"]
        .as_str()
        .is_some_and(|s| s.contains("since your previous window"))
}

/// One window of `a.txt` by `client`.
async fn window_of_a(
    client: &rmcp::service::RunningService<rmcp::RoleClient, rmcp::model::ClientConfig>,
) -> rmcp::model::CallToolResult {
    let Value::Object(map) = args("a.txt") else {
        unreachable!()
    };
    client
        .call_tool(CallToolRequestParams::new("get_repository_file").with_arguments(map))
        .await
        .expect("tools/call")
}

#[tokio::test]
async fn the_file_changed_hint_never_attributes_another_clients_reads() {
    let gitlab = Gitlab::default();
    let mock = gitlab.start().await;
    let change = |n: usize| gitlab.put("a.txt", format!("version {n}\n").into_bytes(), false);
    // (mode flags, whether a client is told about its own earlier window)
    let modes: [(&[&str], bool); 3] = [
        // One shared server token, no sessions: nobody can be told apart, so no hint at all.
        (&["--stateless"], false),
        // Each client its own token.
        (&["--stateless", "--token-from-request"], true),
        // Sessions, the server's token.
        (&[], true),
    ];
    for (n, (flags, own_hint)) in modes.into_iter().enumerate() {
        change(10 * n);
        let server = http_server::HttpServer::start(&mock.uri(), flags, Some("server-token"));
        let url = server.mcp();
        let alice = http_server::mcp_client(&url, &[("authorization", "Bearer alice")]).await;
        let bob = http_server::mcp_client(&url, &[("authorization", "Bearer bob")]).await;
        assert!(!says_changed(&window_of_a(&alice).await), "{flags:?}");
        change(10 * n + 1);
        // Bob never read a.txt: nothing changed since *his* previous window.
        assert!(!says_changed(&window_of_a(&bob).await), "{flags:?}: bob");
        // Alice read the older blob: told so, where she can be told apart.
        assert_eq!(
            says_changed(&window_of_a(&alice).await),
            own_hint,
            "{flags:?}: alice"
        );
        let _ = alice.cancel().await;
        let _ = bob.cancel().await;
    }
}

#[tokio::test]
async fn a_body_that_stops_coming_is_a_timeout_worded_as_one() {
    // GraphQL names a 20 MiB blob and sends 50 bytes of it: not GitLab's cut, so the blob is
    // read over REST, whose body stops after its first bytes.
    let mut node = gitlab_mock::text_node("cut.log", &"line\n".repeat(10));
    node["rawSize"] = json!("20971520");
    let answer =
        serde_json::to_vec(&gitlab_mock::project_answer("grp/proj", 42, vec![node])).unwrap();
    let (url, stalled) = gitlab_mock::body_stalling_gitlab(answer).await;
    let server = spawn(&["--request-timeout", "2"], &[("GITLAB_URL", &url)]).await;
    let e = err(&server.call(args("cut.log")).await);
    assert!(
        e.contains("did not answer in time") && e.contains("GITLAB_REQUEST_TIMEOUT"),
        "{e}"
    );
    assert_eq!(*stalled.lock().unwrap(), 1);
    server.stop().await;
}

/// An LFS download is held to the pointer's size (`rawSize`): bytes past it are not the
/// object, whatever they hash to (issue 35; before, a 10-byte pointer's 2,400-byte object was
/// served, and one past the limit reported as that large).
#[tokio::test]
async fn an_lfs_download_longer_than_its_pointer_says_is_not_the_object() {
    let gitlab = Gitlab::default();
    let csv = "id,name\n1,alpha\n".repeat(150); // 2,400 bytes
    gitlab.put("small.csv", csv.clone().into_bytes(), true);
    gitlab.put("big.csv", csv.repeat(2).into_bytes(), true);
    gitlab.put("true.csv", csv.clone().into_bytes(), true);
    for path in ["small.csv", "big.csv"] {
        gitlab.raw_sizes.lock().unwrap().insert(path.into(), 10);
    }
    let mock = gitlab.start().await;
    let server = spawn(
        &["--max-file-bytes", "3000"],
        &[("GITLAB_URL", &mock.uri())],
    )
    .await;
    for path in ["small.csv", "big.csv"] {
        let e = err(&server.call(args(path)).await);
        assert!(
            e.starts_with("GitLab's answer did not match the LFS object"),
            "{e}"
        );
        assert!(e.contains("longer than the 10 bytes"), "{e}");
    }
    // A pointer that tells the truth reads as before.
    let out = ok(&server.call(args("true.csv")).await);
    assert_eq!(out["metadata"]["size_bytes"], csv.len());
    server.stop().await;
}

// ---- searches (issue 17): the whole file, for the price of a read ------------------------------

#[tokio::test]
async fn a_search_reads_past_the_read_limit_and_then_costs_no_content() {
    let gitlab = Gitlab::default();
    let lines = 110_000;
    let mut file = text(lines, 100); // 11,000,000 bytes: GraphQL returns the first 10 MiB
    file.push_str("fn needle() {}\n");
    gitlab.put("huge.rs", file.clone().into_bytes(), false);
    let mock = gitlab.start().await;
    let server = spawn(&[], &[("GITLAB_URL", &mock.uri())]).await;
    // A window first: only the 10 MiB part is read (and cached as such).
    let out = ok(&server.call(args("huge.rs")).await);
    assert_eq!(out["metadata"]["returned_lines"]["end"], 500);
    assert_eq!(gitlab.sent().rest, 0);
    // The search needs the whole file: one REST download by oid, and the match past the cut.
    let mut find = args("huge.rs");
    find["pattern"] = json!(r"^fn \w+\(");
    let out = ok(&server.call(find.clone()).await);
    let needle = lines as u64 + 1;
    assert_eq!(
        out["metadata"]["matches"],
        json!({"total": 1, "returned": 1, "lines": [needle]})
    );
    assert_eq!(out["metadata"]["total_lines"], needle);
    assert_eq!(out["metadata"]["truncated"], false);
    assert!(out.get("system_instruction").is_none(), "{out}");
    // Two lines of context before it (line n holds n - 1, zero-padded).
    assert_eq!(
        out["content"],
        format!(
            "{}-{:099}\n{}-{:099}\n{needle}:fn needle() {{}}\n",
            lines - 1,
            lines - 2,
            lines,
            lines - 1
        )
    );
    let sent = gitlab.sent();
    assert_eq!((sent.graphql, sent.with_content, sent.rest), (2, 1, 1));
    // Searching again, or reading a window, is one request without content.
    let out = ok(&server.call(find).await);
    assert_eq!(out["metadata"]["matches"]["total"], 1);
    let sent = gitlab.sent();
    assert_eq!((sent.graphql, sent.with_content, sent.rest), (3, 1, 1));
    server.stop().await;
}

#[tokio::test]
async fn a_cache_hit_is_citable_and_content_free() {
    let gitlab = Gitlab::default();
    gitlab.put("a.txt", text(30, 10).into_bytes(), false);
    let mock = gitlab.start().await;
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
    let mock = gitlab.start().await;
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
async fn a_search_after_a_read_of_the_same_file_is_one_content_free_request() {
    let gitlab = Gitlab::default();
    let file = text(2_400, 20);
    gitlab.put("src/big.rs", file.into_bytes(), false);
    let mock = gitlab.start().await;
    let server = spawn(&[], &[("GITLAB_URL", &mock.uri())]).await;
    ok(&server.call(args("src/big.rs")).await);
    let after_read = gitlab.sent();
    assert_eq!((after_read.graphql, after_read.with_content), (1, 1));
    let mut find = args("src/big.rs");
    find["pattern"] = json!("^0*2399$");
    find["ignore_case"] = json!(true);
    let out = ok(&server.call(find).await);
    assert_eq!(out["metadata"]["matches"]["lines"], json!([2400]));
    let sent = gitlab.sent();
    assert_eq!((sent.graphql, sent.with_content, sent.rest), (2, 1, 0));
    // The content-free answer is a few hundred bytes.
    assert!(
        sent.bytes - after_read.bytes < 1_000,
        "{} bytes",
        sent.bytes - after_read.bytes
    );
    server.stop().await;
}

#[tokio::test]
async fn if_none_match_of_an_older_blob_gets_the_normal_answer() {
    let gitlab = Gitlab::default();
    let old = b"one\ntwo\n".to_vec();
    gitlab.put("a.txt", old.clone(), false);
    let mock = gitlab.start().await;
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
