//! Why a fetched blob cannot be shown as the call's view ([`ViewError`]), worded here.

use std::fmt::{self, Display, Formatter};

use crate::base::cpu::{CpuError, Stopped};
use crate::base::quote::shown;
use crate::outline::{
    MAX_OUTLINE_BYTES, OutlineError, PARSE_SECONDS_BASE, PARSE_SECONDS_PER_MIB, SUPPORTED,
    SymbolError,
};
use crate::window::WindowError;
use crate::window::search::PatternError;

/// Why a view could not be rendered (or, for a bad pattern, built).
#[derive(Debug, thiserror::Error)]
pub(crate) enum ViewError {
    Window(#[source] WindowError),
    /// The search pattern cannot be compiled.
    Pattern(#[source] PatternError),
    /// The file is binary.
    Binary {
        path: String,
        size_bytes: u64,
    },
    /// The file is stored in LFS.
    Lfs {
        path: String,
        storage: String,
        size_bytes: u64,
    },
    /// The output could not be serialised (never expected).
    Output(#[source] serde_json::Error),
    /// Rendering was stopped: the call's caller gave up on it (its deadline passed), and the
    /// call is answered by whatever ended it.
    Stopped(#[source] Stopped),
    /// Rendering off the async workers failed (never expected).
    Cpu(#[source] CpuError),
    /// Two views asked for at once (`pattern`, `outline`, `symbol`).
    Conflict {
        first: &'static str,
        second: &'static str,
    },
    /// No outline for this kind of file.
    Unsupported {
        path: String,
    },
    /// Past [`MAX_OUTLINE_BYTES`].
    OutlineTooLarge {
        path: String,
        size_bytes: u64,
    },
    /// The parse took longer than a file of its size may ([`crate::outline::parse_budget`]).
    OutlineTooSlow {
        path: String,
        size_bytes: u64,
        budget: std::time::Duration,
    },
    /// The parse's syntax tree passed `budget` bytes (`--outline-memory-bytes`).
    OutlineOverMemory {
        path: String,
        size_bytes: u64,
        budget: u64,
    },
    /// The parser failed (never expected), or the language's grammar is not built in.
    Outline(#[source] OutlineError),
    /// The symbol names no definition, or several.
    Symbol(#[source] SymbolError),
    /// A blame window that starts past the end of the file.
    BlamePastEnd {
        total_lines: u64,
    },
    /// A diff of a file the ref read lacks while `diff_from` has it: deleted (or renamed) since.
    DeletedSince {
        path: String,
        git_ref: String,
        from: String,
    },
    /// A history page past the oldest commit.
    HistoryPastEnd {
        offset: u64,
    },
    /// The source listed no commit for a file it read (never expected).
    NoHistory {
        path: String,
        git_ref: String,
    },
    /// A view that needs the source's answer beyond the blob was rendered without it (never
    /// expected).
    NotAsked,
}

impl ViewError {
    /// The sentences of the views' conflicts and the history views' errors.
    fn views_message(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ViewError::Conflict { first, second } => write!(
                f,
                "Pass one of pattern, outline, symbol, history, blame and diff_from, not both {first} and {second}."
            ),
            ViewError::HistoryPastEnd { offset } => write!(
                f,
                "offset {offset} is past the file's oldest commit: its history has fewer commits. Call with history: true and offset 0 to list it from the newest."
            ),
            ViewError::BlamePastEnd { total_lines } => write!(
                f,
                "The window starts past the end of the file ({total_lines} lines), so there are no lines to blame. Pass a window within the file (offset below {total_lines})."
            ),
            ViewError::NoHistory { path, git_ref } => write!(
                f,
                "No commit that changed '{path}' was found at '{git_ref}'. Read the file without history to see it."
            ),
            ViewError::DeletedSince {
                path,
                git_ref,
                from,
            } => write!(
                f,
                "'{}' was deleted between '{}' and '{}' (or renamed: renames are not followed): it exists at '{}' but not at '{}'. To read it as it was, call with {}.",
                shown(path),
                shown(from),
                shown(git_ref),
                shown(from),
                shown(git_ref),
                serde_json::json!({"file_path": path, "ref": from}),
            ),
            _ => f.write_str(
                "The view was rendered before its source was asked (a server bug); please report it.",
            ),
        }
    }
}

impl Display for ViewError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ViewError::Window(e @ WindowError::InvertedRange { .. }) => write!(
                f,
                "Invalid line range: {e}. Pass start_line less than or equal to end_line."
            ),
            ViewError::Window(e @ WindowError::ColumnPastEnd { .. }) => write!(
                f,
                "Invalid column: {e}. Pass a smaller column, or 0 to read the line from its start."
            ),
            ViewError::Pattern(e) => e.fmt(f),
            ViewError::Binary { path, size_bytes } => write!(
                f,
                "File '{}' is binary and cannot be returned as text. Size: {size_bytes} bytes.",
                shown(path)
            ),
            ViewError::Lfs {
                path,
                storage,
                size_bytes,
            } => write!(
                f,
                "File '{}' is stored in LFS ({storage}) and its content cannot be read with this tool. Size: {size_bytes} bytes.",
                shown(path)
            ),
            ViewError::Output(e) => write!(f, "internal error: cannot serialise the output: {e}"),
            ViewError::Stopped(e) => write!(f, "The call was stopped before it finished ({e})."),
            ViewError::Cpu(e) => e.fmt(f),
            ViewError::Conflict { .. }
            | ViewError::HistoryPastEnd { .. }
            | ViewError::BlamePastEnd { .. }
            | ViewError::NoHistory { .. }
            | ViewError::DeletedSince { .. }
            | ViewError::NotAsked => self.views_message(f),
            ViewError::Unsupported { path } => write!(
                f,
                "No outline for '{}': outline and symbol read {SUPPORTED} files, by extension (on GitLab also by a gitlab-language attribute in .gitattributes). Use pattern to find lines in this file instead.",
                shown(path)
            ),
            ViewError::OutlineTooLarge { path, size_bytes } => write!(
                f,
                "File '{}' ({size_bytes} bytes) is too large to outline: at most {MAX_OUTLINE_BYTES} bytes are parsed. Use pattern to find its definitions instead.",
                shown(path)
            ),
            ViewError::OutlineTooSlow {
                path,
                size_bytes,
                budget,
            } => too_slow(f, path, *size_bytes, *budget),
            ViewError::OutlineOverMemory {
                path,
                size_bytes,
                budget,
            } => over_memory(f, path, *size_bytes, *budget),
            // A build choice, not a failure: said as it is.
            ViewError::Outline(e @ OutlineError::NotBuiltIn(_)) => e.fmt(f),
            ViewError::Outline(e) => write!(f, "internal error: {e}"),
            ViewError::Symbol(e) => e.fmt(f),
        }
    }
}

/// [`ViewError::OutlineTooSlow`]'s words: the CPU time passed, why it happens, what to use
/// instead.
fn too_slow(
    f: &mut Formatter<'_>,
    path: &str,
    size_bytes: u64,
    budget: std::time::Duration,
) -> fmt::Result {
    write!(
        f,
        "File '{}' ({size_bytes} bytes) could not be outlined: its parse passed {} s of CPU time, the most a file of its size may take ({PARSE_SECONDS_BASE} s and {PARSE_SECONDS_PER_MIB} s per MiB). That happens when a file has many syntax errors, or is not in the language its extension says (tree-sitter recovers from errors slowly). Use pattern to find lines in it instead.",
        shown(path),
        budget.as_secs()
    )
}

/// [`ViewError::OutlineOverMemory`]'s words: what happened, the budget and its flag, and
/// what to read the file with instead.
fn over_memory(f: &mut Formatter<'_>, path: &str, size_bytes: u64, budget: u64) -> fmt::Result {
    write!(
        f,
        "File '{}' ({size_bytes} bytes) could not be outlined: its syntax tree passed {budget} bytes{}, the most one parse may hold on this server (its --outline-memory-bytes; tree-sitter holds 35 to 105 bytes of tree per byte of source). Use pattern to find its definitions, or read it in line windows (start_line, end_line), instead.",
        shown(path),
        in_mib(budget)
    )
}

/// ` (N MiB)` for a whole number of MiB, else nothing (the bytes are said already).
fn in_mib(bytes: u64) -> String {
    match bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        true => format!(" ({} MiB)", bytes >> 20),
        false => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_memory_budget_is_said_in_mib_when_it_is_a_whole_number_of_them() {
        assert_eq!(in_mib(512 << 20), " (512 MiB)");
        assert_eq!(in_mib(1 << 20), " (1 MiB)");
        assert_eq!(in_mib((1 << 20) + 1), "");
        assert_eq!(in_mib(1_000_000), "");
        assert_eq!(in_mib(0), "");
    }
}
