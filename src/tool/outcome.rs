//! Which kind of tool error a failed call counts as in the metrics: a fixed set of kinds, so
//! the label says what went wrong and never what was asked for. Pure; every error variant is
//! matched by name, so a new one must be given a kind.

use crate::metrics::ErrorKind;
use crate::outline::SymbolError;
use crate::reader::ReadError;
use crate::source::SourceError;
use crate::view::ViewError;

/// The kind a call's error counts as.
pub(crate) fn error_kind(e: &ReadError) -> ErrorKind {
    match e {
        ReadError::Args(_) | ReadError::Resolve(_) => ErrorKind::BadArgument,
        ReadError::Source(e) => source_kind(e),
        ReadError::View(e) => view_kind(e),
    }
}

fn view_kind(e: &ViewError) -> ErrorKind {
    match e {
        ViewError::Window(_)
        | ViewError::Pattern(_)
        | ViewError::Conflict { .. }
        | ViewError::Unsupported { .. }
        | ViewError::HistoryPastEnd { .. }
        | ViewError::BlamePastEnd { .. } => ErrorKind::BadArgument,
        ViewError::NoHistory { .. } | ViewError::DeletedSince { .. } => ErrorKind::NotFound,
        ViewError::Binary { .. } => ErrorKind::Binary,
        ViewError::Lfs { .. } => ErrorKind::Lfs,
        ViewError::Stopped(_) => ErrorKind::Timeout,
        ViewError::OutlineTooLarge { .. }
        | ViewError::OutlineTooSlow { .. }
        | ViewError::OutlineOverMemory { .. } => ErrorKind::TooLarge,
        ViewError::Symbol(SymbolError::NotFound { .. }) => ErrorKind::NotFound,
        ViewError::Symbol(SymbolError::Ambiguous { .. }) => ErrorKind::BadArgument,
        ViewError::Output(_) | ViewError::Cpu(_) | ViewError::Outline(_) | ViewError::NotAsked => {
            ErrorKind::Internal
        }
    }
}

pub(crate) fn source_kind(e: &SourceError) -> ErrorKind {
    match e {
        SourceError::ProjectNotFound { .. }
        | SourceError::RefNotFound { .. }
        | SourceError::FileNotFound { .. }
        | SourceError::FileNotFoundNear { .. }
        | SourceError::IsDirectory { .. } => ErrorKind::NotFound,
        SourceError::ProjectMismatch { .. } | SourceError::InvalidRef { .. } => {
            ErrorKind::BadArgument
        }
        SourceError::Excluded { .. } => ErrorKind::Excluded,
        SourceError::FileTooLarge { .. } => ErrorKind::TooLarge,
        SourceError::Failed(_) => ErrorKind::Upstream,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::cause::Shared;
    use crate::resolve::args::ArgError;

    fn source(e: SourceError) -> ErrorKind {
        error_kind(&ReadError::Source(e))
    }

    #[test]
    fn each_error_has_its_kind() {
        let (path, git_ref) = ("a/b.rs".to_string(), "main".to_string());
        let cases = [
            (
                source(SourceError::ProjectNotFound {
                    project: "g/p".into(),
                    anonymous: false,
                }),
                ErrorKind::NotFound,
            ),
            (
                source(SourceError::RefNotFound {
                    git_ref: git_ref.clone(),
                }),
                ErrorKind::NotFound,
            ),
            (
                source(SourceError::FileNotFound {
                    path: path.clone(),
                    git_ref: git_ref.clone(),
                }),
                ErrorKind::NotFound,
            ),
            (
                source(SourceError::IsDirectory {
                    path: path.clone(),
                    git_ref: git_ref.clone(),
                    entries: Default::default(),
                }),
                ErrorKind::NotFound,
            ),
            (
                source(SourceError::InvalidRef {
                    git_ref: Some(git_ref.clone()),
                    reason: Shared::any(std::io::Error::other("Ref is not valid")),
                }),
                ErrorKind::BadArgument,
            ),
            (
                source(SourceError::Excluded { path: path.clone() }),
                ErrorKind::Excluded,
            ),
            (
                source(SourceError::FileTooLarge {
                    path: path.clone(),
                    size_bytes: 2,
                    limit: 1,
                }),
                ErrorKind::TooLarge,
            ),
            (
                source(SourceError::Failed(Shared::any(std::io::Error::other(
                    "reset",
                )))),
                ErrorKind::Upstream,
            ),
            (
                error_kind(&ReadError::Args(ArgError::BothWindowForms)),
                ErrorKind::BadArgument,
            ),
            (
                error_kind(&ReadError::View(ViewError::Pattern(
                    crate::window::search::Pattern::new("(", false).unwrap_err(),
                ))),
                ErrorKind::BadArgument,
            ),
            (
                error_kind(&ReadError::View(ViewError::Binary {
                    path: path.clone(),
                    size_bytes: 9,
                })),
                ErrorKind::Binary,
            ),
            (
                error_kind(&ReadError::View(ViewError::Lfs {
                    path,
                    storage: "lfs".into(),
                    size_bytes: 9,
                })),
                ErrorKind::Lfs,
            ),
        ];
        for (i, (got, want)) in cases.into_iter().enumerate() {
            assert_eq!(got, want, "case {i}");
        }
    }
}
