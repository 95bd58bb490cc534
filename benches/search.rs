//! Search bench (issue 17): what a `pattern` call costs, three ways.
//!
//! 1. The pure search function (`gitlab_file_mcp::window::search::search`), in this process, on
//!    a 10 MiB and a 100 MiB text of code-like lines: a literal, a case-insensitive regex with a
//!    character class, and a pattern every line matches; median of 5 runs, throughput =
//!    text bytes / time. Beside it, the same patterns run line by line with `regex::bytes`
//!    (`is_match` per line), the straightforward way over a line index.
//! 2. Calls over MCP: the release binary over stdio against the in-process mock GitLab
//!    (`support/mock_gitlab.rs`), searching the cached 10 MiB and 100 MiB blobs: the first call
//!    downloads (GraphQL, then REST past 10 MiB), then 10 calls, each one content-free GraphQL
//!    request plus the search; the client's wall time per call (p50), which includes the MCP
//!    round trip and that request.
//! 3. Model-visible characters (the result text blocks a client hands the model) to find and
//!    show one class in a 25,000-line, ~600 KB Python file: paging by the hints from line 1
//!    until the class's line is in a window, against one `pattern` call plus one
//!    `start_line`/`end_line` window of the class.
//!
//! Run: `cargo bench --bench search`. It reports; it asserts nothing about speed.

#[allow(dead_code)]
#[path = "support/mcp.rs"]
mod mcp;
#[path = "support/mock_gitlab.rs"]
mod mock_gitlab;

use std::time::{Duration, Instant};

use gitlab_file_mcp::window::search::{Pattern, Search, search};
use serde_json::Value;

use mcp::{Server, error_of, file_args, output_of, percentile, text_of, thousands};

const MIB: usize = 1024 * 1024;

/// (label, pattern, ignore_case)
const PATTERNS: [(&str, &str, bool); 3] = [
    ("literal", "needle_marker", false),
    (
        "case-insensitive regex with a class",
        r"NEEDLE_[a-z]+_[0-9]+",
        true,
    ),
    ("every line matches", "let", false),
];

#[tokio::main]
async fn main() {
    let ten = code_lines(10 * MIB);
    let hundred = code_lines(100 * MIB);
    pure_search(&[("10 MiB", &ten), ("100 MiB", &hundred)]);
    over_mcp(&ten, &hundred).await;
    model_visible().await;
}

