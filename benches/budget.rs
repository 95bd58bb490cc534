//! Budget bench (issue 10): model-visible characters per call against the window's raw size.
//!
//! The release binary runs over stdio (rmcp's client) against the in-process mock GitLab of
//! `support/mock_gitlab.rs`. For a source file, a JSON data file with ~1 KiB lines, a
//! minified JS file (a few lines of MiBs), and two files JSON escaping makes longer (a
//! lockfile of quoted strings, an ANSI-coloured log), one call with default arguments and one
//! with `"max_chars": 0`. The last column says whether the call meets issue 10's goal of at
//! most 1.10 × the raw window plus 300 characters. "Model-visible" is the characters (Unicode scalar values) of the result's
//! text content blocks, what a client hands the model; the raw window is `content` of the
//! output. A server without `max_chars` rejects the argument ("Unknown argument"): that row
//! reads "n/a (not supported)". Also prints the tool's declared result ceiling
//! (`_meta["anthropic/maxResultSizeChars"]` in `tools/list`) and which default responses exceed it.
//!
//! Run: `cargo bench --bench budget`. The bench reports; it asserts nothing.

// Timings, peak RSS, the REST endpoints and the traffic counters are the paging bench's.
#[allow(dead_code)]
#[path = "support/mcp.rs"]
mod mcp;
#[allow(dead_code)]
#[path = "support/mock_gitlab.rs"]
mod mock_gitlab;

use serde_json::Value;

use mcp::{Call, Server, error_of, file_args, output_of, text_of, thousands};

/// Claude Code refuses a tool result over 25,000 tokens by default: about this many characters.
const CLAUDE_CODE_DEFAULT_CHARS: u64 = 100_000;

struct Case {
    label: &'static str,
    path: &'static str,
    content: String,
}

/// What one call showed the model, or why there is nothing to show.
enum Measured {
    Window(Window),
    NotSupported,
    Failed(String),
}

struct Window {
    text_chars: u64,
    content_bytes: u64,
    content_chars: u64,
    /// Characters JSON escaping adds to `content` (quotes, backslashes, control characters).
    escaping_chars: u64,
    returned: String,
    truncated: bool,
}

#[tokio::main]
async fn main() {
    let cases = vec![
        Case {
            label: "source code (3,000 lines)",
            path: "src/service.rs",
            content: source_file(3_000),
        },
        Case {
            label: "JSON data (~1 KiB lines)",
            path: "data/records.json",
            content: json_records(2_000, 1024),
        },
        Case {
            label: "minified JS (3 lines)",
            path: "dist/app.min.js",
            content: minified_js(&[3 * 1024 * 1024, 3 * 512 * 1024]),
        },
        Case {
            label: "lockfile JSON (quoted strings)",
            path: "package-lock.json",
            content: lockfile(8_000),
        },
        Case {
            label: "ANSI-coloured log",
            path: "build.log",
            content: ansi_log(6_000),
        },
    ];
    let mock =
        mock_gitlab::start(cases.iter().map(|c| (c.path, c.content.clone())).collect()).await;
    let server = mcp::start(&mock.base_url).await;
    let ceiling = declared_ceiling(&server).await;

    println!("Model-visible characters per call (text content blocks) against the raw window\n");
    println!(
        "| file (size) | arguments | returned lines | truncated | raw window: bytes | raw window: chars | model-visible chars | envelope (text − content chars) | of which JSON escaping | text / raw chars | ≤ 1.10 × raw + 300 |"
    );
    println!("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---|");
    let mut over = Vec::new();
    for case in &cases {
        for (label, extra) in [("defaults", None), ("`max_chars: 0`", Some(0))] {
            let mut args = file_args(case.path);
            if let Some(n) = extra {
                args.insert("max_chars".into(), Value::from(n));
            }
            let measured = measure(server.call(&args).await);
            if let (None, Measured::Window(w)) = (extra, &measured)
                && w.text_chars > ceiling.unwrap_or(CLAUDE_CODE_DEFAULT_CHARS)
            {
                over.push(format!("{} ({})", case.label, thousands(w.text_chars)));
            }
            println!("{}", row(case, label, &measured));
        }
    }
    server.stop().await;

    let limit = match ceiling {
        Some(n) => format!("declared ceiling {}", thousands(n)),
        None => format!(
            "no declared ceiling; Claude Code's default ≈ {} chars",
            thousands(CLAUDE_CODE_DEFAULT_CHARS)
        ),
    };
    println!(
        "\n`tools/list` `_meta[\"anthropic/maxResultSizeChars\"]`: {}",
        ceiling.map_or("none".to_string(), thousands)
    );
    println!(
        "Default responses over the limit ({limit}): {}",
        if over.is_empty() {
            "none".to_string()
        } else {
            over.join(", ")
        }
    );
}

/// The tool's `_meta["anthropic/maxResultSizeChars"]` in `tools/list`, if declared.
async fn declared_ceiling(server: &Server) -> Option<u64> {
    let tools = server.client.list_all_tools().await.expect("tools/list");
    let tool = tools.iter().find(|t| t.name == mcp::TOOL)?;
    let tool = serde_json::to_value(tool).ok()?;
    tool["_meta"]["anthropic/maxResultSizeChars"].as_u64()
}

