//! Every label value the metrics can carry. Each label is an enum with a fixed text per
//! variant (strum derives the list and the texts; the tool's label is its name), so no value
//! can come from a request: never a path, project, ref, token or tool name a caller sent. Pure.

use std::fmt::{self, Write};

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use strum::{IntoStaticStr, VariantArray};

use crate::base::tool_name::ToolName;

/// The tool called: its name.
impl EncodeLabelValue for ToolName {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> fmt::Result {
        encode_label(self.as_str(), encoder)
    }
}

/// A label's values: `ALL` (in declaration order, so `variant as usize` indexes it), each
/// value's text, and its encoding, from what the enum derives (`VariantArray`,
/// `IntoStaticStr`).
pub(crate) trait LabelValue: Copy + VariantArray + Into<&'static str> + 'static {
    /// Every value, in declaration order.
    const ALL: &'static [Self] = Self::VARIANTS;

    /// The label value.
    fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A label's encoding, its text.
fn encode_label(text: &'static str, encoder: &mut LabelValueEncoder) -> fmt::Result {
    encoder.write_str(text)
}

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, IntoStaticStr, VariantArray)]
pub(crate) enum Outcome {
    #[strum(serialize = "ok")]
    Ok,
    /// Answered with `isError: true`.
    #[strum(serialize = "tool_error")]
    ToolError,
}

impl LabelValue for Outcome {}

impl EncodeLabelValue for Outcome {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> fmt::Result {
        encode_label(self.as_str(), encoder)
    }
}

/// What kind of tool error a call got (`kind=""` on the `ok` series).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, IntoStaticStr, VariantArray)]
pub(crate) enum ErrorKind {
    /// The project, ref or file does not exist or is not readable; a directory.
    #[strum(serialize = "not_found")]
    NotFound,
    #[strum(serialize = "binary")]
    Binary,
    #[strum(serialize = "lfs")]
    Lfs,
    /// Duo context exclusion.
    #[strum(serialize = "excluded")]
    Excluded,
    /// Over `--max-file-bytes`; an outline past its size, CPU or memory budget.
    #[strum(serialize = "too_large")]
    TooLarge,
    /// The arguments, a URL, a line range or a ref name were refused.
    #[strum(serialize = "bad_argument")]
    BadArgument,
    /// GitLab (or the local repository) failed or answered unusably.
    #[strum(serialize = "upstream")]
    Upstream,
    /// Cut off at its time limit (session mode).
    #[strum(serialize = "timeout")]
    Timeout,
    /// Cut off by the server's shutdown.
    #[strum(serialize = "shutdown")]
    Shutdown,
    /// Cancelled by its client (`notifications/cancelled`, or the client left).
    #[strum(serialize = "cancelled")]
    Cancelled,
    /// `--token-from-request` and the call carried no token.
    #[strum(serialize = "no_token")]
    NoToken,
    /// The output could not be built (never expected).
    #[strum(serialize = "internal")]
    Internal,
}

impl LabelValue for ErrorKind {}

impl EncodeLabelValue for ErrorKind {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> fmt::Result {
        encode_label(self.as_str(), encoder)
    }
}

/// Which part of a call's time an observation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, IntoStaticStr, VariantArray)]
pub(crate) enum Part {
    #[strum(serialize = "total")]
    Total,
    /// Waiting on GitLab (requests, bodies, retry waits).
    #[strum(serialize = "gitlab")]
    Gitlab,
    /// The server's own: total minus GitLab.
    #[strum(serialize = "own")]
    Own,
}

impl LabelValue for Part {}

impl EncodeLabelValue for Part {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> fmt::Result {
        encode_label(self.as_str(), encoder)
    }
}

/// Which GitLab endpoint a request went to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, IntoStaticStr, VariantArray)]
pub(crate) enum Endpoint {
    #[strum(serialize = "graphql")]
    Graphql,
    /// `repository/blobs/:oid/raw`.
    #[strum(serialize = "rest_raw")]
    RestRaw,
    /// `repository/files/:path/raw?lfs=true`.
    #[strum(serialize = "lfs")]
    Lfs,
    /// `projects/:id/search?scope=blobs` (`search_repository`'s candidates).
    #[strum(serialize = "code_search")]
    CodeSearch,
}

impl LabelValue for Endpoint {}

impl EncodeLabelValue for Endpoint {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> fmt::Result {
        encode_label(self.as_str(), encoder)
    }
}

impl Endpoint {
    /// The REST endpoint a `path_and_query` under `/api/v4/` names: the LFS one ends in
    /// `lfs=true` (the file path in it is percent-encoded, so it cannot end so by itself); the
    /// code search has the path `projects/:id/search`.
    pub(crate) fn of_rest(path_and_query: &str) -> Endpoint {
        let path = path_and_query.split('?').next().unwrap_or_default();
        if path_and_query.ends_with("&lfs=true") {
            Endpoint::Lfs
        } else if path.starts_with("projects/") && path.ends_with("/search") {
            Endpoint::CodeSearch
        } else {
            Endpoint::RestRaw
        }
    }
}

