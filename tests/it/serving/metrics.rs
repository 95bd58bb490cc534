//! `GET /metrics` end to end: the real binary over HTTP against a wiremock GitLab whose every
//! answer is a fixed body, so requests and bytes are known exactly. A scripted set of calls (a
//! cache miss, a hit, an error on a hostile path, refused requests) is scraped and the
//! exposition parsed with `prometheus-parse`; counters are checked by value, and every label
//! value against the fixed sets the server may use. Also: `--metrics-addr` (a listener of its
//! own, checking Origin but not Host), `--no-metrics`, and no metrics flag outside HTTP mode.

use crate::support::gitlab_mock;
use crate::support::http_server;

use std::collections::HashMap;
use std::process::Command;

use gitlab_mock::{QueryContains, Variables, graphql, project_answer, ref_check_answer, text_node};
use http_server::{HttpServer, RawResponse, mcp_client, text};
use prometheus_parse::{Scrape, Value as Sample};
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use wiremock::{MockServer, ResponseTemplate};

const BIN: &str = env!("CARGO_BIN_EXE_gitlab-file-mcp");
const TOKEN: &str = "glpat-METRICS-tttttttttttttttt";
const CONTENT: &str = "line one\nline two\nline three\n";
/// A path built to break an exposition if it ever became a label value: quotes, braces, a
/// label of its own, a `le`, and words that must not appear in the scrape.
/// The kinds of tool error the server may count.
const KINDS: [&str; 12] = [
    "not_found",
    "binary",
    "lfs",
    "excluded",
    "too_large",
    "bad_argument",
    "upstream",
    "timeout",
    "shutdown",
    "cancelled",
    "no_token",
    "internal",
];
const HOSTILE: &str = r#"secret-x/"} 9 {outcome="ok",le="+Inf",kind="SMUGGLED"#;

/// The fixed bodies GitLab answers with: the blob with content, without it, no blob (the
/// hostile path), and the miss probe's answer (the ref exists, the path is no directory).
struct Answers {
    with_content: String,
    without_content: String,
    no_blob: String,
    probe: String,
}

impl Answers {
    fn new() -> Self {
        let mut bare = text_node("README.md", CONTENT);
        bare.as_object_mut().unwrap().remove("rawTextBlob");
        Answers {
            with_content: project_answer("grp/proj", 42, vec![text_node("README.md", CONTENT)])
                .to_string(),
            without_content: project_answer("grp/proj", 42, vec![bare]).to_string(),
            no_blob: project_answer("grp/proj", 42, vec![]).to_string(),
            probe: ref_check_answer(true, false).to_string(),
        }
    }
}

fn body(text: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(text.as_bytes().to_vec(), "application/json")
}

async fn gitlab(answers: &Answers) -> MockServer {
    let server = MockServer::start().await;
    graphql()
        .and(QueryContains("query MissProbe"))
        .respond_with(body(&answers.probe))
        .mount(&server)
        .await;
    let blob = |vars: Value| {
        graphql()
            .and(QueryContains("query Blob"))
            .and(Variables(vars))
    };
    blob(json!({"paths": ["README.md"], "withContent": true}))
        .respond_with(body(&answers.with_content))
        .mount(&server)
        .await;
    blob(json!({"paths": ["README.md"], "withContent": false}))
        .respond_with(body(&answers.without_content))
        .mount(&server)
        .await;
    blob(json!({"paths": [HOSTILE]}))
        .respond_with(body(&answers.no_blob))
        .mount(&server)
        .await;
    server
}

fn read(project: &str, file: &str) -> CallToolRequestParams {
    let Value::Object(args) = json!({"project_id": project, "file_path": file, "ref": "main"})
    else {
        unreachable!()
    };
    CallToolRequestParams::new("get_repository_file").with_arguments(args)
}

/// `GET path` on `port` with `headers`, on a connection of its own.
async fn get(port: u16, path: &str, headers: &[&str]) -> RawResponse {
    let host = headers
        .iter()
        .any(|h| h.to_ascii_lowercase().starts_with("host:"))
        .then(String::new)
        .unwrap_or_else(|| format!("Host: 127.0.0.1:{port}\r\n"));
    let extra: String = headers.iter().map(|h| format!("{h}\r\n")).collect();
    let request = format!("GET {path} HTTP/1.1\r\n{host}{extra}Connection: close\r\n\r\n");
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(http_server::PATIENCE))
        .unwrap();
    tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        RawResponse::parse(&answer)
    })
    .await
    .unwrap()
}

fn parse(exposition: &str) -> Scrape {
    Scrape::parse(exposition.lines().map(|l| Ok(l.to_string()))).expect("a valid exposition")
}

