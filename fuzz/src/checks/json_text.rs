//! Target `json_text`: the input is any bytes, made a `str` lossily (invalid UTF-8 becomes
//! U+FFFD); the decoder is `gitlab_file_mcp::fuzzing::decode_json_text`, which decodes the
//! string literal GitLab sends a file's content in.
//!
//! Properties, for the input `s`:
//! - decoding `s`, and `s` in quotes, never panics;
//! - wherever serde_json reads a literal as a string, the decoder gives the same string (the
//!   decoder may accept more: it trusts the document was already validated);
//! - decoding serde_json's encoding of `s` gives `s` back, and so does decoding `s` with every
//!   character written as `\u` escapes (UTF-16 code units, so surrogate pairs above U+FFFF).

use gitlab_file_mcp::fuzzing::decode_json_text;

pub fn check(data: &[u8]) {
    let s = String::from_utf8_lossy(data);
    check_literal(&s);
    check_literal(&format!("\"{s}\""));
    // Serialising a `str` cannot fail: serde_json writes every `str` as a JSON string.
    let encoded = serde_json::to_string(&*s).expect("a str serialises");
    assert_eq!(
        decode_json_text(&encoded).as_deref(),
        Some(&*s),
        "{encoded:?}"
    );
    let escaped = escape_everything(&s);
    assert_eq!(
        decode_json_text(&escaped).as_deref(),
        Some(&*s),
        "{escaped:?}"
    );
}

/// Decodes `literal` and, where serde_json reads it as a string, compares.
fn check_literal(literal: &str) {
    let ours = decode_json_text(literal);
    // serde_json skips whitespace around the value; the decoder takes exactly a literal.
    let bare = literal.len() >= 2 && literal.starts_with('"') && literal.ends_with('"');
    if let (true, Ok(theirs)) = (bare, serde_json::from_str::<String>(literal)) {
        assert_eq!(ours, Some(theirs), "{literal:?}");
    }
}

/// `s` as a JSON literal with every character a `\uXXXX` escape, in mixed-case hex.
fn escape_everything(s: &str) -> String {
    let mut out = String::from("\"");
    for (i, unit) in s.encode_utf16().enumerate() {
        if i % 2 == 0 {
            out.push_str(&format!("\\u{unit:04x}"));
        } else {
            out.push_str(&format!("\\u{unit:04X}"));
        }
    }
    out.push('"');
    out
}
