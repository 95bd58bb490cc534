//! Settings shared by every command: which GitLab, which token, how long to wait.
//!
//! Parsed by clap from flags and environment variables (a flag overrides its variable). The
//! token is held as a [`Secret`], whose `Debug` never shows it, so it cannot reach a log line;
//! a refused `GITLAB_URL` is quoted with its user info and query redacted. A token variable
//! holding a client's unexpanded placeholder (`${GITLAB_TOKEN}`) or nothing gives no token and
//! a [`TokenWarning`] instead.

use crate::base::cause::Shared;
use crate::base::quote::shorten;
use std::fmt::{self, Display, Formatter};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;

use crate::base::{placeholder, redact};

/// The default instance when neither `GITLAB_URL` nor `GITLAB_API_URL` is set.
pub(crate) const DEFAULT_GITLAB_URL: &str = "https://gitlab.com";

/// A token or any other secret of a sign-in (GitLab's tokens, a PKCE verifier): a secrecy
/// `SecretString`, wiped from memory when dropped; `Debug` prints `[redacted]`. It is written
/// out only where it must go: the `Authorization` header, and inside what this server seals
/// (its serde form, which only sealed payloads use).
#[derive(Clone)]
pub(crate) struct Secret(secrecy::SecretString);

impl Secret {
    /// Wraps a token; `None` for an empty or all-whitespace string.
    pub(crate) fn new(token: impl Into<String>) -> Option<Self> {
        let token = token.into();
        let trimmed = token.trim();
        (!trimmed.is_empty()).then(|| Self(trimmed.into()))
    }

    /// The token itself, for the places that send or seal it.
    pub(crate) fn expose(&self) -> &str {
        secrecy::ExposeSecret::expose_secret(&self.0)
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}

impl PartialEq for Secret {
    fn eq(&self, other: &Self) -> bool {
        self.expose() == other.expose()
    }
}

impl Eq for Secret {}

impl serde::Serialize for Secret {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.expose())
    }
}

impl<'de> serde::Deserialize<'de> for Secret {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::new(text).ok_or_else(|| serde::de::Error::custom("an empty secret"))
    }
}

/// Where the token came from, so an error can name the variable to check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenOrigin {
    /// `GITLAB_TOKEN`.
    GitlabToken,
    /// `GITLAB_PERSONAL_ACCESS_TOKEN`.
    PersonalAccessToken,
    /// The HTTP request's own `Authorization` / `PRIVATE-TOKEN` header.
    Request,
    /// A sign-in with GitLab (`--oauth`): GitLab's token inside this server's access token.
    SignIn,
}

/// A token together with where it came from, and what GitLab said of it while one request
/// was served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Credential {
    pub token: Secret,
    pub origin: TokenOrigin,
    /// Set when GitLab refuses the token (401) during the request this credential came with;
    /// each request's credential has its own.
    pub refusal: RefusalNote,
    /// Who a [`TokenOrigin::SignIn`] token acts for (the GitLab user, else the sign-in): the
    /// same across refreshes, each of which brings a new GitLab token, so it, not the token,
    /// owns the sign-in's sessions.
    pub owner: Option<Secret>,
}

impl Credential {
    /// `token` from `origin`, with a note of its own.
    pub(crate) fn new(token: Secret, origin: TokenOrigin) -> Self {
        Self {
            token,
            origin,
            refusal: RefusalNote::default(),
            owner: None,
        }
    }

    /// The credential of a sign-in's token acting for `owner` (empty in a token sealed before
    /// owners were named).
    pub(crate) fn signed_in(token: Secret, owner: &str) -> Self {
        Self {
            owner: Secret::new(owner),
            ..Self::new(token, TokenOrigin::SignIn)
        }
    }
}

/// What a request over HTTP reads with, as the HTTP layer's door admitted it: the caller's own
/// credential, or the server's configured one (or none, for public projects). The door puts
/// one into every request it lets into `/mcp`; the tool reads it and never learns how it was
/// decided (the serving mode is the door's alone).
#[derive(Debug, Clone)]
pub(crate) struct Admitted {
    pub credential: Option<Credential>,
}

impl Admitted {
    /// The credential, when it is the caller's own (a request's token or a sign-in's), which
    /// tells callers apart; the server's own token tells no one apart.
    pub(crate) fn own_token(&self) -> Option<&Credential> {
        self.credential
            .as_ref()
            .filter(|c| matches!(c.origin, TokenOrigin::Request | TokenOrigin::SignIn))
    }
}

