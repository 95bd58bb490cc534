//! One call of the tool, start to finish, as a recipe: arguments → the source's target and
//! the call's view → a fetched blob → the view rendered → the output object. Every step lives in its own module; this one
//! only wires them, and is the one place a call's failure is collected as a [`ReadError`].

pub(crate) mod batch;
pub(crate) mod history;

use std::fmt::{self, Display, Formatter};
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::config::Credential;
use crate::outline::Outlines;
use crate::reader::history::{Caller, FileKey, History};
use crate::resolve::ResolveError;
use crate::resolve::args::{self, ArgError};
use crate::source::gitlab::GitlabSource;
use crate::source::local::LocalSource;
use crate::source::{Fetched, Source, SourceError};
use crate::view::{Read, View, ViewError, render_off_workers};

/// Where files come from.
#[derive(Debug, Clone)]
pub(crate) enum AnySource {
    Gitlab(GitlabSource),
    Local(LocalSource),
}

/// Why a call produced no window.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    Args(#[source] ArgError),
    Resolve(#[source] ResolveError),
    Source(#[source] SourceError),
    /// The blob cannot be shown as the call's view (or the view cannot be built).
    View(#[source] ViewError),
}

impl Display for ReadError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Args(e) => e.fmt(f),
            ReadError::Resolve(e) => e.fmt(f),
            ReadError::Source(e) => e.fmt(f),
            ReadError::View(e) => e.fmt(f),
        }
    }
}

/// What a call gets when it does not say: the server's settings (`--max-chars`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReadDefaults {
    /// The character budget of a call without `max_chars` (0 = none).
    pub max_chars: u64,
}

/// Reads files for the tool; cheap to clone and share across calls.
#[derive(Debug, Clone)]
pub(crate) struct Reader {
    backend: AnySource,
    defaults: ReadDefaults,
    history: Arc<History>,
    /// Outlines kept by blob id, for the outline and symbol views.
    outlines: Arc<Outlines>,
}

impl Reader {
    pub(crate) fn new(backend: AnySource, defaults: ReadDefaults) -> Self {
        Self {
            backend,
            defaults,
            history: Arc::new(History::new()),
            outlines: Arc::new(Outlines::default()),
        }
    }

    /// The settings calls get when they do not say.
    pub(crate) fn defaults(&self) -> ReadDefaults {
        self.defaults
    }

    /// The outlines kept for the outline and symbol views (the batch's views share them).
    pub(crate) fn outlines(&self) -> &Arc<Outlines> {
        &self.outlines
    }

    /// Where files come from (the batch reads through it too).
    pub(crate) fn backend(&self) -> &AnySource {
        &self.backend
    }

    /// Runs one call: `Ok` is the output object.
    pub(crate) async fn read(
        &self,
        arguments: Option<&Map<String, Value>>,
        credential: Option<&Credential>,
        caller: Option<Caller>,
    ) -> Result<Value, ReadError> {
        let args = args::parse(arguments).map_err(ReadError::Args)?;
        let call = (credential, caller);
        match &self.backend {
            AnySource::Gitlab(source) => self.read_from(source, &args, call).await,
            AnySource::Local(source) => self.read_from(source, &args, call).await,
        }
    }

    /// The rest of a call, from one source: its target for the arguments, the file it
    /// fetches, what the caller read of that file before (when the caller can be told apart
    /// from others), and the window.
    async fn read_from<S>(
        &self,
        source: &S,
        args: &args::ToolArgs,
        (credential, caller): (Option<&Credential>, Option<Caller>),
    ) -> Result<Value, ReadError>
    where
        S: Source,
        S::Lookup: Send + 'static,
    {
        let target = source.resolve(args).map_err(ReadError::Resolve)?;
        // A pattern that cannot be searched with costs no request.
        let view = View::of(&target, &self.outlines).map_err(ReadError::View)?;
        let fetched = source
            .fetch(
                &target.lookup,
                view.extent(),
                target.held.as_deref(),
                credential,
            )
            .await
            .map_err(ReadError::Source)?;
        let changed_from = caller.and_then(|c| self.changed_since_last_window(c, &fetched));
        let budget = target.max_chars.unwrap_or(self.defaults.max_chars);
        let read = Read {
            fetched,
            changed_from,
            max_chars: budget,
            fitted_to_message: false,
        };
        render_off_workers(view, target, read)
            .await
            .map_err(ReadError::View)
    }

    /// The blob the caller's previous window of this file came from, if it was another one.
    pub(crate) fn changed_since_last_window(
        &self,
        caller: Caller,
        fetched: &Fetched,
    ) -> Option<String> {
        let blob = &fetched.blob;
        let id = blob.id.as_deref()?;
        let file = FileKey {
            project: fetched.project.clone().unwrap_or_default(),
            git_ref: blob.git_ref.clone(),
            path: blob.path.clone(),
        };
        self.history.record(caller, file, id)
    }
}
