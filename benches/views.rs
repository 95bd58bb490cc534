//! History views bench (issue 48): what a blame and a diff cost GitLab and the server.
//!
//! The release binary runs over stdio (rmcp's client) against the in-process GitLab of
//! `support/mock_gitlab.rs`, which counts requests and response bytes per endpoint.
//!
//! - Blame of a 100-line window (lines 12,001-12,100) of a 25,000-line file, then of a
//!   1,000-line window (the most one call blames): GitLab requests and time each.
//! - `diff_from` between two versions of a 12 MB file (120,000 lines of 100 bytes; the newer
//!   one changes every 1,000th line), read whole: requests, bytes and time of the first call
//!   (both blobs read: past GitLab's 10 MiB GraphQL cut, so by the REST raw endpoint), of the
//!   same call again (both blobs from the cache: content-free requests), and the server's peak
//!   RSS (VmHWM) after both.
//!
//! Run: `cargo bench --bench views`. The bench reports; it asserts nothing about speed.

#[allow(dead_code)]
#[path = "support/mcp.rs"]
mod mcp;
#[path = "support/mock_gitlab.rs"]
mod mock_gitlab;

use serde_json::{Map, Value, json};

use mcp::{Server, error_of, output_of, thousands};
use mock_gitlab::{Traffic, TrafficSnapshot};

const BIG: &str = "src/big.rs";
const DATA: &str = "data/twelve_mb.txt";
const DATA_LINES: usize = 120_000;

/// `lines` lines of Rust-like text.
fn source(lines: usize) -> String {
    (1..=lines)
        .map(|n| format!("    let value_{n} = compute({n}); // line {n}\n"))
        .collect()
}

/// The 12 MB file: `DATA_LINES` lines of 100 bytes; `changed` marks every 1,000th line.
fn data(changed: bool) -> String {
    (1..=DATA_LINES)
        .map(|n| {
            let mark = if changed && n % 1000 == 0 {
                "NEW"
            } else {
                "old"
            };
            format!("{mark} {n:>10} {}\n", "x".repeat(84))
        })
        .collect()
}

fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// One call: its output, GitLab's traffic for it, and its time.
async fn measured(
    server: &Server,
    traffic: &Traffic,
    call: Value,
) -> (Value, TrafficSnapshot, std::time::Duration) {
    let before = traffic.snapshot();
    let done = server.call(&args(call)).await;
    if let Some(e) = error_of(&done) {
        panic!("{e}");
    }
    let output = output_of(done.result.as_ref().expect("a result")).unwrap_or_default();
    (output, traffic.snapshot().since(&before), done.elapsed)
}

fn row(what: &str, t: &TrafficSnapshot, elapsed: std::time::Duration) {
    println!(
        "| {what} | {} GraphQL + {} REST | {} bytes | {elapsed:.1?} |",
        t.graphql.requests,
        t.rest().requests,
        thousands(t.total().bytes)
    );
}

#[tokio::main]
async fn main() {
    let files = vec![
        (BIG, source(25_000)),
        (DATA, data(true)),
        ("v1:data/twelve_mb.txt", data(false)),
    ];
    let mock = mock_gitlab::start(files).await;
    let server = mcp::start(&mock.base_url).await;
    println!("| call | GitLab requests | GitLab bytes | time |");
    println!("|---|---|---|---|");
    let blame = |start: u64, end: u64| {
        json!({"project_id": "grp/proj", "file_path": BIG, "ref": "main", "blame": true,
               "start_line": start, "end_line": end})
    };
    let (out, t, elapsed) = measured(&server, &mock.traffic, blame(12_001, 12_100)).await;
    let runs = out["metadata"]["blame"].as_array().map_or(0, Vec::len);
    row(
        &format!("blame, 100 lines of 25,000 ({runs} runs), first read"),
        &t,
        elapsed,
    );
    let (_, t, elapsed) = measured(&server, &mock.traffic, blame(14_001, 14_100)).await;
    row("blame, 100 other lines, file cached", &t, elapsed);
    let (out, t, elapsed) = measured(&server, &mock.traffic, blame(15_001, 16_000)).await;
    let lines = out["metadata"]["returned_lines"].clone();
    row(
        &format!("blame, 1,000 lines (returned {lines}), file cached"),
        &t,
        elapsed,
    );

    let diff = json!({"project_id": "grp/proj", "file_path": DATA, "ref": "main",
                      "diff_from": "v1", "limit": 200});
    let (out, t, elapsed) = measured(&server, &mock.traffic, diff.clone()).await;
    let meta = out["metadata"]["diff"].clone();
    row(
        &format!(
            "diff_from, 12 MB file, first ({} added, {} removed)",
            meta["added"], meta["removed"]
        ),
        &t,
        elapsed,
    );
    let (_, t, elapsed) = measured(&server, &mock.traffic, diff).await;
    row("diff_from, same call again (both cached)", &t, elapsed);
    let rss = server.peak_rss_kib().unwrap_or(0);
    println!("server peak RSS after the diffs: {} KiB", thousands(rss));
    server.stop().await;
}
