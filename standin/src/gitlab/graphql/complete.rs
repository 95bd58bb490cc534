//! What completion asks: `CompleteProjects` (the projects the token may read whose full path
//! holds the search, case-insensitively, the first `first` of them and whether more follow) and
//! `CompleteRefs` (the default branch and the branch names matching a `*`-pattern).

use serde_json::{Value, json};

use super::Asked;
use crate::gitlab::Gitlab;
use crate::gitlab::projects::Hosted;
use crate::gitlab::repository::MAIN;

impl Gitlab {
    /// `CompleteProjects`, as the token sees them.
    pub(super) fn complete_projects(
        &self,
        asked: &Asked<'_>,
        projects: &[Hosted],
        token: Option<&str>,
    ) -> Value {
        let search = asked.str("search").to_lowercase();
        let first = asked.var("first").as_u64().unwrap_or(20) as usize;
        let seen: Vec<&str> = projects
            .iter()
            .map(|h| h.project.path.as_str())
            .filter(|p| self.access.sees(token, p) && p.to_lowercase().contains(&search))
            .collect();
        let nodes: Vec<Value> = seen
            .iter()
            .take(first)
            .map(|p| json!({"fullPath": p}))
            .collect();
        json!({"data": {"projects": {"nodes": nodes, "pageInfo": {"hasNextPage": seen.len() > first}}}})
    }

    /// `CompleteRefs`: the default branch and the branches matching `pattern`.
    pub(super) fn complete_refs(&self, asked: &Asked<'_>, hosted: Option<&mut Hosted>) -> Value {
        let Some(hosted) = hosted else {
            return json!({"data": {"project": null}});
        };
        let limit = asked.var("limit").as_u64().unwrap_or(20) as usize;
        let pattern = asked.str("pattern");
        let names: Vec<&str> = hosted
            .repo
            .refs()
            .filter_map(|r| r.strip_prefix("refs/heads/"))
            .filter(|name| matches(pattern, name))
            .take(limit)
            .collect();
        let root = MAIN.strip_prefix("refs/heads/");
        json!({"data": {"project": {"repository": {"rootRef": root, "branchNames": names}}}})
    }
}

/// Whether `name` matches a pattern of literal parts and `*`s, as Gitaly's branch search.
fn matches(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return name == pattern;
    }
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn patterns_match_as_gitalys_branch_search() {
        assert!(matches("*", "main"));
        assert!(matches("fea*", "feature/x"));
        assert!(matches("*x*", "feature/x"));
        assert!(!matches("x*", "feature/x"));
        assert!(matches("main", "main"));
        assert!(!matches("mai", "main"));
    }
}