/// Whether GitLab refused a credential's token (HTTP 401) while serving the request it came
/// with: written by the GitLab transport, read by the HTTP layer that answers that request.
/// Request state, never a process's: clones of one request's credential share it, and no
/// other request sees it. Not part of what a credential *is*, so always equal.
#[derive(Debug, Clone, Default)]
pub(crate) struct RefusalNote(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl RefusalNote {
    /// GitLab refused the token.
    pub(crate) fn mark(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Release);
    }

    /// Whether GitLab refused the token during this request.
    pub(crate) fn is_marked(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Acquire)
    }
}

impl PartialEq for RefusalNote {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for RefusalNote {}

/// GitLab connection flags, shared by `serve` and `read`.
#[derive(Debug, Clone, Args)]
pub(crate) struct GitlabArgs {
    /// Base URL of the GitLab instance, with its relative root if any (https://host/gitlab).
    /// Default: https://gitlab.com, or GITLAB_API_URL without its /api/v4.
    // The value is never shown in `--help`: a mistaken one may carry a password.
    #[arg(
        long,
        global = true,
        env = "GITLAB_URL",
        value_name = "URL",
        hide_env_values = true
    )]
    pub gitlab_url: Option<String>,

    /// Seconds to wait for a TCP/TLS connection to GitLab.
    #[arg(
        long,
        global = true,
        env = "GITLAB_CONNECT_TIMEOUT",
        value_name = "SECONDS",
        default_value_t = 10
    )]
    pub connect_timeout: u64,

    /// Seconds to wait for a whole GitLab request.
    #[arg(
        long,
        global = true,
        env = "GITLAB_REQUEST_TIMEOUT",
        value_name = "SECONDS",
        default_value_t = 30
    )]
    pub request_timeout: u64,

    /// A PEM bundle of extra CA certificates for a GitLab with a private certificate.
    /// GITLAB_CA_CERT_PATH (zereight/gitlab-mcp's name) is read when this is not set.
    #[arg(long, global = true, env = "GITLAB_CA_FILE", value_name = "PATH")]
    pub ca_file: Option<PathBuf>,

    /// Bytes of file content the blob cache keeps (shared by all callers; least recently used
    /// out). A file larger than this is served but not kept.
    #[arg(long, global = true, env = "GITLAB_FILE_MCP_CACHE_BYTES", value_name = "BYTES",
          default_value_t = DEFAULT_CACHE_BYTES)]
    pub cache_bytes: u64,

    /// The largest file read (past GitLab's 10 MiB GraphQL limit and for LFS objects, over
    /// REST); a larger file is refused with an error naming this limit.
    #[arg(long, global = true, env = "GITLAB_FILE_MCP_MAX_FILE_BYTES", value_name = "BYTES",
          default_value_t = DEFAULT_MAX_FILE_BYTES,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_file_bytes: u64,
}

/// Default `--cache-bytes`: 128 MiB, more than the largest file read by default, so any file
/// that may be read can be paged from the cache.
pub(crate) const DEFAULT_CACHE_BYTES: u64 = 128 * 1_048_576;
/// Default `--max-file-bytes`: 100 MiB.
pub(crate) const DEFAULT_MAX_FILE_BYTES: u64 = 100 * 1_048_576;

#[cfg(test)]
impl GitlabArgs {
    /// The flags' defaults, with `url` as `--gitlab-url`.
    pub(crate) fn for_tests(url: &str) -> Self {
        GitlabArgs {
            gitlab_url: Some(url.to_string()),
            connect_timeout: 10,
            request_timeout: 30,
            ca_file: None,
            cache_bytes: DEFAULT_CACHE_BYTES,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
        }
    }
}

/// zereight/gitlab-mcp's name for `GITLAB_CA_FILE`, accepted so a configuration carries over;
/// `GITLAB_CA_FILE` (or `--ca-file`) wins when both are set.
pub(crate) const CA_FILE_ALIAS: &str = "GITLAB_CA_CERT_PATH";

