//! Client ID Metadata Documents fetched: a `client_id` that is an https URL is fetched with
//! SSRF in mind. Only https; the host's every address must be public ([`address`]) unless
//! `--oauth-allow-private-client-metadata` (tests) says otherwise, and the connection goes to
//! the addresses checked (the check is the resolver's, so DNS cannot answer differently
//! between check and connect); no proxy; no redirect followed; the answer capped in size
//! ([`MAX_DOCUMENT_BYTES`]) and time ([`FETCH_SECS`]); at most [`FETCHES_IN_FLIGHT`] at once.
//! A document read is cached for what its
//! `Cache-Control` says, within bounds, in a bounded table ([`CACHED_DOCUMENTS`]).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::Url;

use super::address;
use super::document::{self, ClientMetadataError};
use crate::auth::sealed::{ClientRegistration, now};
use crate::base::lru::SharedLru;
use crate::metrics::{self, SignInStep};

/// The largest document read (the draft's recommended limit).
pub(crate) const MAX_DOCUMENT_BYTES: usize = 5 * 1024;
/// How long a fetch may take, connection included.
pub(crate) const FETCH_SECS: u64 = 5;
/// How many documents are cached at once (the least recently used forgotten first).
pub(crate) const CACHED_DOCUMENTS: u64 = 1000;
/// How many fetches may be in flight at once; past it a lookup is refused, not queued (anyone
/// who can reach `/authorize` can ask for fetches).
pub(crate) const FETCHES_IN_FLIGHT: usize = 32;

/// The documents fetched and the client fetching them.
#[derive(Debug)]
pub(crate) struct ClientDocuments {
    client: reqwest::Client,
    allow_private: bool,
    cache: SharedLru<String, ClientRegistration>,
    in_flight: tokio::sync::Semaphore,
}

impl ClientDocuments {
    /// Fetching with `builder` (the GitLab client's: its CA file, user agent, no redirects),
    /// given this module's time limit, no proxy and the checking resolver.
    pub(crate) fn new(
        builder: reqwest::ClientBuilder,
        allow_private: bool,
    ) -> Result<Self, reqwest::Error> {
        let client = builder
            .timeout(Duration::from_secs(FETCH_SECS))
            .connect_timeout(Duration::from_secs(FETCH_SECS))
            .redirect(reqwest::redirect::Policy::none())
            .https_only(true)
            .no_proxy()
            .dns_resolver(Arc::new(CheckingResolver { allow_private }))
            .build()?;
        Ok(Self {
            client,
            allow_private,
            cache: SharedLru::new(CACHED_DOCUMENTS),
            in_flight: tokio::sync::Semaphore::new(FETCHES_IN_FLIGHT),
        })
    }

    /// The registration the document at `client_id` makes (cached, or fetched now).
    pub(crate) async fn client(
        &self,
        client_id: &str,
    ) -> Result<ClientRegistration, ClientMetadataError> {
        let now = now();
        let cached = self.cache.lock().get(&client_id.to_string()).cloned();
        if let Some(cached) = cached.filter(|c| c.exp > now) {
            return Ok(cached);
        }
        let fetched = self.fetch(client_id, now).await;
        match &fetched {
            Ok(registration) => {
                metrics::sign_in(SignInStep::ClientMetadataFetched);
                tracing::info!(
                    client = %registration.client_name,
                    url = client_id,
                    "OAuth client metadata document fetched"
                );
                if registration.exp > now {
                    self.cache
                        .lock()
                        .insert(client_id.to_string(), registration.clone(), 1);
                }
            }
            Err(refusal) => {
                metrics::sign_in(SignInStep::ClientMetadataRefused);
                tracing::info!(%refusal, url = client_id, "OAuth client metadata document refused");
            }
        }
        fetched
    }

