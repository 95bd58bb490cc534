//! Why a URL's "ref/path" string has no usable split ([`SplitError`]), worded beside it.

use std::fmt::{self, Display, Formatter};

use crate::base::quote::shown;

/// Why a "ref/path" string has no usable split.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SplitError {
    /// There is a ref at most, and no file path after it.
    NoPath {
        /// The string that was split, as given.
        ref_and_path: String,
    },
    /// More than [`MAX_CANDIDATES`](super::candidates::MAX_CANDIDATES) candidate splits.
    TooManySegments {
        /// How many candidates there would be.
        count: usize,
        /// [`MAX_CANDIDATES`](super::candidates::MAX_CANDIDATES).
        max: usize,
    },
}

impl Display for SplitError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let expected =
            "Expected .../-/blob/<ref>/<file_path>, or pass project_id, file_path and ref.";
        match self {
            SplitError::NoPath { ref_and_path } if ref_and_path.trim_matches('/').is_empty() => {
                write!(
                    f,
                    "The URL names no ref and no file after /-/blob/. {expected}"
                )
            }
            SplitError::NoPath { ref_and_path } => write!(
                f,
                "The URL names '{}' after /-/blob/ but no file path after the ref; a URL \
                 ending in a ref or a directory does not name a file. {expected}",
                shown(ref_and_path)
            ),
            SplitError::TooManySegments { count, max } => write!(
                f,
                "The ref and file path in the URL can be split into a ref and a path in \
                 {count} ways, more than the {max} this server tries. Pass project_id, \
                 file_path and ref separately instead of url."
            ),
        }
    }
}
