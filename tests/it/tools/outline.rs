//! `outline` and `symbol` end to end: the real binary over MCP against a wiremock GitLab and a
//! local git repository, on files written for these tests (`tests/fixtures/outline/`, one per
//! language). Python's outline is checked against Python's own `ast` (run with `python3`).

use crate::support::git_fixture;
use crate::support::gitlab_mock;
use crate::support::mcp;

use std::process::Command;

use gitlab_mock::*;
use mcp::{err, ok, spawn, spawn_gitlab};
use serde_json::{Value, json};
use wiremock::MockServer;

/// A fixture file's text.
fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/outline/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A GitLab whose `grp/proj` holds `files`, answering any number of queries.
async fn gitlab(files: &[(&str, &str)]) -> MockServer {
    let server = MockServer::start().await;
    let nodes = files.iter().map(|(p, c)| text_node(p, c)).collect();
    graphql()
        .respond_with(json_response(project_answer("grp/proj", 7, nodes)))
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

/// Lines `first..=last` of `text`, byte for byte.
fn lines(text: &str, first: usize, last: usize) -> String {
    text.split_inclusive('\n')
        .skip(first - 1)
        .take(last - first + 1)
        .collect()
}

/// The outline Python's `ast` gives `text`: every class and function, from its first
/// decorator to its `end_lineno`, qualified and indented by the definitions around it.
fn python_ast_outline(text: &str) -> String {
    const SCRIPT: &str = r#"
import ast, sys
tree = ast.parse(sys.stdin.read())
def walk(node, scope, depth, parent):
    for c in ast.iter_child_nodes(node):
        if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([d.lineno for d in c.decorator_list] + [c.lineno])
            if isinstance(c, ast.ClassDef):
                kind = "class"
            elif isinstance(parent, ast.ClassDef):
                kind = "method"
            else:
                kind = "function"
            q = scope + [c.name]
            print("  " * depth + f"{start}-{c.end_lineno} {kind} " + ".".join(q))
            walk(c, q, depth + 1, c)
        else:
            walk(c, scope, depth, parent)
walk(tree, [], 0, None)
"#;
    let mut child = Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "python3 failed");
    String::from_utf8(out.stdout).unwrap()
}

/// The arguments object of a hint's "call again with {…}.".
fn next_call(hint: &str) -> Option<Value> {
    let start = hint.find("call again with {")? + "call again with ".len();
    let rest = &hint[start..];
    let end = rest.find("}.")? + 1;
    Some(serde_json::from_str(&rest[..end]).expect("the hint's arguments are JSON"))
}

#[tokio::test]
async fn python_outline_equals_pythons_ast() {
    let billing = fixture("billing.py");
    let server = gitlab(&[("billing.py", &billing)]).await;
    let mcp = spawn_gitlab(&server.uri(), None).await;
    let out = ok(&mcp.call(args("billing.py", json!({"outline": true}))).await);
    let want = python_ast_outline(&billing);
    assert_eq!(out["content"], want.as_str());
    assert_eq!(
        out["metadata"]["outline"],
        json!({"language": "python", "total": 16, "returned": 16})
    );
    assert_eq!(out["metadata"]["truncated"], false);
    assert!(out.get("system_instruction").is_none(), "{out}");
    // A generated file with thousands of definitions, nested and decorated.
    let big = generated_python(3000);
    let server = gitlab(&[("gen.py", &big)]).await;
    let mcp2 = spawn_gitlab(&server.uri(), None).await;
    let mut got = String::new();
    let mut call = args("gen.py", json!({"outline": true, "max_chars": 0}));
    let mut pages = 0;
    loop {
        let out = ok(&mcp2.call(call.clone()).await);
        got.push_str(out["content"].as_str().unwrap());
        pages += 1;
        let Some(next) = out["system_instruction"].as_str().and_then(next_call) else {
            break;
        };
        for (k, v) in next.as_object().unwrap() {
            call[k] = v.clone();
        }
    }
    assert_eq!(got, python_ast_outline(&big));
    assert_eq!(got.lines().count(), 9000);
    assert!(pages >= 5, "{pages} pages of at most 2000 definitions");
    mcp.stop().await;
    mcp2.stop().await;
}

