//! What keeps the HTTP server from starting, or stops it running: each a typed cause, worded
//! by [`wording`]'s sentence for the operator.

use std::io;

use crate::http::wording;

#[derive(Debug, thiserror::Error)]
pub(crate) enum StartError {
    /// An `--allowed-host` that would refuse every client.
    #[error("{}", wording::bad_allowed_host(.entry))]
    BadAllowedHost { entry: String },
    /// An `--allowed-origin` that is no origin.
    #[error("{}", wording::bad_allowed_origin(.entry))]
    BadAllowedOrigin { entry: String },
    /// The address could not be bound.
    #[error("{}", wording::cannot_listen(.addr, .cause))]
    CannotListen {
        addr: String,
        #[source]
        cause: io::Error,
    },
    /// The bound address could not be read back.
    #[error("{}", wording::cannot_read_bound_address(.addr, .cause))]
    CannotReadBoundAddress {
        addr: String,
        #[source]
        cause: io::Error,
    },
    /// A stop signal could not be registered.
    #[error("{}", wording::cannot_listen_for(.signal, .cause))]
    CannotListenFor {
        signal: &'static str,
        #[source]
        cause: io::Error,
    },
    /// The accept loop ended on its own (`None`: it returned; else its task failed).
    #[error("{}", wording::stopped_unexpectedly(&.cause.as_ref().map_or_else(|| "closed".to_string(), ToString::to_string)))]
    StoppedUnexpectedly {
        #[source]
        cause: Option<tokio::task::JoinError>,
    },
}
