//! An agent that follows only the hints (issue 34): from the first window of a file, it merges
//! the first argument object of each `system_instruction` into its previous arguments and calls
//! again, until a hint names no call. The contents it gets, joined, must be the file byte for
//! byte, with no gap and no overlap, in a bounded number of calls; every window that starts
//! inside a line says so in `metadata.columns`.
//!
//! Files: generated ones (lines of 0 to a few hundred characters of 1- to 4-byte UTF-8
//! characters, tabs and lone `\r`, ending in `\n`, `\r\n` or nothing), from proptest's
//! deterministic runner so a failure repeats, plus fixed edges: a 3 MB single line of mixed
//! widths without a final newline, a 300 KB line among short ones, an empty file, blank lines.
//! Budgets: none sent (the default), `0` (one message), 1, 7 and 50 characters. Tools: the
//! single one and the batch (the entry followed; the call's `max_chars` its budget), against
//! the wiremock GitLab and over a local repository. The 3 MB line only with the budgets that
//! read it in a few dozen calls.

use crate::support::git_fixture;
use crate::support::gitlab_mock::text_node;
use crate::support::heavy_work::gitlab_serving;
use crate::support::mcp::{self, first_call, ok};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use serde_json::{Map, Value, json};

/// Generated files per run.
const GENERATED: usize = 24;

/// The budgets an agent sends (`None`: it sends none).
const BUDGETS: [Option<u64>; 5] = [None, Some(0), Some(1), Some(7), Some(50)];

/// A small budget reads a file only when this many pieces of it cover the file.
const SMALL_BUDGET_CALLS: u64 = 40;

/// The server's default budget.
const DEFAULT_BUDGET: usize = 100_000;

/// Which tool the agent calls.
#[derive(Debug, Clone, Copy)]
enum Tool {
    Single,
    Batch,
}

/// Where the files are.
#[derive(Debug, Clone, Copy)]
enum Mode {
    Gitlab,
    Local,
}

fn line() -> impl Strategy<Value = String> {
    let text = prop_oneof![
        4 => "[a-z é€😀\\t\\r]{0,12}",
        1 => "[aé€😀]{100,300}",
    ];
    (text, prop::sample::select(&["\n", "\r\n", ""][..])).prop_map(|(t, end)| t + end)
}

fn file() -> impl Strategy<Value = String> {
    prop::collection::vec(line(), 0..30).prop_map(|lines| lines.concat())
}

/// The files of a run: generated, then the fixed edges.
fn files() -> Vec<(String, String)> {
    let mut runner = TestRunner::deterministic();
    let mut files: Vec<(String, String)> = (0..GENERATED)
        .map(|i| {
            let text = file().new_tree(&mut runner).expect("a file").current();
            (format!("gen/{i}.txt"), text)
        })
        .collect();
    let mixed = "a€😀é".repeat(3_000_000 / 10);
    let long_among_short = format!("a\nb\n{}\nc\r\n\n", "x€".repeat(150_000));
    files.push(("edge/one-line.min.js".into(), mixed));
    files.push(("edge/long-among-short.txt".into(), long_among_short));
    files.push(("edge/empty.txt".into(), String::new()));
    files.push(("edge/blank.txt".into(), "\n\n\r\n\n".into()));
    files
}

/// The most calls a file may take: a piece per budget's worth of characters (a line cut counts
/// one more), plus one per line.
fn call_bound(text: &str, budget: Option<u64>) -> usize {
    let chars = text.chars().count();
    let piece = match budget {
        None => DEFAULT_BUDGET,
        Some(0) => 100_000, // what fits in one message is larger; a safe floor
        Some(n) => n as usize,
    };
    chars.div_ceil(piece) + text.split_inclusive('\n').count() * 2 + 2
}

/// One answer of `tool` for the entry `args` (and the call's `max_chars`): the entry's output.
async fn answer(
    server: &mcp::Server,
    tool: Tool,
    args: &Map<String, Value>,
    budget: Option<u64>,
) -> Value {
    let mut call = Value::Object(args.clone());
    match tool {
        Tool::Single => {
            if let Some(b) = budget {
                call["max_chars"] = b.into();
            }
            ok(&server.call(call).await)
        }
        Tool::Batch => {
            let mut many = json!({"files": [call]});
            if let Some(b) = budget {
                many["max_chars"] = b.into();
            }
            let out = ok(&server.call_many(many).await);
            out["files"][0].clone()
        }
    }
}

