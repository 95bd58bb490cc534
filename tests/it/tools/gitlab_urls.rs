//! File URLs end to end: the real binary over stdio against the GitLab stand-in answering the
//! URL-split query for a small repository (refs with slashes, tags, files per ref). Covers GitLab's ref/path precedence, the fallback, `ref_type`, `#L` anchors,
//! relative roots, the mismatch errors, the one-request rule and the foreign-host rule.

use crate::support::gitlab_mock;
use crate::support::mcp;

use crate::support::gitlab::Gitlab;
use gitlab_mock::*;
use mcp::{err, ok, spawn, spawn_gitlab};
use serde_json::{Value, json};
use wiremock::MockServer;

/// A tiny repository (branches, tags and files per ref) in GitLab's project `grp/sub/proj`
/// (id 42), built with [`Repo::branch`] and [`Repo::tag`].
struct Repo(Gitlab);

impl Repo {
    fn new() -> Repo {
        Repo(Gitlab::of_project("grp/sub/proj", 42))
    }
    fn branch(self, name: &str, files: &[(&str, &str)]) -> Self {
        self.at(&format!("refs/heads/{name}"), files)
    }
    fn tag(self, name: &str, files: &[(&str, &str)]) -> Self {
        self.at(&format!("refs/tags/{name}"), files)
    }
    fn at(self, qualified: &str, files: &[(&str, &str)]) -> Self {
        for (path, text) in files {
            self.0
                .put_at(qualified, path, text.as_bytes().to_vec(), false);
        }
        self
    }
    /// GitLab refuses `name` "Ref is not valid" (on that alias only, like GitLab).
    fn refusing(self, name: &str) -> Self {
        self.0.refuse_ref(name);
        self
    }
    /// The instance's relative URL root (`/gitlab`), which GitLab's permalink paths start with.
    fn at_root(self, root: &str) -> Gitlab {
        Gitlab {
            root: root.into(),
            ..self.0
        }
    }
}

fn repo() -> Repo {
    Repo::new()
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
        .respond_with(repo().0)
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
    let repo = Repo::new().branch("main", &[("n.txt", &content)]);
    let gitlab = MockServer::start().await;
    graphql()
        .respond_with(repo.0)
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
        .respond_with(repo().0)
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
    let standin = repo().at_root("/gitlab");
    let server_mock = MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .and(wiremock::matchers::path("/gitlab/api/graphql"))
        .respond_with(standin.clone())
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
    let commit = standin.commit_of("refs/heads/main");
    assert_eq!(out["metadata"]["commit_sha"], commit);
    assert_eq!(
        out["metadata"]["web_url"],
        format!("{base}/grp/sub/proj/-/blob/{commit}/README.md#L1")
    );
    // A URL split across a slash ref: cited at that ref's commit, with the URL's anchor.
    let out = ok(&server
        .call(json!({"url": format!("{base}/grp/sub/proj/-/blob/release/2026/q4/src/main.rs#L1")}))
        .await);
    let commit = standin.commit_of("refs/heads/release/2026/q4");
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
        .respond_with(repo().0)
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
    let repo = Repo::new().branch("main", &[(deep, "deep\n")]);
    let gitlab = MockServer::start().await;
    // 12 candidate splits, 8 per request: two requests.
    graphql()
        .respond_with(repo.0)
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
    let repo = Repo::new().branch("main", &[("dir with space/file name.md", "spaced\n")]);
    let gitlab = MockServer::start().await;
    graphql()
        .respond_with(repo.0)
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
        .respond_with(repo().refusing("feature/x").0)
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
