//! The documents say what the code does. The table of limits and defaults in `docs/tool.md` is
//! the windowing constants, not a copy that can drift: every row names its constant and shows
//! its value, and every constant has its row. The declared ceiling is also checked against the
//! `tools/list` snapshot, what the server publishes. The README stays a front door (at most 450
//! lines, the one-line installs first, then "From source" with its two commands, the second the
//! one `.ci/run` runs), and every link between the
//! README and `docs/` lands on a file and a heading that exist. The server's instructions that
//! the README quotes are, line for line, what `initialize` returns.

use std::collections::BTreeMap;

use gitlab_file_mcp::limits::{DEFAULT_MAX_CHARS, MAX_RESULT_CHARS, MAX_RESULT_ENVELOPE};
use gitlab_file_mcp::window::search::{
    DEFAULT_CONTEXT_LINES, MAX_COMPILED_BYTES, MAX_CONTEXT_LINES, MAX_PATTERN_BYTES,
};
use gitlab_file_mcp::window::{
    CONTROL_CHARGE, DEFAULT_LIMIT, Fit, LINE_NUMBER_WIDTH, LineRequest, MAX_LIMIT,
    MAX_WINDOW_BYTES, fit_window,
};
use serde_json::Value;

use crate::support::mcp;

fn read(path: &str) -> String {
    let path = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The table between the `limits` markers: constant name → value as written (digits only).
fn readme_limits() -> BTreeMap<String, u64> {
    let readme = read("docs/tool.md");
    let start = readme.find("<!-- limits:start -->").expect("start marker");
    let end = readme.find("<!-- limits:end -->").expect("end marker");
    let mut rows = BTreeMap::new();
    for line in readme[start..end].lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        let [_, value, constant] = cells[..] else {
            panic!("a row of three cells: {line}");
        };
        let Some(name) = constant.strip_prefix('`').and_then(|c| c.strip_suffix('`')) else {
            continue; // the header
        };
        let digits: String = value.chars().filter(char::is_ascii_digit).collect();
        let value = digits.parse().unwrap_or_else(|e| panic!("{line}: {e}"));
        assert!(
            rows.insert(name.to_string(), value).is_none(),
            "twice: {name}"
        );
    }
    rows
}

#[test]
fn the_limits_table_is_the_constants() {
    let declared_default = (2 * DEFAULT_MAX_CHARS + MAX_RESULT_ENVELOPE).min(MAX_RESULT_CHARS);
    let want: BTreeMap<String, u64> = [
        ("DEFAULT_LIMIT", DEFAULT_LIMIT),
        ("MAX_LIMIT", MAX_LIMIT),
        ("MAX_WINDOW_BYTES", MAX_WINDOW_BYTES as u64),
        ("DEFAULT_MAX_CHARS", DEFAULT_MAX_CHARS),
        ("CONTROL_CHARGE", CONTROL_CHARGE as u64),
        ("LINE_NUMBER_WIDTH", LINE_NUMBER_WIDTH as u64),
        ("MAX_RESULT_ENVELOPE", MAX_RESULT_ENVELOPE),
        ("declared(DEFAULT_MAX_CHARS)", declared_default),
        ("MAX_RESULT_CHARS", MAX_RESULT_CHARS),
        ("DEFAULT_CONTEXT_LINES", DEFAULT_CONTEXT_LINES),
        ("MAX_CONTEXT_LINES", MAX_CONTEXT_LINES),
        ("MAX_PATTERN_BYTES", MAX_PATTERN_BYTES as u64),
        ("MAX_COMPILED_BYTES", MAX_COMPILED_BYTES as u64),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(readme_limits(), want);
}

#[test]
fn the_constants_are_what_the_server_does() {
    // The declared ceiling is the snapshot's.
    let tools: Value = serde_json::from_str(&read("tests/snapshots/tools_list.json")).unwrap();
    let declared = tools[0]["_meta"]["anthropic/maxResultSizeChars"].as_u64();
    assert_eq!(
        declared,
        readme_limits().get("declared(DEFAULT_MAX_CHARS)").copied()
    );
    // A control character is charged CONTROL_CHARGE; a line number is right-aligned in
    // LINE_NUMBER_WIDTH columns.
    let fitted = fit_window(
        "\u{1b}\n",
        LineRequest::OffsetLimit {
            offset: 0,
            limit: 1,
        },
        Fit::RAW,
    )
    .unwrap();
    assert_eq!(fitted.charged_chars(), CONTROL_CHARGE + 1);
    let numbered = Fit {
        max_chars: 0,
        line_numbers: true,
        column: 0,
    };
    let fitted = fit_window(
        "x\n",
        LineRequest::OffsetLimit {
            offset: 0,
            limit: 1,
        },
        numbered,
    )
    .unwrap();
    assert_eq!(fitted.content.find('\t'), Some(LINE_NUMBER_WIDTH));
}

/// The documents, each with the headings it holds.
const DOCUMENTS: [&str; 6] = [
    "README.md",
    "docs/tool.md",
    "docs/gitlab.md",
    "docs/deploy.md",
    "docs/performance.md",
    "docs/development.md",
];

/// GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces → `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim_start_matches('#')
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a document's headings (lines in code fences are not headings).
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(anchor(line));
        }
    }
    out
}

