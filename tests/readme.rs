//! The README's table of limits and defaults is the windowing constants, not a copy that can
//! drift: every row names its constant and shows its value, and every constant has its row.
//! The declared ceiling is also checked against the `tools/list` snapshot, what the server
//! publishes.

use std::collections::BTreeMap;

use gitlab_file_mcp::limits::{DEFAULT_MAX_CHARS, MAX_RESULT_CHARS, MAX_RESULT_ENVELOPE};
use gitlab_file_mcp::window::{
    CONTROL_CHARGE, DEFAULT_LIMIT, Fit, LINE_NUMBER_WIDTH, LineRequest, MAX_LIMIT,
    MAX_WINDOW_BYTES, fit_window,
};
use serde_json::Value;

fn read(path: &str) -> String {
    let path = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The table between the `limits` markers: constant name → value as written (digits only).
fn readme_limits() -> BTreeMap<String, u64> {
    let readme = read("README.md");
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