/// Follows the hints for `path` and checks the contents rebuild `text`.
async fn follow(
    server: &mcp::Server,
    mode: Mode,
    tool: Tool,
    path: &str,
    text: &str,
    budget: Option<u64>,
) {
    let case = format!("{mode:?} {tool:?} {path} max_chars {budget:?}");
    let mut args = Map::new();
    args.insert("file_path".into(), path.into());
    if let Mode::Gitlab = mode {
        args.insert("project_id".into(), "grp/proj".into());
        args.insert("ref".into(), "main".into());
    }
    let mut rebuilt = String::new();
    let bound = call_bound(text, budget);
    for calls in 1..=bound {
        let out = answer(server, tool, &args, budget).await;
        assert!(out.get("error").is_none(), "{case}: {out}");
        let content = out["content"].as_str().unwrap_or_default();
        let column = args.get("column").and_then(Value::as_u64).unwrap_or(0);
        if column > 0 {
            assert_eq!(out["metadata"]["columns"]["start"], column, "{case}");
        }
        assert!(
            text[rebuilt.len()..].starts_with(content),
            "{case}: call {calls} returned {} bytes that do not continue the {} read so far (args {args:?})",
            content.len(),
            rebuilt.len()
        );
        rebuilt.push_str(content);
        let hint = out["system_instruction"].as_str().unwrap_or_default();
        assert!(!hint.contains("not retrievable"), "{case}: {hint}");
        let Some(next) = first_call(hint) else {
            assert!(
                rebuilt.len() == text.len(),
                "{case}: stopped after {} of {} bytes: {hint}",
                rebuilt.len(),
                text.len()
            );
            return;
        };
        assert!(
            rebuilt.len() < text.len() || text.is_empty(),
            "{case}: a hint past the end: {hint}"
        );
        for (k, v) in next {
            // In a batch the budget is the call's, as the hint repeats it.
            if matches!(tool, Tool::Batch) && k == "max_chars" {
                assert_eq!(Some(v.as_u64().unwrap()), budget, "{case}");
                continue;
            }
            args.insert(k, v);
        }
    }
    panic!(
        "{case}: more than {bound} calls, {} of {} bytes read",
        rebuilt.len(),
        text.len()
    );
}

/// The budgets `text` is read with: every file without one and with `0`; a small budget only
/// where the calls it takes stay few (a budget of 1 is a call per character).
fn budgets_for(text: &str) -> Vec<Option<u64>> {
    let chars = text.chars().count();
    BUDGETS
        .into_iter()
        .filter(|b| match b {
            None | Some(0) => true,
            Some(n) => chars as u64 <= *n * SMALL_BUDGET_CALLS,
        })
        .collect()
}

#[tokio::test]
async fn following_the_hints_rebuilds_every_file_from_gitlab() {
    let files = files();
    let nodes = files.iter().map(|(p, t)| text_node(p, t)).collect();
    let gitlab = gitlab_serving(nodes).await;
    let server = mcp::spawn_gitlab(&gitlab.uri(), None).await;
    for (path, text) in &files {
        for budget in budgets_for(text) {
            follow(&server, Mode::Gitlab, Tool::Single, path, text, budget).await;
            if text.len() < 1_000_000 || budget == Some(0) {
                follow(&server, Mode::Gitlab, Tool::Batch, path, text, budget).await;
            }
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn following_the_hints_rebuilds_every_file_from_a_local_repository() {
    let files = files();
    let bytes: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|(p, t)| (p.clone(), t.clone().into_bytes()))
        .collect();
    let repo = git_fixture::build_with(&bytes);
    let path = repo.path().to_str().expect("a UTF-8 temp path");
    let server = mcp::spawn(&["serve", "--repo", path], &[]).await;
    for (path, text) in &files {
        for budget in budgets_for(text) {
            if text.len() < 1_000_000 || budget == Some(0) {
                follow(&server, Mode::Local, Tool::Single, path, text, budget).await;
                follow(&server, Mode::Local, Tool::Batch, path, text, budget).await;
            }
        }
    }
    server.stop().await;
}
