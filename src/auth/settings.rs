//! `--oauth`'s settings: the flags, the GitLab application (`GITLAB_OAUTH_CLIENT_ID`, optional
//! `GITLAB_OAUTH_CLIENT_SECRET`), the sealing keys (`GITLAB_FILE_MCP_OAUTH_KEYS`), each checked at
//! start-up with a sentence naming what to fix (never quoting a secret).

use clap::Args;

use super::client::redirect::is_loopback_name;
use super::keys::{KeyError, SealKeys};
use crate::config::{ConfigError, GitlabConfig, Secret};

/// The GitLab scope asked for by default: enough for GraphQL and the file endpoints.
pub(crate) const DEFAULT_SCOPE: &str = "read_api";
/// The variable naming the GitLab application's id.
pub(crate) const CLIENT_ID_VAR: &str = "GITLAB_OAUTH_CLIENT_ID";
/// The variable holding the GitLab application's secret (absent for a public application).
pub(crate) const CLIENT_SECRET_VAR: &str = "GITLAB_OAUTH_CLIENT_SECRET";
/// The variable holding the sealing keys.
pub(crate) const KEYS_VAR: &str = "GITLAB_FILE_MCP_OAUTH_KEYS";

/// The sign-in flags of `serve --http`.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct OauthArgs {
    /// Sign users in with GitLab (OAuth): this server becomes the authorization server of MCP
    /// clients and an OAuth client of GitLab. Needs --public-url, GITLAB_OAUTH_CLIENT_ID
    /// (GITLAB_OAUTH_CLIENT_SECRET for a confidential application) and
    /// GITLAB_FILE_MCP_OAUTH_KEYS. See docs/deploy.md.
    #[arg(long, requires = "http")]
    pub oauth: bool,

    /// The URL clients reach this server at (https://host, or http://127.0.0.1:PORT for a
    /// test); MCP is at <URL>/mcp and GitLab sends users back to <URL>/oauth/callback.
    #[arg(long, value_name = "URL", requires = "oauth")]
    pub public_url: Option<String>,

    /// The GitLab scope asked for (the application must have it).
    #[arg(long, value_name = "SCOPE", default_value = DEFAULT_SCOPE, requires = "oauth")]
    pub oauth_scope: String,

    /// For tests only: fetch client metadata documents (a client_id that is an https URL) from
    /// loopback, private and link-local addresses too. Never in a deployment: it lets anyone who
    /// can reach /authorize make this server fetch from its own network.
    #[arg(
        long,
        requires = "oauth",
        conflicts_with = "oauth_no_client_metadata_documents"
    )]
    pub oauth_allow_private_client_metadata: bool,

    /// Accept no Client ID Metadata Documents (advertise client_id_metadata_document_supported
    /// false): for a server that cannot reach the clients' https URLs directly. Clients then
    /// register at /register.
    #[arg(long, requires = "oauth")]
    pub oauth_no_client_metadata_documents: bool,
}

#[cfg(test)]
impl OauthArgs {
    /// Sign-in on, public at `https://mcp.example.com`, the default scope.
    pub(crate) fn for_tests() -> Self {
        OauthArgs {
            oauth: true,
            public_url: Some("https://mcp.example.com".into()),
            oauth_scope: DEFAULT_SCOPE.into(),
            oauth_allow_private_client_metadata: false,
            oauth_no_client_metadata_documents: false,
        }
    }
}

/// Why `--oauth` cannot start.
#[derive(Debug, thiserror::Error)]
pub(crate) enum OauthStartError {
    #[error("--oauth needs --public-url: the https:// URL clients reach this server at")]
    NoPublicUrl,
    #[error(
        "--public-url {given:?}: {why}; give the origin clients reach this server at, e.g. https://mcp.example.com"
    )]
    BadPublicUrl { given: String, why: &'static str },
    #[error(
        "--oauth needs GITLAB_OAUTH_CLIENT_ID: the Application ID of the GitLab application (scope read_api, redirect URI <public-url>/oauth/callback)"
    )]
    NoClientId,
    #[error(
        "--oauth needs GITLAB_FILE_MCP_OAUTH_KEYS: one or more keys, each 32 random bytes in base64url without padding, comma-separated"
    )]
    NoKeys,
    #[error(transparent)]
    Keys(#[from] KeyError),
    #[error("--oauth signs in with GitLab; it cannot serve a local repository (--repo)")]
    LocalRepository,
    #[error("--oauth-scope is empty; give the GitLab scope to ask for (default read_api)")]
    NoScope,
    /// The GitLab settings the OAuth client shares with the source (its CA file).
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("could not build the HTTP client for GitLab's OAuth endpoints: {cause}")]
    HttpClient {
        #[source]
        cause: reqwest::Error,
    },
}

/// `--oauth`'s settings, checked.
#[derive(Debug)]
pub(crate) struct OauthSettings {
    /// The public origin, without a trailing `/`: the issuer.
    pub public: String,
    pub client_id: String,
    pub client_secret: Option<Secret>,
    pub scope: String,
    pub keys: SealKeys,
    /// GitLab's base URL, without a trailing `/`.
    pub gitlab: String,
    /// Whether a `client_id` may be a Client ID Metadata Document's URL.
    pub client_documents: bool,
}

