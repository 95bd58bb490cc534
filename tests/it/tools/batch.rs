//! `get_repository_files` end to end (issue 19): the real binary over MCP against a GitLab
//! stand-in (`standin/src/gitlab/`) hosting several projects (by full path or numeric id), with
//! Duo exclusion rules, GitLab's 20 MiB rule and the miss probe; the tests count what each call
//! cost from its log. And the same tool over a local repository.

use crate::support::git_fixture;
use crate::support::gitlab;
use crate::support::gitlab_mock;
use crate::support::mcp;

use std::sync::{Arc, Mutex};

use mcp::{err, ok, spawn, spawn_gitlab};
use serde_json::{Value, json};
use wiremock::MockServer;

/// One request the stand-in answered, as these tests count them.
#[derive(Debug, Clone, PartialEq)]
enum Sent {
    Blobs {
        project: String,
        paths: Vec<String>,
        with_content: bool,
    },
    /// The miss probe, for one path.
    Probe { path: String },
}

/// The GitLab stand-in, and how much of its log the test has taken.
#[derive(Clone, Default)]
struct Gitlab {
    standin: gitlab::Gitlab,
    taken: Arc<Mutex<usize>>,
}

impl Gitlab {
    /// Hosts `full_path` (id `id`) holding `files` on `main`.
    fn project(&self, full_path: &str, id: u64, files: &[(&str, String)]) {
        let hosted = self
            .standin
            .projects
            .lock()
            .iter()
            .any(|h| h.project.path == full_path);
        if !hosted {
            self.standin.host(full_path, id);
        }
        for (path, text) in files {
            let bytes = text.as_bytes().to_vec();
            self.standin
                .put_in(full_path, gitlab::MAIN, path, bytes, false);
        }
    }

    fn rules(&self, full_path: &str, rules: &[&str]) {
        self.standin.set_rules(full_path, rules);
    }

    /// The requests answered since the last call, read from the stand-in's log.
    fn take_sent(&self) -> Vec<Sent> {
        let bodies = self.standin.log().graphql;
        let mut taken = self.taken.lock().unwrap();
        let new = bodies[*taken..]
            .iter()
            .filter_map(|b| self.sent(b))
            .collect();
        *taken = bodies.len();
        new
    }

    /// What one GraphQL body asked, in the terms of [`Sent`].
    fn sent(&self, body: &Value) -> Option<Sent> {
        let query = body["query"].as_str().unwrap_or_default();
        let vars = &body["variables"];
        if query.contains("MissProbe") {
            let path = vars["path"].as_str().unwrap_or_default().to_string();
            return Some(Sent::Probe { path });
        }
        let strings = |v: &Value| -> Vec<String> {
            let all = v.as_array().into_iter().flatten();
            all.filter_map(Value::as_str).map(str::to_string).collect()
        };
        let ids = strings(&vars["ids"]);
        let projects = self.standin.projects.lock();
        let named = projects.iter().find(|h| {
            ids.contains(&h.project.gid()) || vars["projectPath"] == json!(h.project.path)
        });
        Some(Sent::Blobs {
            project: named.map(|h| h.project.path.clone()).unwrap_or_default(),
            paths: strings(&vars["paths"]),
            with_content: vars["withContent"] != json!(false),
        })
        .filter(|_| query.contains("blobs("))
    }
}

fn lines(prefix: &str, n: usize) -> String {
    (1..=n).map(|i| format!("{prefix} {i:04}\n")).collect()
}

/// A stand-in with `grp/proj` (id 42) holding a.txt, b.txt and c.txt (10 lines of 10 bytes
/// each) and `secret/key.txt`, and the server talking to it.
async fn start() -> (Gitlab, MockServer, mcp::Server) {
    let gitlab = Gitlab::default();
    gitlab.project(
        "grp/proj",
        42,
        &[
            ("a.txt", lines("aaaa", 10)),
            ("b.txt", lines("bbbb", 10)),
            ("c.txt", lines("cccc", 10)),
            ("secret/key.txt", "hunter2\n".to_string()),
        ],
    );
    let mock = gitlab.standin.start().await;
    let server = spawn_gitlab(&mock.uri(), Some("t0ken")).await;
    (gitlab, mock, server)
}

