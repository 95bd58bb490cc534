//! `get_repository_file` end to end over stdio: the real binary, rmcp's MCP client, and a
//! wiremock GitLab answering like GitLab's GraphQL API. Covers windowing and metadata, every
//! error case, Duo exclusion, retries, and the one-request rule (`expect(n)`).

use crate::support::gitlab::Gitlab;
use crate::support::gitlab_mock;
use crate::support::mcp;

use gitlab_mock::*;
use mcp::{err, ok, spawn, spawn_gitlab, text};
use serde_json::{Value, json};
use wiremock::matchers::header;
use wiremock::{MockServer, ResponseTemplate};

const TOKEN: &str = "glpat-TESTSECRET0123456789";

fn sample(name: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/samples/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    match std::fs::read_to_string(&path) {
        Ok(s) => {
            let mut response =
                serde_json::from_str::<Value>(&s).expect("sample is JSON")["response"].clone();
            // The samples answer GitLab's own query, which does not ask for `fullPath`; ours
            // does, and GitLab then includes it.
            if let Some(project) = response
                .pointer_mut("/data/project")
                .filter(|p| p.is_object())
            {
                project["fullPath"] = json!("grp/sub/proj");
            }
            response
        }
        Err(e) => panic!("missing sample {path}: {e}"),
    }
}

fn args(path: &str) -> Value {
    json!({"project_id": "grp/sub/proj", "file_path": path, "ref": "main"})
}

async fn gitlab_with(answer: Value, expect: u64) -> MockServer {
    let server = MockServer::start().await;
    graphql()
        .respond_with(json_response(answer))
        .expect(expect)
        .mount(&server)
        .await;
    server
}

#[tokio::test]
async fn text_file_byte_for_byte_in_one_request() {
    let gitlab = MockServer::start().await;
    graphql()
        .and(Variables(
            json!({"projectPath": "grp/sub/proj", "ref": "main", "paths": ["crlf.txt"]}),
        ))
        .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
        .respond_with(json_response(sample("text-file.json")))
        .expect(1)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), Some(TOKEN)).await;
    let out = ok(&server.call(args("crlf.txt")).await);
    assert_eq!(
        out,
        json!({
            "path": "crlf.txt",
            "ref": "main",
            "metadata": {"total_lines": 4, "returned_lines": {"start": 1, "end": 4}, "truncated": false, "size_bytes": 17,
                         "blob_id": "7795c8ccea29e07ee1af55595d1608ae7d9d2155",
                         "commit_sha": COMMIT,
                         "web_url": format!("{}/grp/sub/proj/-/blob/{COMMIT}/crlf.txt#L1-4", gitlab.uri())},
            "content": "alpha\r\nbeta\r\n\r\n\r\n"
        })
    );
    server.stop().await;
}

#[tokio::test]
async fn windows_follow_the_hint_and_rebuild_the_file() {
    let content: String = (1..=1234)
        .map(|i| format!("line {i}\r\n"))
        .collect::<String>()
        + "tail";
    let gitlab = gitlab_with(
        project_answer("grp/sub/proj", 42, vec![text_node("big.txt", &content)]),
        4,
    )
    .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let mut rebuilt = String::new();
    let mut call =
        json!({"project_id": "grp/sub/proj", "file_path": "big.txt", "ref": "main", "limit": 400});
    let mut calls = 0;
    loop {
        let out = ok(&server.call(call.clone()).await);
        calls += 1;
        rebuilt.push_str(out["content"].as_str().unwrap());
        assert_eq!(out["metadata"]["total_lines"], 1235);
        let Some(hint) = out["system_instruction"].as_str() else {
            assert_eq!(out["metadata"]["returned_lines"]["end"], 1235);
            break;
        };
        // "… call again with {"offset": N, "limit": L}."
        let start = hint.find('{').unwrap();
        let end = hint.rfind('}').unwrap();
        let next: Value = serde_json::from_str(&hint[start..=end]).unwrap();
        assert!(out["metadata"]["truncated"].as_bool().unwrap());
        call["offset"] = next["offset"].clone();
        call["limit"] = next["limit"].clone();
    }
    assert_eq!(calls, 4);
    assert_eq!(rebuilt, content);
    server.stop().await;
}

#[tokio::test]
async fn offset_past_end_and_empty_file() {
    let gitlab = MockServer::start().await;
    graphql()
        .and(Variables(json!({"paths": ["a.txt"]})))
        .respond_with(json_response(project_answer(
            "grp/sub/proj",
            42,
            vec![text_node("a.txt", "a\nb\n")],
        )))
        .mount(&gitlab)
        .await;
    graphql()
        .and(Variables(json!({"paths": ["empty.txt"]})))
        .respond_with(json_response(sample("empty-file.json")))
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let mut a = args("a.txt");
    a["offset"] = json!(2);
    let out = ok(&server.call(a).await);
    assert_eq!(out["content"], "");
    assert_eq!(out["metadata"]["returned_lines"], Value::Null);
    assert_eq!(
        out["system_instruction"],
        "Offset 2 is past the end of the file (2 lines). Call again with an offset below 2."
    );
    let out = ok(&server.call(args("empty.txt")).await);
    assert_eq!(
        out["metadata"],
        json!({"total_lines": 0, "returned_lines": null, "truncated": false, "size_bytes": 0,
               "blob_id": "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
               "commit_sha": COMMIT,
               // An empty window: the permalink has no line anchor.
               "web_url": format!("{}/grp/sub/proj/-/blob/{COMMIT}/empty.txt", gitlab.uri())})
    );
    assert!(out.get("system_instruction").is_none());
    server.stop().await;
}

