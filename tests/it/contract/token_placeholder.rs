//! A token setting the MCP client did not fill (issue 50): Claude Code passes
//! `"GITLAB_TOKEN": "${GITLAB_TOKEN}"` on as that text when the variable is unset, and a bundle
//! host passes `${user_config.gitlab_token}` when the optional field was left empty. The server
//! must then send no token at all (GitLab answers 401 to `Bearer ${GITLAB_TOKEN}`, even for a
//! public project) and say once on stderr what to fix in the client; and the bundle's launch
//! configuration must never leave such a placeholder for its host to pass on.

use serde_json::{Value, json};
use tokio::io::AsyncReadExt;
use wiremock::MockServer;

use crate::support::gitlab_mock::{graphql, json_response, project_answer, text_node};
use crate::support::mcp;

/// Reads `README.md` of a public project through a server started with `env`, and returns
/// the requests GitLab saw and the server's stderr.
async fn read_public_file(env: &[(&str, &str)]) -> (Vec<wiremock::Request>, String) {
    let gitlab = MockServer::start().await;
    graphql()
        .respond_with(json_response(project_answer(
            "grp/proj",
            42,
            vec![text_node("README.md", "hello\n")],
        )))
        .mount(&gitlab)
        .await;
    let mut env = env.to_vec();
    let uri = gitlab.uri();
    env.push(("GITLAB_URL", &uri));
    let (server, mut stderr) = mcp::spawn_with_stderr(&[], &env).await;
    let out = mcp::ok(
        &server
            .call(json!({"project_id": "grp/proj", "file_path": "README.md", "ref": "main"}))
            .await,
    );
    assert_eq!(out["content"], "hello\n", "{out}");
    server.stop().await;
    let mut logged = String::new();
    stderr.read_to_string(&mut logged).await.unwrap();
    (gitlab.received_requests().await.unwrap(), logged)
}

fn assert_no_token_sent(requests: &[wiremock::Request]) {
    assert!(!requests.is_empty());
    for r in requests {
        for name in ["authorization", "private-token"] {
            assert!(
                !r.headers.contains_key(name),
                "{name}: {:?}",
                r.headers.get(name)
            );
        }
    }
}

#[tokio::test]
async fn an_unexpanded_placeholder_sends_no_token_and_says_what_to_fix() {
    for placeholder in ["${GITLAB_TOKEN}", "$GITLAB_TOKEN", "%GITLAB_TOKEN%"] {
        let (requests, logged) = read_public_file(&[("GITLAB_TOKEN", placeholder)]).await;
        assert_no_token_sent(&requests);
        let warnings: Vec<&str> = logged.lines().filter(|l| l.contains(" WARN ")).collect();
        let [warning] = warnings.as_slice() else {
            panic!("{placeholder}: one warning expected in {logged}")
        };
        assert!(
            warning.contains(&format!("GITLAB_TOKEN is '{placeholder}', a placeholder")),
            "{warning}"
        );
        assert!(warning.contains("${GITLAB_TOKEN:-}"), "{warning}");
    }
}

#[tokio::test]
async fn an_empty_token_sends_none_and_says_so() {
    let (requests, logged) = read_public_file(&[("GITLAB_TOKEN", "")]).await;
    assert_no_token_sent(&requests);
    assert!(
        logged.contains("GITLAB_TOKEN is set but empty, so no token is sent"),
        "{logged}"
    );
}

/// The bundle's manifest as `scripts/dist/bundle.py` writes it.
fn bundle_manifest() -> Value {
    let root = env!("CARGO_MANIFEST_DIR");
    let script = "import json, sys; sys.path.insert(0, 'scripts/dist'); import bundle; \
                  print(json.dumps(bundle.manifest('0.1.0', 'x86_64-unknown-linux-gnu', \
                  'https://example.com/r', [])))";
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .current_dir(root)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the manifest is JSON")
}

/// The environment a bundle host starts the server with: each `${user_config.KEY}` replaced by
/// what the user typed, else by the field's `default`; a field with neither is left as the
/// placeholder itself, as Claude Desktop does.
fn launch_env(manifest: &Value, typed: &[(&str, &str)]) -> Vec<(String, String)> {
    let fields = &manifest["user_config"];
    let env = manifest["server"]["mcp_config"]["env"].as_object().unwrap();
    env.iter()
        .map(|(name, value)| {
            let mut value = value.as_str().unwrap().to_string();
            for (key, field) in fields.as_object().unwrap() {
                let placeholder = format!("${{user_config.{key}}}");
                let filled = typed
                    .iter()
                    .find(|(k, _)| k == key)
                    .map(|(_, v)| v.to_string())
                    .or_else(|| field["default"].as_str().map(str::to_string));
                if let Some(filled) = filled {
                    value = value.replace(&placeholder, &filled);
                }
            }
            (name.clone(), value)
        })
        .collect()
}

#[tokio::test]
async fn the_bundle_never_passes_an_unfilled_token_field() {
    let manifest = bundle_manifest();
    // Every optional field has a default, so a host fills it even when the user did not.
    for (key, field) in manifest["user_config"].as_object().unwrap() {
        if field["required"] != true {
            assert!(field.get("default").is_some(), "{key} has no default");
        }
    }
    let launch = launch_env(&manifest, &[("gitlab_url", "http://unused.example")]);
    for (name, value) in &launch {
        assert!(!value.contains("${"), "{name}={value}");
    }
    let token = launch.iter().find(|(name, _)| name == "GITLAB_TOKEN");
    let (_, token) = token.expect("the bundle passes GITLAB_TOKEN");
    let (requests, logged) = read_public_file(&[("GITLAB_TOKEN", token)]).await;
    assert_no_token_sent(&requests);
    assert!(!logged.contains("placeholder"), "{logged}");
}
