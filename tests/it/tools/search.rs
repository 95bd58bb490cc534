//! `pattern` / `ignore_case` / `context_lines` end to end: the real binary over MCP against a
//! wiremock GitLab (the one-request rule counted with `expect(n)`), and against a local git
//! repository over MCP and through the `read` command. Reads past GitLab's 10 MiB cut and the
//! content-free search after a read are in `tests/it/gitlab/paging.rs`, beside the stand-in that counts
//! bytes.

use crate::support::git_fixture;
use crate::support::gitlab_mock;
use crate::support::mcp;

use gitlab_mock::*;
use mcp::{err, ok, spawn, spawn_gitlab};
use serde_json::{Value, json};
use wiremock::MockServer;

/// A GitLab whose `grp/proj` holds `path` with `content`, answering `expect` blob queries.
async fn gitlab_file(path: &str, content: &str, expect: u64) -> MockServer {
    let server = MockServer::start().await;
    graphql()
        .respond_with(json_response(project_answer(
            "grp/proj",
            7,
            vec![text_node(path, content)],
        )))
        .expect(expect)
        .mount(&server)
        .await;
    server
}

fn args(path: &str, extra: Value) -> Value {
    let mut a = json!({"project_id": "grp/proj", "file_path": path, "ref": "main"});
    for (k, v) in extra.as_object().expect("an object") {
        a[k] = v.clone();
    }
    a
}

/// `"line 1\n"` … `"line n\n"`.
fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

/// The arguments object of a hint's "call again with {…}." (the first one).
fn next_call(hint: &str) -> Option<Value> {
    let start = hint.find("call again with {")? + "call again with ".len();
    let rest = &hint[start..];
    let end = rest.find("}.")? + 1;
    Some(serde_json::from_str(&rest[..end]).expect("the hint's arguments are JSON"))
}

fn matches(out: &Value) -> Vec<u64> {
    out["metadata"]["matches"]["lines"]
        .as_array()
        .expect("matches.lines")
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect()
}

#[tokio::test]
async fn one_match_with_and_without_context() {
    let file = numbered(40);
    let gitlab = gitlab_file("app.py", &file, 2).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let out = ok(&server
        .call(args(
            "app.py",
            json!({"pattern": "^line 20$", "context_lines": 0}),
        ))
        .await);
    assert_eq!(out["content"], "20:line 20\n");
    assert_eq!(
        out["metadata"],
        json!({"total_lines": 40, "returned_lines": {"start": 20, "end": 20}, "truncated": false,
               "size_bytes": file.len(), "blob_id": git_blob_id(file.as_bytes()),
               "commit_sha": gitlab_mock::COMMIT,
               "web_url": format!("{}/grp/proj/-/blob/{}/app.py#L20", gitlab.uri(), gitlab_mock::COMMIT),
               "matches": {"total": 1, "returned": 1, "lines": [20]}})
    );
    assert!(out.get("system_instruction").is_none(), "{out}");
    // The default context is 2 lines each side.
    let out = ok(&server
        .call(args("app.py", json!({"pattern": "^line 20$"})))
        .await);
    assert_eq!(
        out["content"],
        "18-line 18\n19-line 19\n20:line 20\n21-line 21\n22-line 22\n"
    );
    assert_eq!(
        out["metadata"]["returned_lines"],
        json!({"start": 18, "end": 22})
    );
    server.stop().await;
}

#[tokio::test]
async fn ignore_case_and_a_miss_that_says_what_was_searched() {
    let file = "class Parser:\n    def parse(self):\n        return PARSE\r\n";
    let gitlab = gitlab_file("p.py", file, 3).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let out = ok(&server
        .call(args(
            "p.py",
            json!({"pattern": "parse", "context_lines": 0}),
        ))
        .await);
    assert_eq!(matches(&out), vec![2]);
    let out = ok(&server
        .call(args(
            "p.py",
            json!({"pattern": "parse(\\(self\\):)?$", "ignore_case": true, "context_lines": 0}),
        ))
        .await);
    // The CRLF line matches without its `\r`, and is shown as the file has it.
    assert_eq!(
        out["content"],
        "2:    def parse(self):\n3:        return PARSE\r\n"
    );
    let out = ok(&server
        .call(args(
            "p.py",
            json!({"pattern": "lexer", "ignore_case": true}),
        ))
        .await);
    assert_eq!(out["content"], "");
    assert_eq!(
        out["metadata"]["matches"],
        json!({"total": 0, "returned": 0, "lines": []})
    );
    assert_eq!(out["metadata"]["truncated"], false);
    assert_eq!(
        out["system_instruction"],
        "No line matches the pattern \"lexer\" (ignoring case) in lines 1-3 of 3."
    );
    server.stop().await;
}

