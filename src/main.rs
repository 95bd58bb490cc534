//! The `gitlab-file-mcp` binary: logging to stderr (stdout is the MCP channel), then the CLI.

use std::process::ExitCode;

use clap::Parser;
use gitlab_file_mcp::cli::{self, Cli};

fn main() -> ExitCode {
    tune_allocator();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(log_filter(
            std::env::var("GITLAB_FILE_MCP_LOG").ok().as_deref(),
        ))
        .init();
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

/// rmcp's modules that log whole MCP messages (tool arguments unredacted) at debug and trace:
/// they are held at info whatever `GITLAB_FILE_MCP_LOG` says. The server's own debug line logs
/// the arguments with URL user info and query values redacted.
const RMCP_MESSAGE_LOGS: [&str; 3] = ["rmcp", "rmcp::service", "rmcp::transport"];

/// The log filter: `GITLAB_FILE_MCP_LOG` (default `warn`), with [`RMCP_MESSAGE_LOGS`] capped at
/// info when it would show anything more verbose (below that it is left as it is).
fn log_filter(spec: Option<&str>) -> tracing_subscriber::EnvFilter {
    use tracing_subscriber::filter::{Directive, LevelFilter};
    let mut filter = spec
        .and_then(|s| tracing_subscriber::EnvFilter::try_new(s).ok())
        .unwrap_or_else(|| tracing_subscriber::EnvFilter::new("warn"));
    if filter
        .max_level_hint()
        .is_some_and(|most| most <= LevelFilter::INFO)
    {
        return filter;
    }
    for target in RMCP_MESSAGE_LOGS {
        // `target=info` with a target made of identifiers and `::` always parses (see the test).
        if let Ok(directive) = format!("{target}={}", LevelFilter::INFO).parse::<Directive>() {
            filter = filter.add_directive(directive);
        }
    }
    filter
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
    fn rmcp_message_logs_are_capped_at_info() {
        for spec in ["trace", "rmcp=trace,debug", "gitlab_file_mcp=debug"] {
            let shown = log_filter(Some(spec)).to_string();
            for target in RMCP_MESSAGE_LOGS {
                assert!(
                    shown.contains(&format!("{target}=info")),
                    "{spec:?}: {shown}"
                );
                assert!(
                    !shown.contains(&format!("{target}=trace")),
                    "{spec:?}: {shown}"
                );
            }
        }
        // Quieter filters are left alone (the cap never raises a level).
        for spec in [None, Some("warn"), Some("info")] {
            let shown = log_filter(spec).to_string();
            assert!(!shown.contains("rmcp"), "{spec:?}: {shown}");
        }
    }
}