    async fn fetch(
        &self,
        client_id: &str,
        now: u64,
    ) -> Result<ClientRegistration, ClientMetadataError> {
        let url = document::document_url(client_id)?;
        if !self.allow_private && !literal_is_public(&url) {
            return Err(ClientMetadataError::PrivateAddress);
        }
        let Ok(_permit) = self.in_flight.try_acquire() else {
            return Err(ClientMetadataError::Busy);
        };
        let mut response = self
            .client
            .get(url.clone())
            .header(http::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| failure(&e))?;
        let status = response.status();
        if status.is_redirection() {
            return Err(ClientMetadataError::Redirected);
        }
        if status != http::StatusCode::OK {
            return Err(ClientMetadataError::Status(status.as_u16()));
        }
        if response
            .content_length()
            .is_some_and(|n| n > MAX_DOCUMENT_BYTES as u64)
        {
            return Err(ClientMetadataError::TooLarge);
        }
        let cache_control = response
            .headers()
            .get(http::header::CACHE_CONTROL)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| failure(&e))? {
            if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
                return Err(ClientMetadataError::TooLarge);
            }
            body.extend_from_slice(&chunk);
        }
        let exp = now + document::cache_secs(cache_control.as_deref());
        document::read_document(&url, &body, now, exp)
    }
}

/// Whether `url`'s host, when an IP literal (which no resolver sees), is public; a name is
/// checked by [`CheckingResolver`].
fn literal_is_public(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => address::is_public(ip.into()),
        Some(url::Host::Ipv6(ip)) => address::is_public(ip.into()),
        Some(url::Host::Domain(_)) => true,
        None => false,
    }
}

/// What a failed request was: a private address met by the resolver, or no answer.
fn failure(error: &reqwest::Error) -> ClientMetadataError {
    let mut source: Option<&dyn std::error::Error> = Some(error);
    while let Some(cause) = source {
        if cause.is::<NotPublicAddress>() {
            return ClientMetadataError::PrivateAddress;
        }
        source = cause.source();
    }
    ClientMetadataError::Unreachable
}

/// A resolver refusing a name any of whose addresses is not public.
struct CheckingResolver {
    allow_private: bool,
}

/// The resolver's refusal.
#[derive(Debug, thiserror::Error)]
#[error("the host resolves to an address that is not public")]
struct NotPublicAddress;

impl Resolve for CheckingResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_private = self.allow_private;
        let host = name.as_str().to_string();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if !allow_private && addrs.iter().any(|a| !address::is_public(a.ip())) {
                return Err(Box::new(NotPublicAddress) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn documents(allow_private: bool) -> ClientDocuments {
        let _ = rustls::crypto::ring::default_provider().install_default();
        ClientDocuments::new(reqwest::Client::builder(), allow_private).unwrap()
    }

    #[tokio::test]
    async fn refused_before_any_connection() {
        let documents = documents(false);
        for (client_id, why) in [
            (
                "https://127.0.0.1/c.json",
                ClientMetadataError::PrivateAddress,
            ),
            (
                "https://[fe80::1]/c.json",
                ClientMetadataError::PrivateAddress,
            ),
            (
                "https://169.254.169.254/latest",
                ClientMetadataError::PrivateAddress,
            ),
            (
                "https://10.1.2.3/c.json",
                ClientMetadataError::PrivateAddress,
            ),
            ("https://a.example", ClientMetadataError::NotCanonical),
        ] {
            assert_eq!(documents.client(client_id).await, Err(why), "{client_id}");
        }
    }

    #[tokio::test]
    async fn fetches_past_the_limit_are_refused_not_queued() {
        let documents = documents(true);
        let held = documents
            .in_flight
            .try_acquire_many(FETCHES_IN_FLIGHT as u32)
            .unwrap();
        assert_eq!(
            documents.client("https://127.0.0.1:1/c.json").await,
            Err(ClientMetadataError::Busy)
        );
        drop(held);
        // With a permit free it is fetched (and, nothing listening on port 1, not reached).
        assert_eq!(
            documents.client("https://127.0.0.1:1/c.json").await,
            Err(ClientMetadataError::Unreachable)
        );
    }
}