fn measure(call: Call) -> Measured {
    if let Some(e) = error_of(&call) {
        return if e.contains("Unknown argument") {
            Measured::NotSupported
        } else {
            Measured::Failed(e)
        };
    }
    let Ok(result) = &call.result else {
        return Measured::Failed("no result".into());
    };
    let output = output_of(result).unwrap_or(Value::Null);
    let content = output["content"].as_str().unwrap_or_default();
    let lines = &output["metadata"]["returned_lines"];
    Measured::Window(Window {
        text_chars: text_of(result).chars().count() as u64,
        content_bytes: content.len() as u64,
        content_chars: content.chars().count() as u64,
        escaping_chars: escaping_chars(content),
        returned: match (lines["start"].as_u64(), lines["end"].as_u64()) {
            (Some(s), Some(e)) => format!("{s}–{e}"),
            _ => "none".into(),
        },
        truncated: output["metadata"]["truncated"].as_bool().unwrap_or(false),
    })
}

fn row(case: &Case, args: &str, m: &Measured) -> String {
    let file = format!(
        "{} ({} B)",
        case.label,
        thousands(case.content.len() as u64)
    );
    match m {
        Measured::Window(w) => format!(
            "| {file} | {args} | {} | {} | {} | {} | {} | {} | {} | {:.3} | {} |",
            w.returned,
            if w.truncated { "yes" } else { "no" },
            thousands(w.content_bytes),
            thousands(w.content_chars),
            thousands(w.text_chars),
            thousands(w.text_chars.saturating_sub(w.content_chars)),
            thousands(w.escaping_chars),
            w.text_chars as f64 / w.content_chars.max(1) as f64,
            if w.text_chars as f64 <= 1.10 * w.content_chars as f64 + 300.0 {
                "yes"
            } else {
                "no"
            },
        ),
        Measured::NotSupported => {
            format!(
                "| {file} | {args} | n/a (not supported) | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a |"
            )
        }
        Measured::Failed(e) => {
            let e = e.replace('|', "/");
            format!("| {file} | {args} | error: {e} | | | | | | | | |")
        }
    }
}

/// How many characters longer `content` is as a JSON string literal (without its quotes).
fn escaping_chars(content: &str) -> u64 {
    let literal = Value::from(content).to_string();
    (literal.chars().count() - content.chars().count() - 2) as u64
}

/// `lines` lines of Rust-like source with some non-ASCII comments.
fn source_file(lines: usize) -> String {
    let body = [
        "/// Looks up an order — returns `None` when it is gone.",
        "pub fn find_order(store: &Store, id: OrderId) -> Option<Order> {",
        "    let key = format!(\"order:{id}\");",
        "    match store.get(&key) {",
        "        Some(raw) => serde_json::from_slice(&raw).ok(),",
        "        None => None,",
        "    }",
        "}",
        "",
    ];
    (0..lines)
        .map(|i| format!("{}\n", body[i % body.len()]))
        .collect()
}

/// A JSON array with one record of about `line_len` bytes a line.
fn json_records(records: usize, line_len: usize) -> String {
    let mut s = String::from("[\n");
    for i in 0..records {
        let mut line = format!(
            r#"  {{"id": {i}, "name": "record-{i:06}", "city": "Zürich", "tags": ["a", "b"], "values": ["#
        );
        let mut v = 0u64;
        while line.len() < line_len - 12 {
            line.push_str(&format!("{}, ", (v * 7919 + i as u64) % 100_000));
            v += 1;
        }
        line.push_str("0]}");
        line.push_str(if i + 1 < records { ",\n" } else { "\n" });
        s.push_str(&line);
    }
    s.push_str("]\n");
    s
}

/// A `package-lock.json`-like file: `packages` entries of quoted keys and values, each `"`
/// escaped in the text block.
fn lockfile(packages: usize) -> String {
    let mut s =
        String::from("{\n  \"name\": \"app\",\n  \"lockfileVersion\": 3,\n  \"packages\": {\n");
    for i in 0..packages {
        s.push_str(&format!(
            "    \"node_modules/pkg-{i}\": {{\n      \"version\": \"1.{}.{}\",\n      \"resolved\": \"https://registry.npmjs.org/pkg-{i}/-/pkg-{i}-1.0.0.tgz\",\n      \"integrity\": \"sha512-{i:08}abcdefghijklmnopqrstuvwxyz\",\n      \"dev\": true\n    }}{}\n",
            i % 17,
            i % 5,
            if i + 1 < packages { "," } else { "" }
        ));
    }
    s.push_str("  }\n}\n");
    s
}

/// A build log with ANSI colour codes: ESC (`\u001b` once escaped) several times a line.
fn ansi_log(lines: usize) -> String {
    (0..lines)
        .map(|i| {
            format!(
                "\u{1b}[2m2026-12-01T07:{:02}:{:02}Z\u{1b}[0m \u{1b}[32mINFO\u{1b}[0m compiled crate-{i} in {} ms\n",
                i / 60 % 60,
                i % 60,
                i % 997
            )
        })
        .collect()
}

/// Minified JS: one line per entry of `line_lens` (bytes, about), then a source-map comment.
fn minified_js(line_lens: &[usize]) -> String {
    let mut s = String::new();
    for &len in line_lens {
        let start = s.len();
        let mut i = 0usize;
        while s.len() - start < len {
            s.push_str(&format!(
                "function f{i}(a,b){{return a+b*{i}}}var s{i}=\"k{i}\",o{i}={{x:s{i},y:[1,2]}};"
            ));
            i += 1;
        }
        s.push('\n');
    }
    s.push_str("//# sourceMappingURL=app.min.js.map\n");
    s
}
