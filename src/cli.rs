//! The command line: `serve` (MCP over stdio, or HTTP with `--http`; the default with no
//! subcommand) and `read` (one call of the tool, for people and scripts). Parses flags, builds
//! the `Reader`, and hands over; nothing else.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::config::{ConfigError, GitlabArgs, GitlabConfig};
use crate::http::HttpArgs;
use crate::limits::DEFAULT_MAX_CHARS;
use crate::outline::{DEFAULT_PARSE_MEMORY_BYTES, OUTLINE_CACHE_BYTES, Outlines};
use crate::reader::caller::CallerContext;
use crate::reader::history::Caller;
use crate::reader::{AnySource, ReadDefaults, Reader};
use crate::resolve::args::ArgName;
use crate::source::gitlab::GitlabSource;
use crate::source::local::{LocalError, LocalRepo, LocalSource};
use crate::tool::FileServer;
use crate::window::search::{DEFAULT_CONTEXT_LINES, MAX_CONTEXT_LINES};
use crate::window::{CONTROL_CHARGE, DEFAULT_LIMIT, MAX_LIMIT};

/// The variable that sets the character budget (`--max-chars`).
const MAX_CHARS_ENV: &str = "GITLAB_FILE_MCP_MAX_CHARS";

/// `--max-chars`' help, naming the default from the window constants.
fn max_chars_help() -> String {
    format!(
        "Characters of content per call, line-number prefixes included, when the call sends no \
         max_chars (a control character counts {CONTROL_CHARGE}; 0 = no budget). Default: \
         {DEFAULT_MAX_CHARS}. \
         With `read`, given here or in the environment, it is the call's own max_chars, so the \
         hint repeats it"
    )
}

/// Exit code for a tool error (`read`).
const EXIT_TOOL_ERROR: u8 = 1;
/// Exit code for bad usage or configuration.
const EXIT_USAGE: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "gitlab-file-mcp",
    version,
    about = "MCP server that reads GitLab repository files in line windows (tool: get_repository_file).",
    long_about = "MCP server that reads GitLab repository files in line windows (tool: get_repository_file).\n\nWith no subcommand it serves MCP on stdio, which is what MCP clients launch.\nThe token comes from GITLAB_TOKEN (or GITLAB_PERSONAL_ACCESS_TOKEN); it is never taken as a flag."
)]
pub struct Cli {
    #[command(flatten)]
    gitlab: GitlabArgs,
    // The character budget for calls that send no max_chars; `None` = the default. Global, so a
    // bare `gitlab-file-mcp` (serve with no subcommand) reads its variable too.
    #[arg(long, global = true, env = MAX_CHARS_ENV, value_name = "N", help = max_chars_help())]
    max_chars: Option<u64>,
    /// Bytes of syntax tree one outline or symbol parse may hold; a file whose parse passes it
    /// is refused (tree-sitter holds 35 to 105 bytes of tree per byte of source, Ruby the most).
    #[arg(long, global = true, env = "GITLAB_FILE_MCP_OUTLINE_MEMORY_BYTES", value_name = "BYTES",
          default_value_t = DEFAULT_PARSE_MEMORY_BYTES,
          value_parser = clap::value_parser!(u64).range(1..))]
    outline_memory_bytes: u64,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve MCP on stdio (default), or on HTTP with --http.
    Serve(ServeArgs),
    /// Run the tool once and print the window (content on stdout, hint on stderr).
    Read(ReadArgs),
}

#[derive(Debug, Clone, Args, Default)]
struct ServeArgs {
    /// Read from this local git repository instead of GitLab (no network at all).
    #[arg(long, value_name = "PATH")]
    repo: Option<PathBuf>,
    #[command(flatten)]
    http: HttpArgs,
}

