//! The tool's arguments as the agent sent them: JSON in, typed [`ToolArgs`] out, named by
//! [`ArgName`] (its own module, re-exported here).
//!
//! Parsing is by hand rather than by serde so that every mistake gets an [`ArgError`] that
//! names the argument. `null` counts as absent. Numbers sent as strings
//! (`"10"`) and booleans sent as strings (`"true"`) are accepted, as agents often send them;
//! `project_id` may be a string or an integer. `start_line`/`end_line` are signed, as forgejo-mcp's
//! line-range rules clamp them ([`LineRequest::from_line_args`]). Ranges and lengths are
//! checked here, before anything is sent anywhere; cross-argument rules live in `resolve`.

use crate::base::quote::shown;
use serde_json::{Map, Value};
use std::fmt::{self, Display, Formatter};

use crate::window::search::MAX_CONTEXT_LINES;
use crate::window::{LineRequest, MAX_LIMIT};

pub(crate) use super::arg_name::{ArgName, MAX_BLOB_ID_BYTES, MAX_SYMBOL_BYTES};

/// Unknown argument names listed in an error; the rest are counted.
const MAX_UNKNOWN_LISTED: usize = 10;

/// The arguments, typed and range-checked; each is `None` when absent or `null`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ToolArgs {
    pub url: Option<String>,
    pub project_id: Option<String>,
    pub file_path: Option<String>,
    pub git_ref: Option<String>,
    pub offset: Option<u64>,
    pub limit: Option<u64>,
    /// As sent: below 1 is clamped by the line-range rules, not refused.
    pub start_line: Option<i64>,
    pub end_line: Option<i64>,
    /// Characters of the window's first line to skip (a cursor inside a line).
    pub column: Option<u64>,
    /// The caller's own character budget (0 = none); `None` = the server's default.
    pub max_chars: Option<u64>,
    pub line_numbers: Option<bool>,
    /// A regular expression: the call finds the lines it matches instead of returning a window.
    pub pattern: Option<String>,
    pub ignore_case: Option<bool>,
    /// Lines shown around each match, `0..=MAX_CONTEXT_LINES`.
    pub context_lines: Option<u64>,
    /// A blob id the caller holds (`blob_id` of an earlier answer): when the file is still that
    /// blob, the answer carries no content. Only a blob id's shape (40 or 64 hexadecimal
    /// digits) is accepted.
    pub if_none_match: Option<String>,
    /// The file's definitions instead of its text.
    pub outline: Option<bool>,
    /// The lines of the definition of this name instead of a window.
    pub symbol: Option<String>,
    /// The commits that changed the file instead of its text.
    pub history: Option<bool>,
    /// Who last changed each line of the window, beside its text.
    pub blame: Option<bool>,
    /// A ref: the changes to the file from it to `ref`, as a unified diff.
    pub diff_from: Option<String>,
}

/// A bad argument.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ArgError {
    /// Names the tool does not accept (sorted; at most [`MAX_UNKNOWN_LISTED`], `more` others).
    Unknown { names: Vec<String>, more: usize },
    /// An argument that must be a string.
    NotAString { name: ArgName, got: Sent },
    /// A string longer than [`ArgName::max_bytes`] (its length in bytes; never its text).
    TooLong {
        name: ArgName,
        max: usize,
        got_bytes: usize,
    },
    /// A `project_id` that is neither a string nor a non-negative integer.
    NotAProjectId { got: Sent },
    /// An argument that must be an integer.
    NotAnInteger { name: ArgName, got: Sent },
    /// An integer outside `min..=max` (`max == u64::MAX`: no upper bound, so it is below `min`).
    OutOfRange {
        name: ArgName,
        min: u64,
        max: u64,
        got: Sent,
    },
    /// An integer above `max`, the largest value the argument takes.
    TooLarge { name: ArgName, max: u64, got: Sent },
    /// A `start_line`/`end_line` outside `i64`.
    NotALineNumber { name: ArgName, got: Sent },
    /// An argument that must be a boolean.
    NotABoolean { name: ArgName, got: Sent },
    /// offset/limit and start_line/end_line together.
    BothWindowForms,
    /// An `if_none_match` that is not 40 or 64 hexadecimal digits (at most
    /// [`MAX_BLOB_ID_BYTES`] long, so quoted whole, escaped).
    NotABlobId { got: String },
    /// A `symbol` that is empty or only white space.
    EmptySymbol,
    /// A non-zero `column` with an argument that reads no window of lines.
    ColumnWithout { with: ArgName },
}

