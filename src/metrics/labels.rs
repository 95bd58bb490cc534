//! Every label value the metrics can carry. Each label is an enum with a fixed text per
//! variant, so no value can come from a request: never a path, project, ref, token or tool
//! name a caller sent. Pure.

use std::fmt::{self, Write};

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};

/// Declares a label enum: its variants, their texts, `ALL` (in declaration order, so
/// `variant as usize` indexes it) and its encoding as a label value.
macro_rules! label {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident => $text:literal,)+ }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) enum $name {
            $($(#[$vdoc])* $variant,)+
        }

        impl $name {
            /// Every value, in declaration order.
            #[allow(dead_code)] // A label whose series are made one by one needs no list.
            pub(crate) const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// The label value.
            pub(crate) fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }
        }

        impl EncodeLabelValue for $name {
            fn encode(&self, encoder: &mut LabelValueEncoder) -> fmt::Result {
                encoder.write_str(self.as_str())
            }
        }
    };
}

label! {
    /// The tool called.
    Tool {
        GetRepositoryFile => "get_repository_file",
        GetRepositoryFiles => "get_repository_files",
    }
}

label! {
    /// How a tool call ended.
    Outcome {
        Ok => "ok",
        /// Answered with `isError: true`.
        ToolError => "tool_error",
    }
}

label! {
    /// What kind of tool error a call got (`kind=""` on the `ok` series).
    ErrorKind {
        /// The project, ref or file does not exist or is not readable; a directory.
        NotFound => "not_found",
        Binary => "binary",
        Lfs => "lfs",
        /// Duo context exclusion.
        Excluded => "excluded",
        /// Over `--max-file-bytes`.
        TooLarge => "too_large",
        /// The arguments, a URL, a line range or a ref name were refused.
        BadArgument => "bad_argument",
        /// GitLab (or the local repository) failed or answered unusably.
        Upstream => "upstream",
        /// Cut off at its time limit (session mode).
        Timeout => "timeout",
        /// Cut off by the server's shutdown.
        Shutdown => "shutdown",
        /// `--token-from-request` and the call carried no token.
        NoToken => "no_token",
        /// The output could not be built (never expected).
        Internal => "internal",
    }
}

label! {
    /// Which part of a call's time an observation is.
    Part {
        Total => "total",
        /// Waiting on GitLab (requests, bodies, retry waits).
        Gitlab => "gitlab",
        /// The server's own: total minus GitLab.
        Own => "own",
    }
}

label! {
    /// Which GitLab endpoint a request went to.
    Endpoint {
        Graphql => "graphql",
        /// `repository/blobs/:oid/raw`.
        RestRaw => "rest_raw",
        /// `repository/files/:path/raw?lfs=true`.
        Lfs => "lfs",
    }
}

impl Endpoint {
    /// The REST raw endpoint a `path_and_query` under `/api/v4/` names: the LFS one ends in
    /// `lfs=true` (the file path in it is percent-encoded, so it cannot end so by itself).
    pub(crate) fn of_rest(path_and_query: &str) -> Endpoint {
        if path_and_query.ends_with("&lfs=true") {
            Endpoint::Lfs
        } else {
            Endpoint::RestRaw
        }
    }
}

label! {
    /// The class of GitLab's answer to one attempt.
    StatusClass {
        Informational => "1xx",
        Success => "2xx",
        Redirect => "3xx",
        ClientError => "4xx",
        ServerError => "5xx",
        /// No answer: a connection failure, a reset, a timeout.
        NoAnswer => "no_answer",
    }
}

impl StatusClass {
    /// The class of an HTTP status; `None` is no answer at all.
    pub(crate) fn of(status: Option<u16>) -> StatusClass {
        match status {
            Some(100..=199) => StatusClass::Informational,
            Some(200..=299) => StatusClass::Success,
            Some(300..=399) => StatusClass::Redirect,
            Some(400..=499) => StatusClass::ClientError,
            Some(500..=599) => StatusClass::ServerError,
            _ => StatusClass::NoAnswer,
        }
    }
}