#[derive(Debug, Clone, Args)]
struct ReadArgs {
    /// Read from this local git repository instead of GitLab.
    #[arg(long, value_name = "PATH")]
    repo: Option<PathBuf>,
    /// GitLab file URL (…/-/blob/<ref>/<path>); instead of --project/--path/--ref.
    #[arg(long)]
    url: Option<String>,
    /// Project numeric id or full path (optional with --repo).
    #[arg(long)]
    project: Option<String>,
    /// File path from the repository root (required unless --url names the file).
    #[arg(long, required_unless_present = "url")]
    path: Option<String>,
    /// Branch, tag or commit SHA (HEAD = default branch; the default with --repo).
    #[arg(long = "ref", value_name = "REF")]
    git_ref: Option<String>,
    /// Zero-indexed first line.
    #[arg(long)]
    offset: Option<u64>,
    // Its help names the window constants.
    #[arg(long, help = format!("Number of lines (1..{MAX_LIMIT}, default {DEFAULT_LIMIT})"))]
    limit: Option<u64>,
    /// First line, 1-indexed (instead of --offset/--limit); below 1 means line 1.
    #[arg(long, allow_negative_numbers = true)]
    start_line: Option<i64>,
    /// Last line, 1-indexed, inclusive; 0 or below means the last line.
    #[arg(long, allow_negative_numbers = true)]
    end_line: Option<i64>,
    /// Characters of the first line to skip, 0-indexed: start part way through that line.
    #[arg(long)]
    column: Option<u64>,
    /// Prefix each line with its number, cat -n style.
    #[arg(long)]
    line_numbers: bool,
    /// Find the lines this regular expression matches (grep -n output) instead of a window;
    /// the line options say which lines are searched (default: all).
    #[arg(long)]
    pattern: Option<String>,
    /// With --pattern: match letters of any case.
    #[arg(long)]
    ignore_case: bool,
    // Its help names the search constants.
    #[arg(long, value_name = "N", help = format!("With --pattern: lines shown before and after each match (0..{MAX_CONTEXT_LINES}, default {DEFAULT_CONTEXT_LINES})"))]
    context_lines: Option<u64>,
    /// A blob id from an earlier answer: when the file is still that blob, print no content.
    #[arg(long, value_name = "BLOB_ID")]
    if_none_match: Option<String>,
    /// List the file's definitions (START-END KIND NAME) instead of its text.
    #[arg(long)]
    outline: bool,
    /// Read the lines of the definition of this name (as --outline prints it, or its last part).
    #[arg(long, value_name = "NAME")]
    symbol: Option<String>,
    /// List the commits that changed the file, newest first (--offset/--limit page them).
    #[arg(long)]
    history: bool,
    /// Print who last changed each line of the window (the JSON's metadata.blame).
    #[arg(long)]
    blame: bool,
    /// Print the changes to the file from this ref to --ref, as a unified diff.
    #[arg(long, value_name = "REF")]
    diff_from: Option<String>,
    /// Print the whole tool result as JSON instead of the content.
    #[arg(long)]
    json: bool,
}

impl ReadArgs {
    /// The tool arguments these flags stand for, with the budget given to the command.
    fn tool_arguments(&self, max_chars: Option<u64>) -> Map<String, Value> {
        let value = |name: ArgName| -> Option<Value> {
            match name {
                ArgName::Url => self.url.clone().map(Value::from),
                ArgName::ProjectId => self.project.clone().map(Value::from),
                ArgName::FilePath => self.path.clone().map(Value::from),
                ArgName::Ref => self.git_ref.clone().map(Value::from),
                ArgName::Offset => self.offset.map(Value::from),
                ArgName::Limit => self.limit.map(Value::from),
                ArgName::StartLine => self.start_line.map(Value::from),
                ArgName::EndLine => self.end_line.map(Value::from),
                ArgName::Column => self.column.map(Value::from),
                ArgName::MaxChars => max_chars.map(Value::from),
                ArgName::LineNumbers => self.line_numbers.then_some(Value::Bool(true)),
                ArgName::Pattern => self.pattern.clone().map(Value::from),
                ArgName::IgnoreCase => self.ignore_case.then_some(Value::Bool(true)),
                ArgName::ContextLines => self.context_lines.map(Value::from),
                ArgName::IfNoneMatch => self.if_none_match.clone().map(Value::from),
                ArgName::Outline => self.outline.then_some(Value::Bool(true)),
                ArgName::Symbol => self.symbol.clone().map(Value::from),
                ArgName::History => self.history.then_some(Value::Bool(true)),
                ArgName::Blame => self.blame.then_some(Value::Bool(true)),
                ArgName::DiffFrom => self.diff_from.clone().map(Value::from),
            }
        };
        ArgName::ALL
            .iter()
            .filter_map(|&name| Some((name.as_str().to_string(), value(name)?)))
            .collect()
    }
}