/// What an empty `symbol` is told.
const EMPTY_SYMBOL: &str = "Argument 'symbol' is empty: name a definition (a qualified name as the outline prints it, e.g. \"Invoice.total\", or its last part, \"total\"), or call with outline: true to list the file's definitions.";

impl Display for ArgError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ArgError::Unknown { names, more } => unknown_arguments(f, names, *more),
            ArgError::NotAString { name, got } => {
                write!(f, "Argument '{name}' must be a string, got {got}.")
            }
            ArgError::TooLong {
                name,
                max,
                got_bytes,
            } => write!(
                f,
                "Argument '{name}' is {got_bytes} bytes long; the longest accepted is {max} bytes."
            ),
            ArgError::NotAProjectId { got } => write!(
                f,
                "Argument 'project_id' must be a project's numeric id or full path (e.g. \"42\" or \"group/project\"), got {got}."
            ),
            ArgError::NotAnInteger { name, got } => {
                write!(f, "Argument '{name}' must be an integer, got {got}.")
            }
            ArgError::OutOfRange {
                name,
                min,
                max,
                got,
            } => {
                let got = number_sent(got);
                if *max == u64::MAX {
                    write!(f, "Argument '{name}' must be at least {min}, got {got}.")
                } else {
                    write!(f, "Argument '{name}' must be between {min} and {max}, got {got}.")
                }
            }
            ArgError::TooLarge { name, max, got } => write!(
                f,
                "Argument '{name}' is too large (got {}); the maximum is {max}.",
                number_sent(got)
            ),
            ArgError::NotALineNumber { name, got } => write!(
                f,
                "Argument '{name}' must be an integer between {} and {}, got {}.",
                i64::MIN,
                i64::MAX,
                number_sent(got)
            ),
            ArgError::NotABoolean { name, got } => {
                write!(f, "Argument '{name}' must be true or false, got {got}.")
            }
            ArgError::BothWindowForms => f.write_str(
                "Use either offset/limit (zero-indexed) or start_line/end_line (1-indexed, inclusive), not both.",
            ),
            ArgError::NotABlobId { got } => write!(
                f,
                "Argument 'if_none_match' must be a blob id, 40 or 64 hexadecimal digits (metadata.blob_id of an earlier answer), got '{got}'."
            ),
            ArgError::EmptySymbol => f.write_str(EMPTY_SYMBOL),
            ArgError::ColumnWithout { with } => column_without(f, *with),
        }
    }
}

fn column_without(f: &mut Formatter<'_>, with: ArgName) -> fmt::Result {
    write!(
        f,
        "Argument 'column' starts a window part way through its first line; it does not apply with '{with}'. Drop 'column' (or set it to 0), or drop '{with}' to read a window of lines."
    )
}

fn unknown_arguments(f: &mut Formatter<'_>, names: &[String], more: usize) -> fmt::Result {
    let mut quoted: Vec<String> = names.iter().map(|k| format!("'{}'", shown(k))).collect();
    if more > 0 {
        quoted.push(format!("and {more} more"));
    }
    let accepted: Vec<&str> = ArgName::ALL.iter().map(|a| a.as_str()).collect();
    write!(
        f,
        "Unknown argument{} {}. Accepted arguments: {}.",
        if names.len() + more == 1 { "" } else { "s" },
        quoted.join(", "),
        accepted.join(", ")
    )
}

/// A number as sent (`-1`, `1.8446744073709552e19`); other values by their kind.
fn number_sent(got: &Sent) -> String {
    match (&got.kind, &got.text) {
        (JsonKind::Number, Some(text)) => text.clone(),
        _ => got.to_string(),
    }
}

/// What kind of JSON value was sent, and its text when that is short (at most 40 characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sent {
    pub kind: JsonKind,
    pub text: Option<String>,
}

