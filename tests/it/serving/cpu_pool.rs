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

/// The value of the counter `name` (without its prefix) in the server's `/metrics`.
async fn counter(server: &Server, name: &str) -> u64 {
    series(server, &format!("{name}_total")).await
}

/// The value of the series `name` (without its prefix, with its labels) in `/metrics`.
async fn series(server: &Server, name: &str) -> u64 {
    let page = server.metrics().await;
    let series = format!("gitlab_file_mcp_{name} ");
    page.lines()
        .find_map(|l| l.strip_prefix(series.as_str()))
        .unwrap_or_else(|| panic!("no {series}in\n{page}"))
        .trim()
        .parse()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_window_of_a_large_cached_file_never_waits_for_the_pool() {
    // Issue 46: with the pool held by heavy calls, a 2-line window of a large file waited
    // behind them (and timed out past a deadline). Here one session holds its slot with a
    // heavy search and queues a second, another session holds the other slot: the first
    // session's window of the same 8 MB file is answered while all three still run, and is
    // counted as rendered where the call runs, not on the pool.
    let gitlab = gitlab().await;
    // As GitLab does, a query without content (the blob is cached) is answered without it.
    let mut node = text_node("big.txt", &heavy_text());
    node.as_object_mut().unwrap().remove("rawTextBlob");
    graphql()
        .and(wiremock::matchers::body_string_contains("big.txt"))
        .and(wiremock::matchers::body_string_contains(
            "\"withContent\":false",
        ))
        .respond_with(json_response(project_answer("grp/proj", 7, vec![node])))
        .with_priority(1)
        .mount(&gitlab)
        .await;
    let server = Server::start(&gitlab.uri(), &[], Some(TOKEN));
    let heavy_client = mcp_client(&server.mcp(), &[]).await;
    let other = mcp_client(&server.mcp(), &[]).await;
    let mut searches = Vec::new();
    for peer in [heavy_client.peer(), heavy_client.peer(), other.peer()] {
        let peer = peer.clone();
        searches.push(tokio::spawn(async move { peer.call_tool(heavy()).await }));
    }
    // All three searches have their text and are rendering (or queued for a slot).
    let waited = tokio::time::timeout(Duration::from_secs(60), async {
        while counter(&server, "view_renders_pooled").await < 3 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(
        waited.is_ok(),
        "the three heavy searches never reached the pool"
    );
    let inline = counter(&server, "view_renders_inline").await;
    let window = call("big.txt", json!({"start_line": 5, "end_line": 6}));
    let started = Instant::now();
    let read = tokio::time::timeout(
        Duration::from_secs(30),
        heavy_client.peer().call_tool(window),
    )
    .await
    .expect("the window was answered")
    .expect("call");
    eprintln!(
        "a 2-line window of 8 MB beside three heavy searches: {:?}",
        started.elapsed()
    );
    assert_ne!(read.is_error, Some(true), "{}", text(&read));
    assert!(
        searches.iter().all(|s| !s.is_finished()),
        "a heavy search ended before the window was answered: it may have waited for the pool"
    );
    assert_eq!(counter(&server, "view_renders_inline").await, inline + 1);
    assert_eq!(counter(&server, "view_renders_pooled").await, 3);
    let content = read.structured_content.unwrap()["content"].clone();
    assert_eq!(content.as_str().unwrap().lines().count(), 2, "{content}");
    for search in searches {
        search.abort();
    }
    other.cancel().await.ok();
    heavy_client.cancel().await.ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_client_leaving_its_http_request_stops_the_call() {
    // Issue 46: in session mode rmcp keeps a call running when its stream is dropped, so a
    // client that left a heavy call mid-way left its search holding a pool slot to its end.
    // Now the call ends as on `notifications/cancelled`: counted `kind="cancelled"`, and the
    // server's CPU time stops growing.
    leaving_stops_the_call(&[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stateless_client_leaving_its_http_request_stops_the_call() {
    // In stateless mode rmcp cancels a request whose client left on its own (this passed
    // before `http/left.rs`); kept so that the watch beside it never undoes that.
    leaving_stops_the_call(&["--stateless"]).await;
}

/// A heavy search over HTTP (`flags` the server's), whose client closes its connection once
/// the search is on the pool: the call is counted cancelled, not ok, and the CPU goes idle.
async fn leaving_stops_the_call(flags: &[&str]) {
    let gitlab = gitlab().await;
    let server = Server::start(&gitlab.uri(), flags, Some(TOKEN));
    let stateless = flags.contains(&"--stateless");
    let client = http_client();
    let post = |body: Value, session: Option<&str>| {
        let mut request = client
            .post(server.mcp())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-06-18")
            .body(body.to_string());
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.send()
    };
    let mut session = None;
    if !stateless {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}});
        let opened = post(init, None).await.unwrap();
        session = Some(
            opened.headers()["mcp-session-id"]
                .to_str()
                .unwrap()
                .to_string(),
        );
        opened.text().await.unwrap();
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let done = post(initialized, session.as_deref()).await.unwrap();
        assert_eq!(done.status(), 202);
    }
    let params = serde_json::to_value(heavy()).unwrap();
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params});
    let request = post(call, session.as_deref());
    let waiting = tokio::spawn(async move { request.await?.text().await });
    // The search is on the pool; then the client leaves: its connection closes.
    let waited = tokio::time::timeout(Duration::from_secs(60), async {
        while counter(&server, "view_renders_pooled").await < 1 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(waited.is_ok(), "the heavy search never reached the pool");
    assert!(
        !waiting.is_finished(),
        "the heavy search was answered already"
    );
    waiting.abort();
    let cancelled =
        r#"tool_calls_total{tool="get_repository_file",outcome="tool_error",kind="cancelled"}"#;
    let ok = r#"tool_calls_total{tool="get_repository_file",outcome="ok",kind=""}"#;
    let ended = tokio::time::timeout(Duration::from_secs(60), async {
        while series(&server, cancelled).await + series(&server, ok).await < 1 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(ended.is_ok(), "the call never ended");
    assert_eq!(
        (series(&server, cancelled).await, series(&server, ok).await),
        (1, 0),
        "the call ran to its end after its client left"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = cpu_ticks(server.pid());
    tokio::time::sleep(Duration::from_secs(1)).await;
    let burnt = cpu_ticks(server.pid()) - before;
    eprintln!("{flags:?}: {burnt} ticks of CPU in the second after the client left");
    assert!(
        burnt < 50,
        "{burnt} ticks of CPU a second after the client left"
    );
}
