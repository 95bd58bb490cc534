//! Why a call produced no window ([`ReadError`]): the one place a call's failure is collected,
//! each cause worded by its own type.

use std::fmt::{self, Display, Formatter};

use crate::resolve::ResolveError;
use crate::resolve::args::ArgError;
use crate::source::SourceError;
use crate::view::ViewError;

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