#[tokio::test]
async fn start_and_end_lines_clamp_and_invert() {
    let content: String = (1..=10).map(|i| format!("{i}\n")).collect();
    let gitlab = gitlab_with(
        project_answer("grp/sub/proj", 42, vec![text_node("n.txt", &content)]),
        3,
    )
    .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let mut a = args("n.txt");
    a["start_line"] = json!(8);
    a["end_line"] = json!(99);
    let out = ok(&server.call(a).await);
    assert_eq!(out["content"], "8\n9\n10\n");
    assert_eq!(
        out["metadata"]["returned_lines"],
        json!({"start": 8, "end": 10})
    );
    let mut a = args("n.txt");
    a["start_line"] = json!(2);
    a["end_line"] = json!(3);
    let out = ok(&server.call(a).await);
    assert!(
        out["system_instruction"]
            .as_str()
            .unwrap()
            .contains("{\"start_line\": 4, \"end_line\": 5}")
    );
    let mut a = args("n.txt");
    a["start_line"] = json!(7);
    a["end_line"] = json!(4);
    let e = err(&server.call(a).await);
    assert!(e.contains('7') && e.contains('4'), "{e}");
    server.stop().await;
}

/// `start_line` past the last line answers as `offset` past the end does, in its own words,
/// for a window, a search and an outline (issue 34: it returned line 3 marked truncated, with
/// no hint).
#[tokio::test]
async fn start_line_past_the_end_names_the_line_count() {
    let gitlab = MockServer::start().await;
    graphql()
        .respond_with(json_response(project_answer(
            "grp/sub/proj",
            42,
            vec![text_node("a.rs", "fn a() {}\nfn b() {}\nfn c() {}\n")],
        )))
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let past = "Start line 7 is past the end of the file (3 lines)";
    let at_most = "Call again with a start_line of at most 3.";
    for (extra, what) in [
        (json!({}), ""),
        (json!({"end_line": 9}), ""),
        (json!({"pattern": "fn"}), ": no line was searched"),
        (json!({"outline": true}), ": no line was listed"),
    ] {
        let mut a = args("a.rs");
        a["start_line"] = json!(7);
        for (k, v) in extra.as_object().unwrap() {
            a[k] = v.clone();
        }
        let out = ok(&server.call(a).await);
        assert_eq!(out["content"], "", "{extra}");
        assert_eq!(out["metadata"]["returned_lines"], Value::Null, "{extra}");
        assert_eq!(
            out["system_instruction"],
            format!("{past}{what}. {at_most}"),
            "{extra}"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn byte_cap_drops_lines_and_cuts_a_giant_line_at_a_char_boundary() {
    let line = "x".repeat(400_000) + "\n";
    let three = line.repeat(3);
    // One 2 MiB line of 3-byte characters: the cut must not split one.
    let giant = "€".repeat(700_000) + "\nnext\n";
    let gitlab = MockServer::start().await;
    graphql()
        .and(Variables(json!({"paths": ["three.txt"]})))
        .respond_with(json_response(project_answer(
            "grp/sub/proj",
            42,
            vec![text_node("three.txt", &three)],
        )))
        .mount(&gitlab)
        .await;
    graphql()
        .and(Variables(json!({"paths": ["giant.txt"]})))
        .respond_with(json_response(project_answer(
            "grp/sub/proj",
            42,
            vec![text_node("giant.txt", &giant)],
        )))
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    // Without the character budget, a window is what fits in one message (issue 27: at most
    // 1,000,000 bytes, the content sent twice), below GitLab's 1 MiB byte cap (whose cuts the
    // window's unit tests pin).
    let no_budget = |path: &str| {
        let mut a = args(path);
        a["max_chars"] = json!(0);
        a
    };
    let out = ok(&server.call(no_budget("three.txt")).await);
    assert_eq!(
        out["metadata"]["returned_lines"],
        json!({"start": 1, "end": 1})
    );
    assert_eq!(out["content"].as_str().unwrap().len(), 400_001);
    let hint = out["system_instruction"].as_str().unwrap();
    assert!(
        hint.contains("{\"offset\": 1, \"limit\": 500, \"max_chars\": 0}")
            && hint.contains("shortened to stay within what fits in one message (1000000 bytes"),
        "{hint}"
    );
    let out = ok(&server.call(no_budget("giant.txt")).await);
    let content = out["content"].as_str().unwrap();
    assert!(
        content.len() < 1_000_000 / 2 && content.len() > 400_000,
        "{}",
        content.len()
    );
    assert!(content.chars().all(|c| c == '€'));
    assert_eq!(
        out["metadata"]["returned_lines"],
        json!({"start": 1, "end": 1})
    );
    assert!(out["metadata"]["truncated"].as_bool().unwrap());
    let hint = out["system_instruction"].as_str().unwrap();
    assert!(
        hint.contains("Line 1 (700001 characters) was cut at column 162978 to stay within what fits in one message")
            && !hint.contains("not retrievable")
            && hint.contains("{\"offset\": 0, \"limit\": 500, \"column\": 162978, \"max_chars\": 0}"),
        "{hint}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_blob_cut_by_the_read_limit_is_flagged() {
    // GraphQL sent only the first part of a 20 MiB file, cut where GitLab cuts (10 MiB); a
    // window inside that part is served from it, flagged. (A window reaching past it, or a
    // part not cut where GitLab cuts, reads the blob over REST: tests/it/gitlab/paging.rs.)
    let part = "a\n".repeat(5 * 1024 * 1024);
    let mut node = text_node("huge.log", &part);
    node["rawSize"] = json!("20971520");
    node["size"] = json!("20971520");
    let gitlab = gitlab_with(project_answer("grp/sub/proj", 42, vec![node]), 1).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let mut a = args("huge.log");
    a["limit"] = json!(1);
    let out = ok(&server.call(a).await);
    assert_eq!(out["metadata"]["truncated"], true);
    assert_eq!(out["metadata"]["size_bytes"], 20_971_520);
    assert!(
        out["system_instruction"]
            .as_str()
            .unwrap()
            .contains("larger than the read limit")
    );
    server.stop().await;
}

#[tokio::test]
async fn binary_and_lfs_files_are_refused_without_leaking_the_pointer() {
    let gitlab = MockServer::start().await;
    graphql()
        .and(Variables(json!({"paths": ["files/images/logo.png"]})))
        .respond_with(json_response(sample("binary-file.json")))
        .expect(1)
        .mount(&gitlab)
        .await;
    graphql()
        .and(Variables(json!({"paths": ["files/lfs/lfs_object.iso"]})))
        .respond_with(json_response(sample("lfs-file.json")))
        .expect(1)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let e = err(&server.call(args("files/images/logo.png")).await);
    assert_eq!(
        e,
        "File 'files/images/logo.png' is binary and cannot be returned as text. Size: 4008 bytes."
    );
    let result = server.call(args("files/lfs/lfs_object.iso")).await;
    let e = err(&result);
    assert_eq!(
        e,
        "File 'files/lfs/lfs_object.iso' is stored in LFS (lfs) and its content cannot be read with this tool. Size: 1575078 bytes."
    );
    let everything = serde_json::to_string(&result).unwrap();
    assert!(!everything.contains("git-lfs.github.com") && !everything.contains("sha256:"));
    server.stop().await;
}

#[tokio::test]
async fn missing_ref_missing_file_and_directory_take_one_more_request() {
    let gitlab = MockServer::start().await;
    graphql()
        .and(QueryContains("blobs(ref:"))
        .respond_with(json_response(sample("missing-path-or-ref.json")))
        .expect(3)
        .mount(&gitlab)
        .await;
    for (r, commit, dir) in [("no-such-ref", false, false), ("main", true, false)] {
        graphql()
            .and(QueryContains("query MissProbe"))
            .and(Variables(json!({"ref": r, "path": "README.md"})))
            .respond_with(json_response(ref_check_answer(commit, dir)))
            .expect(1)
            .mount(&gitlab)
            .await;
    }
    graphql()
        .and(QueryContains("query MissProbe"))
        .and(Variables(json!({"ref": "main", "path": "src"})))
        .respond_with(json_response(ref_check_answer(true, true)))
        .expect(1)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let mut a = args("README.md");
    a["ref"] = json!("no-such-ref");
    assert_eq!(
        err(&server.call(a).await),
        "Ref 'no-such-ref' not found. Provide an existing branch name, tag name, or commit SHA, or use HEAD for the default branch."
    );
    let e = err(&server.call(args("README.md")).await);
    assert!(
        e.starts_with("File 'README.md' does not exist at ref 'main'.")
            && e.contains("Do not retry"),
        "{e}"
    );
    let e = err(&server.call(args("src")).await);
    assert!(e.contains("'src' is a directory at ref 'main'"), "{e}");
    server.stop().await;
}

#[tokio::test]
async fn older_gitlab_without_repository_commit_answers_a_miss_in_two_requests() {
    // The miss probe asks `tree { lastCommit }`, which every GitLab has, never
    // `Repository.commit`, which older ones lack: no request is spent finding that out.
    let gitlab = MockServer::start().await;
    graphql()
        .and(QueryContains("blobs(ref:"))
        .respond_with(json_response(sample("missing-path-or-ref.json")))
        .expect(2)
        .mount(&gitlab)
        .await;
    graphql()
        .and(QueryContains("commit(ref:"))
        .respond_with(json_response(undefined_field("commit", "Repository")))
        .expect(0)
        .mount(&gitlab)
        .await;
    graphql()
        .and(QueryContains("lastCommit"))
        .respond_with(json_response(ref_check_answer(false, false)))
        .expect(2)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    for _ in 0..2 {
        let mut a = args("README.md");
        a["ref"] = json!("gone");
        assert!(err(&server.call(a).await).starts_with("Ref 'gone' not found."));
    }
    server.stop().await;
}

#[tokio::test]
async fn missing_and_inaccessible_projects_read_the_same() {
    let gitlab = gitlab_with(sample("project-missing-or-inaccessible.json"), 3).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let mut a = args("README.md");
    a["project_id"] = json!("other/secret");
    let secret = err(&server.call(a).await);
    let mut a = args("README.md");
    a["project_id"] = json!("no/such");
    let missing = err(&server.call(a).await);
    assert_eq!(
        secret.replace("other/secret", "X"),
        missing.replace("no/such", "X")
    );
    assert!(
        secret.starts_with(
            "Project 'other/secret' not found or inaccessible, and no GitLab token was used"
        ),
        "{secret}"
    );
    assert!(secret.contains("Set GITLAB_TOKEN"), "{secret}");
    server.stop().await;
    // With a token, the sentence asks whether the token can read the project instead.
    let server = spawn_gitlab(&gitlab.uri(), Some("glpat-TEST-tttttttttttttttttt")).await;
    let mut a = args("README.md");
    a["project_id"] = json!("other/secret");
    let secret = err(&server.call(a).await);
    assert_eq!(
        secret,
        "Project 'other/secret' not found or inaccessible. Check the project's full path or numeric id, and that the token can read it."
    );
    server.stop().await;
}

#[tokio::test]
async fn numeric_project_ids_use_projects_ids_in_the_same_single_request() {
    let gitlab = MockServer::start().await;
    graphql()
        .and(Variables(
            json!({"ids": ["gid://gitlab/Project/42"], "ref": "main", "paths": ["README.md"]}),
        ))
        .and(QueryContains("projects(ids:"))
        .respond_with(json_response(sample("by-numeric-id.json")))
        .expect(3)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    for id in [json!("42"), json!("0042")] {
        let out = ok(&server
            .call(json!({"project_id": id, "file_path": "README.md", "ref": "main"}))
            .await);
        assert_eq!(out["content"], "# Project\n\nHello.\n");
    }
    let out = ok(&server
        .call(json!({"project_id": 42, "file_path": "README.md", "ref": "main"}))
        .await);
    assert_eq!(out["metadata"]["size_bytes"], 18);
    server.stop().await;
}

#[tokio::test]
async fn numeric_id_of_a_missing_project() {
    let gitlab = gitlab_with(json!({"data": {"projects": {"nodes": []}}}), 1).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let e = err(&server
        .call(json!({"project_id": "7", "file_path": "a", "ref": "main"}))
        .await);
    assert!(
        e.starts_with("Project '7' not found or inaccessible, and no GitLab token was used"),
        "{e}"
    );
    server.stop().await;
}

#[tokio::test]
async fn duo_exclusion_rules_are_applied_inside_the_one_request() {
    let gitlab = MockServer::start().await;
    let rules = json!(["*.md", "!README.md", "secrets/*"]);
    for path in ["notes.md", "README.md", "secrets/.env"] {
        graphql()
            .and(QueryContains("duoContextExclusionSettings"))
            .and(Variables(json!({"paths": [path]})))
            .respond_with(json_response(project_answer_with_rules(
                "grp/sub/proj",
                42,
                vec![text_node(path, "x\n")],
                rules.clone(),
            )))
            .expect(1)
            .mount(&gitlab)
            .await;
    }
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    assert_eq!(
        err(&server.call(args("notes.md")).await),
        "File 'notes.md' is excluded from AI context by this project's settings and cannot be read."
    );
    assert_eq!(ok(&server.call(args("README.md")).await)["content"], "x\n");
    assert!(err(&server.call(args("secrets/.env")).await).contains("excluded"));
    server.stop().await;
}

#[tokio::test]
async fn instances_without_exclusion_settings_are_detected_once() {
    let gitlab = MockServer::start().await;
    graphql()
        .and(QueryContains("duoContextExclusionSettings"))
        .respond_with(json_response(undefined_field(
            "duoContextExclusionSettings",
            "Project",
        )))
        .expect(1)
        .mount(&gitlab)
        .await;
    graphql()
        .and(QueryLacks("duoContextExclusionSettings"))
        .respond_with(json_response(project_answer(
            "grp/sub/proj",
            42,
            vec![text_node("a.md", "hi\n")],
        )))
        .expect(3)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    for _ in 0..3 {
        assert_eq!(ok(&server.call(args("a.md")).await)["content"], "hi\n");
    }
    server.stop().await;
}

#[tokio::test]
async fn graphql_errors_are_passed_through() {
    let gitlab = gitlab_with(sample("invalid-ref.json"), 1).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let mut a = args("README.md");
    a["ref"] = json!("a..b");
    let e = err(&server.call(a).await);
    assert!(
        e.starts_with("Ref 'a..b' is not valid (Ref is not valid)"),
        "{e}"
    );
    let gitlab = gitlab_with(json!({"errors": [{"message": "Query has complexity of 300, which exceeds max complexity of 250"}]}), 1).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let e = err(&server.call(args("README.md")).await);
    assert!(e.contains("exceeds max complexity of 250"), "{e}");
    server.stop().await;
}

#[tokio::test]
async fn argument_errors_are_explained_without_any_request() {
    let gitlab = MockServer::start().await;
    graphql()
        .respond_with(json_response(json!({})))
        .expect(0)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let cases = [
        (
            json!({}),
            "Provide either url, or project_id, file_path, and ref",
        ),
        (
            json!({"project_id": "g/p", "ref": "main"}),
            "file_path is missing",
        ),
        (
            json!({"file_path": "a", "ref": "main"}),
            "project_id is missing",
        ),
        (
            json!({"project_id": "g/p", "file_path": "a"}),
            "ref is missing",
        ),
        (
            json!({"project_id": "g/p", "file_path": " ", "ref": "main"}),
            "file_path must not be empty",
        ),
        (
            json!({"project_id": "g/p", "file_path": "src/", "ref": "main"}),
            "not a directory: 'src/'",
        ),
        (
            json!({"project_id": "g/p", "file_path": "../etc/passwd", "ref": "main"}),
            "path traversal",
        ),
        (
            json!({"project_id": "g/p", "file_path": "a\u{0}b", "ref": "main"}),
            "control characters",
        ),
        (
            json!({"project_id": "g/p", "file_path": "a", "ref": "main", "limit": 2001}),
            "'limit' must be between 1 and 2000, got 2001",
        ),
        (
            json!({"project_id": "g/p", "file_path": "a", "ref": "main", "offset": -1}),
            "'offset' must be at least 0, got -1",
        ),
        (
            json!({"project_id": "g/p", "file_path": "a", "ref": "main", "branch": "x"}),
            "Unknown argument 'branch'",
        ),
        (
            json!({"project_id": "g/p", "file_path": "a", "ref": "main", "offset": 1, "end_line": 3}),
            "not both",
        ),
        (
            json!({"project_id": "g/p", "file_path": "a", "ref": "ma\nin"}),
            "control characters",
        ),
        (
            json!({"project_id": true, "file_path": "a", "ref": "main"}),
            "'project_id' must be",
        ),
        // Trailing control characters are refused, not trimmed away.
        (
            json!({"project_id": "g/p", "file_path": "README.md\n", "ref": "main"}),
            "file_path 'README.md\\n' contains control characters",
        ),
        (
            json!({"project_id": "g/p", "file_path": "README.md\r", "ref": "main"}),
            "file_path 'README.md\\r' contains control characters",
        ),
        (
            json!({"project_id": "g/p", "file_path": "a", "ref": "main", "offset": 18446744073709551616.0_f64}),
            "'offset' is too large (got 1.8446744073709552e+19); the maximum is 18446744073709551615.",
        ),
        (
            json!({"project_id": "x".repeat(1 << 20), "file_path": "a", "ref": "main"}),
            "Argument 'project_id' is 1048576 bytes long; the longest accepted is 5375 bytes.",
        ),
        (
            json!({"project_id": "g/p", "file_path": "a".repeat(4097), "ref": "main"}),
            "the longest accepted is 4096 bytes",
        ),
        (
            json!({"url": format!("https://h/{}", "a".repeat(20_000))}),
            "the longest accepted is 16384 bytes",
        ),
    ];
    for (arguments, want) in cases {
        let e = err(&server.call(arguments.clone()).await);
        assert!(e.contains(want), "{}: {e}", mcp::shown(&arguments));
        assert!(e.len() < 1_000, "a short error: {} bytes", e.len());
    }
    // A value that is within the caps but long is quoted short.
    let long = format!("{}\u{0}", "p".repeat(4_000));
    let e = err(&server
        .call(json!({"project_id": "g/p", "file_path": long, "ref": "main"}))
        .await);
    assert!(e.contains("control characters") && e.len() < 400, "{e}");
    let unknown = server.call_named("no_such_tool", json!({})).await;
    assert!(unknown.is_err(), "an unknown tool is a protocol error");
    server.stop().await;
}

#[tokio::test]
async fn rejected_tokens_name_the_variable_and_never_echo_the_token() {
    let gitlab = MockServer::start().await;
    graphql()
        .respond_with(ResponseTemplate::new(401).set_body_json(sample_or_401()))
        .expect(2)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), Some(TOKEN)).await;
    let result = server.call(args("README.md")).await;
    let e = err(&result);
    assert!(
        e.contains("HTTP 401") && e.contains("GITLAB_TOKEN") && e.contains("Invalid token"),
        "{e}"
    );
    assert!(!serde_json::to_string(&result).unwrap().contains(TOKEN));
    server.stop().await;

    let server = spawn(
        &[],
        &[
            ("GITLAB_URL", &gitlab.uri()),
            ("GITLAB_PERSONAL_ACCESS_TOKEN", TOKEN),
        ],
    )
    .await;
    let e = err(&server.call(args("README.md")).await);
    assert!(
        e.contains("GITLAB_PERSONAL_ACCESS_TOKEN") && !e.contains(TOKEN),
        "{e}"
    );
    server.stop().await;

    let gitlab = MockServer::start().await;
    graphql()
        .respond_with(ResponseTemplate::new(403))
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let e = err(&server.call(args("README.md")).await);
    assert!(
        e.contains("HTTP 403") && e.contains("Set GITLAB_TOKEN"),
        "{e}"
    );
    server.stop().await;
}

fn sample_or_401() -> Value {
    sample("invalid-token-401.json")
}

#[tokio::test]
async fn a_wrong_gitlab_url_is_named() {
    let gitlab = MockServer::start().await; // nothing mounted: every path is a 404
    let server = spawn_gitlab(&format!("{}/gitlab", gitlab.uri()), None).await;
    let e = err(&server.call(args("README.md")).await);
    assert!(
        e.contains("HTTP 404") && e.contains("GITLAB_URL") && e.contains("/gitlab/api/graphql"),
        "{e}"
    );
    server.stop().await;
}

#[tokio::test]
async fn rate_limits_and_server_errors_are_retried_twice() {
    // 429 twice (Retry-After: 1), then the answer.
    let gitlab = MockServer::start().await;
    graphql()
        .respond_with(ResponseTemplate::new(429).insert_header("Retry-After", "1"))
        .up_to_n_times(2)
        .expect(2)
        .mount(&gitlab)
        .await;
    graphql()
        .respond_with(json_response(sample("text-file.json")))
        .expect(1)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    assert_eq!(
        ok(&server.call(args("crlf.txt")).await)["metadata"]["total_lines"],
        4
    );
    server.stop().await;

    // 502 forever: three attempts, then a clear error.
    let gitlab = MockServer::start().await;
    graphql()
        .respond_with(ResponseTemplate::new(502))
        .expect(3)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let e = err(&server.call(args("crlf.txt")).await);
    assert!(e.contains("HTTP 502") && e.contains("2 retries"), "{e}");
    server.stop().await;

    // A Retry-After longer than we wait inside one call: no retry, the wait is named.
    let gitlab = MockServer::start().await;
    graphql()
        .respond_with(ResponseTemplate::new(429).insert_header("Retry-After", "120"))
        .expect(1)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let e = err(&server.call(args("crlf.txt")).await);
    assert!(e.contains("HTTP 429") && e.contains("120 s"), "{e}");
    server.stop().await;
}

#[tokio::test]
async fn non_json_bodies_timeouts_and_redirects() {
    let gitlab = MockServer::start().await;
    graphql()
        .respond_with(ResponseTemplate::new(200).set_body_raw("<html>Sign in</html>", "text/html"))
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let e = err(&server.call(args("a")).await);
    assert!(
        e.contains("not JSON") && e.contains("text/html") && e.contains("GITLAB_URL"),
        "{e}"
    );
    server.stop().await;

    let gitlab = MockServer::start().await;
    graphql()
        .respond_with(
            json_response(sample("text-file.json")).set_delay(std::time::Duration::from_secs(5)),
        )
        .mount(&gitlab)
        .await;
    let server = spawn(
        &[],
        &[
            ("GITLAB_URL", &gitlab.uri()),
            ("GITLAB_REQUEST_TIMEOUT", "1"),
        ],
    )
    .await;
    let e = err(&server.call(args("a")).await);
    assert!(
        e.contains("did not answer in time") && e.contains("GITLAB_REQUEST_TIMEOUT"),
        "{e}"
    );
    server.stop().await;

    // A redirect is not followed: the token never reaches the other host.
    let elsewhere = MockServer::start().await;
    graphql()
        .respond_with(json_response(sample("text-file.json")))
        .expect(0)
        .mount(&elsewhere)
        .await;
    let gitlab = MockServer::start().await;
    graphql()
        .respond_with(
            ResponseTemplate::new(307)
                .insert_header("Location", format!("{}/api/graphql", elsewhere.uri())),
        )
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), Some(TOKEN)).await;
    let e = err(&server.call(args("a")).await);
    assert!(e.contains("redirect") && e.contains("HTTP 307"), "{e}");
    server.stop().await;
}

