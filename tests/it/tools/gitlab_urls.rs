//! File URLs end to end: the real binary over stdio against a wiremock GitLab that answers the
//! URL-split query like GitLab would for a small in-memory repository (refs with slashes, tags,
//! files per ref). Covers GitLab's ref/path precedence, the fallback, `ref_type`, `#L` anchors,
//! relative roots, the mismatch errors, the one-request rule and the foreign-host rule.

use crate::support::gitlab_mock;
use crate::support::mcp;

use std::collections::{BTreeMap, BTreeSet};

use gitlab_mock::*;
use mcp::{err, ok, spawn, spawn_gitlab};
use serde_json::{Map, Value, json};
use wiremock::{MockServer, Request, Respond, ResponseTemplate};

/// A tiny repository: branches, tags, and files per ref.
#[derive(Clone, Default)]
struct FakeRepo {
    branches: BTreeSet<String>,
    tags: BTreeSet<String>,
    files: BTreeMap<(String, String), String>,
    /// Refs GitLab answers "Ref is not valid" for (on that alias only, like GitLab).
    invalid: BTreeSet<String>,
    /// The instance's relative URL root (`/gitlab`), which GitLab's permalink paths start with.
    root: String,
}

impl FakeRepo {
    fn at_root(mut self, root: &str) -> Self {
        self.root = root.into();
        self
    }
    /// The commit a fully qualified ref is at: one per ref, as a repository's branches differ.
    fn commit(name: &str) -> String {
        git_blob_id(format!("commit of {name}").as_bytes())
    }
    fn refusing(mut self, name: &str) -> Self {
        self.invalid.insert(name.into());
        self
    }
    fn is_invalid(&self, r: &str) -> bool {
        let bare = r
            .strip_prefix("refs/heads/")
            .or_else(|| r.strip_prefix("refs/tags/"))
            .unwrap_or(r);
        self.invalid.contains(bare)
    }
    fn branch(mut self, name: &str, files: &[(&str, &str)]) -> Self {
        self.branches.insert(name.into());
        for (p, c) in files {
            self.files
                .insert((format!("refs/heads/{name}"), (*p).into()), (*c).into());
        }
        self
    }
    fn tag(mut self, name: &str, files: &[(&str, &str)]) -> Self {
        self.tags.insert(name.into());
        for (p, c) in files {
            self.files
                .insert((format!("refs/tags/{name}"), (*p).into()), (*c).into());
        }
        self
    }
    /// The fully qualified ref a name resolves to; like git, a bare name prefers the tag.
    fn resolve(&self, r: &str) -> Option<String> {
        if let Some(b) = r.strip_prefix("refs/heads/") {
            return self.branches.contains(b).then(|| r.to_string());
        }
        if let Some(t) = r.strip_prefix("refs/tags/") {
            return self.tags.contains(t).then(|| r.to_string());
        }
        if self.tags.contains(r) {
            return Some(format!("refs/tags/{r}"));
        }
        self.branches.contains(r).then(|| format!("refs/heads/{r}"))
    }
    fn blob(&self, r: &str, ref_type: Option<&str>, path: &str) -> Option<Value> {
        let qualified = match ref_type {
            Some("HEADS") => format!("refs/heads/{r}"),
            Some("TAGS") => format!("refs/tags/{r}"),
            _ => r.to_string(),
        };
        let name = self.resolve(&qualified)?;
        let content = self.files.get(&(name.clone(), path.to_string()))?;
        let node = text_node(path, content);
        Some(with_permalink(
            node,
            &self.root,
            "grp/sub/proj",
            &FakeRepo::commit(&name),
        ))
    }
}

/// Answers `BlobBySplits` (and the ref check) for `grp/sub/proj` (id 42) from a [`FakeRepo`].
struct SplitResponder(FakeRepo);