fn blobs(project: &str, paths: &[&str], with_content: bool) -> Sent {
    Sent::Blobs {
        project: project.into(),
        paths: paths.iter().map(|p| p.to_string()).collect(),
        with_content,
    }
}

/// The `files` of a batch result.
fn files(result: &rmcp::model::CallToolResult) -> Vec<Value> {
    ok(result)["files"].as_array().unwrap().clone()
}

#[tokio::test]
async fn three_files_in_one_request_each_as_the_single_tool_reads_it() {
    let (gitlab, _mock, server) = start().await;
    let batch = server
        .call_many(json!({"project_id": "grp/proj", "ref": "main", "files": [
            {"file_path": "a.txt"}, {"file_path": "b.txt"}, {"file_path": "c.txt"}
        ]}))
        .await;
    let got = files(&batch);
    assert_eq!(
        gitlab.take_sent(),
        [blobs("grp/proj", &["a.txt", "b.txt", "c.txt"], true)]
    );
    assert_eq!(got.len(), 3);
    for (entry, name) in got.iter().zip(["a.txt", "b.txt", "c.txt"]) {
        let single = server
            .call(json!({"project_id": "grp/proj", "ref": "main", "file_path": name}))
            .await;
        assert_eq!(entry, &ok(&single), "{name}");
        assert_eq!(entry["metadata"]["total_lines"], 10);
    }
    // The single calls after it were served from the cache, each without content.
    assert!(gitlab.take_sent().iter().all(|s| matches!(
        s,
        Sent::Blobs {
            with_content: false,
            ..
        }
    )));
    server.stop().await;
}

#[tokio::test]
async fn a_missing_entry_among_good_ones_is_probed_alone() {
    let (gitlab, _mock, server) = start().await;
    let got = files(
        &server
            .call_many(json!({"project_id": "grp/proj", "ref": "main", "files": [
                {"file_path": "a.txt"}, {"file_path": "nope.txt"}, {"file_path": "b.txt"}
            ]}))
            .await,
    );
    assert_eq!(
        gitlab.take_sent(),
        [
            blobs("grp/proj", &["a.txt", "nope.txt", "b.txt"], true),
            Sent::Probe {
                path: "nope.txt".into()
            }
        ]
    );
    assert_eq!(got[0]["content"], lines("aaaa", 10));
    assert_eq!(got[2]["content"], lines("bbbb", 10));
    assert_eq!(got[1]["path"], "nope.txt");
    assert_eq!(got[1]["ref"], "main");
    let error = got[1]["error"].as_str().unwrap();
    assert!(
        error.starts_with("File 'nope.txt' does not exist at ref 'main'."),
        "{error}"
    );
    assert!(got[1].get("content").is_none());
    // The same sentence as the single tool's.
    let single = server
        .call(json!({"project_id": "grp/proj", "ref": "main", "file_path": "nope.txt"}))
        .await;
    assert_eq!(err(&single), error);
    server.stop().await;
}

#[tokio::test]
async fn two_projects_in_one_call_are_one_request_each() {
    let (gitlab, _mock, server) = start().await;
    gitlab.project("other/lib", 7, &[("x.rs", lines("xxxx", 3))]);
    gitlab.project("third/one", 9, &[("y.md", lines("yyyy", 2))]);
    let dev = lines("xxxx", 3).into_bytes();
    gitlab
        .standin
        .put_in("other/lib", "refs/heads/dev", "x.rs", dev, false);
    let got = files(
        &server
            .call_many(json!({"project_id": "grp/proj", "ref": "main", "files": [
                {"file_path": "a.txt"},
                {"file_path": "x.rs", "project_id": "other/lib"},
                {"file_path": "b.txt"},
                {"file_path": "y.md", "project_id": 9},
                {"file_path": "x.rs", "project_id": "other/lib", "ref": "dev"}
            ]}))
            .await,
    );
    let mut sent = gitlab.take_sent();
    sent.sort_by_key(|s| format!("{s:?}"));
    let mut want = vec![
        blobs("grp/proj", &["a.txt", "b.txt"], true),
        blobs("other/lib", &["x.rs"], true),
        blobs("other/lib", &["x.rs"], true),
        blobs("third/one", &["y.md"], true),
    ];
    want.sort_by_key(|s| format!("{s:?}"));
    assert_eq!(sent, want);
    assert_eq!(got[1]["content"], lines("xxxx", 3));
    assert_eq!(got[3]["content"], lines("yyyy", 2));
    assert_eq!(got[4]["ref"], "dev");
    assert_eq!(got[2]["content"], lines("bbbb", 10));
    server.stop().await;
}