#[tokio::test]
async fn the_token_goes_only_in_the_authorization_header() {
    let gitlab = gitlab_with(sample("text-file.json"), 1).await;
    let server = spawn_gitlab(&gitlab.uri(), Some(TOKEN)).await;
    let result = server.call(args("crlf.txt")).await;
    ok(&result);
    assert!(!serde_json::to_string(&result).unwrap().contains(TOKEN));
    let requests = gitlab.received_requests().await.unwrap();
    let r = &requests[0];
    assert_eq!(
        r.headers.get("authorization").unwrap(),
        &format!("Bearer {TOKEN}")
    );
    assert!(!String::from_utf8_lossy(&r.body).contains(TOKEN));
    assert!(!r.url.as_str().contains(TOKEN));
    server.stop().await;
    let _ = text;
}

#[tokio::test]
async fn at_trace_the_arguments_are_logged_with_url_secrets_redacted() {
    let gitlab = gitlab_with(
        project_answer("grp/proj", 42, vec![text_node("README.md", "hi\n")]),
        1,
    )
    .await;
    let (server, mut stderr) = mcp::spawn_with_stderr(
        &[],
        &[
            ("GITLAB_URL", &gitlab.uri()),
            ("GITLAB_TOKEN", TOKEN),
            ("GITLAB_FILE_MCP_LOG", "trace"),
        ],
    )
    .await;
    let host = gitlab.uri().replace("http://", "");
    let url = format!(
        "http://user:PASSWORDSECRET@{host}/grp/proj/-/blob/main/README.md?private_token=QUERYSECRET&ref_type=heads#L1"
    );
    let out = ok(&server.call(json!({ "url": url })).await);
    assert_eq!(out["content"], "hi\n");
    server.stop().await;
    let mut log = String::new();
    let read = tokio::time::timeout(
        std::time::Duration::from_secs(20),
        tokio::io::AsyncReadExt::read_to_string(&mut stderr, &mut log),
    )
    .await;
    assert!(read.is_ok(), "the server's stderr did not close");
    assert!(
        log.contains("get_repository_file arguments")
            && log.contains(&format!(
                "http://[redacted]@{host}/grp/proj/-/blob/main/README.md?private_token=[redacted]&ref_type=[redacted]#L1"
            )),
        "{log}"
    );
    for secret in ["PASSWORDSECRET", "QUERYSECRET", TOKEN] {
        assert!(!log.contains(secret), "{secret} in the log:\n{log}");
    }
}

