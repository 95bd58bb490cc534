//! A call's steps over one source, written once for the single read and the batch: the target
//! the arguments name and its view ([`Steps::plan`]), the file fetched ([`Steps::fetch`], or
//! [`Steps::fetch_each`] for many), what the caller read of it before
//! ([`Steps::changed_from`]), and the budget the view may take. Each read then renders its view
//! with [`crate::view::render`]. What runs the steps is a [`Call`]; the reader hands it the
//! steps of the source it reads from, matching on the source's kind in one place.

use std::sync::Arc;

use super::caller::CallerContext;
use super::error::ReadError;
use super::history::{FileKey, History};
use crate::outline::Outlines;
use crate::resolve::args::ToolArgs;
use crate::resolve::{Lookup, ProjectFile, Target};
use crate::source::{Fetched, Source, SourceError, Wanted};
use crate::view::View;

/// A read planned: the target the arguments name, and the view the call asks of it.
pub(crate) type Planned<L> = (Target<L>, View);

/// What a call does once its source is known: a single read, or a batch.
pub(crate) trait Call {
    type Output;

    /// Runs the call with the steps of one source.
    async fn run<S>(self, steps: Steps<'_, S>) -> Self::Output
    where
        S: Source,
        S::Lookup: Labelled + Send + 'static;
}

/// The path and ref a lookup names, when it names one (a URL that splits several ways does not
/// until the source has chosen).
pub(crate) trait Labelled {
    fn path_and_ref(&self) -> Option<(&str, &str)>;
}

impl Labelled for Lookup {
    fn path_and_ref(&self) -> Option<(&str, &str)> {
        match self {
            Lookup::Exact { git_ref, path, .. } => Some((path, git_ref)),
            Lookup::Candidates { .. } => None,
        }
    }
}

impl Labelled for ProjectFile {
    fn path_and_ref(&self) -> Option<(&str, &str)> {
        match self {
            ProjectFile::Named { git_ref, path, .. } => Some((path, git_ref)),
            ProjectFile::Url { file, .. } => file.path_and_ref(),
        }
    }
}

/// The steps of a call reading from `S`, for one caller.
#[derive(Debug)]
pub(crate) struct Steps<'a, S> {
    pub(super) source: &'a S,
    pub(super) who: CallerContext<'a>,
    /// Outlines kept by blob id, for the outline and symbol views.
    pub(super) outlines: &'a Arc<Outlines>,
    pub(super) history: &'a History,
    /// The character budget of a call without `max_chars` (0 = none).
    pub(super) default_max_chars: u64,
}

impl<S: Source> Steps<'_, S> {
    /// The target `args` name for this source, and its view: a pattern that cannot be searched
    /// with costs no request.
    pub(crate) fn plan(&self, args: &ToolArgs) -> Result<Planned<S::Lookup>, ReadError> {
        let target = self.source.resolve(args).map_err(ReadError::Resolve)?;
        let view = View::of(&target, self.outlines).map_err(ReadError::View)?;
        Ok((target, view))
    }

    /// What a planned read asks the source: its lookup, as much of the file as its view needs,
    /// and the blob the caller holds.
    pub(crate) fn wanted<'p>(
        &self,
        (target, view): &'p Planned<S::Lookup>,
    ) -> Wanted<'p, S::Lookup> {
        Wanted {
            lookup: &target.lookup,
            extent: view.extent(),
            held: target.held.as_deref(),
        }
    }

    /// The file a planned read names, with the caller's credential.
    pub(crate) async fn fetch(&self, planned: &Planned<S::Lookup>) -> Result<Fetched, SourceError> {
        let w = self.wanted(planned);
        self.source
            .fetch(w.lookup, w.extent, w.held, self.who.credential)
            .await
    }

    /// The files of several reads, one answer each, in order ([`Source::fetch_many`]).
    pub(crate) async fn fetch_each(
        &self,
        wanted: &[Wanted<'_, S::Lookup>],
    ) -> Vec<Result<Fetched, SourceError>> {
        self.source.fetch_many(wanted, self.who.credential).await
    }

    /// The blob the caller's previous window of this file came from, when it was another one;
    /// asking records this read (nothing is asked of a caller that cannot be told apart).
    pub(crate) fn changed_from(&self, fetched: &Fetched) -> Option<String> {
        let caller = self.who.caller?;
        let blob = &fetched.blob;
        let id = blob.id.as_deref()?;
        let file = FileKey {
            project: fetched.project.clone().unwrap_or_default(),
            git_ref: blob.git_ref.clone(),
            path: blob.path.clone(),
        };
        self.history.record(caller, file, id)
    }

    /// The character budget of a call that gave `max_chars` (or did not).
    pub(crate) fn budget(&self, max_chars: Option<u64>) -> u64 {
        max_chars.unwrap_or(self.default_max_chars)
    }
}
