//! One call of the tool, start to finish, as a recipe: arguments → the source's target →
//! a fetched blob → a window → the output object. Every step lives in its own module; this one
//! only wires them, and is the one place a call's failure is collected as a [`ReadError`].

use crate::quote::shown;
use std::fmt::{self, Display, Formatter};
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::args::{self, ArgError};
use crate::config::Credential;
use crate::history::{Caller, History};
use crate::resolve::{ResolveError, SearchArgs, Target};
use crate::response::{self, ReadFacts};
use crate::source::gitlab::GitlabSource;
use crate::source::local::LocalSource;
use crate::source::{BlobKind, Fetched, Source, SourceError, holds};
use crate::window::search::{self, Pattern, PatternError};
use crate::window::{self, Fit, WindowError};

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
    /// The search pattern cannot be compiled.
    Pattern(#[source] PatternError),
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
            ReadError::Pattern(e) => e.fmt(f),
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
    async fn read_from<S: Source>(
        &self,
        source: &S,
        args: &args::ToolArgs,
        (credential, caller): (Option<&Credential>, Option<Caller>),
    ) -> Result<Value, ReadError> {
        let target = source.resolve(args).map_err(ReadError::Resolve)?;
        // A pattern that cannot be searched with costs no request.
        let pattern = compile(&target)?;
        let fetched = source
            .fetch(
                &target.lookup,
                target.extent(),
                target.if_none_match.as_deref(),
                credential,
            )
            .await
            .map_err(ReadError::Source)?;
        let changed_from = caller.and_then(|c| self.changed_since_last_window(c, &fetched));
        let budget = target.max_chars.unwrap_or(self.defaults.max_chars);
        response::message::within_one_message(budget, |max_chars| {
            let read = Read {
                fetched: &fetched,
                changed_from: changed_from.as_deref(),
                max_chars,
                fitted_to_message: max_chars != budget,
            };
            render(&target, &read, pattern.as_ref()).map(|r| (r.output, r.charged))
        })
    }

    /// The blob the caller's previous window of this file came from, if it was another one.
    pub(crate) fn changed_since_last_window(
        &self,
        caller: Caller,
        fetched: &Fetched,
    ) -> Option<String> {
        let blob = &fetched.blob;
        let id = blob.id.as_deref()?;
        let project = fetched.project.as_deref().unwrap_or_default();
        let file = format!("{project}\0{}\0{}", blob.git_ref, blob.path);
        self.history.record(caller, &file, id)
    }
}

/// The target's search pattern, compiled (`None` without one).
pub(crate) fn compile<L>(target: &Target<L>) -> Result<Option<Pattern>, ReadError> {
    target
        .search
        .as_ref()
        .map(|s| Pattern::new(&s.pattern, s.ignore_case.unwrap_or(false)))
        .transpose()
        .map_err(ReadError::Pattern)
}

/// What a call read, beside its target: the blob, whether the caller read another blob of the
/// file before, and the character budget the content may take (the caller's, else the
/// server's; in a batch, what is left of the call's).
pub(crate) struct Read<'a> {
    pub fetched: &'a Fetched,
    pub changed_from: Option<&'a str>,
    pub max_chars: u64,
    /// `max_chars` is what fits in one message, less than the caller's budget.
    pub fitted_to_message: bool,
}

