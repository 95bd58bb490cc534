//! Batch bench (issue 19): ten small files of one project read with one `get_repository_files`
//! call against ten `get_repository_file` calls, by the release binary over stdio against the
//! in-process GitLab stand-in of `support/mock_gitlab.rs` (which answers every path of a
//! `blobs(paths:)` request, and leaves content out for `withContent: false`).
//!
//! Measured, in one run so both sides share the machine's state:
//! - upstream requests per call (exact, from the stand-in's counters);
//! - time per call as the client sees it, for a first read (a fresh server per sample, so the
//!   content is downloaded) and for a warm read (blobs cached, the request content-free); the
//!   batch and single calls alternate, so load on the shared machine hits both alike;
//! - model-visible characters (the text blocks a client hands the model) of the batch against
//!   the sum of the ten single calls.
//!
//! Goals: one upstream request per batch call; batch time ≤ 1.3 × one single-file call;
//! batch characters ≤ the sum of the single calls'. Run: `cargo bench --bench batch`. The bench
//! reports; it asserts nothing.

#[allow(dead_code)]
#[path = "support/mcp.rs"]
mod mcp;
#[allow(dead_code)]
#[path = "support/mock_gitlab.rs"]
mod mock_gitlab;

use std::time::Duration;

use serde_json::{Map, Value, json};

use mcp::{error_of, file_args, percentile, text_of, thousands};

const FILES: usize = 10;
/// One file holding the ten's lines, for a single call with as much content as the batch.
const ALL: &str = "src/all.rs";
const BATCH: &str = "get_repository_files";
/// Fresh servers for the first-read samples.
const COLD_SAMPLES: usize = 15;
/// Warm samples of each kind.
const WARM_SAMPLES: usize = 300;

/// A small source file: `lines` lines of code.
fn source(n: usize, lines: usize) -> String {
    (0..lines)
        .map(|i| format!("    let value_{n}_{i:04} = compute(input, {i}); // file {n}\n"))
        .collect()
}

fn path(n: usize) -> String {
    format!("src/module_{n}.rs")
}

fn batch_args() -> Map<String, Value> {
    let files: Vec<Value> = (0..FILES)
        .map(|n| json!({ "file_path": path(n) }))
        .collect();
    let Value::Object(map) = json!({"project_id": "grp/proj", "ref": "main", "files": files})
    else {
        unreachable!("an object literal")
    };
    map
}

struct Timed {
    batch: Vec<Duration>,
    single: Vec<Duration>,
    /// One single call returning as much content as the batch (a file of the ten together).
    same_size: Vec<Duration>,
}

impl Timed {
    fn row(&self, label: &str) {
        let sorted = |v: &[Duration]| {
            let mut v = v.to_vec();
            v.sort();
            v
        };
        let (b, s, z) = (
            sorted(&self.batch),
            sorted(&self.single),
            sorted(&self.same_size),
        );
        let (b50, s50, z50) = (
            percentile(&b, 0.5),
            percentile(&s, 0.5),
            percentile(&z, 0.5),
        );
        let mean = |v: &[Duration]| v.iter().sum::<Duration>() / v.len().max(1) as u32;
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "| {label} | {} | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} | {:.2} |",
            b.len(),
            ms(s50),
            ms(z50),
            ms(b50),
            ms(mean(&s)),
            ms(mean(&b)),
            b50.as_secs_f64() / s50.as_secs_f64(),
            b50.as_secs_f64() / z50.as_secs_f64()
        );
    }
}

fn check(call: &mcp::Call, what: &str) {
    if let Some(e) = error_of(call) {
        panic!("{what}: {e}");
    }
}

/// The time of the first call of a fresh server (nothing cached).
async fn first_call(base_url: &str, tool: &'static str, args: &Map<String, Value>) -> Duration {
    let server = mcp::start(base_url).await;
    let call = server.call_named(tool, args).await;
    check(&call, tool);
    server.stop().await;
    call.elapsed
}

