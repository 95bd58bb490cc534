//! What clients discover (pure): the protected resource's metadata (RFC 9728), the
//! authorization server's (RFC 8414, also served at the OpenID Connect discovery path clients
//! probe), and the `WWW-Authenticate` challenge of a 401 on `/mcp` that points at the former.

use serde_json::{Value, json};

use super::settings::OauthSettings;

/// The paths of this server's endpoints.
pub(crate) const AUTHORIZE_PATH: &str = "/authorize";
pub(crate) const TOKEN_PATH: &str = "/token";
pub(crate) const REGISTER_PATH: &str = "/register";
pub(crate) const CALLBACK_PATH: &str = "/oauth/callback";
pub(crate) const CONSENT_PATH: &str = "/authorize/consent";
/// RFC 9728's well-known path (the root form; the path form adds `/mcp`).
pub(crate) const RESOURCE_METADATA_PATH: &str = "/.well-known/oauth-protected-resource";
pub(crate) const SERVER_METADATA_PATH: &str = "/.well-known/oauth-authorization-server";
pub(crate) const OPENID_PATH: &str = "/.well-known/openid-configuration";

/// RFC 9728 metadata of `<public>/mcp`.
pub(crate) fn protected_resource(settings: &OauthSettings) -> Value {
    json!({
        "resource": settings.resource(),
        "authorization_servers": [settings.public],
        "scopes_supported": [settings.scope],
        "bearer_methods_supported": ["header"],
        "resource_name": "gitlab-file-mcp",
    })
}

/// RFC 8414 metadata: S256 only, the code and refresh grants, exactly the one scope granted,
/// RFC 9207's `iss` in authorization responses, public clients only, registered at `/register`
/// or named by a Client ID Metadata Document.
pub(crate) fn authorization_server(settings: &OauthSettings) -> Value {
    let at = |path: &str| format!("{}{path}", settings.public);
    json!({
        "issuer": settings.public,
        "authorization_endpoint": at(AUTHORIZE_PATH),
        "token_endpoint": at(TOKEN_PATH),
        "registration_endpoint": at(REGISTER_PATH),
        "scopes_supported": [settings.scope],
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": ["none"],
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": true,
        "client_id_metadata_document_supported": settings.client_documents,
    })
}

/// The challenge of a 401 on `/mcp`: where the resource metadata is, the scope to ask for,
/// and `error="invalid_token"` when a token was sent (RFC 6750 §3.1: none without one).
pub(crate) fn challenge(settings: &OauthSettings, token_sent: bool) -> String {
    let mut challenge = format!(
        "Bearer resource_metadata=\"{}{RESOURCE_METADATA_PATH}/mcp\", scope=\"{}\"",
        settings.public, settings.scope
    );
    if token_sent {
        challenge.push_str(", error=\"invalid_token\"");
    }
    challenge
}
