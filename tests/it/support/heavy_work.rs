//! The heavy work the CPU-pool and deadline tests run (issue 26): a text and a pattern that
//! take seconds to search in a debug build, a GitLab answering each file's query with that file
//! alone, and a process's CPU time read from `/proc`.

use serde_json::Value;
use wiremock::MockServer;
use wiremock::matchers::body_string_contains;

use super::gitlab_mock::{graphql, json_response, project_answer};

/// About 8 MB of lines of words with accented letters: a pattern with Unicode word boundaries
/// ([`HEAVY_PATTERN`]) makes the engine's fast automaton give up on them, so searching the
/// whole text takes seconds in a debug build (linear, but slow).
pub fn heavy_text() -> String {
    let line = "déjà vu über naïve façade señor smörgåsbord çà et là\n";
    line.repeat(8_000_000 / line.len())
}

pub const HEAVY_PATTERN: &str = r"(?:\b\w+\b\s*){4}$";

/// A GitLab answering each file's query with that file alone (`nodes` from `text_node`).
pub async fn gitlab_serving(nodes: Vec<Value>) -> MockServer {
    let server = MockServer::start().await;
    for node in nodes {
        let path = node["path"].as_str().unwrap().to_string();
        graphql()
            .and(body_string_contains(path))
            .respond_with(json_response(project_answer("grp/proj", 7, vec![node])))
            .mount(&server)
            .await;
    }
    server
}

/// The CPU time of process `pid` so far, in clock ticks (user + system, `/proc/<pid>/stat`).
pub fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc/<pid>/stat");
    // Fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}
