//! What real clients do with a large answer, checked on the largest answers each tool gives
//! (issue 27), over MCP against a local repository:
//! - Claude Code shows the model `JSON.stringify(structuredContent)`, and of a result past its
//!   inline ceiling only the first 2,000 characters: those hold `path`, `ref` and the whole
//!   `system_instruction` of a single answer, and every entry's path, status and hint (the
//!   index) of a batch.
//! - The Python SDK (and so fast-agent) refuses a server-sent event over 1 MiB: every JSON-RPC
//!   message of an answer, whatever the arguments, is at most 1,000,000 bytes, counted on the
//!   wire (stdio lines), `max_chars: 0` included, on the most expensive characters too.

use crate::support::git_fixture;
use crate::support::mcp;

use crate::support::wire::Wire;
use mcp::{Server, ok, spawn};
use serde_json::{Value, json};

/// Claude Code's preview of a result it saved to a file: this many characters of its head.
const PREVIEW_CHARS: usize = 2_000;

/// The files of the largest answers: a 2 MB minified line, a 2.4 MB file of 1,000-byte lines,
/// a file with 3,000 matching lines among 30,000, twenty 3,000-line files, a directory of 150.
fn large_files() -> Vec<(String, Vec<u8>)> {
    let mut files = vec![
        (
            "min.js".to_string(),
            format!("var a=[{}];\n", "1234567,".repeat(250_000)).into_bytes(),
        ),
        (
            "data.csv".to_string(),
            format!("{}\n", "\"12345678\",".repeat(90))
                .repeat(2_400)
                .into_bytes(),
        ),
        (
            "big.py".to_string(),
            (0..30_000)
                .map(|i| match i % 10 {
                    0 => format!("def needle_{i}(): pass\n"),
                    _ => format!("x = {i}  # filler\n"),
                })
                .collect::<String>()
                .into_bytes(),
        ),
    ];
    for i in 0..20 {
        let text: String = (0..3_000)
            .map(|j| format!("line {j} of file {i} with \"quotes\" and \\ backslashes\n"))
            .collect();
        files.push((format!("src/file_{i:02}.txt"), text.into_bytes()));
    }
    files.push((
        "quotes.txt".to_string(),
        format!("{}\n", "\"\\".repeat(400))
            .repeat(3_000)
            .into_bytes(),
    ));
    files.push((
        "controls.txt".to_string(),
        format!("{}\n", "\u{1}".repeat(800))
            .repeat(3_000)
            .into_bytes(),
    ));
    for i in 0..150 {
        files.push((format!("many/entry_{i:03}.txt"), b"x\n".to_vec()));
    }
    files
}

async fn serve(repo: &tempfile::TempDir) -> Server {
    let path = repo.path().to_str().unwrap();
    spawn(&["serve", "--repo", path], &[]).await
}

/// The compact JSON of an answer's `structuredContent`, as `JSON.stringify` writes it.
fn compact(result: &rmcp::model::CallToolResult) -> String {
    serde_json::to_string(&ok(result)).unwrap()
}

/// The first [`PREVIEW_CHARS`] characters of `text`.
fn preview(text: &str) -> &str {
    let end = text
        .char_indices()
        .nth(PREVIEW_CHARS)
        .map_or(text.len(), |(i, _)| i);
    &text[..end]
}

/// The single tool's largest answers: a 1 MiB window, 2,000 long lines, 2,000 matches.
fn largest_single_calls() -> Vec<Value> {
    vec![
        json!({"file_path": "min.js", "ref": "main", "max_chars": 0}),
        json!({"file_path": "data.csv", "ref": "main", "max_chars": 0, "limit": 2000}),
        json!({"file_path": "src/file_00.txt", "ref": "main", "limit": 2000}),
        json!({"file_path": "big.py", "ref": "main", "pattern": "needle", "context_lines": 0, "max_chars": 0}),
        json!({"file_path": "big.py", "ref": "main", "pattern": "needle", "context_lines": 50, "max_chars": 0}),
        json!({"file_path": "big.py", "ref": "main", "pattern": "needle"}),
    ]
}

