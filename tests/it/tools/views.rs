//! The history views of a read (issue 48) end to end through rmcp: `history` against the
//! local repository ([`git_fixture::build_history`]: changes, a rename, a binary change, a
//! CRLF change, an unchanged file) and against a wiremock GitLab answering
//! `Repository.commits` as GitLab does.

use crate::support::git_fixture as fx;
use crate::support::gitlab_mock::*;
use crate::support::mcp::{self, err, ok, spawn_gitlab};

use serde_json::{Value, json};
use wiremock::MockServer;

const TOKEN: &str = "glpat-TESTSECRET0123456789";

async fn serve(fix: &fx::HistoryFixture) -> mcp::Server {
    let repo = fix.dir.path().to_str().expect("UTF-8 temp path");
    mcp::spawn(&["serve", "--repo", repo], &[]).await
}

fn shas(out: &Value) -> Vec<String> {
    out["metadata"]["history"]
        .as_array()
        .expect("metadata.history")
        .iter()
        .map(|e| e["sha"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn local_history_lists_the_commits_that_changed_the_file_newest_first() {
    let fix = fx::build_history();
    let s = &fix.shas;
    let server = serve(&fix).await;

    // b.txt: changed in 5, added (by the rename) in 3; renames are not followed.
    let out = ok(&server
        .call(json!({"file_path": "b.txt", "history": true}))
        .await);
    assert_eq!(shas(&out), vec![s[4].clone(), s[2].clone()]);
    let newest = &out["metadata"]["history"][0];
    assert_eq!(newest["title"], "change b");
    assert_eq!(newest["author_name"], "Fixture Author");
    assert!(
        newest["authored_date"]
            .as_str()
            .unwrap()
            .starts_with("2026-01-")
    );
    assert_eq!(
        newest["diff_call"],
        json!({"file_path": "b.txt", "ref": s[4], "diff_from": s[3]})
    );
    assert_eq!(out["metadata"]["commit_sha"], s[4].as_str());
    assert_eq!(out["metadata"]["truncated"], false);
    assert!(out["content"].as_str().unwrap().lines().count() == 2);

    // A binary change and a change of line ends only are changes; an unchanged file has one.
    let bin = ok(&server
        .call(json!({"file_path": "bin.dat", "history": true}))
        .await);
    assert_eq!(shas(&bin), vec![s[1].clone(), s[0].clone()]);
    let crlf = ok(&server
        .call(json!({"file_path": "crlf.txt", "history": true}))
        .await);
    assert_eq!(shas(&crlf), vec![s[3].clone(), s[0].clone()]);
    let same = ok(&server
        .call(json!({"file_path": "same.txt", "history": true}))
        .await);
    assert_eq!(shas(&same), vec![s[0].clone()]);
    assert!(
        same["metadata"]["history"][0]["diff_call"]
            .get("diff_from")
            .is_none()
    );

    // At an older ref, under the old name.
    let a = ok(&server
        .call(json!({"file_path": "a.txt", "ref": s[1], "history": true}))
        .await);
    assert_eq!(shas(&a), vec![s[1].clone(), s[0].clone()]);
    server.stop().await;
}

#[tokio::test]
async fn local_history_pages_with_a_hint_and_refuses_a_page_past_the_end() {
    let fix = fx::build_history();
    let s = &fix.shas;
    let server = serve(&fix).await;
    let first = ok(&server
        .call(json!({"file_path": "crlf.txt", "history": true, "limit": 1}))
        .await);
    assert_eq!(shas(&first), vec![s[3].clone()]);
    assert_eq!(first["metadata"]["truncated"], true);
    let hint = first["system_instruction"].as_str().unwrap();
    assert!(hint.contains("offset: 1, limit: 1"), "{hint}");
    let next = ok(&server
        .call(json!({"file_path": "crlf.txt", "history": true, "offset": 1, "limit": 1}))
        .await);
    assert_eq!(shas(&next), vec![s[0].clone()]);
    assert_eq!(next["metadata"]["truncated"], false);
    let past = err(&server
        .call(json!({"file_path": "crlf.txt", "history": true, "offset": 5}))
        .await);
    assert!(past.contains("past the file's oldest commit"), "{past}");
    // A missing file is the read's own error; history is one view among the others.
    let missing = err(&server
        .call(json!({"file_path": "a.txt", "history": true}))
        .await);
    assert!(missing.contains("a.txt"), "{missing}");
    let both = err(&server
        .call(json!({"file_path": "b.txt", "history": true, "pattern": "x"}))
        .await);
    assert!(both.contains("not both pattern and history"), "{both}");
    server.stop().await;
}

#[tokio::test]
async fn gitlab_history_asks_commits_at_the_commit_read_and_pages() {
    let gitlab = MockServer::start().await;
    let content = "fn main() {}\n";
    graphql()
        .and(QueryContains("blobs("))
        .respond_with(json_response(project_answer(
            "grp/proj",
            7,
            vec![text_node("src/main.rs", content)],
        )))
        .mount(&gitlab)
        .await;
    let (c1, c2, c3) = ("c".repeat(40), "b".repeat(40), "a".repeat(40));
    graphql()
        .and(QueryContains("commits("))
        .and(Variables(json!({
            "projectPath": "grp/proj", "ref": COMMIT, "path": "src/main.rs", "first": 3
        })))
        .respond_with(json_response(commits_answer(
            vec![
                commit_node(&c1, "Third", Some(&c2)),
                commit_node(&c2, "Second", Some(&c3)),
                commit_node(&c3, "First", None),
            ],
            false,
            Some("cursor3"),
        )))
        .expect(1)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), Some(TOKEN)).await;
    let out = ok(&server
        .call(
            json!({"project_id": "grp/proj", "file_path": "src/main.rs", "ref": "main",
                     "history": true, "limit": 2}),
        )
        .await);
    assert_eq!(shas(&out), vec![c1.clone(), c2.clone()]);
    let first = &out["metadata"]["history"][0];
    assert_eq!(first["title"], "Third");
    assert_eq!(first["author_name"], "Ann Author");
    assert_eq!(first["authored_date"], "2026-01-02T10:00:00+01:00");
    assert_eq!(
        first["web_url"],
        format!("https://gitlab.example.com/grp/proj/-/commit/{c1}")
    );
    assert_eq!(
        first["diff_call"],
        json!({"project_id": "grp/proj", "file_path": "src/main.rs", "ref": c1, "diff_from": c2})
    );
    assert_eq!(out["metadata"]["truncated"], true);
    assert!(
        out["system_instruction"]
            .as_str()
            .unwrap()
            .contains("offset: 2, limit: 2")
    );
    server.stop().await;
}

#[tokio::test]
async fn gitlab_history_follows_cursors_past_a_page_of_100() {
    let gitlab = MockServer::start().await;
    graphql()
        .and(QueryContains("blobs("))
        .respond_with(json_response(project_answer(
            "grp/proj",
            7,
            vec![text_node("x.txt", "x\n")],
        )))
        .mount(&gitlab)
        .await;
    let page = |from: usize, n: usize| -> Vec<Value> {
        (from..from + n)
            .map(|i| commit_node(&format!("{i:040x}"), &format!("c{i}"), None))
            .collect()
    };
    graphql()
        .and(QueryContains("commits("))
        .and(Variables(json!({"first": 100})))
        .respond_with(json_response(commits_answer(
            page(0, 100),
            true,
            Some("p1"),
        )))
        .expect(1)
        .mount(&gitlab)
        .await;
    graphql()
        .and(QueryContains("commits("))
        .and(Variables(json!({"after": "p1", "first": 6})))
        .respond_with(json_response(commits_answer(
            page(100, 6),
            true,
            Some("p2"),
        )))
        .expect(1)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), Some(TOKEN)).await;
    let out = ok(&server
        .call(
            json!({"project_id": "grp/proj", "file_path": "x.txt", "ref": "main",
                     "history": true, "offset": 95, "limit": 10}),
        )
        .await);
    let listed = shas(&out);
    assert_eq!(listed.len(), 10);
    assert_eq!(listed[0], format!("{:040x}", 95));
    assert_eq!(listed[9], format!("{:040x}", 104));
    assert_eq!(out["metadata"]["truncated"], true);
    server.stop().await;
}

