//! `search_repository`'s arguments as the agent sent them: JSON in, typed [`FindArgs`] out, each
//! mistake a [`FindArgError`] naming the argument. As for the read tools, `null` is absent,
//! numbers and booleans may come as strings, and unknown names are refused.

use std::fmt::{self, Display, Formatter};

use serde_json::{Map, Value};

use crate::base::quote::shown;
use crate::window::search::{MAX_CONTEXT_LINES, MAX_PATTERN_BYTES};

/// The names the tool takes, in the order its schema lists them.
pub(crate) const NAMES: [&str; 11] = [
    "url",
    "project_id",
    "ref",
    "path",
    "glob",
    "pattern",
    "ignore_case",
    "context_lines",
    "max_chars",
    "after",
    "after_line",
];

/// The longest string any argument takes (a URL, a path), in bytes.
const MAX_STRING_BYTES: usize = 4096;

/// The arguments, typed; each `None` when absent or `null`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FindArgs {
    pub url: Option<String>,
    pub project_id: Option<String>,
    pub git_ref: Option<String>,
    pub path: Option<String>,
    pub glob: Option<String>,
    pub pattern: Option<String>,
    pub ignore_case: Option<bool>,
    pub context_lines: Option<u64>,
    pub max_chars: Option<u64>,
    /// The page starts after this path (a hint's cursor).
    pub after: Option<String>,
    /// With `after`, in contents mode: that file's matches resume after this line.
    pub after_line: Option<u64>,
}

/// A bad argument.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FindArgError {
    Unknown { names: Vec<String> },
    NotAString { name: &'static str },
    TooLong { name: &'static str, max: usize },
    NotAnInteger { name: &'static str },
    TooLarge { name: &'static str, max: u64 },
    NotABoolean { name: &'static str },
    AfterLineWithoutAfter,
}

impl Display for FindArgError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            FindArgError::Unknown { names } => {
                let quoted: Vec<String> = names.iter().map(|n| format!("'{}'", shown(n))).collect();
                write!(
                    f,
                    "Unknown argument(s) {}. search_repository takes: {}.",
                    quoted.join(", "),
                    NAMES.join(", ")
                )
            }
            FindArgError::NotAString { name } => write!(f, "Argument '{name}' must be a string."),
            FindArgError::TooLong { name, max } => {
                write!(f, "Argument '{name}' is longer than {max} bytes.")
            }
            FindArgError::NotAnInteger { name } => {
                write!(f, "Argument '{name}' must be a non-negative integer.")
            }
            FindArgError::TooLarge { name, max } => {
                write!(f, "Argument '{name}' is too large; the maximum is {max}.")
            }
            FindArgError::NotABoolean { name } => {
                write!(f, "Argument '{name}' must be true or false.")
            }
            FindArgError::AfterLineWithoutAfter => f.write_str(
                "Argument 'after_line' needs 'after' (the file it continues); pass both as the hint names them.",
            ),
        }
    }
}

/// Parses a call's arguments.
pub(crate) fn parse(arguments: Option<&Map<String, Value>>) -> Result<FindArgs, FindArgError> {
    let empty = Map::new();
    let map = arguments.unwrap_or(&empty);
    let mut unknown: Vec<String> = map
        .keys()
        .filter(|k| !NAMES.contains(&k.as_str()))
        .cloned()
        .collect();
    if !unknown.is_empty() {
        unknown.sort();
        unknown.truncate(10);
        return Err(FindArgError::Unknown { names: unknown });
    }
    let args = FindArgs {
        url: string(map, "url", MAX_STRING_BYTES)?,
        project_id: project_id(map)?,
        git_ref: string(map, "ref", MAX_STRING_BYTES)?,
        path: string(map, "path", MAX_STRING_BYTES)?,
        glob: string(map, "glob", MAX_STRING_BYTES)?,
        pattern: string(map, "pattern", MAX_PATTERN_BYTES)?,
        ignore_case: boolean(map, "ignore_case")?,
        context_lines: integer(map, "context_lines", MAX_CONTEXT_LINES)?,
        max_chars: integer(map, "max_chars", u64::MAX)?,
        after: string(map, "after", MAX_STRING_BYTES)?,
        after_line: integer(map, "after_line", u64::MAX)?,
    };
    if args.after_line.is_some() && args.after.is_none() {
        return Err(FindArgError::AfterLineWithoutAfter);
    }
    Ok(args)
}

fn present<'a>(map: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    map.get(name).filter(|v| !v.is_null())
}

fn string(
    map: &Map<String, Value>,
    name: &'static str,
    max: usize,
) -> Result<Option<String>, FindArgError> {
    let Some(value) = present(map, name) else {
        return Ok(None);
    };
    let s = value.as_str().ok_or(FindArgError::NotAString { name })?;
    if s.len() > max {
        return Err(FindArgError::TooLong { name, max });
    }
    Ok(Some(s.to_string()))
}

/// `project_id`: a string, or a non-negative integer taken as its digits.
fn project_id(map: &Map<String, Value>) -> Result<Option<String>, FindArgError> {
    match present(map, "project_id") {
        Some(Value::Number(n)) if n.is_u64() => Ok(Some(n.to_string())),
        _ => string(map, "project_id", MAX_STRING_BYTES),
    }
}

fn integer(
    map: &Map<String, Value>,
    name: &'static str,
    max: u64,
) -> Result<Option<u64>, FindArgError> {
    let Some(value) = present(map, name) else {
        return Ok(None);
    };
    let n = match value {
        Value::Number(n) => n.as_u64(),
        Value::String(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
            s.parse().ok()
        }
        _ => None,
    };
    let n = n.ok_or(FindArgError::NotAnInteger { name })?;
    if n > max {
        return Err(FindArgError::TooLarge { name, max });
    }
    Ok(Some(n))
}

fn boolean(map: &Map<String, Value>, name: &'static str) -> Result<Option<bool>, FindArgError> {
    match present(map, name) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(Value::String(s)) if s == "true" => Ok(Some(true)),
        Some(Value::String(s)) if s == "false" => Ok(Some(false)),
        Some(_) => Err(FindArgError::NotABoolean { name }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(v: Value) -> Result<FindArgs, FindArgError> {
        parse(v.as_object())
    }

    #[test]
    fn arguments_are_typed_and_strict() {
        let a = p(
            json!({"project_id": 42, "path": "src", "glob": "*.rs", "context_lines": "3",
            "ignore_case": "true", "after": "src/a.rs", "after_line": 7}),
        )
        .unwrap();
        assert_eq!(a.project_id.as_deref(), Some("42"));
        assert_eq!(a.context_lines, Some(3));
        assert_eq!(a.ignore_case, Some(true));
        assert_eq!(a.after_line, Some(7));
        assert!(matches!(
            p(json!({"offset": 1})),
            Err(FindArgError::Unknown { .. })
        ));
        assert!(p(json!({"context_lines": 51})).is_err());
        assert!(p(json!({"glob": 3})).is_err());
        assert!(p(json!({"after_line": 3})).is_err());
        assert_eq!(p(json!({"path": null})).unwrap(), FindArgs::default());
    }
}
