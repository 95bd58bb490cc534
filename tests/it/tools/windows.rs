//! Windows fitted to the agent, end to end over stdio against a wiremock GitLab: the seeds'
//! (forgejo-mcp's) line-range scenarios, the character budget (`max_chars`) and its hints,
//! `line_numbers`, and the declared result ceiling: every call here that sends no `max_chars`
//! gets a text block no longer than `tools/list`'s `anthropic/maxResultSizeChars`, counted in
//! UTF-16 units as a JavaScript client counts it.

use crate::support::gitlab_mock;
use crate::support::mcp;

use gitlab_mock::*;
use mcp::{err, ok, spawn_gitlab, text};
use serde_json::{Value, json};
use wiremock::MockServer;

/// A GitLab serving `files` (path, content) of project `grp/proj` at any ref.
async fn gitlab_serving(files: &[(&str, &str)]) -> MockServer {
    let gitlab = MockServer::start().await;
    for &(path, content) in files {
        graphql()
            .and(Variables(json!({ "paths": [path] })))
            .respond_with(json_response(project_answer(
                "grp/proj",
                42,
                vec![text_node(path, content)],
            )))
            .mount(&gitlab)
            .await;
    }
    gitlab
}

/// The server under test, with the ceiling it declares.
struct Tool {
    server: mcp::Server,
    ceiling: usize,
}

impl Tool {
    async fn start(gitlab: &MockServer) -> Tool {
        let server = spawn_gitlab(&gitlab.uri(), None).await;
        let tools = server.list_tools().await;
        let tool = serde_json::to_value(&tools[0]).unwrap();
        let ceiling = tool["_meta"]["anthropic/maxResultSizeChars"]
            .as_u64()
            .expect("a declared ceiling") as usize;
        Tool { server, ceiling }
    }

    /// Calls the tool with `extra` arguments on top of the file's; a call without `max_chars`
    /// must fit the declared ceiling.
    async fn read(&self, path: &str, extra: Value) -> Value {
        let mut args = json!({"project_id": "grp/proj", "file_path": path, "ref": "main"});
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        let result = self.server.call(args.clone()).await;
        let out = ok(&result);
        if args.get("max_chars").is_none() {
            let units = text(&result).encode_utf16().count();
            assert!(
                units <= self.ceiling,
                "{path} {extra}: a {units}-unit text block over the declared {}",
                self.ceiling
            );
        }
        out
    }

    async fn fail(&self, path: &str, extra: Value) -> String {
        let mut args = json!({"project_id": "grp/proj", "file_path": path, "ref": "main"});
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        err(&self.server.call(args).await)
    }

    async fn stop(self) {
        self.server.stop().await;
    }
}

/// The hint of an output, `""` when there is none.
fn hint(out: &Value) -> &str {
    out["system_instruction"].as_str().unwrap_or_default()
}

/// Every call object (`{...}`) a hint names, in order.
fn calls_in(hint: &str) -> Vec<Value> {
    let mut calls = Vec::new();
    let mut rest = hint;
    while let Some(start) = rest.find('{') {
        let end = start + rest[start..].find('}').expect("a closing brace");
        calls.push(serde_json::from_str(&rest[start..=end]).expect("a JSON call"));
        rest = &rest[end + 1..];
    }
    calls
}

fn returned(out: &Value) -> (u64, u64) {
    let lines = &out["metadata"]["returned_lines"];
    (
        lines["start"].as_u64().unwrap(),
        lines["end"].as_u64().unwrap(),
    )
}

