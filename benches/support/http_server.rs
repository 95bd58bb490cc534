//! The release binary as an HTTP server for the benches: `serve --http 127.0.0.1:0
//! --stateless --token-from-request --max-concurrent 256` against `gitlab`, with the given
//! extra flags and log level, no token and no proxy from the environment; its stderr drained
//! so it never blocks on a full pipe. And the latency figures the HTTP benches print.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_gitlab-file-mcp");

// The proxy variables a started server must not inherit: the tests' list.
#[path = "../../tests/it/support/env.rs"]
mod env;

/// Starts the server; returns it and its base URL (without `/mcp`). Lines it writes before
/// listening are echoed when `echo` is set.
pub fn start(gitlab: &str, extra: &[&str], log: &str, echo: bool) -> (Child, String) {
    let mode = ["--stateless", "--token-from-request"];
    start_in(&mode, gitlab, extra, log, echo)
}

/// Like [`start`], in the `mode` given (`&[]`: sessions, the server's own token).
pub fn start_in(
    mode: &[&str],
    gitlab: &str,
    extra: &[&str],
    log: &str,
    echo: bool,
) -> (Child, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(["serve", "--http", "127.0.0.1:0", "--max-concurrent", "256"])
        .args(mode)
        .args(extra)
        .env("GITLAB_URL", gitlab)
        .env("GITLAB_FILE_MCP_LOG", log)
        .env_remove("GITLAB_TOKEN")
        .env_remove("GITLAB_PERSONAL_ACCESS_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for var in env::PROXY_ENV {
        cmd.env_remove(var);
    }
    let mut child = cmd.spawn().expect("spawn the server");
    let stderr = child.stderr.take().expect("piped stderr");
    let mut lines = BufReader::new(stderr).lines();
    let base = loop {
        match lines.next() {
            Some(Ok(line)) => {
                if let Some(rest) = line.split("listening on ").nth(1) {
                    break rest.trim().trim_end_matches("/mcp").to_string();
                }
                if echo {
                    eprintln!("{line}");
                }
            }
            _ => panic!("the server exited before listening"),
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines.map_while(Result::ok) {});
    (child, base)
}

/// The nearest-rank `p` percentile of `sorted` (zero for none).
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((sorted.len() as f64) * p).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// `d` in milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
