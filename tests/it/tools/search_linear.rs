//! Search is linear in the text whatever the pattern (issue 26): the patterns that were
//! quadratic before (`\n` in an alternation made each candidate run to the text's end from
//! every line) answer quickly over MCP against the real binary, on a 25,000-line Python-like
//! file and a 12 MB log, from a local repository; and a pattern that can only match across
//! lines answers no match with a hint that says why.

use crate::support::mcp;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use mcp::{ok, spawn};
use serde_json::{Value, json};

/// A generous bound for one search of these files: the issue asks for 2 s of a release
/// build; a debug build of the engine is several times slower, and the quadratic search
/// took about a minute on the smaller file.
const BOUND: Duration = Duration::from_secs(20);

/// 25,000 lines shaped like a Python module: a 4-line head, then 3 lines per handler
/// (`def handler_{i}` on line `4 + 3i + 1`).
fn gateway_py() -> String {
    let mut text = String::from("import json\n\n\nclass Gateway:\n");
    for i in 0..8332 {
        text.push_str(&format!(
            "    def handler_{i}(self, request):\n        return self.dispatch(request, {i})\n\n"
        ));
    }
    text
}

/// About 12 MB of log lines.
fn big_log() -> String {
    let mut text = String::with_capacity(12_100_000);
    let mut i = 0u64;
    while text.len() < 12_000_000 {
        text.push_str(&format!(
            "2026-12-01T10:{:02}:{:02}Z INFO gateway handler_{} served request id={i:08x} in {}ms\n",
            i / 60 % 60,
            i % 60,
            i % 7000,
            i % 97
        ));
        i += 1;
    }
    text
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(["-c", "core.autocrlf=false", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

/// A repository holding `files` on `main`.
fn repository(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    git(dir.path(), &["init", "-q", "-b", "main"]);
    for (path, content) in files {
        std::fs::write(dir.path().join(path), content).expect("write a file");
    }
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "files"]);
    dir
}

fn search(path: &str, pattern: &str) -> Value {
    json!({"file_path": path, "pattern": pattern, "context_lines": 0, "max_chars": 2000})
}

/// Runs a search and returns its answer and how long it took.
async fn timed(server: &mcp::Server, path: &str, pattern: &str) -> (Value, Duration) {
    let started = Instant::now();
    let out = ok(&server.call(search(path, pattern)).await);
    (out, started.elapsed())
}

#[tokio::test]
async fn cross_line_patterns_are_linear_on_large_files() {
    let py = gateway_py();
    let log = big_log();
    let repo = repository(&[("gateway.py", &py), ("big.log", &log)]);
    let server = spawn(&["serve", "--repo", repo.path().to_str().unwrap()], &[]).await;
    let py_lines = py.lines().count() as u64;
    let log_lines = log.lines().count() as u64;
    // Every line's text matches `(?:.|\n)*$` alone (a line holds no `\n`).
    for (path, lines) in [("gateway.py", py_lines), ("big.log", log_lines)] {
        let (out, took) = timed(&server, path, r"(?:.|\n)*$").await;
        assert_eq!(out["metadata"]["matches"]["total"], lines, "{path}");
        assert!(took < BOUND, "{path}: {took:?}");
        eprintln!("{path}: (?:.|\\n)*$ in {took:?}");
    }
    let (out, took) = timed(&server, "gateway.py", r"(?:.|\n)+handler_6241").await;
    assert_eq!(
        out["metadata"]["matches"]["lines"],
        json!([4 + 3 * 6241 + 1])
    );
    assert!(took < BOUND, "{took:?}");
    eprintln!("gateway.py: (?:.|\\n)+handler_6241 in {took:?}");
    let (out, took) = timed(&server, "big.log", r"(?:.|\n)+handler_6241").await;
    let total = out["metadata"]["matches"]["total"].as_u64().unwrap();
    assert_eq!(
        total,
        log.lines().filter(|l| l.contains(" handler_6241 ")).count() as u64
    );
    assert!(took < BOUND, "{took:?}");
    eprintln!("big.log: (?:.|\\n)+handler_6241 in {took:?}");
    server.stop().await;
}

#[tokio::test]
async fn a_pattern_that_can_only_match_across_lines_says_so() {
    let repo = repository(&[("a.py", "def f():\n    return 1\n")]);
    let server = spawn(&["serve", "--repo", repo.path().to_str().unwrap()], &[]).await;
    for pattern in [r"f\(\):\n    return", r"\r\n", r"\):[\n]"] {
        let out = ok(&server.call(search("a.py", pattern)).await);
        assert_eq!(out["metadata"]["matches"]["total"], 0, "{pattern}");
        let hint = out["system_instruction"].as_str().unwrap();
        assert!(
            hint.contains(
                "A pattern matches within one line, and this one can only match across lines"
            ),
            "{hint}"
        );
    }
    // A pattern that merely misses says nothing about lines.
    let out = ok(&server.call(search("a.py", "zzz")).await);
    let hint = out["system_instruction"].as_str().unwrap();
    assert!(!hint.contains("across lines"), "{hint}");
    server.stop().await;
}
