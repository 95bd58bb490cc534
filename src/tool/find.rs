//! The published definition of `search_repository`: its description, input schema (one
//! property per [`ARGUMENT_NAMES`], in that order) and output schema.

use rmcp::model::Tool;
use serde_json::{Map, Value, json};

use super::definition::{Face, default_budget, published};
use crate::find::ARGUMENT_NAMES;
use crate::reader::ReadDefaults;
use crate::window::search::{MAX_CONTEXT_LINES, MAX_PATTERN_BYTES};

/// The tool's name.
pub(crate) const FIND_TOOL_NAME: &str = crate::base::tool_name::ToolName::SearchRepository.as_str();

fn description(defaults: ReadDefaults) -> String {
    let budget = default_budget(defaults);
    format!(
        "Find files and lines in a GitLab repository at a ref, without a clone. Name it by url (project, \
tree or file page) or project_id + ref (default HEAD), and path (a directory; default the root). \
Without pattern: the paths under path, recursively, sorted (type tree = directory), filtered by glob \
(without '/' it matches base names anywhere: '*.py'; with '/', whole paths: 'src/**/test_*.rs'). \
With pattern (a regular expression, as in get_repository_file): each file's matching lines, and \
in read the get_repository_file call that reads them. Pages fit max_chars (default {budget}); \
system_instruction names the next call."
    )
}

/// One argument's schema.
fn property(name: &str) -> Value {
    match name {
        "url" => json!({"type": "string", "description": "URL of a project, tree or file page."}),
        "project_id" => {
            json!({"type": "string", "description": "Numeric id or full path of the project."})
        }
        "ref" => {
            json!({"type": "string", "description": "Branch, tag or commit SHA. Default HEAD."})
        }
        "path" => {
            json!({"type": "string", "description": "Directory to search, from the root. Default the root."})
        }
        "glob" => {
            json!({"type": "string", "description": "Filter paths: '*.md', '**/*.py', 'src/**/test_*.rs'."})
        }
        "pattern" => {
            json!({"type": "string", "maxLength": MAX_PATTERN_BYTES, "description": "Regular expression (Rust syntax) to find lines."})
        }
        "ignore_case" => json!({"type": "boolean"}),
        "context_lines" => json!({"type": "integer", "minimum": 0, "maximum": MAX_CONTEXT_LINES}),
        "max_chars" => json!({"type": "integer", "minimum": 0}),
        "after" => json!({"type": "string", "description": "Cursor from system_instruction."}),
        _ => {
            json!({"type": "integer", "minimum": 0, "description": "Cursor from system_instruction."})
        }
    }
}

/// The input schema.
pub(crate) fn input_schema() -> Value {
    let properties: Map<String, Value> = ARGUMENT_NAMES
        .iter()
        .map(|name| (name.to_string(), property(name)))
        .collect();
    json!({"type": "object", "properties": properties, "additionalProperties": false})
}

/// The output schema.
pub(crate) fn output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "commit_sha": {"type": "string", "description": "The commit searched: cite it."},
            "ref": {"type": "string"},
            "path": {"type": "string", "description": "The directory searched ('' = the root)."},
            "entries": {
                "type": "array",
                "description": "Without pattern: the paths, sorted.",
                "items": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "type": {"type": "string", "enum": ["blob", "tree"]},
                        "size": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}], "description": "Bytes; null where the source does not say (GitLab's tree)."}
                    },
                    "required": ["path", "type", "size"]
                }
            },
            "files": {
                "type": "array",
                "description": "With pattern: the files with matching lines, in path order.",
                "items": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "blob_id": {"type": "string"},
                        "matches": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "line": {"type": "integer", "minimum": 1},
                                    "text": {"type": "string"}
                                },
                                "required": ["line", "text"]
                            }
                        },
                        "read": {"type": "object", "description": "The arguments of the get_repository_file call that reads these matches."},
                        "web_url": {"type": "string", "description": "Permalink of the first match (GitLab)."}
                    },
                    "required": ["path", "blob_id", "matches", "read"]
                }
            },
            "truncated": {"type": "boolean", "description": "True when more results follow or some could not be searched (system_instruction says which)."},
            "system_instruction": {"type": "string", "description": "The next page's call, or why the answer is incomplete."}
        },
        "required": ["commit_sha", "ref", "path", "truncated"]
    })
}

/// The published definition.
pub(crate) fn find_tool(defaults: ReadDefaults) -> Tool {
    let face = Face {
        name: FIND_TOOL_NAME,
        title: "Search repository",
        search_hint: "find files by glob or lines by regex in a GitLab repository",
        description: description(defaults),
    };
    published(face, input_schema(), output_schema(), defaults)
}
