//! Why one entry of a batch has no answer ([`EntryFailure`]): its arguments, its read
//! (resolving, its view, the fetch, the rendering), the source's silence, or the work pool.
//! Each cause keeps its own type and sentence; the entry's `{path, ref, error}` renders it once,
//! where the batch's answer is built.

use super::args::EntryError;
use crate::base::cpu::CpuError;
use crate::reader::error::ReadError;

/// Why one entry has no answer; the other entries are read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum EntryFailure {
    /// The entry's own arguments are malformed.
    #[error("{0}")]
    Arguments(#[source] EntryError),
    /// Reading it failed: resolving its arguments, building or rendering its view, fetching.
    #[error("{0}")]
    Read(#[source] ReadError),
    /// `fetch_many` answers once per lookup: never reached.
    #[error("internal error: the source gave no answer for this entry")]
    NoAnswer,
    /// The work pool could not render the entries.
    #[error("{0}")]
    Cpu(#[source] CpuError),
}
