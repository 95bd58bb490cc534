//! The published definition of `get_repository_files`: its input schema (each entry takes the
//! single tool's per-file properties, built from the same [`property`] function, so an entry's
//! schema follows the single tool's), its output schema (a list of the single tool's outputs,
//! or `{path, ref, error}`), and its description.

use rmcp::model::Tool;
use serde_json::{Map, Value, json};

use super::definition::{
    Face, arguments_schema, default_budget, output_schema, property, published, with_content_rule,
};
use crate::reader::ReadDefaults;
use crate::reader::batch::{CALL_WIDE, FILES, MAX_FILES};
use crate::resolve::args::ArgName;
use crate::response::batch::{INDEX, INDEX_CHARS, Status};

/// The batch tool's name.
pub(crate) const BATCH_TOOL_NAME: &str =
    crate::base::tool_name::ToolName::GetRepositoryFiles.as_str();

fn description(defaults: ReadDefaults) -> String {
    let budget = default_budget(defaults);
    format!(
        "Read up to {MAX_FILES} files from GitLab repositories in one call: each entry of files takes \
get_repository_file's arguments for one file (url, or file_path with optional project_id and ref, \
which default to the ones given beside files; its own line window or pattern, and if_none_match). \
Files of one project and \
ref are fetched together. The answer lists one result per entry, in order: get_repository_file's \
output, or {{path, ref, error}} for an entry that cannot be read (the other entries are still \
read). One max_chars budget (default {budget}) is shared by the entries in order; entries it does \
not reach come back without content and their system_instruction names the arguments that read them."
    )
}

/// The per-file properties an entry takes: the single tool's, but the call-wide budget and
/// numbering, without their descriptions (the single tool's, which `files` refers to: a
/// model reads each once, and the listing stays small).
fn entry_schema(defaults: ReadDefaults) -> Value {
    let per_file = ArgName::ALL
        .into_iter()
        .filter(|name| !matches!(name, ArgName::MaxChars | ArgName::LineNumbers));
    let mut schema = arguments_schema(per_file, defaults);
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for property in properties.values_mut() {
            if let Value::Object(p) = property {
                p.remove("description");
            }
        }
    }
    schema
}

/// The input schema: `files`, then the call-wide arguments.
pub(crate) fn input_schema(defaults: ReadDefaults) -> Value {
    let mut properties = Map::new();
    properties.insert(
        FILES.to_string(),
        json!({
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_FILES,
            "description": format!("1 to {MAX_FILES} files to read, each with get_repository_file's per-file arguments (described there)."),
            "items": entry_schema(defaults)
        }),
    );
    for name in CALL_WIDE {
        properties.insert(name.as_str().to_string(), call_wide(name, defaults));
    }
    json!({
        "type": "object",
        "properties": properties,
        "required": [FILES],
        "additionalProperties": false
    })
}

/// A call-wide argument: the single tool's property, described for the whole call.
fn call_wide(name: ArgName, defaults: ReadDefaults) -> Value {
    let mut schema = property(name, defaults);
    let said = match name {
        ArgName::ProjectId => {
            "Default project for entries that give a file_path and no project_id.".to_string()
        }
        ArgName::Ref => {
            "Default ref for entries that give a file_path and no ref (HEAD = the default branch)."
                .to_string()
        }
        ArgName::MaxChars => format!(
            "One budget of characters for the whole answer, shared by the entries in order: each entry's window is fitted to what the entries before it left. Same meaning as get_repository_file's max_chars; 0 = no budget (each entry within the byte cap). Default {}.",
            default_budget(defaults)
        ),
        _ => "For every entry: prefix each line with its number, cat -n style. Default false."
            .to_string(),
    };
    if let Some(object) = schema.as_object_mut() {
        object.insert("description".into(), said.into());
    }
    schema
}

/// The output schema: the index, then one result per entry, the single tool's output or an
/// error.
pub(crate) fn batch_output_schema() -> Value {
    let statuses: Vec<&str> = Status::ALL.into_iter().map(Status::as_str).collect();
    json!({
        "type": "object",
        "properties": {
            INDEX: {
                "type": "array",
                "description": format!("Sent first, one line per entry of files, in order: its path, its status (complete: all it asked for is in its content; partial: more is left, the hint says how; unchanged; not_read: past the budget; error) and its hint (system_instruction or error). When the lines would not all fit in {INDEX_CHARS} characters, a hint naming a call is shortened to that call's arguments, and any still too long is cut with …; the entry has it whole."),
                "items": {
                    "type": "object",
                    "properties": {
                        "path": nullable_string("The entry's path; null when the entry gave none."),
                        "status": { "type": "string", "enum": statuses },
                        "hint": { "type": "string" }
                    },
                    "required": ["path", "status"]
                }
            },
            FILES: {
                "type": "array",
                "description": "One result per entry of files, in order: get_repository_file's output, {path, ref, error}, or (past the budget) {path, ref, system_instruction} without content.",
                "items": entry_output_schema()
            }
        },
        "required": [INDEX, FILES]
    })
}

/// A string or `null`, written as `anyOf` (the single tool's form; a type array draws the
/// Inspector's `--strict` warning).
fn nullable_string(description: &str) -> Value {
    json!({ "description": description, "anyOf": [{ "type": "string" }, { "type": "null" }] })
}

/// One entry's result: `{path, ref, error}`; or the single tool's output, content required
/// exactly as the single tool requires it; or, past the budget, `{path, ref,
/// system_instruction}` without metadata.
fn entry_output_schema() -> Value {
    let single = output_schema();
    let mut properties = single["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    for name in ["path", "ref"] {
        properties.insert(
            name.into(),
            nullable_string(&format!(
                "The entry's {name}; null when the entry gave none."
            )),
        );
    }
    let error = json!({ "type": "string", "description": "Why this entry could not be read (get_repository_file's error message)." });
    properties.insert("error".into(), error.clone());
    let read = with_content_rule(json!({ "type": "object", "properties": single["properties"] }));
    json!({
        "type": "object",
        "properties": properties,
        "required": ["path", "ref"],
        "if": { "type": "object", "properties": { "error": error }, "required": ["error"] },
        "else": {
            "type": "object",
            "if": {
                "type": "object",
                "properties": { "metadata": single["properties"]["metadata"] },
                "required": ["metadata"]
            },
            "then": { "type": "object", "if": read["if"], "else": read["else"] },
            "else": {
                "type": "object",
                "properties": { "system_instruction": single["properties"]["system_instruction"] },
                "required": ["system_instruction"]
            }
        }
    })
}

/// The published definition, with the same declared ceiling as the single tool: the shared
/// budget bounds the whole answer's content as a single call's budget bounds its one.
pub(crate) fn batch_tool(defaults: ReadDefaults) -> Tool {
    let face = Face {
        name: BATCH_TOOL_NAME,
        title: "Get repository files",
        search_hint: "read several files of GitLab repositories in one call",
        description: description(defaults),
    };
    published(
        face,
        input_schema(defaults),
        batch_output_schema(),
        defaults,
    )
}
