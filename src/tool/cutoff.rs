//! Ending a tool call early, with a tool error the agent can act on, instead of leaving the
//! client without an answer: when the call runs past its time limit, or when the server shuts
//! down under it. The transport that sets a cutoff also words its message.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolResult, ContentBlock};
use tokio_util::sync::CancellationToken;

use crate::base::tool_name::ToolName;
use crate::metrics::ErrorKind;

/// The cutoffs of every call a [`crate::tool::FileServer`] runs; none by default.
#[derive(Debug, Clone, Default)]
pub(crate) struct Cutoffs {
    time_limit: Option<TimeLimit>,
    shutdown: Option<Shutdown>,
}

#[derive(Debug, Clone)]
struct TimeLimit {
    limit: Duration,
    message: Arc<str>,
}

#[derive(Debug, Clone)]
struct Shutdown {
    token: CancellationToken,
    message: Arc<str>,
}

/// Fired when the client of one HTTP request left it (the connection closed before the answer
/// was sent whole): the transport puts it in the request's extensions, and the call it carries
/// ends as on `notifications/cancelled` ([`crate::tool::FileServer`]), its work stopped.
#[derive(Debug, Clone, Default)]
pub(crate) struct ClientLeft(pub(crate) CancellationToken);

/// The answer to a call its client cancelled (rmcp sends none; kept for the log).
const CANCELLED: &str = "The call was cancelled by its client.";

/// Why a call was cut off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CutReason {
    #[error("the call ran past its time limit")]
    TimeLimit,
    #[error("the server is shutting down")]
    Shutdown,
    #[error("the client cancelled the call or left")]
    Cancelled,
}

impl CutReason {
    /// The kind of tool error the call it ends counts as.
    fn error_kind(self) -> ErrorKind {
        match self {
            CutReason::TimeLimit => ErrorKind::Timeout,
            CutReason::Shutdown => ErrorKind::Shutdown,
            CutReason::Cancelled => ErrorKind::Cancelled,
        }
    }
}

impl Cutoffs {
    /// A call running longer than `limit` is answered with `message`.
    pub(crate) fn with_time_limit(mut self, limit: Duration, message: impl Into<Arc<str>>) -> Self {
        self.time_limit = Some(TimeLimit {
            limit,
            message: message.into(),
        });
        self
    }

    /// A call still running when `token` fires is answered with `message`.
    pub(crate) fn with_shutdown(
        mut self,
        token: CancellationToken,
        message: impl Into<Arc<str>>,
    ) -> Self {
        self.shutdown = Some(Shutdown {
            token,
            message: message.into(),
        });
        self
    }

    /// Runs `call`, a call of `tool`, within the cutoffs, and until `cancelled` is done (the
    /// client cancelled the call, or is gone). Dropping the call cancels it (its GitLab request, and its CPU work:
    /// `base::cpu` stops a job whose caller dropped it).
    pub(crate) async fn bound(
        &self,
        tool: ToolName,
        call: impl Future<Output = CallToolResult>,
        cancelled: impl Future<Output = ()>,
    ) -> CallToolResult {
        let run = async {
            tokio::select! {
                biased;
                outcome = self.run(call) => outcome,
                () = cancelled => Err(CutReason::Cancelled),
            }
        };
        match run.await {
            Ok(result) => result,
            Err(cut) => {
                tracing::warn!(?cut, "tool call cut off");
                crate::metrics::tool_call_not_run(tool, cut.error_kind());
                CallToolResult::error(vec![ContentBlock::text(self.message(cut).to_string())])
            }
        }
    }

    async fn run(
        &self,
        call: impl Future<Output = CallToolResult>,
    ) -> Result<CallToolResult, CutReason> {
        let timed = async {
            match &self.time_limit {
                Some(t) => tokio::time::timeout(t.limit, call)
                    .await
                    .map_err(|_| CutReason::TimeLimit),
                None => Ok(call.await),
            }
        };
        let shutdown = async {
            match &self.shutdown {
                Some(s) => s.token.cancelled().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            // A call that is done when the shutdown fires keeps its answer.
            biased;
            outcome = timed => outcome,
            () = shutdown => Err(CutReason::Shutdown),
        }
    }

    fn message(&self, cut: CutReason) -> &str {
        let message = match cut {
            CutReason::TimeLimit => self.time_limit.as_ref().map(|t| &t.message),
            CutReason::Shutdown => self.shutdown.as_ref().map(|s| &s.message),
            CutReason::Cancelled => return CANCELLED,
        };
        message.map_or("", |m| m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok() -> CallToolResult {
        CallToolResult::success(vec![ContentBlock::text("done")])
    }

    fn text(result: &CallToolResult) -> String {
        result.content[0].as_text().unwrap().text.clone()
    }

    #[tokio::test]
    async fn without_cutoffs_the_call_runs_to_its_end() {
        let result = Cutoffs::default()
            .bound(
                ToolName::GetRepositoryFile,
                async { ok() },
                std::future::pending(),
            )
            .await;
        assert_eq!(text(&result), "done");
    }

    #[tokio::test]
    async fn a_call_past_its_time_limit_is_a_tool_error() {
        let cutoffs = Cutoffs::default().with_time_limit(Duration::from_millis(10), "too slow");
        let result = cutoffs
            .bound(
                ToolName::GetRepositoryFile,
                std::future::pending(),
                std::future::pending(),
            )
            .await;
        assert_eq!(result.is_error, Some(true));
        assert_eq!(text(&result), "too slow");
    }

    #[tokio::test]
    async fn a_call_running_at_shutdown_is_a_tool_error() {
        let token = CancellationToken::new();
        let cutoffs = Cutoffs::default().with_shutdown(token.clone(), "shutting down");
        token.cancel();
        let result = cutoffs
            .bound(
                ToolName::GetRepositoryFile,
                std::future::pending(),
                std::future::pending(),
            )
            .await;
        assert_eq!(result.is_error, Some(true));
        assert_eq!(text(&result), "shutting down");
        // A call already done keeps its answer.
        assert_eq!(
            text(
                &cutoffs
                    .bound(
                        ToolName::GetRepositoryFile,
                        async { ok() },
                        std::future::pending()
                    )
                    .await
            ),
            "done"
        );
    }

    #[tokio::test]
    async fn a_call_its_client_cancelled_is_ended() {
        let result = Cutoffs::default()
            .bound(ToolName::GetRepositoryFile, std::future::pending(), async {
            })
            .await;
        assert_eq!(result.is_error, Some(true));
        assert_eq!(text(&result), CANCELLED);
    }
}
