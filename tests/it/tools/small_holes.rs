//! The smaller holes of issue 26, over MCP against the real binary and a wiremock GitLab:
//! a batch entry quotes at most 100 characters of a bad `file_path`/`ref`; `if_none_match` is
//! a blob id's shape or a bad argument; a search covers more than 2,000 lines; integers are
//! strict; `web_url` only for a plain permalink of the project read; GraphQL text with a NUL
//! in its first 8,000 bytes is read over REST and hashed instead.

use crate::support::gitlab_mock;
use crate::support::mcp;

use gitlab_mock::*;
use mcp::{err, ok, spawn_gitlab};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// A GitLab whose `grp/proj` (id 7) answers every blob query with `nodes`.
async fn gitlab_with(nodes: Vec<Value>) -> MockServer {
    let server = MockServer::start().await;
    graphql()
        .respond_with(json_response(project_answer("grp/proj", 7, nodes)))
        .mount(&server)
        .await;
    server
}

fn read(extra: Value) -> Value {
    let mut a = json!({"project_id": "grp/proj", "file_path": "a.txt", "ref": "main"});
    for (k, v) in extra.as_object().expect("an object") {
        a[k] = v.clone();
    }
    a
}

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[tokio::test]
async fn a_batch_entry_quotes_a_bad_path_or_ref_briefly() {
    let gitlab = gitlab_with(vec![text_node("a.txt", "a\n")]).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let bad = "\u{1}".repeat(300_000);
    let result = server
        .call_many(json!({"project_id": "grp/proj", "ref": "main", "files": [
            {"file_path": bad},
            {"file_path": "a.txt", "ref": bad},
            {"file_path": "a.txt"}
        ]}))
        .await;
    let answer = ok(&result);
    let files = answer["files"].as_array().unwrap();
    let quoted = format!("{}…", "\\u{1}".repeat(20));
    assert_eq!(files[0]["path"], quoted.as_str());
    assert!(
        files[0]["error"]
            .as_str()
            .unwrap()
            .contains("'file_path' is 300000 bytes long")
    );
    assert_eq!(files[1]["path"], "a.txt");
    assert_eq!(files[1]["ref"], quoted.as_str());
    assert_eq!(files[2]["content"], "a\n");
    let size: usize = result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.len())
        .sum();
    assert!(size < 4_000, "{size} bytes of answer");
    server.stop().await;
}

#[tokio::test]
async fn if_none_match_is_a_blob_id_as_sent() {
    let gitlab = gitlab_with(vec![text_node("a.txt", "a\n")]).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let held = git_blob_id(b"a\n");
    let out = ok(&server.call(read(json!({"if_none_match": held}))).await);
    assert_eq!(out["metadata"]["unchanged"], true);
    for sent in [
        format!(" {held}\n"),
        format!("{held} "),
        held[..39].to_string(),
        "nope".into(),
    ] {
        let e = err(&server.call(read(json!({"if_none_match": sent}))).await);
        assert!(
            e.starts_with(
                "Argument 'if_none_match' must be a blob id, 40 or 64 hexadecimal digits"
            ),
            "{e}"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn a_search_covers_more_than_a_windows_lines_and_integers_are_strict() {
    let file = numbered(30_000);
    let gitlab = gitlab_with(vec![text_node("a.txt", &file)]).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let out = ok(&server
        .call(read(json!({"pattern": "^line 2[05]000$", "offset": 100, "limit": 20000, "context_lines": 0})))
        .await);
    assert_eq!(out["metadata"]["matches"]["lines"], json!([20000]));
    assert_eq!(out["metadata"]["matches"]["total"], 1);
    // A window still stops at 2,000 lines.
    let e = err(&server
        .call(read(json!({"offset": 100, "limit": 20000})))
        .await);
    assert!(e.contains("between 1 and 2000, got 20000"), "{e}");
    // Strings of digits, and nothing else: no spaces.
    for sent in [" 3", "3 ", "3\n"] {
        let e = err(&server
            .call(read(json!({"pattern": "x", "context_lines": sent})))
            .await);
        assert!(
            e.starts_with("Argument 'context_lines' must be an integer"),
            "{e}"
        );
    }
    let out = ok(&server
        .call(read(json!({"pattern": "^line 3$", "context_lines": "1"})))
        .await);
    assert_eq!(out["content"], "2-line 2\n3:line 3\n4-line 4\n");
    server.stop().await;
}

/// `a.txt` answered with `permalink` as its `permalinkPath`.
fn permalinked(permalink: &str) -> Value {
    let mut node = text_node("a.txt", "a\n");
    node["permalinkPath"] = json!(permalink);
    node
}

#[tokio::test]
async fn web_url_only_for_a_plain_permalink_of_the_project_read() {
    let cited = format!("/GRP/Proj/-/blob/{COMMIT}/a.txt");
    let refused = [
        format!("/other/proj/-/blob/{COMMIT}/a.txt"),
        format!("/evil/grp/proj/-/blob/{COMMIT}/a.txt"),
        format!("/grp/proj/-/blob/{COMMIT}/a.txt?inline=false"),
        format!("/grp/proj/-/blob/{COMMIT}/a.txt#L1"),
    ];
    let gitlab = gitlab_with(vec![permalinked(&cited)]).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let out = ok(&server.call(read(json!({}))).await);
    let url = out["metadata"]["web_url"].as_str().unwrap();
    assert_eq!(url, format!("{}{cited}#L1", gitlab.uri()));
    server.stop().await;
    for permalink in refused {
        let gitlab = gitlab_with(vec![permalinked(&permalink)]).await;
        let server = spawn_gitlab(&gitlab.uri(), None).await;
        let out = ok(&server.call(read(json!({}))).await);
        assert_eq!(out["content"], "a\n");
        assert!(
            out["metadata"].get("web_url").is_none(),
            "{permalink}: {out}"
        );
        // The commit came from the same path: not cited either.
        assert!(
            out["metadata"].get("commit_sha").is_none(),
            "{permalink}: {out}"
        );
        server.stop().await;
    }
}

#[tokio::test]
async fn graphql_text_with_a_nul_first_is_read_over_rest_and_hashed() {
    // GraphQL's text has the blob's length but a NUL first: not what GitLab sends. The bytes
    // REST serves for the blob's id hash to it, and they hold the NUL: a binary file.
    let bytes = b"\0abc".to_vec();
    let oid = git_blob_id(&bytes);
    let mut node = text_node("a.txt", "\0abc");
    node["oid"] = json!(oid);
    let gitlab = gitlab_with(vec![node]).await;
    Mock::given(method("GET"))
        .and(path(format!(
            "/api/v4/projects/7/repository/blobs/{oid}/raw"
        )))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(bytes))
        .expect(1)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let e = err(&server.call(read(json!({}))).await);
    assert!(e.starts_with("File 'a.txt' is binary"), "{e}");
    server.stop().await;
    gitlab.verify().await;
}
