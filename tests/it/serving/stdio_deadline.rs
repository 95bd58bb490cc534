//! A deadline for stdio calls (issue 26): `--request-timeout-secs` applies over stdio as over
//! HTTP (same default, same tool error), and it stops the call's work, not just its answer:
//! a heavy search or the outline of a broken file (tree-sitter's error recovery: seconds) past
//! a small deadline is answered with the timeout error and the server's CPU time, read from
//! `/proc`, stops growing. Against a wiremock GitLab, through rmcp's client.

use crate::support::git_fixture;
use crate::support::gitlab_mock;
use crate::support::heavy_work;
use crate::support::mcp;
use crate::support::wire::Wire;

use std::time::Duration;

use gitlab_mock::*;
use heavy_work::{HEAVY_PATTERN, cpu_ticks, gitlab_serving, heavy_text};
use serde_json::json;
use wiremock::MockServer;

const TOKEN: &str = "glpat-SERVER-ssssssssssssss";

/// 600 KB of brackets, quotes, operators and keywords in no order, as TypeScript: a parse of
/// many seconds (20 s for 2 MiB in a release build), nearly all of it error recovery.
fn broken_typescript() -> String {
    let alphabet = b"(){}[]:;,.=+-*/'\"\n\t #@ function class if else xyz 0123";
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..600_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from(alphabet[(x % alphabet.len() as u64) as usize])
        })
        .collect()
}

/// 10,000 nested functions (140 KB): minutes of walk and a gigabyte of qualified names
/// before issue 35.
fn deep_javascript() -> String {
    format!(
        "{}{}",
        "function a(){\n".repeat(10_000),
        "}\n".repeat(10_000)
    )
}

/// 2,000 functions of 1,000-character names (2 MB): a "Did you mean" for a long name compared
/// it with each by edit distance (a minute before issue 35).
fn long_names() -> String {
    (0..2_000)
        .map(|i| format!("function {}{i:04}(){{}}\n", "n".repeat(996)))
        .collect()
}

async fn gitlab() -> MockServer {
    gitlab_serving(vec![
        text_node("big.txt", &heavy_text()),
        text_node("broken.ts", &broken_typescript()),
        text_node("small.txt", "a\nb\n"),
        text_node("deep.js", &deep_javascript()),
        text_node("names.js", &long_names()),
    ])
    .await
}

/// The server over stdio against `gitlab`, with `--request-timeout-secs secs`.
async fn serve(gitlab: &MockServer, secs: &str) -> mcp::Server {
    let uri = gitlab.uri();
    mcp::spawn(
        &["serve", "--request-timeout-secs", secs],
        &[("GITLAB_URL", uri.as_str()), ("GITLAB_TOKEN", TOKEN)],
    )
    .await
}

/// Asserts that the server at `pid` spends next to no CPU over the next second, `after`
/// something ended a call's work (a tick is 10 ms; work still running adds about 100 a second).
async fn assert_idle(pid: u32, after: &str) {
    let before = cpu_ticks(pid);
    tokio::time::sleep(Duration::from_secs(1)).await;
    let burnt = cpu_ticks(pid) - before;
    assert!(burnt < 50, "{burnt} ticks of CPU a second after {after}");
}

#[tokio::test]
async fn a_deadline_over_stdio_ends_a_heavy_search_and_its_work() {
    stopped_at_the_deadline(json!({"project_id": "grp/proj", "file_path": "big.txt",
        "ref": "main", "pattern": HEAVY_PATTERN, "max_chars": 200}))
    .await;
}

#[tokio::test]
async fn a_deadline_over_stdio_ends_the_parse_of_a_broken_file() {
    stopped_at_the_deadline(json!({"project_id": "grp/proj", "file_path": "broken.ts",
        "ref": "main", "outline": true}))
    .await;
}

#[tokio::test]
async fn a_broken_file_is_refused_once_its_parse_passes_its_budget() {
    // A deadline far away: the parse's own budget (3 s for 600 KB) ends it.
    let gitlab = gitlab().await;
    let server = serve(&gitlab, "120").await;
    let result = server
        .call(
            json!({"project_id": "grp/proj", "file_path": "broken.ts", "ref": "main",
                     "outline": true}),
        )
        .await;
    assert_eq!(
        mcp::err(&result),
        "File 'broken.ts' (600000 bytes) could not be outlined: its parse passed 3 s of CPU time, the most a file of its size may take (2 s and 1 s per MiB). That happens when a file has many syntax errors, or is not in the language its extension says (tree-sitter recovers from errors slowly). Use pattern to find lines in it instead."
    );
    assert_idle(server.pid(), "the refusal").await;
    // Not kept as an outline: asked again, it is parsed (and refused) again.
    let again = server
        .call(
            json!({"project_id": "grp/proj", "file_path": "broken.ts", "ref": "main",
                     "symbol": "anything"}),
        )
        .await;
    assert!(mcp::err(&again).contains("could not be outlined"));
    server.stop().await;
}

