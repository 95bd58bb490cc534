//! Outlines under abuse over streamable HTTP (issue 35), the twins of the stdio tests
//! (`tools/outline_abuse.rs`, `serving/stdio_deadline.rs`): the real binary, stateless, against
//! a wiremock GitLab, each answer's bytes counted as sent. A minified line of 60,000 functions
//! is answered within one message; two 10,000-deep nestings and two "Did you mean" bombs with
//! an ordinary read beside them leave the CPU idle after the deadline; a parse past
//! `--outline-memory-bytes` is refused, and counted as `too_large` in `/metrics`; a 1.5 MB name,
//! 50,000 definitions and 10,000-deep nesting stay within one message for outlines and symbols;
//! a name holding a newline cannot forge an outline line; an empty symbol is a bad argument.

use crate::support::gitlab_mock::text_node;
use crate::support::heavy_work::{cpu_ticks, gitlab_serving};
use crate::support::http_server::{HttpServer, MCP_HEADERS, post};

use std::time::Duration;

use serde_json::{Value, json};
use wiremock::MockServer;

const TOKEN: &str = "glpat-SERVER-ssssssssssssss";

/// What a client takes in one message (the Python SDK caps a server-sent event at 1 MiB).
const MESSAGE_BYTES: usize = 1_000_000;

/// `n` small Python functions (about 30 bytes each; some 50 bytes of syntax tree per byte).
fn python_functions(n: usize) -> String {
    (0..n)
        .map(|i| format!("def f{i}(x):\n    return [x, {i}]\n"))
        .collect()
}

async fn gitlab() -> MockServer {
    let minified: String = (0..60_000)
        .map(|i| format!("function function_number_{i:06}(){{}}"))
        .collect();
    let deep = format!(
        "{}{}",
        "function a(){\n".repeat(10_000),
        "}\n".repeat(10_000)
    );
    // 2,000 functions of 1,000-character names: a "Did you mean" for a long name compared it
    // with each by edit distance (a minute before issue 35).
    let names: String = (0..2_000)
        .map(|i| format!("function {}{i:04}(){{}}\n", "n".repeat(996)))
        .collect();
    let long_name = format!("function {}(){{}}\n", "n".repeat(1_500_000));
    let many: String = (0..50_000)
        .map(|i| format!("function f{i}(){{}}\n"))
        .collect();
    let forged = "class A {\n  [`x\n1-1 method Z`]() {}\n  [\"p\u{2028}q\"]() {}\n}\n";
    gitlab_serving(vec![
        text_node("long.js", &long_name),
        text_node("many.js", &many),
        text_node("forged.ts", forged),
        text_node("min.js", &minified),
        text_node("deep.js", &deep),
        text_node("names.js", &names),
        text_node("small.txt", "a\nb\n"),
        text_node("big.py", &python_functions(3_000)),
        text_node("small.py", &python_functions(3)),
    ])
    .await
}

/// One `tools/call` with `args`, stateless: the answer's status, its body's bytes, and the
/// tool result (`Null` when the status is not 200).
async fn call(server: &HttpServer, args: Value) -> (u16, usize, Value) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "get_repository_file", "arguments": args}});
    let host = format!("127.0.0.1:{}", server.port);
    let answer = server
        .raw(post(&host, &MCP_HEADERS, body.to_string().as_bytes()))
        .await;
    let result = match answer.status {
        200 => answer.json()["result"].clone(),
        _ => Value::Null,
    };
    (answer.status, answer.body.len(), result)
}

/// A result's text, whether an error or not.
fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// A tool error's text (panics on a result that is not an error).
fn error(result: &Value) -> &str {
    assert_eq!(result["isError"], true, "{result}");
    text(result)
}

