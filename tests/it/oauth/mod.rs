//! Sign in with GitLab (issue 36), against the real binary with `serve --http --oauth` and a
//! the GitLab stand-in answering as GitLab's OAuth provider does (`gitlab::Provider`), driven by a
//! scripted client ([`client`]): the whole sign-in then a tool call ([`sign_in`]), what is
//! refused and how ([`refusals`]); the sign-in bound to the browser that consented
//! ([`browser_binding`]); rmcp's own OAuth client signing in ([`rmcp_client`]);
//! clients named by a Client ID Metadata Document ([`documents`], served over HTTPS by
//! [`document_host`]).

mod browser_binding;
mod client;
mod document_host;
mod documents;
mod refusals;
mod rmcp_client;
mod sign_in;

use wiremock::MockServer;

use crate::support::gitlab;
use crate::support::http_server::HttpServer as Server;

/// Two sealing keys (32 bytes each, base64url without padding).
pub const KEY_A: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
pub const KEY_B: &str = "HxweHRwbGhkYFxYVFBMSERAPDg0MCwoJCAcGBQQDAgE";

/// `serve --http --oauth --public-url <PUBLIC>` against `gitlab`, sealing with `keys`.
pub fn start(gitlab: &MockServer, keys: &str, extra: &[&str]) -> Server {
    let mut flags = vec!["--oauth", "--public-url", client::PUBLIC];
    flags.extend_from_slice(extra);
    Server::start_with_env(
        &gitlab.uri(),
        &flags,
        None,
        &[
            ("GITLAB_OAUTH_CLIENT_ID", gitlab::APP_ID),
            ("GITLAB_FILE_MCP_OAUTH_KEYS", keys),
        ],
    )
}
