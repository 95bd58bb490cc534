//! MCP over streamable HTTP (stub: filled in by the HTTP work).

use clap::Args;

use crate::config::Credential;
use crate::reader::Reader;

/// Flags of `serve` that concern HTTP.
#[derive(Debug, Clone, Args, Default)]
pub struct HttpArgs {
    /// Serve MCP over streamable HTTP on this address (MCP at /mcp), e.g. 127.0.0.1:8080.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8080")]
    pub http: Option<String>,
}

/// Serves until SIGTERM/SIGINT.
pub async fn serve(
    _args: HttpArgs,
    _reader: Reader,
    _configured: Option<Credential>,
) -> Result<(), String> {
    Err("HTTP serving is not built yet".to_string())
}