#[tokio::test]
async fn one_budget_is_shared_in_order_and_names_what_was_not_read() {
    let (gitlab, _mock, server) = start().await;
    let got = files(
        &server
            .call_many(
                json!({"project_id": "grp/proj", "ref": "main", "max_chars": 150, "files": [
                    {"file_path": "a.txt"}, {"file_path": "b.txt"}, {"file_path": "c.txt"}
                ]}),
            )
            .await,
    );
    assert_eq!(gitlab.take_sent().len(), 1);
    // a.txt whole (100 characters), b.txt in the 50 left, c.txt not read.
    assert_eq!(got[0]["content"], lines("aaaa", 10));
    assert!(got[0].get("system_instruction").is_none());
    assert_eq!(got[1]["content"], lines("bbbb", 5));
    let hint = got[1]["system_instruction"].as_str().unwrap();
    assert!(
        hint.contains(r#"call again with {"offset": 5, "limit": 500, "max_chars": 150}"#)
            && hint.contains("within what was left (50 characters) of the call's 150 character budget (max_chars)"),
        "{hint}"
    );
    assert_eq!(got[2]["path"], "c.txt");
    assert!(got[2].get("content").is_none() && got[2].get("error").is_none());
    let hint = got[2]["system_instruction"].as_str().unwrap();
    let args = r#"{"file_path":"c.txt","project_id":"grp/proj","ref":"main","max_chars":150}"#;
    assert_eq!(
        hint,
        format!(
            "Not read: the entries before this one used the call's 150 character budget (max_chars). To read it, call get_repository_file with {args}, or call get_repository_files again with the entries not read."
        )
    );
    // Those arguments read it, from the cache (the batch fetched it).
    let single = server.call(serde_json::from_str(args).unwrap()).await;
    assert_eq!(ok(&single)["content"], lines("cccc", 10));
    assert_eq!(gitlab.take_sent(), [blobs("grp/proj", &["c.txt"], false)]);
    server.stop().await;
}

#[tokio::test]
async fn each_entry_has_its_own_window() {
    let (gitlab, mock, server) = start().await;
    let url = format!("{}/grp/proj/-/blob/main/c.txt#L2-3", mock.uri());
    let got = files(
        &server
            .call_many(
                json!({"project_id": "grp/proj", "ref": "main", "line_numbers": true, "files": [
                    {"file_path": "a.txt", "offset": 2, "limit": 3},
                    {"file_path": "b.txt", "start_line": 9, "end_line": 99},
                    {"url": url},
                    {"file_path": "a.txt", "start_line": 7, "end_line": 3}
                ]}),
            )
            .await,
    );
    // The URL names grp/proj at main too: one request for all.
    assert_eq!(
        gitlab.take_sent(),
        [blobs("grp/proj", &["a.txt", "b.txt", "c.txt"], true)]
    );
    assert_eq!(
        got[0]["metadata"]["returned_lines"],
        json!({"start": 3, "end": 5})
    );
    assert_eq!(
        got[0]["content"],
        "     3\taaaa 0003\n     4\taaaa 0004\n     5\taaaa 0005\n"
    );
    let hint = got[0]["system_instruction"].as_str().unwrap();
    assert!(
        hint.contains(r#"{"offset": 5, "limit": 3, "line_numbers": true}"#),
        "{hint}"
    );
    assert_eq!(
        got[1]["metadata"]["returned_lines"],
        json!({"start": 9, "end": 10})
    );
    assert_eq!(
        got[2]["metadata"]["returned_lines"],
        json!({"start": 2, "end": 3})
    );
    assert_eq!(got[2]["path"], "c.txt");
    let error = got[3]["error"].as_str().unwrap();
    assert!(
        error.starts_with("Invalid line range: start line 7 is after end line 3"),
        "{error}"
    );
    server.stop().await;
}

#[tokio::test]
async fn malformed_calls_are_tool_errors_and_bad_entries_are_not() {
    let (gitlab, _mock, server) = start().await;
    let many: Vec<Value> = (0..21)
        .map(|i| json!({"file_path": format!("f{i}.txt")}))
        .collect();
    let e = err(&server
        .call_many(json!({"project_id": "grp/proj", "files": many}))
        .await);
    assert_eq!(
        e,
        "Argument 'files' has 21 entries; at most 20 are read in one call. Split them over several calls."
    );
    let e = err(&server.call_many(json!({})).await);
    assert!(e.starts_with("Argument 'files' is missing."), "{e}");
    let e = err(&server
        .call_many(json!({"files": [{"file_path": "a"}], "branch": "x"}))
        .await);
    assert!(e.starts_with("Unknown argument 'branch'."), "{e}");
    assert!(gitlab.take_sent().is_empty());
    let got = files(
        &server
            .call_many(json!({"project_id": "grp/proj", "ref": "main", "files": [
                {"file_path": "a.txt", "limit": 0},
                "b.txt",
                {"file_path": "b.txt", "max_chars": 5},
                {"file_path": "../etc/passwd"},
                {"file_path": "b.txt"}
            ]}))
            .await,
    );
    assert_eq!(gitlab.take_sent(), [blobs("grp/proj", &["b.txt"], true)]);
    let error = |i: usize| got[i]["error"].as_str().unwrap().to_string();
    assert!(error(0).starts_with("Argument 'limit' must be between 1 and 2000"));
    assert_eq!(got[0]["path"], "a.txt");
    assert!(error(1).starts_with("Each entry of 'files' must be an object"));
    assert_eq!(got[1]["path"], Value::Null);
    assert!(error(2).starts_with("Argument 'max_chars' applies to the whole call"));
    assert!(error(3).contains("path traversal"), "{}", error(3));
    assert_eq!(got[4]["content"], lines("bbbb", 10));
    server.stop().await;
}

#[tokio::test]
async fn an_excluded_entry_is_refused_and_the_others_read() {
    let (gitlab, _mock, server) = start().await;
    gitlab.rules("grp/proj", &["secret/*"]);
    let got = files(
        &server
            .call_many(json!({"project_id": "grp/proj", "ref": "main", "files": [
                {"file_path": "secret/key.txt"}, {"file_path": "a.txt"}
            ]}))
            .await,
    );
    assert_eq!(
        got[0],
        json!({"path": "secret/key.txt", "ref": "main",
               "error": "File 'secret/key.txt' is excluded from AI context by this project's settings and cannot be read."})
    );
    assert_eq!(got[1]["content"], lines("aaaa", 10));
    assert_eq!(gitlab.take_sent().len(), 1);
    server.stop().await;
}

#[tokio::test]
async fn a_cached_entry_is_asked_without_content() {
    let (gitlab, _mock, server) = start().await;
    let first = server
        .call(json!({"project_id": "grp/proj", "ref": "main", "file_path": "a.txt"}))
        .await;
    let first = ok(&first);
    assert_eq!(gitlab.take_sent(), [blobs("grp/proj", &["a.txt"], true)]);
    let got = files(
        &server
            .call_many(json!({"project_id": "grp/proj", "ref": "main", "files": [
                {"file_path": "a.txt"}, {"file_path": "b.txt"}
            ]}))
            .await,
    );
    let mut sent = gitlab.take_sent();
    sent.sort_by_key(|s| format!("{s:?}"));
    assert_eq!(
        sent,
        [
            blobs("grp/proj", &["a.txt"], false),
            blobs("grp/proj", &["b.txt"], true)
        ]
    );
    assert_eq!(got[0], first);
    assert_eq!(got[1]["content"], lines("bbbb", 10));
    // Both cached now: the next batch is one request without content.
    files(
        &server
            .call_many(json!({"project_id": "grp/proj", "ref": "main", "files": [
                {"file_path": "b.txt"}, {"file_path": "a.txt", "offset": 9}
            ]}))
            .await,
    );
    assert_eq!(
        gitlab.take_sent(),
        [blobs("grp/proj", &["b.txt", "a.txt"], false)]
    );
    server.stop().await;
}

#[tokio::test]
async fn a_group_past_gitlabs_20_mib_cap_is_asked_in_parts() {
    let gitlab = Gitlab::default();
    let big = |c: char| -> String {
        let line: String = std::iter::repeat_n(c, 63).chain(['\n']).collect();
        line.repeat(8 * 1024 * 1024 / 64)
    };
    gitlab.project(
        "grp/proj",
        42,
        &[
            ("a.txt", big('a')),
            ("b.txt", big('b')),
            ("c.txt", big('c')),
        ],
    );
    let mock = gitlab.standin.start().await;
    let server = spawn_gitlab(&mock.uri(), None).await;
    let got = files(
        &server
            .call_many(
                json!({"project_id": "grp/proj", "ref": "main", "max_chars": 0, "files": [
                    {"file_path": "a.txt", "limit": 1},
                    {"file_path": "b.txt", "offset": 5, "limit": 1},
                    {"file_path": "c.txt", "offset": 131071}
                ]}),
            )
            .await,
    );
    let all = ["a.txt", "b.txt", "c.txt"];
    assert_eq!(
        gitlab.take_sent(),
        [
            blobs("grp/proj", &all, true),
            blobs("grp/proj", &all, false),
            blobs("grp/proj", &["a.txt", "b.txt"], true),
            blobs("grp/proj", &["c.txt"], true),
        ]
    );
    let line = |c: char| std::iter::repeat_n(c, 63).chain(['\n']).collect::<String>();
    assert_eq!(got[0]["content"], line('a'));
    assert_eq!(got[1]["content"], line('b'));
    assert_eq!(got[2]["content"], line('c'));
    assert_eq!(got[2]["metadata"]["total_lines"], 131072);
    server.stop().await;
}

#[tokio::test]
async fn local_mode_reads_each_entry_as_the_single_tool_does() {
    let fixture = git_fixture::build();
    let repo = fixture.path().to_str().unwrap();
    let server = spawn(&["serve", "--repo", repo], &[]).await;
    let got = files(
        &server
            .call_many(json!({"files": [
                {"file_path": "README.md", "limit": 2},
                {"file_path": "src/lib.rs", "ref": "v1.0"},
                {"file_path": "nope.txt"},
                {"file_path": "files/images/logo.png"}
            ]}))
            .await,
    );
    let singles = [
        json!({"file_path": "README.md", "limit": 2}),
        json!({"file_path": "src/lib.rs", "ref": "v1.0"}),
    ];
    for (entry, args) in got.iter().zip(singles) {
        assert_eq!(entry, &ok(&server.call(args).await));
    }
    assert_eq!(got[1]["content"], git_fixture::LIB_MAIN);
    let missing = err(&server.call(json!({"file_path": "nope.txt"})).await);
    assert_eq!(
        got[2],
        json!({"path": "nope.txt", "ref": "HEAD", "error": missing})
    );
    let binary = got[3]["error"].as_str().unwrap();
    assert!(
        binary.starts_with("File 'files/images/logo.png' is binary"),
        "{binary}"
    );
    server.stop().await;
}

#[tokio::test]
async fn entries_search_and_re_read_as_the_single_tool_does() {
    let (gitlab, _mock, server) = start().await;
    let held = gitlab_mock::git_blob_id(lines("aaaa", 10).as_bytes());
    let entries = json!([
        {"file_path": "a.txt", "if_none_match": held},
        {"file_path": "b.txt", "pattern": "^bbbb 0007$", "context_lines": 1},
        {"file_path": "c.txt", "pattern": "("}
    ]);
    let got = files(
        &server
            .call_many(json!({"project_id": "grp/proj", "ref": "main", "files": entries}))
            .await,
    );
    // The held file is asked without content, the searched one with it; the pattern that
    // does not compile costs no request.
    let mut sent = gitlab.take_sent();
    sent.sort_by_key(|s| format!("{s:?}"));
    assert_eq!(
        sent,
        [
            blobs("grp/proj", &["a.txt"], false),
            blobs("grp/proj", &["b.txt"], true)
        ]
    );
    assert_eq!(got[0]["metadata"]["unchanged"], true, "{}", got[0]);
    assert!(got[0].get("content").is_none());
    assert_eq!(got[1]["content"], "6-bbbb 0006\n7:bbbb 0007\n8-bbbb 0008\n");
    assert_eq!(got[1]["metadata"]["matches"]["lines"], json!([7]));
    let error = got[2]["error"].as_str().unwrap();
    assert!(error.starts_with("Invalid pattern '('"), "{error}");
    // Each entry is what the single tool answers with the same arguments.
    for (entry, mut args) in got.iter().zip(entries.as_array().unwrap().clone()) {
        args["project_id"] = json!("grp/proj");
        args["ref"] = json!("main");
        let single = server.call(args).await;
        match entry.get("error") {
            Some(e) => assert_eq!(e.as_str().unwrap(), err(&single)),
            None => assert_eq!(entry, &ok(&single)),
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn an_unchanged_entry_is_answered_after_the_budget_is_spent() {
    let (_gitlab, _mock, server) = start().await;
    let held = gitlab_mock::git_blob_id(lines("bbbb", 10).as_bytes());
    let got = files(
        &server
            .call_many(
                json!({"project_id": "grp/proj", "ref": "main", "max_chars": 50, "files": [
                    {"file_path": "a.txt"},
                    {"file_path": "b.txt", "if_none_match": held},
                    {"file_path": "c.txt"}
                ]}),
            )
            .await,
    );
    // a.txt spends the budget; b.txt needs none (no content), c.txt is not read.
    assert!(got[0]["content"].is_string());
    assert_eq!(got[1]["metadata"]["unchanged"], true, "{}", got[1]);
    assert!(got[2].get("content").is_none());
    let hint = got[2]["system_instruction"].as_str().unwrap();
    assert!(hint.starts_with("Not read:"), "{hint}");
    server.stop().await;
}

/// A stand-in holding `files` in `grp/proj`, and the server talking to it.
async fn start_with(files: &[(&str, String)]) -> (Gitlab, MockServer, mcp::Server) {
    let gitlab = Gitlab::default();
    gitlab.project("grp/proj", 42, files);
    let mock = gitlab.standin.start().await;
    let server = spawn_gitlab(&mock.uri(), None).await;
    (gitlab, mock, server)
}

/// The hint of the entry after `files`' last, which the shared budget did not reach.
async fn not_read_hint(server: &mcp::Server, max_chars: Option<u64>, entries: Value) -> String {
    let mut call = json!({"project_id": "grp/proj", "ref": "main", "files": entries});
    if let Some(max_chars) = max_chars {
        call["max_chars"] = max_chars.into();
    }
    let got = files(&server.call_many(call).await);
    let last = got.last().unwrap();
    assert!(last.get("content").is_none(), "{last}");
    last["system_instruction"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_not_read_entry_names_the_limit_that_spent_the_budget() {
    // Issue 34: with no max_chars, the entry the budget did not reach said it "used the call's
    // 100000 character budget (max_chars)", and after a squeeze by the one-message limit the
    // call's 478779 character budget, though the caller set none.
    let line = format!("{}\n", "x".repeat(99));
    let (_gitlab, _mock, server) = start_with(&[("big.txt", line.repeat(8000))]).await;
    let window = |offset: u64| json!({"file_path": "big.txt", "offset": offset, "limit": 2000});
    let hint = not_read_hint(&server, None, json!([window(0), window(2000)])).await;
    assert!(
        hint.starts_with("Not read: the entries before this one used the default 100000 character budget (the call sent no max_chars)."),
        "{hint}"
    );
    // The fourth entry is squeezed by the one-message limit; the fifth is not read.
    let entries = json!([
        window(0),
        window(2000),
        window(4000),
        window(6000),
        window(0)
    ]);
    let hint = not_read_hint(&server, Some(0), entries.clone()).await;
    assert!(
        hint.starts_with("Not read: the entries before this one used what fits in one message (1000000 bytes, the content being sent twice)."),
        "{hint}"
    );
    let hint = not_read_hint(&server, Some(150_000), json!([window(0), window(2000)])).await;
    assert!(
        hint.starts_with("Not read: the entries before this one used the call's 150000 character budget (max_chars)."),
        "{hint}"
    );
    server.stop().await;
}

#[tokio::test]
async fn an_entry_squeezed_by_the_message_continues_exactly_where_it_stopped() {
    // Issue 34: the fourth of four 2,000-line windows (max_chars: 0), squeezed by the
    // one-message limit, returned part of line 6001 and said the rest was "not retrievable";
    // following its hint skipped the rest of that line for good.
    let line = format!("{}\n", "x".repeat(99));
    let file = line.repeat(8000);
    let (_gitlab, _mock, server) = start_with(&[("big.txt", file.clone())]).await;
    let window = |offset: u64| json!({"file_path": "big.txt", "offset": offset, "limit": 2000});
    let call = json!({"project_id": "grp/proj", "ref": "main", "max_chars": 0,
        "files": [window(0), window(2000), window(4000), window(6000)]});
    let got = files(&server.call_many(call).await);
    let fourth = &got[3];
    let content = fourth["content"].as_str().unwrap();
    let hint = fourth["system_instruction"].as_str().unwrap();
    assert!(!hint.contains("not retrievable"), "{hint}");
    assert!(
        hint.contains("what fits in one message"),
        "the limit that cut: {hint}"
    );
    // The first call the hint names, merged into the entry's arguments, continues exactly.
    let mut args = json!({"project_id": "grp/proj", "ref": "main", "file_path": "big.txt",
        "offset": 6000, "limit": 2000, "max_chars": 0});
    for (k, v) in mcp::first_call(hint).expect("a call to continue") {
        args[k] = v;
    }
    let next = ok(&server.call(args).await);
    let joined = format!("{content}{}", next["content"].as_str().unwrap());
    let from_6001 = &file[6000 * line.len()..];
    assert!(
        joined.len() > content.len() && from_6001.starts_with(&joined),
        "a gap or an overlap after {} bytes",
        content.len()
    );
    server.stop().await;
}

#[tokio::test]
async fn one_file_named_twenty_times_is_asked_once() {
    // Issue 46: each entry held its own copy of the blob (20 one-line windows of a 95 MB file:
    // 1.8 GB in local mode); now a read named twice is fetched once and its text shared.
    let (gitlab, _mock, server) = start().await;
    let entries: Vec<Value> = (0..20)
        .map(|i| json!({"file_path": "a.txt", "offset": i % 10, "limit": 1}))
        .collect();
    let batch = server
        .call_many(json!({"project_id": "grp/proj", "ref": "main", "files": entries}))
        .await;
    let got = files(&batch);
    assert_eq!(gitlab.take_sent(), [blobs("grp/proj", &["a.txt"], true)]);
    for (i, entry) in got.iter().enumerate() {
        let line = format!("aaaa {:04}\n", i % 10 + 1);
        assert_eq!(entry["content"], line.as_str(), "{i}");
    }
    server.stop().await;
}
