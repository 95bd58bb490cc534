//! `outline` and `symbol` on files written to hurt (issue 35), over stdio against a local
//! repository, each message's bytes counted on the wire: a minified line of thousands of
//! definitions, deep nesting in every language, a name of megabytes, a name that would forge a
//! line. Sizes are scaled down from the (the shapes, not the sizes, did the harm).

use crate::support::git_fixture;
use crate::support::wire::Wire;

use serde_json::{Value, json};

/// What a client takes in one message (the Python SDK caps a server-sent event at 1 MiB).
const MESSAGE_BYTES: usize = 1_000_000;

/// The answer of `tools/call` with `args` on the wire: its bytes and its structured content
/// (or its error text).
fn call(wire: &mut Wire, args: Value) -> (usize, Result<Value, String>) {
    let line = wire.request(
        "tools/call",
        json!({"name": "get_repository_file", "arguments": args}),
    );
    let message: Value = serde_json::from_str(&line).expect("a JSON-RPC message");
    let result = &message["result"];
    let answer = match result["isError"].as_bool() {
        Some(true) => Err(result["content"][0]["text"].as_str().unwrap().to_string()),
        _ => Ok(result["structuredContent"].clone()),
    };
    (line.len(), answer)
}

/// `depth` nested definitions in the notation of the file's extension.
fn nested(extension: &str, depth: usize) -> String {
    let (open, close) = match extension {
        "rs" => ("fn a(){\n", "}\n"),
        "go" => ("func a(){\n", "}\n"),
        "rb" => ("def a\n", "end\n"),
        "php" => ("function a(){\n", "}\n"),
        "java" | "cs" => ("class A{\n", "}\n"),
        "c" | "cpp" => ("struct A{\n", "};\n"),
        _ => ("function a(){\n", "}\n"),
    };
    let head = if extension == "php" { "<?php\n" } else { "" };
    format!("{head}{}{}", open.repeat(depth), close.repeat(depth))
}

#[test]
fn no_outline_or_symbol_message_passes_a_million_bytes_on_hostile_files() {
    let minified: String = (0..60_000)
        .map(|i| format!("function function_number_{i:06}(){{}}"))
        .collect();
    let long_name = format!("function {}(){{}}\n", "n".repeat(1_500_000));
    let many: String = (0..50_000)
        .map(|i| format!("function f{i}(){{}}\n"))
        .collect();
    let mut files = vec![
        ("min.js".to_string(), minified.into_bytes()),
        ("long.js".to_string(), long_name.into_bytes()),
        ("many.js".to_string(), many.into_bytes()),
        ("deep.js".to_string(), nested("js", 10_000).into_bytes()),
    ];
    for extension in ["ts", "rs", "go", "rb", "php", "java", "cs", "c", "cpp"] {
        let text = nested(extension, 3_000);
        files.push((format!("deep.{extension}"), text.into_bytes()));
    }
    let repo = git_fixture::build_with(&files);
    let mut wire = Wire::start(&repo);
    for (path, _) in &files {
        for extra in [json!({}), json!({"max_chars": 0}), json!({"max_chars": 50})] {
            let mut args = json!({"file_path": path, "ref": "main", "outline": true});
            args.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            let (bytes, answer) = call(&mut wire, args.clone());
            eprintln!("outline {path} {extra}: {bytes} bytes");
            assert!(bytes <= MESSAGE_BYTES, "{args}: {bytes} bytes");
            let out = answer.unwrap_or_else(|e| panic!("{args}: {e}"));
            assert!(
                out["metadata"]["outline"]["returned"].as_u64() > Some(0),
                "{args}"
            );
        }
        for symbol in ["a", "A", "function_number_000007", "f7", "nnnn"] {
            let args = json!({"file_path": path, "ref": "main", "symbol": symbol, "max_chars": 0});
            let (bytes, _) = call(&mut wire, args.clone());
            eprintln!("symbol {path} {symbol}: {bytes} bytes");
            assert!(bytes <= MESSAGE_BYTES, "{args}: {bytes} bytes");
        }
    }
}

