//! Single flight after validation (issue 20), measured: how long a caller without access waits
//! while the owner's first read of the same file is slow, and how long N callers of a download
//! that stalls wait for their one shared failure.
//!
//! A `harness = false` bench: `cargo bench --bench flights` starts the release binary with
//! `serve --http --stateless --token-from-request --request-timeout 2` against the tests' GitLab
//! stand-in, which answers the token `owner` after [`OWNER_DELAY`], answers `reader` at once,
//! answers the other tokens "project not found" at once, and never finishes a REST download.
//! Calls are raw JSON-RPC `tools/call` POSTs, one connection per caller. It prints two
//! Markdown tables; it asserts nothing.

use std::process::Child;
use std::time::{Duration, Instant};

use gitlab_standin::gitlab::{Access, Bent, Gitlab, User};
use serde_json::{Value, json};

#[path = "support/http_server.rs"]
mod http_server;

use http_server::{ms, percentile};
/// How late GitLab answers the owner.
const OWNER_DELAY: Duration = Duration::from_millis(1500);
/// The server's `--request-timeout`, in seconds.
const REQUEST_TIMEOUT_SECS: u64 = 2;
/// Sequential no-access calls per measurement.
const PROBES: usize = 20;

#[tokio::main]
async fn main() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let (gitlab, _served) = start_mock_gitlab().await;
    let mut server = start_server(&gitlab);
    let url = format!("{}/mcp", server.1);
    no_access_while_the_owner_reads(&url).await;
    stalled_download_waiters(&url).await;
    let _ = server.0.kill();
    let _ = server.0.wait();
}

async fn no_access_while_the_owner_reads(url: &str) {
    let baseline = probes(url, "quiet.txt").await;
    let owner = tokio::spawn(timed(url.to_string(), "owner".into(), "private.txt".into()));
    tokio::time::sleep(Duration::from_millis(100)).await;
    let during = probes(url, "private.txt").await;
    let owner_alone = owner.await.expect("owner task");
    // 40 callers without access at once, during another first read of the owner.
    let owner = tokio::spawn(timed(
        url.to_string(),
        "owner".into(),
        "private-2.txt".into(),
    ));
    tokio::time::sleep(Duration::from_millis(100)).await;
    let crowd: Vec<_> = (0..40)
        .map(|i| {
            tokio::spawn(timed(
                url.to_string(),
                format!("x-{i}"),
                "private-2.txt".into(),
            ))
        })
        .collect();
    let mut crowd_times = Vec::new();
    for c in crowd {
        crowd_times.push(c.await.expect("crowd task").0);
    }
    crowd_times.sort_unstable();
    let owner_crowded = owner.await.expect("owner task");
    println!("| no-access caller ({PROBES} calls each) | p50 | max |");
    println!("|---|---:|---:|");
    println!(
        "| nothing else in flight (its own request's time) | {:.1} ms | {:.1} ms |",
        ms(percentile(&baseline, 0.5)),
        ms(*baseline.last().unwrap_or(&Duration::ZERO))
    );
    println!(
        "| while the owner's first read of the file is in flight ({} ms) | {:.1} ms | {:.1} ms |",
        OWNER_DELAY.as_millis(),
        ms(percentile(&during, 0.5)),
        ms(*during.last().unwrap_or(&Duration::ZERO))
    );
    println!(
        "| 40 at once, during another first read of the owner | {:.1} ms | {:.1} ms |",
        ms(percentile(&crowd_times, 0.5)),
        ms(*crowd_times.last().unwrap_or(&Duration::ZERO))
    );
    println!();
    println!(
        "owner's first read: {:.0} ms alone, {:.0} ms with 40 no-access callers (ok: {}, {})",
        ms(owner_alone.0),
        ms(owner_crowded.0),
        owner_alone.1,
        owner_crowded.1
    );
    println!();
}

