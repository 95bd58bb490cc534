//! One call of the tool, start to finish, as a recipe: arguments → the source's target →
//! a fetched blob → a window → the output object. Every step lives in its own module; this one
//! only wires them, and is the one place a call's failure is collected as a [`ReadError`].

use serde_json::{Map, Value};

use crate::args::{self, ArgError};
use crate::config::Credential;
use crate::resolve::{ResolveError, Target};
use crate::response::{self, ReadFacts};
use crate::source::gitlab::GitlabSource;
use crate::source::local::LocalSource;
use crate::source::{BlobKind, Fetched, Source, SourceError};
use crate::window::{self, WindowError};

/// Where files come from.
#[derive(Debug, Clone)]
pub(crate) enum Backend {
    Gitlab(GitlabSource),
    Local(LocalSource),
}

/// Why a call produced no window. `response` words each variant.
#[derive(Debug)]
pub(crate) enum ReadError {
    Args(ArgError),
    Resolve(ResolveError),
    Source(SourceError),
    Window(WindowError),
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
    Output(serde_json::Error),
}

/// Reads files for the tool; cheap to clone and share across calls.
#[derive(Debug, Clone)]
pub(crate) struct Reader {
    backend: Backend,
}

impl Reader {
    pub(crate) fn new(backend: Backend) -> Self {
        Self { backend }
    }

    /// Runs one call: `Ok` is the output object.
    pub(crate) async fn read(
        &self,
        arguments: Option<&Map<String, Value>>,
        credential: Option<&Credential>,
    ) -> Result<Value, ReadError> {
        let args = args::parse(arguments).map_err(ReadError::Args)?;
        match &self.backend {
            Backend::Gitlab(source) => read_from(source, &args, credential).await,
            Backend::Local(source) => read_from(source, &args, credential).await,
        }
    }
}

async fn read_from<S: Source>(
    source: &S,
    args: &args::ToolArgs,
    credential: Option<&Credential>,
) -> Result<Value, ReadError> {
    let target = source.resolve(args).map_err(ReadError::Resolve)?;
    let fetched = source
        .fetch(&target.lookup, credential)
        .await
        .map_err(ReadError::Source)?;
    render(&target, &fetched)
}

/// Windows a fetched blob and serialises the output (or the binary/LFS/range error).
fn render<L>(target: &Target<L>, fetched: &Fetched) -> Result<Value, ReadError> {
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
    let w = window::window(content, target.lines).map_err(ReadError::Window)?;
    let facts = ReadFacts {
        path: &blob.path,
        git_ref: &blob.git_ref,
        size_bytes: blob.size_bytes,
        cut_by_read_limit,
        hint_style: target.hint_style,
        split_fallback_from: fetched.split_fallback_from.as_deref(),
    };
    serde_json::to_value(response::file_output(facts, &w)).map_err(ReadError::Output)
}
