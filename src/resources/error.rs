//! Why a resource request has no answer ([`ResourceError`]): the URI, or the read's own error,
//! whose sentence is the tool's (missing ref, missing path with "Did you mean", no access).

use std::fmt::{self, Display, Formatter};

use super::uri::UriError;
use crate::find::FindError;
use crate::reader::ReadError;

/// A resource request's failure.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ResourceError {
    Uri(#[source] UriError),
    Read(#[source] ReadError),
    /// Listing the repository's files.
    List(#[source] FindError),
    /// A `resources/list` cursor this server did not send.
    BadCursor,
}

impl Display for ResourceError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ResourceError::Uri(e) => e.fmt(f),
            ResourceError::Read(e) => e.fmt(f),
            ResourceError::List(e) => e.fmt(f),
            ResourceError::BadCursor => {
                f.write_str("This cursor was not sent by this server: list again without a cursor.")
            }
        }
    }
}
