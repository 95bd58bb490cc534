//! The `glob` filter (pure, the `globset` crate): a glob without a `/` matches a path's base
//! name anywhere (`*.md`, `test_*.py`); one with a `/` matches the whole path from the
//! repository root (`src/**/test_*.rs`, `**/*.py`). `*` and `?` never cross a `/`, `**` does;
//! `{a,b}` and `[abc]` as usual. Matching is case-sensitive, as git paths are.

use std::fmt::{self, Display, Formatter};

use globset::{GlobBuilder, GlobMatcher};

use crate::base::quote::shown;

/// A compiled `glob`.
#[derive(Debug, Clone)]
pub(crate) struct PathFilter {
    matcher: GlobMatcher,
    /// No `/` in the glob: it is matched against base names.
    base_name: bool,
}

/// A glob that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum GlobError {
    Empty,
    Invalid { glob: String, reason: String },
}

impl Display for GlobError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            GlobError::Empty => f.write_str(
                "Argument 'glob' is empty: leave it out to list every path, or give one such as '*.py' or 'src/**/*.rs'.",
            ),
            GlobError::Invalid { glob, reason } => write!(
                f,
                "Invalid glob '{}': {reason}. Use * (within a name), ** (across directories), ? and {{a,b}}, e.g. '*.md' or 'src/**/test_*.rs'.",
                shown(glob)
            ),
        }
    }
}

impl PathFilter {
    /// Compiles `glob`.
    pub(crate) fn new(glob: &str) -> Result<Self, GlobError> {
        let trimmed = glob.trim().trim_start_matches('/');
        if trimmed.is_empty() {
            return Err(GlobError::Empty);
        }
        let compiled = GlobBuilder::new(trimmed)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| GlobError::Invalid {
                glob: glob.to_string(),
                reason: e.kind().to_string(),
            })?;
        Ok(Self {
            matcher: compiled.compile_matcher(),
            base_name: !trimmed.contains('/'),
        })
    }

    /// Whether `path` (from the repository root) passes.
    pub(crate) fn matches(&self, path: &str) -> bool {
        if self.base_name {
            let name = path.rsplit('/').next().unwrap_or(path);
            return self.matcher.is_match(name);
        }
        self.matcher.is_match(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_names_anywhere_and_whole_paths() {
        let md = PathFilter::new("*.md").unwrap();
        assert!(md.matches("README.md") && md.matches("docs/a/b.md"));
        assert!(!md.matches("docs/a.mdx"));
        let py = PathFilter::new("**/*.py").unwrap();
        assert!(py.matches("a.py") && py.matches("x/y/a.py"));
        let tests = PathFilter::new("src/**/test_*.rs").unwrap();
        assert!(tests.matches("src/test_a.rs") && tests.matches("src/x/y/test_b.rs"));
        assert!(!tests.matches("lib/src/test_a.rs") && !tests.matches("src/x/test/a.rs"));
        let one = PathFilter::new("src/*.rs").unwrap();
        assert!(one.matches("src/a.rs") && !one.matches("src/x/a.rs"));
        let braces = PathFilter::new("*.{rs,toml}").unwrap();
        assert!(braces.matches("Cargo.toml") && braces.matches("src/main.rs"));
    }

    #[test]
    fn bad_globs_are_refused() {
        assert_eq!(PathFilter::new("  ").unwrap_err(), GlobError::Empty);
        assert!(matches!(
            PathFilter::new("src/[a"),
            Err(GlobError::Invalid { .. })
        ));
        assert!(PathFilter::new("{a,b").is_err());
    }
}
