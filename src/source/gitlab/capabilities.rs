//! Which optional schema fields this GitLab instance has, learned from its answers and shared by
//! every call: an instance that rejects a field once is never asked for it again.

use std::sync::atomic::{AtomicU8, Ordering};

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
#[derive(Debug, Default)]
pub(crate) struct Capabilities {
    /// `Project.duoContextExclusionSettings` (GitLab EE 18.2+).
    pub exclusions: FieldSupport,
    /// `Repository.commit(ref:)`.
    pub commit: FieldSupport,
    /// `RepositoryBlob.permalinkPath` (the commit an answer was read at); an instance without
    /// it answers without `commit_sha` and `web_url`.
    pub permalink: FieldSupport,
}

/// The field names, as GitLab's "doesn't exist" errors name them.
pub(crate) const EXCLUSIONS_FIELD: &str = "duoContextExclusionSettings";
pub(crate) const COMMIT_FIELD: &str = "commit";
pub(crate) const PERMALINK_FIELD: &str = "permalinkPath";

#[cfg(test)]
mod tests {
    use super::*;

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
