//! The published tool definition (`tools/list`) is a contract: this test fails on any change
//! to it until `tests/snapshots/tools_list.json` is updated on purpose
//! (`UPDATE_SNAPSHOTS=1 cargo test --test it contract::tools_list::`).

use crate::support::mcp;

use serde_json::Value;

#[tokio::test]
async fn tools_list_matches_the_snapshot() {
    let server = mcp::spawn(&[], &[("GITLAB_URL", "http://127.0.0.1:9")]).await;
    let tools = server.list_tools().await;
    server.stop().await;
    let actual = serde_json::to_value(&tools).unwrap();
    let path = format!(
        "{}/tests/snapshots/tools_list.json",
        env!("CARGO_MANIFEST_DIR")
    );
    // Keys sorted, so an update's diff shows only what changed.
    let pretty = serde_json::to_string_pretty(&sorted(&actual)).unwrap() + "\n";
    if std::env::var("UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &pretty).unwrap();
    }
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{path}: {e} (run with UPDATE_SNAPSHOTS=1 to create it)")),
    )
    .unwrap();
    assert_eq!(
        actual, expected,
        "tools/list changed; if on purpose, run UPDATE_SNAPSHOTS=1 cargo test --test it contract::tools_list:: and commit the snapshot"
    );
}

/// `value` with every object's keys in sorted order.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

#[tokio::test]
async fn the_tool_is_read_only_and_strict() {
    let server = mcp::spawn(&[], &[("GITLAB_URL", "http://127.0.0.1:9")]).await;
    let tools = server.list_tools().await;
    server.stop().await;
    assert_eq!(tools.len(), 3);
    let tool = serde_json::to_value(&tools[0]).unwrap();
    assert_eq!(tool["name"], "get_repository_file");
    assert_eq!(tool["annotations"]["readOnlyHint"], true);
    assert_eq!(tool["annotations"]["openWorldHint"], true);
    assert_eq!(tool["inputSchema"]["additionalProperties"], false);
    assert!(tool["inputSchema"].get("required").is_none());
    // `limit` caps a window at 2,000 lines, not a search: the schema declares no maximum,
    // the description names the window's.
    let limit = &tool["inputSchema"]["properties"]["limit"];
    assert!(limit.get("maximum").is_none(), "{limit}");
    assert!(
        limit["description"]
            .as_str()
            .unwrap()
            .contains("maximum 2000. With pattern: the lines searched, any number.")
    );
    assert!(tool["outputSchema"]["properties"]["metadata"].is_object());
    let batch = serde_json::to_value(&tools[1]).unwrap();
    assert_eq!(batch["name"], "get_repository_files");
    assert_eq!(batch["annotations"]["readOnlyHint"], true);
    assert_eq!(batch["inputSchema"]["additionalProperties"], false);
    assert_eq!(
        batch["inputSchema"]["required"],
        serde_json::json!(["files"])
    );
    let files = &batch["inputSchema"]["properties"]["files"];
    assert_eq!(files["maxItems"], 20);
    assert_eq!(files["items"]["additionalProperties"], false);
    // An entry takes the single tool's per-file arguments, with the same schemas but for their
    // descriptions (the single tool's, which `files` refers to); the budget and numbering are
    // the call's.
    let entry = files["items"]["properties"].as_object().unwrap();
    for (name, schema) in tool["inputSchema"]["properties"].as_object().unwrap() {
        let mut schema = schema.clone();
        schema.as_object_mut().unwrap().remove("description");
        match name.as_str() {
            "max_chars" | "line_numbers" => assert!(!entry.contains_key(name), "{name}"),
            _ => assert_eq!(entry[name], schema, "{name}"),
        }
    }
    let find = serde_json::to_value(&tools[2]).unwrap();
    assert_eq!(find["name"], "search_repository");
    assert_eq!(find["annotations"]["readOnlyHint"], true);
    assert_eq!(find["inputSchema"]["additionalProperties"], false);
    assert!(
        batch["outputSchema"]["properties"]["files"]["items"]["properties"]["error"].is_object()
    );
}

/// `_meta["anthropic/maxResultSizeChars"]` of the tool a server started with `args` and `env`
/// publishes, and its max_chars description.
async fn declared(args: &[&str], env: &[(&str, &str)]) -> (Value, String) {
    let mut env = env.to_vec();
    env.push(("GITLAB_URL", "http://127.0.0.1:9"));
    let server = mcp::spawn(args, &env).await;
    let tools = server.list_tools().await;
    server.stop().await;
    let tool = serde_json::to_value(&tools[0]).unwrap();
    // Both tools declare the same ceiling: the batch's one budget bounds its whole answer.
    let batch = serde_json::to_value(&tools[1]).unwrap();
    assert_eq!(
        batch["_meta"]["anthropic/maxResultSizeChars"],
        tool["_meta"]["anthropic/maxResultSizeChars"]
    );
    let description = tool["inputSchema"]["properties"]["max_chars"]["description"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    (
        tool["_meta"]["anthropic/maxResultSizeChars"].clone(),
        description,
    )
}

#[tokio::test]
async fn the_declared_ceiling_follows_the_default_budget() {
    // 2 × the default budget + 80,000 of envelope, at most 500,000.
    let (n, d) = declared(&[], &[]).await;
    assert_eq!(n, 280_000);
    assert!(d.ends_with("Default 100000."), "{d}");
    let (n, d) = declared(&["serve", "--max-chars", "30000"], &[]).await;
    assert_eq!(n, 140_000);
    assert!(d.ends_with("Default 30000."), "{d}");
    let (n, _) = declared(&[], &[("GITLAB_FILE_MCP_MAX_CHARS", "400000")]).await;
    assert_eq!(n, 500_000);
    let (n, d) = declared(&["--max-chars", "0"], &[]).await;
    assert_eq!(n, 500_000);
    assert!(d.ends_with("Default 0 (no budget)."), "{d}");
}

#[tokio::test]
async fn the_output_schema_lists_the_keys_in_the_order_they_are_sent() {
    let server = mcp::spawn(&[], &[("GITLAB_URL", "http://127.0.0.1:9")]).await;
    let tools = server.list_tools().await;
    server.stop().await;
    let schema = serde_json::to_value(&tools[0]).unwrap()["outputSchema"].clone();
    assert_eq!(mcp::keys(&schema["properties"]), mcp::OUTPUT_KEYS);
    assert_eq!(
        mcp::keys(&schema["properties"]["metadata"]["properties"]),
        mcp::METADATA_KEYS
    );
}

/// What the server's instructions must tell an agent (issue 18).
fn assert_instructions(instructions: Option<String>) {
    let text = instructions.expect("the server sends instructions");
    for needle in [
        "URL",
        "project_id + file_path + ref",
        "system_instruction",
        "pattern",
        "if_none_match",
        "web_url",
    ] {
        assert!(text.contains(needle), "{needle} missing from {text}");
    }
    assert!(text.lines().count() <= 8, "a few lines: {text}");
}

#[tokio::test]
async fn the_server_sends_instructions_at_initialization_and_in_discover() {
    let env = [("GITLAB_URL", "http://127.0.0.1:9")];
    let server = mcp::spawn(&[], &env).await;
    assert_instructions(server.instructions());
    server.stop().await;
    let server = mcp::spawn_discovering(&[], &env).await;
    assert_instructions(server.instructions());
    // The discovered session works like any other.
    assert_eq!(server.list_tools().await.len(), 3);
    server.stop().await;
}
