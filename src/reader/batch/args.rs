//! The batch tool's arguments: `files` (1 to [`MAX_FILES`] entries, each the single tool's
//! per-file arguments) and the call-wide ones beside it (`project_id` and `ref` as defaults for
//! entries that name a `file_path`, one shared `max_chars`, `line_numbers`).
//!
//! Each entry is parsed by the single tool's own parser ([`args::parse`]) after the defaults are
//! merged in, so an entry takes exactly what `get_repository_file` takes (and fails with its
//! words). A malformed call (no `files`, too many, an unknown argument, a bad call-wide value)
//! is a [`BatchError`]; a bad entry is only that entry's [`EntryError`].

use serde_json::{Map, Value};

use crate::resolve::args::{self, ArgError, ArgName, Sent, ToolArgs};

/// The most entries one call reads.
pub(crate) const MAX_FILES: usize = 20;

/// The name of the entries' argument.
pub(crate) const FILES: &str = "files";

/// The call-wide arguments beside `files`, in schema order.
pub(crate) const CALL_WIDE: [ArgName; 4] = [
    ArgName::ProjectId,
    ArgName::Ref,
    ArgName::MaxChars,
    ArgName::LineNumbers,
];

/// Arguments only the call takes, never an entry: the budget is shared, numbering is one choice.
const NOT_PER_ENTRY: [ArgName; 2] = [ArgName::MaxChars, ArgName::LineNumbers];

/// A parsed call: its entries in order and the shared budget.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BatchCall {
    pub entries: Vec<Entry>,
    /// The caller's own `max_chars` (0 = none); `None` = the server's default.
    pub max_chars: Option<u64>,
}

/// One entry: the single tool's arguments that read it, and what they parse to.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    /// The entry with the call's defaults merged in: a `get_repository_file` call with these
    /// arguments (and the call's `max_chars`) reads the same file and window.
    pub arguments: Map<String, Value>,
    pub parsed: Result<ToolArgs, EntryError>,
}

impl Entry {
    /// The string the entry gave for `name`, as an error quotes it: at most 100 characters,
    /// control characters escaped ([`crate::base::quote::shown`]), as the single tool quotes it.
    pub(crate) fn quoted(&self, name: ArgName) -> Option<String> {
        match self.arguments.get(name.as_str()) {
            Some(Value::String(s)) => Some(crate::base::quote::shown(s)),
            _ => None,
        }
    }
}

/// A malformed call: nothing is read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BatchError {
    #[error(
        "Argument 'files' is missing. Pass 1 to {MAX_FILES} entries, each with get_repository_file's arguments for one file (url, or file_path with project_id and ref given in the entry or beside files)."
    )]
    NoFiles,
    #[error("Argument 'files' must be an array of 1 to {MAX_FILES} objects, got {got}.")]
    NotAnArray { got: Sent },
    #[error(
        "Argument 'files' has {got} entries; at most {MAX_FILES} are read in one call. Split them over several calls."
    )]
    TooMany { got: usize },
    #[error("Unknown argument '{name}'. Accepted arguments: {}.", accepted())]
    Unknown { name: String },
    /// A call-wide argument that does not parse (the single tool's words).
    #[error(transparent)]
    CallWide(ArgError),
}

/// Why one entry cannot be read; the other entries are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum EntryError {
    #[error(
        "Each entry of 'files' must be an object of get_repository_file's arguments, got {got}."
    )]
    NotAnObject { got: Sent },
    #[error(
        "Argument '{name}' applies to the whole call: pass it beside 'files', not in an entry."
    )]
    CallWideOnly { name: ArgName },
    #[error(transparent)]
    Args(ArgError),
}

/// The top-level names, as an error lists them.
fn accepted() -> String {
    let mut names = vec![FILES];
    names.extend(CALL_WIDE.iter().map(|a| a.as_str()));
    names.join(", ")
}

/// Parses the `arguments` of a `get_repository_files` call.
pub(crate) fn parse(arguments: Option<&Map<String, Value>>) -> Result<BatchCall, BatchError> {
    let empty = Map::new();
    let map = arguments.unwrap_or(&empty);
    let wide_names: Vec<&str> = CALL_WIDE.iter().map(|a| a.as_str()).collect();
    if let Some(name) = map
        .keys()
        .find(|k| k.as_str() != FILES && !wide_names.contains(&k.as_str()))
    {
        return Err(BatchError::Unknown {
            name: crate::base::quote::shown(name),
        });
    }
    let wide: Map<String, Value> = map
        .iter()
        .filter(|(k, v)| k.as_str() != FILES && !v.is_null())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let shared = args::parse(Some(&wide)).map_err(BatchError::CallWide)?;
    let files = match map.get(FILES) {
        None | Some(Value::Null) => return Err(BatchError::NoFiles),
        Some(Value::Array(files)) if files.is_empty() => return Err(BatchError::NoFiles),
        Some(Value::Array(files)) if files.len() > MAX_FILES => {
            return Err(BatchError::TooMany { got: files.len() });
        }
        Some(Value::Array(files)) => files,
        Some(other) => {
            return Err(BatchError::NotAnArray {
                got: args::got(other),
            });
        }
    };
    let entries = files.iter().map(|file| entry(file, &wide)).collect();
    Ok(BatchCall {
        entries,
        max_chars: shared.max_chars,
    })
}

