//! Issue 46's batch bounds over MCP, against a local repository: a batch holds at most its
//! `max_chars` (but for its first entry's floor, the single tool's first line), and its index
//! says `partial` only for an entry that did not get all it asked for.

use crate::support::git_fixture;
use crate::support::mcp;

use mcp::{ok, spawn};
use serde_json::json;

/// What the budget charges for `text`: a C0 control other than tab, newline, carriage return,
/// backspace and form feed 6 (sent as `\u00XX`), every other character 1.
fn charge(text: &str) -> u64 {
    text.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' | '\u{8}' | '\u{c}' => 1,
            c if (c as u32) < 0x20 => 6,
            _ => 1,
        })
        .sum()
}

/// A repository of multibyte lines (`a.txt`), a Go file of commented functions (`m.go`), a
/// one-line bundle of 500 functions (`one.js`) and 2,600 short lines (`long.txt`), and the
/// server over it.
pub(crate) async fn start() -> (tempfile::TempDir, mcp::Server) {
    let lines: String = (1..200).map(|i| format!("line {i} héllo ✓\n")).collect();
    let go: String = std::iter::once("package main\n\n".to_string())
        .chain((0..300).map(|i| format!("// doc {i}\nfunc F{i}() {{}}\n\n")))
        .collect();
    let bundle = (0..500)
        .map(|i| format!("function f{i}(){{}}"))
        .collect::<Vec<_>>()
        .join(";")
        + "\n";
    let repo = git_fixture::build_with(&[
        ("a.txt".into(), lines.into_bytes()),
        ("m.go".into(), go.into_bytes()),
        ("one.js".into(), bundle.into_bytes()),
        ("long.txt".into(), "x\n".repeat(2600).into_bytes()),
    ]);
    let server = spawn(&["serve", "--repo", repo.path().to_str().unwrap()], &[]).await;
    (repo, server)
}

/// Issue 46: a batch passed its `max_chars` when an entry after the first took its floor (a
/// first line with its number, a first definition) past what the entries before it left: 55
/// of 50 characters with line numbers, 2,007 of 2,000 with an outline entry. Every pair of
/// entries (windows, a search, outlines, a symbol, an error), tiny budgets, numbered or not.
#[tokio::test]
async fn a_batch_holds_at_most_its_budget_but_for_its_first_entry() {
    let (_repo, server) = start().await;
    let entries = [
        json!({"file_path": "a.txt"}),
        json!({"file_path": "a.txt", "start_line": 3, "end_line": 5}),
        json!({"file_path": "a.txt", "pattern": "1"}),
        json!({"file_path": "m.go", "outline": true}),
        json!({"file_path": "one.js", "outline": true}),
        json!({"file_path": "m.go", "symbol": "F3"}),
        json!({"file_path": "nope.txt"}),
    ];
    let mut over = Vec::new();
    for max_chars in [10, 25, 50, 55, 2000] {
        for line_numbers in [false, true] {
            for first in &entries {
                for second in &entries {
                    let call = json!({"max_chars": max_chars, "line_numbers": line_numbers,
                        "files": [first, second]});
                    let answer = ok(&server.call_many(call.clone()).await);
                    let charged: Vec<u64> = answer["files"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|f| f["content"].as_str().map_or(0, charge))
                        .collect();
                    let floor = charged.iter().copied().find(|&c| c > 0).unwrap_or(0);
                    let total: u64 = charged.iter().sum();
                    if total > max_chars.max(floor) {
                        over.push(format!("{total} of {max_chars} ({charged:?}): {call}"));
                    }
                }
            }
        }
    }
    assert!(
        over.is_empty(),
        "{} batches over:\n{}",
        over.len(),
        over.join("\n")
    );
    server.stop().await;
}

/// Issue 46: the index said `partial` for entries that got all they asked for (a window of
/// lines 3-5 returned whole, whose `truncated` is true as the file goes on; a symbol read
/// whole); it still says so for those that did not.
#[tokio::test]
async fn the_index_says_partial_only_for_entries_not_given_all_they_asked() {
    let (_repo, server) = start().await;
    let cases = [
        (
            json!({"file_path": "a.txt", "start_line": 3, "end_line": 5}),
            "complete",
        ),
        (
            json!({"file_path": "a.txt", "offset": 10, "limit": 2}),
            "complete",
        ),
        (json!({"file_path": "a.txt", "offset": 198}), "complete"),
        (json!({"file_path": "m.go", "symbol": "F3"}), "complete"),
        (
            json!({"file_path": "a.txt", "pattern": "^line 1 "}),
            "complete",
        ),
        (
            json!({"file_path": "m.go", "outline": true, "end_line": 10}),
            "complete",
        ),
        (json!({"file_path": "a.txt", "start_line": 190}), "complete"),
        // The file, asked with no lines: its first 500 lines are not all of it.
        (json!({"file_path": "m.go"}), "partial"),
        (
            json!({"file_path": "a.txt", "start_line": 1, "end_line": 2500}),
            "complete",
        ),
        (
            json!({"file_path": "long.txt", "start_line": 1, "end_line": 2500}),
            "partial",
        ),
        (
            json!({"file_path": "long.txt", "start_line": 2001}),
            "complete",
        ),
        (json!({"file_path": "m.go", "outline": true}), "complete"),
        (json!({"file_path": "a.txt", "pattern": "1"}), "complete"),
    ];
    for (entry, want) in cases {
        let answer = ok(&server.call_many(json!({"files": [entry.clone()]})).await);
        assert_eq!(
            answer["index"][0]["status"], want,
            "{entry}: {}",
            answer["index"]
        );
    }
    // Cut by the budget: partial, wherever the cut falls.
    for entry in [
        json!({"file_path": "a.txt", "start_line": 3, "end_line": 5}),
        json!({"file_path": "m.go", "symbol": "F3"}),
        json!({"file_path": "m.go", "outline": true}),
        json!({"file_path": "a.txt", "pattern": "1"}),
    ] {
        let call = json!({"max_chars": 12, "files": [entry.clone()]});
        let answer = ok(&server.call_many(call).await);
        assert_eq!(answer["index"][0]["status"], "partial", "{entry}: {answer}");
    }
    server.stop().await;
}