/// The one sample `name` whose labels include `labels`; its value.
fn value(scrape: &Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    let found: Vec<_> = scrape
        .samples
        .iter()
        .filter(|s| s.metric == name && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v)))
        .collect();
    assert_eq!(found.len(), 1, "{name} {labels:?}: {found:?}");
    match &found[0].value {
        Sample::Counter(v) | Sample::Gauge(v) | Sample::Untyped(v) => *v,
        other => panic!("{name} is not a number: {other:?}"),
    }
}

/// The observations in a histogram series (its `+Inf` bucket).
fn observations(scrape: &Scrape, name: &str, part: &str) -> f64 {
    let series = scrape
        .samples
        .iter()
        .find(|s| {
            s.metric == name
                && s.labels.get("part") == Some(part)
                && s.labels.get("tool") == Some("get_repository_file")
        })
        .unwrap_or_else(|| panic!("no {name}{{part={part}}}"));
    let Sample::Histogram(buckets) = &series.value else {
        panic!("{name} is not a histogram");
    };
    buckets
        .iter()
        .find(|b| b.less_than.is_infinite())
        .expect("a +Inf bucket")
        .count
}

/// Every label value the server may use, by label name.
fn allowed_labels() -> HashMap<&'static str, Vec<&'static str>> {
    HashMap::from([
        (
            "tool",
            vec![
                "get_repository_file",
                "get_repository_files",
                "search_repository",
            ],
        ),
        ("outcome", vec!["ok", "tool_error"]),
        ("kind", {
            let mut kinds = vec![""];
            kinds.extend(KINDS);
            kinds
        }),
        ("part", vec!["total", "gitlab", "own"]),
        (
            "step",
            vec![
                "registered",
                "registration_refused",
                "client_metadata_fetched",
                "client_metadata_refused",
                "signed_in",
                "authorization_refused",
                "code_exchanged",
                "refreshed",
                "token_refused",
            ],
        ),
        (
            "endpoint",
            vec!["graphql", "rest_raw", "lfs", "code_search"],
        ),
        (
            "status_class",
            vec!["1xx", "2xx", "3xx", "4xx", "5xx", "no_answer"],
        ),
        (
            "guard",
            vec![
                "origin",
                "host",
                "body_size",
                "token",
                "session",
                "body_timeout",
                "body_framing",
                "json_rpc",
                "capacity",
                "request_timeout",
                "token_refused",
                "token_check",
                "sessions_per_token",
                "sessions_total",
            ],
        ),
    ])
}