/// Code-like lines (about 60 bytes) filling `size` bytes exactly, with a needle for each
/// pattern on every 50,000th line.
fn code_lines(size: usize) -> String {
    let mut text = String::with_capacity(size + 100);
    let mut i = 0u64;
    while text.len() < size {
        let line = if i % 50_000 == 7 {
            format!("    let needle_marker = NEEDLE_found_{i}; // here\n")
        } else {
            format!(
                "    let value_{i} = compute_{}(input, {i}); // step\n",
                i % 97
            )
        };
        text.push_str(&line);
        i += 1;
    }
    text.truncate(size - 1);
    text.push('\n');
    text
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn gb_per_s(bytes: usize, t: Duration) -> f64 {
    bytes as f64 / t.as_secs_f64() / 1e9
}

fn pure_search(texts: &[(&str, &String)]) {
    println!("## 1. The search function, in process (median of 5)\n");
    println!(
        "| text | pattern | matches | search | throughput | line by line (regex::bytes) | throughput |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|");
    for (label, text) in texts {
        for (name, pattern, ignore_case) in PATTERNS {
            let p = Pattern::new(pattern, ignore_case).expect("the bench's patterns compile");
            let how = Search {
                pattern: &p,
                lines: None,
                context_lines: 2,
                max_chars: 100_000,
            };
            let mut total = 0;
            let times = (0..5)
                .map(|_| {
                    let started = Instant::now();
                    let found = search(text, &how).expect("no range, no error");
                    total = found.total_matches;
                    started.elapsed()
                })
                .collect();
            let t = median(times);
            let regex = regex::bytes::RegexBuilder::new(pattern)
                .case_insensitive(ignore_case)
                .build()
                .unwrap();
            let naive_times = (0..5)
                .map(|_| {
                    let started = Instant::now();
                    let n = text
                        .as_bytes()
                        .split(|&b| b == b'\n')
                        .filter(|l| regex.is_match(l))
                        .count();
                    assert_eq!(n as u64, total, "the reference agrees");
                    started.elapsed()
                })
                .collect();
            let naive = median(naive_times);
            println!(
                "| {label} | {name} (`{pattern}`{}) | {} | {:.1} ms | {:.2} GB/s | {:.1} ms | {:.2} GB/s |",
                if ignore_case { ", ignore_case" } else { "" },
                thousands(total),
                t.as_secs_f64() * 1e3,
                gb_per_s(text.len(), t),
                naive.as_secs_f64() * 1e3,
                gb_per_s(text.len(), naive),
            );
        }
    }
    println!();
}

async fn over_mcp(ten: &str, hundred: &str) {
    let mock = mock_gitlab::start(vec![
        ("ten.rs", ten.to_string()),
        ("hundred.rs", hundred.to_string()),
    ])
    .await;
    let server = mcp::start(&mock.base_url).await;
    println!("## 2. Calls over MCP, the blob cached (p50 of 10 calls after the first)\n");
    println!(
        "| file | pattern | first call (downloads) | later calls: p50 | throughput at p50 | GitLab bytes per later call |"
    );
    println!("|---|---|---:|---:|---:|---:|");
    for (path, size) in [("ten.rs", ten.len()), ("hundred.rs", hundred.len())] {
        for (name, pattern, ignore_case) in &PATTERNS[..2] {
            let mut args = file_args(path);
            args.insert("pattern".into(), (*pattern).into());
            args.insert("ignore_case".into(), (*ignore_case).into());
            let first = timed_call(&server, &args).await;
            let before = mock.traffic.snapshot();
            let mut times: Vec<Duration> = Vec::new();
            for _ in 0..10 {
                times.push(timed_call(&server, &args).await);
            }
            let traffic = mock.traffic.snapshot().since(&before);
            times.sort();
            let p50 = percentile(&times, 0.5);
            println!(
                "| {path} ({} MiB) | {name} | {:.1} ms | {:.1} ms | {:.2} GB/s | {} |",
                size / MIB,
                first.as_secs_f64() * 1e3,
                p50.as_secs_f64() * 1e3,
                gb_per_s(size, p50),
                thousands(traffic.total().bytes / 10),
            );
        }
    }
    let peak = server.peak_rss_kib();
    server.stop().await;
    let peak = peak.map_or("n/a".to_string(), |k| {
        format!("{:.1} MB", k as f64 / 1024.0)
    });
    println!("\nPeak RSS of the server after both files (VmHWM): {peak}\n");
}

async fn timed_call(server: &Server, args: &serde_json::Map<String, Value>) -> Duration {
    let call = server.call(args).await;
    if let Some(e) = error_of(&call) {
        panic!("the bench's call failed: {e}");
    }
    call.elapsed
}

/// A 25,000-line Python file of small classes, with `class TargetModel` and its 40-line body
/// starting at about line 18,000.
fn python_file() -> (String, u64) {
    let mut text = String::new();
    let mut lines = 0u64;
    let mut target = 0;
    let mut i = 0;
    while lines < 25_000 {
        if i == 2_000 {
            target = lines + 1;
            text.push_str(
                "class TargetModel(Base):\n    \"\"\"The class the agent looks for.\"\"\"\n",
            );
            for k in 0..19 {
                text.push_str(&format!(
                    "    def method_{k}(self, x):\n        return x * {k}\n"
                ));
            }
            lines += 40;
        } else {
            text.push_str(&format!(
                "class Model{i}(Base):\n    \"\"\"Model number {i} of the registry.\"\"\"\n\n    def __init__(self, x):\n        self.x = x + {i}\n\n    def value(self):\n        return self.x * {i}\n\n"
            ));
            lines += 9;
        }
        i += 1;
    }
    (text, target)
}

async fn model_visible() {
    let (file, target) = python_file();
    let total_lines = file.lines().count();
    let mock = mock_gitlab::start(vec![("app/models.py", file.clone())]).await;
    let server = mcp::start(&mock.base_url).await;
    // Paging by the hints from the start until the class's line is in a window.
    let (mut paging_chars, mut windows) = (0, 0);
    let mut args = file_args("app/models.py");
    loop {
        let call = server.call(&args).await;
        let result = call.result.expect("a window");
        paging_chars += text_of(&result).encode_utf16().count();
        windows += 1;
        let out = output_of(&result).expect("an output");
        let end = out["metadata"]["returned_lines"]["end"]
            .as_u64()
            .unwrap_or(0);
        if end >= target + 39 {
            break;
        }
        args.insert("offset".into(), end.into());
        args.insert("limit".into(), 500.into());
    }
    // One pattern call, then the class's window.
    let mut find = file_args("app/models.py");
    find.insert("pattern".into(), r"^class TargetModel\b".into());
    let result = server.call(&find).await.result.expect("a search");
    let search_chars = text_of(&result).encode_utf16().count();
    let out = output_of(&result).expect("an output");
    let line = out["metadata"]["matches"]["lines"][0]
        .as_u64()
        .expect("found");
    assert_eq!(line, target);
    let mut window = file_args("app/models.py");
    window.insert("start_line".into(), line.into());
    window.insert("end_line".into(), (line + 39).into());
    let result = server.call(&window).await.result.expect("a window");
    let window_chars = text_of(&result).encode_utf16().count();
    server.stop().await;
    let found = search_chars + window_chars;
    println!(
        "## 3. Model-visible characters to find and show one class ({} lines, {} bytes; the class at line {target})\n",
        thousands(total_lines as u64),
        thousands(file.len() as u64)
    );
    println!("| way | calls | characters (text blocks) |");
    println!("|---|---:|---:|");
    println!(
        "| paging by the hints from line 1 | {windows} | {} |",
        thousands(paging_chars as u64)
    );
    println!(
        "| `pattern` call ({}) + one 40-line window ({}) | 2 | {} |",
        thousands(search_chars as u64),
        thousands(window_chars as u64),
        thousands(found as u64)
    );
    println!(
        "\npattern + window / paging = {:.2} %",
        100.0 * found as f64 / paging_chars as f64
    );
}
