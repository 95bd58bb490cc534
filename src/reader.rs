//! One call of the tool, start to finish, as a recipe: arguments → the source's target →
//! a fetched blob → a window → the output object. Every step lives in its own module; this one
//! only wires them, and is the one place a call's failure is collected as a [`ReadError`].

use crate::quote::shown;
use std::fmt::{self, Display, Formatter};
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::args::{self, ArgError};
use crate::batch::{self, BatchError};
use crate::config::Credential;
use crate::history::{Caller, History};
use crate::resolve::{ResolveError, Target};
use crate::response::{self, ReadFacts};
use crate::source::gitlab::GitlabSource;
use crate::source::local::LocalSource;
use crate::source::{BlobKind, Fetched, Source, SourceError};
use crate::window::{self, Extent, Fit, WindowError};

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
    Window(#[source] WindowError),
    /// The file is binary.
    Binary {
        path: String,
        size_bytes: u64,
    },
    /// The file is stored in LFS.
    Lfs {
        path: String,
        storage: String,
        size_bytes: u64,
    },
    /// The output could not be serialised (never expected).
    Output(#[source] serde_json::Error),
}

impl Display for ReadError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Args(e) => e.fmt(f),
            ReadError::Resolve(e) => e.fmt(f),
            ReadError::Source(e) => e.fmt(f),
            ReadError::Window(e) => write!(
                f,
                "Invalid line range: {e}. Pass start_line less than or equal to end_line."
            ),
            ReadError::Binary { path, size_bytes } => write!(
                f,
                "File '{}' is binary and cannot be returned as text. Size: {size_bytes} bytes.",
                shown(path)
            ),
            ReadError::Lfs {
                path,
                storage,
                size_bytes,
            } => write!(
                f,
                "File '{}' is stored in LFS ({storage}) and its content cannot be read with this tool. Size: {size_bytes} bytes.",
                shown(path)
            ),
            ReadError::Output(e) => write!(f, "internal error: cannot serialise the output: {e}"),
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
}

impl Reader {
    pub(crate) fn new(backend: AnySource, defaults: ReadDefaults) -> Self {
        Self {
            backend,
            defaults,
            history: Arc::new(History::new()),
        }
    }

    /// The settings calls get when they do not say.
    pub(crate) fn defaults(&self) -> ReadDefaults {
        self.defaults
    }

    /// Runs one call: `Ok` is the output object.
    pub(crate) async fn read(
        &self,
        arguments: Option<&Map<String, Value>>,
        credential: Option<&Credential>,
    ) -> Result<Value, ReadError> {
        let args = args::parse(arguments).map_err(ReadError::Args)?;
        match &self.backend {
            AnySource::Gitlab(source) => self.read_from(source, &args, credential).await,
            AnySource::Local(source) => self.read_from(source, &args, credential).await,
        }
    }

    /// The rest of a call, from one source: its target for the arguments, the file it
    /// fetches, what the caller read of that file before, and the window.
    async fn read_from<S: Source>(
        &self,
        source: &S,
        args: &args::ToolArgs,
        credential: Option<&Credential>,
    ) -> Result<Value, ReadError> {
        let target = source.resolve(args).map_err(ReadError::Resolve)?;
        let fetched = source
            .fetch(&target.lookup, extent(&target), credential)
            .await
            .map_err(ReadError::Source)?;
        let changed_from = self.changed_since_last_window(credential, &fetched);
        let max_chars = target.max_chars.unwrap_or(self.defaults.max_chars);
        render(&target, &fetched, changed_from.as_deref(), max_chars).map(|r| r.output)
    }

    /// Runs one `get_repository_files` call: `Ok` is `{"files": [...]}`, one entry per file
    /// asked for; only a malformed call is an error.
    pub(crate) async fn read_many(
        &self,
        arguments: Option<&Map<String, Value>>,
        credential: Option<&Credential>,
    ) -> Result<Value, BatchError> {
        let call = batch::parse(arguments)?;
        Ok(match &self.backend {
            AnySource::Gitlab(source) => batch::read_from(self, source, &call, credential).await,
            AnySource::Local(source) => batch::read_from(self, source, &call, credential).await,
        })
    }

    /// The blob the caller's previous window of this file came from, if it was another one.
    pub(crate) fn changed_since_last_window(
        &self,
        credential: Option<&Credential>,
        fetched: &Fetched,
    ) -> Option<String> {
        let blob = &fetched.blob;
        let id = blob.id.as_deref()?;
        let project = fetched.project.as_deref().unwrap_or_default();
        let file = format!("{project}\0{}\0{}", blob.git_ref, blob.path);
        self.history.record(Caller::of(credential), &file, id)
    }
}

/// How much of its file a target needs from the source.
pub(crate) fn extent<L>(target: &Target<L>) -> Extent {
    Extent::Lines(target.lines)
}

/// A rendered window: the output object, and what its content was charged against the budget.
#[derive(Debug)]
pub(crate) struct Rendered {
    pub output: Value,
    pub charged: u64,
}

/// Windows a fetched blob, fitted to `max_chars` (0 = no budget) and numbered if asked, and
/// serialises the output (or the binary/LFS/range error).
pub(crate) fn render<L>(
    target: &Target<L>,
    fetched: &Fetched,
    changed_from: Option<&str>,
    max_chars: u64,
) -> Result<Rendered, ReadError> {
    let blob = &fetched.blob;
    let (content, cut_by_read_limit) = match &blob.kind {
        BlobKind::Text {
            content,
            cut_by_read_limit,
        } => (content.as_str(), *cut_by_read_limit),
        BlobKind::Binary => {
            return Err(ReadError::Binary {
                path: blob.path.clone(),
                size_bytes: blob.size_bytes,
            });
        }
        BlobKind::Lfs { storage } => {
            return Err(ReadError::Lfs {
                path: blob.path.clone(),
                storage: storage.clone(),
                size_bytes: blob.size_bytes,
            });
        }
    };
    let fit = Fit {
        max_chars,
        line_numbers: target.line_numbers,
    };
    let fitted = window::fit_window(content, target.lines, fit).map_err(ReadError::Window)?;
    let facts = ReadFacts {
        path: &blob.path,
        git_ref: &blob.git_ref,
        size_bytes: blob.size_bytes,
        cut_by_read_limit,
        hint_style: target.hint_style,
        split_fallback_from: fetched.split_fallback_from.as_deref(),
        blob_id: blob.id.as_deref(),
        changed_from,
        max_chars_arg: target.max_chars,
    };
    let output =
        serde_json::to_value(response::file_output(facts, &fitted)).map_err(ReadError::Output)?;
    Ok(Rendered {
        output,
        charged: fitted.charged_chars() as u64,
    })
}
