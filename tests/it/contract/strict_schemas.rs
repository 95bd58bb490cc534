//! Both tools' schemas compile under strict validators (issue 27.2): ajv in strict mode
//! (`strictTypes`, `strictRequired`, `strictTuples`, what the TypeScript SDK documents), run by
//! `tests/it/support/ajv_strict.js` when ajv is installed, and always the same rules checked here in
//! Rust, plus the MCP Inspector's `--strict` rule (no `type` arrays). The published answers keep
//! their meaning: sample answers are valid or invalid as before, and a batch entry needs its
//! content exactly when a single answer does.
//!
//! ajv is looked for in `GITLAB_FILE_MCP_AJV` (a `node_modules` directory; `.ci/run` installs it
//! there and then a missing ajv fails the test), else in
//! `~/.cache/gitlab-file-mcp/npm/node_modules`; without it the ajv half says so and is skipped.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// The published `tools/list`, as snapshotted (`tests/it/contract/tools_list.rs` keeps it the server's).
fn tools() -> Value {
    let path = format!(
        "{}/tests/snapshots/tools_list.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Where a strict validator would refuse `schema`: ajv's strict rules and the Inspector's.
fn strict_problems(schema: &Value, at: &str, out: &mut Vec<String>) {
    let Some(object) = schema.as_object() else {
        return;
    };
    let typed_object = object.get("type") == Some(&json!("object"));
    if object.get("type").is_some_and(Value::is_array) {
        out.push(format!(
            "{at}: a type array (Inspector --strict; ajv strictTypes)"
        ));
    }
    for keyword in ["properties", "required", "additionalProperties"] {
        if object.contains_key(keyword) && !typed_object {
            out.push(format!(
                "{at}: '{keyword}' without type object (strictTypes)"
            ));
        }
    }
    let defined = object.get("properties").and_then(Value::as_object);
    for name in object
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = name.as_str().unwrap_or_default();
        if !defined.is_some_and(|d| d.contains_key(name)) {
            out.push(format!(
                "{at}: required '{name}' is not in its properties (strictRequired)"
            ));
        }
    }
    if object.get("items").is_some_and(Value::is_array) {
        out.push(format!("{at}: tuple items (strictTuples)"));
    }
    for (key, value) in object {
        match value {
            Value::Object(map) if key == "properties" => {
                for (name, sub) in map {
                    strict_problems(sub, &format!("{at}/properties/{name}"), out);
                }
            }
            Value::Array(list) => {
                for (i, sub) in list.iter().enumerate() {
                    strict_problems(sub, &format!("{at}/{key}/{i}"), out);
                }
            }
            sub @ Value::Object(_) => strict_problems(sub, &format!("{at}/{key}"), out),
            _ => {}
        }
    }
}

fn problems(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    strict_problems(schema, "#", &mut out);
    out
}

#[test]
fn the_rust_check_flags_what_ajv_and_the_inspector_flagged_before() {
    // The single tool's `if` before issue 27 (ajv: missing type "object" for keyword
    // "required" at "#/if/properties/metadata"), and the batch's nullable path.
    let before = json!({
        "type": "object",
        "properties": { "metadata": { "type": "object", "properties": {} },
                        "path": { "type": ["string", "null"] } },
        "if": { "properties": { "metadata": { "required": ["unchanged"] } } },
        "else": { "required": ["content"] }
    });
    assert_eq!(
        problems(&before),
        [
            "#/properties/path: a type array (Inspector --strict; ajv strictTypes)",
            "#/if: 'properties' without type object (strictTypes)",
            "#/if/properties/metadata: 'required' without type object (strictTypes)",
            "#/if/properties/metadata: required 'unchanged' is not in its properties (strictRequired)",
            "#/else: 'required' without type object (strictTypes)",
            "#/else: required 'content' is not in its properties (strictRequired)",
        ]
    );
}

#[test]
fn every_published_schema_passes_the_strict_rules() {
    for tool in tools().as_array().unwrap() {
        for key in ["inputSchema", "outputSchema"] {
            assert_eq!(
                problems(&tool[key]),
                Vec::<String>::new(),
                "{} {key}",
                tool["name"]
            );
        }
    }
}

/// A single answer with content, without it, unchanged; a batch entry of each kind.
fn samples() -> Vec<Value> {
    let window = json!({"total_lines": 3, "returned_lines": {"start": 1, "end": 3},
                        "truncated": false, "size_bytes": 6});
    let read = json!({"path": "a", "ref": "main", "metadata": window, "content": "a\nb\nc\n"});
    let mut no_content = read.clone();
    no_content.as_object_mut().unwrap().remove("content");
    let unchanged = json!({"path": "a", "ref": "main", "system_instruction": "…",
                           "metadata": {"size_bytes": 6, "blob_id": "ab", "unchanged": true}});
    let no_window =
        json!({"path": "a", "ref": "main", "metadata": {"size_bytes": 6}, "content": ""});
    let error = json!({"path": null, "ref": null, "error": "project_id is missing."});
    let not_read = json!({"path": "c", "ref": "main", "system_instruction": "Not read: …"});
    let bare = json!({"path": "c", "ref": "main"});
    let batch = |entry: &Value| json!({"index": [{"path": entry["path"], "status": "complete"}], "files": [entry]});
    let single = |value: &Value, valid: bool| json!({"tool": "get_repository_file", "valid": valid, "value": value});
    let many = |value: &Value, valid: bool| json!({"tool": "get_repository_files", "valid": valid, "value": batch(value)});
    vec![
        single(&read, true),
        single(&unchanged, true),
        single(&no_content, false),
        single(&no_window, false),
        many(&read, true),
        many(&unchanged, true),
        many(&error, true),
        many(&not_read, true),
        // What the single tool refuses, an entry refuses too.
        many(&no_content, false),
        many(&no_window, false),
        many(&bare, false),
        json!({"tool": "get_repository_files", "valid": false, "value": {"files": [read]}}),
    ]
}

/// The `node_modules` directory holding ajv, and whether it must be there.
fn ajv_dir() -> (PathBuf, bool) {
    match std::env::var_os("GITLAB_FILE_MCP_AJV") {
        Some(dir) => (PathBuf::from(dir), true),
        None => {
            let home = std::env::var_os("HOME").unwrap_or_default();
            (
                PathBuf::from(home).join(".cache/gitlab-file-mcp/npm/node_modules"),
                false,
            )
        }
    }
}

#[test]
fn ajv_in_strict_mode_compiles_both_tools_and_keeps_their_meaning() {
    let (dir, required) = ajv_dir();
    if !dir.join("ajv/package.json").exists() {
        assert!(
            !required,
            "GITLAB_FILE_MCP_AJV={} holds no ajv",
            dir.display()
        );
        eprintln!(
            "\n*** ajv is not installed in {}: only the Rust strict check ran (.ci/run installs \
             ajv: npm install --prefix ~/.cache/gitlab-file-mcp/npm ajv@8) ***\n",
            dir.display()
        );
        return;
    }
    let helper = format!(
        "{}/tests/it/support/ajv_strict.js",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut child = Command::new("node")
        .arg(helper)
        .env("NODE_PATH", &dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run node (ajv is installed, so node should be)");
    let input = json!({"tools": tools(), "samples": samples()});
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{said}");
    assert!(said.contains("3 tools, 12 samples, 0 failures"), "{said}");
}
