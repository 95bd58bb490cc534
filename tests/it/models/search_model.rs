//! The search against its naive line-by-line reference, as a property test: random texts
//! (CRLF, lone `\r`, control and multi-byte characters, repeated lines), random patterns from
//! regex tokens, any searched lines, context and budget, each checked by the `search` fuzz
//! target's own check (`fuzz/src/checks/search.rs`, included here): the same reference, the
//! same properties, on stable and in every `cargo test`.

use crate::checks;

use checks::search::{Case, check_case};
use gitlab_file_mcp::window::LineRequest;
use proptest::prelude::*;

const TOKENS: &[&str] = &[
    "a",
    "b",
    "ab",
    "é",
    "\\r",
    ".",
    "*",
    "+",
    "?",
    "^",
    "$",
    "\\A",
    "\\z",
    "\\b",
    "\\s",
    "\\w",
    "[a-b]",
    "[^a]",
    "(",
    ")",
    "|",
    "(?m)",
    "(?s)",
    "(?-m)",
    "(?R)",
    "{2}",
    " ",
    "\\n",
    "\\r\\n",
    "(?:.|\\n)",
    "[\\n]",
    "(?s:.)",
];

fn pattern() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..6).prop_map(|t| t.concat())
}

fn text() -> impl Strategy<Value = String> {
    let line = "[ab é\\r\\t\\x1bA]{0,12}";
    prop::collection::vec((line, prop::sample::select(&["\n", "\r\n", ""][..])), 0..40)
        .prop_map(|lines| lines.into_iter().map(|(l, end)| l + end).collect())
}

fn lines() -> impl Strategy<Value = Option<LineRequest>> {
    prop_oneof![
        Just(None),
        (0u64..45, 1u64..45)
            .prop_map(|(offset, limit)| Some(LineRequest::OffsetLimit { offset, limit })),
        (prop::option::of(-2i64..45), prop::option::of(-2i64..45))
            .prop_map(|(s, e)| LineRequest::from_line_args(s, e)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn search_equals_the_line_by_line_reference(
        text in text(),
        pattern in pattern(),
        ignore_case: bool,
        lines in lines(),
        context in 0u64..4,
        max_chars in prop_oneof![Just(0u64), 1u64..120, Just(u64::MAX)],
    ) {
        check_case(&Case { text, pattern, ignore_case, lines, context, max_chars });
    }
}

#[test]
fn the_line_and_byte_caps_against_the_reference() {
    let many = "m\nx\n".repeat(2100);
    let long = format!("{}\nm\n", "m".repeat(1_200_000));
    let wide = format!("{}\n", "é".repeat(999)).repeat(600);
    for (text, pattern) in [(&many, "m"), (&many, "."), (&long, "m"), (&wide, "é")] {
        for context in [0, 1] {
            for max_chars in [0, 50, 100_000] {
                check_case(&Case {
                    text: text.clone(),
                    pattern: pattern.to_string(),
                    ignore_case: false,
                    lines: None,
                    context,
                    max_chars,
                });
            }
        }
    }
}
