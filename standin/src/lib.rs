//! The GitLab stand-in of gitlab-file-mcp's tests and benches (dev-only, not published):
//! [`gitlab::Gitlab`], one GitLab answering GraphQL, REST and the sign-in from a repository the
//! test fills, as GitLab does (`../shared/gitlab/samples/`), with knobs for the faults of
//! networks and proxies, GitLab as deployed, and OAuth; and [`gitlab_mock`], GitLab's answer
//! shapes for tests that script each answer. `tests/it/support` re-exports both; the benches use
//! them directly.

pub mod gitlab;
pub mod gitlab_mock;

/// `n` Python files in 10 directories (`pkg<d>/mod_<i>.py`), the middle one defining
/// `retry_policy`: the repository the `search_repository` tests and bench list and search.
pub fn python_modules(n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|i| {
            let body = if i == n / 2 {
                "import os\n\n\ndef retry_policy(attempts):\n    return min(attempts, 5)\n"
                    .to_string()
            } else {
                format!("# module {i}\nVALUE = {i}\n")
            };
            (format!("pkg{}/mod_{i:05}.py", i % 10), body)
        })
        .collect()
}