#[tokio::test]
async fn a_bad_pattern_is_refused_before_any_request() {
    let gitlab = gitlab_file("a.rs", "fn main() {}\n", 0).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let e = err(&server
        .call(args("a.rs", json!({"pattern": "fn main("})))
        .await);
    assert!(
        e.starts_with("Invalid pattern 'fn main(': unclosed group (at character 8)."),
        "{e}"
    );
    assert!(
        e.contains("put a backslash before each of the characters"),
        "{e}"
    );
    let e = err(&server
        .call(args("a.rs", json!({"pattern": "(?:a{100}){100}{100}"})))
        .await);
    assert!(
        e.contains("is too complex: compiled, it would pass the 4194304-byte limit"),
        "{e}"
    );
    let e = err(&server
        .call(args("a.rs", json!({"pattern": "x".repeat(1025)})))
        .await);
    assert_eq!(
        e,
        "Argument 'pattern' is 1025 bytes long; the longest accepted is 1024 bytes."
    );
    let e = err(&server
        .call(args("a.rs", json!({"pattern": "x", "context_lines": 51})))
        .await);
    assert_eq!(
        e,
        "Argument 'context_lines' must be between 0 and 50, got 51."
    );
    server.stop().await;
}

#[tokio::test]
async fn a_pattern_inside_a_line_range() {
    let file = numbered(300);
    let gitlab = gitlab_file("big.txt", &file, 3).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let range = json!({"pattern": "0$", "context_lines": 1, "start_line": 95, "end_line": 111});
    let out = ok(&server.call(args("big.txt", range)).await);
    assert_eq!(matches(&out), vec![100, 110]);
    assert_eq!(
        out["content"],
        "99-line 99\n100:line 100\n101-line 101\n--\n109-line 109\n110:line 110\n111-line 111\n"
    );
    // offset/limit select the lines searched too, and context stays inside them.
    let out = ok(&server
        .call(args(
            "big.txt",
            json!({"pattern": "^line 2[0-9]$", "offset": 20, "limit": 3}),
        ))
        .await);
    assert_eq!(out["content"], "21:line 21\n22:line 22\n23:line 23\n");
    // A search range is not capped at 2000 lines like a window.
    let out = ok(&server
        .call(args(
            "big.txt",
            json!({"pattern": "^line 299$", "context_lines": 0, "start_line": 2}),
        ))
        .await);
    assert_eq!(matches(&out), vec![299]);
    server.stop().await;
}

#[tokio::test]
async fn following_the_hints_visits_every_match_once() {
    // Every 7th line matches; pages of 200 characters hold a few groups each.
    let file = numbered(700);
    let want: Vec<u64> = (1..=700).filter(|n| n % 7 == 0).collect();
    let pattern = format!(
        "^line ({})$",
        want.iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join("|")
    );
    let gitlab = MockServer::start().await;
    graphql()
        .respond_with(json_response(project_answer(
            "grp/proj",
            7,
            vec![text_node("f.txt", &file)],
        )))
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let first = json!({"pattern": pattern, "context_lines": 1, "max_chars": 200, "end_line": 650});
    let mut call = args("f.txt", first);
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        pages += 1;
        let out = ok(&server.call(call.clone()).await);
        let content = out["content"].as_str().unwrap();
        assert!(content.chars().count() <= 200, "{content}");
        // The matches listed are the ones in content, marked `N:`.
        let marked: Vec<u64> = content
            .lines()
            .filter_map(|l| l.split_once(':').and_then(|(n, _)| n.parse().ok()))
            .collect();
        assert_eq!(marked, matches(&out));
        seen.extend(matches(&out));
        let Some(hint) = out["system_instruction"].as_str() else {
            assert_eq!(out["metadata"]["truncated"], false);
            break;
        };
        assert_eq!(out["metadata"]["truncated"], true);
        let next = next_call(hint).expect("a truncated page names the next");
        // Same search, same budget, the caller's end kept; no window of another form.
        assert_eq!(next["pattern"], call["pattern"]);
        assert_eq!(
            (
                &next["context_lines"],
                &next["max_chars"],
                &next["end_line"]
            ),
            (&json!(1), &json!(200), &json!(650))
        );
        call = args("f.txt", next);
        assert!(pages < 100, "the hints do not end");
    }
    let want: Vec<u64> = want.into_iter().filter(|&n| n <= 650).collect();
    assert_eq!(seen, want);
    assert!(pages > 5, "{pages} pages");
    server.stop().await;
}

