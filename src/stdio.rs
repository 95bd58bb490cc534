//! MCP over stdio: newline-delimited JSON-RPC on stdin/stdout, with our own line reader in
//! front of rmcp and one writer behind it.
//!
//! rmcp's stdio transport drops a line that is not JSON without a word; JSON-RPC 2.0 wants a
//! `-32700` reply with `"id": null`. So a reader task reads each line (bounded by
//! [`MAX_LINE_BYTES`]) and either hands the message to rmcp or answers it itself
//! ([`crate::tool::jsonrpc::parse_message`]); the server keeps serving either way. Every line
//! written to stdout, rmcp's and ours, goes through one writer task, one whole line at a
//! time, so replies never interleave.

use std::io;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::ServiceExt;
use rmcp::transport::Transport;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::tool::FileServer;
use crate::tool::jsonrpc::{self, Rejection};

/// Longest line read (one JSON-RPC message), as rmcp's own stdio transport allows; a longer
/// one is dropped unread and answered -32600.
pub(crate) const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// Messages read ahead of rmcp, and lines queued for stdout.
const QUEUE: usize = 32;

/// Why serving on stdio ended before stdin closed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StdioError {
    /// Boxed: rmcp's error is large, and this is returned once.
    #[error("MCP handshake failed: {0}")]
    Handshake(#[source] Box<rmcp::service::ServerInitializeError>),
    #[error("MCP server stopped: {0}")]
    Stopped(#[source] tokio::task::JoinError),
}

/// Serves `server` on stdin/stdout until stdin closes. The calls still running then are
/// ended at once, their work stopped: the client that would read their answers is gone (an
/// orphaned server kept two threads busy for minutes, issue 46).
pub(crate) async fn serve(server: FileServer) -> Result<(), StdioError> {
    let gone = CancellationToken::new();
    let transport = LineTransport::new(tokio::io::stdin(), tokio::io::stdout());
    let transport = transport.telling(gone.clone());
    let running = server
        .with_client_gone(gone)
        .serve(transport)
        .await
        .map_err(|e| StdioError::Handshake(Box::new(e)))?;
    running
        .waiting()
        .await
        .map(|_| ())
        .map_err(StdioError::Stopped)
}

/// A line for stdout, and who waits to hear it was written.
struct Outgoing {
    line: Vec<u8>,
    written: Option<oneshot::Sender<io::Result<()>>>,
}

/// rmcp's transport: messages come from the reader task, replies go to the writer task.
pub(crate) struct LineTransport {
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    /// Fired once stdin has ended and every message read before was handed to rmcp.
    ended: Option<CancellationToken>,
    outgoing: Option<mpsc::Sender<Outgoing>>,
    reader: JoinHandle<()>,
    writer: Option<JoinHandle<()>>,
}

impl LineTransport {
    pub(crate) fn new<R, W>(input: R, output: W) -> Self
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (to_rmcp, incoming) = mpsc::channel(QUEUE);
        let (outgoing, to_write) = mpsc::channel(QUEUE);
        let reader = tokio::spawn(read_lines(BufReader::new(input), to_rmcp, outgoing.clone()));
        let writer = tokio::spawn(write_lines(output, to_write));
        Self {
            incoming,
            ended: None,
            outgoing: Some(outgoing),
            reader,
            writer: Some(writer),
        }
    }
}

impl LineTransport {
    /// Fires `ended` once stdin has ended (after rmcp has every message read before it).
    pub(crate) fn telling(mut self, ended: CancellationToken) -> Self {
        self.ended = Some(ended);
        self
    }
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "stdout is closed")
}

impl Transport<RoleServer> for LineTransport {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let outgoing = self.outgoing.clone();
        async move {
            let mut line = serde_json::to_vec(&item)?;
            line.push(b'\n');
            let (written, done) = oneshot::channel();
            let outgoing = outgoing.ok_or_else(closed)?;
            outgoing
                .send(Outgoing {
                    line,
                    written: Some(written),
                })
                .await
                .map_err(|_| closed())?;
            done.await.map_err(|_| closed())?
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        let message = self.incoming.recv().await;
        if message.is_none()
            && let Some(ended) = &self.ended
        {
            ended.cancel();
        }
        message
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        self.reader.abort();
        // The writer ends once every sender is gone, after writing what is queued.
        self.outgoing = None;
        if let Some(writer) = self.writer.take() {
            let _ = writer.await;
        }
        Ok(())
    }
}

/// A line read, without its terminator.
#[derive(Debug, PartialEq, Eq)]
enum LineRead {
    Line,
    TooLong,
    End,
}