impl Respond for SplitResponder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let query = body["query"].as_str().unwrap_or_default();
        let vars = body["variables"].as_object().cloned().unwrap_or_default();
        if vars
            .get("projectPath")
            .and_then(Value::as_str)
            .map(str::to_lowercase)
            .as_deref()
            != Some("grp/sub/proj")
        {
            return json_response(json!({"data": {"project": null}}));
        }
        if query.contains("query MissProbe") {
            let r = vars["ref"].as_str().unwrap();
            return json_response(ref_check_answer(self.0.resolve(r).is_some(), false));
        }
        let ref_type = vars.get("refType").and_then(Value::as_str);
        if query.contains("query Blob(") {
            let (r, p) = (
                vars["ref"].as_str().unwrap(),
                vars["paths"][0].as_str().unwrap(),
            );
            let nodes: Vec<Value> = self.0.blob(r, ref_type, p).into_iter().collect();
            return json_response(project_answer("grp/sub/proj", 42, nodes));
        }
        assert!(
            query.contains("query BlobBySplits"),
            "unexpected query {query}"
        );
        let mut repo = Map::new();
        let mut errors = Vec::new();
        let mut refuse = |alias: String, repo: &mut Map<String, Value>| {
            errors.push(
                json!({"message": "Ref is not valid", "locations": [{"line": 1, "column": 1}],
                               "path": ["project", "repository", alias]}),
            );
            repo.insert(alias, Value::Null);
        };
        for i in 0..64 {
            let Some(r) = vars.get(&format!("r{i}")).and_then(Value::as_str) else {
                continue;
            };
            let p = vars[&format!("p{i}")][0].as_str().unwrap();
            if self.0.is_invalid(r) {
                refuse(format!("b{i}"), &mut repo);
            } else {
                let nodes: Vec<Value> = self.0.blob(r, ref_type, p).into_iter().collect();
                repo.insert(format!("b{i}"), json!({"nodes": nodes}));
            }
            for k in ["h", "t"] {
                if let Some(q) = vars.get(&format!("{k}{i}")).and_then(Value::as_str) {
                    if self.0.is_invalid(q) {
                        refuse(format!("{k}{i}"), &mut repo);
                        continue;
                    }
                    let found = self
                        .0
                        .resolve(q)
                        .map(|_| json!({"sha": "1111111111111111111111111111111111111111"}));
                    repo.insert(format!("{k}{i}"), found.unwrap_or(Value::Null));
                }
            }
        }
        let mut answer = json!({"data": {"project": {
            "id": "gid://gitlab/Project/42", "fullPath": "grp/sub/proj", "repository": repo
        }}});
        if !errors.is_empty() {
            answer["errors"] = json!(errors);
        }
        json_response(answer)
    }
}

fn repo() -> FakeRepo {
    FakeRepo::default()
        .branch(
            "main",
            &[
                ("README.md", "main readme\n"),
                ("src/main.rs", "fn main() {}\n"),
            ],
        )
        .branch("release/2026/q4", &[("src/main.rs", "fn release() {}\n")])
        .branch("feature", &[("x/a.txt", "from feature\n")])
        .branch(
            "feature/x",
            &[
                ("a.txt", "from feature/x\n"),
                ("b.txt", "only on feature/x\n"),
            ],
        )
        .tag("v1.0", &[("README.md", "v1 readme\n")])
        .branch("v1.0", &[("README.md", "branch named like the tag\n")])
}

async fn gitlab(expect: u64) -> MockServer {
    let server = MockServer::start().await;
    graphql()
        .respond_with(SplitResponder(repo()))
        .expect(expect)
        .mount(&server)
        .await;
    server
}

fn url(gitlab: &MockServer, rest: &str) -> Value {
    json!({"url": format!("{}/grp/sub/proj/{rest}", gitlab.uri())})
}

#[tokio::test]
async fn slash_refs_resolve_in_one_request() {
    let gitlab = gitlab(1).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let out = ok(&server
        .call(url(&gitlab, "-/blob/release/2026/q4/src/main.rs"))
        .await);
    assert_eq!(out["ref"], "release/2026/q4");
    assert_eq!(out["path"], "src/main.rs");
    assert_eq!(out["content"], "fn release() {}\n");
    assert!(out.get("system_instruction").is_none());
    server.stop().await;
}