/// `n` classes, each decorated, with a decorated method and a nested function.
fn generated_python(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "@register({i})\nclass Model{i}:\n    # a comment\n    @property\n    def value(self):\n        def inner():\n            return {i}\n        return inner()\n\n"
            )
        })
        .collect()
}

/// The outline of every fixture, as the tests pin it (checked by reading each file).
const OUTLINES: &[(&str, &str, &str)] = &[
    (
        "store.rs",
        "rust",
        "7-8 constant DEFAULT_TTL\n10-15 struct Entry\n17-22 enum Miss\n24-32 trait Storable\n  26-27 method Storable.weight\n  29-31 method Storable.describe\n34-34 type Key\n36-38 struct Store\n40-63 impl Store\n  41-46 method Store.new\n  48-53 method Store.put\n  55-62 method Store.get\n65-72 impl fmt::Display for Miss\n  66-71 method Miss.fmt\n74-83 module sweep\n  77-82 function sweep.sweep\n85-89 macro key\n",
    ),
    (
        "router.ts",
        "typescript",
        "6-6 type Method\n8-12 interface Route\n  11-11 method Route.handle\n14-17 enum Status\n19-21 function log\n23-24 function parseQuery\n25-25 function parseQuery\n26-33 function parseQuery\n35-52 class Router\n  38-43 method Router.add\n  45-47 method Router.match\n  49-51 method Router.create\n54-58 namespace Middleware\n  55-57 function Middleware.timing\n",
    ),
    (
        "server.go",
        "go",
        "12-16 struct Page\n18-21 interface Getter\n23-23 type Key\n25-30 struct Server\n32-35 function NewServer\n37-46 method Server.ServeHTTP\n48-55 method Server.lookup\n57-58 method Server.Len\n",
    ),
    (
        "shapes.js",
        "javascript",
        "9-23 class Shape\n  10-13 method Shape.constructor\n  15-18 method Shape.move\n  20-22 method Shape.origin\n25-34 class Circle\n  26-29 method Circle.constructor\n  31-33 method Circle.area\n36-39 function render\n41-41 function scale\n43-45 function grid\n47-47 function Badge\n",
    ),
    (
        "Ledger.java",
        "java",
        "6-43 class Ledger\n  12-13 class Ledger.Posting\n  15-15 enum Ledger.Side\n  17-23 method Ledger.post\n  25-27 method Ledger.post\n  29-29 constructor Ledger.Ledger\n  31-33 interface Ledger.Visitor\n    32-32 method Ledger.Visitor.visit\n  35-42 class Ledger.Totals\n    38-41 method Ledger.Totals.visit\n",
    ),
    (
        "cart.rb",
        "ruby",
        "5-31 module Shop\n  8-15 class Shop.Item\n    11-14 method Shop.Item.initialize\n  17-30 class Shop.Cart\n    19-21 method Shop.Cart.empty\n    23-25 method Shop.Cart.initialize\n    27-29 method Shop.Cart.total\n33-35 function checkout\n",
    ),
    (
        "buffer.c",
        "c",
        "4-9 struct buffer\n11-14 type position\n16-16 enum mode\n18-31 function buffer_reserve\n33-38 function buffer_take\n",
    ),
    (
        "matrix.cpp",
        "cpp",
        "3-36 namespace linalg\n  5-17 class linalg.Matrix\n    8-8 method linalg.Matrix.Matrix\n    10-10 method linalg.Matrix.at\n  19-25 method linalg.Matrix.transpose\n  27-32 function linalg.dot\n  34-34 struct linalg.Point\n",
    ),
    (
        "Inventory.cs",
        "csharp",
        "4-39 namespace Warehouse\n  6-26 class Warehouse.Inventory\n    11-12 property Warehouse.Inventory.Count\n    14-18 method Warehouse.Inventory.Add\n    20-23 method Warehouse.Inventory.Add\n    25-25 constructor Warehouse.Inventory.Inventory\n  28-31 interface Warehouse.IAudit\n    30-30 method Warehouse.IAudit.Record\n  33-36 struct Warehouse.Slot\n  38-38 enum Warehouse.Zone\n",
    ),
    (
        "Mailer.php",
        "php",
        "3-3 namespace App.Mail\n5-26 class Mailer\n  13-20 method Mailer.send\n  22-25 method Mailer.count\n28-31 interface Transport\n  30-30 method Transport.deliver\n33-39 trait Retries\n  35-38 method Retries.retry\n41-44 function render_template\n",
    ),
];

