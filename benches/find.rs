//! `search_repository` bench (issue 47): a generated repository of 60,000 files behind the
//! GitLab stand-in of `standin/src/gitlab/` (GraphQL `paginatedTree`, 100 entries
//! a request; GitLab's code search), read by the release binary over stdio.
//!
//! Measured: GitLab requests of a first listing of every path and of the same listing again
//! (the tree cached by commit), time per page on the cached tree (p50, p90, max, as the
//! client sees it), a content search for a literal-bearing regex (its requests: one search,
//! one blob per candidate), and the server's peak RSS after the listing. Goals (issue 47):
//! at most ceil(60,000 / 100) + 2 requests for the first listing, 1 per page after, p50 per
//! page ≤ 50 ms on a cached tree. Run: `cargo bench --bench find`. The bench reports; it
//! asserts nothing.

#[allow(dead_code)]
#[path = "support/mcp.rs"]
mod mcp;

use gitlab_standin::gitlab::{self as standin, Gitlab};

use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use mcp::{error_of, percentile};

const TOOL: &str = "search_repository";
const PROJECT: &str = "grp/proj";
const FILES: usize = 60_000;

fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// Lists every path from `first`, following the hints; the time of each page and the paths.
async fn list_all(server: &mcp::Server, first: Value) -> (Vec<Duration>, usize) {
    let mut times = Vec::new();
    let mut paths = 0;
    let mut next = Some(object(first));
    while let Some(args) = next.take() {
        let call = server.call_named(TOOL, &args).await;
        if let Some(e) = error_of(&call) {
            panic!("{e}");
        }
        times.push(call.elapsed);
        let page = mcp::output_of(call.result.as_ref().expect("a result")).unwrap_or_default();
        paths += page["entries"].as_array().map_or(0, Vec::len);
        if page["truncated"] == true {
            let hint = page["system_instruction"].as_str().unwrap_or_default();
            let at = hint.find('{').expect("a next call");
            let mut objects = serde_json::Deserializer::from_str(&hint[at..]).into_iter::<Value>();
            next = objects.next().and_then(Result::ok).map(object);
        }
    }
    (times, paths)
}

async fn count(gitlab: &wiremock::MockServer, kind: &str) -> usize {
    standin::requests(gitlab)
        .await
        .iter()
        .filter(|(k, _)| k == kind)
        .count()
}

#[tokio::main]
async fn main() {
    let gitlab = Gitlab::default()
        .with_files(gitlab_standin::python_modules(FILES))
        .start()
        .await;
    let server = mcp::start(&gitlab.uri()).await;
    let started = Instant::now();
    let (first, paths) = list_all(&server, json!({"project_id": PROJECT})).await;
    let first_total = started.elapsed();
    let (pages, commits) = (
        count(&gitlab, "TreePage").await,
        count(&gitlab, "TreeCommit").await,
    );
    let rss = server.peak_rss_kib().unwrap_or(0);
    let before = standin::requests(&gitlab).await.len();
    let (mut cached, _) = list_all(&server, json!({"project_id": PROJECT})).await;
    let cached_requests = standin::requests(&gitlab).await.len() - before;
    cached.sort();
    let before = standin::requests(&gitlab).await;
    let args = object(json!({"project_id": PROJECT, "pattern": r"def\s+retry_policy\("}));
    let search = server.call_named(TOOL, &args).await;
    let after = standin::requests(&gitlab).await;
    let kinds: Vec<&str> = after[before.len()..]
        .iter()
        .map(|(k, _)| k.as_str())
        .collect();
    println!("search_repository, {FILES} files ({paths} paths listed)");
    println!("| what | GitLab requests | time |");
    println!("|---|---|---|");
    println!(
        "| first listing, {} pages | {pages} TreePage + {commits} TreeCommit | {first_total:?} in all |",
        first.len()
    );
    println!(
        "| cached listing, {} pages | {cached_requests} | p50 {:?}, p90 {:?}, max {:?} per page |",
        cached.len(),
        percentile(&cached, 0.5),
        percentile(&cached, 0.9),
        percentile(&cached, 1.0)
    );
    println!(
        "| content search (literal regex) | {kinds:?} | {:?} |",
        search.elapsed
    );
    println!("server peak RSS after the first listing: {rss} KiB");
    server.stop().await;
}