#[tokio::test]
async fn the_first_segment_wins_when_it_is_a_branch() {
    let gitlab = gitlab(1).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let out = ok(&server.call(url(&gitlab, "-/blob/feature/x/a.txt")).await);
    assert_eq!(
        (out["ref"].as_str(), out["content"].as_str()),
        (Some("feature"), Some("from feature\n"))
    );
    server.stop().await;
}

#[tokio::test]
async fn when_gitlabs_split_has_no_file_another_split_is_used_and_named() {
    let gitlab = gitlab(1).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let out = ok(&server.call(url(&gitlab, "-/blob/feature/x/b.txt")).await);
    assert_eq!(
        (out["ref"].as_str(), out["path"].as_str()),
        (Some("feature/x"), Some("b.txt"))
    );
    let hint = out["system_instruction"].as_str().unwrap();
    assert!(
        hint.contains("ref 'feature/x'") && hint.contains("(ref 'feature')"),
        "{hint}"
    );
    server.stop().await;
}

#[tokio::test]
async fn url_forms_raw_blame_old_style_and_ref_type() {
    let gitlab = gitlab(6).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let out = ok(&server
        .call(url(&gitlab, "-/blob/v1.0/README.md?ref_type=heads"))
        .await);
    assert_eq!(out["content"], "branch named like the tag\n");
    for rest in [
        "-/raw/main/README.md",
        "-/blame/main/README.md",
        "blob/main/README.md",
        "-/blob/main/README.md?ref_type=heads",
    ] {
        let out = ok(&server.call(url(&gitlab, rest)).await);
        assert_eq!(out["content"], "main readme\n", "{rest}");
    }
    let out = ok(&server
        .call(url(&gitlab, "-/blob/v1.0/README.md?ref_type=TAGS"))
        .await);
    assert_eq!(out["content"], "v1 readme\n");
    let tagged = gitlab_mock::bodies(&gitlab).await;
    assert_eq!(tagged.last().unwrap()["variables"]["refType"], "TAGS");
    server.stop().await;
}

#[tokio::test]
async fn line_anchors_select_the_window_unless_the_call_names_one() {
    let content: String = (1..=30).map(|i| format!("{i}\n")).collect();
    let repo = FakeRepo::default().branch("main", &[("n.txt", &content)]);
    let gitlab = MockServer::start().await;
    graphql()
        .respond_with(SplitResponder(repo))
        .expect(3)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let out = ok(&server.call(url(&gitlab, "-/blob/main/n.txt#L10-12")).await);
    assert_eq!(out["content"], "10\n11\n12\n");
    let out = ok(&server.call(url(&gitlab, "-/blob/main/n.txt#L29")).await);
    assert_eq!(out["content"], "29\n");
    let mut a = url(&gitlab, "-/blob/main/n.txt#L10-12");
    a["offset"] = json!(0);
    a["limit"] = json!(1);
    assert_eq!(ok(&server.call(a).await)["content"], "1\n");
    server.stop().await;
}

#[tokio::test]
async fn nothing_found_reports_gitlabs_choice() {
    let gitlab = gitlab(4).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let e = err(&server.call(url(&gitlab, "-/blob/main/src/nope.rs")).await);
    assert!(
        e.starts_with("File 'src/nope.rs' does not exist at ref 'main'."),
        "{e}"
    );
    let e = err(&server.call(url(&gitlab, "-/blob/nobranch/src/x.rs")).await);
    assert!(e.starts_with("Ref 'nobranch' not found."), "{e}");
    server.stop().await;
}

#[tokio::test]
async fn mismatches_fail_before_any_request() {
    let gitlab = gitlab(0).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let base = url(&gitlab, "-/blob/main/src/main.rs");
    let cases = [
        (
            "project_id",
            json!("other/proj"),
            "Project mismatch: project_id is 'other/proj' but url contains 'grp/sub/proj'",
        ),
        (
            "file_path",
            json!("src/lib.rs"),
            "File path mismatch: file_path is 'src/lib.rs'",
        ),
        (
            "ref",
            json!("develop"),
            "Ref mismatch: ref is 'develop' but url contains 'main'",
        ),
    ];
    for (key, value, want) in cases {
        let mut a = base.clone();
        a[key] = value;
        let e = err(&server.call(a).await);
        assert!(e.contains(want), "{key}: {e}");
    }
    server.stop().await;
}

