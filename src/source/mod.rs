//! Where the bytes come from, behind one contract: a [`Source`] turns a call's arguments into
//! its own kind of lookup (`resolve`), and a lookup into a [`Fetched`] blob or a
//! [`SourceError`]. [`gitlab`] reads over GitLab's GraphQL API; [`local`] reads a git
//! repository on disk with gix. Both choose among a URL's candidate ref/path splits with the
//! same pure rule ([`crate::resolve::choice`]).

pub(crate) mod blob;
pub(crate) mod classify;
pub(crate) mod gitlab;
pub(crate) mod local;
pub(crate) mod suggest;

/// The throwaway repository the local source's and the classification's tests read.
#[cfg(test)]
#[path = "../../tests/support/git_fixture.rs"]
mod git_fixture;

pub(crate) use blob::{BlobKind, Fetched, SourceError};

use crate::args::ToolArgs;
use crate::config::Credential;
use crate::resolve::{ResolveError, Target};
use crate::window::Extent;

/// One source of files. The lookup type is the source's own, so a GitLab lookup always names a
/// project and a local one never needs to.
pub(crate) trait Source {
    /// What this source needs to find a file.
    type Lookup;

    /// The call's arguments as this source's target (pure).
    fn resolve(&self, args: &ToolArgs) -> Result<Target<Self::Lookup>, ResolveError>;

    /// Reads the file `lookup` names, with the caller's credential where the source has
    /// access control; `extent` says how much of a large file is needed.
    async fn fetch(
        &self,
        lookup: &Self::Lookup,
        extent: Extent,
        credential: Option<&Credential>,
    ) -> Result<Fetched, SourceError>;

    /// Reads the files of several lookups, each with its extent: one answer per lookup, in
    /// order. By default one [`Source::fetch`] after the other; a source that can ask for many
    /// files at once groups them, each file still validated and read as `fetch` would.
    async fn fetch_many(
        &self,
        wanted: &[(&Self::Lookup, Extent)],
        credential: Option<&Credential>,
    ) -> Vec<Result<Fetched, SourceError>> {
        let mut fetched = Vec::with_capacity(wanted.len());
        for &(lookup, extent) in wanted {
            fetched.push(self.fetch(lookup, extent, credential).await);
        }
        fetched
    }
}
