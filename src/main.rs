//! The `gitlab-file-mcp` binary: logging to stderr (stdout is the MCP channel), then the CLI.

use std::process::ExitCode;

use clap::Parser;
use gitlab_file_mcp::cli::{self, Cli};

fn main() -> ExitCode {
    tune_allocator();
    use tracing_subscriber::prelude::*;
    let spec = std::env::var("GITLAB_FILE_MCP_LOG").ok();
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_filter(log_filter(spec.as_deref()))
        .with_filter(rmcp_cap());
    tracing_subscriber::registry().with(stderr).init();
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(cli::run(cli))
}

/// rmcp logs whole MCP messages (tool arguments unredacted) at debug and trace, so every
/// `rmcp` target is held at info whatever `GITLAB_FILE_MCP_LOG` says. It is a filter of its own,
/// applied after that one: a directive added to the user's filter would be outranked by a more
/// specific one of theirs (`rmcp::transport::streamable_http_server=trace`). The server's own
/// debug line logs the arguments with URL user info and query values redacted.
fn rmcp_cap() -> tracing_subscriber::filter::Targets {
    use tracing_subscriber::filter::LevelFilter;
    tracing_subscriber::filter::Targets::new()
        .with_default(LevelFilter::TRACE)
        .with_target("rmcp", LevelFilter::INFO)
}

/// The log filter: `GITLAB_FILE_MCP_LOG`, or `warn` when it is unset or does not parse.
fn log_filter(spec: Option<&str>) -> tracing_subscriber::EnvFilter {
    spec.and_then(|s| tracing_subscriber::EnvFilter::try_new(s).ok())
        .unwrap_or_else(|| tracing_subscriber::EnvFilter::new("warn"))
}

/// Keeps large buffers (a file's content, GitLab's answer) out of glibc's heap arenas.
///
/// glibc raises its mmap threshold after the first large free, so later 10 MiB buffers come
/// from per-thread arenas that keep their freed memory: peak RSS then creeps up with each
/// worker thread that served a large file (measured: 35 MB after one 10 MiB call, 56 MB after
/// 80). A fixed threshold of 1 MiB makes every large buffer its own mapping, returned on free.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn tune_allocator() {
    // SAFETY: mallopt only adjusts allocator parameters; it is called once, before any other
    // thread exists, with a valid parameter and value. Its return value (0 on failure) only
    // means the default stays in force.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn tune_allocator() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rmcp_message_logs_are_capped_at_info_whatever_the_filter_says() {
        use tracing::Level;
        let cap = rmcp_cap();
        for target in [
            "rmcp",
            "rmcp::service",
            "rmcp::transport::streamable_http_server::tower",
        ] {
            assert!(cap.would_enable(target, &Level::INFO), "{target}");
            assert!(!cap.would_enable(target, &Level::DEBUG), "{target}");
            assert!(!cap.would_enable(target, &Level::TRACE), "{target}");
        }
        // Everything else is left to the user's filter.
        assert!(cap.would_enable("gitlab_file_mcp::calls", &Level::TRACE));
        assert!(cap.would_enable("hyper", &Level::TRACE));
        // A spec that does not parse falls back to warn.
        assert_eq!(log_filter(Some("=!=")).to_string(), "warn");
        assert_eq!(log_filter(None).to_string(), "warn");
    }
}
