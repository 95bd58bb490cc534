//! Why a resource request has no answer ([`ResourceError`]): the URI, or the read's own error,
//! whose sentence is the tool's (missing ref, missing path with "Did you mean", no access).

use std::fmt::{self, Display, Formatter};

use super::uri::UriError;
use crate::base::quote::shown;
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
    /// A binary file larger than a blob resource may be.
    TooLargeBlob(TooLargeBlob),
}

/// A binary file past the size a blob resource may be, and where to get it instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TooLargeBlob {
    pub path: String,
    pub size_bytes: u64,
    pub limit: u64,
    /// How to get the file otherwise, as a clause ("download it from …").
    pub elsewhere: String,
}

impl Display for TooLargeBlob {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "File '{}' is binary and {} bytes, more than the {} bytes a resource serves of a binary file; {}.",
            shown(&self.path),
            self.size_bytes,
            self.limit,
            self.elsewhere
        )
    }
}

impl Display for ResourceError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ResourceError::Uri(e) => e.fmt(f),
            ResourceError::Read(e) => e.fmt(f),
            ResourceError::List(e) => e.fmt(f),
            ResourceError::TooLargeBlob(e) => e.fmt(f),
            ResourceError::BadCursor => {
                f.write_str("This cursor was not sent by this server: list again without a cursor.")
            }
        }
    }
}
