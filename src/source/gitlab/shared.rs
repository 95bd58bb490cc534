//! What every call of the GitLab source shares (and callers too: every call still validates
//! with its own credential): the GraphQL client, the instance's origin, the content store, the
//! memory of which content each lookup named last, and the first reads in flight.

use super::cache::LastBlobs;
use super::client::Client;
use super::content::ContentStore;
use super::download::Landed;
use super::flights::Flights;
use super::keys::{LookupKey, Named};
use super::permalink;
use super::transport::Transport;
use crate::config::{ConfigError, GitlabConfig};

#[derive(Debug)]
pub(crate) struct Shared {
    pub client: Client,
    /// The base's origin, which GitLab's permalink paths are relative to ([`permalink`]).
    pub origin: String,
    pub store: ContentStore,
    pub last_blobs: LastBlobs,
    /// First reads in flight, by lookup: a concurrent first read of the same lookup follows
    /// one only after its own request has validated it.
    pub first_reads: Flights<LookupKey, Landed<Named>>,
}

impl Shared {
    pub(crate) fn new(config: &GitlabConfig) -> Result<Self, ConfigError> {
        let transport = Transport::new(config)?;
        let store = ContentStore::new(transport.clone(), config.cache_bytes, config.max_file_bytes);
        Ok(Self {
            client: Client::new(transport),
            origin: permalink::origin(&config.base_url),
            store,
            last_blobs: LastBlobs::new(),
            first_reads: Flights::default(),
        })
    }

    /// Whether the content the lookup named last time is cached.
    pub(crate) fn cached_hint(&self, key: &LookupKey) -> bool {
        self.last_blobs
            .get(key)
            .is_some_and(|content| self.store.holds(&content))
    }
}
