//! Reading a large GraphQL answer off the async workers (issue 26), over HTTP against the real
//! binary: while two gzip-compressed answers of about 48 MB of JSON each (an 8 MB
//! `rawTextBlob` of control characters, which JSON writes as six bytes each) are decoded and
//! parsed, `/healthz` is answered. The gzip decoding is paced on the worker, the parse runs on
//! the blocking pool; without either, both workers would be held for the whole decode.

use crate::support::gitlab_mock;
use crate::support::http_server;

use std::io::Write;
use std::time::{Duration, Instant};

use gitlab_mock::*;
use http_server::{HttpServer as Server, http_client, mcp_client, text};
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use wiremock::matchers::body_string_contains;
use wiremock::{MockServer, ResponseTemplate};

const TOKEN: &str = "glpat-SERVER-ssssssssssssss";
const PATHS: [&str; 2] = ["a.txt", "b.txt"];

/// About 8 MB of lines of the control characters JSON escapes as `\u00XX` (no NUL, so it is
/// text): the answer carrying it is about six times as long.
fn escaped_text() -> String {
    let line: String = (1u8..=31)
        .filter(|b| *b != b'\n' && *b != b'\r')
        .map(char::from)
        .chain(std::iter::once('\n'))
        .collect();
    line.repeat(8_000_000 / line.len())
}

/// `bytes` gzip-compressed (fast: the answers are built before the server starts).
fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// A GitLab answering each path's query with that file alone, gzip-compressed; and the JSON
/// length of one answer.
async fn gitlab(text: &str) -> (MockServer, usize) {
    let server = MockServer::start().await;
    let mut json_len = 0;
    for path in PATHS {
        let answer = project_answer("grp/proj", 7, vec![text_node(path, text)]);
        let body = serde_json::to_vec(&answer).unwrap();
        json_len = body.len();
        graphql()
            .and(body_string_contains(path))
            .respond_with(
                ResponseTemplate::new(200)
                    .insert_header("content-encoding", "gzip")
                    .set_body_raw(gzip(&body), "application/json"),
            )
            .mount(&server)
            .await;
    }
    (server, json_len)
}

fn read(path: &str) -> CallToolRequestParams {
    let args =
        json!({"project_id": "grp/proj", "file_path": path, "ref": "main", "max_chars": 200});
    let Value::Object(map) = args else {
        unreachable!()
    };
    CallToolRequestParams::new("get_repository_file").with_arguments(map)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn health_is_answered_while_two_large_compressed_answers_are_read() {
    let (gitlab, json_len) = gitlab(&escaped_text()).await;
    assert!(
        json_len > 40_000_000 && json_len < 64 * 1_048_576,
        "{json_len} bytes of JSON: past 40 MB, within the server's 64 MiB limit"
    );
    let server = Server::start(&gitlab.uri(), &[], Some(TOKEN));
    let mut reads = Vec::new();
    for path in PATHS {
        let client = mcp_client(&server.mcp(), &[]).await;
        reads.push(tokio::spawn(async move {
            let result = client.call_tool(read(path)).await.expect("call");
            client.cancel().await.ok();
            result
        }));
    }
    // GitLab has answered both: the server is decoding and parsing them.
    http_server::wait_for_gitlab_requests(&gitlab, PATHS.len()).await;
    let health = http_client();
    let (mut during, mut slowest) = (0, Duration::ZERO);
    while reads.iter().any(|r| !r.is_finished()) {
        let both_running = reads.iter().all(|r| !r.is_finished());
        let started = Instant::now();
        let answer = health
            .get(format!("{}/healthz", server.base))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200);
        slowest = slowest.max(started.elapsed());
        if both_running && reads.iter().all(|r| !r.is_finished()) {
            during += 1;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    eprintln!("{during} health checks answered while both reads ran; the slowest took {slowest:?}");
    assert!(
        during > 0,
        "no health check fell while both reads ran: the test proves nothing"
    );
    assert!(slowest < Duration::from_secs(1), "{slowest:?}");
    // Both reads answered, from the one GraphQL request each.
    for read in reads {
        let result = read.await.unwrap();
        assert_ne!(result.is_error, Some(true), "{}", text(&result));
        assert!(text(&result).contains("\\u0001"), "{}", text(&result));
    }
    assert_eq!(gitlab.received_requests().await.unwrap().len(), PATHS.len());
}
