//! Paging bench (issue 9): what it costs GitLab and the server to read a file whole in
//! 500-line windows, following the server's own `system_instruction` hints.
//!
//! The release binary runs over stdio (rmcp's client) against the in-process mock GitLab of
//! `support/mock_gitlab.rs`, which counts requests and response bytes per endpoint. One server
//! process pages three files in turn: a ~47 KB source file, a 10 MiB file (exactly GitLab's read
//! limit, not cut) and a 12 MB file (120,000 lines, cut by GitLab's GraphQL at 10 MiB). Paging
//! stops when the hint names no "Remaining lines". Every window is checked against the file
//! (each window must equal the file's bytes at its place). Prints one Markdown table and the server's peak
//! RSS (VmHWM) after all three.
//!
//! Run: `cargo bench --bench paging`. `PAGING_BENCH_MAX_WINDOWS=N` caps the windows per file for
//! a quick run. The bench reports; it asserts nothing about speed.

#[allow(dead_code)]
#[path = "support/mcp.rs"]
mod mcp;
#[path = "support/mock_gitlab.rs"]
mod mock_gitlab;

use std::time::Duration;

use serde_json::{Map, Value};

use mcp::{Server, error_of, file_args, output_of, percentile, thousands};
use mock_gitlab::{Traffic, TrafficSnapshot};

const WINDOW_LINES: u64 = 500;
const TEN_MIB: usize = 10 * 1024 * 1024;

/// One file to page, with what the bench knows about it.
struct Case {
    label: &'static str,
    path: &'static str,
    content: String,
}

impl Case {
    fn real_lines(&self) -> u64 {
        memchr_count(self.content.as_bytes())
    }
}

/// What paging one file whole measured.
struct Run {
    windows: u64,
    lines_reached: u64,
    times: Vec<Duration>,
    traffic: TrafficSnapshot,
    /// Every window equalled the file's bytes at its position.
    windows_match: bool,
    /// Bytes of the file the windows covered, from its start.
    bytes_reached: usize,
    capped: bool,
    error: Option<String>,
}