#[test]
fn a_line_of_more_definitions_than_a_page_says_which_are_left_out() {
    let minified: String = (0..5_000)
        .map(|i| format!("function f{i:04}(){{}}"))
        .collect();
    let text = format!("{minified}\nfunction after(){{}}\n");
    let repo = git_fixture::build_with(&[("min.js".to_string(), text.into_bytes())]);
    let mut wire = Wire::start(&repo);
    let args = json!({"file_path": "min.js", "ref": "main", "outline": true, "max_chars": 1000});
    let out = call(&mut wire, args).1.unwrap();
    let content = out["content"].as_str().unwrap();
    let shown = content.lines().count();
    assert!(content.chars().count() <= 1000, "{content}");
    assert_eq!(
        content.lines().next(),
        Some("1-1 function f0000"),
        "{content}"
    );
    let hint = out["system_instruction"].as_str().unwrap();
    assert!(
        hint.contains(&format!(
            "Line 1 starts 5000 definitions, more than one page holds within the 1000 character budget (max_chars): the first {shown} are listed, the other {} are not listed by any outline page; read the line itself with {{\"outline\": false, \"start_line\": 1, \"end_line\": 1}}, or one definition with symbol",
            5_000 - shown
        )),
        "{hint}"
    );
    // The next page, as the hint names it, is the next line's.
    assert!(
        hint.contains(
            "call again with {\"outline\": true, \"start_line\": 2, \"max_chars\": 1000}"
        ),
        "{hint}"
    );
    let args = json!({"file_path": "min.js", "ref": "main", "outline": true, "start_line": 2, "max_chars": 1000});
    let out = call(&mut wire, args).1.unwrap();
    assert_eq!(out["content"], "2-2 function after\n");
}

#[test]
fn long_names_are_shortened_and_deep_definitions_counted_with_a_marker_and_a_hint() {
    let name = "n".repeat(300_000);
    let text = format!("function {name}(){{}}\n{}", nested("js", 40));
    let repo = git_fixture::build_with(&[("a.js".to_string(), text.into_bytes())]);
    let mut wire = Wire::start(&repo);
    let args = json!({"file_path": "a.js", "ref": "main", "outline": true});
    let out = call(&mut wire, args).1.unwrap();
    let content = out["content"].as_str().unwrap();
    let first = content.lines().next().unwrap();
    let shown = format!(
        "1-1 function {}…[+{} bytes]",
        "n".repeat(200),
        300_000 - 200
    );
    assert_eq!(first, shown);
    assert_eq!(content.lines().count(), 1 + 32, "{content}");
    let hint = out["system_instruction"].as_str().unwrap();
    assert!(
        hint.contains("Names ending in …[+N bytes] are shortened (1 on this page): N more bytes of the name are in the file; symbol accepts a name as shown."),
        "{hint}"
    );
    assert!(
        hint.contains("Definitions nested 32 deep are not listed (1 of them, not counting the definitions inside them): read them by their lines."),
        "{hint}"
    );
    // The name as shown picks the definition.
    let symbol = shown.trim_start_matches("1-1 function ");
    let args = json!({"file_path": "a.js", "ref": "main", "symbol": symbol});
    let out = call(&mut wire, args).1.unwrap();
    assert_eq!(out["metadata"]["symbol"]["start_line"], 1);
}

#[test]
fn a_name_holding_a_newline_is_one_escaped_line() {
    let text = "class A {\n  [`x\n1-1 method Z`]() {}\n  [\"p\\u2028q\"]() {}\n}\n";
    let text = text.replace("\\u2028", "\u{2028}");
    let repo = git_fixture::build_with(&[("a.ts".to_string(), text.into_bytes())]);
    let mut wire = Wire::start(&repo);
    let args = json!({"file_path": "a.ts", "ref": "main", "outline": true});
    let out = call(&mut wire, args).1.unwrap();
    let content = out["content"].as_str().unwrap();
    eprintln!("{content:?}");
    assert!(!content.contains('\u{2028}'), "{content:?}");
    for line in content.lines() {
        assert!(
            line.starts_with("1-5 class A") || line.starts_with("  "),
            "a forged line: {content:?}"
        );
    }
}

#[test]
fn an_empty_symbol_is_a_bad_argument() {
    let repo = git_fixture::build_with(&[("a.py".to_string(), b"def f():\n    pass\n".to_vec())]);
    let mut wire = Wire::start(&repo);
    for empty in ["", "   "] {
        let args = json!({"file_path": "a.py", "ref": "main", "symbol": empty});
        let e = call(&mut wire, args).1.unwrap_err();
        assert!(
            e.contains("Argument 'symbol' is empty: name a definition"),
            "{e}"
        );
    }
}