#[tokio::test]
async fn a_scripted_session_is_counted_by_value() {
    let answers = Answers::new();
    let gitlab = gitlab(&answers).await;
    let server = HttpServer::start(&gitlab.uri(), &["--stateless"], Some(TOKEN));
    let client = mcp_client(&server.mcp(), &[]).await;
    // A miss (the first read downloads the content), then a hit (asked without content).
    for _ in 0..2 {
        let result = client
            .call_tool(read("grp/proj", "README.md"))
            .await
            .unwrap();
        assert_ne!(result.is_error, Some(true), "{}", text(&result));
    }
    // An error, on a path made to break an exposition.
    let missing = client.call_tool(read("grp/proj", HOSTILE)).await.unwrap();
    assert_eq!(missing.is_error, Some(true));
    assert!(
        text(&missing).contains("does not exist"),
        "{}",
        text(&missing)
    );
    client.cancel().await.unwrap();
    // Refused: a foreign Origin on /mcp, a foreign Host on /metrics.
    let origin = server
        .raw(http_server::post(
            &format!("127.0.0.1:{}", server.port),
            &[
                "Origin: http://evil.example",
                "Content-Type: application/json",
            ],
            b"{}",
        ))
        .await;
    assert_eq!(origin.status, 403);
    let host = get(server.port, "/metrics", &["Host: evil.example"]).await;
    assert_eq!(host.status, 403);

    let scraped = get(server.port, "/metrics", &[]).await;
    assert_eq!(scraped.status, 200, "{}", scraped.body);
    assert!(
        scraped
            .head
            .contains("content-type: text/plain; version=0.0.4"),
        "{}",
        scraped.head
    );
    let s = parse(&scraped.body);
    let calls = "gitlab_file_mcp_tool_calls_total";
    let tool = ("tool", "get_repository_file");
    assert_eq!(value(&s, calls, &[tool, ("outcome", "ok")]), 2.0);
    assert_eq!(
        value(
            &s,
            calls,
            &[tool, ("outcome", "tool_error"), ("kind", "not_found")]
        ),
        1.0
    );
    for kind in KINDS.into_iter().filter(|k| *k != "not_found") {
        assert_eq!(value(&s, calls, &[tool, ("kind", kind)]), 0.0, "{kind}");
    }
    let durations = "gitlab_file_mcp_tool_call_duration_seconds";
    for part in ["total", "gitlab", "own"] {
        assert_eq!(observations(&s, durations, part), 3.0, "{part}");
    }
    assert_eq!(value(&s, "gitlab_file_mcp_tool_calls_in_flight", &[]), 0.0);
    // The error's call never reaches the cache: one miss, one hit.
    assert_eq!(
        value(&s, "gitlab_file_mcp_blob_cache_misses_total", &[]),
        1.0
    );
    assert_eq!(value(&s, "gitlab_file_mcp_blob_cache_hits_total", &[]), 1.0);
    assert_eq!(value(&s, "gitlab_file_mcp_blob_cache_entries", &[]), 1.0);
    assert_eq!(
        value(&s, "gitlab_file_mcp_blob_cache_bytes", &[]),
        CONTENT.len() as f64
    );
    assert_eq!(
        value(&s, "gitlab_file_mcp_blob_cache_evictions_total", &[]),
        0.0
    );
    // GitLab: blob with content, blob without, blob not found, the miss probe.
    let received = gitlab.received_requests().await.unwrap();
    assert_eq!(received.len(), 4);
    let requests = "gitlab_file_mcp_gitlab_requests_total";
    let graphql_2xx = [("endpoint", "graphql"), ("status_class", "2xx")];
    assert_eq!(value(&s, requests, &graphql_2xx), 4.0);
    assert_eq!(
        value(
            &s,
            requests,
            &[("endpoint", "rest_raw"), ("status_class", "2xx")]
        ),
        0.0
    );
    let bytes = answers.with_content.len()
        + answers.without_content.len()
        + answers.no_blob.len()
        + answers.probe.len();
    assert_eq!(
        value(
            &s,
            "gitlab_file_mcp_gitlab_received_bytes_total",
            &[("endpoint", "graphql")]
        ),
        bytes as f64
    );
    assert_eq!(
        value(
            &s,
            "gitlab_file_mcp_gitlab_retries_total",
            &[("endpoint", "graphql")]
        ),
        0.0
    );
    let refused = "gitlab_file_mcp_http_refused_requests_total";
    assert_eq!(value(&s, refused, &[("guard", "origin")]), 1.0);
    assert_eq!(value(&s, refused, &[("guard", "host")]), 1.0);
    assert_eq!(value(&s, refused, &[("guard", "token")]), 0.0);
    // The scrape's own connection at least.
    assert!(value(&s, "gitlab_file_mcp_http_open_connections", &[]) >= 1.0);

    // Nothing the caller sent is a label value, and nothing of the hostile path shows.
    let allowed = allowed_labels();
    for sample in &s.samples {
        assert!(
            sample.metric.starts_with("gitlab_file_mcp_"),
            "{}",
            sample.metric
        );
        for (name, v) in sample.labels.iter() {
            let known = allowed.get(name.as_str());
            assert!(
                known.is_some_and(|values| values.contains(&v.as_str())),
                "{}: {name}={v:?}",
                sample.metric
            );
        }
    }
    for word in ["secret", "SMUGGLED", "grp/proj", "README", "main", TOKEN] {
        assert!(!scraped.body.contains(word), "{word} in the scrape");
    }
}

#[tokio::test]
async fn retries_and_status_classes_are_counted_per_attempt() {
    let answers = Answers::new();
    let gitlab = MockServer::start().await;
    // One 502, then the file: one retry, two attempts.
    graphql()
        .respond_with(
            ResponseTemplate::new(502).set_body_raw(b"bad gateway".to_vec(), "text/plain"),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&gitlab)
        .await;
    graphql()
        .respond_with(body(&answers.with_content))
        .mount(&gitlab)
        .await;
    let server = HttpServer::start(&gitlab.uri(), &["--stateless"], Some(TOKEN));
    let client = mcp_client(&server.mcp(), &[]).await;
    let result = client
        .call_tool(read("grp/proj", "README.md"))
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{}", text(&result));
    client.cancel().await.unwrap();
    let s = parse(&get(server.port, "/metrics", &[]).await.body);
    let requests = "gitlab_file_mcp_gitlab_requests_total";
    let class = |c| {
        value(
            &s,
            requests,
            &[("endpoint", "graphql"), ("status_class", c)],
        )
    };
    assert_eq!((class("5xx"), class("2xx")), (1.0, 1.0));
    assert_eq!(
        value(
            &s,
            "gitlab_file_mcp_gitlab_retries_total",
            &[("endpoint", "graphql")]
        ),
        1.0
    );
    // The retried answer's body is never read; the second one is.
    assert_eq!(
        value(
            &s,
            "gitlab_file_mcp_gitlab_received_bytes_total",
            &[("endpoint", "graphql")]
        ),
        answers.with_content.len() as f64
    );
    assert_eq!(
        value(
            &s,
            "gitlab_file_mcp_tool_calls_total",
            &[("tool", "get_repository_file"), ("outcome", "ok")]
        ),
        1.0
    );
}