fn blame_of(out: &Value) -> Vec<(u64, u64, String)> {
    out["metadata"]["blame"]
        .as_array()
        .expect("metadata.blame")
        .iter()
        .map(|r| {
            (
                r["start_line"].as_u64().unwrap(),
                r["end_line"].as_u64().unwrap(),
                r["commit_sha"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn local_blame_names_the_commit_of_each_line_across_a_rename() {
    let fix = fx::build_history();
    let s = &fix.shas;
    let server = serve(&fix).await;
    let out = ok(&server
        .call(json!({"file_path": "b.txt", "blame": true}))
        .await);
    assert_eq!(out["content"], fx::HIST_B5);
    assert_eq!(
        blame_of(&out),
        vec![
            (1, 1, s[0].clone()),
            (2, 2, s[1].clone()),
            (3, 3, s[4].clone())
        ]
    );
    let commits = out["metadata"]["commits"].as_array().unwrap();
    assert_eq!(commits.len(), 3);
    assert_eq!(commits[0]["title"], "add files");
    assert_eq!(commits[0]["author_name"], "Fixture Author");

    // A window: only its lines, and the hint pages on like a read's.
    let window = ok(&server
        .call(json!({"file_path": "b.txt", "blame": true, "offset": 1, "limit": 1}))
        .await);
    assert_eq!(window["content"], "two\n");
    assert_eq!(blame_of(&window), vec![(2, 2, s[1].clone())]);
    assert_eq!(window["metadata"]["commits"].as_array().unwrap().len(), 1);
    let hint = window["system_instruction"].as_str().unwrap();
    assert!(
        hint.contains("\"offset\": 2") || hint.contains("offset: 2"),
        "{hint}"
    );

    // CRLF lines changed by their line ends only.
    let crlf = ok(&server
        .call(json!({"file_path": "crlf.txt", "blame": true}))
        .await);
    assert_eq!(blame_of(&crlf), vec![(1, 2, s[3].clone())]);

    // Past the end, binary: a sentence each, never an empty success.
    let past = err(&server
        .call(json!({"file_path": "b.txt", "blame": true, "offset": 10}))
        .await);
    assert!(
        past.contains("past the end of the file (3 lines)"),
        "{past}"
    );
    let bin = err(&server
        .call(json!({"file_path": "bin.dat", "blame": true}))
        .await);
    assert!(bin.contains("binary"), "{bin}");
    let both = err(&server
        .call(json!({"file_path": "b.txt", "blame": true, "history": true}))
        .await);
    assert!(both.contains("not both history and blame"), "{both}");
    server.stop().await;
}

/// A blob answer of `text` as `big.txt` whose `blamed` field (the blob query's own blame of
/// the window's first lines) holds `groups`, as GitLab answers `blame(fromLine:, toLine:)`.
fn blob_with_blame(text: &str, groups: Vec<Value>) -> Value {
    let mut answer = project_answer("grp/proj", 7, vec![text_node("big.txt", text)]);
    answer["data"]["project"]["repository"]["blamed"] =
        json!({"nodes": [{"blame": {"groups": groups}}]});
    answer
}

/// Blames lines `start..=end` of `big.txt` at `main` through a server on `gitlab`.
async fn blame_big(gitlab: &MockServer, start: u64, end: u64) -> Value {
    let server = spawn_gitlab(&gitlab.uri(), Some(TOKEN)).await;
    let out = ok(&server
        .call(
            json!({"project_id": "grp/proj", "file_path": "big.txt", "ref": "main",
                     "blame": true, "start_line": start, "end_line": end}),
        )
        .await);
    server.stop().await;
    out
}

fn blame_request_count(bodies: &[Value]) -> (usize, usize) {
    let blame_only = bodies
        .iter()
        .filter(|b| b["operationName"] == "Blame")
        .count();
    (bodies.len(), blame_only)
}

#[tokio::test]
async fn gitlab_blame_of_100_lines_of_a_25000_line_file_is_one_request() {
    let gitlab = MockServer::start().await;
    let text: String = (1..=25_000).map(|n| format!("line {n}\n")).collect();
    let (old, new) = ("a".repeat(40), "b".repeat(40));
    graphql()
        .and(QueryContains("rawTextBlob"))
        .and(Variables(
            json!({"withBlame": true, "blameFrom": 120, "blameTo": 219}),
        ))
        .respond_with(json_response(blob_with_blame(
            &text,
            vec![
                blame_group(120, 30, commit_node(&old, "Old", None)),
                blame_group(150, 70, commit_node(&new, "New", Some(&old))),
            ],
        )))
        .expect(1)
        .mount(&gitlab)
        .await;
    let out = blame_big(&gitlab, 120, 219).await;
    assert_eq!(
        blame_of(&out),
        vec![(120, 149, old.clone()), (150, 219, new.clone())]
    );
    assert_eq!(out["metadata"]["commits"][1]["title"], "New");
    assert!(out["content"].as_str().unwrap().starts_with("line 120\n"));
    assert_eq!(blame_request_count(&bodies(&gitlab).await), (1, 0));
}

#[tokio::test]
async fn gitlab_blame_the_read_could_not_give_is_asked_alone() {
    let gitlab = MockServer::start().await;
    let text = "one\ntwo\n";
    let sha = "c".repeat(40);
    let mut refused = blob_with_blame(text, vec![]);
    refused["data"]["project"]["repository"]["blamed"] = Value::Null;
    refused["errors"] = json!([{"message": "Internal server error",
        "locations": [{"line": 1, "column": 1}], "path": ["project", "repository", "blamed"]}]);
    graphql()
        .and(QueryContains("rawTextBlob"))
        .respond_with(json_response(refused))
        .expect(1)
        .mount(&gitlab)
        .await;
    graphql()
        .and(QueryContains("query Blame("))
        .and(Variables(json!({"from0": 1, "to0": 2, "with1": false})))
        .respond_with(json_response(blame_answer(vec![(
            "b0",
            vec![blame_group(1, 2, commit_node(&sha, "Only", None))],
        )])))
        .expect(1)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), Some(TOKEN)).await;
    let out = ok(&server
        .call(
            json!({"project_id": "grp/proj", "file_path": "big.txt", "ref": "main", "blame": true}),
        )
        .await);
    assert_eq!(blame_of(&out), vec![(1, 2, sha.clone())]);
    assert_eq!(blame_request_count(&bodies(&gitlab).await), (2, 1));
    server.stop().await;
}

#[tokio::test]
async fn gitlab_blame_past_100_lines_asks_the_rest_in_one_more_request_of_aliased_fields() {
    let gitlab = MockServer::start().await;
    let text: String = (1..=25_000).map(|n| format!("line {n}\n")).collect();
    let (old, new) = ("a".repeat(40), "b".repeat(40));
    // The read's own request blames 101..=200; the Blame query asks 201..=350 in fields b0
    // (201-300) and b1 (301-350); a run of `old` crosses the first request's end.
    graphql()
        .and(QueryContains("rawTextBlob"))
        .and(Variables(
            json!({"withBlame": true, "blameFrom": 101, "blameTo": 200}),
        ))
        .respond_with(json_response(blob_with_blame(
            &text,
            vec![blame_group(101, 100, commit_node(&old, "Old", None))],
        )))
        .expect(1)
        .mount(&gitlab)
        .await;
    graphql()
        .and(QueryContains("query Blame("))
        .and(Variables(json!({
            "projectPath": "grp/proj", "ref": COMMIT, "path": "big.txt",
            "from0": 201, "to0": 300, "from1": 301, "to1": 350, "with1": true, "with2": false
        })))
        .respond_with(json_response(blame_answer(vec![
            (
                "b0",
                vec![
                    blame_group(201, 50, commit_node(&old, "Old", None)),
                    blame_group(251, 50, commit_node(&new, "New", Some(&old))),
                ],
            ),
            (
                "b1",
                vec![blame_group(301, 50, commit_node(&old, "Old", None))],
            ),
        ])))
        .expect(1)
        .mount(&gitlab)
        .await;
    let out = blame_big(&gitlab, 101, 350).await;
    assert_eq!(
        blame_of(&out),
        vec![
            (101, 250, old.clone()),
            (251, 300, new.clone()),
            (301, 350, old.clone())
        ]
    );
    let commits = out["metadata"]["commits"].as_array().unwrap();
    assert_eq!(commits.len(), 2);
    assert_eq!(commits[1]["title"], "New");
    assert_eq!(
        commits[1]["web_url"],
        format!("https://gitlab.example.com/grp/proj/-/commit/{new}")
    );
    assert!(out["content"].as_str().unwrap().starts_with("line 101\n"));
    assert_eq!(blame_request_count(&bodies(&gitlab).await), (2, 1));
}

#[tokio::test]
async fn local_diff_from_shows_changes_added_identical_binary_and_crlf_files() {
    let fix = fx::build_history();
    let s = &fix.shas;
    let server = serve(&fix).await;
    let out = ok(&server
        .call(json!({"file_path": "b.txt", "diff_from": s[3]}))
        .await);
    let diff = out["content"].as_str().unwrap();
    assert!(
        diff.starts_with(&format!(
            "--- {}:b.txt\n+++ HEAD:b.txt\n@@ -1,2 +1,3 @@\n one\n two\n+three\n",
            s[3]
        )),
        "{diff}"
    );
    assert_eq!(
        out["metadata"]["diff"],
        json!({"from_ref": s[3], "from_commit_sha": s[3], "to_commit_sha": s[4], "added": 1, "removed": 0})
    );

    // CRLF: every line's end changed.
    let crlf = ok(&server
        .call(json!({"file_path": "crlf.txt", "diff_from": s[0]}))
        .await);
    assert_eq!(crlf["metadata"]["diff"]["added"], 2);
    assert_eq!(crlf["metadata"]["diff"]["removed"], 2);
    assert!(crlf["content"].as_str().unwrap().contains("+x\r\n"));

    // Added since (the rename is not followed): every line added, and said.
    let added = ok(&server
        .call(json!({"file_path": "b.txt", "diff_from": s[1]}))
        .await);
    assert_eq!(added["metadata"]["diff"]["added"], 3);
    assert!(
        added["system_instruction"]
            .as_str()
            .unwrap()
            .contains("it was added since")
    );

    // Identical and binary: one sentence, no content.
    let same = ok(&server
        .call(json!({"file_path": "same.txt", "diff_from": s[0]}))
        .await);
    assert_eq!(same["content"], "");
    assert!(
        same["system_instruction"]
            .as_str()
            .unwrap()
            .contains("is identical")
    );
    let bin = ok(&server
        .call(json!({"file_path": "bin.dat", "diff_from": s[0]}))
        .await);
    assert!(
        bin["system_instruction"]
            .as_str()
            .unwrap()
            .contains("is binary")
    );

    // A diff_from ref that does not exist is an error naming it.
    let missing = err(&server
        .call(json!({"file_path": "b.txt", "diff_from": "no-such-ref"}))
        .await);
    assert!(missing.contains("no-such-ref"), "{missing}");

    // A file the ref read lacks while diff_from has it was deleted (here: renamed) since.
    let gone = err(&server
        .call(json!({"file_path": "a.txt", "diff_from": s[1]}))
        .await);
    assert!(
        gone.contains(&format!(
            "'a.txt' was deleted between '{}' and 'HEAD'",
            s[1]
        )),
        "{gone}"
    );
    assert!(gone.contains(&format!("\"ref\":\"{}\"", s[1])), "{gone}");
    // Missing on both sides: the read's own miss.
    let neither = err(&server
        .call(json!({"file_path": "never.txt", "diff_from": s[1]}))
        .await);
    assert!(
        neither.contains("does not exist at ref 'HEAD'"),
        "{neither}"
    );

    // Paged like a read.
    let first = ok(&server
        .call(json!({"file_path": "b.txt", "diff_from": s[3], "limit": 2}))
        .await);
    assert_eq!(first["metadata"]["truncated"], true);
    assert!(first["system_instruction"].as_str().unwrap().contains('2'));
    server.stop().await;
}

/// A blob answer of `path` holding `head`, whose `base` field (the same path at the diff's other
/// ref) holds `base`; `content`: whether the texts are in it (`withContent`).
fn blob_with_base(path: &str, head: &str, base: Option<&str>, content: bool) -> Value {
    let node = |text: &str| {
        let mut n = text_node(path, text);
        if !content {
            n.as_object_mut().unwrap().remove("rawTextBlob");
        }
        n
    };
    let mut answer = project_answer("grp/proj", 7, vec![node(head)]);
    let base: Vec<Value> = base
        .map(|b| with_permalink(node(b), "", "grp/proj", &"e".repeat(40)))
        .into_iter()
        .collect();
    answer["data"]["project"]["repository"]["base"] = json!({"nodes": base});
    answer
}

#[tokio::test]
async fn gitlab_diff_from_reads_both_sides_in_one_request_then_from_the_cache() {
    let gitlab = MockServer::start().await;
    let (new, old) = ("fn a() {}\nfn b() {}\n", "fn a() {}\n");
    graphql()
        .and(QueryContains("rawTextBlob"))
        .and(Variables(
            json!({"ref": "main", "withBase": true, "baseRef": "v1", "withContent": true}),
        ))
        .respond_with(json_response(blob_with_base(
            "src/a.rs",
            new,
            Some(old),
            true,
        )))
        .expect(1)
        .mount(&gitlab)
        .await;
    graphql()
        .and(QueryContains("rawTextBlob"))
        .and(Variables(
            json!({"ref": "main", "withBase": true, "baseRef": "v1", "withContent": false}),
        ))
        .respond_with(json_response(blob_with_base(
            "src/a.rs",
            new,
            Some(old),
            false,
        )))
        .expect(1)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), Some(TOKEN)).await;
    let call = json!({"project_id": "grp/proj", "file_path": "src/a.rs", "ref": "main",
                      "diff_from": "v1"});
    for _ in 0..2 {
        let out = ok(&server.call(call.clone()).await);
        assert_eq!(
            out["content"],
            "--- v1:src/a.rs\n+++ main:src/a.rs\n@@ -1 +1,2 @@\n fn a() {}\n+fn b() {}\n"
        );
        assert_eq!(out["metadata"]["diff"]["added"], 1);
        assert_eq!(out["metadata"]["diff"]["removed"], 0);
        assert_eq!(out["metadata"]["diff"]["to_commit_sha"], COMMIT);
        assert_eq!(out["metadata"]["diff"]["from_commit_sha"], "e".repeat(40));
    }
    // One request a call: both sides in the first, both from the cache in the second.
    assert_eq!(bodies(&gitlab).await.len(), 2);
    server.stop().await;
}

#[tokio::test]
async fn gitlab_diff_from_an_invalid_ref_names_that_ref() {
    // GitLab answers `blobs` on a string that is no git ref with "Ref is not valid" on that
    // field alone (its path names the alias), the rest of the answer resolved.
    let gitlab = MockServer::start().await;
    let mut refused = blob_with_base("src/a.rs", "x\n", None, true);
    refused["data"]["project"]["repository"]["base"] = Value::Null;
    refused["errors"] = json!([{"message": "Ref is not valid",
        "locations": [{"line": 1, "column": 1}], "path": ["project", "repository", "base"]}]);
    graphql()
        .and(QueryContains("rawTextBlob"))
        .and(Variables(json!({"withBase": true})))
        .respond_with(json_response(refused))
        .mount(&gitlab)
        .await;
    graphql()
        .and(QueryContains("rawTextBlob"))
        .and(Variables(json!({"ref": "a..b"})))
        .respond_with(json_response(json!({"data": {"project": {
            "id": "gid://gitlab/Project/7", "fullPath": "grp/proj", "repository": {"blobs": null}}},
            "errors": [{"message": "Ref is not valid", "locations": [{"line": 1, "column": 1}],
                "path": ["project", "repository", "blobs"]}]})))
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), Some(TOKEN)).await;
    let e = err(&server
        .call(
            json!({"project_id": "grp/proj", "file_path": "src/a.rs", "ref": "main",
                     "diff_from": "a..b"}),
        )
        .await);
    assert!(e.starts_with("Ref 'a..b' is not valid"), "{e}");
    server.stop().await;
}

#[tokio::test]
async fn gitlab_diff_from_a_ref_without_the_file_says_it_was_added() {
    let gitlab = MockServer::start().await;
    graphql()
        .and(QueryContains("rawTextBlob"))
        .respond_with(json_response(blob_with_base("src/a.rs", "x\n", None, true)))
        .expect(1)
        .mount(&gitlab)
        .await;
    graphql()
        .and(QueryContains("query MissProbe"))
        .and(Variables(json!({"ref": "v1"})))
        .respond_with(json_response(ref_check_answer(true, false)))
        .expect(1)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), Some(TOKEN)).await;
    let out = ok(&server
        .call(
            json!({"project_id": "grp/proj", "file_path": "src/a.rs", "ref": "main",
                     "diff_from": "v1"}),
        )
        .await);
    assert_eq!(
        out["content"],
        "--- v1:src/a.rs\n+++ main:src/a.rs\n@@ -0,0 +1 @@\n+x\n"
    );
    assert!(
        out["system_instruction"]
            .as_str()
            .unwrap()
            .contains("does not exist at 'v1'"),
        "{out}"
    );
    server.stop().await;
}