impl Display for Sent {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.text {
            Some(text) => write!(f, "{} ({text})", self.kind),
            None => self.kind.fmt(f),
        }
    }
}

/// The kinds of JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsonKind {
    Null,
    Boolean,
    Number,
    String,
    Array,
    Object,
}

/// A JSON kind as the messages name it: `a boolean`, `an array`, `null`.
impl Display for JsonKind {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            JsonKind::Null => "null",
            JsonKind::Boolean => "a boolean",
            JsonKind::Number => "a number",
            JsonKind::String => "a string",
            JsonKind::Array => "an array",
            JsonKind::Object => "an object",
        })
    }
}

impl JsonKind {
    /// The kind of `value`.
    pub(crate) fn of(value: &Value) -> JsonKind {
        match value {
            Value::Null => JsonKind::Null,
            Value::Bool(_) => JsonKind::Boolean,
            Value::Number(_) => JsonKind::Number,
            Value::String(_) => JsonKind::String,
            Value::Array(_) => JsonKind::Array,
            Value::Object(_) => JsonKind::Object,
        }
    }
}

/// Parses the `arguments` object of a `tools/call` (absent arguments = empty object).
pub(crate) fn parse(arguments: Option<&Map<String, Value>>) -> Result<ToolArgs, ArgError> {
    let empty = Map::new();
    let map = arguments.unwrap_or(&empty);
    let mut unknown: Vec<String> = map
        .keys()
        .filter(|k| ArgName::from_wire(k).is_none())
        .cloned()
        .collect();
    if !unknown.is_empty() {
        unknown.sort_unstable();
        let more = unknown.len().saturating_sub(MAX_UNKNOWN_LISTED);
        unknown.truncate(MAX_UNKNOWN_LISTED);
        return Err(ArgError::Unknown {
            names: unknown,
            more,
        });
    }
    let pattern = string(map, ArgName::Pattern)?;
    // `limit` caps a window's lines; a search covers as many as asked.
    let max_limit = if pattern.is_some() {
        u64::MAX
    } else {
        MAX_LIMIT
    };
    let args = ToolArgs {
        url: string(map, ArgName::Url)?,
        project_id: project_id(map)?,
        file_path: string(map, ArgName::FilePath)?,
        git_ref: string(map, ArgName::Ref)?,
        offset: integer(map, ArgName::Offset, 0, u64::MAX)?,
        limit: integer(map, ArgName::Limit, 1, max_limit)?,
        start_line: signed(map, ArgName::StartLine)?,
        end_line: signed(map, ArgName::EndLine)?,
        column: integer(map, ArgName::Column, 0, u64::MAX)?,
        max_chars: integer(map, ArgName::MaxChars, 0, u64::MAX)?,
        line_numbers: boolean(map, ArgName::LineNumbers)?,
        pattern,
        ignore_case: boolean(map, ArgName::IgnoreCase)?,
        context_lines: integer(map, ArgName::ContextLines, 0, MAX_CONTEXT_LINES)?,
        if_none_match: blob_id(map)?,
        outline: boolean(map, ArgName::Outline)?,
        symbol: string(map, ArgName::Symbol)?,
        history: boolean(map, ArgName::History)?,
        blame: boolean(map, ArgName::Blame)?,
        diff_from: string(map, ArgName::DiffFrom)?,
    };
    if args.symbol.as_deref().is_some_and(|s| s.trim().is_empty()) {
        return Err(ArgError::EmptySymbol);
    }
    column_applies(&args)?;
    // `start_line: 0, end_line: 0` is no line range, so it goes with offset/limit.
    let line_range = LineRequest::from_line_args(args.start_line, args.end_line).is_some();
    if line_range && (args.offset.is_some() || args.limit.is_some()) {
        return Err(ArgError::BothWindowForms);
    }
    Ok(args)
}

