//! Entry points for the fuzz targets in `fuzz/` and for the corpus replay test: thin wrappers
//! over the parsers, so the fuzzers reach pure code without the crate exposing its modules.
//! Each returns something cheap to inspect and must never panic, whatever the input.

use serde_json::{Map, Value};

/// Parses tool arguments and resolves them for a GitLab at `base` and for a local repository;
/// returns the two outcomes' messages (`Ok` as `None`).
pub fn resolve_arguments(arguments: &Map<String, Value>, base: &url::Url) -> [Option<String>; 2] {
    match crate::args::parse(Some(arguments)) {
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

/// Decodes a JSON string literal the way GitLab's `rawTextBlob` is decoded.
pub fn decode_json_text(literal: &str) -> Option<String> {
    crate::source::gitlab::json_text::decode(literal).ok()
}

/// Ruby's `File.fnmatch(pattern, path)` without flags, as the Duo exclusion rules use it.
pub fn fnmatch(pattern: &str, path: &str) -> bool {
    crate::source::gitlab::exclusion::fnmatch(pattern, path)
}

/// Whether GitLab's Duo exclusion `rules` exclude `path`.
pub fn is_excluded(rules: &[String], path: &str) -> bool {
    crate::source::gitlab::exclusion::is_excluded(rules, path)
}
