//! How deep [`super::Finder::entries`] lists a directory for the faces other than
//! `search_repository` (the resource list, path completion), and which paths lie directly in
//! a directory. Pure.

/// How deep a listing goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Depth {
    /// The directory's own entries.
    Children,
    /// Every path under it.
    All,
}

/// Whether `path` lies directly in `dir` (`""` = the root).
pub(crate) fn is_child(dir: &str, path: &str) -> bool {
    let rest = if dir.is_empty() {
        Some(path)
    } else {
        path.strip_prefix(dir).and_then(|r| r.strip_prefix('/'))
    };
    rest.is_some_and(|r| !r.is_empty() && !r.contains('/'))
}

#[cfg(test)]
mod tests {
    use super::is_child;

    #[test]
    fn children_are_one_level_down() {
        assert!(is_child("", "a"));
        assert!(!is_child("", "a/b"));
        assert!(is_child("src", "src/main.rs"));
        assert!(!is_child("src", "src/x/main.rs"));
        assert!(!is_child("src", "srcx/main.rs"));
        assert!(!is_child("src", "src"));
    }
}
