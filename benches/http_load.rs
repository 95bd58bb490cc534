//! Load on `serve --http --stateless --token-from-request`: calls/s and p50/p99 latency of
//! `get_repository_file` at 1, 16 and 64 concurrent clients.
//!
//! A `harness = false` bench: `cargo bench --bench http_load` starts the real binary (release
//! build) on 127.0.0.1 against a minimal in-process GitLab (axum, one canned GraphQL answer
//! for a 200-line file, as the tests' stand-in answers it), warms up, then runs each level until it has made `MAX_CALLS` calls or
//! run `MAX_TIME`, whichever comes first, and prints a markdown table. Each client has its own
//! HTTP connection and sends raw JSON-RPC `tools/call` POSTs, as an MCP client would after its
//! (stateless) handshake. Client, server and mock share the machine, so the numbers are an
//! upper bound on server overhead, not GitLab's. The bench reports; it does not assert.
//!
//! Then the cost of the Prometheus instrumentation: a second server with `--no-metrics` (no
//! registry, every hook a no-op) and a fresh instrumented one (so neither carries the levels'
//! history), both warmed alike, and `AB_ROUNDS` rounds of 64 clients on each, alternating,
//! with the side that goes first alternating too, so that drift in the machine's load falls on
//! both alike; it prints each round's calls/s, the medians and their difference, the median of
//! the rounds' paired ratios, and what the instrumented server's `/metrics` counted (so the
//! "on" side is known to have been on).

use std::process::Child;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::post;
use gitlab_standin::gitlab::Gitlab;
use serde_json::{Value, json};

#[path = "support/http_server.rs"]
mod http_server;

use http_server::{ms, percentile};
const LEVELS: [usize; 3] = [1, 16, 64];
/// Calls per level at most.
const MAX_CALLS: usize = 20_000;
/// Time per level at most (after warm-up).
const MAX_TIME: Duration = Duration::from_secs(8);
const WARM_UP_CALLS: usize = 200;
const FILE_LINES: usize = 200;
/// Rounds per side of the instrumentation comparison.
const AB_ROUNDS: usize = 9;
const AB_CLIENTS: usize = 64;

