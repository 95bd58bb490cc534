//! CPU-bound work off the async workers (issue 26), over HTTP against the real binary: two
//! heavy searches in flight while `/healthz` and a small read are answered within 1 s, and a
//! deadline (`--request-timeout-secs`) that stops a search's work, not just its answer (the
//! server's CPU time, read from `/proc`, stops growing).

use crate::support::gitlab_mock;
use crate::support::heavy_work;
use crate::support::http_server;

use std::time::{Duration, Instant};

use gitlab_mock::*;
use heavy_work::{HEAVY_PATTERN, cpu_ticks, gitlab_serving, heavy_text};
use http_server::{HttpServer as Server, http_client, mcp_client, text};
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use wiremock::MockServer;

const TOKEN: &str = "glpat-SERVER-ssssssssssssss";

async fn gitlab() -> MockServer {
    gitlab_serving(vec![
        text_node("big.txt", &heavy_text()),
        text_node("small.txt", "a\nb\n"),
    ])
    .await
}

fn call(path: &str, extra: Value) -> CallToolRequestParams {
    let mut args = json!({"project_id": "grp/proj", "file_path": path, "ref": "main"});
    for (k, v) in extra.as_object().unwrap() {
        args[k] = v.clone();
    }
    let Value::Object(map) = args else {
        unreachable!()
    };
    CallToolRequestParams::new("get_repository_file").with_arguments(map)
}

fn heavy() -> CallToolRequestParams {
    call(
        "big.txt",
        json!({"pattern": HEAVY_PATTERN, "max_chars": 200}),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn health_and_small_reads_are_answered_while_two_heavy_searches_run() {
    let gitlab = gitlab().await;
    let server = Server::start(&gitlab.uri(), &[], Some(TOKEN));
    let mut searches = Vec::new();
    for _ in 0..2 {
        let client = mcp_client(&server.mcp(), &[]).await;
        searches.push(tokio::spawn(async move {
            let result = client.call_tool(heavy()).await.expect("call");
            client.cancel().await.ok();
            result
        }));
    }
    let small = mcp_client(&server.mcp(), &[]).await;
    // Both searches have their text (GitLab answered them) and are searching it.
    http_server::wait_for_gitlab_requests(&gitlab, 2).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let started = Instant::now();
    let health = http_client()
        .get(format!("{}/healthz", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    let health_took = started.elapsed();
    let started = Instant::now();
    let read = small
        .call_tool(call("small.txt", json!({})))
        .await
        .expect("call");
    let read_took = started.elapsed();
    assert_ne!(read.is_error, Some(true), "{}", text(&read));
    assert!(
        searches.iter().all(|s| !s.is_finished()),
        "the heavy searches ended before the small calls were measured: the test proves nothing"
    );
    eprintln!("healthz {health_took:?}, small read {read_took:?} beside two heavy searches");
    assert!(health_took < Duration::from_secs(1), "{health_took:?}");
    assert!(read_took < Duration::from_secs(1), "{read_took:?}");
    // Their answers are not what is measured: leaving stops them.
    for search in searches {
        search.abort();
    }
    small.cancel().await.ok();
}

#[tokio::test]
async fn a_deadline_stops_the_work_of_a_search() {
    let gitlab = gitlab().await;
    let server = Server::start(&gitlab.uri(), &["--request-timeout-secs", "2"], Some(TOKEN));
    let client = mcp_client(&server.mcp(), &[]).await;
    let started = Instant::now();
    let result = client.call_tool(heavy()).await.expect("call");
    assert_eq!(result.is_error, Some(true));
    assert!(
        text(&result).contains("did not finish within 2 s"),
        "{}",
        text(&result)
    );
    // Past the deadline, the search's thread is free: the server's CPU time stops growing
    // (a tick is 10 ms; a search still running would add about 100 a second; the bound leaves room for a debug build finishing the GitLab answer it was parsing).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = cpu_ticks(server.pid());
    tokio::time::sleep(Duration::from_secs(1)).await;
    let burnt = cpu_ticks(server.pid()) - before;
    eprintln!(
        "answered after {:?}; {burnt} ticks of CPU in the second after",
        started.elapsed()
    );
    assert!(
        burnt < 50,
        "{burnt} ticks of CPU a second after the deadline"
    );
    client.cancel().await.ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_callers_heavy_calls_queue_behind_their_own() {
    // Issue 46: two heavy calls of one caller held both slots of the pool (2 cores), so every
    // other caller's work on a large file waited or timed out. Now a caller holds at most all
    // but one slot: another session's search of the same large file is answered while the
    // first session's three heavy searches are all still running or queued.
    let gitlab = gitlab().await;
    let server = Server::start(&gitlab.uri(), &[], Some(TOKEN));
    let heavy_client = mcp_client(&server.mcp(), &[]).await;
    let mut searches = Vec::new();
    for _ in 0..3 {
        let peer = heavy_client.peer().clone();
        searches.push(tokio::spawn(async move { peer.call_tool(heavy()).await }));
    }
    http_server::wait_for_gitlab_requests(&gitlab, 1).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let other = mcp_client(&server.mcp(), &[]).await;
    let light = call(
        "big.txt",
        json!({"pattern": "smörgåsbord", "max_chars": 200}),
    );
    let read = other.call_tool(light).await.expect("call");
    assert_ne!(read.is_error, Some(true), "{}", text(&read));
    assert!(
        searches.iter().all(|s| !s.is_finished()),
        "a heavy search ended before the other session's call was answered"
    );
    for search in searches {
        search.abort();
    }
    other.cancel().await.ok();
    heavy_client.cancel().await.ok();
}