#[tokio::test]
async fn every_language_outlines_and_reads_symbols_byte_for_byte() {
    let texts: Vec<(String, String)> = OUTLINES
        .iter()
        .map(|(name, _, _)| (name.to_string(), fixture(name)))
        .collect();
    let files: Vec<(&str, &str)> = texts
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let server = gitlab(&files).await;
    let mcp = spawn_gitlab(&server.uri(), None).await;
    for ((name, language, want), (_, text)) in OUTLINES.iter().zip(&texts) {
        let out = ok(&mcp.call(args(name, json!({"outline": true}))).await);
        assert_eq!(out["content"], *want, "{name}");
        assert_eq!(out["metadata"]["outline"]["language"], *language, "{name}");
        // Every definition the outline lists reads back as its exact lines by its qualified
        // name (a name listed twice, apart, is ambiguous; adjacent ones are one window).
        for line in want.lines() {
            let (range, rest) = line.trim_start().split_once(' ').unwrap();
            let qualified = rest.split_once(' ').unwrap().1;
            let (start, end) = range.split_once('-').unwrap();
            let (start, end): (usize, usize) = (start.parse().unwrap(), end.parse().unwrap());
            let r = mcp.call(args(name, json!({"symbol": qualified}))).await;
            if r.is_error == Some(true) {
                assert!(
                    err(&r).contains("matches"),
                    "{name} {qualified}: {}",
                    err(&r)
                );
                continue;
            }
            let out = ok(&r);
            let symbol = &out["metadata"]["symbol"];
            let (s, e) = (
                symbol["start_line"].as_u64().unwrap() as usize,
                symbol["end_line"].as_u64().unwrap() as usize,
            );
            assert!(
                s <= start && end <= e,
                "{name} {qualified}: {s}-{e} holds {start}-{end}"
            );
            assert_eq!(
                out["content"],
                lines(text, s, e).as_str(),
                "{name} {qualified}"
            );
            assert_eq!(
                out["metadata"]["returned_lines"],
                json!({"start": s, "end": e})
            );
        }
    }
    mcp.stop().await;
}

