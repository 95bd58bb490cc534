//! The next call a hint names ([`FindCursor`]): the same search at the same commit, by project
//! and path (never a URL, whose ref could split another way), with the cursor after the last
//! thing shown, as a JSON object an agent passes as it is.

use serde_json::{Map, Value};

use super::args::FindArgs;
use crate::source::tree::{RefCommit, Scope};

/// The arguments every next call repeats.
#[derive(Debug, Clone)]
pub(crate) struct FindCursor {
    base: Map<String, Value>,
}

impl FindCursor {
    /// The call `args` made, pinned to `at`'s commit and `scope`'s directory.
    pub(crate) fn new(args: &FindArgs, scope: &Scope, at: &RefCommit) -> Self {
        let mut base = Map::new();
        let project = at
            .project_path
            .clone()
            .or_else(|| scope.project.as_ref().map(|p| p.to_string()));
        if let Some(project) = project {
            base.insert("project_id".into(), project.into());
        }
        base.insert("ref".into(), at.sha.clone().into());
        if !scope.path.is_empty() {
            base.insert("path".into(), scope.path.clone().into());
        }
        let strings = [("glob", &args.glob), ("pattern", &args.pattern)];
        for (name, value) in strings {
            if let Some(v) = value {
                base.insert(name.into(), v.clone().into());
            }
        }
        if let Some(b) = args.ignore_case {
            base.insert("ignore_case".into(), b.into());
        }
        let numbers = [
            ("context_lines", args.context_lines),
            ("max_chars", args.max_chars),
        ];
        for (name, value) in numbers {
            if let Some(n) = value {
                base.insert(name.into(), n.into());
            }
        }
        Self { base }
    }

    /// The arguments object, continuing after `after` (and, in a file, after `after_line`).
    pub(crate) fn arguments(&self, after: Option<&str>, after_line: Option<u64>) -> Value {
        let mut args = self.base.clone();
        if let Some(a) = after {
            args.insert("after".into(), a.into());
        }
        if let Some(l) = after_line {
            args.insert("after_line".into(), l.into());
        }
        Value::Object(args)
    }

    /// [`Self::arguments`] as the hint prints them.
    pub(crate) fn call(&self, after: Option<&str>, after_line: Option<u64>) -> String {
        self.arguments(after, after_line).to_string()
    }
}
