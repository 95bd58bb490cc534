//! Resources over MCP (issue 49): templates, `resources/read`, the local list and path
//! completion, through rmcp against a local repository (`git_fixture`), the GraphQL stand-in
//! of `gitlab_mock` (reads) and the stateful stand-in of `gitlab` (completion).

use rmcp::model::{ReadResourceResult, ResourceContents};
use serde_json::json;

use crate::support::git_fixture as fx;
use crate::support::gitlab as tg;
use crate::support::gitlab_mock::{self as gm, graphql, json_response, project_answer, text_node};
use crate::support::mcp::{self, Server};

/// The MCP error code of a missing resource.
const RESOURCE_NOT_FOUND: i32 = -32002;

const LOCAL_TEMPLATE: &str = "repo:///{+path}{?ref}";

async fn local(repo: &std::path::Path, env: &[(&str, &str)]) -> Server {
    let repo = repo.to_str().expect("UTF-8 temp path");
    mcp::spawn(&["serve", "--repo", repo], env).await
}

/// The bytes of a read's one content (a blob, base64), and its MIME type.
fn blob(read: &ReadResourceResult) -> (Vec<u8>, Option<String>) {
    use base64::Engine;
    assert_eq!(read.contents.len(), 1, "{read:?}");
    match &read.contents[0] {
        ResourceContents::BlobResourceContents {
            blob, mime_type, ..
        } => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(blob)
                .expect("base64");
            (bytes, mime_type.clone())
        }
        other => panic!("not a blob: {other:?}"),
    }
}

/// The text of a read's one content, and its MIME type.
fn text(read: &ReadResourceResult) -> (String, Option<String>) {
    assert_eq!(read.contents.len(), 1, "{read:?}");
    match &read.contents[0] {
        ResourceContents::TextResourceContents {
            text, mime_type, ..
        } => (text.clone(), mime_type.clone()),
        other => panic!("not text: {other:?}"),
    }
}

#[tokio::test]
async fn local_template_reads_files_at_refs_and_pasted_blob_urls() {
    let fixture = fx::build();
    let server = local(fixture.path(), &[]).await;
    let templates = server.resource_templates().await;
    assert_eq!(templates.len(), 1);
    let t = &templates[0];
    assert_eq!(
        (t.uri_template.as_str(), t.name.as_str(), t.title.as_deref()),
        (LOCAL_TEMPLATE, "repository_file", Some("Repository file"))
    );
    assert!(t.description.as_deref().unwrap_or("").contains("path"));

    let read = server.read_resource("repo:///src/lib.rs").await.unwrap();
    assert_eq!(
        text(&read),
        (fx::LIB_MAIN.into(), Some("text/x-rust".into()))
    );
    // The MIME type is the extension's text type, else text/plain.
    let mime = |uri: &'static str| {
        let server = &server;
        async move { text(&server.read_resource(uri).await.unwrap()).1 }
    };
    assert_eq!(
        mime("repo:///README.md").await.as_deref(),
        Some("text/markdown")
    );
    assert_eq!(mime("repo:///big.txt").await.as_deref(), Some("text/plain"));
    let at_release = "repo:///src/lib.rs?ref=release/2026/q4";
    let read = server.read_resource(at_release).await.unwrap();
    assert_eq!(text(&read).0, fx::LIB_RELEASE);
    // A blob URL pasted from GitLab: the ref with slashes splits as it does for the tool.
    let pasted = "https://gitlab.example.com/g/p/-/blob/release/2026/q4/src/lib.rs";
    let read = server.read_resource(pasted).await.unwrap();
    assert_eq!(text(&read).0, fx::LIB_RELEASE);
    server.stop().await;
}

#[tokio::test]
async fn local_read_errors_are_the_tools_sentences() {
    let fixture = fx::build();
    let server = local(fixture.path(), &[]).await;
    let (code, missing) = server.read_resource("repo:///src/lib.r").await.unwrap_err();
    assert_eq!(code, RESOURCE_NOT_FOUND, "{missing}");
    assert!(
        missing.contains("src/lib.r") && missing.contains("src/lib.rs"),
        "{missing}"
    );
    let (code, no_ref) = server
        .read_resource("repo:///src/lib.rs?ref=no-such")
        .await
        .unwrap_err();
    assert_eq!(code, RESOURCE_NOT_FOUND, "{no_ref}");
    assert!(no_ref.starts_with("Ref 'no-such' not found."), "{no_ref}");
    let (_, other) = server
        .read_resource("file:///etc/passwd")
        .await
        .unwrap_err();
    assert!(other.contains("names no file"), "{other}");
    server.stop().await;
}