impl OauthSettings {
    /// Checks the flags and the variables (read through `env`).
    pub(crate) fn new(
        args: &OauthArgs,
        gitlab: Option<&GitlabConfig>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, OauthStartError> {
        let gitlab = gitlab.ok_or(OauthStartError::LocalRepository)?;
        let public = public_origin(args.public_url.as_deref())?;
        let set = |name: &str| {
            env(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let client_id = set(CLIENT_ID_VAR).ok_or(OauthStartError::NoClientId)?;
        let keys = SealKeys::parse(&set(KEYS_VAR).ok_or(OauthStartError::NoKeys)?)?;
        let scope = args.oauth_scope.trim().to_string();
        if scope.is_empty() {
            return Err(OauthStartError::NoScope);
        }
        Ok(Self {
            public,
            client_id,
            client_secret: set(CLIENT_SECRET_VAR).and_then(Secret::new),
            scope,
            keys,
            gitlab: gitlab.base_url.as_str().trim_end_matches('/').to_string(),
            client_documents: !args.oauth_no_client_metadata_documents,
        })
    }

    /// The MCP endpoint: the audience of this server's tokens.
    pub(crate) fn resource(&self) -> String {
        format!("{}/mcp", self.public)
    }

    /// Settings for unit tests: public at `https://mcp.example.com`, GitLab's application
    /// `app` (with `secret` when given), one fixed key.
    #[cfg(test)]
    pub(crate) fn for_tests(gitlab: &GitlabConfig, secret: Option<&str>) -> Self {
        let args = OauthArgs::for_tests();
        let keys = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
        Self::new(&args, Some(gitlab), |name| match name {
            CLIENT_ID_VAR => Some("app".into()),
            CLIENT_SECRET_VAR => secret.map(str::to_string),
            KEYS_VAR => Some(keys.into()),
            _ => None,
        })
        .expect("test settings")
    }

    /// Whether a client's `resource` (RFC 8707) names this server: its MCP endpoint or its
    /// public URL, a trailing `/` ignored. One answer for `/authorize` and `/token`.
    pub(crate) fn is_resource(&self, resource: &str) -> bool {
        let resource = resource.trim_end_matches('/');
        resource == self.resource() || resource == self.public
    }

    /// The public URL's `host[:port]`, which the `Host` check must accept.
    pub(crate) fn public_host(&self) -> String {
        self.public
            .split_once("://")
            .map_or(self.public.as_str(), |(_, rest)| rest)
            .to_ascii_lowercase()
    }
}

/// The public URL's origin: http(s), a host, no path beyond `/`, no query, fragment or user;
/// plain http only for a loopback host (tests, a local try-out).
fn public_origin(given: Option<&str>) -> Result<String, OauthStartError> {
    let given = given
        .map(str::trim)
        .filter(|g| !g.is_empty())
        .ok_or(OauthStartError::NoPublicUrl)?;
    let bad = |why| OauthStartError::BadPublicUrl {
        given: crate::base::redact::url(given, crate::base::redact::Query::Drop),
        why,
    };
    let url = url::Url::parse(given).map_err(|_| bad("not a URL"))?;
    let host = url.host_str().ok_or_else(|| bad("no host"))?;
    match url.scheme() {
        "https" => {}
        "http" if is_loopback_name(host) => {}
        "http" => return Err(bad("plain http is only allowed for a loopback host")),
        _ => return Err(bad("not an http(s) URL")),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad("it carries a user name or password"));
    }
    if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        return Err(bad("it has a path, query or fragment"));
    }
    Ok(url.as_str().trim_end_matches('/').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_public_url_is_an_origin() {
        let ok = |g: &str| public_origin(Some(g)).unwrap();
        assert_eq!(ok("https://MCP.example.com/"), "https://mcp.example.com");
        assert_eq!(
            ok("https://mcp.example.com:8443"),
            "https://mcp.example.com:8443"
        );
        assert_eq!(ok("http://127.0.0.1:9000"), "http://127.0.0.1:9000");
        assert_eq!(ok("http://[::1]:9000"), "http://[::1]:9000");
        assert!(matches!(
            public_origin(None),
            Err(OauthStartError::NoPublicUrl)
        ));
        for bad in [
            "http://mcp.example.com",
            "mcp.example.com",
            "ftp://mcp.example.com",
            "https://mcp.example.com/mcp",
            "https://u:p@mcp.example.com",
            "https://mcp.example.com/?a=b",
        ] {
            let error = public_origin(Some(bad)).unwrap_err().to_string();
            assert!(error.contains("--public-url"), "{bad}: {error}");
            assert!(!error.contains(":p@"), "{error}");
        }
    }

    #[test]
    fn each_missing_setting_is_named() {
        let config =
            GitlabConfig::from_parts(&crate::config::GitlabArgs::for_tests(""), |_| None).unwrap();
        let args = OauthArgs::for_tests();
        let key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
        let with = |vars: &'static [(&'static str, &'static str)]| {
            OauthSettings::new(&args, Some(&config), |name| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| (*v).to_string())
            })
        };
        let error = |r: Result<OauthSettings, OauthStartError>| r.unwrap_err().to_string();
        assert!(error(with(&[])).contains(CLIENT_ID_VAR));
        assert!(error(with(&[(CLIENT_ID_VAR, "app")])).contains(KEYS_VAR));
        let leaked = error(with(&[(CLIENT_ID_VAR, "app"), (KEYS_VAR, "secret-ish=")]));
        assert!(
            leaked.contains(KEYS_VAR) && !leaked.contains("secret-ish"),
            "{leaked}"
        );
        let ok = OauthSettings::new(&args, Some(&config), |name| match name {
            CLIENT_ID_VAR => Some("app".into()),
            KEYS_VAR => Some(key.into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(ok.resource(), "https://mcp.example.com/mcp");
        assert_eq!(ok.public_host(), "mcp.example.com");
        assert!(ok.client_secret.is_none());
        assert!(matches!(
            OauthSettings::new(&args, None, |_| None),
            Err(OauthStartError::LocalRepository)
        ));
    }
}
