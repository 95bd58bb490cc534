//! The `get_repository_file` tool's published definition: its description, its input and
//! output schemas (the public contract, snapshotted in `tests/snapshots/`), built from
//! [`ArgName`], the window constants and [`crate::limits`], and its declared result ceiling.
//! The batch tool's definition (`tool/batch.rs`) is built from the same pieces.

use std::sync::Arc;

use rmcp::model::{MetaObject, Tool, ToolAnnotations};
use serde_json::{Map, Value, json};

use crate::limits::{MAX_RESULT_CHARS, MAX_RESULT_ENVELOPE};
use crate::outline::SUPPORTED;
use crate::reader::ReadDefaults;
use crate::resolve::args::ArgName;
use crate::window::search::{DEFAULT_CONTEXT_LINES, MAX_CONTEXT_LINES, MAX_PATTERN_BYTES};
use crate::window::{CONTROL_CHARGE, DEFAULT_LIMIT, MAX_LIMIT, MAX_WINDOW_BYTES};

/// The tool's name, as GitLab's own tool calls it.
pub(crate) const TOOL_NAME: &str = crate::base::tool_name::ToolName::GetRepositoryFile.as_str();

/// The `_meta` key that tells Claude Code how large a result of this tool may be inline.
const MAX_RESULT_SIZE_KEY: &str = "anthropic/maxResultSizeChars";

/// The `_meta` key of the phrase Claude Code's tool search matches a deferred tool by.
const SEARCH_HINT_KEY: &str = "anthropic/searchHint";

/// The largest result declared for a server whose default budget is `default_max_chars`:
/// twice the budget (a content charged `B` is at most `2 × B` characters as a JSON string)
/// plus [`MAX_RESULT_ENVELOPE`], at most [`MAX_RESULT_CHARS`]; no budget (0) declares
/// [`MAX_RESULT_CHARS`].
pub(crate) fn declared_result_chars(default_max_chars: u64) -> u64 {
    if default_max_chars == 0 {
        return MAX_RESULT_CHARS;
    }
    default_max_chars
        .saturating_mul(2)
        .saturating_add(MAX_RESULT_ENVELOPE)
        .min(MAX_RESULT_CHARS)
}

/// The default budget as the schema names it.
pub(super) fn default_budget(defaults: ReadDefaults) -> String {
    match defaults.max_chars {
        0 => "0 (no budget)".to_string(),
        n => n.to_string(),
    }
}

/// The tool's description, with the window limits it names.
fn description(defaults: ReadDefaults) -> String {
    let budget = default_budget(defaults);
    format!(
        "Read a file from a GitLab repository at a branch, tag or commit (what is committed in \
GitLab, not your working copy). Pass a file URL, or project_id + file_path + ref (HEAD = the \
default branch). Large files come in line windows (offset/limit, zero-indexed, up to {MAX_LIMIT} lines, \
or start_line/end_line, 1-indexed inclusive); when the window is not the whole file, \
system_instruction names the exact arguments of the next call. Content is returned byte-for-byte \
(unless line_numbers), at most max_chars characters per call (default {budget}), so consecutive \
windows join back into the file. Use pattern to find the lines you need in a large file before \
paging it. Use outline to see a large source file's structure (its definitions with their lines), and symbol to read one definition whole. metadata.commit_sha (and on GitLab metadata.web_url, a permalink of the lines returned) \
are what to cite; pass metadata.blob_id as if_none_match to re-read a file without its content \
when it has not changed."
    )
}

/// The tool's input schema, one property per [`ArgName`], in that order. No property is
/// required by the schema (url, or project_id + file_path + ref); unknown properties are
/// rejected.
pub(crate) fn input_schema(defaults: ReadDefaults) -> Value {
    arguments_schema(ArgName::ALL.into_iter(), defaults)
}

/// A strict object schema of `names`' properties, in that order.
pub(super) fn arguments_schema(
    names: impl Iterator<Item = ArgName>,
    defaults: ReadDefaults,
) -> Value {
    let properties: Map<String, Value> = names
        .map(|name| (name.as_str().to_string(), property(name, defaults)))
        .collect();
    json!({
        "type": "object",
        "properties": properties,
        "additionalProperties": false
    })
}