#[tokio::test]
async fn the_budget_bounds_a_page_and_cuts_a_long_match() {
    // 1 KiB lines, all matching: the default budget (100,000) keeps 97 of them.
    let file = format!("{}\n", "x".repeat(1023)).repeat(300);
    let gitlab = gitlab_file("data.csv", &file, 2).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let out = ok(&server.call(args("data.csv", json!({"pattern": "x"}))).await);
    let content = out["content"].as_str().unwrap();
    assert!(content.chars().count() <= 100_000);
    assert_eq!(out["metadata"]["matches"]["total"], 300);
    let shown = matches(&out).len() as u64;
    assert!((90..=97).contains(&shown), "{shown}");
    let hint = out["system_instruction"].as_str().unwrap();
    assert!(
        hint.contains(&format!(
            "To see the next matches, call again with {{\"pattern\": \"x\", \"start_line\": {}}}.",
            shown + 1
        )),
        "{hint}"
    );
    assert!(hint.contains("did not fit within the 100000 character budget (max_chars) and is shown from its first match"), "{hint}");
    // A match longer than the budget is cut, and the hint says where to read it on from.
    let out = ok(&server
        .call(args(
            "data.csv",
            json!({"pattern": "x", "max_chars": 50, "start_line": 300}),
        ))
        .await);
    assert_eq!(out["content"], format!("300:{}", "x".repeat(46)));
    let hint = out["system_instruction"].as_str().unwrap();
    assert!(
        hint.ends_with("To read the line from column 46, call again with only the window arguments offset 299, limit 1 and column 46 (without pattern, context_lines, ignore_case, start_line or end_line)."),
        "{hint}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_pathological_pattern_answers_correctly() {
    // Exponential for a backtracking engine on these lines; linear here.
    let file = format!("{}\n{}y\n", "a".repeat(50_000), "x".repeat(50_000));
    let gitlab = gitlab_file("p.txt", &file, 3).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let out = ok(&server
        .call(args("p.txt", json!({"pattern": "(a*)*b"})))
        .await);
    assert_eq!(out["metadata"]["matches"]["total"], 0);
    let out = ok(&server
        .call(args("p.txt", json!({"pattern": "^(a|aa)+$"})))
        .await);
    assert_eq!(matches(&out), vec![1]);
    let out = ok(&server
        .call(args(
            "p.txt",
            json!({"pattern": "(x+x+)+y", "max_chars": 20}),
        ))
        .await);
    assert_eq!(matches(&out), vec![2]);
    server.stop().await;
}

#[tokio::test]
async fn binary_files_keep_their_error() {
    let gitlab = MockServer::start().await;
    let mut node = text_node("logo.png", "");
    node["rawTextBlob"] = Value::Null;
    node["size"] = json!("4008");
    node["rawSize"] = json!("4008");
    graphql()
        .respond_with(json_response(project_answer("grp/proj", 7, vec![node])))
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let e = err(&server
        .call(args("logo.png", json!({"pattern": "PNG"})))
        .await);
    assert!(e.starts_with("File 'logo.png' is binary"), "{e}");
    server.stop().await;
}

#[tokio::test]
async fn local_mode_over_mcp_and_through_read() {
    let fx = git_fixture::build();
    let repo = fx.path().to_str().unwrap();
    let server = spawn(&["serve", "--repo", repo], &[]).await;
    let out = ok(&server
        .call(json!({"file_path": "big.txt", "pattern": "^line 14[0-9]{2}$", "context_lines": 0, "max_chars": 120}))
        .await);
    assert_eq!(out["metadata"]["matches"]["total"], 100);
    let shown = matches(&out);
    assert_eq!(shown[0], 1400);
    let hint = out["system_instruction"].as_str().unwrap();
    let next = next_call(hint).unwrap();
    assert_eq!(next["start_line"], shown[shown.len() - 1] + 1);
    let out = ok(&server
        .call(json!({"file_path": "crlf.txt", "pattern": "^$"}))
        .await);
    assert_eq!(matches(&out), vec![3, 4]);
    assert_eq!(out["content"], "1-alpha\r\n2-beta\r\n3:\r\n4:\r\n");
    server.stop().await;

    let output = read_command(&[
        "read",
        "--repo",
        repo,
        "--path",
        "utf8.txt",
        "--pattern",
        "WÖRLD|🦀",
    ])
    .args(["--ignore-case", "--context-lines", "0"])
    .output()
    .expect("run read");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "1:héllo wörld\n--\n3:emoji: 🦀🚀\n"
    );
    assert_eq!(String::from_utf8(output.stderr).unwrap(), "");
    let output = read_command(&[
        "read",
        "--repo",
        repo,
        "--path",
        "utf8.txt",
        "--pattern",
        "[oops",
    ])
    .output()
    .expect("run read");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with("error: Invalid pattern '[oops': unclosed character class"),
        "{stderr}"
    );
}