/// The class of GitLab's answer to one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, IntoStaticStr, VariantArray)]
pub(crate) enum StatusClass {
    #[strum(serialize = "1xx")]
    Informational,
    #[strum(serialize = "2xx")]
    Success,
    #[strum(serialize = "3xx")]
    Redirect,
    #[strum(serialize = "4xx")]
    ClientError,
    #[strum(serialize = "5xx")]
    ServerError,
    /// No answer: a connection failure, a reset, a timeout.
    #[strum(serialize = "no_answer")]
    NoAnswer,
}

impl LabelValue for StatusClass {}

impl EncodeLabelValue for StatusClass {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> fmt::Result {
        encode_label(self.as_str(), encoder)
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

/// Which HTTP check refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, IntoStaticStr, VariantArray)]
pub(crate) enum Guard {
    /// An `Origin` that is not allowed (403).
    #[strum(serialize = "origin")]
    Origin,
    /// No, two, or a malformed `Host` (400), or one not allowed (403).
    #[strum(serialize = "host")]
    Host,
    /// A body over `--max-body-bytes`, declared or streamed (413).
    #[strum(serialize = "body_size")]
    BodySize,
    /// `--token-from-request` and no usable token (401).
    #[strum(serialize = "token")]
    Token,
    /// A session named with another token than the one that opened it (404).
    #[strum(serialize = "session")]
    Session,
    /// The body did not arrive within `--body-timeout-secs` (408).
    #[strum(serialize = "body_timeout")]
    BodyTimeout,
    /// Malformed body framing (400).
    #[strum(serialize = "body_framing")]
    BodyFraming,
    /// A JSON body that is no JSON-RPC message (400).
    #[strum(serialize = "json_rpc")]
    JsonRpc,
    /// `--max-concurrent` requests in progress (503).
    #[strum(serialize = "capacity")]
    Capacity,
    /// No response within `--request-timeout-secs` (504, stateless).
    #[strum(serialize = "request_timeout")]
    RequestTimeout,
    /// A session's opening with a token GitLab refused (401).
    #[strum(serialize = "token_refused")]
    TokenRefused,
    /// A session's opening when GitLab could not be asked about the token (502).
    #[strum(serialize = "token_check")]
    TokenCheck,
    /// A session's opening past `--max-sessions-per-token` (503).
    #[strum(serialize = "sessions_per_token")]
    SessionsPerToken,
    /// A session's opening past `--max-sessions` (503).
    #[strum(serialize = "sessions_total")]
    SessionsTotal,
}

impl LabelValue for Guard {}

impl EncodeLabelValue for Guard {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> fmt::Result {
        encode_label(self.as_str(), encoder)
    }
}

/// The labels of a tool call's counter.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub(crate) struct CallLabels {
    pub tool: ToolName,
    pub outcome: Outcome,
    pub kind: Option<ErrorKind>,
}

/// The labels of a call-duration observation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub(crate) struct DurationLabels {
    pub tool: ToolName,
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

/// A step of `--oauth`'s sign-in, done or refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, IntoStaticStr, VariantArray)]
pub(crate) enum SignInStep {
    /// A client registered at `/register`.
    #[strum(serialize = "registered")]
    Registered,
    /// A registration refused (bad metadata, rate limit).
    #[strum(serialize = "registration_refused")]
    RegistrationRefused,
    /// A client metadata document fetched and accepted (not counted when cached).
    #[strum(serialize = "client_metadata_fetched")]
    ClientMetadataFetched,
    /// A client metadata document refused (address, size, redirect, its content).
    #[strum(serialize = "client_metadata_refused")]
    ClientMetadataRefused,
    /// A sign-in back from GitLab with a code for the client.
    #[strum(serialize = "signed_in")]
    SignedIn,
    /// `/authorize` or the callback refused (bad request, denied, GitLab's refusal).
    #[strum(serialize = "authorization_refused")]
    AuthorizationRefused,
    /// A code exchanged at `/token`.
    #[strum(serialize = "code_exchanged")]
    CodeExchanged,
    /// A refresh done (one refresh at GitLab).
    #[strum(serialize = "refreshed")]
    Refreshed,
    /// A `/token` request refused (`invalid_grant` and the like).
    #[strum(serialize = "token_refused")]
    TokenRefused,
}

impl LabelValue for SignInStep {}

impl EncodeLabelValue for SignInStep {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> fmt::Result {
        encode_label(self.as_str(), encoder)
    }
}

/// The label of the sign-in's counter.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub(crate) struct SignInLabels {
    pub step: SignInStep,
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
        assert_eq!(Endpoint::ALL.len(), 4);
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
        let search = "projects/group%2Fproj/search?scope=blobs&search=retry&per_page=100&page=2";
        assert_eq!(Endpoint::of_rest(search), Endpoint::CodeSearch);
        // A file path is percent-encoded: `…/files/x%2Fsearch/raw` is not the search.
        let file = "projects/7/repository/files/x%2Fsearch/raw?ref=main";
        assert_eq!(Endpoint::of_rest(file), Endpoint::RestRaw);
    }

    #[test]
    fn label_values_are_prometheus_safe() {
        let texts = ToolName::ALL
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