/// Everything needed to talk to one GitLab instance.
#[derive(Debug, Clone)]
pub(crate) struct GitlabConfig {
    /// The instance's base URL, normalised to end without a `/`.
    pub base_url: url::Url,
    /// The configured token, if any (public projects need none).
    pub credential: Option<Credential>,
    /// Token variables that were set but give no token, each to be logged once at start-up.
    pub token_warnings: Vec<TokenWarning>,
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
    pub ca_file: Option<PathBuf>,
    pub cache_bytes: u64,
    pub max_file_bytes: u64,
}

impl GitlabConfig {
    /// Builds the configuration from parsed flags and the process environment.
    pub(crate) fn from_args(args: &GitlabArgs) -> Result<Self, ConfigError> {
        Self::from_parts(args, |name| std::env::var(name).ok())
    }

    /// Builds the configuration with `env` standing in for the environment (testable).
    pub(crate) fn from_parts(
        args: &GitlabArgs,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let raw = match (&args.gitlab_url, env("GITLAB_API_URL")) {
            (Some(url), _) if !url.trim().is_empty() => url.trim().to_string(),
            (_, Some(api)) if !api.trim().is_empty() => strip_api_suffix(api.trim()).to_string(),
            _ => DEFAULT_GITLAB_URL.to_string(),
        };
        let base_url = parse_base_url(&raw)?;
        let (credential, token_warnings) = configured_token(&env);
        if args.connect_timeout == 0 || args.request_timeout == 0 {
            return Err(ConfigError::ZeroTimeout);
        }
        let ca_file = args.ca_file.clone().or_else(|| {
            env(CA_FILE_ALIAS)
                .filter(|p| !p.trim().is_empty())
                .map(PathBuf::from)
        });
        Ok(Self {
            base_url,
            credential,
            token_warnings,
            connect_timeout: Duration::from_secs(args.connect_timeout),
            request_timeout: Duration::from_secs(args.request_timeout),
            ca_file,
            cache_bytes: args.cache_bytes,
            max_file_bytes: args.max_file_bytes,
        })
    }

    /// The GraphQL endpoint: `<base>/api/graphql`.
    pub(crate) fn graphql_url(&self) -> String {
        format!(
            "{}/api/graphql",
            self.base_url.as_str().trim_end_matches('/')
        )
    }
}

/// The token variables in the order they are read, with the origin each gives a token.
const TOKEN_VARIABLES: [(&str, TokenOrigin); 2] = [
    ("GITLAB_TOKEN", TokenOrigin::GitlabToken),
    (
        "GITLAB_PERSONAL_ACCESS_TOKEN",
        TokenOrigin::PersonalAccessToken,
    ),
];

/// The first token variable that holds a token, and what to warn about the others: a
/// placeholder the client left unexpanded (`${GITLAB_TOKEN}`) is never a token, and sending it
/// would make GitLab refuse even public projects; an empty one is worth a word only when no
/// token is found at all.
fn configured_token(
    env: &impl Fn(&str) -> Option<String>,
) -> (Option<Credential>, Vec<TokenWarning>) {
    let mut warnings = Vec::new();
    let mut empty = Vec::new();
    let mut credential = None;
    for (variable, origin) in TOKEN_VARIABLES {
        let Some(value) = env(variable) else { continue };
        if placeholder::is_unexpanded(&value) {
            warnings.push(TokenWarning::Placeholder {
                variable,
                shown: crate::base::quote::shown(value.trim()),
            });
        } else if let Some(token) = Secret::new(value) {
            credential = credential.or(Some(Credential::new(token, origin)));
        } else {
            empty.push(TokenWarning::Empty { variable });
        }
    }
    if credential.is_none() {
        warnings.extend(empty);
    }
    (credential, warnings)
}

/// A token variable that is set but gives no token, so no token is sent; logged once at
/// start-up (never a token: a placeholder is shown, and only because it is one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TokenWarning {
    /// The variable holds a placeholder its MCP client did not expand.
    Placeholder {
        variable: &'static str,
        shown: String,
    },
    /// The variable is empty (or blank).
    Empty { variable: &'static str },
}

impl Display for TokenWarning {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            TokenWarning::Placeholder { variable, shown } => write!(
                f,
                "{variable} is '{shown}', a placeholder the MCP client passed on without expanding it, so no token is sent (only public projects can be read). Fix it in the client's configuration: set the variable it names in the environment the client starts from, or write the token itself; Claude Code's .mcp.json expands ${{{variable}:-}} to nothing when the variable is unset, VS Code's mcp.json expands ${{env:{variable}}}, and Claude Desktop's configuration expands no variables."
            ),
            TokenWarning::Empty { variable } => write!(
                f,
                "{variable} is set but empty, so no token is sent (only public projects can be read). To read private projects, give the client a token with read_api: set {variable} in the environment the client starts from, or in the client's configuration."
            ),
        }
    }
}