impl Read<'_> {
    /// The blob's text and whether GitLab's read limit cut it, or the binary/LFS error.
    fn text(&self) -> Result<(&str, bool), ReadError> {
        let blob = &self.fetched.blob;
        match &blob.kind {
            BlobKind::Text {
                content,
                cut_by_read_limit,
            } => Ok((content.as_str(), *cut_by_read_limit)),
            BlobKind::Binary => Err(ReadError::Binary {
                path: blob.path.clone(),
                size_bytes: blob.size_bytes,
            }),
            BlobKind::Lfs { storage } => Err(ReadError::Lfs {
                path: blob.path.clone(),
                storage: storage.clone(),
                size_bytes: blob.size_bytes,
            }),
            // Sources only leave a blob unread for a caller who holds it, answered before.
            BlobKind::NotRead => Ok(("", false)),
        }
    }

    /// The facts of the read the hints need, for `target`.
    fn facts<'a, L>(&'a self, target: &Target<L>, cut_by_read_limit: bool) -> ReadFacts<'a> {
        let blob = &self.fetched.blob;
        ReadFacts {
            path: &blob.path,
            git_ref: &blob.git_ref,
            size_bytes: blob.size_bytes,
            cut_by_read_limit,
            hint_style: target.hint_style,
            split_fallback_from: self.fetched.split_fallback_from.as_deref(),
            blob_id: blob.id.as_deref(),
            changed_from: self.changed_from,
            max_chars_arg: target.max_chars,
            fitted_to_message: self.fitted_to_message,
            commit_sha: blob.commit_sha.as_deref(),
            web_url: self.fetched.web_url.as_deref(),
        }
    }

    /// The fit of a window: the budget and numbering.
    fn fit<L>(&self, target: &Target<L>) -> Fit {
        Fit {
            max_chars: self.max_chars,
            line_numbers: target.line_numbers,
        }
    }

    /// Whether the caller holds the blob read (`if_none_match` names its id).
    fn held<L>(&self, target: &Target<L>) -> bool {
        holds(
            target.if_none_match.as_deref(),
            self.fetched.blob.id.as_deref(),
        )
    }
}

/// A rendered answer: the output object, and what its content was charged against the budget.
#[derive(Debug)]
pub(crate) struct Rendered {
    pub output: Value,
    pub charged: u64,
}

impl Rendered {
    fn of(output: impl serde::Serialize, charged: usize) -> Result<Self, ReadError> {
        Ok(Self {
            output: serde_json::to_value(output).map_err(ReadError::Output)?,
            charged: charged as u64,
        })
    }
}

/// Renders what a call read: a page of matches for a search (`pattern`, compiled from the
/// target's), else a window; a blob the caller holds (`if_none_match`) without content.
pub(crate) fn render<L>(
    target: &Target<L>,
    read: &Read<'_>,
    pattern: Option<&Pattern>,
) -> Result<Rendered, ReadError> {
    if read.held(target) {
        return render_unchanged(target, read);
    }
    match (&target.search, pattern) {
        (Some(args), Some(pattern)) => render_search(target, read, args, pattern),
        _ => render_window(target, read),
    }
}

/// Windows a fetched blob, fitted to the budget and numbered if asked, and serialises the
/// output (or the binary/LFS/range error).
fn render_window<L>(target: &Target<L>, read: &Read<'_>) -> Result<Rendered, ReadError> {
    let (content, cut_by_read_limit) = read.text()?;
    let fitted =
        window::fit_window(content, target.lines, read.fit(target)).map_err(ReadError::Window)?;
    let facts = read.facts(target, cut_by_read_limit);
    Rendered::of(
        response::file_output(facts, &fitted),
        fitted.charged_chars(),
    )
}

/// Searches a fetched blob (the whole of it was fetched) and serialises the page of matches.
fn render_search<L>(
    target: &Target<L>,
    read: &Read<'_>,
    args: &SearchArgs,
    pattern: &Pattern,
) -> Result<Rendered, ReadError> {
    let (content, cut_by_read_limit) = read.text()?;
    let how = search::Search {
        pattern,
        lines: args.lines,
        context_lines: args.context_lines.unwrap_or(search::DEFAULT_CONTEXT_LINES),
        max_chars: read.max_chars,
    };
    let found = search::search(content, &how).map_err(ReadError::Window)?;
    let facts = read.facts(target, cut_by_read_limit);
    let output = response::search_output(facts, args, &found, how.max_chars);
    Rendered::of(output, found.charged_chars())
}

/// The answer for a blob the caller holds: no content, and the window's metadata when the
/// text was at hand and the call asked for a window (an invalid window is refused as in any
/// answer); a search's answer names no window.
fn render_unchanged<L>(target: &Target<L>, read: &Read<'_>) -> Result<Rendered, ReadError> {
    let (text, cut_by_read_limit) = match &read.fetched.blob.kind {
        BlobKind::Text {
            content,
            cut_by_read_limit,
        } if target.search.is_none() => (Some(content.as_str()), *cut_by_read_limit),
        _ => (None, false),
    };
    let fitted = text
        .map(|t| window::fit_window(t, target.lines, read.fit(target)))
        .transpose()
        .map_err(ReadError::Window)?;
    let facts = read.facts(target, cut_by_read_limit);
    Rendered::of(response::unchanged_output(facts, fitted.as_ref()), 0)
}