/// The binary with `args`, in the environment the servers get.
fn read_command(args: &[&str]) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_gitlab-file-mcp"));
    cmd.args(args);
    for name in crate::support::env::cleared() {
        cmd.env_remove(name);
    }
    cmd
}

#[tokio::test]
async fn a_default_search_answer_fits_the_declared_ceiling() {
    // The most expensive page: 2,000 matches of control characters (6 each in the budget,
    // `\u001b` in the text block), a 1,024-byte pattern of quotes and control characters that
    // the next-page hint repeats, escaped twice.
    let line = format!("x{}\n", "\u{1b}".repeat(8));
    let file = line.repeat(2_500);
    let filler = "\"\u{1}".repeat(509);
    let pattern = format!("(?:{filler})?x");
    assert_eq!(pattern.len(), 1_024);
    let gitlab = gitlab_file("log.txt", &file, 1).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let ceiling = server.list_tools().await[0]
        .meta
        .as_ref()
        .and_then(|m| m.0.get("anthropic/maxResultSizeChars"))
        .and_then(Value::as_u64)
        .expect("the declared ceiling");
    let result = server
        .call(args(
            "log.txt",
            json!({"pattern": pattern, "context_lines": 0}),
        ))
        .await;
    let out = ok(&result);
    assert_eq!(out["metadata"]["matches"]["total"], 2_500);
    assert!(
        out["system_instruction"]
            .as_str()
            .unwrap()
            .contains("(?:\\\"\\u0001")
    );
    let text_units = mcp::text(&result).encode_utf16().count() as u64;
    assert!(text_units <= ceiling, "{text_units} > {ceiling}");
    server.stop().await;
}

#[tokio::test]
async fn a_search_of_a_blob_the_caller_holds_is_answered_unchanged_in_one_request() {
    let file = numbered(40);
    // One request, however the search would have read the file.
    let gitlab = gitlab_file("app.py", &file, 1).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let held = git_blob_id(file.as_bytes());
    let out = ok(&server
        .call(args(
            "app.py",
            json!({"pattern": "^line 20$", "if_none_match": held}),
        ))
        .await);
    assert_eq!(out.get("content"), None, "{out}");
    assert_eq!(out["metadata"]["unchanged"], true);
    assert_eq!(out["metadata"]["commit_sha"], gitlab_mock::COMMIT);
    assert!(out["metadata"].get("matches").is_none(), "{out}");
    server.stop().await;
}