/// A fixture file's bytes.
fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/outline/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn symbol_takes_any_qualified_end_of_a_name_in_its_language_s_notation() {
    // issue 34 item 3: docs/tool.md shows these as accepted.
    let files: Vec<(String, Vec<u8>)> = ["cart.rb", "billing.py", "matrix.cpp"]
        .iter()
        .map(|f| (f.to_string(), fixture(f)))
        .collect();
    let repo = git_fixture::build_with(&files);
    let mut wire = Wire::start(&repo);
    for (path, symbol, name) in [
        ("cart.rb", "Cart#total", "Shop.Cart.total"),
        ("cart.rb", "Cart.total", "Shop.Cart.total"),
        ("billing.py", "Status.parse", "Invoice.Status.parse"),
        ("billing.py", "Invoice::Status", "Invoice.Status"),
        ("matrix.cpp", "Matrix::transpose", "linalg.Matrix.transpose"),
        ("matrix.cpp", "linalg::Matrix::at", "linalg.Matrix.at"),
    ] {
        let args = json!({"file_path": path, "ref": "main", "symbol": symbol});
        let out = call(&mut wire, args)
            .1
            .unwrap_or_else(|e| panic!("{symbol}: {e}"));
        assert_eq!(out["metadata"]["symbol"]["name"], name, "{symbol}");
    }
    // An end shared by several definitions apart is refused, listing them.
    let args = json!({"file_path": "billing.py", "ref": "main", "symbol": "total"});
    let e = call(&mut wire, args).1.unwrap_err();
    assert!(e.starts_with("Symbol 'total' matches"), "{e}");
}

/// `n` small Python functions (about 30 bytes each; some 50 bytes of syntax tree per byte).
fn python_functions(n: usize) -> String {
    (0..n)
        .map(|i| format!("def f{i}(x):\n    return [x, {i}]\n"))
        .collect()
}

#[test]
fn a_parse_past_the_memory_budget_is_refused_with_what_to_do_instead() {
    let big = python_functions(3_000);
    let files = [
        ("big.py".to_string(), big.clone().into_bytes()),
        ("small.py".to_string(), python_functions(3).into_bytes()),
    ];
    let repo = git_fixture::build_with(&files);
    let mut wire = Wire::start_with(&repo, &["--outline-memory-bytes", "1000000"]);
    let refusal = format!(
        "File 'big.py' ({} bytes) could not be outlined: its syntax tree passed 1000000 bytes, the most one parse may hold on this server (its --outline-memory-bytes; tree-sitter holds 35 to 105 bytes of tree per byte of source). Use pattern to find its definitions, or read it in line windows (start_line, end_line), instead.",
        big.len()
    );
    // Refused, and not kept: the symbol call after parses again, and is refused again.
    for args in [
        json!({"file_path": "big.py", "ref": "main", "outline": true}),
        json!({"file_path": "big.py", "ref": "main", "symbol": "f7"}),
    ] {
        assert_eq!(call(&mut wire, args).1.unwrap_err(), refusal);
    }
    // A small file's parse stays within the same budget.
    let args = json!({"file_path": "small.py", "ref": "main", "outline": true});
    let out = call(&mut wire, args).1.unwrap();
    assert_eq!(out["metadata"]["outline"]["returned"], 3);
    // The default budget (512 MiB) takes the big file.
    let mut wire = Wire::start(&repo);
    let args = json!({"file_path": "big.py", "ref": "main", "outline": true, "max_chars": 0});
    let out = call(&mut wire, args).1.unwrap();
    assert_eq!(out["metadata"]["outline"]["total"], 3_000);
}

/// The first JSON object of `hint`, as an agent that merges only that would take it.
fn first_object(hint: &str) -> Value {
    let at = hint
        .find('{')
        .unwrap_or_else(|| panic!("no object in {hint}"));
    let mut stream = serde_json::Deserializer::from_str(&hint[at..]).into_iter::<Value>();
    stream.next().unwrap().unwrap()
}

/// `args` with `next` merged in.
fn merged(args: &Value, next: &Value) -> Value {
    let mut args = args.clone();
    for (k, v) in next.as_object().unwrap() {
        args[k] = v.clone();
    }
    args
}

#[test]
fn a_one_line_bundle_of_more_definitions_than_a_page_is_followed_to_its_end() {
    // Issue 46: the outline of a one-line bundle hinted {"start_line": 1, "end_line": 1},
    // which, merged into the outline call, returned the same page forever.
    let minified: String = (0..5_000)
        .map(|i| format!("function f{i:04}(){{}}"))
        .collect();
    let repo = git_fixture::build_with(&[("min.js".to_string(), minified.into_bytes())]);
    let mut wire = Wire::start(&repo);
    let mut args =
        json!({"file_path": "min.js", "ref": "main", "outline": true, "max_chars": 1000});
    let mut seen = Vec::new();
    for _ in 0..50 {
        let out = call(&mut wire, args.clone()).1.unwrap();
        let Some(hint) = out["system_instruction"].as_str() else {
            return;
        };
        if !hint.contains('{') {
            return;
        }
        assert!(!seen.contains(&args), "the same call again: {args}\n{hint}");
        seen.push(args.clone());
        args = merged(&args, &first_object(hint));
        if args["outline"] == false {
            return;
        }
    }
    panic!("no end after 50 calls: {args}");
}