fn numbered_lines(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[tokio::test]
async fn forgejos_line_range_scenarios() {
    let file = numbered_lines(600);
    let gitlab = gitlab_serving(&[("n.txt", &file)]).await;
    let tool = Tool::start(&gitlab).await;
    let lines = |a: u64, b: u64| (a..=b).map(|i| format!("line {i}\n")).collect::<String>();

    // In range, in the caller's vocabulary.
    let out = tool
        .read("n.txt", json!({"start_line": 2, "end_line": 4}))
        .await;
    assert_eq!(out["content"], lines(2, 4));
    assert_eq!(
        calls_in(hint(&out)),
        [json!({"start_line": 5, "end_line": 7})]
    );
    // Start omitted: from line 1.
    let out = tool.read("n.txt", json!({"end_line": 3})).await;
    assert_eq!(
        (returned(&out), out["content"].clone()),
        ((1, 3), json!(lines(1, 3)))
    );
    // End omitted: to the end.
    let out = tool.read("n.txt", json!({"start_line": 590})).await;
    assert_eq!(returned(&out), (590, 600));
    assert!(out.get("system_instruction").is_none());
    // End beyond the file: clamped.
    let out = tool
        .read("n.txt", json!({"start_line": 598, "end_line": 9999}))
        .await;
    assert_eq!(out["content"], lines(598, 600));
    // Start below 1: clamped to 1 (also sent as a string).
    for start in [json!(-5), json!("-5"), json!(0)] {
        let out = tool
            .read("n.txt", json!({"start_line": start, "end_line": 3}))
            .await;
        assert_eq!(out["content"], lines(1, 3), "{start}");
    }
    // End 0 alone, or below 1: to the end.
    let out = tool
        .read("n.txt", json!({"start_line": 4, "end_line": 0}))
        .await;
    assert_eq!(returned(&out), (4, 600));
    let out = tool
        .read("n.txt", json!({"start_line": 599, "end_line": -1}))
        .await;
    assert_eq!(returned(&out), (599, 600));
    // Inverted after clamping: an error naming both numbers.
    let e = tool
        .fail("n.txt", json!({"start_line": 7, "end_line": 3}))
        .await;
    assert_eq!(
        e,
        "Invalid line range: start line 7 is after end line 3. Pass start_line less than or equal to end_line."
    );
    // A start past the end is past the end (issue 34), before it is inverted.
    let out = tool
        .read("n.txt", json!({"start_line": 900, "end_line": 3}))
        .await;
    assert_eq!(
        hint(&out),
        "Start line 900 is past the end of the file (600 lines). Call again with a start_line of at most 600."
    );
    // Both zero: no line range, the default window and its offset/limit hint.
    let out = tool
        .read("n.txt", json!({"start_line": 0, "end_line": 0}))
        .await;
    assert_eq!(returned(&out), (1, 500));
    assert_eq!(calls_in(hint(&out)), [json!({"offset": 500, "limit": 500})]);
    let out = tool
        .read(
            "n.txt",
            json!({"start_line": 0, "end_line": 0, "offset": 550}),
        )
        .await;
    assert_eq!(returned(&out), (551, 600));
    tool.stop().await;
}

#[tokio::test]
async fn the_default_budget_fits_long_lines_and_the_hints_rebuild_the_file() {
    // Issue 10's case: 1 KiB lines, 500 of which are 512,000 characters.
    let file = format!("{}\n", "x".repeat(1023)).repeat(500);
    let gitlab = gitlab_serving(&[("data.json", &file)]).await;
    let tool = Tool::start(&gitlab).await;
    assert_eq!(tool.ceiling, 280_000);
    let out = tool.read("data.json", json!({})).await;
    assert_eq!(returned(&out), (1, 97));
    assert_eq!(out["content"].as_str().unwrap().len(), 97 * 1024);
    assert_eq!(out["metadata"]["truncated"], true);
    assert_eq!(
        hint(&out),
        "File truncated. Remaining lines: 403. To view more, call again with {\"offset\": 97, \"limit\": 500}. The window was shortened to stay within the default 100000 character budget (max_chars); the next window starts after the last line shown."
    );
    // Following the hints visits every line once and rebuilds the file.
    let mut rebuilt = out["content"].as_str().unwrap().to_string();
    let mut next = calls_in(hint(&out)).first().cloned();
    let mut calls = 1;
    while let Some(call) = next {
        let out = tool.read("data.json", call).await;
        rebuilt.push_str(out["content"].as_str().unwrap());
        next = calls_in(hint(&out)).first().cloned();
        calls += 1;
    }
    assert_eq!((calls, rebuilt == file), (6, true));
    tool.stop().await;
}

#[tokio::test]
async fn the_callers_budget_and_line_numbers_are_repeated_in_the_hint() {
    let file = format!("{}\n", "y".repeat(1023)).repeat(60) + &numbered_lines(300);
    let gitlab = gitlab_serving(&[("mixed.txt", &file)]).await;
    let tool = Tool::start(&gitlab).await;
    let out = tool.read("mixed.txt", json!({"max_chars": 20_000})).await;
    assert_eq!(returned(&out), (1, 19));
    let calls = calls_in(hint(&out));
    assert_eq!(
        calls,
        [json!({"offset": 19, "limit": 500, "max_chars": 20_000})]
    );
    assert!(
        hint(&out).contains("the 20000 character budget"),
        "{}",
        hint(&out)
    );
    // The next window starts after the last line shown.
    let out = tool.read("mixed.txt", calls[0].clone()).await;
    assert_eq!(returned(&out), (20, 38));
    // Line numbers: cat -n prefixes, counted by the budget, kept in the hint.
    let out = tool
        .read(
            "mixed.txt",
            json!({"offset": 60, "limit": 100, "line_numbers": true}),
        )
        .await;
    let content = out["content"].as_str().unwrap();
    assert!(
        content.starts_with("    61\tline 1\n    62\tline 2\n"),
        "{content}"
    );
    assert_eq!(
        calls_in(hint(&out)),
        [json!({"offset": 160, "limit": 100, "line_numbers": true})]
    );
    let out = tool
        .read(
            "mixed.txt",
            json!({"start_line": 1, "end_line": 30, "line_numbers": "true", "max_chars": 5_000}),
        )
        .await;
    // Each numbered 1 KiB line costs 7 + 1,024 characters: 4 fit in 5,000.
    assert_eq!(returned(&out), (1, 4));
    assert_eq!(out["content"].as_str().unwrap().chars().count(), 4 * 1031);
    assert_eq!(
        calls_in(hint(&out)),
        [json!({"start_line": 5, "end_line": 34, "max_chars": 5_000, "line_numbers": true})]
    );
    tool.stop().await;
}

/// `extra` with the first call a hint names merged in, as an agent follows it; `None` when
/// the hint names none.
fn followed(extra: &Value, out: &Value) -> Option<Value> {
    let first = mcp::first_call(out.get("system_instruction")?.as_str()?)?;
    let mut next = extra.clone();
    for (k, v) in first {
        next[k] = v;
    }
    Some(next)
}

#[tokio::test]
async fn a_line_longer_than_a_call_is_read_on_from_its_column() {
    // A minified file: a 300 KB line, then one past GitLab's 1 MiB cap.
    let line = "function f(a,b){return a+b}var s=\"k\";".repeat(8_000);
    let huge = "g".repeat(1_200_000);
    let file = format!("{line}\n{huge}\n//# sourceMappingURL=app.min.js.map\n");
    let gitlab = gitlab_serving(&[("app.min.js", &file)]).await;
    let tool = Tool::start(&gitlab).await;
    let out = tool.read("app.min.js", json!({})).await;
    assert_eq!(returned(&out), (1, 1));
    assert_eq!(out["content"].as_str().unwrap(), &line[..100_000]);
    assert_eq!(
        out["metadata"]["columns"],
        json!({"start": 0, "end": 100_000})
    );
    let line_chars = line.chars().count() + 1;
    assert_eq!(
        hint(&out),
        format!(
            "Line 1 ({line_chars} characters) was cut at column 100000 to stay within the default 100000 character budget (max_chars): 100000 characters of it are shown. To read on in this line, call again with {{\"offset\": 0, \"limit\": 500, \"column\": 100000}}. 2 more lines follow it. To read the rest of the line in one call instead, call again with {{\"offset\": 0, \"limit\": 1, \"column\": 100000, \"max_chars\": 0}}."
        )
    );
    // The next piece of the line, from where the content stopped.
    let on = followed(&json!({}), &out).unwrap();
    let out = tool.read("app.min.js", on).await;
    assert_eq!(out["content"].as_str().unwrap(), &line[100_000..200_000]);
    assert_eq!(
        out["metadata"]["columns"],
        json!({"start": 100_000, "end": 200_000})
    );
    // Or the rest of it at once; the window after it sets the column back.
    let rest = calls_in(hint(&out))[1].clone();
    assert_eq!(
        rest,
        json!({"offset": 0, "limit": 1, "column": 200_000, "max_chars": 0})
    );
    let out = tool.read("app.min.js", rest).await;
    assert_eq!(
        out["content"].as_str().unwrap(),
        format!("{}\n", &line[200_000..])
    );
    assert_eq!(
        hint(&out),
        "File truncated. Remaining lines: 2. To view more, call again with {\"offset\": 1, \"limit\": 1, \"column\": 0, \"max_chars\": 0}."
    );
    // A line past what one message holds is read to its end by following the first call of
    // each hint: no gap, no overlap.
    let mut extra = json!({"start_line": 2, "end_line": 2, "max_chars": 0});
    let mut read = String::new();
    let mut calls = 0;
    loop {
        let out = tool.read("app.min.js", extra.clone()).await;
        calls += 1;
        read.push_str(out["content"].as_str().unwrap());
        assert!(!hint(&out).contains("not retrievable"), "{}", hint(&out));
        if read.ends_with('\n') {
            break;
        }
        match followed(&extra, &out) {
            Some(next) if calls < 10 => extra = next,
            _ => break,
        }
    }
    assert!(
        read == format!("{huge}\n"),
        "{} characters read",
        read.len()
    );
    // 1,200,001 characters in pieces of what fits in one message (about 480,000 of these).
    assert_eq!(calls, 3);
    tool.stop().await;
}

#[tokio::test]
async fn default_responses_stay_under_the_declared_ceiling_whatever_the_content() {
    // Characters that cost the most in the text block: `"` and `\` (escaped to 2), ESC
    // (`\u001b`, 6, and charged 6), a character outside the BMP (2 UTF-16 units), and tabs.
    let costly = "\"\\\u{1b}😀\t";
    let lines = format!("{}\n", costly.repeat(200)).repeat(400);
    let one_line = costly.repeat(300_000);
    let quoted_path = "data/\"quoted\"\\name.json";
    let gitlab = gitlab_serving(&[
        ("lines.txt", &lines),
        ("one.txt", &one_line),
        (quoted_path, &lines),
    ])
    .await;
    let tool = Tool::start(&gitlab).await;
    for path in ["lines.txt", "one.txt", quoted_path] {
        for extra in [
            json!({}),
            json!({"line_numbers": true}),
            json!({"limit": 2000}),
        ] {
            // `read` asserts the ceiling; the block must also be far past the budget.
            let out = tool.read(path, extra.clone()).await;
            let units = out.to_string().encode_utf16().count();
            assert!(units > 130_000, "{path} {extra}: only {units}");
        }
    }
    tool.stop().await;
}