label! {
    /// Which HTTP check refused a request.
    Guard {
        /// An `Origin` that is not allowed (403).
        Origin => "origin",
        /// No, two, or a malformed `Host` (400), or one not allowed (403).
        Host => "host",
        /// A body over `--max-body-bytes`, declared or streamed (413).
        BodySize => "body_size",
        /// `--token-from-request` and no usable token (401).
        Token => "token",
        /// A session named with another token than the one that opened it (404).
        Session => "session",
        /// The body did not arrive within `--body-timeout-secs` (408).
        BodyTimeout => "body_timeout",
        /// Malformed body framing (400).
        BodyFraming => "body_framing",
        /// A JSON body that is no JSON-RPC message (400).
        JsonRpc => "json_rpc",
        /// `--max-concurrent` requests in progress (503).
        Capacity => "capacity",
        /// No response within `--request-timeout-secs` (504, stateless).
        RequestTimeout => "request_timeout",
    }
}

/// The labels of a tool call's counter.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub(crate) struct CallLabels {
    pub tool: Tool,
    pub outcome: Outcome,
    pub kind: Option<ErrorKind>,
}

/// The labels of a call-duration observation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub(crate) struct DurationLabels {
    pub tool: Tool,
    pub part: Part,
}

/// The labels of a GitLab request's counter.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub(crate) struct RequestLabels {
    pub endpoint: Endpoint,
    pub status_class: StatusClass,
}

/// The label of the per-endpoint counters (retries, bytes, verification failures).
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub(crate) struct EndpointLabels {
    pub endpoint: Endpoint,
}

/// The label of the refusals' counter.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub(crate) struct GuardLabels {
    pub guard: Guard,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_lists_every_variant_in_index_order() {
        for (i, kind) in ErrorKind::ALL.iter().enumerate() {
            assert_eq!(*kind as usize, i);
        }
        for (i, class) in StatusClass::ALL.iter().enumerate() {
            assert_eq!(*class as usize, i);
        }
        for (i, guard) in Guard::ALL.iter().enumerate() {
            assert_eq!(*guard as usize, i);
        }
        assert_eq!(Endpoint::ALL.len(), 3);
        assert_eq!(Part::ALL.len(), 3);
    }

    #[test]
    fn status_classes() {
        let cases = [
            (Some(101), "1xx"),
            (Some(200), "2xx"),
            (Some(204), "2xx"),
            (Some(307), "3xx"),
            (Some(404), "4xx"),
            (Some(429), "4xx"),
            (Some(502), "5xx"),
            (Some(600), "no_answer"),
            (Some(0), "no_answer"),
            (None, "no_answer"),
        ];
        for (status, class) in cases {
            assert_eq!(StatusClass::of(status).as_str(), class, "{status:?}");
        }
    }

    #[test]
    fn rest_endpoints() {
        let blob = "projects/42/repository/blobs/3374e3dd/raw";
        let lfs = "projects/7/repository/files/data%2Fx.csv/raw?ref=main&lfs=true";
        assert_eq!(Endpoint::of_rest(blob), Endpoint::RestRaw);
        assert_eq!(Endpoint::of_rest(lfs), Endpoint::Lfs);
        // A path spelling the marker is percent-encoded before it gets here.
        let sly = "projects/7/repository/files/a%26lfs%3Dtrue/raw?ref=main&lfs=true";
        assert_eq!(Endpoint::of_rest(sly), Endpoint::Lfs);
        assert_eq!(
            Endpoint::of_rest("projects/7/repository/blobs/a%26lfs%3Dtrue/raw"),
            Endpoint::RestRaw
        );
    }

    #[test]
    fn label_values_are_prometheus_safe() {
        let texts = Tool::ALL
            .iter()
            .map(|v| v.as_str())
            .chain(Outcome::ALL.iter().map(|v| v.as_str()))
            .chain(ErrorKind::ALL.iter().map(|v| v.as_str()))
            .chain(Part::ALL.iter().map(|v| v.as_str()))
            .chain(Endpoint::ALL.iter().map(|v| v.as_str()))
            .chain(StatusClass::ALL.iter().map(|v| v.as_str()))
            .chain(Guard::ALL.iter().map(|v| v.as_str()));
        for text in texts {
            assert!(
                !text.is_empty()
                    && text
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{text}"
            );
        }
    }
}