/// A repository at `main` for the "Did you mean" tests.
const NEAR_FILES: &[&str] = &[
    "README.md",
    "Cargo.toml",
    "app/models/user.rb",
    "app/models/group.rb",
    "app/models/admin/role.rb",
    "app/controllers/users_controller.rb",
    "config/settings.yml",
    "config/settings.key",
];

/// The stand-in's project `grp/sub/proj` holding `files` (empty) on `main`, to answer the miss
/// probe from.
fn tree_of(files: &[&str]) -> Gitlab {
    Gitlab::of_project("grp/sub/proj", 42).with_files(files.iter().map(|f| (*f, "")))
}

/// A GitLab where every blob is missing (with `rules`, if any) and the miss probe answers from
/// [`NEAR_FILES`]; each mock expects `misses` requests: one blob query and one probe per miss.
async fn gitlab_for_misses(rules: Option<Value>, misses: u64) -> MockServer {
    let gitlab = MockServer::start().await;
    let blob_answer = match rules {
        Some(rules) => project_answer_with_rules("grp/sub/proj", 42, vec![], rules),
        None => project_answer("grp/sub/proj", 42, vec![]),
    };
    graphql()
        .and(QueryContains("blobs(ref:"))
        .respond_with(json_response(blob_answer))
        .expect(misses)
        .mount(&gitlab)
        .await;
    graphql()
        .and(QueryContains("query MissProbe"))
        .respond_with(tree_of(NEAR_FILES))
        .expect(misses)
        .mount(&gitlab)
        .await;
    gitlab
}