#[test]
fn hints_speak_the_calls_vocabulary_and_name_the_limit_that_cut() {
    // Issue 46: after an offset/limit call the outline's and the pattern's next pages used
    // start_line/end_line (refused when merged: "not both"); with max_chars 0 an outline cut
    // by the message blamed "the 178479 character budget (max_chars)".
    let text: String = (0..3_000)
        .map(|i| format!("function f{i:04}() {{}}\n"))
        .collect();
    // Methods named by 190 quotes: each sent as up to 6 bytes, so a page of 2,000 of them
    // passes one message and is fitted to it.
    let methods: String = (0..3_000)
        .map(|i| format!("  '{}{i:05}'() {{}}\n", "\"".repeat(190)))
        .collect();
    let long = format!("class C {{\n{methods}}}\n");
    let repo = git_fixture::build_with(&[
        ("a.js".to_string(), text.into_bytes()),
        ("long.js".to_string(), long.into_bytes()),
    ]);
    let mut wire = Wire::start(&repo);
    for view in [json!({"outline": true}), json!({"pattern": "function"})] {
        let args = merged(
            &json!({"file_path": "a.js", "ref": "main", "offset": 0, "limit": 1000, "max_chars": 2000}),
            &view,
        );
        let out = call(&mut wire, args.clone()).1.unwrap();
        let hint = out["system_instruction"].as_str().unwrap();
        let next = first_object(hint);
        assert!(next.get("start_line").is_none(), "{args}: {hint}");
        let again = merged(&args, &next);
        assert!(call(&mut wire, again.clone()).1.is_ok(), "{again}");
    }
    let args = json!({"file_path": "long.js", "ref": "main", "outline": true, "max_chars": 0});
    let out = call(&mut wire, args).1.unwrap();
    let hint = out["system_instruction"].as_str().unwrap();
    assert!(
        hint.contains("to stay within what fits in one message"),
        "{hint}"
    );
    assert!(!hint.contains("character budget (max_chars)"), "{hint}");
}

#[test]
fn a_name_holding_json_text_is_no_object_in_the_hint() {
    // Issue 46: a TypeScript method named '}{"column": 3}' put {"column": 3}, file text, as
    // the hint's only JSON object.
    let text = "class C {\n  '}{\"column\": 3}'() {\n    return 1;\n  }\n}\n";
    let repo = git_fixture::build_with(&[("c.ts".to_string(), text.as_bytes().to_vec())]);
    let mut wire = Wire::start(&repo);
    let outline = json!({"file_path": "c.ts", "ref": "main", "outline": true});
    let out = call(&mut wire, outline).1.unwrap();
    let name = "'}{\"column\": 3}'";
    let content = out["content"].as_str().unwrap();
    assert!(content.contains(&format!("method C.{name}")), "{content}");
    let symbol = json!({"file_path": "c.ts", "ref": "main", "symbol": name});
    let out = call(&mut wire, symbol).1.unwrap();
    let hint = out["system_instruction"].as_str().unwrap();
    assert!(hint.starts_with("This is the whole method"), "{hint}");
    assert!(!hint.contains(['{', '}']), "{hint}");
}

#[test]
fn following_a_long_functions_symbol_windows_reaches_its_end() {
    // Issue 46: the windows of a 5,001-line function stopped at line 4,000, the hint saying a
    // call without a line range "reads all of it" (it reads 2,000 lines).
    let body: String = (0..5_000).map(|i| format!("    x = {i}\n")).collect();
    let text = format!("def f():\n{body}def g():\n    pass\n");
    let repo = git_fixture::build_with(&[("long.py".to_string(), text.into_bytes())]);
    let mut wire = Wire::start(&repo);
    for start in [json!({}), json!({"offset": 0}), json!({"start_line": 1})] {
        let mut args = merged(
            &json!({"file_path": "long.py", "ref": "main", "symbol": "f"}),
            &start,
        );
        let mut last = 0;
        for _ in 0..20 {
            let out = call(&mut wire, args.clone()).1.unwrap();
            last = out["metadata"]["returned_lines"]["end"].as_u64().unwrap();
            let hint = out["system_instruction"].as_str().unwrap_or_default();
            assert!(!hint.contains("reads all of it"), "{hint}");
            if !hint.contains('{') {
                break;
            }
            args = merged(&args, &first_object(hint));
        }
        assert_eq!(last, 5_001, "from {start}");
    }
}