/// One entry, with the call's defaults: `project_id` and `ref` for an entry without a `url`
/// that lacks them, and `line_numbers`.
fn entry(file: &Value, wide: &Map<String, Value>) -> Entry {
    let Value::Object(own) = file else {
        let error = EntryError::NotAnObject {
            got: args::got(file),
        };
        return Entry {
            arguments: Map::new(),
            parsed: Err(error),
        };
    };
    let mut arguments = own.clone();
    let refused = NOT_PER_ENTRY
        .into_iter()
        .find(|name| own.get(name.as_str()).is_some_and(|v| !v.is_null()));
    let has_url = own.get(ArgName::Url.as_str()).is_some_and(|v| !v.is_null());
    for (name, value) in wide {
        let default = match ArgName::from_wire(name) {
            Some(ArgName::LineNumbers) => true,
            Some(ArgName::ProjectId | ArgName::Ref) => !has_url,
            _ => false,
        };
        if default && arguments.get(name).is_none_or(Value::is_null) {
            arguments.insert(name.clone(), value.clone());
        }
    }
    let parsed = match refused {
        Some(name) => Err(EntryError::CallWideOnly { name }),
        None => args::parse(Some(&arguments)).map_err(EntryError::Args),
    };
    Entry { arguments, parsed }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(v: Value) -> Result<BatchCall, BatchError> {
        let Value::Object(map) = v else {
            panic!("an object")
        };
        parse(Some(&map))
    }

    fn arguments(entry: &Entry) -> Value {
        Value::Object(entry.arguments.clone())
    }

    #[test]
    fn defaults_fill_entries_that_name_a_file_path() {
        let c = call(json!({
            "project_id": "g/p", "ref": "main", "max_chars": 500, "line_numbers": true,
            "files": [
                {"file_path": "a.txt"},
                {"file_path": "b.txt", "ref": "dev", "project_id": 7},
                {"url": "https://gitlab.example.com/x/y/-/blob/v1/c.txt", "offset": 3}
            ]
        }))
        .unwrap();
        assert_eq!(c.max_chars, Some(500));
        assert_eq!(
            arguments(&c.entries[0]),
            json!({"file_path": "a.txt", "project_id": "g/p", "ref": "main", "line_numbers": true})
        );
        assert_eq!(
            arguments(&c.entries[1]),
            json!({"file_path": "b.txt", "ref": "dev", "project_id": 7, "line_numbers": true})
        );
        // A URL names its own project and ref: no defaults, or they would contradict it.
        assert_eq!(
            arguments(&c.entries[2]),
            json!({"url": "https://gitlab.example.com/x/y/-/blob/v1/c.txt", "offset": 3, "line_numbers": true})
        );
        let first = c.entries[0].parsed.as_ref().unwrap();
        assert_eq!(first.git_ref.as_deref(), Some("main"));
        assert_eq!(first.line_numbers, Some(true));
        assert_eq!(first.max_chars, None);
    }

    #[test]
    fn a_bad_entry_is_only_that_entry() {
        let c = call(json!({"files": [
            {"file_path": "a", "limit": 0},
            "a.txt",
            {"file_path": "a", "max_chars": 10},
            {"file_path": "a", "line_numbers": false},
            {"file_path": "a", "branch": "x"},
            {"file_path": "a", "max_chars": null}
        ]}))
        .unwrap();
        let errors: Vec<String> = c
            .entries
            .iter()
            .map(|e| {
                e.parsed
                    .as_ref()
                    .err()
                    .map(ToString::to_string)
                    .unwrap_or_default()
            })
            .collect();
        assert!(
            errors[0].starts_with("Argument 'limit' must be between 1 and 2000"),
            "{}",
            errors[0]
        );
        assert_eq!(
            errors[1],
            "Each entry of 'files' must be an object of get_repository_file's arguments, got a string (\"a.txt\")."
        );
        assert!(errors[2].starts_with("Argument 'max_chars' applies to the whole call"));
        assert!(errors[3].starts_with("Argument 'line_numbers' applies to the whole call"));
        assert!(errors[4].starts_with("Unknown argument 'branch'."));
        assert_eq!(errors[5], "");
    }

    #[test]
    fn malformed_calls_are_refused() {
        assert_eq!(call(json!({})), Err(BatchError::NoFiles));
        assert_eq!(call(json!({"files": null})), Err(BatchError::NoFiles));
        assert_eq!(call(json!({"files": []})), Err(BatchError::NoFiles));
        assert_eq!(parse(None), Err(BatchError::NoFiles));
        let many: Vec<Value> = (0..21)
            .map(|i| json!({"file_path": format!("f{i}")}))
            .collect();
        let e = call(json!({"files": many})).unwrap_err();
        assert_eq!(e, BatchError::TooMany { got: 21 });
        assert_eq!(
            e.to_string(),
            "Argument 'files' has 21 entries; at most 20 are read in one call. Split them over several calls."
        );
        let twenty: Vec<Value> = (0..20)
            .map(|i| json!({"file_path": format!("f{i}")}))
            .collect();
        assert_eq!(call(json!({"files": twenty})).unwrap().entries.len(), 20);
        let e = call(json!({"files": [], "file_path": "a"})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Unknown argument 'file_path'. Accepted arguments: files, project_id, ref, max_chars, line_numbers."
        );
        let e = call(json!({"files": {"file_path": "a"}})).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("Argument 'files' must be an array of 1 to 20 objects, got an object"),
            "{e}"
        );
        let e = call(json!({"files": [{"file_path": "a"}], "max_chars": -1})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Argument 'max_chars' must be at least 0, got -1."
        );
    }
}
