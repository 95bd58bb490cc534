//! What every call of the GitLab source shares (and callers too: every call still validates
//! with its own credential): the GraphQL connection, the instance's site (origin and root), the content store, the
//! memory of which content each lookup named last, and the first reads in flight.

use crate::config::{ConfigError, GitlabConfig};
use crate::source::gitlab::content::cache::LastBlobs;
use crate::source::gitlab::content::download::Landed;
use crate::source::gitlab::content::flights::Flights;
use crate::source::gitlab::content::keys::{LookupKey, Named};
use crate::source::gitlab::content::store::ContentStore;
use crate::source::gitlab::query::connection::Connection;
use crate::source::gitlab::rules::permalink;
use crate::source::gitlab::wire::transport::Transport;

#[derive(Debug)]
pub(crate) struct GitlabState {
    pub connection: Connection,
    /// The base's origin and root, which GitLab's permalink paths are relative to
    /// ([`permalink`]).
    pub site: permalink::Site,
    pub store: ContentStore,
    pub last_blobs: LastBlobs,
    /// First reads in flight, by lookup: a concurrent first read of the same lookup follows
    /// one only after its own request has validated it.
    pub first_reads: Flights<LookupKey, Landed<Named>>,
}

impl GitlabState {
    pub(crate) fn new(config: &GitlabConfig) -> Result<Self, ConfigError> {
        let transport = Transport::new(config)?;
        let store = ContentStore::new(transport.clone(), config.cache_bytes, config.max_file_bytes);
        Ok(Self {
            connection: Connection::new(transport),
            site: permalink::Site::of(&config.base_url),
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