/// Every `](target)` of a document that is not a web address.
fn local_links(text: &str) -> Vec<String> {
    text.split("](")
        .skip(1)
        .filter_map(|rest| rest.split_once(')').map(|(target, _)| target.to_string()))
        .filter(|t| !t.starts_with("http://") && !t.starts_with("https://"))
        .collect()
}

#[test]
fn every_link_between_the_documents_lands() {
    for doc in DOCUMENTS {
        let dir = std::path::Path::new(doc).parent().unwrap();
        for link in local_links(&read(doc)) {
            let (file, fragment) = link.split_once('#').unwrap_or((&link, ""));
            let target = if file.is_empty() {
                doc.to_string()
            } else {
                let joined = dir.join(file);
                let mut parts: Vec<&str> = Vec::new();
                for part in joined.to_str().unwrap().split('/') {
                    match part {
                        ".." => drop(parts.pop()),
                        "" | "." => {}
                        p => parts.push(p),
                    }
                }
                parts.join("/")
            };
            let text = read(&target);
            if !fragment.is_empty() {
                assert!(
                    anchors(&text).iter().any(|a| a == fragment),
                    "{doc}: link {link}: no heading #{fragment} in {target}"
                );
            }
        }
    }
}

#[test]
fn the_readme_is_a_front_door_installs_first_then_its_two_commands() {
    let readme = read("README.md");
    // The quick start leads with the one-line installs, then building from source.
    let quick_start = readme
        .split("## Quick start\n")
        .nth(1)
        .expect("a Quick start");
    let installs = quick_start.find("npx -y gitlab-file-mcp").expect("npx");
    assert!(quick_start.contains("uvx gitlab-file-mcp"), "uvx");
    assert!(quick_start.contains(".mcpb"), "the bundle");
    let from_source = quick_start.find("### From source\n").expect("From source");
    assert!(installs < from_source, "the installs come first");
    assert!(
        readme.lines().count() <= 450,
        "README.md is {} lines",
        readme.lines().count()
    );
    let first_block = quick_start[from_source..]
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a first sh block");
    let commands: Vec<&str> = first_block
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect();
    assert_eq!(
        commands,
        [
            "cargo run --release -- read --repo . --path README.md --limit 20",
            "cargo test --workspace"
        ]
    );
    // CI runs exactly the README's test command, last.
    let ci = read(".ci/run");
    let last = ci.lines().rev().find(|l| !l.trim().is_empty()).unwrap();
    assert_eq!(last, commands[1]);
    // Every document but the README opens with a table of contents.
    for doc in &DOCUMENTS[1..] {
        assert!(
            read(doc).contains("\n## Contents\n"),
            "{doc} has no contents"
        );
    }
}

/// The ```text block under "What the server tells the agent".
fn quoted_instructions(readme: &str) -> String {
    let section = readme
        .split("### What the server tells the agent\n")
        .nth(1)
        .expect("README has 'What the server tells the agent'");
    section
        .split("```text\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .expect("a text block in that section")
        .to_string()
}

#[tokio::test]
async fn the_readme_quotes_the_servers_instructions_exactly() {
    let server = mcp::spawn(&[], &[("GITLAB_URL", "http://127.0.0.1:9")]).await;
    let sent = server
        .instructions()
        .expect("the server sends instructions");
    server.stop().await;
    let quoted = quoted_instructions(&read("README.md"));
    assert_eq!(
        quoted, sent,
        "README's quoted instructions differ from what initialize returns"
    );
}