/// A non-zero `column` needs a window of lines: not a search or an outline. A symbol's lines
/// are a window, and a line of it longer than one call is read on with `column` as any line
/// (issue 46: its hint named a `column` that was then refused beside `symbol`).
fn column_applies(args: &ToolArgs) -> Result<(), ArgError> {
    if args.column.unwrap_or(0) == 0 {
        return Ok(());
    }
    let with = [
        (ArgName::Pattern, args.pattern.is_some()),
        (ArgName::Outline, args.outline == Some(true)),
        (ArgName::History, args.history == Some(true)),
        (ArgName::Blame, args.blame == Some(true)),
        (ArgName::DiffFrom, args.diff_from.is_some()),
    ]
    .into_iter()
    .find_map(|(name, on)| on.then_some(name));
    with.map_or(Ok(()), |with| Err(ArgError::ColumnWithout { with }))
}

fn present(map: &Map<String, Value>, name: ArgName) -> Option<&Value> {
    map.get(name.as_str()).filter(|v| !v.is_null())
}

fn string(map: &Map<String, Value>, name: ArgName) -> Result<Option<String>, ArgError> {
    match present(map, name) {
        None => Ok(None),
        Some(Value::String(s)) => within_max(name, s).map(Some),
        Some(other) => Err(ArgError::NotAString {
            name,
            got: got(other),
        }),
    }
}

fn project_id(map: &Map<String, Value>) -> Result<Option<String>, ArgError> {
    match present(map, ArgName::ProjectId) {
        None => Ok(None),
        Some(Value::String(s)) => within_max(ArgName::ProjectId, s).map(Some),
        Some(Value::Number(n)) if n.is_u64() => Ok(Some(n.to_string())),
        Some(other) => Err(ArgError::NotAProjectId { got: got(other) }),
    }
}

/// `if_none_match`: a blob id, 40 (SHA-1) or 64 (SHA-256) hexadecimal digits, as sent (no
/// trimming).
fn blob_id(map: &Map<String, Value>) -> Result<Option<String>, ArgError> {
    let id = string(map, ArgName::IfNoneMatch)?;
    match id {
        Some(id) if !matches!(id.len(), 40 | 64) || !id.bytes().all(|b| b.is_ascii_hexdigit()) => {
            Err(ArgError::NotABlobId { got: shown(&id) })
        }
        id => Ok(id),
    }
}

/// `s`, unless it is longer than the argument's maximum.
fn within_max(name: ArgName, s: &str) -> Result<String, ArgError> {
    match name.max_bytes() {
        Some(max) if s.len() > max => Err(ArgError::TooLong {
            name,
            max,
            got_bytes: s.len(),
        }),
        _ => Ok(s.to_string()),
    }
}

/// An integer in `min..=max`, sent as a JSON integer or a string of digits (nothing around
/// them, not even a space).
fn integer(
    map: &Map<String, Value>,
    name: ArgName,
    min: u64,
    max: u64,
) -> Result<Option<u64>, ArgError> {
    let Some(value) = present(map, name) else {
        return Ok(None);
    };
    let n = match number(value) {
        Number::Int(n) => n,
        Number::AboveU64 => i128::MAX,
        Number::BelowI128 => i128::MIN,
        Number::NotAnInteger => {
            return Err(ArgError::NotAnInteger {
                name,
                got: got(value),
            });
        }
    };
    // Past 64 bits is "too large" whatever the range; within it, out of range below.
    if n > i128::from(u64::MAX) {
        return Err(ArgError::TooLarge {
            name,
            max,
            got: got(value),
        });
    }
    if n < i128::from(min) || n > i128::from(max) {
        return Err(ArgError::OutOfRange {
            name,
            min,
            max,
            got: got(value),
        });
    }
    // In range min..=max, both u64, so the conversion cannot fail.
    Ok(u64::try_from(n).ok())
}

/// A line number as sent, any `i64` (negatives included: the line-range rules clamp them).
fn signed(map: &Map<String, Value>, name: ArgName) -> Result<Option<i64>, ArgError> {
    let Some(value) = present(map, name) else {
        return Ok(None);
    };
    let n = match number(value) {
        Number::Int(n) => i64::try_from(n).ok(),
        Number::AboveU64 | Number::BelowI128 => None,
        Number::NotAnInteger => {
            return Err(ArgError::NotAnInteger {
                name,
                got: got(value),
            });
        }
    };
    n.map(Some).ok_or_else(|| ArgError::NotALineNumber {
        name,
        got: got(value),
    })
}

