//! Which optional schema fields this GitLab instance has, and how much one request may ask of
//! it, learned from its answers and shared by every call: an instance that rejects a field once
//! is never asked for it again, and one that finds a request too costly is asked less from then
//! on.

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

use crate::source::gitlab::wire::envelope::GraphqlError;

/// Whether the instance has one optional field: not yet known, present, or absent.
#[derive(Debug, Default)]
pub(crate) struct FieldSupport(AtomicU8);

impl FieldSupport {
    // 0 (the default) means not yet known.
    const PRESENT: u8 = 1;
    const ABSENT: u8 = 2;

    /// True unless the instance is known to lack the field: worth asking for.
    pub(crate) fn worth_asking(&self) -> bool {
        self.0.load(Ordering::Relaxed) != Self::ABSENT
    }

    /// Records what an answer showed.
    pub(crate) fn record(&self, present: bool) {
        let value = if present { Self::PRESENT } else { Self::ABSENT };
        self.0.store(value, Ordering::Relaxed);
    }
}

/// What the instance supports.
#[derive(Debug)]
pub(crate) struct Capabilities {
    /// `Project.duoContextExclusionSettings` (GitLab EE 18.2+).
    pub exclusions: FieldSupport,
    /// `Repository.commit(ref:)`.
    pub commit: FieldSupport,
    /// `RepositoryBlob.permalinkPath` (the commit an answer was read at); an instance without
    /// it answers without `commit_sha` and `web_url`.
    pub permalink: FieldSupport,
    /// The `RefType` enum and `blobs(refType:)`; without them a ref is qualified in the `ref`
    /// string itself (`refs/heads/…`, `refs/tags/…`).
    pub ref_type: FieldSupport,
    /// URL-split candidates per request.
    pub candidates: PerRequest,
    /// Paths per `blobs(paths:)` request.
    pub paths: PerRequest,
}

/// How many items one request may carry on this instance: a ceiling of our own until the
/// instance refuses a request as too costly, then half of what was refused, remembered.
#[derive(Debug)]
pub(crate) struct PerRequest(AtomicUsize);

impl PerRequest {
    pub(crate) const fn new(ceiling: usize) -> Self {
        Self(AtomicUsize::new(ceiling))
    }

    /// The most items a request may carry now (at least 1).
    pub(crate) fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed).max(1)
    }

    /// A request of `refused` items was too costly: from now on at most half of it. False when
    /// it cannot be made smaller (one item).
    pub(crate) fn shrink_below(&self, refused: usize) -> bool {
        if refused <= 1 {
            return false;
        }
        let half = refused / 2;
        self.0.fetch_min(half, Ordering::Relaxed);
        tracing::info!(
            per_request = half,
            "GitLab found a request too costly; asking less per request from now on"
        );
        true
    }
}

impl Default for Capabilities {
    fn default() -> Self {
        Self {
            exclusions: FieldSupport::default(),
            commit: FieldSupport::default(),
            permalink: FieldSupport::default(),
            ref_type: FieldSupport::default(),
            candidates: PerRequest::new(MAX_CANDIDATES_PER_REQUEST),
            paths: PerRequest::new(MAX_PATHS_PER_REQUEST),
        }
    }
}

/// URL-split candidates asked in one request at most, chosen to stay inside GitLab's anonymous
/// complexity limit (200) by its rules (`tests/it/gitlab/query_cost.rs` counts it).
pub(crate) const MAX_CANDIDATES_PER_REQUEST: usize = 8;
/// Paths asked in one `blobs(paths:)` request at most (`tests/it/gitlab/query_cost.rs` counts 20).
pub(crate) const MAX_PATHS_PER_REQUEST: usize = 20;

/// Whether graphql-ruby refused a document because the instance has no `RefType` enum or no
/// `refType` argument: `RefType isn't a defined input type (on $refType)`
/// (`variableRequiresValidType`) or `Field 'blobs' doesn't accept argument 'refType'`
/// (`argumentNotAccepted`).
pub(crate) fn lacks_ref_type(errors: &[GraphqlError]) -> bool {
    errors.iter().any(|e| {
        e.message.contains("RefType isn't a defined input type")
            || e.message.contains("doesn't accept argument 'refType'")
    })
}

/// Whether GitLab's error `messages` refuse a document as too costly: `Query has complexity of
/// N, which exceeds max complexity of M` or `Query too large` (over 10,000 characters).
pub(crate) fn too_costly(messages: &str) -> bool {
    (messages.contains("Query has complexity of") && messages.contains("exceeds max complexity"))
        || messages.contains("Query too large")
}

/// The field names, as GitLab's "doesn't exist" errors name them.
pub(crate) const EXCLUSIONS_FIELD: &str = "duoContextExclusionSettings";
pub(crate) const COMMIT_FIELD: &str = "commit";
pub(crate) const PERMALINK_FIELD: &str = "permalinkPath";

#[cfg(test)]
mod tests {
    use super::*;

    fn error(message: &str) -> GraphqlError {
        serde_json::from_value(serde_json::json!({ "message": message })).unwrap()
    }

    #[test]
    fn graphql_rubys_refusals_are_recognised() {
        assert!(lacks_ref_type(&[error(
            "RefType isn't a defined input type (on $refType)"
        )]));
        assert!(lacks_ref_type(&[
            error("x"),
            error("Field 'blobs' doesn't accept argument 'refType'")
        ]));
        assert!(!lacks_ref_type(&[error("Ref is not valid")]));
        assert!(!lacks_ref_type(&[]));
        assert!(too_costly(
            "Query has complexity of 257, which exceeds max complexity of 250"
        ));
        assert!(too_costly("x; Query too large"));
        assert!(!too_costly(
            "Query has depth of 16, which exceeds max depth of 15"
        ));
        assert!(!too_costly(""));
    }

    #[test]
    fn a_per_request_ceiling_only_shrinks() {
        let p = PerRequest::new(8);
        assert_eq!(p.get(), 8);
        assert!(p.shrink_below(8));
        assert_eq!(p.get(), 4);
        // A refusal of a larger request (in flight before the first) does not grow it back.
        assert!(p.shrink_below(8));
        assert_eq!(p.get(), 4);
        assert!(p.shrink_below(3));
        assert_eq!(p.get(), 1);
        assert!(!p.shrink_below(1));
        assert_eq!(p.get(), 1);
        assert!(!PerRequest::new(0).shrink_below(0));
        assert_eq!(PerRequest::new(0).get(), 1);
    }

    #[test]
    fn unknown_until_seen_absent() {
        let s = FieldSupport::default();
        assert!(s.worth_asking());
        s.record(true);
        assert!(s.worth_asking());
        s.record(false);
        assert!(!s.worth_asking());
    }
}