#[tokio::main]
async fn main() {
    // reqwest is built without a default TLS provider (none is used here, but one must exist).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let gitlab = start_mock_gitlab().await;
    let mut server = start_server(&gitlab, &[]);
    let url = format!("{}/mcp", server.1);

    run_level(&url, 4, WARM_UP_CALLS, MAX_TIME).await;
    println!("| concurrent clients | calls | calls/s | p50 latency | p99 latency | errors |");
    println!("|---:|---:|---:|---:|---:|---:|");
    for clients in LEVELS {
        let r = run_level(&url, clients, MAX_CALLS, MAX_TIME).await;
        println!(
            "| {clients} | {} | {:.0} | {:.2} ms | {:.2} ms | {} |",
            r.calls,
            r.calls as f64 / r.elapsed.as_secs_f64(),
            ms(percentile(&r.latencies, 0.50)),
            ms(percentile(&r.latencies, 0.99)),
            r.errors
        );
    }
    // Two fresh servers for the comparison, so neither carries the levels' history.
    let mut on = start_server(&gitlab, &[]);
    let mut bare = start_server(&gitlab, &["--no-metrics"]);
    compare_instrumentation(&on.1, &bare.1).await;
    for child in [&mut server.0, &mut on.0, &mut bare.0] {
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Alternating rounds on the instrumented server (`on`) and the `--no-metrics` one (`off`).
async fn compare_instrumentation(on: &str, off: &str) {
    let (on_url, off_url) = (format!("{on}/mcp"), format!("{off}/mcp"));
    for url in [&on_url, &off_url] {
        run_level(url, 4, WARM_UP_CALLS, MAX_TIME).await;
    }
    let mut rates = [Vec::new(), Vec::new()];
    for round in 0..AB_ROUNDS {
        // Which side goes first alternates too: the machine drifts within a round as well.
        let mut sides = [(0, &on_url), (1, &off_url)];
        if round % 2 == 1 {
            sides.reverse();
        }
        for (side, url) in sides {
            let r = run_level(url, AB_CLIENTS, MAX_CALLS, MAX_TIME).await;
            assert_eq!(r.errors, 0, "errors in a comparison round");
            rates[side].push(r.calls as f64 / r.elapsed.as_secs_f64());
        }
    }
    // Each round's pair, on over off: what drift between rounds cannot move.
    let mut ratios: Vec<f64> = rates[0].iter().zip(&rates[1]).map(|(a, b)| a / b).collect();
    let paired = median(&mut ratios);
    println!();
    println!("| {AB_CLIENTS} clients | calls/s, each round | median |");
    println!("|---|---|---:|");
    let mut medians = [0.0; 2];
    for (side, name) in ["metrics on", "`--no-metrics`"].into_iter().enumerate() {
        let each: Vec<String> = rates[side].iter().map(|r| format!("{r:.0}")).collect();
        medians[side] = median(&mut rates[side]);
        println!("| {name} | {} | {:.0} |", each.join(" / "), medians[side]);
    }
    let cost = (medians[1] - medians[0]) / medians[1] * 100.0;
    println!("\ninstrumentation cost: {cost:.1} % of calls/s (median against median)");
    println!(
        "paired: the median round's instrumented/bare ratio is {paired:.3} ({:.1} % cost)",
        (1.0 - paired) * 100.0
    );
    println!(
        "the instrumented server counted: {}",
        counted_calls(on).await
    );
}

/// The middle value (of an odd count, as `AB_ROUNDS` is; the upper middle otherwise).
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

/// The instrumented server's `ok` call counter, as its `/metrics` shows it.
async fn counted_calls(base: &str) -> String {
    let http = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("reqwest client");
    let text = match http.get(format!("{base}/metrics")).send().await {
        Ok(r) => r.text().await.unwrap_or_default(),
        Err(e) => return format!("no scrape ({e})"),
    };
    text.lines()
        .find(|l| {
            l.starts_with("gitlab_file_mcp_tool_calls_total")
                && l.contains("tool=\"get_repository_file\"")
                && l.contains("outcome=\"ok\"")
        })
        .unwrap_or("no ok counter")
        .to_string()
}

/// A GitLab that answers every GraphQL request with the same 200-line file: the answer the
/// tests' stand-in (`standin/src/gitlab/`) gives to a read of it, rendered once, so that what
/// shares the machine with the server under load is as little as an axum route.
async fn start_mock_gitlab() -> String {
    let content: String = (1..=FILE_LINES)
        .map(|i| format!("line {i:04} of a file read through the GitLab GraphQL API\n"))
        .collect();
    let standin = Gitlab::default().with_files([("README.md", content)]);
    let read = json!({"operationName": "Blob", "query": "query Blob { blobs( }", "variables": {
        "projectPath": "grp/proj", "ref": "main", "paths": ["README.md"], "withContent": true}});
    let answer = Arc::new(String::from_utf8(standin.graphql_body(&read)).expect("JSON is UTF-8"));
    let app = Router::new().route(
        "/api/graphql",
        post(move || {
            let answer = Arc::clone(&answer);
            async move {
                (
                    [("content-type", "application/json")],
                    answer.as_str().to_owned(),
                )
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind the mock GitLab");
    let url = format!("http://{}", listener.local_addr().expect("mock address"));
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

/// The server process and its base URL.
fn start_server(gitlab: &str, extra: &[&str]) -> (Child, String) {
    http_server::start(gitlab, extra, "warn", true)
}

struct LevelResult {
    calls: usize,
    errors: usize,
    elapsed: Duration,
    latencies: Vec<Duration>,
}

/// `clients` concurrent clients share a budget of `max_calls` calls and `max_time`.
async fn run_level(url: &str, clients: usize, max_calls: usize, max_time: Duration) -> LevelResult {
    let started = Instant::now();
    let budget = Arc::new(std::sync::atomic::AtomicUsize::new(max_calls));
    let mut tasks = tokio::task::JoinSet::new();
    for c in 0..clients {
        let url = url.to_string();
        let budget = Arc::clone(&budget);
        tasks.spawn(async move { client_loop(&url, c, &budget, started, max_time).await });
    }
    let mut result = LevelResult {
        calls: 0,
        errors: 0,
        elapsed: Duration::ZERO,
        latencies: Vec::new(),
    };
    while let Some(done) = tasks.join_next().await {
        let (latencies, errors) = done.expect("client task");
        result.calls += latencies.len() + errors;
        result.errors += errors;
        result.latencies.extend(latencies);
    }
    result.elapsed = started.elapsed();
    result.latencies.sort_unstable();
    result
}

/// One client: its own connection and token; calls until the budget or the time runs out.
async fn client_loop(
    url: &str,
    client_no: usize,
    budget: &std::sync::atomic::AtomicUsize,
    started: Instant,
    max_time: Duration,
) -> (Vec<Duration>, usize) {
    use std::sync::atomic::Ordering;
    let http = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(1)
        .build()
        .expect("reqwest client");
    let token = format!("Bearer glpat-bench-client-{client_no}");
    let mut latencies = Vec::new();
    let mut errors = 0;
    let mut id = 0u64;
    while started.elapsed() < max_time
        && budget
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok()
    {
        id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "get_repository_file",
            "arguments": {"project_id": "grp/proj", "file_path": "README.md", "ref": "main", "limit": 100}
        }});
        let t0 = Instant::now();
        let ok = call(&http, url, &token, &body).await;
        if ok {
            latencies.push(t0.elapsed());
        } else {
            errors += 1;
        }
    }
    (latencies, errors)
}

/// One `tools/call`; true when it came back 200 with a non-error result.
async fn call(http: &reqwest::Client, url: &str, token: &str, body: &Value) -> bool {
    let response = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", token)
        .body(body.to_string())
        .send()
        .await;
    let Ok(response) = response else { return false };
    if response.status() != 200 {
        return false;
    }
    match response.json::<Value>().await {
        Ok(v) => {
            v["result"]["isError"] != json!(true) && v["result"]["structuredContent"].is_object()
        }
        Err(_) => false,
    }
}