#[tokio::test]
async fn a_minified_line_of_60_000_functions_is_answered_within_one_message() {
    let gitlab = gitlab().await;
    let server = HttpServer::start(&gitlab.uri(), &["--stateless"], Some(TOKEN));
    for extra in [json!({}), json!({"max_chars": 0}), json!({"max_chars": 50})] {
        let mut args = json!({"project_id": "grp/proj", "file_path": "min.js", "ref": "main",
            "outline": true});
        args.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let (status, bytes, result) = call(&server, args.clone()).await;
        eprintln!("outline min.js {extra}: {bytes} bytes");
        assert_eq!(status, 200, "{args}");
        assert!(bytes <= MESSAGE_BYTES, "{args}: {bytes} bytes");
        let outline = &result["structuredContent"]["metadata"]["outline"];
        assert!(outline["returned"].as_u64() > Some(0), "{args}: {result}");
    }
    let args = json!({"project_id": "grp/proj", "file_path": "min.js", "ref": "main",
        "symbol": "function_number_000007", "max_chars": 0});
    let (status, bytes, result) = call(&server, args).await;
    assert_eq!(status, 200);
    assert!(bytes <= MESSAGE_BYTES, "symbol: {bytes} bytes");
    assert_eq!(
        result["structuredContent"]["metadata"]["symbol"]["start_line"],
        1
    );
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
async fn nesting_and_did_you_mean_bombs_free_the_cpu_by_the_deadline_and_others_are_answered() {
    let gitlab = gitlab().await;
    let server = HttpServer::start(
        &gitlab.uri(),
        &["--stateless", "--request-timeout-secs", "2"],
        Some(TOKEN),
    );
    let deep = json!({"project_id": "grp/proj", "file_path": "deep.js", "ref": "main",
        "outline": true});
    let near = json!({"project_id": "grp/proj", "file_path": "names.js", "ref": "main",
        "symbol": "x".repeat(1_024)});
    let small = json!({"project_id": "grp/proj", "file_path": "small.txt", "ref": "main"});
    // Two bombs of each kind at once (as many as the blocking pool has slots on 2 cores), and
    // an ordinary read beside them.
    let (a, b, c, d, read) = tokio::join!(
        call(&server, deep.clone()),
        call(&server, deep),
        call(&server, near.clone()),
        call(&server, near),
        call(&server, small),
    );
    for (status, bytes, result) in [a, b, c, d] {
        // Answered (a bounded outline, or no such symbol), or refused at the deadline (504).
        assert!(bytes <= MESSAGE_BYTES, "{bytes} bytes");
        let said = text(&result);
        assert!(
            status == 504
                || said.contains("Definitions nested 32 deep are not listed")
                || said.starts_with("No definition named 'xxxx")
                || said.contains("did not finish within 2 s"),
            "{status}: {said}"
        );
    }
    assert_eq!(read.0, 200);
    assert_eq!(read.2["structuredContent"]["content"], "a\nb\n");
    assert_idle(server.pid(), "the deep outlines and the long symbols").await;
    // A call that needs a pool slot (a search of a large file) is answered.
    let search = json!({"project_id": "grp/proj", "file_path": "names.js", "ref": "main",
        "pattern": "n0007\\(", "max_chars": 2000});
    let (status, _, result) = call(&server, search).await;
    assert_eq!(status, 200);
    assert_eq!(
        result["structuredContent"]["metadata"]["matches"]["total"],
        1
    );
}

#[tokio::test]
async fn a_parse_past_the_memory_budget_is_refused_and_counted() {
    let gitlab = gitlab().await;
    let server = HttpServer::start(
        &gitlab.uri(),
        &["--stateless", "--outline-memory-bytes", "1000000"],
        Some(TOKEN),
    );
    let big = |view: Value| {
        let mut args = json!({"project_id": "grp/proj", "file_path": "big.py", "ref": "main"});
        args.as_object_mut()
            .unwrap()
            .extend(view.as_object().unwrap().clone());
        args
    };
    let size = python_functions(3_000).len();
    for args in [big(json!({"outline": true})), big(json!({"symbol": "f7"}))] {
        let (status, _, result) = call(&server, args).await;
        assert_eq!(status, 200);
        assert_eq!(
            error(&result),
            format!(
                "File 'big.py' ({size} bytes) could not be outlined: its syntax tree passed 1000000 bytes, the most one parse may hold on this server (its --outline-memory-bytes; tree-sitter holds 35 to 105 bytes of tree per byte of source). Use pattern to find its definitions, or read it in line windows (start_line, end_line), instead."
            )
        );
    }
    let small = json!({"project_id": "grp/proj", "file_path": "small.py", "ref": "main",
        "outline": true});
    let (_, _, result) = call(&server, small).await;
    assert_eq!(
        result["structuredContent"]["metadata"]["outline"]["returned"],
        3
    );
    // Both refusals are tool errors of the kind `too_large`.
    let host = format!("Host: 127.0.0.1:{}", server.port);
    let scrape = server
        .raw(format!("GET /metrics HTTP/1.1\r\n{host}\r\nConnection: close\r\n\r\n").into_bytes())
        .await;
    let counted: Vec<&str> = scrape
        .body
        .lines()
        .filter(|l| {
            l.starts_with("gitlab_file_mcp_tool_calls_total{")
                && l.contains("tool=\"get_repository_file\"")
                && l.contains("kind=\"too_large\"")
        })
        .collect();
    assert_eq!(counted.len(), 1, "{}", scrape.body);
    assert!(counted[0].ends_with(" 2"), "{counted:?}");
}

#[tokio::test]
async fn long_names_many_definitions_and_deep_nesting_stay_within_one_message() {
    let gitlab = gitlab().await;
    let server = HttpServer::start(&gitlab.uri(), &["--stateless"], Some(TOKEN));
    for path in ["long.js", "many.js", "deep.js"] {
        for extra in [json!({}), json!({"max_chars": 0}), json!({"max_chars": 50})] {
            let mut args = json!({"project_id": "grp/proj", "file_path": path, "ref": "main",
                "outline": true});
            args.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            let (status, bytes, result) = call(&server, args.clone()).await;
            assert_eq!(status, 200, "{args}");
            assert!(bytes <= MESSAGE_BYTES, "{args}: {bytes} bytes");
            let outline = &result["structuredContent"]["metadata"]["outline"];
            assert!(outline["returned"].as_u64() > Some(0), "{args}: {result}");
        }
        for symbol in ["a", "f7", "nnnn"] {
            let args = json!({"project_id": "grp/proj", "file_path": path, "ref": "main",
                "symbol": symbol, "max_chars": 0});
            let (status, bytes, _) = call(&server, args.clone()).await;
            assert_eq!(status, 200, "{args}");
            assert!(bytes <= MESSAGE_BYTES, "{args}: {bytes} bytes");
        }
    }
}

#[tokio::test]
async fn a_name_holding_a_newline_cannot_forge_a_line_and_an_empty_symbol_is_refused() {
    let gitlab = gitlab().await;
    let server = HttpServer::start(&gitlab.uri(), &["--stateless"], Some(TOKEN));
    let args = json!({"project_id": "grp/proj", "file_path": "forged.ts", "ref": "main",
        "outline": true});
    let (status, _, result) = call(&server, args).await;
    assert_eq!(status, 200);
    let content = result["structuredContent"]["content"].as_str().unwrap();
    assert!(!content.contains('\u{2028}'), "{content:?}");
    for line in content.lines() {
        assert!(
            line.starts_with("1-5 class A") || line.starts_with("  "),
            "a forged line: {content:?}"
        );
    }
    for empty in ["", "   "] {
        let args = json!({"project_id": "grp/proj", "file_path": "small.py", "ref": "main",
            "symbol": empty});
        let (status, _, result) = call(&server, args).await;
        assert_eq!(status, 200);
        assert!(
            error(&result).contains("Argument 'symbol' is empty: name a definition"),
            "{result}"
        );
    }
}
