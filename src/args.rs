//! The tool's arguments as the agent sent them: JSON in, typed [`ToolArgs`] out, and the one
//! list of their names ([`ArgName`]) that the schema, the CLI and the messages use.
//!
//! Parsing is by hand rather than by serde so that every mistake gets an [`ArgError`] that
//! names the argument (worded by `response`). `null` counts as absent. Numbers sent as strings
//! (`"10"`) are accepted, as agents often send them; `project_id` may be a string or an
//! integer. Ranges are checked here; cross-argument rules live in `resolve`.

use serde_json::{Map, Value};

use crate::window::MAX_LIMIT;

/// Every argument the tool accepts, in the order the schema lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArgName {
    Url,
    ProjectId,
    FilePath,
    Ref,
    Offset,
    Limit,
    StartLine,
    EndLine,
}

impl ArgName {
    /// All of them, in schema order.
    pub(crate) const ALL: [ArgName; 8] = [
        ArgName::Url,
        ArgName::ProjectId,
        ArgName::FilePath,
        ArgName::Ref,
        ArgName::Offset,
        ArgName::Limit,
        ArgName::StartLine,
        ArgName::EndLine,
    ];

    /// The name on the wire.
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            ArgName::Url => "url",
            ArgName::ProjectId => "project_id",
            ArgName::FilePath => "file_path",
            ArgName::Ref => "ref",
            ArgName::Offset => "offset",
            ArgName::Limit => "limit",
            ArgName::StartLine => "start_line",
            ArgName::EndLine => "end_line",
        }
    }

    fn from_wire(name: &str) -> Option<ArgName> {
        ArgName::ALL.into_iter().find(|a| a.as_str() == name)
    }
}

/// The arguments, typed and range-checked; each is `None` when absent or `null`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ToolArgs {
    pub url: Option<String>,
    pub project_id: Option<String>,
    pub file_path: Option<String>,
    pub git_ref: Option<String>,
    pub offset: Option<u64>,
    pub limit: Option<u64>,
    pub start_line: Option<u64>,
    pub end_line: Option<u64>,
}

/// A bad argument. `response` words each variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ArgError {
    /// Names the tool does not accept (sorted).
    Unknown { names: Vec<String> },
    /// An argument that must be a string.
    NotAString { name: ArgName, got: Got },
    /// A `project_id` that is neither a string nor a non-negative integer.
    NotAProjectId { got: Got },
    /// An argument that must be an integer.
    NotAnInteger { name: ArgName, got: Got },
    /// An integer outside `min..=max` (`max == u64::MAX`: no upper bound).
    OutOfRange {
        name: ArgName,
        min: u64,
        max: u64,
        got: i128,
    },
    /// offset/limit and start_line/end_line together.
    BothWindowForms,
}

/// What kind of JSON value was sent, and its text when that is short (at most 40 characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Got {
    pub kind: JsonKind,
    pub text: Option<String>,
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
        return Err(ArgError::Unknown { names: unknown });
    }
    let args = ToolArgs {
        url: string(map, ArgName::Url)?,
        project_id: project_id(map)?,
        file_path: string(map, ArgName::FilePath)?,
        git_ref: string(map, ArgName::Ref)?,
        offset: integer(map, ArgName::Offset, 0, u64::MAX)?,
        limit: integer(map, ArgName::Limit, 1, MAX_LIMIT)?,
        start_line: integer(map, ArgName::StartLine, 1, u64::MAX)?,
        end_line: integer(map, ArgName::EndLine, 1, u64::MAX)?,
    };
    if (args.start_line.is_some() || args.end_line.is_some())
        && (args.offset.is_some() || args.limit.is_some())
    {
        return Err(ArgError::BothWindowForms);
    }
    Ok(args)
}

fn present(map: &Map<String, Value>, name: ArgName) -> Option<&Value> {
    map.get(name.as_str()).filter(|v| !v.is_null())
}

fn string(map: &Map<String, Value>, name: ArgName) -> Result<Option<String>, ArgError> {
    match present(map, name) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(ArgError::NotAString {
            name,
            got: got(other),
        }),
    }
}

fn project_id(map: &Map<String, Value>) -> Result<Option<String>, ArgError> {
    match present(map, ArgName::ProjectId) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) if n.is_u64() => Ok(Some(n.to_string())),
        Some(other) => Err(ArgError::NotAProjectId { got: got(other) }),
    }
}

/// An integer in `min..=max`, sent as a JSON integer or a string of digits.
fn integer(
    map: &Map<String, Value>,
    name: ArgName,
    min: u64,
    max: u64,
) -> Result<Option<u64>, ArgError> {
    let Some(value) = present(map, name) else {
        return Ok(None);
    };
    let parsed: Option<i128> = match value {
        Value::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 1e30)
                    .map(|f| f as i128)
            }),
        Value::String(s) => s.trim().parse::<i128>().ok(),
        _ => None,
    };
    let Some(n) = parsed else {
        return Err(ArgError::NotAnInteger {
            name,
            got: got(value),
        });
    };
    if n < i128::from(min) || n > i128::from(max) {
        return Err(ArgError::OutOfRange {
            name,
            min,
            max,
            got: n,
        });
    }
    // In range min..=max, both u64, so the conversion cannot fail.
    Ok(u64::try_from(n).ok())
}

/// The kind of `value`, with its JSON text when that is at most 40 characters.
fn got(value: &Value) -> Got {
    let kind = match value {
        Value::Null => JsonKind::Null,
        Value::Bool(_) => JsonKind::Boolean,
        Value::Number(_) => JsonKind::Number,
        Value::String(_) => JsonKind::String,
        Value::Array(_) => JsonKind::Array,
        Value::Object(_) => JsonKind::Object,
    };
    let text = value.to_string();
    Got {
        kind,
        text: (text.chars().count() <= 40).then_some(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        assert!(
            p(json!({"start_line": 0}))
                .unwrap_err()
                .contains("at least 1")
        );
        assert!(p(json!({"offset": 1.5})).unwrap_err().contains("integer"));
        assert_eq!(p(json!({"offset": 2.0})).unwrap().offset, Some(2));
        assert!(
            p(json!({"offset": true}))
                .unwrap_err()
                .contains("a boolean")
        );
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
    fn line_forms_do_not_mix() {
        let e = p(json!({"offset": 1, "end_line": 4})).unwrap_err();
        assert!(e.contains("not both"), "{e}");
        assert!(p(json!({"start_line": 2, "end_line": 4})).is_ok());
    }
}