#[tokio::test]
async fn a_miss_names_the_nearest_existing_paths_in_two_requests() {
    let gitlab = gitlab_for_misses(None, 5).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let cases = [
        // A case typo.
        (
            "readme.md",
            "File 'readme.md' does not exist at ref 'main'. Did you mean 'README.md'? Do not retry the same path; if that is not the file, search the repository for the file name to locate it: call search_repository with {\"glob\":\"readme.md\",\"ref\":\"main\"} (and the same project).",
        ),
        // A directory typo: the directory that exists.
        (
            "app/model/user.rb",
            "File 'app/model/user.rb' does not exist at ref 'main'. Did you mean 'app/models/'? Paths ending in '/' are directories; the file may be inside one. Do not retry the same path; if that is not the file, search the repository for the file name to locate it: call search_repository with {\"glob\":\"user.rb\",\"ref\":\"main\"} (and the same project).",
        ),
        // A file in the wrong directory: found one level up.
        (
            "app/models/admin/user.rb",
            "File 'app/models/admin/user.rb' does not exist at ref 'main'. Did you mean 'app/models/user.rb'? Do not retry the same path; if that is not the file, search the repository for the file name to locate it: call search_repository with {\"glob\":\"user.rb\",\"ref\":\"main\"} (and the same project).",
        ),
        // A file-name typo in its own directory.
        (
            "app/models/usr.rb",
            "File 'app/models/usr.rb' does not exist at ref 'main'. Did you mean 'app/models/user.rb'? Do not retry the same path; if that is not the file, search the repository for the file name to locate it: call search_repository with {\"glob\":\"usr.rb\",\"ref\":\"main\"} (and the same project).",
        ),
        // Nothing close: no suggestion, the plain answer.
        (
            "lib/zebra/giraffe.txt",
            "File 'lib/zebra/giraffe.txt' does not exist at ref 'main'. The path must be relative to the repository root. Do not retry the same path; search the repository for the file name to locate it: call search_repository with {\"glob\":\"giraffe.txt\",\"ref\":\"main\"} (and the same project).",
        ),
    ];
    for (path, want) in cases {
        assert_eq!(err(&server.call(args(path)).await), want, "{path}");
    }
    // Each probe asked for the parent, two more levels and the root, in one request.
    let probes: Vec<Value> = bodies(&gitlab)
        .await
        .into_iter()
        .filter(|b| b["query"].as_str().unwrap().contains("query MissProbe"))
        .collect();
    assert_eq!(probes[2]["variables"]["up0"], "app/models/admin");
    assert_eq!(probes[2]["variables"]["up2"], "app");
    server.stop().await;
}