#[tokio::test]
async fn local_binary_reads_as_a_blob_with_its_type_up_to_the_stated_size() {
    let mut png = fx::LOGO_PNG.to_vec();
    png.resize(700_000, 0);
    let files = vec![
        ("img/logo.png".to_string(), fx::LOGO_PNG.to_vec()),
        ("img/largest.png".to_string(), png.clone()),
        ("img/too-large.png".to_string(), vec![0; 700_001]),
        ("data/x.unknownext".to_string(), b"\0\x01\x02".to_vec()),
    ];
    let dir = fx::build_with(&files);
    let server = local(dir.path(), &[]).await;
    let read = server.read_resource("repo:///img/logo.png").await.unwrap();
    assert_eq!(
        blob(&read),
        (fx::LOGO_PNG.to_vec(), Some("image/png".into()))
    );
    let read = server
        .read_resource("repo:///img/largest.png")
        .await
        .unwrap();
    assert_eq!(blob(&read).0, png, "700,000 bytes are served");
    let read = server.read_resource("repo:///data/x.unknownext").await;
    assert_eq!(
        blob(&read.unwrap()).1.as_deref(),
        Some("application/octet-stream")
    );
    let (code, e) = server
        .read_resource("repo:///img/too-large.png")
        .await
        .unwrap_err();
    assert_eq!(code, -32602, "{e}");
    assert_eq!(
        e,
        "File 'img/too-large.png' is binary and 700001 bytes, more than the 700000 bytes a \
resource serves of a binary file; read it with git in the repository: git show 'HEAD:img/too-large.png'."
    );
    server.stop().await;
}