#[tokio::test]
async fn symbols_overloads_ambiguity_and_missing_names() {
    let (billing, router) = (fixture("billing.py"), fixture("router.ts"));
    let server = gitlab(&[("billing.py", &billing), ("router.ts", &router)]).await;
    let mcp = spawn_gitlab(&server.uri(), None).await;
    // A class nested in a class, by its qualified name: exactly its lines.
    let out = ok(&mcp
        .call(args("billing.py", json!({"symbol": "Invoice.Status"})))
        .await);
    assert_eq!(out["content"], lines(&billing, 35, 41).as_str());
    assert_eq!(
        out["metadata"]["symbol"],
        json!({"name": "Invoice.Status", "kind": "class", "start_line": 35, "end_line": 41})
    );
    // Read whole, the definition says so: no window hint pointing past its end.
    assert_eq!(
        out["system_instruction"],
        format!(
            "This is the whole class Invoice.Status: lines 35-41 of {}.",
            billing.lines().count()
        )
    );
    // A line range inside the definition: that part, and the next range of it (issue 46: "a
    // call without a range reads all of it" was not so for a definition past 2,000 lines).
    let out = ok(&mcp
        .call(args(
            "billing.py",
            json!({"symbol": "Invoice", "start_line": 40, "end_line": 45}),
        ))
        .await);
    assert_eq!(out["content"], lines(&billing, 40, 45).as_str());
    assert_eq!(
        out["system_instruction"],
        "These are lines 40-45 of class Invoice (lines 34-61), as the line range asked. It goes on to line 61: to read on, call again with {\"start_line\": 46, \"end_line\": 51}."
    );
    // A last part that names one definition; decorators included.
    let out = ok(&mcp
        .call(args("billing.py", json!({"symbol": "_cache"})))
        .await);
    assert_eq!(out["content"], lines(&billing, 48, 51).as_str());
    // Overload signatures and the implementation, with the doc comment above: one window.
    let out = ok(&mcp
        .call(args("router.ts", json!({"symbol": "parseQuery"})))
        .await);
    assert_eq!(out["content"], lines(&router, 23, 33).as_str());
    // Decorator and doc comment above a method.
    let out = ok(&mcp
        .call(args("router.ts", json!({"symbol": "Router.add"})))
        .await);
    assert_eq!(out["content"], lines(&router, 38, 43).as_str());
    // Several definitions apart: each listed, with how to read it.
    let e = err(&mcp
        .call(args("billing.py", json!({"symbol": "total"})))
        .await);
    assert_eq!(
        e,
        "Symbol 'total' matches 3 definitions in 'billing.py':\n  25-27 method Line.total\n  53-57 method Invoice.total\n  73-74 method Ledger.total\nCall again with symbol set to one of the qualified names above (e.g. {\"symbol\": \"Line.total\"}), or read a definition's lines with start_line and end_line (e.g. {\"start_line\": 25, \"end_line\": 27})."
    );
    // No match: the closest names, never a guess.
    let e = err(&mcp
        .call(args("billing.py", json!({"symbol": "Invoce"})))
        .await);
    assert_eq!(
        e,
        "No definition named 'Invoce' in 'billing.py'. Did you mean 'Invoice'? Call with outline: true to list the file's definitions."
    );
    mcp.stop().await;
}

#[tokio::test]
async fn unsupported_files_conflicts_ranges_and_if_none_match() {
    let billing = fixture("billing.py");
    let server = gitlab(&[("billing.py", &billing), ("notes.txt", "just text\n")]).await;
    let mcp = spawn_gitlab(&server.uri(), None).await;
    let e = err(&mcp.call(args("notes.txt", json!({"outline": true}))).await);
    assert_eq!(
        e,
        "No outline for 'notes.txt': outline and symbol read Python, JavaScript/JSX, TypeScript/TSX, Go, Rust, Java, Ruby, C, C++, C# and PHP files, by extension (on GitLab also by a gitlab-language attribute in .gitattributes). Use pattern to find lines in this file instead."
    );
    let e = err(&mcp
        .call(args(
            "billing.py",
            json!({"outline": true, "pattern": "def"}),
        ))
        .await);
    assert_eq!(
        e,
        "Pass one of pattern, outline, symbol, history, blame and diff_from, not both pattern and outline."
    );
    // A line range keeps the definitions starting in it.
    let out = ok(&mcp
        .call(args(
            "billing.py",
            json!({"outline": true, "start_line": 34, "end_line": 60}),
        ))
        .await);
    let content = out["content"].as_str().unwrap();
    assert!(content.starts_with("34-61 class Invoice\n"), "{content}");
    assert!(
        content.ends_with("  59-61 method Invoice.send\n"),
        "{content}"
    );
    assert_eq!(out["metadata"]["outline"]["total"], 8);
    // A symbol's window re-read with its blob id: no content, the window's metadata.
    let out = ok(&mcp
        .call(args("billing.py", json!({"symbol": "Ledger"})))
        .await);
    let blob = out["metadata"]["blob_id"].as_str().unwrap().to_string();
    let again = ok(&mcp
        .call(args(
            "billing.py",
            json!({"symbol": "Ledger", "if_none_match": blob}),
        ))
        .await);
    assert_eq!(again["metadata"]["unchanged"], true);
    assert!(again.get("content").is_none());
    assert_eq!(
        again["metadata"]["returned_lines"],
        json!({"start": 69, "end": 74})
    );
    mcp.stop().await;
}

