//! How the sign-in says no, in the three forms OAuth has: a JSON error (`/token`, `/register`,
//! RFC 6749 §5.2, RFC 7591 §3.2.2), an error redirect to a client's registered redirect URI
//! (RFC 6749 §4.1.2.1, with `state` and RFC 9207's `iss`), and an HTML error page for what
//! must never be redirected (an unknown client, a client metadata document that cannot be
//! used, an unregistered redirect URI, a lost state).
//! Every sentence is here; none quotes a token.

use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use serde_json::json;

use super::client::ClientMetadataError;
use crate::metrics::{self, SignInStep};

/// A refusal of the token or registration endpoint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum TokenRefusal {
    #[error("{0}")]
    InvalidRequest(&'static str),
    #[error("the client_id is not one this server registered (register again)")]
    InvalidClient,
    #[error("the client_id's metadata document cannot be used: {0}")]
    ClientDocument(ClientMetadataError),
    #[error("{0}")]
    InvalidGrant(&'static str),
    #[error("grant_type must be authorization_code or refresh_token")]
    UnsupportedGrantType,
    #[error("{0}")]
    InvalidClientMetadata(String),
    #[error("{0}")]
    InvalidRedirectUri(String),
    #[error("the resource asked for is not this server's MCP endpoint")]
    InvalidTarget,
    #[error("too many registrations from this address; try again in {0} seconds")]
    TooManyRegistrations(u64),
    #[error("GitLab could not be asked for a token; try again later")]
    GitlabUnavailable,
    #[error("the server could not make a token (its random source failed)")]
    Internal,
}

impl TokenRefusal {
    fn code(&self) -> &'static str {
        match self {
            Self::InvalidRequest(_) => "invalid_request",
            Self::InvalidClient | Self::ClientDocument(_) => "invalid_client",
            Self::InvalidGrant(_) => "invalid_grant",
            Self::UnsupportedGrantType => "unsupported_grant_type",
            Self::InvalidClientMetadata(_) => "invalid_client_metadata",
            Self::InvalidRedirectUri(_) => "invalid_redirect_uri",
            Self::InvalidTarget => "invalid_target",
            Self::TooManyRegistrations(_) => "slow_down",
            Self::GitlabUnavailable => "temporarily_unavailable",
            Self::Internal => "server_error",
        }
    }

    fn status(&self) -> StatusCode {
        match self {
            Self::InvalidClient | Self::ClientDocument(_) => StatusCode::UNAUTHORIZED,
            Self::TooManyRegistrations(_) => StatusCode::TOO_MANY_REQUESTS,
            Self::GitlabUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        }
    }
}

