//! What each fuzz target checks, one module per target. Each module's `check(data)` decodes the
//! raw fuzz input the same way every time (raw bytes, or `arbitrary` over them), runs the code
//! under test and panics exactly when a property fails; it returns quietly on input it cannot
//! use. The fuzz targets call these, and so does `tests/it/models/fuzz_corpus.rs` (on stable, through
//! `#[path]`), so a checked-in corpus file means the same thing in both.
//!
//! This file is included from two crates: paths name `gitlab_file_mcp`, never `crate`.

pub mod arguments;
pub mod glob;
pub mod json_text;
pub mod outline;
pub mod search;
pub mod url_args;
pub mod window;

/// A fuzz target: its name (the `fuzz_targets/<name>.rs` file and the `corpus/<name>`
/// directory) and its check.
pub struct Target {
    pub name: &'static str,
    pub check: fn(&[u8]),
}

/// Every fuzz target.
pub const TARGETS: [Target; 7] = [
    Target {
        name: "url_args",
        check: url_args::check,
    },
    Target {
        name: "arguments",
        check: arguments::check,
    },
    Target {
        name: "window",
        check: window::check,
    },
    Target {
        name: "json_text",
        check: json_text::check,
    },
    Target {
        name: "glob",
        check: glob::check,
    },
    Target {
        name: "search",
        check: search::check,
    },
    Target {
        name: "outline",
        check: outline::check,
    },
];