#[tokio::test]
async fn agreeing_arguments_and_case_insensitive_project_paths_are_fine() {
    let gitlab = gitlab(3).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let mut a = url(&gitlab, "-/blob/release/2026/q4/src/main.rs");
    a["project_id"] = json!("GRP/Sub/Proj");
    a["ref"] = json!("release/2026/q4");
    a["file_path"] = json!("/src/main.rs");
    assert_eq!(ok(&server.call(a).await)["content"], "fn release() {}\n");
    let mut a = url(&gitlab, "-/blob/main/README.md");
    a["project_id"] = json!("42");
    assert_eq!(ok(&server.call(a).await)["content"], "main readme\n");
    let mut a = url(&gitlab, "-/blob/main/README.md");
    a["project_id"] = json!(7);
    let e = err(&server.call(a).await);
    assert!(
        e.starts_with("Project mismatch: project_id is '7'") && e.contains("grp/sub/proj"),
        "{e}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_foreign_host_never_sees_a_request() {
    let gitlab = gitlab(0).await;
    let foreign = MockServer::start().await;
    graphql()
        .respond_with(SplitResponder(repo()))
        .expect(0)
        .mount(&foreign)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), Some("glpat-NEVERELSEWHERE")).await;
    let e = err(&server
        .call(json!({"url": format!("{}/grp/sub/proj/-/blob/main/README.md", foreign.uri())}))
        .await);
    assert!(e.contains(&gitlab.uri().replace("http://", "")), "{e}");
    assert!(foreign.received_requests().await.unwrap().is_empty());
    let e = err(&server
        .call(json!({"url": format!("{}/grp/sub/proj/-/tree/main/src", gitlab.uri())}))
        .await);
    assert!(e.starts_with("Invalid file URL"), "{e}");
    let e = err(&server
        .call(json!({"url": "ftp://x/grp/p/-/blob/main/a"}))
        .await);
    assert!(e.starts_with("Invalid file URL"), "{e}");
    server.stop().await;
}

#[tokio::test]
async fn relative_url_roots() {
    let server_mock = MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .and(wiremock::matchers::path("/gitlab/api/graphql"))
        .respond_with(SplitResponder(repo().at_root("/gitlab")))
        .expect(2)
        .mount(&server_mock)
        .await;
    let base = format!("{}/gitlab", server_mock.uri());
    let server = spawn(&[], &[("GITLAB_URL", &base)]).await;
    let out = ok(&server
        .call(json!({"url": format!("{base}/grp/sub/proj/-/blob/main/README.md")}))
        .await);
    assert_eq!(out["content"], "main readme\n");
    // GitLab's permalink path carries the root; it is joined to the origin once.
    let commit = FakeRepo::commit("refs/heads/main");
    assert_eq!(out["metadata"]["commit_sha"], commit);
    assert_eq!(
        out["metadata"]["web_url"],
        format!("{base}/grp/sub/proj/-/blob/{commit}/README.md#L1")
    );
    // A URL split across a slash ref: cited at that ref's commit, with the URL's anchor.
    let out = ok(&server
        .call(json!({"url": format!("{base}/grp/sub/proj/-/blob/release/2026/q4/src/main.rs#L1")}))
        .await);
    let commit = FakeRepo::commit("refs/heads/release/2026/q4");
    assert_eq!(
        out["metadata"]["web_url"],
        format!("{base}/grp/sub/proj/-/blob/{commit}/src/main.rs#L1")
    );
    let e = err(&server
        .call(json!({"url": format!("{}/gitlab-org/p/-/blob/main/README.md", server_mock.uri())}))
        .await);
    assert!(e.starts_with("Invalid file URL"), "{e}");
    server.stop().await;
}