/// `true` or `false`, also sent as the strings `"true"` and `"false"`.
fn boolean(map: &Map<String, Value>, name: ArgName) -> Result<Option<bool>, ArgError> {
    match present(map, name) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(Value::String(s)) if s.trim() == "true" => Ok(Some(true)),
        Some(Value::String(s)) if s.trim() == "false" => Ok(Some(false)),
        Some(other) => Err(ArgError::NotABoolean {
            name,
            got: got(other),
        }),
    }
}

/// What a JSON value says as an integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Number {
    Int(i128),
    /// An integer too large for any argument (past 64 bits).
    AboveU64,
    /// A negative integer too large to hold (below every argument's minimum).
    BelowI128,
    NotAnInteger,
}

/// A JSON integer, an integral float (`2.0`, `1e3`) or a string of digits, as an integer.
/// JSON integers past 64 bits arrive as floats (serde_json's reading), so a float of 2^64 or
/// more is [`Number::AboveU64`].
fn number(value: &Value) -> Number {
    const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;
    match value {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                return Number::Int(i128::from(i));
            }
            if let Some(u) = n.as_u64() {
                return Number::Int(i128::from(u));
            }
            match n.as_f64() {
                Some(f) if f.is_finite() && f.fract() == 0.0 && f >= TWO_POW_64 => Number::AboveU64,
                // Integral and below 2^64 in magnitude or negative: `as` saturates, and every
                // saturated value is below every minimum.
                Some(f) if f.is_finite() && f.fract() == 0.0 => Number::Int(f as i128),
                _ => Number::NotAnInteger,
            }
        }
        Value::String(s) => digits(s),
        _ => Number::NotAnInteger,
    }
}

/// `"42"`, `"+7"`, `"-3"` as integers; digits too many for an `i128` are out of range.
fn digits(s: &str) -> Number {
    if let Ok(n) = s.parse::<i128>() {
        return Number::Int(n);
    }
    let (negative, unsigned) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
        Number::NotAnInteger
    } else if negative {
        Number::BelowI128
    } else {
        Number::AboveU64
    }
}