impl IntoResponse for TokenRefusal {
    fn into_response(self) -> Response {
        let body = json!({"error": self.code(), "error_description": self.to_string()});
        let mut response = no_store((self.status(), axum::Json(body)).into_response());
        if let Self::TooManyRegistrations(secs) = self {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

/// A refusal sent back to the client's redirect URI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RedirectRefusal {
    #[error("response_type must be code")]
    ResponseType,
    #[error("PKCE is required: send code_challenge with code_challenge_method=S256")]
    NoChallenge,
    #[error("only code_challenge_method=S256 is supported (plain is refused)")]
    PlainChallenge,
    #[error("the scope asked for is not one this server grants (see scopes_supported)")]
    Scope,
    #[error("the resource asked for is not this server's MCP endpoint")]
    Resource,
    #[error("the user did not approve the client")]
    Denied,
    #[error("GitLab did not sign the user in")]
    GitlabDenied,
    #[error("GitLab could not be asked for a token; try again later")]
    GitlabUnavailable,
    #[error("the server could not complete the sign-in")]
    Internal,
}

impl RedirectRefusal {
    fn code(self) -> &'static str {
        match self {
            Self::ResponseType => "unsupported_response_type",
            Self::NoChallenge | Self::PlainChallenge => "invalid_request",
            Self::Scope => "invalid_scope",
            Self::Resource => "invalid_target",
            Self::Denied | Self::GitlabDenied => "access_denied",
            Self::GitlabUnavailable => "temporarily_unavailable",
            Self::Internal => "server_error",
        }
    }

    /// A `302` to `redirect_uri` with the error, the client's `state` and the issuer.
    pub(crate) fn redirect(self, redirect_uri: &str, state: Option<&str>, iss: &str) -> Response {
        metrics::sign_in(SignInStep::AuthorizationRefused);
        let mut pairs = vec![
            ("error", self.code().to_string()),
            ("error_description", self.to_string()),
        ];
        if let Some(state) = state {
            pairs.push(("state", state.to_string()));
        }
        pairs.push(("iss", iss.to_string()));
        found(&with_query(redirect_uri, &pairs))
    }
}

/// What makes an HTML error page instead of a redirect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PageRefusal {
    #[error(
        "This client is not registered with this server (client_id missing or unknown; a registration made before the server's keys changed is unknown too). Remove this server's saved sign-in in your client (Claude Code: /mcp, then the server, then \"Clear authentication\") and connect again: the client registers anew."
    )]
    UnknownClient,
    #[error(
        "This client names itself with a metadata document URL (its client_id), and the document cannot be used: {0}. The sign-in stops here."
    )]
    ClientDocument(ClientMetadataError),
    #[error(
        "The redirect_uri is missing or is not one the client registered; the sign-in stops here."
    )]
    RedirectUri,
    #[error(
        "This sign-in form has expired or was not sent from this browser. Start the sign-in again from your client."
    )]
    StaleForm,
    #[error(
        "This sign-in is not one this server started, or it has expired. Start the sign-in again from your client."
    )]
    StaleState,
    #[error(
        "This sign-in was started in another browser, so it cannot be completed in this one (someone may have sent you a link to it). Nothing was signed in. To sign in, start again from your own client."
    )]
    OtherBrowser,
    #[error(
        "This sign-in has already been completed once. Start the sign-in again from your client."
    )]
    StateUsed,
    #[error("The server could not start the sign-in (its random source failed).")]
    Internal,
}

impl IntoResponse for PageRefusal {
    fn into_response(self) -> Response {
        metrics::sign_in(SignInStep::AuthorizationRefused);
        let status = match self {
            Self::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        };
        let body = format!(
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>Sign-in refused</title></head>\
             <body><h1>Sign-in refused</h1><p>{}</p></body></html>",
            escape(&self.to_string())
        );
        page(status, body)
    }
}

/// An HTML page of this server: not cached, not frameable, no scripts.
pub(crate) fn page(status: StatusCode, body: String) -> Response {
    let mut response = (
        status,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        body,
    )
        .into_response();
    let headers = response.headers_mut();
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
        ),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    no_store(response)
}

/// A `302 Found` to `location`, not cached.
pub(crate) fn found(location: &str) -> Response {
    let mut response = StatusCode::FOUND.into_response();
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    no_store(response)
}

/// `uri` with `pairs` appended to its query.
pub(crate) fn with_query(uri: &str, pairs: &[(&str, String)]) -> String {
    let query = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())))
        .finish();
    let joiner = if uri.contains('?') { '&' } else { '?' };
    format!("{uri}{joiner}{query}")
}

/// `Cache-Control: no-store` (RFC 6749 §5.1).
pub(crate) fn no_store(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// `text` safe in HTML text and attribute values.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_is_escaped_and_queries_appended() {
        assert_eq!(
            escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(
            with_query(
                "https://a/cb",
                &[("code", "x y".into()), ("state", "&".into())]
            ),
            "https://a/cb?code=x+y&state=%26"
        );
        assert_eq!(
            with_query("https://a/cb?k=v", &[("code", "1".into())]),
            "https://a/cb?k=v&code=1"
        );
    }
}
