//! Entry points for the fuzz targets in `fuzz/` and for the corpus replay test: thin wrappers
//! over the parsers, so the fuzzers reach pure code without the crate exposing its modules.
//! Each returns something cheap to inspect and must never panic, whatever the input; a parser's
//! error comes back typed ([`Refused`]), its `Display` the parser's own sentence, so the fuzzers
//! exercise those too.

use serde_json::{Map, Value};

use crate::resolve::file_url::UrlError;
use crate::resolve::split_error::SplitError;

/// Why a parser refused its input: the parser's own error, kept whole (the crate's error types
/// are its own, so it is opaque here); `Display` is the parser's sentence.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct Refused(Cause);

/// The parser's error behind a [`Refused`].
#[derive(Debug, thiserror::Error)]
enum Cause {
    /// Not a file URL on the GitLab ([`file_url`]).
    #[error(transparent)]
    Url(UrlError),
    /// A "ref/path" string with no usable split ([`split_candidates`]).
    #[error(transparent)]
    Split(SplitError),
}

/// Parses tool arguments and resolves them for a GitLab at `base` and for a local repository;
/// returns the two outcomes' messages (`Ok` as `None`).
pub fn resolve_arguments(arguments: &Map<String, Value>, base: &url::Url) -> [Option<String>; 2] {
    match crate::resolve::args::parse(Some(arguments)) {
        Err(e) => {
            let message = Some(e.to_string());
            [message.clone(), message]
        }
        Ok(args) => [
            crate::resolve::for_gitlab(&args, base)
                .err()
                .map(|e| e.to_string()),
            crate::resolve::for_local(&args)
                .err()
                .map(|e| e.to_string()),
        ],
    }
}

/// A GitLab file URL cut into its parts (see `resolve::file_url::FileUrl`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileUrlParts {
    /// The project's full path, percent-decoded, never empty.
    pub project_path: String,
    /// Everything after the file marker, percent-decoded.
    pub ref_and_path: String,
    /// `HEADS` or `TAGS` from `?ref_type=`.
    pub ref_type: Option<&'static str>,
    /// The first line of a `#L…` anchor.
    pub line_start: Option<u64>,
    /// The last line of a `#L…-…` anchor.
    pub line_end: Option<u64>,
}

/// Parses `input` as a file URL on the GitLab at `base`.
pub fn file_url(input: &str, base: &url::Url) -> Result<FileUrlParts, Refused> {
    let parsed = crate::resolve::file_url::parse_file_url(input, base)
        .map_err(|e| Refused(Cause::Url(e)))?;
    Ok(FileUrlParts {
        project_path: parsed.project_path,
        ref_and_path: parsed.ref_and_path,
        ref_type: parsed.ref_type.map(|t| t.as_graphql()),
        line_start: parsed.lines.map(|l| l.start),
        line_end: parsed.lines.and_then(|l| l.end),
    })
}

/// One candidate cut of a "ref/path" string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefAndPath {
    pub git_ref: String,
    pub path: String,
}

/// The candidate cuts of a "ref/path" string, in order of increasing ref length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitCandidates {
    /// The string starts with a 40- or 64-hex SHA: `candidates` is that one cut.
    pub sha: bool,
    pub candidates: Vec<RefAndPath>,
}

/// The most candidates [`split_candidates`] returns.
pub const MAX_SPLITS: usize = crate::resolve::candidates::MAX_CANDIDATES;

/// Lists the ways `ref_and_path` can be cut into a ref and a path.
pub fn split_candidates(ref_and_path: &str) -> Result<SplitCandidates, Refused> {
    use crate::resolve::candidates::{Candidates, enumerate};
    let (sha, candidates) = match enumerate(ref_and_path).map_err(|e| Refused(Cause::Split(e)))? {
        Candidates::Sha(s) => (true, vec![s]),
        Candidates::Segments(c) => (false, c),
    };
    let candidates = candidates
        .into_iter()
        .map(|s| RefAndPath {
            git_ref: s.git_ref,
            path: s.path,
        })
        .collect();
    Ok(SplitCandidates { sha, candidates })
}

/// Decodes a JSON string literal the way GitLab's `rawTextBlob` is decoded.
pub fn decode_json_text(literal: &str) -> Option<String> {
    crate::source::gitlab::pure::decode_json_text(literal).ok()
}

/// Ruby's `File.fnmatch(pattern, path)` without flags, as the Duo exclusion rules use it.
pub fn fnmatch(pattern: &str, path: &str) -> bool {
    crate::source::gitlab::pure::fnmatch(pattern, path)
}

/// Whether GitLab's Duo exclusion `rules` exclude `path`.
pub fn is_excluded(rules: &[String], path: &str) -> bool {
    crate::source::gitlab::pure::is_excluded(rules, path)
}

/// The path the exclusion rules are matched against, or `None` when GitLab refuses it.
pub fn normalize_exclusion_path(path: &str) -> Option<String> {
    crate::source::gitlab::pure::normalize_path(path)
}

/// A definition's lines and depth, as the outline gives them: `(start_line, end_line, depth)`.
pub type DefinitionRange = (u64, u64, usize);

/// What the outline fuzz target checks of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutlineRanges {
    /// The text's lines.
    pub lines: u64,
    /// Per supported language, each definition's range in order.
    pub per_language: Vec<Vec<DefinitionRange>>,
    /// The languages whose outline differs from a walk of every node (the pruning missed or
    /// added something): never any.
    pub pruning_differs_in: Vec<&'static str>,
    /// Per supported language, each definition's name as printed.
    pub names: Vec<Vec<String>>,
}

/// Definitions nested this deep are not listed (`outline::MAX_DEPTH`).
pub const MAX_OUTLINE_DEPTH: usize = crate::outline::MAX_DEPTH;

/// The most characters of one part of a printed name before its `…[+N bytes]` marker.
pub const MAX_OUTLINE_NAME_CHARS: usize = crate::outline::MAX_NAME_CHARS;

pub use crate::outline::OutlineError;

/// The outline of `text` in every supported language, and where it differs from a walk of
/// every node (a parser failure, never expected, is its error).
pub fn outline_ranges(text: &str) -> Result<OutlineRanges, OutlineError> {
    let (mut per_language, mut pruning_differs_in) = (Vec::new(), Vec::new());
    let mut names = Vec::new();
    for language in crate::outline::Language::ALL {
        let outline = crate::outline::outline(text, language)?;
        if outline != crate::outline::outline_of_every_node(text, language)? {
            pruning_differs_in.push(language.as_str());
        }
        per_language.push(
            outline
                .definitions
                .iter()
                .map(|d| (d.start_line, d.end_line, d.depth))
                .collect(),
        );
        names.push(outline.definitions.iter().map(|d| d.name.clone()).collect());
    }
    Ok(OutlineRanges {
        lines: crate::window::count_lines(text.as_bytes()),
        per_language,
        pruning_differs_in,
        names,
    })
}
