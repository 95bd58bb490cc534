//! Client metadata, checked (pure): the name and redirect URIs a client gives, by `/register`
//! (RFC 7591) or in a Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document,
//! the MCP spec's 2025-11-25 revision); which `client_id`s are metadata document URLs; a
//! fetched document (its `client_id` the URL exactly, a public client); and how long one may
//! be cached (`Cache-Control`, within bounds). Every refusal is a [`ClientMetadataError`].

use serde::Deserialize;
use url::Url;

use super::redirect::{self, RedirectProblem};
use crate::auth::sealed::ClientRegistration;

const MAX_REDIRECT_URIS: usize = 10;
const MAX_URI_CHARS: usize = 2000;
const MAX_NAME_CHARS: usize = 100;
/// The longest `client_id` URL fetched.
const MAX_CLIENT_ID_CHARS: usize = 2000;
/// How long a document is cached when its answer names no lifetime.
pub(crate) const DEFAULT_CACHE_SECS: u64 = 300;
/// The longest a document is cached, whatever its answer says.
pub(crate) const MAX_CACHE_SECS: u64 = 24 * 3600;

/// Why client metadata (registered or fetched) cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ClientMetadataError {
    #[error("redirect_uris is required")]
    NoRedirectUris,
    #[error("at most 10 redirect_uris")]
    TooManyRedirectUris,
    #[error("a redirect URI is over 2000 characters")]
    LongRedirectUri,
    #[error("{0}")]
    Redirect(#[from] RedirectProblem),
    #[error(
        "the client_id URL is not in canonical form (https, a host, a path, no user, fragment or dot segments, lower-case host, no default port)"
    )]
    NotCanonical,
    #[error(
        "the client_id URL's host is or resolves to a loopback, private, link-local or reserved address"
    )]
    PrivateAddress,
    #[error("the client_id URL could not be fetched (no answer in time, DNS or TLS failure)")]
    Unreachable,
    #[error("too many client metadata documents are being fetched at once; try again")]
    Busy,
    #[error("the client_id URL answered with a redirect, which is not followed")]
    Redirected,
    #[error("the client_id URL answered HTTP {0}, not 200")]
    Status(u16),
    #[error("the client metadata document is over 5 KiB")]
    TooLarge,
    #[error("the client metadata document is not a JSON object of client metadata")]
    NotJson,
    #[error("the document's client_id is not exactly the URL it was fetched from")]
    ClientIdMismatch,
    #[error(
        "the document's token_endpoint_auth_method is not none (this server has public clients only) or it holds a client_secret"
    )]
    NotPublic,
}

/// The metadata read from a registration or a document; the rest is ignored (RFC 7591 §2).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ClientMetadata {
    #[serde(default)]
    pub redirect_uris: Vec<String>,
    pub client_name: Option<String>,
    /// Only in a document: the URL it was fetched from.
    pub client_id: Option<String>,
    pub token_endpoint_auth_method: Option<String>,
    pub client_secret: Option<String>,
}

impl ClientMetadata {
    /// The registration these name and redirect URIs make, from `issued` to `exp`.
    pub(crate) fn checked(
        self,
        issued: u64,
        exp: u64,
    ) -> Result<ClientRegistration, ClientMetadataError> {
        if self.redirect_uris.is_empty() {
            return Err(ClientMetadataError::NoRedirectUris);
        }
        if self.redirect_uris.len() > MAX_REDIRECT_URIS {
            return Err(ClientMetadataError::TooManyRedirectUris);
        }
        for uri in &self.redirect_uris {
            if uri.len() > MAX_URI_CHARS {
                return Err(ClientMetadataError::LongRedirectUri);
            }
            redirect::check(uri)?;
        }
        let name = shown_name(&self.client_name.unwrap_or_default());
        let name = name.trim();
        Ok(ClientRegistration {
            client_name: if name.is_empty() {
                "An unnamed client".into()
            } else {
                name.into()
            },
            redirect_uris: self.redirect_uris,
            issued,
            exp,
        })
    }
}

/// A client's name as a person may be shown it: at most [`MAX_NAME_CHARS`] characters, without
/// control characters, line and paragraph separators, or the invisible format characters
/// (Unicode's `Cf`: bidirectional controls such as U+202E, which would show a name reversed,
/// zero-width spaces and joiners, tags) that could make it read as another name.
pub(crate) fn shown_name(name: &str) -> String {
    name.chars()
        .filter(|&c| !c.is_control() && !is_invisible(c))
        .take(MAX_NAME_CHARS)
        .collect()
}