#[tokio::test]
async fn a_single_answer_s_preview_holds_path_ref_and_the_whole_hint() {
    let repo = git_fixture::build_with(&large_files());
    let server = serve(&repo).await;
    for args in largest_single_calls() {
        let result = server.call(args.clone()).await;
        let answer = ok(&result);
        let text = compact(&result);
        let head = preview(&text);
        let hint = answer["system_instruction"]
            .as_str()
            .unwrap_or_else(|| panic!("{args}: the largest answers all have a hint"));
        let path = format!("{{\"path\":{},\"ref\":\"main\"", answer["path"]);
        assert!(head.starts_with(&path), "{args}: {head}");
        let hint = format!("\"system_instruction\":{}", json!(hint));
        assert!(
            head.contains(&hint),
            "{args}: the hint is at {:?} of {}: {head}",
            text.find(&hint),
            text.len()
        );
        assert!(text.len() > 20 * PREVIEW_CHARS, "{args}: a large answer");
    }
    server.stop().await;
}

/// The batch's largest answers: twenty large windows, twenty windows past the budget, and
/// a mix of every kind of entry.
fn largest_batch_calls() -> Vec<Value> {
    let twenty = |limit: u64| -> Vec<Value> {
        (0..20)
            .map(|i| json!({"file_path": format!("src/file_{i:02}.txt"), "limit": limit}))
            .collect()
    };
    let mut mixed = vec![
        json!({"file_path": "min.js"}),
        json!({"file_path": "big.py", "pattern": "needle", "context_lines": 0}),
        json!({"file_path": "many"}),
        json!({"file_path": "no/such/file.txt"}),
        json!({"file_path": "data.csv", "limit": 2000}),
    ];
    mixed.extend(twenty(2000).into_iter().take(15));
    vec![
        json!({"ref": "main", "max_chars": 0, "files": twenty(2000)}),
        json!({"ref": "main", "files": twenty(2000)}),
        json!({"ref": "main", "files": twenty(500)}),
        json!({"ref": "main", "max_chars": 0, "files": mixed}),
    ]
}

#[tokio::test]
async fn a_batch_s_preview_holds_every_entry_s_path_status_and_hint() {
    let repo = git_fixture::build_with(&large_files());
    let server = serve(&repo).await;
    for args in largest_batch_calls() {
        let result = server.call_many(args.clone()).await;
        let answer = ok(&result);
        let text = compact(&result);
        let head = preview(&text);
        let index = serde_json::to_string(&answer["index"]).unwrap();
        assert!(
            head.starts_with(&format!("{{\"index\":{index},\"files\":")),
            "{args}: the index ends at {} of {}: {head}",
            index.len(),
            text.len()
        );
        let files = answer["files"].as_array().unwrap();
        assert_eq!(answer["index"].as_array().unwrap().len(), files.len());
        for (line, entry) in answer["index"].as_array().unwrap().iter().zip(files) {
            assert_eq!(line["path"], entry["path"], "{line}");
            let hint = entry["system_instruction"]
                .as_str()
                .or(entry["error"].as_str());
            match (hint, line["hint"].as_str()) {
                (None, None) => assert_eq!(line["status"], "complete", "{line}"),
                (Some(whole), Some(shown)) => {
                    let head = shown.strip_suffix('…').unwrap_or(shown);
                    assert!(head.len() >= 20, "{line}");
                    assert!(
                        whole.starts_with(head) || named_call(whole).starts_with(head),
                        "{line}: {whole}"
                    );
                }
                other => panic!("{line}: {other:?}"),
            }
        }
        assert!(text.len() > 20 * PREVIEW_CHARS, "{args}: a large answer");
    }
    server.stop().await;
}

/// The arguments of the call a hint names (`… with {…}`), compact.
fn named_call(hint: &str) -> String {
    let at = hint.find(" with {").expect("a hint naming a call") + " with ".len();
    let mut stream = serde_json::Deserializer::from_str(&hint[at..]).into_iter::<Value>();
    stream.next().unwrap().unwrap().to_string()
}