#[tokio::test]
async fn instances_without_repository_commit_still_split() {
    let gitlab = MockServer::start().await;
    graphql()
        .and(QueryContains("commit(ref:"))
        .respond_with(json_response(undefined_field("commit", "Repository")))
        .expect(1)
        .mount(&gitlab)
        .await;
    graphql()
        .and(QueryLacks("commit(ref:"))
        .respond_with(SplitResponder(repo()))
        .expect(2)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    for _ in 0..2 {
        let out = ok(&server
            .call(url(&gitlab, "-/blob/release/2026/q4/src/main.rs"))
            .await);
        assert_eq!(out["ref"], "release/2026/q4");
    }
    server.stop().await;
}

#[tokio::test]
async fn deep_paths_are_batched_and_absurd_ones_refused() {
    let deep = "a/b/c/d/e/f/g/h/i/j/k.txt";
    let repo = FakeRepo::default().branch("main", &[(deep, "deep\n")]);
    let gitlab = MockServer::start().await;
    // 12 candidate splits, 8 per request: two requests.
    graphql()
        .respond_with(SplitResponder(repo))
        .expect(2)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let out = ok(&server
        .call(url(&gitlab, &format!("-/blob/main/{deep}")))
        .await);
    assert_eq!(out["content"], "deep\n");
    let absurd = vec!["d"; 40].join("/");
    let e = err(&server
        .call(url(&gitlab, &format!("-/blob/main/{absurd}/x.rs")))
        .await);
    assert!(e.contains("32"), "{e}");
    server.stop().await;
}

#[tokio::test]
async fn a_path_with_spaces_is_not_a_ref_and_reads_in_one_request() {
    let repo = FakeRepo::default().branch("main", &[("dir with space/file name.md", "spaced\n")]);
    let gitlab = MockServer::start().await;
    graphql()
        .respond_with(SplitResponder(repo))
        .expect(1)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let out = ok(&server
        .call(url(
            &gitlab,
            "-/blob/main/dir%20with%20space/file%20name.md",
        ))
        .await);
    assert_eq!(
        (
            out["ref"].as_str(),
            out["path"].as_str(),
            out["content"].as_str()
        ),
        (
            Some("main"),
            Some("dir with space/file name.md"),
            Some("spaced\n")
        )
    );
    // `main/dir with space` was never asked about.
    let sent = gitlab_mock::bodies(&gitlab).await;
    assert!(
        !sent[0]["variables"]
            .to_string()
            .contains("main/dir with space"),
        "{sent:?}"
    );
    server.stop().await;
}

#[tokio::test]
async fn an_error_on_one_split_alias_does_not_fail_the_others() {
    // GitLab refuses `feature/x` (as it refuses any ref it deems invalid) on its aliases only.
    let gitlab = MockServer::start().await;
    graphql()
        .respond_with(SplitResponder(repo().refusing("feature/x")))
        // One request for the read; two for the miss (the split query, then the probe).
        .expect(3)
        .mount(&gitlab)
        .await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    let out = ok(&server.call(url(&gitlab, "-/blob/feature/x/a.txt")).await);
    assert_eq!(
        (out["ref"].as_str(), out["content"].as_str()),
        (Some("feature"), Some("from feature\n"))
    );
    // No candidate has the file: the miss is reported about GitLab's own split.
    let out = err(&server.call(url(&gitlab, "-/blob/feature/x/b.txt")).await);
    assert!(
        out.starts_with("File 'x/b.txt' does not exist at ref 'feature'"),
        "{out}"
    );
    server.stop().await;
}

#[tokio::test]
async fn dot_segments_are_refused_before_any_request() {
    let gitlab = gitlab(0).await;
    let server = spawn_gitlab(&gitlab.uri(), None).await;
    for rest in [
        "-/blob/main/../../../../../other/secret/-/blob/main/README.md",
        "-/blob/main/%2e%2e/%2e%2e/%2e%2e/%2E%2E/%2e%2e/other/secret/-/blob/main/README.md",
        "-/blob/main/%2E./README.md",
        "-/blob/main/./README.md",
    ] {
        let e = err(&server.call(url(&gitlab, rest)).await);
        assert!(
            e.starts_with("Invalid file URL: file_path must not contain a path traversal sequence"),
            "{rest}: {e}"
        );
    }
    server.stop().await;
}