#[tokio::test]
async fn excluded_neighbours_are_never_suggested() {
    let gitlab = gitlab_for_misses(Some(json!(["*.key", "app/models/*"])), 3).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    // `settings.key` is as close as `settings.yml` but excluded.
    let e = err(&server.call(args("config/settings.yaml")).await);
    assert!(
        e.contains("Did you mean 'config/settings.yml'?") && !e.contains("settings.key"),
        "{e}"
    );
    // Everything near is excluded: the plain answer, nothing named.
    let e = err(&server.call(args("app/models/usr.rb")).await);
    assert!(
        !e.contains("Did you mean") && !e.contains("user.rb'"),
        "{e}"
    );
    // The directory itself is not excluded, but what it leads to is.
    let e = err(&server.call(args("app/model/user.rb")).await);
    assert!(!e.contains("app/models"), "{e}");
    server.stop().await;
}

#[tokio::test]
async fn a_directory_names_its_entries_without_excluded_ones_in_two_requests() {
    let gitlab = gitlab_for_misses(Some(json!(["*.key", "app/models/admin/*"])), 2).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    assert_eq!(
        err(&server.call(args("config")).await),
        "'config' is a directory at ref 'main', not a file. It holds 'settings.yml'. Pass the path of a file inside it."
    );
    // `admin/` is left out: everything directly in it is excluded.
    assert_eq!(
        err(&server.call(args("app/models")).await),
        "'app/models' is a directory at ref 'main', not a file. It holds 'group.rb' and 'user.rb'. Pass the path of a file inside it."
    );
    server.stop().await;
}