/// One argument's schema, its limits taken from the windowing constants.
pub(super) fn property(name: ArgName, defaults: ReadDefaults) -> Value {
    match name {
        ArgName::Url => json!({
            "type": "string",
            "description": "GitLab URL of the file, e.g. https://gitlab.com/gitlab-org/gitlab/-/blob/master/app/models/user.rb (also /-/raw/ and /-/blame/; a #L10-20 anchor selects those lines). Provide this, or project_id, file_path and ref."
        }),
        ArgName::ProjectId => json!({
            "type": "string",
            "description": "Numeric id or full path of the project, e.g. \"42\" or \"gitlab-org/gitlab\". Required if url is not provided; if url is also provided, both must name the same project."
        }),
        ArgName::FilePath => json!({
            "type": "string",
            "description": "Path of the file from the repository root, e.g. app/models/user.rb. Required if url is not provided."
        }),
        ArgName::Ref => json!({
            "type": "string",
            "description": "Branch name, tag name, or commit SHA. Use HEAD for the default branch. Required if url is not provided."
        }),
        ArgName::Offset => json!({
            "type": "integer",
            "minimum": 0,
            "description": "Zero-indexed line to start reading from. Default 0."
        }),
        ArgName::Limit => json!({
            "type": "integer",
            "minimum": 1,
            "description": format!("Maximum number of lines to return. Default {DEFAULT_LIMIT}, maximum {MAX_LIMIT}. With pattern: the lines searched, any number.")
        }),
        ArgName::StartLine => json!({
            "type": "integer",
            "description": "Alternative to offset/limit: first line to return, 1-indexed; below 1 is clamped to 1, past the end to the last line. start_line 0 with end_line 0 means no line range."
        }),
        ArgName::EndLine => json!({
            "type": "integer",
            "description": format!("Alternative to offset/limit: last line to return, 1-indexed, inclusive; 0 or below (or absent) means to the end of the file, past the end is clamped to it. At most {MAX_LIMIT} lines are returned.")
        }),
        ArgName::Column => column_property(),
        ArgName::MaxChars => json!({
            "type": "integer",
            "minimum": 0,
            "description": format!("Most characters of content per call, line-number prefixes included (a control character other than tab, newline, carriage return, backspace and form feed counts {CONTROL_CHARGE}, as JSON escapes it); 0 = no budget (up to {MAX_WINDOW_BYTES} bytes). Whole lines are dropped from the end to fit; a single longer line is cut, and system_instruction says how to read it. Default {}.", default_budget(defaults))
        }),
        ArgName::LineNumbers => line_numbers_property(),
        ArgName::Pattern => pattern_property(),
        ArgName::IgnoreCase => json!({
            "type": "boolean",
            "description": "With pattern: match letters of any case. Default false."
        }),
        ArgName::ContextLines => context_lines_property(),
        ArgName::IfNoneMatch => if_none_match_property(),
        ArgName::Outline => outline_property(),
        ArgName::Symbol => symbol_property(),
        ArgName::History | ArgName::Blame | ArgName::DiffFrom => views_property(name),
    }
}

fn line_numbers_property() -> Value {
    json!({
        "type": "boolean",
        "description": "Prefix each line with its number, cat -n style (number right-aligned, a tab). Default false."
    })
}

/// The history views' arguments (issue 48), described in few words: `tools/list` is read by
/// the model on every turn.
fn views_property(name: ArgName) -> Value {
    let description = match name {
        ArgName::History => {
            "List the commits that changed the file, newest first; offset/limit page them."
        }
        ArgName::Blame => {
            "With the window's lines, who last changed each (metadata.blame, metadata.commits)."
        }
        _ => {
            return json!({ "type": "string", "description": "A ref: the file's changes from it to ref, as a unified diff paged like lines." });
        }
    };
    json!({ "type": "boolean", "description": description })
}

fn pattern_property() -> Value {
    json!({
        "type": "string",
        "maxLength": MAX_PATTERN_BYTES,
        "description": format!("Find the lines matching this regular expression instead of reading a window: Rust regex syntax (linear time, no backtracking; no look-around or backreferences), matched against each line without its line ending. The window arguments (offset/limit or start_line/end_line) select the lines searched; without them the whole file is. content is grep -n output: 'N:line' for a match, 'N-line' for context, '--' between groups; metadata.matches lists the matching lines. At most {MAX_PATTERN_BYTES} bytes.")
    })
}

fn context_lines_property() -> Value {
    json!({
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_CONTEXT_LINES,
        "description": format!("With pattern: lines shown before and after each match. Default {DEFAULT_CONTEXT_LINES}, maximum {MAX_CONTEXT_LINES}.")
    })
}

fn if_none_match_property() -> Value {
    json!({
        "type": "string",
        "maxLength": crate::resolve::args::MAX_BLOB_ID_BYTES,
        "description": "metadata.blob_id of an earlier answer for this file, to re-read cheaply: if the file at the ref is still that blob, the answer has no content and metadata.unchanged is true (the content you hold is current); otherwise it is the normal answer."
    })
}

