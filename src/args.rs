//! The tool's arguments as the agent sent them: JSON in, typed [`ToolArgs`] out.
//!
//! Parsing is by hand rather than by serde so that every mistake gets a sentence that names
//! the argument and says what to send instead. `null` counts as absent. Numbers sent as
//! strings (`"10"`) are accepted, as agents often send them; `project_id` may be a string or
//! an integer. Ranges are checked here; cross-argument rules live in `resolve`.

use serde_json::{Map, Value};

use crate::window::MAX_LIMIT;

/// Every argument the tool accepts, in the order the schema lists them.
pub const ARGUMENTS: [&str; 8] = [
    "url",
    "project_id",
    "file_path",
    "ref",
    "offset",
    "limit",
    "start_line",
    "end_line",
];

/// The arguments, typed and range-checked; each is `None` when absent or `null`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolArgs {
    pub url: Option<String>,
    pub project_id: Option<String>,
    pub file_path: Option<String>,
    pub git_ref: Option<String>,
    pub offset: Option<u64>,
    pub limit: Option<u64>,
    pub start_line: Option<u64>,
    pub end_line: Option<u64>,
}

/// A bad argument; `Display` is the sentence the agent sees.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ArgError(pub String);

/// Parses the `arguments` object of a `tools/call` (absent arguments = empty object).
pub fn parse(arguments: Option<&Map<String, Value>>) -> Result<ToolArgs, ArgError> {
    let empty = Map::new();
    let map = arguments.unwrap_or(&empty);
    let mut unknown: Vec<&str> = map
        .keys()
        .map(String::as_str)
        .filter(|k| !ARGUMENTS.contains(k))
        .collect();
    if !unknown.is_empty() {
        unknown.sort_unstable();
        return Err(ArgError(format!(
            "Unknown argument{} {}. Accepted arguments: {}.",
            if unknown.len() == 1 { "" } else { "s" },
            unknown
                .iter()
                .map(|k| format!("'{k}'"))
                .collect::<Vec<_>>()
                .join(", "),
            ARGUMENTS.join(", ")
        )));
    }
    let args = ToolArgs {
        url: string(map, "url")?,
        project_id: project_id(map)?,
        file_path: string(map, "file_path")?,
        git_ref: string(map, "ref")?,
        offset: integer(map, "offset", 0, u64::MAX)?,
        limit: integer(map, "limit", 1, MAX_LIMIT)?,
        start_line: integer(map, "start_line", 1, u64::MAX)?,
        end_line: integer(map, "end_line", 1, u64::MAX)?,
    };
    if (args.start_line.is_some() || args.end_line.is_some())
        && (args.offset.is_some() || args.limit.is_some())
    {
        return Err(ArgError(
            "Use either offset/limit (zero-indexed) or start_line/end_line (1-indexed, inclusive), not both."
                .to_string(),
        ));
    }
    Ok(args)
}

fn present<'a>(map: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    map.get(name).filter(|v| !v.is_null())
}

fn string(map: &Map<String, Value>, name: &str) -> Result<Option<String>, ArgError> {
    match present(map, name) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(ArgError(format!(
            "Argument '{name}' must be a string, got {}.",
            describe(other)
        ))),
    }
}

fn project_id(map: &Map<String, Value>) -> Result<Option<String>, ArgError> {
    match present(map, "project_id") {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) if n.is_u64() => Ok(Some(n.to_string())),
        Some(other) => Err(ArgError(format!(
            "Argument 'project_id' must be a project's numeric id or full path (e.g. \"42\" or \"group/project\"), got {}.",
            describe(other)
        ))),
    }
}

/// An integer in `min..=max`, sent as a JSON integer or a string of digits.
fn integer(
    map: &Map<String, Value>,
    name: &str,
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
        return Err(ArgError(format!(
            "Argument '{name}' must be an integer, got {}.",
            describe(value)
        )));
    };
    if n < i128::from(min) || n > i128::from(max) {
        let range = if max == u64::MAX {
            format!("at least {min}")
        } else {
            format!("between {min} and {max}")
        };
        return Err(ArgError(format!(
            "Argument '{name}' must be {range}, got {n}."
        )));
    }
    // In range min..=max, both u64, so the conversion cannot fail.
    Ok(u64::try_from(n).ok())
}

fn describe(value: &Value) -> String {
    let text = value.to_string();
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    if text.chars().count() > 40 {
        kind.to_string()
    } else {
        format!("{kind} ({text})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(v: Value) -> Result<ToolArgs, ArgError> {
        parse(v.as_object())
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
        let e = p(json!({"path": "x", "branch": "y"})).unwrap_err().0;
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
                .0
                .contains("at least 0, got -1")
        );
        assert!(
            p(json!({"limit": 2001}))
                .unwrap_err()
                .0
                .contains("between 1 and 2000, got 2001")
        );
        assert!(
            p(json!({"limit": 0}))
                .unwrap_err()
                .0
                .contains("between 1 and 2000")
        );
        assert_eq!(p(json!({"limit": 2000})).unwrap().limit, Some(2000));
        assert!(
            p(json!({"start_line": 0}))
                .unwrap_err()
                .0
                .contains("at least 1")
        );
        assert!(p(json!({"offset": 1.5})).unwrap_err().0.contains("integer"));
        assert_eq!(p(json!({"offset": 2.0})).unwrap().offset, Some(2));
        assert!(
            p(json!({"offset": true}))
                .unwrap_err()
                .0
                .contains("a boolean")
        );
    }

    #[test]
    fn types() {
        assert!(
            p(json!({"file_path": 3}))
                .unwrap_err()
                .0
                .contains("'file_path' must be a string")
        );
        assert!(
            p(json!({"project_id": -3}))
                .unwrap_err()
                .0
                .contains("project_id")
        );
        assert!(
            p(json!({"project_id": ["a"]}))
                .unwrap_err()
                .0
                .contains("an array")
        );
    }

    #[test]
    fn line_forms_do_not_mix() {
        let e = p(json!({"offset": 1, "end_line": 4})).unwrap_err().0;
        assert!(e.contains("not both"), "{e}");
        assert!(p(json!({"start_line": 2, "end_line": 4})).is_ok());
    }
}