#[tokio::test]
async fn metrics_addr_serves_them_apart_checking_origin_not_host() {
    let answers = Answers::new();
    let gitlab = gitlab(&answers).await;
    let server = HttpServer::start(
        &gitlab.uri(),
        &["--stateless", "--metrics-addr", "127.0.0.1:0"],
        Some(TOKEN),
    );
    let log = server.log();
    let port: u16 = log
        .lines()
        .find_map(|l| l.split("metrics at http://127.0.0.1:").nth(1))
        .and_then(|rest| rest.trim().trim_end_matches("/metrics").parse().ok())
        .unwrap_or_else(|| panic!("no metrics line:\n{log}"));
    // Not on the MCP listener any more.
    let main = get(server.port, "/metrics", &[]).await;
    assert_eq!(main.status, 404);
    // A scraper addressing the pod by IP.
    let scraped = get(port, "/metrics", &["Host: 10.1.2.3:9100"]).await;
    assert_eq!(scraped.status, 200, "{}", scraped.body);
    let s = parse(&scraped.body);
    assert_eq!(
        value(
            &s,
            "gitlab_file_mcp_tool_calls_total",
            &[("tool", "get_repository_file"), ("outcome", "ok")]
        ),
        0.0
    );
    // A browser page elsewhere.
    let page = get(port, "/metrics", &["Origin: http://evil.example"]).await;
    assert_eq!(page.status, 403);
    let other = get(port, "/mcp", &[]).await;
    assert_eq!(other.status, 404);
    let again = parse(&get(port, "/metrics", &[]).await.body);
    let refused = "gitlab_file_mcp_http_refused_requests_total";
    assert_eq!(value(&again, refused, &[("guard", "origin")]), 1.0);
}

#[tokio::test]
async fn no_metrics_serves_none() {
    let answers = Answers::new();
    let gitlab = gitlab(&answers).await;
    let server = HttpServer::start(&gitlab.uri(), &["--no-metrics"], Some(TOKEN));
    let page = get(server.port, "/metrics", &[]).await;
    assert_eq!(page.status, 404);
    let health = get(server.port, "/healthz", &[]).await;
    assert_eq!(health.status, 200);
}

#[test]
fn metrics_flags_need_http() {
    for flags in [&["--metrics-addr", "127.0.0.1:0"][..], &["--no-metrics"]] {
        let out = Command::new(BIN)
            .arg("serve")
            .args(flags)
            .env_remove("GITLAB_TOKEN")
            .output()
            .expect("run the binary");
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("--http"), "{stderr}");
    }
}

#[tokio::test]
async fn each_tool_is_counted_under_its_own_name() {
    let answers = Answers::new();
    let gitlab = gitlab(&answers).await;
    let server = HttpServer::start(&gitlab.uri(), &["--stateless"], Some(TOKEN));
    let client = mcp_client(&server.mcp(), &[]).await;
    // A malformed batch (no files): its own tool error, before any GitLab request.
    let Value::Object(args) = json!({"files": []}) else {
        unreachable!()
    };
    let batch = client
        .call_tool(CallToolRequestParams::new("get_repository_files").with_arguments(args))
        .await
        .unwrap();
    assert_eq!(batch.is_error, Some(true), "{}", text(&batch));
    client.cancel().await.unwrap();
    let s = parse(&get(server.port, "/metrics", &[]).await.body);
    let calls = "gitlab_file_mcp_tool_calls_total";
    let kind = ("kind", "bad_argument");
    assert_eq!(
        value(&s, calls, &[("tool", "get_repository_files"), kind]),
        1.0
    );
    assert_eq!(
        value(&s, calls, &[("tool", "get_repository_file"), kind]),
        0.0
    );
    let durations = "gitlab_file_mcp_tool_call_duration_seconds_count";
    let total = [("tool", "get_repository_files"), ("part", "total")];
    assert_eq!(value(&s, durations, &total), 1.0);
}