/// `outline`: the file's definitions instead of its text.
fn outline_property() -> Value {
    json!({
        "type": "boolean",
        "description": format!("List the file's definitions instead of its text, one line each in file order, indented two spaces per nesting level: 'START-END KIND QUALIFIED_NAME' (e.g. '  1144-1171 method Response.raise_for_status'). For {SUPPORTED} files. The window arguments select the definitions starting in those lines (all by default); pages and hints work as for pattern.")
    })
}

/// `column`: a cursor inside the window's first line.
fn column_property() -> Value {
    json!({
        "type": "integer",
        "minimum": 0,
        "description": "Characters of the window's first line to skip, 0-indexed (a line's newline is its last character): the window starts part way through that line, so a line longer than one call is read in pieces. system_instruction names it when a line was cut. Default 0."
    })
}

/// `symbol`: one definition's exact lines.
fn symbol_property() -> Value {
    json!({
        "type": "string",
        "maxLength": crate::resolve::args::MAX_SYMBOL_BYTES,
        "description": "Read the exact lines of one definition (decorators, attributes and doc comments above it included), as a window: a qualified name as outline prints it (e.g. 'Response.raise_for_status') or its last part. Adjacent definitions of one name (overloads) are one window; several elsewhere, or none, are an error listing the candidates or the closest names."
    })
}

/// The tool's output schema.
pub(crate) fn output_schema() -> Value {
    let schema = json!({
        "type": "object",
        "properties": {
            "path": { "type": "string", "description": "Path of the file read." },
            "ref": { "type": "string", "description": "Ref the file was read at." },
            "system_instruction": { "type": "string", "description": "What to do next: the next window's arguments, or why the window was shortened. Absent when there is nothing to say. Sent before metadata and content." },
            "metadata": {
                "type": "object",
                "properties": {
                    "total_lines": { "type": "integer", "minimum": 0, "description": "Lines in the file (in the part retrieved, if the file exceeded GitLab's read limit and the window lay inside that part)." },
                    "returned_lines": {
                        "description": "1-indexed inclusive range of the lines in content; null when content is empty.",
                        "anyOf": [
                            {
                                "type": "object",
                                "properties": {
                                    "start": { "type": "integer", "minimum": 1 },
                                    "end": { "type": "integer", "minimum": 1 }
                                },
                                "required": ["start", "end"]
                            },
                            { "type": "null" }
                        ]
                    },
                    "truncated": { "type": "boolean", "description": "True when content is not the whole file; with pattern, when not every match is in content." },
                    "columns": {
                        "type": "object",
                        "description": "Present when content holds only part of its first line (the window started at a column, or the line was cut): the 0-indexed columns (characters) of that line in content, end excluded.",
                        "properties": {
                            "start": { "type": "integer", "minimum": 0 },
                            "end": { "type": "integer", "minimum": 0 }
                        },
                        "required": ["start", "end"]
                    },
                    "size_bytes": { "type": "integer", "minimum": 0, "description": "Size of the whole file in bytes." },
                    "blob_id": { "type": "string", "description": "Git blob id of the content read: the same id means the same bytes (pass it as if_none_match to re-read cheaply). When it differs from the previous window's, the file changed at the ref in between (system_instruction says so)." },
                    "commit_sha": { "type": "string", "pattern": "^([0-9a-f]{40}|[0-9a-f]{64})$", "description": "The commit the ref resolved to: cite it, the ref may move." },
                    "web_url": { "type": "string", "description": "Permalink of the lines returned, at commit_sha (GitLab only): .../-/blob/<commit_sha>/<path>#L10-20. Cite it." },
                    "unchanged": { "type": "boolean", "const": true, "description": "Present (true) when the file is still the blob if_none_match named: there is no content, the content you hold is current." },
                    "matches": matches_schema(),
                    "outline": outline_schema(),
                    "symbol": symbol_schema()
                },
                "required": ["size_bytes"]
            },
            "content": { "type": "string", "description": "The lines, byte-for-byte, with their line terminators (each prefixed with its number and a tab when line_numbers is true); with pattern, grep -n output. Absent when metadata.unchanged." }
        },
        "required": ["path", "ref", "metadata"]
    });
    with_content_rule(schema)
}