/// `PROBES` sequential calls by a token without access, sorted.
async fn probes(url: &str, path: &str) -> Vec<Duration> {
    let mut times = Vec::new();
    for i in 0..PROBES {
        let (t, ok) = timed(url.to_string(), format!("nobody-{i}"), path.to_string()).await;
        assert!(!ok, "a caller without access was served");
        times.push(t);
    }
    times.sort_unstable();
    times
}

async fn stalled_download_waiters(url: &str) {
    println!(
        "| callers of one stalled download (`--request-timeout {REQUEST_TIMEOUT_SECS}`) | first failure | last failure | failed |"
    );
    println!("|---:|---:|---:|---:|");
    for n in [1usize, 4, 16] {
        let path = format!("stalled-{n}.txt");
        let started = Instant::now();
        let callers: Vec<_> = (0..n)
            .map(|_| tokio::spawn(timed(url.to_string(), "reader".into(), path.clone())))
            .collect();
        let mut ends = Vec::new();
        let mut failed = 0;
        for c in callers {
            let (_, ok) = c.await.expect("caller task");
            ends.push(started.elapsed());
            failed += usize::from(!ok);
        }
        ends.sort_unstable();
        println!(
            "| {n} | {:.2} s | {:.2} s | {failed} |",
            ends[0].as_secs_f64(),
            ends[n - 1].as_secs_f64()
        );
    }
}

/// One call of `path` with `token`: how long it took, and whether it was served.
async fn timed(url: String, token: String, path: String) -> (Duration, bool) {
    let http = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("reqwest client");
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "get_repository_file",
        "arguments": {"project_id": "grp/proj", "file_path": path, "ref": "main"}
    }});
    let t0 = Instant::now();
    let response = http
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", format!("Bearer {token}"))
        .body(body.to_string())
        .send()
        .await;
    let served = match response {
        Ok(r) if r.status() == 200 => r
            .json::<Value>()
            .await
            .is_ok_and(|v| v["result"]["isError"] != json!(true)),
        _ => false,
    };
    (t0.elapsed(), served)
}

/// The tests' GitLab stand-in (`standin/src/gitlab/`): `owner` and `reader` read `grp/proj`
/// (the owner's answers [`OWNER_DELAY`] late); the probes' tokens are users who see no project
/// (`project: null` at once); `stalled-*` files say a size twice their text (not GitLab's cut, so
/// the server reads them over REST), and no REST body ever finishes.
async fn start_mock_gitlab() -> (String, wiremock::MockServer) {
    let mut users = vec![User::new("owner", 1, &[]), User::new("reader", 2, &[])];
    let strangers = (0..PROBES)
        .map(|i| format!("nobody-{i}"))
        .chain((0..40).map(|i| format!("x-{i}")));
    users.extend(strangers.map(|token| User::new(&token, 3, &["nobody/nothing"])));
    let gitlab = Gitlab {
        access: Access::Users(users),
        slow: Some(("owner".into(), OWNER_DELAY)),
        ..Gitlab::default()
    };
    // Each file its own text, so its own blob: the server's cache is content-addressed.
    let text = |path: &str| format!("{path}\n{}", "line of a private file\n".repeat(100));
    let stalled = [1usize, 4, 16].map(|n| format!("stalled-{n}.txt"));
    let quiet = ["quiet.txt", "private.txt", "private-2.txt"].map(String::from);
    for path in quiet.iter().chain(&stalled) {
        gitlab.put(path, text(path).into_bytes(), false);
    }
    for path in &stalled {
        let size = text(path).len() * 2;
        gitlab.raw_sizes.lock().unwrap().insert(path.clone(), size);
    }
    *gitlab.rest_bodies.lock().unwrap() = vec![Bent::Stalled; 1_000];
    let server = gitlab.start_quietly().await;
    (server.uri(), server)
}

/// The server process and its base URL.
fn start_server(gitlab: &str) -> (Child, String) {
    let timeout = REQUEST_TIMEOUT_SECS.to_string();
    http_server::start(gitlab, &["--request-timeout", &timeout], "error", false)
}
