//! Listings in progress ([`Listings`]): a tree not yet cached is listed in a task of its own,
//! one per project, commit and directory however many calls want it, and kept in the
//! [`TreeCache`] when done. A call waits for it at most [`LISTING_WAIT`]: a tree of hundreds of
//! thousands of paths (GitLab gives 100 a request) takes longer than a call may, so the call
//! then says the listing goes on and names itself again, and a later call finds it cached.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::{self, BoxFuture};

use super::cache::{TreeCache, TreeKey};
use crate::base::cause::Shared;
use crate::config::Credential;
use crate::source::SourceError;
use crate::source::tree::{Items, RefCommit, TreeSource};

/// How long a call waits for a listing before answering that it goes on.
pub(crate) const LISTING_WAIT: Duration = Duration::from_secs(30);

/// A listing in progress, awaited by every call that wants it.
type RunningListing = future::Shared<BoxFuture<'static, Result<Items, SourceError>>>;

/// The listings in progress.
#[derive(Debug, Default)]
pub(crate) struct Listings {
    running: Arc<Mutex<HashMap<TreeKey, RunningListing>>>,
}

/// Why a listing task ended without a listing.
#[derive(Debug, thiserror::Error)]
#[error("the tree listing task stopped: {cause}")]
struct ListingStopped {
    #[source]
    cause: Shared<tokio::task::JoinError>,
}

impl Listings {
    /// The listing `key` names, from `source` (started now unless already running); `None`
    /// when it is not done within [`LISTING_WAIT`].
    pub(crate) async fn wait<S>(
        &self,
        trees: &Arc<TreeCache>,
        source: &S,
        key: TreeKey,
        at: &RefCommit,
        credential: Option<&Credential>,
    ) -> Result<Option<Items>, SourceError>
    where
        S: TreeSource + Clone + Send + Sync + 'static,
    {
        let listing = {
            let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
            running
                .entry(key.clone())
                .or_insert_with(|| self.start(trees, source, key, at, credential))
                .clone()
        };
        match tokio::time::timeout(LISTING_WAIT, listing).await {
            Ok(done) => done.map(Some),
            Err(_) => Ok(None),
        }
    }

    /// Starts listing `key` in a task that keeps the result and then leaves `running`.
    fn start<S>(
        &self,
        trees: &Arc<TreeCache>,
        source: &S,
        key: TreeKey,
        at: &RefCommit,
        credential: Option<&Credential>,
    ) -> RunningListing
    where
        S: TreeSource + Clone + Send + Sync + 'static,
    {
        let (source, at, credential) = (source.clone(), at.clone(), credential.cloned());
        let (trees, running) = (Arc::clone(trees), Arc::clone(&self.running));
        let task = tokio::spawn(async move {
            let listed = source.tree(&at, &key.dir, credential.as_ref()).await;
            let done = listed.map(|mut items| {
                items.sort_by(|a, b| a.path.cmp(&b.path));
                items.shrink_to_fit();
                let items: Items = Arc::new(items);
                trees.put(key.clone(), Arc::clone(&items));
                items
            });
            // The entry was inserted before this task could take the lock.
            running
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&key);
            done
        });
        async move {
            task.await.unwrap_or_else(|e| {
                Err(SourceError::failed(ListingStopped {
                    cause: Shared::new(e),
                }))
            })
        }
        .boxed()
        .shared()
    }
}