/// `metadata.matches` in the output schema: with `pattern`, the matching lines.
fn matches_schema() -> Value {
    json!({
        "type": "object",
        "description": "With pattern: the matching lines. total counts every match in the lines searched, returned those in content, lines their 1-indexed numbers.",
        "properties": {
            "total": { "type": "integer", "minimum": 0 },
            "returned": { "type": "integer", "minimum": 0 },
            "lines": { "type": "array", "items": { "type": "integer", "minimum": 1 } }
        },
        "required": ["total", "returned", "lines"]
    })
}

/// `metadata.outline` in the output schema: with `outline`, the definitions listed.
fn outline_schema() -> Value {
    json!({
        "type": "object",
        "description": "With outline: the definitions listed. total counts those starting in the lines listed, returned those in content; partial is true when the file has syntax errors.",
        "properties": {
            "language": { "type": "string" },
            "total": { "type": "integer", "minimum": 0 },
            "returned": { "type": "integer", "minimum": 0 },
            "partial": { "type": "boolean", "const": true }
        },
        "required": ["language", "total", "returned"]
    })
}

/// `metadata.symbol` in the output schema: with `symbol`, the definition read.
fn symbol_schema() -> Value {
    json!({
        "type": "object",
        "description": "With symbol: the definition read, its qualified name, kind and 1-indexed inclusive lines.",
        "properties": {
            "name": { "type": "string" },
            "kind": { "type": "string" },
            "start_line": { "type": "integer", "minimum": 1 },
            "end_line": { "type": "integer", "minimum": 1 }
        },
        "required": ["name", "kind", "start_line", "end_line"]
    })
}

/// The window's fields of `metadata`, present in every answer but an unchanged one.
const WINDOW_FIELDS: [&str; 4] = ["total_lines", "returned_lines", "truncated", "size_bytes"];

/// `schema` (an output object's) with the rule that every answer but an unchanged one has its
/// content and the window's metadata (an unchanged one has them when the server had the
/// content at hand): an `if`/`else` on `metadata.unchanged`. Written for strict validators
/// (ajv's strictTypes and strictRequired, the Inspector's `--strict`): each subschema says it
/// is an object and defines every property it requires.
pub(super) fn with_content_rule(mut schema: Value) -> Value {
    let properties = schema["properties"].clone();
    let metadata = &properties["metadata"]["properties"];
    let only = |names: &[&str]| -> Map<String, Value> {
        names
            .iter()
            .map(|n| (n.to_string(), metadata[*n].clone()))
            .collect()
    };
    let unchanged = json!({
        "type": "object",
        "properties": { "metadata": {
            "type": "object",
            "properties": only(&["unchanged"]),
            "required": ["unchanged"]
        } },
        "required": ["metadata"]
    });
    let with_content = json!({
        "type": "object",
        "properties": {
            "content": properties["content"].clone(),
            "metadata": {
                "type": "object",
                "properties": only(&WINDOW_FIELDS),
                "required": WINDOW_FIELDS
            }
        },
        "required": ["content"]
    });
    if let Some(object) = schema.as_object_mut() {
        object.insert("if".into(), unchanged);
        object.insert("else".into(), with_content);
    }
    schema
}

/// The published tool definition, for a server whose calls get `defaults`.
pub(crate) fn tool(defaults: ReadDefaults) -> Tool {
    let face = Face {
        name: TOOL_NAME,
        title: "Get repository file",
        search_hint: "read a file of a GitLab repository by URL or path, in line windows, or grep it",
        description: description(defaults),
    };
    published(face, input_schema(defaults), output_schema(), defaults)
}

/// What a tool is called and says it does.
pub(super) struct Face {
    pub name: &'static str,
    pub title: &'static str,
    /// A short phrase of what the tool is for (`_meta["anthropic/searchHint"]`).
    pub search_hint: &'static str,
    pub description: String,
}

/// A tool definition: read-only, open-world, its result ceiling declared in `_meta`.
pub(super) fn published(face: Face, input: Value, output: Value, defaults: ReadDefaults) -> Tool {
    let object = |v: Value| match v {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(serde_json::Map::new()),
    };
    let mut meta = Map::new();
    meta.insert(
        MAX_RESULT_SIZE_KEY.to_string(),
        Value::from(declared_result_chars(defaults.max_chars)),
    );
    meta.insert(SEARCH_HINT_KEY.to_string(), face.search_hint.into());
    Tool::new(face.name, face.description, object(input))
        .with_title(face.title)
        .with_meta(MetaObject::from(meta))
        .with_raw_output_schema(object(output))
        .with_annotations(
            ToolAnnotations::with_title(face.title)
                .read_only(true)
                .open_world(true),
        )
}
