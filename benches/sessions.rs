//! Issue 26's figures over HTTP, the release binary against the in-process GitLab of
//! `support/mock_gitlab.rs`: a small call's p50/p99 latency idle and with two heavy searches in
//! flight (goal: p99 at most twice the idle one), and the resident memory an idle MCP session
//! costs, before and after the sessions idle out.
//!
//! A `harness = false` bench (`cargo bench --bench sessions`); it reports, it does not assert.
//! Set `SESSIONS` for the number of sessions (default 2,000).

use std::process::Child;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "support/http_server.rs"]
mod http_server;
#[allow(dead_code)]
#[path = "support/mock_gitlab.rs"]
mod mock_gitlab;

use http_server::{ms, percentile};

/// Small calls measured per side.
const SMALL_CALLS: usize = 300;
/// Seconds sessions may idle before the server closes them.
const IDLE_SECS: &str = "15";

/// About 8 MB of lines with accented letters: with Unicode word boundaries the search engine's
/// fast automaton gives up on them, so one search is a long burst of CPU.
fn heavy_text() -> String {
    let line = "déjà vu über naïve façade señor smörgåsbord çà et là\n";
    line.repeat(8_000_000 / line.len())
}

#[tokio::main]
async fn main() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let gitlab = mock_gitlab::start(vec![
        ("big.txt", heavy_text()),
        ("small.txt", "a\nb\n".repeat(50)),
    ])
    .await;
    latency_beside_heavy_searches(&gitlab.base_url).await;
    memory_per_session(&gitlab.base_url).await;
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("reqwest client")
}

fn call_body(id: u64, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "get_repository_file", "arguments": arguments
    }})
    .to_string()
}

async fn post(http: &reqwest::Client, url: &str, body: String) -> Option<Value> {
    let response = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", "Bearer glpat-bench")
        .body(body)
        .send()
        .await
        .ok()?;
    response.json::<Value>().await.ok()
}

/// `SMALL_CALLS` small reads one after the other: their latencies, sorted.
async fn small_calls(url: &str) -> Vec<Duration> {
    let http = client();
    let mut latencies = Vec::with_capacity(SMALL_CALLS);
    for id in 0..SMALL_CALLS as u64 {
        let args = json!({"project_id": "grp/proj", "file_path": "small.txt", "ref": "main"});
        let t0 = Instant::now();
        let answer = post(&http, url, call_body(id, args)).await;
        assert!(
            answer.is_some_and(|a| a["result"]["isError"] != json!(true)),
            "a small call failed"
        );
        latencies.push(t0.elapsed());
    }
    latencies.sort_unstable();
    latencies
}

async fn latency_beside_heavy_searches(gitlab: &str) {
    let (server, base) = http_server::start(gitlab, &[], "warn", true);
    let url = format!("{base}/mcp");
    small_calls(&url).await;
    let idle = small_calls(&url).await;
    let stop = Arc::new(AtomicBool::new(false));
    let mut heavy = Vec::new();
    for _ in 0..2 {
        let (url, stop) = (url.clone(), Arc::clone(&stop));
        heavy.push(tokio::spawn(async move {
            let http = client();
            let mut searches = 0;
            while !stop.load(Ordering::Relaxed) {
                let args = json!({"project_id": "grp/proj", "file_path": "big.txt", "ref": "main",
                                  "pattern": r"(?:\b\w+\b\s*){4}$", "max_chars": 200});
                post(&http, &url, call_body(1, args)).await;
                searches += 1;
            }
            searches
        }));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let loaded = small_calls(&url).await;
    stop.store(true, Ordering::Relaxed);
    let mut searches = 0;
    for h in heavy {
        searches += h.await.expect("heavy searches");
    }
    let (p99_idle, p99_loaded) = (percentile(&idle, 0.99), percentile(&loaded, 0.99));
    println!("| small calls ({SMALL_CALLS}) | p50 | p99 |");
    println!("|---|---:|---:|");
    println!(
        "| idle | {:.2} ms | {:.2} ms |",
        ms(percentile(&idle, 0.5)),
        ms(p99_idle)
    );
    println!(
        "| two heavy searches in flight ({searches} searches) | {:.2} ms | {:.2} ms |",
        ms(percentile(&loaded, 0.5)),
        ms(p99_loaded)
    );
    println!(
        "\np99 with the searches / idle: {:.2} (goal ≤ 2)\n",
        p99_loaded.as_secs_f64() / p99_idle.as_secs_f64()
    );
    stop_server(server);
}

/// The server's resident memory in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

async fn open_sessions(base: &str) -> f64 {
    let text = client()
        .get(format!("{base}/metrics"))
        .send()
        .await
        .expect("scrape")
        .text()
        .await
        .expect("scrape text");
    text.lines()
        .find_map(|l| l.strip_prefix("gitlab_file_mcp_http_open_sessions "))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

async fn initialize(http: &reqwest::Client, url: &str) -> bool {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"}
    }});
    let response = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string())
        .send()
        .await;
    match response {
        Ok(r) if r.status() == 200 => r.bytes().await.is_ok(),
        _ => false,
    }
}

async fn memory_per_session(gitlab: &str) {
    let n: usize = std::env::var("SESSIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    let flags = [
        "--max-sessions",
        "1000000",
        "--session-idle-secs",
        IDLE_SECS,
    ];
    let (server, base) = http_server::start_in(&[], gitlab, &flags, "warn", true);
    let url = format!("{base}/mcp");
    let pid = server.id();
    let http = client();
    let before = rss_kib(pid);
    println!(
        "| sessions | RSS before | RSS open | per session | RSS after expiry | kept per session |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    for _round in 0..2 {
        let mut opened = 0;
        for _ in 0..n {
            opened += usize::from(initialize(&http, &url).await);
        }
        let open = rss_kib(pid);
        while open_sessions(&base).await > 0.0 {
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        let expired = rss_kib(pid);
        let per = |kib: u64| kib.saturating_sub(before) as f64 / opened.max(1) as f64;
        println!(
            "| {opened} | {before} KiB | {open} KiB | {:.1} KiB | {expired} KiB | {:.1} KiB |",
            per(open),
            per(expired)
        );
    }
    stop_server(server);
}

fn stop_server(mut server: Child) {
    let _ = server.kill();
    let _ = server.wait();
}
