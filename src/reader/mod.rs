//! One call of the tool, start to finish, as a recipe: arguments → the source's target and
//! the call's view → a fetched blob → the view rendered → the output object. Every step lives in
//! its own module; the steps a call takes are written once ([`steps`]), for a single read (here)
//! and for a batch ([`batch`]), and this is the one place that matches on the source's kind.
//!
//! Floors: the calls ([`batch`], the single read here) above their [`steps`], above who is
//! calling ([`caller`]), the memory of what each caller read ([`history`]) and why a call has
//! no window ([`error`]). Nothing here imports this module back.

pub(crate) mod batch;
mod bytes;
pub(crate) mod caller;
mod error;
pub(crate) mod history;
mod steps;
mod views;

use std::sync::Arc;

use serde_json::{Map, Value};

pub(crate) use bytes::FileBytes;
pub(crate) use error::ReadError;

use crate::outline::Outlines;
use crate::reader::history::History;
use crate::resolve::args::{self, ToolArgs};
use crate::source::Source;
use crate::source::gitlab::GitlabSource;
use crate::source::local::LocalSource;
use crate::view::{Read, render_off_workers};
use batch::BatchError;
use caller::CallerContext;
use steps::{Call, Labelled, Steps};

/// Where files come from.
#[derive(Debug, Clone)]
pub(crate) enum AnySource {
    Gitlab(GitlabSource),
    Local(LocalSource),
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
    /// A reader of `backend`, its outlines kept and bounded by `outlines`.
    pub(crate) fn new(backend: AnySource, defaults: ReadDefaults, outlines: Outlines) -> Self {
        Self {
            backend,
            defaults,
            history: Arc::new(History::new()),
            outlines: Arc::new(outlines),
        }
    }

    /// The settings calls get when they do not say.
    pub(crate) fn defaults(&self) -> ReadDefaults {
        self.defaults
    }

    /// Where files come from (the HTTP layer asks it whether GitLab accepts a token).
    pub(crate) fn backend(&self) -> &AnySource {
        &self.backend
    }

    /// Runs one `get_repository_file` call: `Ok` is the output object.
    pub(crate) async fn read(
        &self,
        arguments: Option<&Map<String, Value>>,
        who: CallerContext<'_>,
    ) -> Result<Value, ReadError> {
        let args = args::parse(arguments).map_err(ReadError::Args)?;
        self.run(Single { args: &args }, who).await
    }

    /// The bytes of the file `arguments` name (a binary file a read refused as text), at most
    /// `max_bytes` ([`FileBytes`]).
    pub(crate) async fn bytes(
        &self,
        arguments: Option<&Map<String, Value>>,
        max_bytes: u64,
        who: CallerContext<'_>,
    ) -> Result<FileBytes, ReadError> {
        let args = args::parse(arguments).map_err(ReadError::Args)?;
        let call = bytes::Bytes {
            args: &args,
            max_bytes,
        };
        self.run(call, who).await
    }

    /// Runs one `get_repository_files` call: `Ok` is `{"files": [...]}`, one entry per file
    /// asked for; only a malformed call is an error.
    pub(crate) async fn read_many(
        &self,
        arguments: Option<&Map<String, Value>>,
        who: CallerContext<'_>,
    ) -> Result<Value, BatchError> {
        let call = batch::parse(arguments)?;
        Ok(self.run(batch::Many { call: &call }, who).await)
    }

    /// Runs `call` with the steps of the source this reader reads from: the one place reading
    /// matches on the source's kind.
    async fn run<C: Call>(&self, call: C, who: CallerContext<'_>) -> C::Output {
        match &self.backend {
            AnySource::Gitlab(source) => call.run(self.steps(source, who)).await,
            AnySource::Local(source) => call.run(self.steps(source, who)).await,
        }
    }

    /// The steps of a call from `who`, reading from `source`.
    fn steps<'a, S>(&'a self, source: &'a S, who: CallerContext<'a>) -> Steps<'a, S> {
        Steps {
            source,
            who,
            outlines: &self.outlines,
            history: &self.history,
            default_max_chars: self.defaults.max_chars,
        }
    }
}

/// A single read: its target for the arguments, the file it fetches, what the caller read of
/// that file before (when the caller can be told apart from others), and the view rendered.
struct Single<'a> {
    args: &'a ToolArgs,
}

impl Call for Single<'_> {
    type Output = Result<Value, ReadError>;

    async fn run<S>(self, steps: Steps<'_, S>) -> Self::Output
    where
        S: Source,
        S::Lookup: Labelled + Send + 'static,
    {
        let mut planned = steps.plan(self.args)?;
        let fetched = match steps.fetch(&mut planned).await {
            Ok(fetched) => fetched,
            Err(e) => return Err(steps.diff_miss(&planned, e).await),
        };
        let changed_from = steps.changed_from(&fetched);
        let (target, mut view) = planned;
        steps
            .complete(&mut view, &fetched)
            .await
            .map_err(ReadError::Source)?;
        let read = Read {
            fetched,
            changed_from,
            max_chars: steps.budget(target.max_chars),
            fitted_to_message: false,
            shared: None,
        };
        render_off_workers(view, target, read)
            .await
            .map_err(ReadError::View)
    }
}