/// `https://h/api/v4` and `https://h/api/v4/` → `https://h`; anything else unchanged.
pub(crate) fn strip_api_suffix(url: &str) -> &str {
    let trimmed = url.trim_end_matches('/');
    trimmed.strip_suffix("/api/v4").unwrap_or(trimmed)
}

/// Parses a base URL: http or https, a host, no user info, query or fragment; a trailing `/`
/// is dropped. An error quotes the value with its user info and query redacted.
pub(crate) fn parse_base_url(raw: &str) -> Result<url::Url, ConfigError> {
    let shown = || redact::url(raw, redact::Query::Drop);
    let url = url::Url::parse(raw.trim_end_matches('/')).map_err(|e| ConfigError::BadUrl {
        shown: shown(),
        cause: e,
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(ConfigError::NotHttp { shown: shown() });
    }
    if url.query().is_some()
        || url.fragment().is_some()
        || !url.username().is_empty()
        || url.password().is_some()
    {
        return Err(ConfigError::CarriesSecrets { shown: shown() });
    }
    Ok(url)
}

/// The certificates of a PEM bundle (`GITLAB_CA_FILE`): at least one, or why not.
/// The HTTP client settings every request to this GitLab shares: the config's timeouts, no
/// redirects, this server's user agent, and the extra CA certificates if configured (the
/// GraphQL and REST transport and the OAuth endpoints both build on it).
pub(crate) fn gitlab_client_builder(
    config: &GitlabConfig,
) -> Result<reqwest::ClientBuilder, ConfigError> {
    let mut builder = reqwest::Client::builder()
        .connect_timeout(config.connect_timeout)
        .timeout(config.request_timeout)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("gitlab-file-mcp/", env!("CARGO_PKG_VERSION")));
    if let Some(path) = &config.ca_file {
        for cert in read_ca_bundle(path)? {
            builder = builder.add_root_certificate(cert);
        }
    }
    Ok(builder)
}

pub(crate) fn read_ca_bundle(path: &Path) -> Result<Vec<reqwest::Certificate>, ConfigError> {
    let pem = std::fs::read(path).map_err(|e| ConfigError::CaUnreadable {
        path: path.to_path_buf(),
        cause: Shared::new(e),
    })?;
    let certs = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| ConfigError::CaNotPem {
        path: path.to_path_buf(),
        cause: Shared::new(e),
    })?;
    if certs.is_empty() {
        return Err(ConfigError::CaEmpty {
            path: path.to_path_buf(),
        });
    }
    Ok(certs)
}

/// A setting that cannot be used; the server does not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ConfigError {
    /// `GITLAB_URL` does not parse as a URL (`shown`: the value, user info and query redacted).
    BadUrl {
        shown: String,
        #[source]
        cause: url::ParseError,
    },
    /// `GITLAB_URL` is not http(s) with a host.
    NotHttp { shown: String },
    /// `GITLAB_URL` carries user info, a query or a fragment.
    CarriesSecrets { shown: String },
    /// A timeout of 0 seconds.
    ZeroTimeout,
    /// `GITLAB_CA_FILE` cannot be read.
    CaUnreadable {
        path: PathBuf,
        #[source]
        cause: Shared<std::io::Error>,
    },
    /// `GITLAB_CA_FILE` is not a PEM bundle.
    CaNotPem {
        path: PathBuf,
        #[source]
        cause: Shared<reqwest::Error>,
    },
    /// `GITLAB_CA_FILE` holds no certificate.
    CaEmpty { path: PathBuf },
    /// The HTTP client could not be built.
    HttpClient {
        #[source]
        cause: Shared<reqwest::Error>,
    },
}