/// The kind of `value`, with its JSON text when that is at most 40 characters.
pub(crate) fn got(value: &Value) -> Sent {
    let text = value.to_string();
    Sent {
        kind: JsonKind::of(value),
        text: (text.chars().count() <= 40).then_some(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::arg_name::{
        MAX_FILE_PATH_BYTES, MAX_PROJECT_ID_BYTES, MAX_REF_BYTES, MAX_URL_BYTES,
    };
    use crate::window::search::MAX_PATTERN_BYTES;
    use serde_json::json;

    fn p(v: Value) -> Result<ToolArgs, String> {
        parse(v.as_object()).map_err(|e| e.to_string())
    }

    #[test]
    fn all_arguments_and_nulls() {
        let a = p(json!({"url": null, "project_id": 42, "file_path": "a", "ref": "main", "offset": "3", "limit": 7})).unwrap();
        assert_eq!(a.project_id.as_deref(), Some("42"));
        assert_eq!((a.offset, a.limit, a.url), (Some(3), Some(7), None));
        assert_eq!(parse(None).unwrap(), ToolArgs::default());
    }

    #[test]
    fn unknown_arguments_are_named() {
        let e = p(json!({"path": "x", "branch": "y"})).unwrap_err();
        assert!(
            e.contains("'branch', 'path'") && e.contains("file_path"),
            "{e}"
        );
    }

    #[test]
    fn ranges() {
        assert!(
            p(json!({"offset": -1}))
                .unwrap_err()
                .contains("at least 0, got -1")
        );
        assert!(
            p(json!({"limit": 2001}))
                .unwrap_err()
                .contains("between 1 and 2000, got 2001")
        );
        assert!(
            p(json!({"limit": 0}))
                .unwrap_err()
                .contains("between 1 and 2000")
        );
        assert_eq!(p(json!({"limit": 2000})).unwrap().limit, Some(2000));
        assert!(p(json!({"offset": 1.5})).unwrap_err().contains("integer"));
        assert_eq!(p(json!({"offset": 2.0})).unwrap().offset, Some(2));
        assert!(
            p(json!({"offset": true}))
                .unwrap_err()
                .contains("a boolean")
        );
    }

    #[test]
    fn a_search_covers_more_lines_than_a_window() {
        let a = p(json!({"pattern": "x", "offset": 100, "limit": 20000})).unwrap();
        assert_eq!(a.limit, Some(20000));
        assert_eq!(
            p(json!({"pattern": "x", "limit": u64::MAX})).unwrap().limit,
            Some(u64::MAX)
        );
        let e = p(json!({"pattern": "x", "limit": 0})).unwrap_err();
        assert_eq!(e, "Argument 'limit' must be at least 1, got 0.");
        // A window still stops at MAX_LIMIT.
        let e = p(json!({"limit": 20000})).unwrap_err();
        assert!(e.contains("between 1 and 2000, got 20000"), "{e}");
    }

    #[test]
    fn integers_are_strict_strings_of_digits() {
        for sent in [
            " 3", "3 ", "\t3", "3\n", "", " ", "3.0", "0x3", "3e0", "1_000",
        ] {
            let e = p(json!({"context_lines": sent})).unwrap_err();
            assert!(
                e.starts_with("Argument 'context_lines' must be an integer"),
                "{sent:?}: {e}"
            );
            assert!(p(json!({"offset": sent})).is_err(), "{sent:?}");
            assert!(p(json!({"start_line": sent})).is_err(), "{sent:?}");
        }
        assert_eq!(
            p(json!({"context_lines": "3"})).unwrap().context_lines,
            Some(3)
        );
        assert_eq!(p(json!({"offset": "+7"})).unwrap().offset, Some(7));
        assert_eq!(p(json!({"start_line": "-3"})).unwrap().start_line, Some(-3));
    }

    #[test]
    fn if_none_match_is_a_blob_id() {
        let sha1 = "7795c8ccea29e07ee1af55595d1608ae7d9d2155";
        let sha256 = "ab".repeat(32);
        for id in [sha1, &sha256, &sha1.to_uppercase()] {
            assert_eq!(
                p(json!({"if_none_match": id}))
                    .unwrap()
                    .if_none_match
                    .as_deref(),
                Some(id)
            );
        }
        let refused = [
            format!(" {sha1}\n"),
            format!("{sha1} "),
            sha1[..39].to_string(),
            format!("{sha1}0"),
            "g".repeat(40),
            "nope".to_string(),
            String::new(),
        ];
        for id in &refused {
            let e = p(json!({"if_none_match": id})).unwrap_err();
            assert_eq!(
                e,
                format!(
                    "Argument 'if_none_match' must be a blob id, 40 or 64 hexadecimal digits (metadata.blob_id of an earlier answer), got '{}'.",
                    id.escape_debug()
                )
            );
        }
        // Longer than any blob id: refused by length, never quoted.
        let e = p(json!({"if_none_match": "a".repeat(65)})).unwrap_err();
        assert!(e.contains("64 bytes") && !e.contains("aaaa"), "{e}");
    }

    #[test]
    fn types() {
        assert!(
            p(json!({"file_path": 3}))
                .unwrap_err()
                .contains("'file_path' must be a string")
        );
        assert!(
            p(json!({"project_id": -3}))
                .unwrap_err()
                .contains("project_id")
        );
        assert!(
            p(json!({"project_id": ["a"]}))
                .unwrap_err()
                .contains("an array")
        );
    }

    #[test]
    fn numbers_past_64_bits_are_too_large_and_name_the_maximum() {
        // serde_json reads a JSON integer past u64 as a float.
        let e = p(json!({"offset": 18446744073709551616.0_f64})).unwrap_err();
        assert_eq!(
            e,
            "Argument 'offset' is too large (got 1.8446744073709552e+19); the maximum is 18446744073709551615."
        );
        let e =
            p(serde_json::from_str(r#"{"offset": 18446744073709551616}"#).unwrap()).unwrap_err();
        assert!(
            e.contains("too large") && e.contains("18446744073709551615"),
            "{e}"
        );
        let e =
            p(json!({"start_line": "99999999999999999999999999999999999999999999"})).unwrap_err();
        assert!(
            e.contains("'start_line' must be an integer between -9223372036854775808"),
            "{e}"
        );
        let e = p(json!({"limit": 1e300})).unwrap_err();
        assert_eq!(
            e,
            "Argument 'limit' is too large (got 1e+300); the maximum is 2000."
        );
        assert_eq!(
            p(json!({"offset": u64::MAX})).unwrap().offset,
            Some(u64::MAX)
        );
        assert_eq!(
            p(json!({"offset": "18446744073709551615"})).unwrap().offset,
            Some(u64::MAX)
        );
        // Too small stays "at least".
        let e = p(json!({"offset": "-99999999999999999999999999999999999999999999"})).unwrap_err();
        assert!(e.contains("must be at least 0"), "{e}");
        let e = p(json!({"offset": -1e300})).unwrap_err();
        assert!(e.contains("must be at least 0, got -1e+300"), "{e}");
        assert!(
            p(json!({"offset": "12abc"}))
                .unwrap_err()
                .contains("integer")
        );
        assert!(p(json!({"offset": "-"})).unwrap_err().contains("integer"));
    }

    #[test]
    fn an_empty_symbol_is_refused() {
        for empty in ["", "  ", "\n\t"] {
            let e = p(json!({ "symbol": empty })).unwrap_err();
            assert!(
                e.starts_with("Argument 'symbol' is empty: name a definition"),
                "{e}"
            );
        }
        assert_eq!(p(json!({"symbol": null})).unwrap().symbol, None);
        assert_eq!(
            p(json!({"symbol": " a "})).unwrap().symbol.as_deref(),
            Some(" a ")
        );
    }

    #[test]
    fn strings_have_maxima_and_are_never_echoed_when_too_long() {
        for (name, max) in [
            ("url", MAX_URL_BYTES),
            ("project_id", MAX_PROJECT_ID_BYTES),
            ("file_path", MAX_FILE_PATH_BYTES),
            ("ref", MAX_REF_BYTES),
        ] {
            let at_max = "a".repeat(max);
            assert!(p(json!({ name: at_max })).is_ok(), "{name}");
            let e = p(json!({ name: "a".repeat(max + 1) })).unwrap_err();
            assert_eq!(
                e,
                format!(
                    "Argument '{name}' is {} bytes long; the longest accepted is {max} bytes.",
                    max + 1
                )
            );
        }
        // Bytes, not characters.
        let e = p(json!({"file_path": "é".repeat(2049)})).unwrap_err();
        assert!(e.contains("4098 bytes long"), "{e}");
        assert_eq!(MAX_PROJECT_ID_BYTES, 5375);
    }

    #[test]
    fn many_unknown_arguments_are_counted_not_all_listed() {
        let mut map = Map::new();
        for i in 0..1000 {
            map.insert(format!("x{i:04}"), json!(1));
        }
        let e = parse(Some(&map)).unwrap_err().to_string();
        assert!(e.starts_with("Unknown arguments 'x0000', 'x0001'"), "{e}");
        assert!(e.contains("'x0009', and 990 more."), "{e}");
        assert!(e.len() < 400, "{e}");
        let long = "k".repeat(100_000);
        let e = p(json!({ long: 1 })).unwrap_err();
        assert!(
            e.len() < 400 && e.starts_with("Unknown argument 'kkk"),
            "{e}"
        );
    }

    #[test]
    fn line_forms_do_not_mix() {
        let e = p(json!({"offset": 1, "end_line": 4})).unwrap_err();
        assert!(e.contains("not both"), "{e}");
        let e = p(json!({"limit": 5, "start_line": -3})).unwrap_err();
        assert!(e.contains("not both"), "{e}");
        assert!(p(json!({"start_line": 2, "end_line": 4})).is_ok());
        // Both 0 is no line range, so offset/limit may come with it.
        let a = p(json!({"start_line": 0, "end_line": 0, "offset": 5})).unwrap();
        assert_eq!(
            (a.start_line, a.end_line, a.offset),
            (Some(0), Some(0), Some(5))
        );
    }

    #[test]
    fn line_numbers_are_signed_as_sent() {
        let lines = |v: Value| p(v).map(|a| (a.start_line, a.end_line));
        assert_eq!(
            lines(json!({"start_line": -5, "end_line": 0})),
            Ok((Some(-5), Some(0)))
        );
        assert_eq!(
            lines(json!({"start_line": "-5", "end_line": "3"})),
            Ok((Some(-5), Some(3)))
        );
        assert!(lines(json!({"end_line": " 3 "})).is_err());
        assert_eq!(
            lines(json!({"start_line": 2.0, "end_line": i64::MIN})),
            Ok((Some(2), Some(i64::MIN)))
        );
        assert_eq!(
            lines(json!({"end_line": i64::MAX})),
            Ok((None, Some(i64::MAX)))
        );
        let past_64_bits: Value = serde_json::from_str("18446744073709551616").unwrap();
        for big in [
            json!(1e19),
            json!(1e30),
            json!(u64::MAX),
            past_64_bits,
            json!("-9223372036854775809"),
            json!("-99999999999999999999999999999999999999999999"),
        ] {
            let e = lines(json!({ "start_line": big })).unwrap_err();
            assert!(
                e.starts_with("Argument 'start_line' must be an integer between -9223372036854775808 and 9223372036854775807, got"),
                "{e}"
            );
        }
        assert!(
            lines(json!({"end_line": 1.5}))
                .unwrap_err()
                .contains("must be an integer")
        );
        assert!(
            lines(json!({"end_line": "x"}))
                .unwrap_err()
                .contains("a string")
        );
    }

    #[test]
    fn search_arguments() {
        let a =
            p(json!({"pattern": "fn \\w+", "ignore_case": "true", "context_lines": "3"})).unwrap();
        assert_eq!(a.pattern.as_deref(), Some("fn \\w+"));
        assert_eq!((a.ignore_case, a.context_lines), (Some(true), Some(3)));
        assert_eq!(
            p(json!({"pattern": ""})).unwrap().pattern.as_deref(),
            Some("")
        );
        assert_eq!(
            p(json!({"context_lines": 51})).unwrap_err(),
            "Argument 'context_lines' must be between 0 and 50, got 51."
        );
        assert!(
            p(json!({"pattern": 3}))
                .unwrap_err()
                .contains("'pattern' must be a string")
        );
        assert!(
            p(json!({"ignore_case": "yes"}))
                .unwrap_err()
                .contains("'ignore_case' must be true or false")
        );
        assert_eq!(
            p(json!({"pattern": "a".repeat(MAX_PATTERN_BYTES + 1)})).unwrap_err(),
            format!(
                "Argument 'pattern' is {} bytes long; the longest accepted is {MAX_PATTERN_BYTES} bytes.",
                MAX_PATTERN_BYTES + 1
            )
        );
        assert!(p(json!({"pattern": "a".repeat(MAX_PATTERN_BYTES)})).is_ok());
        // A search range is a window's.
        assert!(
            p(json!({"pattern": "x", "offset": 1, "end_line": 4}))
                .unwrap_err()
                .contains("not both")
        );
    }

    #[test]
    fn max_chars_and_line_numbers() {
        let a = p(json!({"max_chars": 0, "line_numbers": true})).unwrap();
        assert_eq!((a.max_chars, a.line_numbers), (Some(0), Some(true)));
        let a = p(json!({"max_chars": "20000", "line_numbers": "false"})).unwrap();
        assert_eq!((a.max_chars, a.line_numbers), (Some(20_000), Some(false)));
        let a = p(json!({"max_chars": null, "line_numbers": null})).unwrap();
        assert_eq!((a.max_chars, a.line_numbers), (None, None));
        assert_eq!(
            p(json!({"max_chars": -1})).unwrap_err(),
            "Argument 'max_chars' must be at least 0, got -1."
        );
        for bad in [json!(1), json!("yes"), json!(["true"])] {
            let e = p(json!({ "line_numbers": bad })).unwrap_err();
            assert!(
                e.starts_with("Argument 'line_numbers' must be true or false, got"),
                "{e}"
            );
        }
    }
}