/// Why the reader could not be built: the local repository, or the GitLab client.
#[derive(Debug, thiserror::Error)]
enum ReaderError {
    #[error(transparent)]
    Local(#[from] LocalError),
    #[error(transparent)]
    Gitlab(#[from] ConfigError),
}

/// Builds the reader for a local repository or for the configured GitLab.
fn build_reader(
    repo: Option<&PathBuf>,
    config: &GitlabConfig,
    defaults: ReadDefaults,
    outline_memory_bytes: u64,
) -> Result<Reader, ReaderError> {
    let backend = match repo {
        Some(path) => AnySource::Local(LocalSource::new(LocalRepo::open(path)?)),
        None => AnySource::Gitlab(GitlabSource::new(config)?),
    };
    let outlines = Outlines::new(OUTLINE_CACHE_BYTES, outline_memory_bytes);
    Ok(Reader::new(backend, defaults, outlines))
}

/// Runs the command line; returns the process exit code.
pub async fn run(cli: Cli) -> ExitCode {
    let config = match GitlabConfig::from_args(&cli.gitlab) {
        Ok(c) => c,
        Err(e) => return usage_error(&e.to_string()),
    };
    for warning in &config.token_warnings {
        tracing::warn!("{warning}");
    }
    match cli.command.unwrap_or(Command::Serve(ServeArgs::default())) {
        Command::Serve(args) => serve(args, config, cli.max_chars, cli.outline_memory_bytes).await,
        Command::Read(args) => read(args, config, cli.max_chars, cli.outline_memory_bytes).await,
    }
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(EXIT_USAGE)
}

async fn serve(
    args: ServeArgs,
    config: GitlabConfig,
    max_chars: Option<u64>,
    outline_memory_bytes: u64,
) -> ExitCode {
    let defaults = ReadDefaults {
        max_chars: max_chars.unwrap_or(DEFAULT_MAX_CHARS),
    };
    let reader = match build_reader(args.repo.as_ref(), &config, defaults, outline_memory_bytes) {
        Ok(r) => r,
        Err(e) => return usage_error(&e.to_string()),
    };
    if args.http.http.is_some() {
        let gitlab = args.repo.is_none().then_some(&config);
        let oauth = match crate::auth::Oauth::start(&args.http.oauth, gitlab) {
            Ok(oauth) => oauth,
            Err(e) => return usage_error(&e.to_string()),
        };
        return match crate::http::serve(args.http, reader, config.credential.clone(), oauth).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => usage_error(&e.to_string()),
        };
    }
    let where_from = match &args.repo {
        Some(p) => format!("local repository {}", p.display()),
        None => config.base_url.to_string(),
    };
    tracing::info!(source = %where_from, "serving MCP on stdio");
    // The same deadline as over HTTP, answered with the same tool error.
    let limit = args.http.request_timeout();
    let local = args.repo.is_some();
    let server = FileServer::new(reader, config.credential.clone())
        .with_call_timeout(limit, crate::http::call_timed_out(limit, local));
    match crate::stdio::serve(server).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// What `read` prints of the tool's output (`response::FileOutput`): the content on stdout, the
/// hint on stderr.
#[derive(Debug, Default, serde::Deserialize)]
struct Printed {
    #[serde(default)]
    content: String,
    system_instruction: Option<String>,
}

async fn read(
    args: ReadArgs,
    config: GitlabConfig,
    max_chars: Option<u64>,
    outline_memory_bytes: u64,
) -> ExitCode {
    // A budget given by flag or variable is sent as the call's own; else the default applies.
    let defaults = ReadDefaults {
        max_chars: DEFAULT_MAX_CHARS,
    };
    let reader = match build_reader(args.repo.as_ref(), &config, defaults, outline_memory_bytes) {
        Ok(r) => r,
        Err(e) => return usage_error(&e.to_string()),
    };
    let server = FileServer::new(reader, config.credential.clone());
    let arguments = args.tool_arguments(max_chars);
    let result = server
        .call(
            Some(&arguments),
            CallerContext {
                credential: config.credential.as_ref(),
                caller: Some(Caller::Process),
            },
        )
        .await;
    let text: String = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n");
    if result.is_error == Some(true) {
        eprintln!("error: {text}");
        return ExitCode::from(EXIT_TOOL_ERROR);
    }
    let value = result.structured_content.unwrap_or_else(|| json!({}));
    let mut stdout = std::io::stdout().lock();
    let written = if args.json {
        writeln!(stdout, "{value}")
    } else {
        let printed = Printed::deserialize(&value).unwrap_or_default();
        if let Some(hint) = &printed.system_instruction {
            eprintln!("{hint}");
        }
        stdout.write_all(printed.content.as_bytes())
    };
    match written.and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`| head`) is not an error worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write the output: {e}");
            ExitCode::FAILURE
        }
    }
}