#[tokio::test]
async fn a_large_directory_names_a_hundred_entries_and_counts_the_rest() {
    let files: Vec<String> = (0..130)
        .map(|i| format!("big/f{i:03}.txt"))
        .chain((0..3).map(|i| format!("big/d{i}/x")))
        .collect();
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let gitlab = MockServer::start().await;
    graphql()
        .and(QueryContains("blobs(ref:"))
        .respond_with(json_response(project_answer("grp/sub/proj", 42, vec![])))
        .expect(1)
        .mount(&gitlab)
        .await;
    graphql()
        .and(QueryContains("query MissProbe"))
        .respond_with(tree_of(&files))
        .expect(1)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let e = err(&server.call(args("big")).await);
    // GitLab lists a page of 100 files and 3 directories: 100 named, directories first, and
    // 3 more on this page with more pages behind it.
    assert!(
        e.starts_with("'big' is a directory at ref 'main', not a file. It holds 'd0/', 'd1/', 'd2/', 'f000.txt', "),
        "{e}"
    );
    assert!(
        e.ends_with("'f096.txt' and at least 3 more. Pass the path of a file inside it."),
        "{e}"
    );
    assert_eq!(e.matches(".txt'").count(), 97, "{e}");
    server.stop().await;
}

#[tokio::test]
async fn keys_come_hint_first_in_the_text_block_and_structured_content() {
    let content: String = (1..=50).map(|i| format!("line {i}\n")).collect();
    let gitlab = gitlab_with(
        project_answer("grp/sub/proj", 42, vec![text_node("a.txt", &content)]),
        1,
    )
    .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let mut a = args("a.txt");
    a["limit"] = json!(10);
    let result = server.call(a).await;
    let out = ok(&result);
    let order = mcp::OUTPUT_KEYS;
    // The text block as sent: the hint comes before the content.
    let block = text(&result);
    let at: Vec<usize> = order
        .iter()
        .map(|k| block.find(&format!("\"{k}\":")).unwrap())
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{block}");
    assert!(block.starts_with("{\"path\":"), "{block}");
    // structuredContent as the client parsed it (in wire order).
    assert_eq!(mcp::keys(&out), order);
    // Every metadata key of this answer, in order (`columns` only for part of a line,
    // `unchanged` only on an unchanged answer).
    let whole_lines: Vec<&str> = mcp::METADATA_KEYS
        .into_iter()
        .filter(|k| *k != "columns")
        .take(7)
        .collect();
    assert_eq!(mcp::keys(&out["metadata"]), whole_lines);
    assert_eq!(
        out["metadata"]["web_url"],
        format!("{}/grp/sub/proj/-/blob/{COMMIT}/a.txt#L1-10", gitlab.uri())
    );
    server.stop().await;
}

