//! What clients discover (pure): the protected resource's metadata (RFC 9728), the
//! authorization server's (RFC 8414, also served at the OpenID Connect discovery path clients
//! probe), and the `WWW-Authenticate` challenge of a 401 on `/mcp` that points at the former.

use serde::Serialize;

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

/// RFC 9728's protected resource metadata.
#[derive(Debug, Serialize)]
pub(crate) struct ProtectedResource {
    pub resource: String,
    pub authorization_servers: [String; 1],
    pub scopes_supported: [String; 1],
    pub bearer_methods_supported: [&'static str; 1],
    pub resource_name: &'static str,
}

/// RFC 8414's authorization server metadata (the fields this server has).
#[derive(Debug, Serialize)]
pub(crate) struct AuthorizationServer {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub registration_endpoint: String,
    pub scopes_supported: [String; 1],
    pub response_types_supported: [&'static str; 1],
    pub response_modes_supported: [&'static str; 1],
    pub grant_types_supported: [&'static str; 2],
    pub token_endpoint_auth_methods_supported: [&'static str; 1],
    pub code_challenge_methods_supported: [&'static str; 1],
    pub authorization_response_iss_parameter_supported: bool,
    pub client_id_metadata_document_supported: bool,
}

/// RFC 9728 metadata of `<public>/mcp`.
pub(crate) fn protected_resource(settings: &OauthSettings) -> ProtectedResource {
    ProtectedResource {
        resource: settings.resource(),
        authorization_servers: [settings.public.clone()],
        scopes_supported: [settings.scope.clone()],
        bearer_methods_supported: ["header"],
        resource_name: "gitlab-file-mcp",
    }
}

/// RFC 8414 metadata: S256 only, the code and refresh grants, exactly the one scope granted,
/// RFC 9207's `iss` in authorization responses, public clients only, registered at `/register`
/// or named by a Client ID Metadata Document.
pub(crate) fn authorization_server(settings: &OauthSettings) -> AuthorizationServer {
    let at = |path: &str| format!("{}{path}", settings.public);
    AuthorizationServer {
        issuer: settings.public.clone(),
        authorization_endpoint: at(AUTHORIZE_PATH),
        token_endpoint: at(TOKEN_PATH),
        registration_endpoint: at(REGISTER_PATH),
        scopes_supported: [settings.scope.clone()],
        response_types_supported: ["code"],
        response_modes_supported: ["query"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        token_endpoint_auth_methods_supported: ["none"],
        code_challenge_methods_supported: ["S256"],
        authorization_response_iss_parameter_supported: true,
        client_id_metadata_document_supported: settings.client_documents,
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::settings::OauthSettings;
    use crate::config::{GitlabArgs, GitlabConfig};

    fn settings() -> OauthSettings {
        let gitlab =
            GitlabConfig::from_parts(&GitlabArgs::for_tests("https://gitlab.example.com"), |_| {
                None
            })
            .unwrap();
        OauthSettings::for_tests(&gitlab, None)
    }

    #[test]
    fn the_documents_name_this_server_and_only_what_it_does() {
        let settings = settings();
        let resource = serde_json::to_value(protected_resource(&settings)).unwrap();
        assert_eq!(resource["resource"], "https://mcp.example.com/mcp");
        assert_eq!(
            resource["authorization_servers"][0],
            "https://mcp.example.com"
        );
        assert_eq!(
            resource["scopes_supported"],
            serde_json::json!(["read_api"])
        );
        let server = serde_json::to_value(authorization_server(&settings)).unwrap();
        assert_eq!(server["issuer"], "https://mcp.example.com");
        assert_eq!(server["token_endpoint"], "https://mcp.example.com/token");
        assert_eq!(
            server["code_challenge_methods_supported"],
            serde_json::json!(["S256"])
        );
        assert_eq!(
            server["token_endpoint_auth_methods_supported"],
            serde_json::json!(["none"])
        );
        assert_eq!(
            server["authorization_response_iss_parameter_supported"],
            true
        );
    }

    #[test]
    fn the_challenge_says_invalid_token_only_when_a_token_was_sent() {
        let settings = settings();
        let without = challenge(&settings, false);
        assert_eq!(
            without,
            "Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\", scope=\"read_api\""
        );
        assert_eq!(
            challenge(&settings, true),
            format!("{without}, error=\"invalid_token\"")
        );
    }
}
