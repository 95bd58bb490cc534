//! The tools' names, each spelled once: what `tools/list` publishes, what `tools/call` is
//! matched against, what a refusal lists, and the metrics' `tool` label. Pure.

use std::sync::LazyLock;

use strum::VariantArray;

/// A tool this server serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, VariantArray)]
pub(crate) enum ToolName {
    /// One file (GitLab's own tool's name).
    GetRepositoryFile,
    /// Several files in one call.
    GetRepositoryFiles,
    /// Paths and lines of a whole ref.
    SearchRepository,
}

impl ToolName {
    /// Every tool, in the order `tools/list` names them.
    pub(crate) const ALL: &'static [ToolName] = Self::VARIANTS;

    /// The name.
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            ToolName::GetRepositoryFile => "get_repository_file",
            ToolName::GetRepositoryFiles => "get_repository_files",
            ToolName::SearchRepository => "search_repository",
        }
    }

    /// The tool `name` names, if it is one of ours.
    pub(crate) fn of(name: &str) -> Option<ToolName> {
        Self::ALL.iter().copied().find(|t| t.as_str() == name)
    }

    /// Every name, as a refusal lists them (`a, b`).
    pub(crate) fn listed() -> &'static str {
        static LISTED: LazyLock<String> = LazyLock::new(|| {
            let names: Vec<&str> = ToolName::ALL.iter().map(|t| t.as_str()).collect();
            names.join(", ")
        });
        &LISTED
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_and_listed() {
        assert_eq!(
            ToolName::of("get_repository_files"),
            Some(ToolName::GetRepositoryFiles)
        );
        assert_eq!(ToolName::of("get_repository"), None);
        assert_eq!(
            ToolName::listed(),
            "get_repository_file, get_repository_files, search_repository"
        );
    }
}