#[tokio::test]
async fn deep_nesting_and_a_did_you_mean_for_a_long_name_free_the_cpu_by_the_deadline() {
    let gitlab = gitlab().await;
    let server = serve(&gitlab, "2").await;
    // Two of each at once: as many as the blocking pool has slots on 2 cores.
    let deep = json!({"project_id": "grp/proj", "file_path": "deep.js", "ref": "main",
        "outline": true});
    let near = json!({"project_id": "grp/proj", "file_path": "names.js", "ref": "main",
        "symbol": "x".repeat(1_024)});
    let (a, b) = tokio::join!(server.call(deep.clone()), server.call(deep));
    for answer in [a, b] {
        // Answered (a bounded outline), or at the deadline: either way, no work left behind.
        let text = mcp::text(&answer);
        assert!(
            text.contains("Definitions nested 32 deep are not listed")
                || text.contains("did not finish within 2 s"),
            "{text}"
        );
    }
    let (a, b) = tokio::join!(server.call(near.clone()), server.call(near));
    for answer in [a, b] {
        let text = mcp::err(&answer);
        assert!(
            text.starts_with("No definition named 'xxxx") || text.contains("did not finish"),
            "{text}"
        );
    }
    assert_idle(server.pid(), "the deep outline and the long symbol").await;
    // A call that needs a pool slot (a search of a large file) is answered.
    let search = server
        .call(
            json!({"project_id": "grp/proj", "file_path": "names.js", "ref": "main",
            "pattern": "n0007\\(", "max_chars": 2000}),
        )
        .await;
    assert_eq!(mcp::ok(&search)["metadata"]["matches"]["total"], 1);
    server.stop().await;
}

/// A call with `args` on a server with a 2 s deadline: the timeout error, then no more CPU
/// spent on it, and the server goes on answering.
async fn stopped_at_the_deadline(args: serde_json::Value) {
    let gitlab = gitlab().await;
    let server = serve(&gitlab, "2").await;
    let result = server.call(args).await;
    let error = mcp::err(&result);
    assert_eq!(
        error,
        "The call did not finish within 2 s (the server's --request-timeout-secs). GitLab may be slow; try again."
    );
    // Past the deadline the work's thread is free.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_idle(server.pid(), "the deadline").await;
    // The server goes on answering.
    let small = server
        .call(json!({"project_id": "grp/proj", "file_path": "small.txt", "ref": "main"}))
        .await;
    assert_eq!(mcp::ok(&small)["content"], "a\nb\n");
    server.stop().await;
}

#[tokio::test]
async fn a_local_call_past_the_deadline_does_not_blame_gitlab() {
    // Issue 46: a local-mode timeout said "GitLab may be slow".
    let repo = git_fixture::build_with(&[("big.txt".to_string(), heavy_text().into_bytes())]);
    let dir = repo.path().to_str().unwrap();
    let server = mcp::spawn(
        &["serve", "--repo", dir, "--request-timeout-secs", "1"],
        &[],
    )
    .await;
    let result = server
        .call(json!({"file_path": "big.txt", "pattern": HEAVY_PATTERN, "max_chars": 2000}))
        .await;
    assert_eq!(
        mcp::err(&result),
        "The call did not finish within 1 s (the server's --request-timeout-secs): the work on the file took longer. Ask for less of it: a line range, a narrower pattern, or a smaller part of a large file."
    );
    server.stop().await;
}

/// A repository of the heavy text, and a server reading it over stdio with a far deadline,
/// running three heavy searches (more than the blocking pool's slots: many seconds of work).
fn busy_with_searches() -> (tempfile::TempDir, Wire) {
    let repo = git_fixture::build_with(&[("big.txt".to_string(), heavy_text().into_bytes())]);
    let mut wire = Wire::start_with(&repo, &["--request-timeout-secs", "600"]);
    for id in 100..103 {
        wire.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "get_repository_file",
            "arguments": {"file_path": "big.txt", "pattern": HEAVY_PATTERN, "max_chars": 200}}}),
        );
    }
    std::thread::sleep(Duration::from_millis(500));
    (repo, wire)
}

#[test]
fn a_server_whose_client_closed_stdin_stops_its_work_and_exits() {
    // Issue 46: a client that closed stdin left the process running its calls to their end
    // (an orphaned server kept two threads busy for minutes).
    let (_repo, mut wire) = busy_with_searches();
    assert!(
        wire.close_and_wait(Duration::from_secs(4)),
        "still running 4 s after its stdin closed"
    );
}

#[tokio::test]
async fn a_call_its_client_cancelled_stops_its_work() {
    // Issue 46: notifications/cancelled was logged and the work went on.
    let (_repo, mut wire) = busy_with_searches();
    for id in 100..103 {
        wire.send(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "not needed"}}),
        );
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_idle(wire.pid(), "the cancellations").await;
}

#[test]
fn the_deadline_flag_is_accepted_without_http() {
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_gitlab-file-mcp"))
        .args(["serve", "--request-timeout-secs", "5", "--help"])
        .output()
        .expect("run the binary");
    assert!(help.status.success(), "{help:?}");
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(text.contains("over stdio a tool error"), "{text}");
}