/// Unicode's format characters (general category `Cf`, as of Unicode 16) and the line and
/// paragraph separators.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{0600}'..='\u{0605}'
            | '\u{061C}'
            | '\u{06DD}'
            | '\u{070F}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08E2}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{2028}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{110BD}'
            | '\u{110CD}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0001}'
            | '\u{E0020}'..='\u{E007F}'
    )
}

/// Whether `client_id` is meant as a metadata document's URL (an `https://` URL); whether it
/// may be fetched is [`document_url`]'s answer.
pub(crate) fn is_document_url(client_id: &str) -> bool {
    client_id.starts_with("https://")
}

/// The URL of a metadata document `client_id` names: https, a host, a path other than `/`,
/// no user, password or fragment, and already in the canonical form a URL parser gives it (so
/// no dot segments, no upper-case host, no default port, no stray characters).
pub(crate) fn document_url(client_id: &str) -> Result<Url, ClientMetadataError> {
    let not_canonical = ClientMetadataError::NotCanonical;
    if client_id.len() > MAX_CLIENT_ID_CHARS {
        return Err(not_canonical);
    }
    let url = Url::parse(client_id).map_err(|_| not_canonical)?;
    let fine = url.scheme() == "https"
        && url.host().is_some()
        && url.username().is_empty()
        && url.password().is_none()
        && url.fragment().is_none()
        && url.path() != "/"
        && url.as_str() == client_id;
    if fine { Ok(url) } else { Err(not_canonical) }
}

/// The registration a fetched document `body` (from `url`) makes, until `exp`.
pub(crate) fn read_document(
    url: &Url,
    body: &[u8],
    now: u64,
    exp: u64,
) -> Result<ClientRegistration, ClientMetadataError> {
    let metadata: ClientMetadata =
        serde_json::from_slice(body).map_err(|_| ClientMetadataError::NotJson)?;
    if metadata.client_id.as_deref() != Some(url.as_str()) {
        return Err(ClientMetadataError::ClientIdMismatch);
    }
    let public = matches!(
        metadata.token_endpoint_auth_method.as_deref(),
        None | Some("none")
    );
    if !public || metadata.client_secret.is_some() {
        return Err(ClientMetadataError::NotPublic);
    }
    metadata.checked(now, exp)
}