#[test]
fn every_answer_is_one_message_of_at_most_a_million_bytes() {
    let repo = git_fixture::build_with(&large_files());
    let mut wire = Wire::start(&repo);
    let twenty: Vec<Value> = (0..20)
        .map(|i| json!({"file_path": format!("src/file_{i:02}.txt"), "limit": 2000}))
        .collect();
    let heavy: Vec<Value> = ["quotes.txt", "controls.txt", "min.js", "data.csv"]
        .iter()
        .cycle()
        .take(20)
        .map(|f| json!({"file_path": f, "limit": 2000}))
        .collect();
    let mut calls: Vec<(&str, Value)> = largest_single_calls()
        .into_iter()
        .map(|a| ("get_repository_file", a))
        .collect();
    for file in ["quotes.txt", "controls.txt"] {
        calls.push((
            "get_repository_file",
            json!({"file_path": file, "ref": "main", "max_chars": 0, "limit": 2000}),
        ));
        calls.push((
            "get_repository_file",
            json!({"file_path": file, "ref": "main", "pattern": ".", "max_chars": 0}),
        ));
    }
    calls.push((
        "get_repository_files",
        json!({"ref": "main", "max_chars": 0, "files": twenty}),
    ));
    calls.push((
        "get_repository_files",
        json!({"ref": "main", "max_chars": 0, "files": heavy}),
    ));
    for (name, args) in calls {
        let line = wire.request("tools/call", json!({"name": name, "arguments": args}));
        assert!(line.len() <= 1_000_000, "{args}: {} bytes", line.len());
        let message: Value = serde_json::from_str(&line).unwrap();
        let answer = &message["result"]["structuredContent"];
        assert!(
            answer.is_object(),
            "{args}: {}",
            &line[..line.len().min(300)]
        );
        // A page of big.py's matches is 2,000 short lines: far under the bound.
        if args["max_chars"] != 0 || args["file_path"] == "big.py" {
            continue;
        }
        // As much as fits: each of these asks for more than one message holds, so the answer
        // is not far under the bound, and says how to read on.
        assert!(line.len() > 800_000, "{args}: only {} bytes", line.len());
        let text = answer.to_string();
        assert!(
            text.contains("call again with")
                || text.contains("call get_repository_file with")
                || text.contains("fits in one message (1000000 bytes, the content being sent twice) and only its first"),
            "{args}: no next call: {}", &text[..text.len().min(600)]
        );
    }
}

/// The longest `file_path` the tool takes, of `"`: each character is sent as up to 6 bytes.
fn quotes_path() -> String {
    "\"".repeat(4096)
}

#[test]
fn arguments_echoed_in_a_batch_are_quoted_to_100_characters() {
    // Issue 46: 20 entries naming a missing 4,096-character path of `"` made a message of
    // 1,006,876 bytes (1,496,916 with the same string as the ref): each error entry and the
    // index carried the whole path and ref.
    let long_dir = "\"\\".repeat(100);
    let long_path = format!("{}/f.txt", vec![long_dir.as_str(); 19].join("/"));
    let repo = git_fixture::build_with(&[(long_path.clone(), b"one\ntwo\n".to_vec())]);
    let mut wire = Wire::start(&repo);
    let missing: Vec<Value> = (0..20)
        .map(|_| json!({"file_path": quotes_path()}))
        .collect();
    let missing_ref: Vec<Value> = (0..20)
        .map(|_| json!({"file_path": quotes_path(), "ref": quotes_path()}))
        .collect();
    let existing: Vec<Value> = (0..20).map(|_| json!({"file_path": long_path})).collect();
    for (args, most) in [
        (json!({"ref": "main", "files": missing}), 100_000),
        (json!({"files": missing_ref}), 100_000),
        (
            json!({"ref": "main", "max_chars": 10, "files": existing}),
            1_000_000,
        ),
    ] {
        let call = json!({"name": "get_repository_files", "arguments": args});
        let line = wire.request("tools/call", call);
        assert!(line.len() <= most, "{} bytes", line.len());
        let message: Value = serde_json::from_str(&line).unwrap();
        let answer = &message["result"]["structuredContent"];
        let chars = |v: &Value| v.as_str().map_or(0, |s| s.chars().count());
        for entry in answer["index"].as_array().unwrap() {
            assert!(chars(&entry["path"]) <= 101, "{entry}");
        }
        for entry in answer["files"].as_array().unwrap() {
            if entry.get("error").is_some() {
                assert!(chars(&entry["path"]) <= 101, "{entry}");
                assert!(chars(&entry["ref"]) <= 101, "{entry}");
                assert!(chars(&entry["error"]) < 1_000, "{entry}");
            }
        }
    }
}