#[tokio::main]
async fn main() {
    let max_windows = std::env::var("PAGING_BENCH_MAX_WINDOWS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|&n| n > 0);
    let cases = vec![
        Case {
            label: "~50 KB source",
            path: "src/handlers.rs",
            content: source_file(47_000),
        },
        Case {
            label: "10 MiB file",
            path: "data/ten_mib.txt",
            content: fixed_lines(TEN_MIB, 100),
        },
        Case {
            label: "12 MB file",
            path: "data/twelve_mb.txt",
            content: fixed_lines(12_000_000, 100),
        },
    ];
    let mock =
        mock_gitlab::start(cases.iter().map(|c| (c.path, c.content.clone())).collect()).await;
    let server = mcp::start(&mock.base_url).await;

    let mut rows = Vec::new();
    for case in &cases {
        let run = page_whole(&server, &mock.traffic, case, max_windows).await;
        rows.push(row(case, &run));
    }
    let peak = server.peak_rss_kib();
    server.stop().await;

    println!("Paging each file whole in {WINDOW_LINES}-line windows, following the hints\n");
    println!(
        "| file | size (bytes) | windows | lines reached / real lines | requests / window | fetched from GitLab: GraphQL + REST (bytes) | fetched / size | first window | later windows: mean | later windows: p50 | rebuilt byte-for-byte |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    for r in rows {
        println!("{r}");
    }
    let peak = peak.map_or("n/a".to_string(), |k| {
        format!("{:.1} MB", k as f64 / 1024.0)
    });
    println!(
        "\nPeak RSS of the server after paging all three files in one process (VmHWM): {peak}"
    );
    if let Some(n) = max_windows {
        println!("(PAGING_BENCH_MAX_WINDOWS={n}: at most {n} windows per file)");
    }
}

/// Pages `case` from offset 0, each next call taken from the previous `system_instruction`.
async fn page_whole(server: &Server, traffic: &Traffic, case: &Case, max: Option<u64>) -> Run {
    let before = traffic.snapshot();
    let file = case.content.as_bytes();
    let mut args = file_args(case.path);
    args.insert("offset".into(), 0.into());
    args.insert("limit".into(), WINDOW_LINES.into());
    let mut run = Run {
        windows: 0,
        lines_reached: 0,
        times: Vec::new(),
        traffic: TrafficSnapshot::default(),
        windows_match: true,
        bytes_reached: 0,
        capped: false,
        error: None,
    };
    loop {
        let call = server.call(&args).await;
        if let Some(e) = error_of(&call) {
            run.error = Some(e);
            break;
        }
        run.windows += 1;
        run.times.push(call.elapsed);
        let output = call.result.as_ref().ok().and_then(output_of);
        let output = output.unwrap_or(Value::Null);
        let content = output["content"].as_str().unwrap_or_default().as_bytes();
        let pos = run.bytes_reached;
        run.windows_match &= file.get(pos..pos + content.len()) == Some(content);
        run.bytes_reached += content.len();
        if let Some(end) = output["metadata"]["returned_lines"]["end"].as_u64() {
            run.lines_reached = end;
        }
        let hint = output["system_instruction"].as_str().unwrap_or_default();
        let Some(next) = next_call(hint) else {
            break;
        };
        if max.is_some_and(|m| run.windows >= m) {
            run.capped = true;
            break;
        }
        args.extend(next);
    }
    run.traffic = traffic.snapshot().since(&before);
    run
}

/// The arguments the hint asks for (`{"offset": N, "limit": L, …}`), when lines remain.
fn next_call(hint: &str) -> Option<Map<String, Value>> {
    if !hint.contains("Remaining lines") {
        return None;
    }
    let start = hint.find("{\"offset\"")?;
    let len = hint[start..].find('}')? + 1;
    serde_json::from_str(&hint[start..start + len]).ok()
}

fn row(case: &Case, run: &Run) -> String {
    let size = case.content.len() as u64;
    let t = run.traffic;
    let total = t.total();
    let later: Vec<Duration> = {
        let mut v = run.times.get(1..).unwrap_or_default().to_vec();
        v.sort_unstable();
        v
    };
    let mean = if later.is_empty() {
        Duration::ZERO
    } else {
        later.iter().sum::<Duration>() / later.len() as u32
    };
    let mut reached = format!(
        "{} / {}",
        thousands(run.lines_reached),
        thousands(case.real_lines())
    );
    if run.capped {
        reached.push_str(" (capped)");
    }
    if let Some(e) = &run.error {
        reached.push_str(&format!(" (error: {})", e.replace('|', "/")));
    }
    format!(
        "| {} | {} | {} | {reached} | {:.2} | {} + {} = {} | {:.2} × | {} | {} | {} | {} |",
        case.label,
        thousands(size),
        run.windows,
        total.requests as f64 / run.windows.max(1) as f64,
        thousands(t.graphql.bytes),
        thousands(t.rest().bytes),
        thousands(total.bytes),
        total.bytes as f64 / size as f64,
        ms(run.times.first().copied().unwrap_or_default()),
        ms(mean),
        ms(percentile(&later, 0.5)),
        rebuilt(case, run),
    )
}

/// "yes" when the windows rebuild the whole file; "prefix" when they match but stop short.
fn rebuilt(case: &Case, run: &Run) -> String {
    if !run.windows_match {
        "NO: a window differs from the file".to_string()
    } else if run.bytes_reached == case.content.len() {
        "yes".to_string()
    } else {
        format!("first {} bytes only", thousands(run.bytes_reached as u64))
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn memchr_count(bytes: &[u8]) -> u64 {
    let newlines = memchr::memchr_iter(b'\n', bytes).count() as u64;
    newlines + u64::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// Rust-like source of about `target` bytes: short functions, ~17 bytes a line, some non-ASCII.
fn source_file(target: usize) -> String {
    let mut s = String::with_capacity(target + 200);
    let mut i = 0;
    while s.len() < target {
        s.push_str(&format!(
            "/// Handles request {i} → reply.\nfn handler_{i:04}(req: &Request) -> Result<()> {{\n    let id = req.id();\n    if id == 0 {{\n        return Err(Error::Empty);\n    }}\n    log(\"id\", id);\n    Ok(())\n}}\n\n"
        ));
        i += 1;
    }
    s
}

/// `total` bytes of `line_len`-byte lines (each ending in `\n`; the last one may be shorter).
fn fixed_lines(total: usize, line_len: usize) -> String {
    let mut s = String::with_capacity(total);
    let mut i = 0usize;
    while s.len() < total {
        let len = line_len.min(total - s.len());
        let mut line = format!("{i:07} let value = compute(input, {i}); // generated data line ");
        line.truncate(len - 1);
        while line.len() < len - 1 {
            line.push('x');
        }
        line.push('\n');
        s.push_str(&line);
        i += 1;
    }
    s
}
