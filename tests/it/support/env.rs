//! The environment a test must not pass on to the server it starts: every variable the server
//! reads (so a developer's own GitLab settings, budget or log level never change an answer) and
//! the proxy variables (so requests to the test's 127.0.0.1 GitLab go straight to it).
#![allow(dead_code)]

/// Every variable the server reads.
pub const SERVER_ENV: [&str; 16] = [
    "GITLAB_URL",
    "GITLAB_API_URL",
    "GITLAB_TOKEN",
    "GITLAB_PERSONAL_ACCESS_TOKEN",
    "GITLAB_CONNECT_TIMEOUT",
    "GITLAB_REQUEST_TIMEOUT",
    "GITLAB_CA_FILE",
    "GITLAB_CA_CERT_PATH",
    "GITLAB_FILE_MCP_LOG",
    "GITLAB_FILE_MCP_MAX_CHARS",
    "GITLAB_FILE_MCP_CACHE_BYTES",
    "GITLAB_FILE_MCP_MAX_FILE_BYTES",
    "GITLAB_FILE_MCP_OUTLINE_MEMORY_BYTES",
    "GITLAB_OAUTH_CLIENT_ID",
    "GITLAB_OAUTH_CLIENT_SECRET",
    "GITLAB_FILE_MCP_OAUTH_KEYS",
];

/// The proxy variables reqwest reads.
pub const PROXY_ENV: [&str; 8] = [
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
    "NO_PROXY",
    "no_proxy",
];

/// Both lists: what a started server must not inherit. Clear them before setting a test's own.
pub fn cleared() -> impl Iterator<Item = &'static str> {
    SERVER_ENV.into_iter().chain(PROXY_ENV)
}