#[tokio::test]
async fn gitlab_binary_is_a_verified_blob_and_an_lfs_text_is_text() {
    use crate::support::gitlab::Gitlab;
    let gitlab = Gitlab::default();
    let main = "refs/heads/main";
    gitlab.put_at(main, "img/logo.png", fx::LOGO_PNG.to_vec(), false);
    gitlab.put_at(main, "img/huge.png", vec![0; 700_001], false);
    let notes = "# Notes\n\nKept in LFS.\n";
    gitlab.put_at(main, "docs/notes.md", notes.as_bytes().to_vec(), true);
    let mock = gitlab.start().await;
    let server = mcp::spawn_gitlab(&mock.uri(), Some(TOKEN)).await;
    let at = |path: &str| format!("{}/grp/proj/-/blob/main/{path}", mock.uri());

    let read = server.read_resource(&at("img/logo.png")).await.unwrap();
    assert_eq!(
        blob(&read),
        (fx::LOGO_PNG.to_vec(), Some("image/png".into()))
    );
    let rest = gitlab.log().rest;
    assert!(
        rest.iter().any(|p| p.ends_with(&format!(
            "/repository/blobs/{}/raw",
            gm::git_blob_id(fx::LOGO_PNG)
        ))),
        "{rest:?}"
    );

    let read = server.read_resource(&at("docs/notes.md")).await.unwrap();
    assert_eq!(text(&read), (notes.into(), Some("text/markdown".into())));
    assert!(gitlab.log().rest.iter().any(|p| p.contains("lfs=true")));

    let (code, e) = server.read_resource(&at("img/huge.png")).await.unwrap_err();
    assert_eq!(code, -32602, "{e}");
    assert!(
        e.ends_with(&format!(
            "more than the 700000 bytes a resource serves of a binary file; download it from \
GitLab at {}.",
            at("img/huge.png").replace("/-/blob/", "/-/raw/")
        )),
        "{e}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_file_past_the_budget_gives_its_first_window_and_the_call_that_reads_on() {
    let fixture = fx::build();
    let server = local(fixture.path(), &[("GITLAB_FILE_MCP_MAX_CHARS", "1000")]).await;
    let read = server.read_resource("repo:///big.txt").await.unwrap();
    let (text, _) = text(&read);
    assert!(text.starts_with("line 1\nline 2\n"), "{text}");
    let (content, hint) = text.rsplit_once("\n\n[").expect("a hint after the content");
    assert!(content.len() <= 1000, "{} chars", content.len());
    let (shown, call) = hint
        .split_once("; read the rest with get_repository_file ")
        .expect("the call that reads on");
    assert!(
        shown.starts_with("Lines 1-") && shown.ends_with(" of 1500 are shown"),
        "{shown}"
    );
    let call: serde_json::Value =
        serde_json::from_str(call.strip_suffix(".]\n").expect("one sentence")).unwrap();
    let end: u64 = shown["Lines 1-".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        call,
        json!({"file_path": "big.txt", "limit": 2000, "offset": end})
    );
    server.stop().await;
}

#[tokio::test]
async fn local_list_pages_every_file_once_in_path_order() {
    let files: Vec<(String, Vec<u8>)> = (0..450)
        .map(|i| (format!("d{}/f{i:04}.txt", i % 3), b"x\n".to_vec()))
        .collect();
    let dir = fx::build_with(&files);
    let server = local(dir.path(), &[]).await;
    let (mut uris, mut pages, mut cursor) = (Vec::new(), 0, None);
    loop {
        let page = server.list_resources(cursor.take()).await;
        pages += 1;
        uris.extend(page.resources.iter().map(|r| r.uri.clone()));
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
        assert!(pages < 100, "pages never end");
    }
    assert_eq!((pages, uris.len()), (3, 450));
    let mut sorted = uris.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(uris, sorted, "sorted, each once");
    assert_eq!(uris[0], "repo:///d0/f0000.txt");
    server.stop().await;
}

#[tokio::test]
async fn local_path_completes_the_typed_directory_as_full_paths() {
    let fixture = fx::build();
    let server = local(fixture.path(), &[]).await;
    let c = server.complete(LOCAL_TEMPLATE, "path", "files/", &[]).await;
    assert_eq!(c.values, ["files/images/", "files/lfs/"]);
    assert_eq!((c.total, c.has_more), (Some(2), Some(false)));
    let c = server.complete(LOCAL_TEMPLATE, "path", "s", &[]).await;
    assert_eq!(c.values, ["src/"]);
    let c = server.complete(LOCAL_TEMPLATE, "path", "src/", &[]).await;
    assert_eq!(c.values, ["src/lib.rs"]);
    let release = [("ref", "release/2026/q4")];
    let c = server.complete(LOCAL_TEMPLATE, "path", "n", &release).await;
    assert_eq!(c.values, ["no-newline.txt", "notes.md"]);
    let c = server.complete(LOCAL_TEMPLATE, "path", "n", &[]).await;
    assert_eq!(c.values, ["no-newline.txt"]);
    server.stop().await;
}

#[tokio::test]
async fn gitlab_template_is_the_blob_url_and_a_pasted_url_reads() {
    let gitlab = wiremock::MockServer::start().await;
    graphql()
        .respond_with(json_response(project_answer(
            "grp/sub/proj",
            42,
            vec![text_node("a.rs", "fn a() {}\n")],
        )))
        .expect(1)
        .mount(&gitlab)
        .await;
    let server = mcp::spawn_gitlab(&gitlab.uri(), Some("t0ken")).await;
    let templates = server.resource_templates().await;
    let template = format!("{}/{{+project}}/-/blob/{{+ref}}/{{+path}}", gitlab.uri());
    assert_eq!(templates[0].uri_template, template);
    assert_eq!(templates[0].name, "gitlab_file");
    let uri = format!("{}/grp/sub/proj/-/blob/main/a.rs", gitlab.uri());
    let read = server.read_resource(&uri).await.unwrap();
    assert_eq!(text(&read).0, "fn a() {}\n");
    match &read.contents[0] {
        ResourceContents::TextResourceContents { uri: got, .. } => assert_eq!(got, &uri),
        other => panic!("{other:?}"),
    }
    // Without a project there is nothing to list: the template is the way in.
    assert!(server.list_resources(None).await.resources.is_empty());
    let (_, local) = server.read_resource("repo:///a.rs").await.unwrap_err();
    assert!(local.contains("reads GitLab"), "{local}");
    server.stop().await;
}

#[tokio::test]
async fn gitlab_missing_project_is_not_found_and_completes_to_nothing() {
    let gitlab = wiremock::MockServer::start().await;
    graphql()
        .respond_with(json_response(json!({"data": {"project": null}})))
        .mount(&gitlab)
        .await;
    let server = mcp::spawn_gitlab(&gitlab.uri(), Some("t0ken")).await;
    let uri = format!("{}/other/secret/-/blob/main/a.rs", gitlab.uri());
    let (code, e) = server.read_resource(&uri).await.unwrap_err();
    assert_eq!(code, RESOURCE_NOT_FOUND);
    assert!(
        e.starts_with("Project 'other/secret' not found or inaccessible"),
        "{e}"
    );
    let _ = gm::COMMIT;
    server.stop().await;
}

#[tokio::test]
async fn gitlab_path_completes_from_the_tree_and_never_from_an_unreadable_project() {
    let repo = tg::Gitlab::default().with_files([
        ("README.md", "# r\n"),
        ("src/main.rs", "fn main() {}\n"),
        ("src/util/mod.rs", "\n"),
    ]);
    let gitlab = repo.start().await;
    let server = mcp::spawn_gitlab(&gitlab.uri(), Some("t0ken")).await;
    let template = format!("{}/{{+project}}/-/blob/{{+ref}}/{{+path}}", gitlab.uri());
    let at = [("project", "grp/proj"), ("ref", "main")];
    let c = server.complete(&template, "path", "src/", &at).await;
    assert_eq!(c.values, ["src/main.rs", "src/util/"]);
    let c = server.complete(&template, "path", "", &at).await;
    assert_eq!(c.values, ["README.md", "src/"]);
    let before = tg::requests(&gitlab).await.len();
    let c = server.complete(&template, "path", "src/u", &at).await;
    assert_eq!(c.values, ["src/util/"]);
    let asked = tg::requests(&gitlab).await.len() - before;
    assert_eq!(asked, 1, "a cached tree costs only the ref's commit");
    let private = [("project", "group/private"), ("ref", "main")];
    let c = server.complete(&template, "path", "", &private).await;
    assert!(c.values.is_empty(), "{:?}", c.values);
    let c = server.complete(&template, "path", "", &[]).await;
    assert!(c.values.is_empty(), "no project, no paths");
    server.stop().await;
}

const TOKEN: &str = "glpat-RESOURCES0123456789";

#[tokio::test]
async fn gitlab_project_completes_from_the_callers_projects_once_per_moment() {
    let gitlab = wiremock::MockServer::start().await;
    graphql()
        .and(gm::QueryContains("query CompleteProjects"))
        .and(gm::Variables(json!({"search": "proj", "first": 100})))
        .and(wiremock::matchers::header(
            "authorization",
            format!("Bearer {TOKEN}").as_str(),
        ))
        .respond_with(json_response(gm::projects_search_answer(
            &["grp/sub/proj", "grp/project-two"],
            false,
        )))
        .expect(1)
        .mount(&gitlab)
        .await;
    graphql()
        .and(gm::QueryContains("query CompleteProjects"))
        .and(gm::Variables(json!({"search": "g"})))
        .respond_with(json_response(gm::projects_search_answer(&["g/a"], true)))
        .expect(1)
        .mount(&gitlab)
        .await;
    let server = mcp::spawn_gitlab(&gitlab.uri(), Some(TOKEN)).await;
    let template = format!("{}/{{+project}}/-/blob/{{+ref}}/{{+path}}", gitlab.uri());
    for _ in 0..2 {
        let c = server.complete(&template, "project", "proj", &[]).await;
        assert_eq!(c.values, ["grp/sub/proj", "grp/project-two"]);
        assert_eq!((c.total, c.has_more), (Some(2), Some(false)));
    }
    let c = server.complete(&template, "project", "g", &[]).await;
    assert_eq!((c.values.len(), c.total, c.has_more), (1, None, Some(true)));
    server.stop().await;
}

#[tokio::test]
async fn gitlab_ref_completes_default_branch_first_then_branches_and_tags() {
    let gitlab = wiremock::MockServer::start().await;
    graphql()
        .and(gm::QueryContains("query CompleteRefs"))
        .and(gm::Variables(
            json!({"projectPath": "grp/sub/proj", "pattern": "ma*"}),
        ))
        .respond_with(json_response(gm::refs_answer(Some((
            "main",
            &["maintenance", "main", "main-next"],
        )))))
        .expect(1)
        .mount(&gitlab)
        .await;
    gm::tags()
        .and(wiremock::matchers::query_param("search", "^ma"))
        .respond_with(json_response(gm::tags_answer(&["march-1", "main"])))
        .expect(1)
        .mount(&gitlab)
        .await;
    graphql()
        .and(gm::QueryContains("query CompleteRefs"))
        .and(gm::Variables(json!({"projectPath": "other/secret"})))
        .respond_with(json_response(gm::refs_answer(None)))
        .expect(1)
        .mount(&gitlab)
        .await;
    let server = mcp::spawn_gitlab(&gitlab.uri(), Some(TOKEN)).await;
    let template = format!("{}/{{+project}}/-/blob/{{+ref}}/{{+path}}", gitlab.uri());
    let c = server
        .complete(&template, "ref", "ma", &[("project", "grp/sub/proj")])
        .await;
    assert_eq!(c.values, ["main", "main-next", "maintenance", "march-1"]);
    // A project the caller cannot read: nothing, and its tags are never asked.
    let c = server
        .complete(&template, "ref", "ma", &[("project", "other/secret")])
        .await;
    assert!(c.values.is_empty(), "{:?}", c.values);
    let c = server.complete(&template, "ref", "ma", &[]).await;
    assert!(c.values.is_empty(), "no project, no refs");
    server.stop().await;
}

#[tokio::test]
async fn the_2026_era_session_reads_and_completes_too() {
    let fixture = fx::build();
    let repo = fixture.path().to_str().expect("UTF-8 temp path");
    let server = mcp::spawn_discovering(&["serve", "--repo", repo], &[]).await;
    assert_eq!(
        server.resource_templates().await[0].uri_template,
        LOCAL_TEMPLATE
    );
    let read = server.read_resource("repo:///docs/guide.md").await.unwrap();
    assert_eq!(text(&read).0, fx::DOCS_GUIDE);
    let c = server.complete(LOCAL_TEMPLATE, "path", "docs/", &[]).await;
    assert_eq!(c.values, ["docs/guide.md"]);
    server.stop().await;
}