#[tokio::test]
async fn batch_entries_take_outline_and_symbol() {
    let (billing, store) = (fixture("billing.py"), fixture("store.rs"));
    let server = gitlab(&[("billing.py", &billing), ("store.rs", &store)]).await;
    let mcp = spawn_gitlab(&server.uri(), None).await;
    let out = ok(&mcp
        .call_many(json!({"project_id": "grp/proj", "ref": "main", "files": [
            {"file_path": "billing.py", "outline": true},
            {"file_path": "store.rs", "symbol": "Store.get"},
            {"file_path": "store.rs", "symbol": "nope"},
        ]}))
        .await);
    let files = out["files"].as_array().unwrap();
    assert_eq!(files[0]["content"], python_ast_outline(&billing).as_str());
    assert_eq!(files[1]["content"], lines(&store, 55, 62).as_str());
    assert_eq!(files[1]["metadata"]["symbol"]["kind"], "method");
    assert!(
        files[2]["error"]
            .as_str()
            .unwrap()
            .starts_with("No definition named 'nope' in 'store.rs'."),
        "{}",
        files[2]
    );
    mcp.stop().await;
}

#[tokio::test]
async fn the_language_gitlab_declares_wins_and_is_asked_only_to_parse() {
    // `.gitattributes`: `Nicefile gitlab-language=ruby`, `*.h gitlab-language=cpp`; GitLab
    // gives it as the blob's `language` (null unless set).
    let ruby = "class Nice\n  def run\n    1\n  end\nend\n";
    let header = "namespace geo {\nclass Vec {\n  int x;\n};\n}\n";
    let mut nice = text_node("Nicefile", ruby);
    nice["language"] = json!("ruby");
    let mut vec = text_node("include/vec.h", header);
    vec["language"] = json!("cpp");
    let server = MockServer::start().await;
    graphql()
        .respond_with(json_response(project_answer(
            "grp/proj",
            7,
            vec![nice, vec],
        )))
        .mount(&server)
        .await;
    let mcp = spawn_gitlab(&server.uri(), None).await;
    let out = ok(&mcp.call(args("Nicefile", json!({"outline": true}))).await);
    assert_eq!(out["metadata"]["outline"]["language"], "ruby");
    assert_eq!(out["content"], "1-5 class Nice\n  2-4 method Nice.run\n");
    let out = ok(&mcp
        .call(args("include/vec.h", json!({"symbol": "geo.Vec"})))
        .await);
    assert_eq!(out["content"], "class Vec {\n  int x;\n};\n");
    let out = ok(&mcp
        .call_many(json!({"project_id": "grp/proj", "ref": "main", "files": [
            {"file_path": "Nicefile", "outline": true},
        ]}))
        .await);
    assert_eq!(out["files"][0]["metadata"]["outline"]["language"], "ruby");
    // A window and a search never ask for it (a Gitaly call per blob).
    ok(&mcp.call(args("Nicefile", json!({}))).await);
    ok(&mcp.call(args("Nicefile", json!({"pattern": "def"}))).await);
    let asked: Vec<bool> = bodies(&server)
        .await
        .iter()
        .map(|b| b["variables"]["withLanguage"] == json!(true))
        .collect();
    assert_eq!(asked.len(), 5, "one request per call: {asked:?}");
    assert_eq!(asked, [true, true, true, false, false]);
    mcp.stop().await;
}

/// A Python file of `bytes` bytes or a little more: many small functions.
fn python_of(bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 100);
    let mut i = 0;
    while text.len() < bytes {
        text.push_str(&format!("def f{i}(x):\n    return x + {i}\n\n"));
        i += 1;
    }
    text
}

