//! Where the bytes come from, behind one contract: a [`Source`] turns a call's arguments into
//! its own kind of lookup (`resolve`), and a lookup into a [`Fetched`] blob or a
//! [`SourceError`]. [`gitlab`] reads over GitLab's GraphQL API; [`local`] reads a git
//! repository on disk with gix. Both choose among a URL's candidate ref/path splits with the
//! same pure rule ([`split_choice`]).

pub(crate) mod blob;
pub(crate) mod gitlab;
pub(crate) mod local;
pub(crate) mod split_choice;
pub(crate) mod suggest;

pub(crate) use blob::{BlobKind, Fetched, SourceError};

use crate::args::ToolArgs;
use crate::config::Credential;
use crate::resolve::{self, Lookup, ProjectFile, ResolveError, Target};
use gitlab::GitlabSource;
use local::LocalSource;

/// One source of files. The lookup type is the source's own, so a GitLab lookup always names a
/// project and a local one never needs to.
pub(crate) trait Source {
    /// What this source needs to find a file.
    type Lookup;

    /// The call's arguments as this source's target (pure).
    fn resolve(&self, args: &ToolArgs) -> Result<Target<Self::Lookup>, ResolveError>;

    /// Reads the file the target's lookup names, with the caller's credential where the
    /// source has access control. The target's lines say how much of a large file is needed.
    async fn fetch(
        &self,
        target: &Target<Self::Lookup>,
        credential: Option<&Credential>,
    ) -> Result<Fetched, SourceError>;

    /// Reads the files of several targets: one answer per target, in order. By default one
    /// [`Source::fetch`] after the other; a source that can ask for many files at once groups
    /// them, each file still validated and read as `fetch` would.
    async fn fetch_many(
        &self,
        targets: &[&Target<Self::Lookup>],
        credential: Option<&Credential>,
    ) -> Vec<Result<Fetched, SourceError>> {
        let mut fetched = Vec::with_capacity(targets.len());
        for target in targets {
            fetched.push(self.fetch(target, credential).await);
        }
        fetched
    }
}

impl Source for GitlabSource {
    type Lookup = ProjectFile;

    fn resolve(&self, args: &ToolArgs) -> Result<Target<ProjectFile>, ResolveError> {
        resolve::for_gitlab(args, self.base())
    }

    async fn fetch(
        &self,
        target: &Target<ProjectFile>,
        credential: Option<&Credential>,
    ) -> Result<Fetched, SourceError> {
        GitlabSource::fetch(self, target, credential).await
    }

    async fn fetch_many(
        &self,
        targets: &[&Target<ProjectFile>],
        credential: Option<&Credential>,
    ) -> Vec<Result<Fetched, SourceError>> {
        GitlabSource::fetch_many(self, targets, credential).await
    }
}

impl Source for LocalSource {
    type Lookup = Lookup;

    fn resolve(&self, args: &ToolArgs) -> Result<Target<Lookup>, ResolveError> {
        resolve::for_local(args)
    }

    async fn fetch(
        &self,
        target: &Target<Lookup>,
        _credential: Option<&Credential>,
    ) -> Result<Fetched, SourceError> {
        LocalSource::fetch(self, &target.lookup).await
    }
}
