//! Long-line bench (issue 34): a 3 MB file of one line read to its end by an agent that
//! follows only the hints (the first call each `system_instruction` names, merged into its
//! arguments), with the release binary over stdio against the in-process GitLab stand-in of
//! `support/mock_gitlab.rs`.
//!
//! Measured for a minified bundle (ASCII) and a line of 2-, 3- and 4-byte characters, at the
//! default budget and with `max_chars: 0` (as much as fits in one message):
//! - calls to the end, against the bound ceil(characters / budget) + 1 (exact);
//! - requests to GitLab and the bytes they carried (the content should come down once);
//! - wall time to the end, and characters per call.
//!
//! Run: `cargo bench --bench long_line`. The bench checks the call bound and the single
//! download (counts, not timings) and panics if either fails.

#[allow(dead_code)]
#[path = "support/mcp.rs"]
mod mcp;
#[allow(dead_code)]
#[path = "support/mock_gitlab.rs"]
mod mock_gitlab;

use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use mcp::{error_of, file_args, output_of, thousands};

/// The server's default budget (`--max-chars`).
const DEFAULT_BUDGET: u64 = 100_000;
/// The file's size, about.
const SIZE: usize = 3_000_000;

/// What reading one file to its end took.
struct Read {
    calls: u64,
    chars: u64,
    elapsed: Duration,
}

/// The first call a hint names, or `None` when it names none.
fn first_call(hint: &str) -> Option<Map<String, Value>> {
    let at = hint.find('{')?;
    let mut objects = serde_json::Deserializer::from_str(&hint[at..]).into_iter::<Value>();
    match objects.next()? {
        Ok(Value::Object(call)) => Some(call),
        _ => None,
    }
}

/// Follows the hints from the top of `path` until they name no call; checks the contents
/// rebuild `text`.
async fn read_to_the_end(
    server: &mcp::Server,
    path: &str,
    text: &str,
    max_chars: Option<u64>,
) -> Read {
    let mut args = file_args(path);
    if let Some(m) = max_chars {
        args.insert("max_chars".into(), m.into());
    }
    let (mut calls, mut rebuilt) = (0, String::new());
    let start = Instant::now();
    loop {
        let call = server.call(&args).await;
        if let Some(e) = error_of(&call) {
            panic!("{path}: {e}");
        }
        calls += 1;
        let out = output_of(call.result.as_ref().expect("a result")).expect("an output");
        rebuilt.push_str(out["content"].as_str().unwrap_or_default());
        let hint = out["system_instruction"].as_str().unwrap_or_default();
        match first_call(hint) {
            Some(next) => args.extend(next),
            None => break,
        }
    }
    let elapsed = start.elapsed();
    assert!(
        rebuilt == text,
        "{path}: the pieces do not rebuild the file"
    );
    Read {
        calls,
        chars: text.chars().count() as u64,
        elapsed,
    }
}

#[tokio::main]
async fn main() {
    let minified = "function f(a,b){return a+b}var s=\"k\";"
        .repeat(SIZE / 38)
        .to_string();
    let wide = "aé€😀".repeat(SIZE / 10);
    let files = [("dist/app.min.js", minified), ("data/wide.txt", wide)];
    let mock = mock_gitlab::start(files.iter().map(|(p, c)| (*p, c.clone())).collect()).await;
    println!(
        "| file | bytes | characters | max_chars | calls | bound | requests to GitLab | bytes from GitLab | time to the end | characters per call |"
    );
    println!("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|");
    for (path, text) in &files {
        for max_chars in [None, Some(0)] {
            let server = mcp::start(&mock.base_url).await;
            let before = mock.traffic.snapshot();
            let read = read_to_the_end(&server, path, text, max_chars).await;
            let traffic = mock.traffic.snapshot().since(&before).total();
            server.stop().await;
            let budget = max_chars.unwrap_or(DEFAULT_BUDGET);
            let bound = (budget > 0).then(|| read.chars.div_ceil(budget) + 1);
            println!(
                "| `{path}` | {} | {} | {} | {} | {} | {} | {} | {:.2} s | {} |",
                thousands(text.len() as u64),
                thousands(read.chars),
                max_chars.map_or("default (100,000)".to_string(), |m| m.to_string()),
                read.calls,
                bound.map_or("–".to_string(), |b| b.to_string()),
                traffic.requests,
                thousands(traffic.bytes),
                read.elapsed.as_secs_f64(),
                thousands(read.chars / read.calls),
            );
            if let Some(bound) = bound {
                assert!(
                    read.calls <= bound,
                    "{path}: {} calls, over {bound}",
                    read.calls
                );
            }
            assert!(
                traffic.bytes < 2 * text.len() as u64,
                "{path}: {} bytes from GitLab for a {}-byte file: downloaded more than once",
                traffic.bytes,
                text.len()
            );
        }
    }
}