#[tokio::main]
async fn main() {
    let mut files: Vec<(String, String)> = (0..FILES).map(|n| (path(n), source(n, 60))).collect();
    let bytes: usize = files.iter().map(|(_, c)| c.len()).sum();
    let together: String = files.iter().map(|(_, c)| c.as_str()).collect();
    files.push((ALL.to_string(), together));
    let mock =
        mock_gitlab::start(files.iter().map(|(p, c)| (p.as_str(), c.clone())).collect()).await;
    let batch = batch_args();
    let single = file_args(&path(0));
    let mut same_size = file_args(ALL);
    same_size.insert("limit".into(), 2000.into());

    // Requests and characters, from one fresh server.
    let server = mcp::start(&mock.base_url).await;
    let before = mock.traffic.snapshot();
    let call = server.call_named(BATCH, &batch).await;
    check(&call, "batch");
    let batch_traffic = mock.traffic.snapshot().since(&before);
    let batch_chars = text_of(call.result.as_ref().expect("a result"))
        .chars()
        .count();
    let mut single_chars = 0;
    let before = mock.traffic.snapshot();
    for n in 0..FILES {
        let call = server.call(&file_args(&path(n))).await;
        check(&call, "single");
        single_chars += text_of(call.result.as_ref().expect("a result"))
            .chars()
            .count();
    }
    let singles_traffic = mock.traffic.snapshot().since(&before);
    server.stop().await;
    // The singles ran after the batch, so from the cache: count a cold single separately.
    let server = mcp::start(&mock.base_url).await;
    let before = mock.traffic.snapshot();
    check(&server.call(&single).await, "single");
    let cold_single = mock.traffic.snapshot().since(&before);
    server.stop().await;

    println!(
        "{FILES} files of 60 lines, {} bytes in all\n",
        thousands(bytes as u64)
    );
    println!("| | upstream requests | bytes from GitLab | model-visible characters |");
    println!("|---|---:|---:|---:|");
    println!(
        "| 1 batch call (first read) | {} | {} | {} |",
        batch_traffic.total().requests,
        thousands(batch_traffic.total().bytes),
        thousands(batch_chars as u64)
    );
    println!(
        "| 1 single call (first read) | {} | {} | |",
        cold_single.total().requests,
        thousands(cold_single.total().bytes)
    );
    println!(
        "| 10 single calls (after the batch: cached) | {} | {} | {} |",
        singles_traffic.total().requests,
        thousands(singles_traffic.total().bytes),
        thousands(single_chars as u64)
    );
    println!(
        "\nbatch characters / sum of single calls: {:.3}\n",
        batch_chars as f64 / single_chars as f64
    );

    // First reads: a fresh server per sample, batch and single alternating.
    let mut cold = Timed {
        batch: Vec::new(),
        single: Vec::new(),
        same_size: Vec::new(),
    };
    for _ in 0..COLD_SAMPLES {
        cold.batch
            .push(first_call(&mock.base_url, BATCH, &batch).await);
        cold.single
            .push(first_call(&mock.base_url, mcp::TOOL, &single).await);
        cold.same_size
            .push(first_call(&mock.base_url, mcp::TOOL, &same_size).await);
    }
    // Warm reads: one server, everything cached, alternating.
    let server = mcp::start(&mock.base_url).await;
    check(&server.call_named(BATCH, &batch).await, "batch");
    check(&server.call(&same_size).await, "same size");
    let mut warm = Timed {
        batch: Vec::new(),
        single: Vec::new(),
        same_size: Vec::new(),
    };
    let before = mock.traffic.snapshot();
    for _ in 0..WARM_SAMPLES {
        let call = server.call_named(BATCH, &batch).await;
        check(&call, "batch");
        warm.batch.push(call.elapsed);
        let call = server.call(&single).await;
        check(&call, "single");
        warm.single.push(call.elapsed);
        let call = server.call(&same_size).await;
        check(&call, "same size");
        warm.same_size.push(call.elapsed);
    }
    let warm_traffic = mock.traffic.snapshot().since(&before);
    server.stop().await;

    println!(
        "| read | samples each | single p50 | same-size single p50 | batch p50 | single mean | batch mean | batch / single (p50) | batch / same-size single (p50) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    cold.row("first (fresh server, content downloaded)");
    warm.row("warm (cached, content-free request)");
    println!(
        "\nwarm: {} upstream requests for {} batch + {} single + {} same-size calls ({} bytes)",
        warm_traffic.total().requests,
        WARM_SAMPLES,
        WARM_SAMPLES,
        WARM_SAMPLES,
        thousands(warm_traffic.total().bytes)
    );
}