/// How long an answer with `cache_control` may be cached, in seconds: its `max-age`, at most
/// [`MAX_CACHE_SECS`]; 0 (not cached) for `no-store`, `no-cache` or an unreadable `max-age`;
/// [`DEFAULT_CACHE_SECS`] when it names no lifetime.
pub(crate) fn cache_secs(cache_control: Option<&str>) -> u64 {
    let Some(value) = cache_control else {
        return DEFAULT_CACHE_SECS;
    };
    let mut max_age = None;
    for directive in value.split(',').map(str::trim) {
        let (name, arg) = directive.split_once('=').unwrap_or((directive, ""));
        match name.trim().to_ascii_lowercase().as_str() {
            "no-store" | "no-cache" => return 0,
            "max-age" => max_age = Some(arg.trim().trim_matches('"').parse::<u64>().unwrap_or(0)),
            _ => {}
        }
    }
    max_age.map_or(DEFAULT_CACHE_SECS, |age| age.min(MAX_CACHE_SECS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_shown_to_people_hold_nothing_invisible() {
        // "Totally Legit" reversed by a right-to-left override would read as another name.
        assert_eq!(shown_name("evil\u{202E}tigeL yllatoT"), "eviltigeL yllatoT");
        for hidden in [
            '\u{200B}',
            '\u{200D}',
            '\u{200E}',
            '\u{2066}',
            '\u{2069}',
            '\u{FEFF}',
            '\u{061C}',
            '\u{2028}',
            '\u{E0041}',
            '\u{00AD}',
            '\n',
            '\u{7}',
        ] {
            assert_eq!(
                shown_name(&format!("Cla{hidden}ude")),
                "Claude",
                "{hidden:?}"
            );
        }
        assert_eq!(shown_name("Zürich 東京 🙂"), "Zürich 東京 🙂");
        assert_eq!(shown_name(&"x".repeat(500)).len(), MAX_NAME_CHARS);
    }

    const URL: &str = "https://client.example/oauth/metadata.json";

    fn metadata(uris: &[&str], name: Option<&str>) -> ClientMetadata {
        ClientMetadata {
            redirect_uris: uris.iter().map(|u| (*u).to_string()).collect(),
            client_name: name.map(str::to_string),
            ..ClientMetadata::default()
        }
    }

    #[test]
    fn names_and_redirect_uris_are_checked() {
        let ok = metadata(&["http://127.0.0.1/cb"], Some(" Claude\nCode "))
            .checked(5, 9)
            .unwrap();
        assert_eq!(
            (ok.client_name.as_str(), ok.issued, ok.exp),
            ("ClaudeCode", 5, 9)
        );
        let unnamed = metadata(&["https://a.example/cb"], None)
            .checked(5, 9)
            .unwrap();
        assert_eq!(unnamed.client_name, "An unnamed client");
        let long = format!("https://a.example/{}", "x".repeat(MAX_URI_CHARS));
        for (bad, why) in [
            (
                metadata(&[], Some("x")),
                ClientMetadataError::NoRedirectUris,
            ),
            (
                metadata(&["http://evil.example/cb"], None),
                ClientMetadataError::Redirect(RedirectProblem::PlainHttp),
            ),
            (
                metadata(&["javascript:alert(1)"], None),
                ClientMetadataError::Redirect(RedirectProblem::ForbiddenScheme),
            ),
            (
                metadata(&["https://a.example/cb"; 11], None),
                ClientMetadataError::TooManyRedirectUris,
            ),
            (
                metadata(&[&long], None),
                ClientMetadataError::LongRedirectUri,
            ),
        ] {
            assert_eq!(bad.checked(5, 9), Err(why));
        }
    }

    #[test]
    fn a_document_url_is_a_canonical_https_url_with_a_path() {
        assert!(document_url(URL).is_ok());
        assert!(document_url("https://claude.ai/oauth/claude-code-client-metadata").is_ok());
        assert!(document_url("https://127.0.0.1:8443/client.json").is_ok());
        assert!(is_document_url(URL) && !is_document_url("AbC.sealed-registration"));
        for bad in [
            "http://client.example/metadata.json",
            "https://client.example",
            "https://client.example/",
            "https://Client.example/metadata.json",
            "https://client.example:443/metadata.json",
            "https://client.example/a/../metadata.json",
            "https://client.example/./metadata.json",
            "https://user@client.example/metadata.json",
            "https://client.example/metadata.json#x",
            "https://client.example/meta data.json",
        ] {
            assert_eq!(
                document_url(bad).unwrap_err(),
                ClientMetadataError::NotCanonical,
                "{bad}"
            );
        }
    }

    #[test]
    fn a_document_names_its_own_url_and_a_public_client() {
        let url = document_url(URL).unwrap();
        let read = |body: serde_json::Value| read_document(&url, body.to_string().as_bytes(), 1, 2);
        let ok = read(serde_json::json!({
            "client_id": URL, "client_name": "Doc client",
            "redirect_uris": ["http://127.0.0.1/callback"],
            "token_endpoint_auth_method": "none", "grant_types": ["authorization_code"],
        }))
        .unwrap();
        assert_eq!(ok.client_name, "Doc client");
        assert_eq!(ok.redirect_uris, ["http://127.0.0.1/callback"]);
        let uris = serde_json::json!(["http://127.0.0.1/callback"]);
        for (body, why) in [
            (
                serde_json::json!({"client_id": format!("{URL}/"), "redirect_uris": uris}),
                ClientMetadataError::ClientIdMismatch,
            ),
            (
                serde_json::json!({"redirect_uris": uris}),
                ClientMetadataError::ClientIdMismatch,
            ),
            (
                serde_json::json!({"client_id": URL, "redirect_uris": uris, "token_endpoint_auth_method": "client_secret_basic"}),
                ClientMetadataError::NotPublic,
            ),
            (
                serde_json::json!({"client_id": URL, "redirect_uris": uris, "client_secret": "s"}),
                ClientMetadataError::NotPublic,
            ),
            (
                serde_json::json!({"client_id": URL}),
                ClientMetadataError::NoRedirectUris,
            ),
            (
                serde_json::json!(["not", "an", "object"]),
                ClientMetadataError::NotJson,
            ),
        ] {
            assert_eq!(read(body.clone()), Err(why), "{body}");
        }
        assert_eq!(
            read_document(&url, b"<html>", 1, 2),
            Err(ClientMetadataError::NotJson)
        );
    }

    #[test]
    fn cache_lifetimes_follow_cache_control_within_bounds() {
        assert_eq!(cache_secs(None), DEFAULT_CACHE_SECS);
        assert_eq!(cache_secs(Some("public, max-age=60")), 60);
        assert_eq!(cache_secs(Some("Max-Age=\"120\"")), 120);
        assert_eq!(cache_secs(Some("max-age=999999999")), MAX_CACHE_SECS);
        assert_eq!(cache_secs(Some("max-age=0")), 0);
        assert_eq!(cache_secs(Some("max-age=60, no-store")), 0);
        assert_eq!(cache_secs(Some("no-cache")), 0);
        assert_eq!(cache_secs(Some("max-age=soon")), 0);
        assert_eq!(cache_secs(Some("public")), DEFAULT_CACHE_SECS);
    }
}