#[tokio::test]
async fn an_answer_without_a_permalink_is_served_without_commit_or_url() {
    // An answer whose node has `permalinkPath: null` (or one naming no commit): no commit_sha,
    // no web_url, and the rest of the answer as usual.
    let gitlab = MockServer::start().await;
    for (path, permalink) in [
        ("a.txt", Value::Null),
        ("b.txt", json!("/grp/sub/proj/-/blob/main/b.txt")),
    ] {
        let mut node = text_node(path, "x\n");
        node["permalinkPath"] = permalink;
        graphql()
            .and(Variables(json!({"paths": [path]})))
            .respond_with(json_response(project_answer(
                "grp/sub/proj",
                42,
                vec![node],
            )))
            .expect(1)
            .mount(&gitlab)
            .await;
    }
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    for path in ["a.txt", "b.txt"] {
        let out = ok(&server.call(args(path)).await);
        assert_eq!(out["content"], "x\n");
        let meta = out["metadata"].as_object().unwrap();
        assert!(
            !meta.contains_key("commit_sha") && !meta.contains_key("web_url"),
            "{meta:?}"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn a_project_named_by_its_id_is_cited_at_the_commit() {
    let gitlab = MockServer::start().await;
    graphql()
        .respond_with(json_response(sample("by-numeric-id.json")))
        .expect(1)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let out = ok(&server
        .call(json!({"project_id": 42, "file_path": "README.md", "ref": "main", "limit": 1}))
        .await);
    assert_eq!(out["metadata"]["commit_sha"], COMMIT);
    assert_eq!(
        out["metadata"]["web_url"],
        format!("{}/grp/sub/proj/-/blob/{COMMIT}/README.md#L1", gitlab.uri())
    );
    server.stop().await;
}

#[tokio::test]
async fn an_instance_without_permalink_path_is_asked_without_it_from_then_on() {
    // An older GitLab whose RepositoryBlob has no permalinkPath: the first call learns it (one
    // more request), later ones never ask, and answers have no commit_sha or web_url.
    let gitlab = MockServer::start().await;
    graphql()
        .and(QueryContains("  permalinkPath"))
        .respond_with(json_response(undefined_field(
            "permalinkPath",
            "RepositoryBlob",
        )))
        .expect(1)
        .mount(&gitlab)
        .await;
    let mut node = text_node("a.txt", "x\n");
    node["permalinkPath"] = Value::Null;
    graphql()
        .and(QueryLacks("  permalinkPath"))
        .respond_with(json_response(project_answer(
            "grp/sub/proj",
            42,
            vec![node],
        )))
        .expect(2)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    for _ in 0..2 {
        let out = ok(&server.call(args("a.txt")).await);
        assert_eq!(out["content"], "x\n");
        assert!(out["metadata"].get("commit_sha").is_none(), "{out}");
    }
    server.stop().await;
}
