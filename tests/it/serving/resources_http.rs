//! Resources over HTTP (issue 49), in session and stateless mode, with each caller's own
//! token: two users complete projects and each sees only their own (GitLab's membership, and
//! the per-caller cache never answers one with the other's), a blob URL is read as a resource
//! with the caller's token, and the read counts in `/metrics` as a `get_repository_file` call.

use crate::support::gitlab::{Access, Gitlab, MAIN, User};
use crate::support::http_server::{HttpServer, mcp_client};

use rmcp::model::{
    ArgumentInfo, CompleteRequestParams, ReadResourceRequestParams, Reference, ResourceContents,
};

use wiremock::MockServer;

const ALICE: &str = "glpat-ALICE-resources-0000000";
const BOB: &str = "glpat-BOB-resources-111111111";

/// The GitLab stand-in for two users: Alice reads `alice/proj`, Bob `bob/proj`, each holding a
/// README that names its user.
async fn gitlab() -> MockServer {
    let gitlab = Gitlab {
        access: Access::Users(vec![
            User::new(ALICE, 1, &["alice/proj"]),
            User::new(BOB, 2, &["bob/proj"]),
        ]),
        ..Gitlab::of_project("alice/proj", 1)
    };
    gitlab.host("bob/proj", 2);
    for name in ["alice", "bob"] {
        let readme = format!("{name}'s readme\n").into_bytes();
        gitlab.put_in(&format!("{name}/proj"), MAIN, "README.md", readme, false);
    }
    gitlab.start().await
}

async fn each_caller_completes_and_reads_with_their_own_token(mode: &[&str]) {
    let gitlab = gitlab().await;
    let mut flags = vec!["--token-from-request"];
    flags.extend_from_slice(mode);
    let server = HttpServer::start(&gitlab.uri(), &flags, None);
    let template = format!("{}/{{+project}}/-/blob/{{+ref}}/{{+path}}", gitlab.uri());
    for (token, name) in [(ALICE, "alice"), (BOB, "bob")] {
        let auth = format!("Bearer {token}");
        let client = mcp_client(&server.mcp(), &[("authorization", &auth)]).await;
        let ask = CompleteRequestParams::new(
            Reference::for_resource(template.clone()),
            ArgumentInfo::new("project", "proj"),
        );
        let done = client.complete(ask).await.expect("completion/complete");
        assert_eq!(done.completion.values, [format!("{name}/proj")]);
        let uri = format!("{}/{name}/proj/-/blob/main/README.md", gitlab.uri());
        let read = client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
            .expect("resources/read");
        match &read.contents[0] {
            ResourceContents::TextResourceContents { text, .. } => {
                assert_eq!(text, &format!("{name}'s readme\n"))
            }
            other => panic!("{other:?}"),
        }
        client.cancel().await.unwrap();
    }
    let scrape = server.metrics().await;
    let ok_reads = scrape
        .lines()
        .find(|l| {
            l.starts_with("gitlab_file_mcp_tool_calls_total{")
                && l.contains(r#"tool="get_repository_file""#)
                && l.contains(r#"outcome="ok""#)
        })
        .unwrap_or_default();
    assert!(ok_reads.ends_with(" 2"), "two reads counted: {ok_reads}");
}

#[tokio::test]
async fn sessions_complete_and_read_per_caller() {
    each_caller_completes_and_reads_with_their_own_token(&[]).await;
}

#[tokio::test]
async fn stateless_completes_and_reads_per_caller() {
    each_caller_completes_and_reads_with_their_own_token(&["--stateless"]).await;
}