impl Display for ConfigError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let example = "e.g. https://gitlab.example.com";
        match self {
            ConfigError::BadUrl { shown, cause } => write!(
                f,
                "GITLAB_URL '{}' is not a URL ({cause}); expected {example}",
                shorten(shown)
            ),
            ConfigError::NotHttp { shown } => write!(
                f,
                "GITLAB_URL '{}' must be an http(s) URL with a host, {example}",
                shorten(shown)
            ),
            ConfigError::CarriesSecrets { shown } => write!(
                f,
                "GITLAB_URL '{}' must not carry credentials, a query or a fragment: put the token in GITLAB_TOKEN",
                shorten(shown)
            ),
            ConfigError::ZeroTimeout => f.write_str("timeouts must be at least 1 second"),
            ConfigError::CaUnreadable { path, cause } => write!(
                f,
                "cannot read GITLAB_CA_FILE (or {CA_FILE_ALIAS}) '{}': {cause}",
                path.display()
            ),
            ConfigError::CaNotPem { path, cause } => write!(
                f,
                "GITLAB_CA_FILE (or {CA_FILE_ALIAS}) '{}' is not a PEM certificate bundle: {cause}",
                path.display()
            ),
            ConfigError::CaEmpty { path } => write!(
                f,
                "GITLAB_CA_FILE (or {CA_FILE_ALIAS}) '{}' holds no PEM certificate",
                path.display()
            ),
            ConfigError::HttpClient { cause } => write!(f, "cannot build the HTTP client: {cause}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(url: Option<&str>) -> GitlabArgs {
        GitlabArgs {
            gitlab_url: url.map(str::to_string),
            ..GitlabArgs::for_tests("")
        }
    }

    #[test]
    fn default_is_gitlab_com() {
        let c = GitlabConfig::from_parts(&args(None), |_| None).unwrap();
        assert_eq!(c.graphql_url(), "https://gitlab.com/api/graphql");
        assert!(c.credential.is_none());
    }

    #[test]
    fn api_url_loses_api_v4_and_gitlab_url_wins() {
        let env = |k: &str| (k == "GITLAB_API_URL").then(|| "https://h/gitlab/api/v4/".to_string());
        let c = GitlabConfig::from_parts(&args(None), env).unwrap();
        assert_eq!(c.graphql_url(), "https://h/gitlab/api/graphql");
        let c = GitlabConfig::from_parts(&args(Some("https://other/")), env).unwrap();
        assert_eq!(c.graphql_url(), "https://other/api/graphql");
    }

    #[test]
    fn token_variables_in_order_and_redacted() {
        let env = |k: &str| match k {
            "GITLAB_TOKEN" => Some("  ".to_string()),
            "GITLAB_PERSONAL_ACCESS_TOKEN" => Some("glpat-secret".to_string()),
            _ => None,
        };
        let c = GitlabConfig::from_parts(&args(None), env).unwrap();
        let cred = c.credential.unwrap();
        assert_eq!(cred.origin, TokenOrigin::PersonalAccessToken);
        assert_eq!(cred.token.expose(), "glpat-secret");
        assert!(!format!("{cred:?}").contains("glpat"));
    }

    #[test]
    fn an_unexpanded_placeholder_is_no_token_and_is_warned_about() {
        for placeholder in ["${GITLAB_TOKEN}", "$GITLAB_TOKEN", "%GITLAB_TOKEN%"] {
            let env = |k: &str| (k == "GITLAB_TOKEN").then(|| placeholder.to_string());
            let c = GitlabConfig::from_parts(&args(None), env).unwrap();
            assert!(c.credential.is_none(), "{placeholder}");
            let [warning] = c.token_warnings.as_slice() else {
                panic!("{placeholder}: {:?}", c.token_warnings)
            };
            let m = warning.to_string();
            assert!(
                m.starts_with(&format!("GITLAB_TOKEN is '{placeholder}', a placeholder")),
                "{m}"
            );
            assert!(m.contains("${GITLAB_TOKEN:-}"), "{m}");
        }
        // The next variable still gives its token; the placeholder is still worth a word.
        let env = |k: &str| match k {
            "GITLAB_TOKEN" => Some("${user_config.gitlab_token}".to_string()),
            "GITLAB_PERSONAL_ACCESS_TOKEN" => Some("glpat-secret".to_string()),
            _ => None,
        };
        let c = GitlabConfig::from_parts(&args(None), env).unwrap();
        assert_eq!(
            c.credential.map(|c| c.origin),
            Some(TokenOrigin::PersonalAccessToken)
        );
        assert!(matches!(
            c.token_warnings.as_slice(),
            [TokenWarning::Placeholder {
                variable: "GITLAB_TOKEN",
                ..
            }]
        ));
    }

    #[test]
    fn an_empty_token_is_warned_about_only_when_no_token_is_found() {
        let env = |k: &str| (k == "GITLAB_TOKEN").then(|| " ".to_string());
        let c = GitlabConfig::from_parts(&args(None), env).unwrap();
        assert!(c.credential.is_none());
        assert_eq!(
            c.token_warnings,
            [TokenWarning::Empty {
                variable: "GITLAB_TOKEN"
            }]
        );
        assert!(c.token_warnings[0].to_string().contains("set but empty"));
        let unset = GitlabConfig::from_parts(&args(None), |_| None).unwrap();
        assert!(unset.token_warnings.is_empty());
        let env = |k: &str| match k {
            "GITLAB_TOKEN" => Some(String::new()),
            "GITLAB_PERSONAL_ACCESS_TOKEN" => Some("glpat-secret".to_string()),
            _ => None,
        };
        let c = GitlabConfig::from_parts(&args(None), env).unwrap();
        assert!(c.credential.is_some() && c.token_warnings.is_empty());
        let real = |k: &str| (k == "GITLAB_TOKEN").then(|| "glpat-secret".to_string());
        let c = GitlabConfig::from_parts(&args(None), real).unwrap();
        assert!(c.credential.is_some() && c.token_warnings.is_empty());
    }

    #[test]
    fn bad_urls_are_explained() {
        for bad in ["ftp://h", "not a url", "https://u:p@h", "https://h/?x=1"] {
            let e = GitlabConfig::from_parts(&args(Some(bad)), |_| None)
                .unwrap_err()
                .to_string();
            assert!(e.contains("GITLAB_URL"), "{bad}: {e}");
        }
    }

    #[test]
    fn refused_urls_never_show_their_secrets() {
        for bad in [
            "http://u:SECRET@host",
            "https://:SECRET@host",
            "https://SECRET@host",
            "https://host/?private_token=SECRET",
            "https://host/#SECRET",
            "u:SECRET@host",
            "ftp://u:SECRET@host",
            "http://u:SE/CRET@host",
            "http://u:SECRET@ho st",
        ] {
            let e = GitlabConfig::from_parts(&args(Some(bad)), |_| None)
                .unwrap_err()
                .to_string();
            assert!(e.contains("GITLAB_URL"), "{bad}: {e}");
            assert!(!e.contains("SECRET") && !e.contains("CRET"), "{bad}: {e}");
        }
        let api =
            |k: &str| (k == "GITLAB_API_URL").then(|| "https://u:SECRET@h/api/v4".to_string());
        let e = GitlabConfig::from_parts(&args(None), api)
            .unwrap_err()
            .to_string();
        assert!(e.contains("[redacted]@h") && !e.contains("SECRET"), "{e}");
    }

    #[test]
    fn the_ca_file_alias_is_read_and_gitlab_ca_file_wins() {
        let env = |k: &str| (k == CA_FILE_ALIAS).then(|| "/etc/alias.pem".to_string());
        let c = GitlabConfig::from_parts(&args(None), env).unwrap();
        assert_eq!(c.ca_file.as_deref(), Some(Path::new("/etc/alias.pem")));
        // clap fills `ca_file` from --ca-file or GITLAB_CA_FILE: it wins over the alias.
        let mut with_file = args(None);
        with_file.ca_file = Some(PathBuf::from("/etc/file.pem"));
        let c = GitlabConfig::from_parts(&with_file, env).unwrap();
        assert_eq!(c.ca_file.as_deref(), Some(Path::new("/etc/file.pem")));
        let blank = |k: &str| (k == CA_FILE_ALIAS).then(|| " ".to_string());
        let c = GitlabConfig::from_parts(&args(None), blank).unwrap();
        assert_eq!(c.ca_file, None);
    }

    #[test]
    fn ca_file_errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.pem");
        let e = read_ca_bundle(&missing).unwrap_err().to_string();
        assert!(
            e.contains("cannot read GITLAB_CA_FILE") && e.contains("nope.pem"),
            "{e}"
        );
        let garbage = dir.path().join("garbage.pem");
        std::fs::write(&garbage, "not a certificate\n").unwrap();
        let e = read_ca_bundle(&garbage).unwrap_err().to_string();
        assert!(
            e.contains("GITLAB_CA_FILE") && e.contains("garbage.pem"),
            "{e}"
        );
    }
}