/// Reads lines until stdin ends: messages go to rmcp, the rest is answered on stdout.
async fn read_lines<R: AsyncBufRead + Unpin>(
    mut input: R,
    to_rmcp: mpsc::Sender<ClientJsonRpcMessage>,
    replies: mpsc::Sender<Outgoing>,
) {
    let mut line = Vec::new();
    loop {
        let outcome = match read_line(&mut input, &mut line, MAX_LINE_BYTES).await {
            Ok(LineRead::End) => return,
            Ok(LineRead::TooLong) => Err(Rejection::TooLong {
                limit: MAX_LINE_BYTES,
            }),
            Ok(LineRead::Line) if line.trim_ascii().is_empty() => continue,
            Ok(LineRead::Line) => jsonrpc::parse_message(&line),
            Err(e) => {
                tracing::error!(error = %e, "cannot read stdin; stopping");
                return;
            }
        };
        let delivered = match outcome {
            Ok(message) => to_rmcp.send(message).await.is_ok(),
            Err(rejection) => {
                tracing::debug!(?rejection, "answered a line that is not a JSON-RPC message");
                // The message's own id, when it is JSON serde could not read but the id can be.
                let id = (rejection == Rejection::BeyondReach)
                    .then(|| jsonrpc::read_id(&line))
                    .flatten();
                let mut reply = rejection.reply_to(id);
                reply.push(b'\n');
                let reply = Outgoing {
                    line: reply,
                    written: None,
                };
                replies.send(reply).await.is_ok()
            }
        };
        if !delivered {
            return;
        }
    }
}

/// One line into `line` (cleared first; `\n` and a `\r` before it dropped), never holding
/// more than `limit` bytes of it. A last line without `\n` counts as a line.
async fn read_line<R: AsyncBufRead + Unpin>(
    input: &mut R,
    line: &mut Vec<u8>,
    limit: usize,
) -> io::Result<LineRead> {
    line.clear();
    let mut too_long = false;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (too_long, line.is_empty()) {
                (true, _) => LineRead::TooLong,
                (false, true) => LineRead::End,
                (false, false) => LineRead::Line,
            });
        }
        let newline = memchr::memchr(b'\n', available);
        let take = newline.map_or(available.len(), |i| i + 1);
        if !too_long && line.len() + take > limit.saturating_add(1) {
            too_long = true;
            line.clear();
        }
        if !too_long {
            line.extend_from_slice(&available[..take]);
        }
        input.consume(take);
        if newline.is_some() {
            if too_long {
                return Ok(LineRead::TooLong);
            }
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(LineRead::Line);
        }
    }
}

/// Writes each queued line whole and flushes it; stops at the first write error.
async fn write_lines<W: AsyncWrite + Unpin>(mut output: W, mut queue: mpsc::Receiver<Outgoing>) {
    while let Some(Outgoing { line, written }) = queue.recv().await {
        let result = async {
            output.write_all(&line).await?;
            output.flush().await
        }
        .await;
        let failed = result.is_err();
        if let Some(written) = written {
            let _ = written.send(result);
        }
        if failed {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    async fn lines(input: &[u8], limit: usize) -> Vec<(LineRead, Vec<u8>)> {
        let mut input = BufReader::with_capacity(4, input);
        let mut line = Vec::new();
        let mut out = Vec::new();
        loop {
            let read = read_line(&mut input, &mut line, limit).await.unwrap();
            if read == LineRead::End {
                return out;
            }
            out.push((read, line.clone()));
        }
    }

    #[tokio::test]
    async fn lines_are_split_bounded_and_stripped() {
        let read = lines(b"ab\r\n\nabcdefgh\nabcd\nlast", 4).await;
        assert_eq!(
            read,
            vec![
                (LineRead::Line, b"ab".to_vec()),
                (LineRead::Line, b"".to_vec()),
                (LineRead::TooLong, b"".to_vec()),
                (LineRead::Line, b"abcd".to_vec()),
                (LineRead::Line, b"last".to_vec()),
            ]
        );
        assert_eq!(lines(b"", 4).await, vec![]);
        assert_eq!(
            lines(b"abcdefgh", 4).await,
            vec![(LineRead::TooLong, vec![])]
        );
    }

    /// Feeds `input` to a transport; returns what rmcp received and what was written.
    async fn exchange(input: &'static [u8]) -> (Vec<ClientJsonRpcMessage>, Vec<Value>) {
        let (output, mut written) = tokio::io::duplex(64 * 1024);
        let mut transport = LineTransport::new(input, output);
        let mut received = Vec::new();
        while let Some(message) = transport.receive().await {
            received.push(message);
        }
        transport.close().await.unwrap();
        let mut text = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut written, &mut text)
            .await
            .unwrap();
        let replies = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (received, replies)
    }

    #[tokio::test]
    async fn lines_that_are_not_messages_are_answered_and_the_rest_served() {
        let (received, replies) = exchange(
            b"not json\n\xff\xfe\n\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n[]\n{}\n",
        )
        .await;
        assert_eq!(received.len(), 1, "{received:?}");
        let codes: Vec<_> = replies.iter().map(|r| r["error"]["code"].clone()).collect();
        assert_eq!(codes, [-32700, -32700, -32600, -32600]);
        assert!(
            replies
                .iter()
                .all(|r| r["id"].is_null() && r["jsonrpc"] == "2.0")
        );
    }
}
