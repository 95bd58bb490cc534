//! Server benchmark: the release binary over stdio (rmcp's client) against the GitLab
//! stand-in of the tests (`standin/src/gitlab/`) answering from memory, so what is measured is
//! the server, not the network.
//!
//! Prints a table of the server's own time per call (from its `gitlab_file_mcp::calls` log
//! line: total minus time spent waiting on GitLab) and the process's peak RSS (VmHWM) after
//! serving a 10 MiB file. Run: `cargo bench --bench server`.

// The log reading of the shared support.
#[allow(dead_code)]
#[path = "support/mcp.rs"]
mod mcp;

use std::time::{Duration, Instant};

use gitlab_standin::gitlab::Gitlab;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

fn text(lines: usize) -> String {
    (0..lines)
        .map(|i| format!("    let value_{i:06} = compute(input, {i}); // a line of code\n"))
        .collect()
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[tokio::main]
async fn main() {
    let small_text = text(3_000);
    let big_text = text(10 * 1024 * 1024 / 60);
    let big_len = big_text.len();
    let gitlab = Gitlab::default().with_files([("small.rs", &small_text), ("big.txt", &big_text)]);
    let mock = gitlab.start_quietly().await;
    let base = mock.uri();
    drop((small_text, big_text));

    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_gitlab-file-mcp"));
    cmd.env("GITLAB_URL", &base)
        .env_remove("GITLAB_TOKEN")
        .env("GITLAB_FILE_MCP_LOG", "gitlab_file_mcp::calls=info");
    let (transport, stderr) = TokioChildProcess::builder(cmd)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn server");
    let pid = transport.id().expect("pid");
    let own = stderr.map(mcp::own_times_of).unwrap_or_default();
    let client = ().serve(transport).await.expect("handshake");
    let call = |path: &'static str, offset: u64| {
        let args = json!({"project_id": "grp/proj", "file_path": path, "ref": "main", "offset": offset, "limit": 500});
        let Value::Object(map) = args else {
            unreachable!()
        };
        CallToolRequestParams::new("get_repository_file").with_arguments(map)
    };

    // Warm-up, then the baseline peak RSS after small files only.
    for _ in 0..20 {
        client.call_tool(call("small.rs", 0)).await.expect("call");
    }
    let rss_small = vm_hwm_kib(pid);
    client.call_tool(call("big.txt", 0)).await.expect("call");
    let rss_one_big = vm_hwm_kib(pid);

    let mut rows: Vec<String> = Vec::new();
    for (name, path, offset, calls) in [
        (
            "500-line window, 3,000-line file (180 KB)",
            "small.rs",
            0,
            500,
        ),
        ("500-line window at line 0, 10 MiB file", "big.txt", 0, 40),
        (
            "500-line window at line 100,000, 10 MiB file",
            "big.txt",
            100_000,
            40,
        ),
    ] {
        own.lock().expect("lock").clear();
        let started = Instant::now();
        for _ in 0..calls {
            let r = client.call_tool(call(path, offset)).await.expect("call");
            assert_ne!(r.is_error, Some(true), "{:?}", r.content);
        }
        let wall = started.elapsed();
        tokio::time::sleep(Duration::from_millis(200)).await; // let the log lines arrive
        let mut v = own.lock().expect("lock").clone();
        v.sort_unstable();
        let mean = v.iter().sum::<u64>() as f64 / v.len().max(1) as f64;
        rows.push(format!(
            "| {name} | {calls} | {:.0} | {} | {} | {:.2} |",
            mean,
            percentile(&v, 0.5),
            percentile(&v, 0.99),
            wall.as_secs_f64() * 1000.0 / calls as f64
        ));
    }
    let rss_big = vm_hwm_kib(pid);
    let _ = client.cancel().await;

    println!(
        "Server's own time per call (µs; total minus the GitLab round trip, from the server's log)\n"
    );
    println!("| case | calls | mean µs | p50 µs | p99 µs | client-observed ms/call |");
    println!("|---|---:|---:|---:|---:|---:|");
    for r in rows {
        println!("{r}");
    }
    println!("\nPeak RSS of the server process (VmHWM)\n");
    println!("| after | peak RSS |");
    println!("|---|---:|");
    let mb = |k: Option<u64>| {
        k.map_or("n/a".to_string(), |k| {
            format!("{:.1} MB", k as f64 / 1024.0)
        })
    };
    println!("| 20 calls on a 180 KB file | {} |", mb(rss_small));
    println!(
        "| 1 call on a {:.1} MiB file | {} |",
        big_len as f64 / 1_048_576.0,
        mb(rss_one_big)
    );
    println!(
        "| 80 calls on a {:.1} MiB file | {} |",
        big_len as f64 / 1_048_576.0,
        mb(rss_big)
    );
}