#[tokio::test]
async fn local_mode_outlines_a_file_past_10_mib_and_refuses_past_the_limit() {
    let fixture_repo = git_fixture::build();
    let root = fixture_repo.path();
    let big = python_of(11 * 1024 * 1024);
    let huge = python_of(12 * 1024 * 1024 + 10);
    std::fs::write(root.join("big.py"), &big).unwrap();
    std::fs::write(root.join("huge.py"), &huge).unwrap();
    std::fs::write(root.join("store.rs"), fixture("store.rs")).unwrap();
    fixture_repo.git(&["add", "big.py", "huge.py", "store.rs"]);
    fixture_repo.git(&["commit", "--quiet", "--no-verify", "-m", "outline files"]);
    let repo = root.to_str().unwrap();
    let mcp = spawn(&["serve", "--repo", repo], &[]).await;
    let out = ok(&mcp
        .call(json!({"file_path": "big.py", "outline": true, "end_line": 30}))
        .await);
    assert_eq!(
        out["content"],
        "1-2 function f0\n4-5 function f1\n7-8 function f2\n10-11 function f3\n13-14 function f4\n16-17 function f5\n19-20 function f6\n22-23 function f7\n25-26 function f8\n28-29 function f9\n"
    );
    let total = out["metadata"]["outline"]["total"].as_u64().unwrap();
    assert_eq!(total, 10);
    let out = ok(&mcp
        .call(json!({"file_path": "big.py", "symbol": "f123456"}))
        .await);
    assert_eq!(out["content"], "def f123456(x):\n    return x + 123456\n");
    let e = err(&mcp
        .call(json!({"file_path": "huge.py", "outline": true}))
        .await);
    assert_eq!(
        e,
        format!(
            "File 'huge.py' ({} bytes) is too large to outline: at most 12582912 bytes are parsed. Use pattern to find its definitions instead.",
            huge.len()
        )
    );
    let out = ok(&mcp
        .call(json!({"file_path": "store.rs", "symbol": "Miss"}))
        .await);
    assert_eq!(out["metadata"]["symbol"]["kind"], "enum");
    mcp.stop().await;
    // The command line too.
    let run = Command::new(env!("CARGO_BIN_EXE_gitlab-file-mcp"))
        .args([
            "read",
            "--repo",
            repo,
            "--path",
            "store.rs",
            "--symbol",
            "Store.put",
        ])
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(run.stdout).unwrap(),
        lines(&fixture("store.rs"), 48, 53)
    );
    let run = Command::new(env!("CARGO_BIN_EXE_gitlab-file-mcp"))
        .args([
            "read",
            "--repo",
            repo,
            "--path",
            "store.rs",
            "--outline",
            "--end-line",
            "8",
        ])
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(run.stdout).unwrap(),
        "7-8 constant DEFAULT_TTL\n"
    );
}

#[tokio::test]
async fn a_symbol_cut_by_the_budget_reads_on_by_its_hints() {
    let billing = fixture("billing.py");
    let server = gitlab(&[("billing.py", &billing)]).await;
    let mcp = spawn_gitlab(&server.uri(), None).await;
    let mut call = args("billing.py", json!({"symbol": "Invoice", "max_chars": 300}));
    let (mut joined, mut calls) = (String::new(), 0);
    loop {
        let out = ok(&mcp.call(call.clone()).await);
        assert_eq!(out["metadata"]["symbol"]["start_line"], 34);
        joined.push_str(out["content"].as_str().unwrap());
        calls += 1;
        if out["metadata"]["returned_lines"]["end"] == 61 {
            break;
        }
        // The window's hint, followed with symbol kept, stays within the definition.
        let next = out["system_instruction"]
            .as_str()
            .and_then(next_call)
            .expect("a hint while the definition is cut");
        let first = next["start_line"]
            .as_u64()
            .or_else(|| next["offset"].as_u64().map(|o| o + 1))
            .expect("a window hint");
        assert!(first <= 61, "{next}");
        for (k, v) in next.as_object().unwrap() {
            call[k] = v.clone();
        }
        assert!(calls < 20, "the hints loop");
    }
    assert_eq!(joined, lines(&billing, 34, 61));
    assert!(calls > 1);
    mcp.stop().await;
}
