//! Compression bench (issue 25): what reading a file whole puts on the wire, and how long the
//! first read of a 10 MiB file takes through a 50 Mbit/s link, with GitLab compressing its
//! answers (Omnibus nginx: `gzip on`, level 2, on JSON and text) and without.
//!
//! The release binary runs over stdio (rmcp's client) against the stand-in of
//! `standin/src/gitlab/` told to compress or not, which counts the response bytes it sends as sent
//! (compressed when it compresses). Files: a ~600 KB source file and a 10 MiB log (exactly
//! GitLab's read limit, so one GraphQL answer carries it). "Whole" pages the file in 2,000-line
//! windows from offset 0 to its last line; every window is checked against the file. The
//! throttled link is a TCP proxy on 127.0.0.1 that forwards GitLab's answers at 50 Mbit/s; the
//! first read is timed five times (a fresh server each, so nothing is cached) and the median
//! printed.
//!
//! Run: `cargo bench --bench wire`. The bench reports; it asserts nothing about speed.

#[path = "support/mcp.rs"]
#[allow(dead_code)]
mod mcp;

use std::time::{Duration, Instant};

use gitlab_standin::gitlab::Gitlab;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const WINDOW: u64 = 2_000;
/// 50 Mbit/s in bytes per second.
const LINK_BYTES_PER_SEC: f64 = 50_000_000.0 / 8.0;
const RUNS: usize = 5;

fn source(bytes: usize) -> String {
    let mut out = String::new();
    let mut i = 0;
    while out.len() < bytes {
        out.push_str(&format!(
            "    /// Handles request kind {i}: looks the key up and wraps the value.\n    pub fn handler_{i}(&self, request: &Request) -> Result<Response, Error> {{\n        let value = self.store.lookup(request.key({i}))?;\n        tracing::debug!(kind = {i}, \"served\");\n        Ok(Response::new(value))\n    }}\n\n"
        ));
        i += 1;
    }
    out
}

fn log(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes);
    let mut i: u64 = 0;
    while out.len() < bytes {
        out.push_str(&format!(
            "2026-12-01T20:{:02}:{:02}.{:03}Z INFO http request method=GET path=/api/v4/items/{} status=200 duration_ms={}\n",
            (i / 60_000) % 60,
            (i / 1000) % 60,
            i % 1000,
            i * 7919 % 100_000,
            i % 97
        ));
        i += 1;
    }
    out.truncate(bytes - 1);
    out.push('\n');
    out
}

fn args(path: &str, offset: u64) -> serde_json::Map<String, Value> {
    let mut a = mcp::file_args(path);
    a.insert("offset".into(), json!(offset));
    a.insert("limit".into(), json!(WINDOW));
    a
}

/// Pages `path` whole; the bytes GitLab put on the wire and whether every window matched.
async fn read_whole(base_url: &str, gitlab: &Gitlab, path: &str, content: &str) -> (usize, bool) {
    let before = gitlab.log().wire;
    let server = mcp::start(base_url).await;
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    let (mut offset, mut matched) = (0u64, true);
    while (offset as usize) < lines.len() {
        let call = server.call(&args(path, offset)).await;
        let Some(out) = call.result.ok().as_ref().and_then(mcp::output_of) else {
            matched = false;
            break;
        };
        let got = out["content"].as_str().unwrap_or_default();
        let end = out["metadata"]["returned_lines"]["end"]
            .as_u64()
            .unwrap_or(0);
        let want: String = lines[offset as usize..end as usize].concat();
        matched &= got == want;
        if end <= offset {
            break;
        }
        offset = end;
    }
    server.stop().await;
    (gitlab.log().wire - before, matched)
}

/// A TCP proxy to `upstream` that forwards answers at [`LINK_BYTES_PER_SEC`].
async fn throttled_proxy(upstream: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let upstream = upstream.clone();
            tokio::spawn(async move {
                let Ok(server) = TcpStream::connect(&upstream).await else {
                    return;
                };
                let (mut client_read, mut client_write) = client.into_split();
                let (mut server_read, mut server_write) = server.into_split();
                tokio::spawn(async move {
                    let _ = tokio::io::copy(&mut client_read, &mut server_write).await;
                });
                let started = Instant::now();
                let mut sent = 0usize;
                let mut buffer = vec![0u8; 16 * 1024];
                while let Ok(n) = server_read.read(&mut buffer).await {
                    if n == 0 || client_write.write_all(&buffer[..n]).await.is_err() {
                        break;
                    }
                    sent += n;
                    let due = Duration::from_secs_f64(sent as f64 / LINK_BYTES_PER_SEC);
                    if let Some(wait) = due.checked_sub(started.elapsed()) {
                        tokio::time::sleep(wait).await;
                    }
                }
            });
        }
    });
    format!("http://{address}")
}

/// The median time of the first read (one window) of `path` through the throttled link.
async fn first_read(proxy: &str, path: &str) -> Duration {
    let mut times = Vec::new();
    for _ in 0..RUNS {
        let server = mcp::start(proxy).await;
        let call = server.call(&args(path, 0)).await;
        assert!(mcp::error_of(&call).is_none(), "{:?}", mcp::error_of(&call));
        times.push(call.elapsed);
        server.stop().await;
    }
    times.sort();
    times[RUNS / 2]
}

#[tokio::main]
async fn main() {
    let files = [
        ("~600 KB source", "src/handlers.rs", source(600_000)),
        ("10 MiB log", "logs/app.log", log(10 * 1024 * 1024)),
    ];
    println!(
        "Bytes GitLab puts on the wire to read a file whole ({WINDOW}-line windows), and the first read of the 10 MiB log through a 50 Mbit/s link (median of {RUNS})\n"
    );
    println!(
        "| file | size (bytes) | identity: on the wire | × size | gzip: on the wire | × size | windows matched |"
    );
    println!("|---|---:|---:|---:|---:|---:|---|");
    let mut timings = Vec::new();
    let mut wire = Vec::new();
    for gzip in [false, true] {
        let gitlab = Gitlab {
            gzip,
            ..Gitlab::default()
        };
        for (_, path, content) in &files {
            gitlab.put(path, content.clone().into_bytes(), false);
        }
        let mock = gitlab.start_quietly().await;
        for (_, path, content) in &files {
            wire.push(read_whole(&mock.uri(), &gitlab, path, content).await);
        }
        let proxy = throttled_proxy(mock.address().to_string()).await;
        timings.push(first_read(&proxy, "logs/app.log").await);
    }
    for (i, (label, _, content)) in files.iter().enumerate() {
        let (plain, plain_ok) = wire[i];
        let (gzip, gzip_ok) = wire[files.len() + i];
        let size = content.len() as f64;
        println!(
            "| {label} | {} | {plain} | {:.2} | {gzip} | {:.3} | {} |",
            content.len(),
            plain as f64 / size,
            gzip as f64 / size,
            plain_ok && gzip_ok
        );
    }
    println!(
        "\nFirst read of the 10 MiB log through 50 Mbit/s: identity {:.2} s, gzip {:.2} s",
        timings[0].as_secs_f64(),
        timings[1].as_secs_f64()
    );
}
