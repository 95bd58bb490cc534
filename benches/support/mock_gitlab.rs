//! The benches' GitLab: the one stand-in of the tests (`gitlab_standin::gitlab::Gitlab`,
//! project `grp/proj`, id 42) holding the files a bench starts it with, served on 127.0.0.1
//! without recording requests, and its counters of requests and response body bytes per
//! endpoint. A file named `"<ref>:<path>"` is `<path>` on branch `<ref>` (a diff's other
//! side); every other file is on `main`.

use gitlab_standin::gitlab::Gitlab;
use wiremock::MockServer;

pub use gitlab_standin::gitlab::Traffic as TrafficSnapshot;

/// The live counters of the stand-in, shared with the bench.
pub struct Traffic(Gitlab);

impl Traffic {
    /// A copy of the counters now; subtract two to get what happened in between.
    pub fn snapshot(&self) -> TrafficSnapshot {
        self.0.traffic()
    }
}

/// A running stand-in: its base URL (for `GITLAB_URL`) and its counters.
pub struct MockGitlab {
    pub base_url: String,
    pub traffic: Traffic,
    /// Serves while the bench holds it.
    _server: MockServer,
}

/// Starts the stand-in with `files` as (name, content).
pub async fn start(files: Vec<(&str, String)>) -> MockGitlab {
    let gitlab = Gitlab::default();
    for (name, content) in files {
        match name.split_once(':') {
            Some((branch, path)) => gitlab.put_at(
                &format!("refs/heads/{branch}"),
                path,
                content.into_bytes(),
                false,
            ),
            None => gitlab.put(name, content.into_bytes(), false),
        }
    }
    let server = gitlab.start_quietly().await;
    MockGitlab {
        base_url: server.uri(),
        traffic: Traffic(gitlab),
        _server: server,
    }
}
