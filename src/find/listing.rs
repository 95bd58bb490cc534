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
    /// when it is not done within `patience` ([`LISTING_WAIT`] for a call).
    pub(crate) async fn wait<S>(
        &self,
        trees: &Arc<TreeCache>,
        source: &S,
        key: TreeKey,
        (at, credential): (&RefCommit, Option<&Credential>),
        patience: Duration,
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
        match tokio::time::timeout(patience, listing).await {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::BlobKind;
    use crate::source::tree::{ItemKind, Proposed, Scope, TreeItem};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A source whose listing takes 300 ms and counts how often it is asked.
    #[derive(Debug, Clone, Default)]
    struct Slow(Arc<AtomicUsize>);

    impl TreeSource for Slow {
        async fn ref_commit(
            &self,
            _: &Scope,
            _: Option<&Credential>,
        ) -> Result<RefCommit, SourceError> {
            unreachable!("not asked")
        }

        fn tree(
            &self,
            _: &RefCommit,
            _: &str,
            _: Option<&Credential>,
        ) -> impl Future<Output = Result<Vec<TreeItem>, SourceError>> + Send {
            let asked = Arc::clone(&self.0);
            async move {
                asked.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(300)).await;
                Ok(vec![TreeItem {
                    path: "b".into(),
                    kind: ItemKind::Blob,
                    oid: "1".into(),
                    size: None,
                    lfs: false,
                }])
            }
        }

        async fn blob(
            &self,
            _: &RefCommit,
            _: &TreeItem,
            _: Option<&Credential>,
        ) -> Result<BlobKind, SourceError> {
            unreachable!("not asked")
        }

        async fn propose(
            &self,
            _: &RefCommit,
            _: &str,
            _: &str,
            _: Option<&Credential>,
        ) -> Proposed {
            unreachable!("not asked")
        }
    }

    #[tokio::test]
    async fn a_slow_listing_goes_on_once_and_is_kept() {
        let (listings, trees, source) = (
            Listings::default(),
            Arc::new(TreeCache::new(1 << 20)),
            Slow::default(),
        );
        let at = RefCommit {
            sha: "c".into(),
            project_path: Some("g/p".into()),
            project_id: None,
            rules: None,
        };
        let key = TreeKey {
            project: "g/p".into(),
            commit: "c".into(),
            dir: String::new(),
        };
        let short = Duration::from_millis(20);
        let first = listings.wait(&trees, &source, key.clone(), (&at, None), short);
        assert_eq!(first.await, Ok(None), "not done in time: the call says so");
        let second = listings.wait(&trees, &source, key.clone(), (&at, None), short);
        assert_eq!(second.await, Ok(None));
        let long = Duration::from_secs(10);
        let done = listings.wait(&trees, &source, key.clone(), (&at, None), long);
        assert_eq!(done.await.unwrap().unwrap().len(), 1);
        assert_eq!(
            source.0.load(Ordering::SeqCst),
            1,
            "one listing for three calls"
        );
        assert!(trees.get(&key).is_some(), "kept");
    }
}
