//! The stand-in's `POST /api/graphql`: each operation the server sends, answered from the
//! hosted projects in GitLab's shapes (`../shared/gitlab/samples/`), chosen by the operation's
//! name: the blob query and `BlobBySplits` ([`blobs`]); `MissProbe`, `TreeCommit` and
//! `TreePage` ([`trees`]); `Blame` ([`blame`]); `CompleteProjects` and `CompleteRefs`
//! ([`complete`]). A project GitLab does not host, or one hidden from the token, is `project:
//! null`, as GitLab answers both. Before any of it, what the instance refuses whole (an old
//! instance's missing fields, a complexity limit) in graphql-ruby's words.

mod blame;
mod blobs;
mod complete;
mod trees;

use std::sync::Arc;

use serde_json::{Value, json};

use super::Gitlab;
use super::deployment::{old_refusals, too_complex};
use super::projects::{Hosted, Named, find};
use super::repository::File;
use crate::gitlab_mock::project_node;

/// An answer, and the files whose text it holds as placeholders until it is rendered: a blob's
/// text is escaped once per file, not once per answer.
#[derive(Default)]
pub struct Answer {
    pub value: Value,
    texts: Vec<Arc<File>>,
}

impl Answer {
    fn of(value: Value) -> Answer {
        Answer {
            value,
            texts: Vec::new(),
        }
    }

    /// Holds `file`'s text as a placeholder, rendered by [`Answer::render`].
    fn text_of(&mut self, file: &Arc<File>) -> Value {
        self.texts.push(Arc::clone(file));
        json!(format!("\u{1}{}", file.oid))
    }

    /// The answer's bytes, each placeholder replaced by its file's text.
    pub fn render(&self) -> Vec<u8> {
        let mut text = self.value.to_string();
        for file in &self.texts {
            let placeholder = format!("\"\\u0001{}\"", file.oid);
            text = text.replacen(&placeholder, file.text_json(), 1);
        }
        text.into_bytes()
    }
}

/// What a request's document asks, read from its text and variables.
struct Asked<'a> {
    operation_name: Option<&'a str>,
    query: &'a str,
    vars: &'a Value,
}

impl Asked<'_> {
    fn var(&self, name: &str) -> &Value {
        &self.vars[name]
    }

    fn str(&self, name: &str) -> &str {
        self.vars[name].as_str().unwrap_or_default()
    }

    fn flag(&self, name: &str) -> bool {
        self.vars[name] == json!(true)
    }

    fn line(&self, name: &str) -> u64 {
        self.vars[name].as_u64().unwrap_or(1)
    }

    fn by_id(&self) -> bool {
        self.flag("byId") || (self.vars.get("byId").is_none() && self.query.contains("projects("))
    }

    /// How the document names its project.
    fn named(&self) -> Named<'_> {
        if self.by_id() {
            let ids = self.vars["ids"].as_array();
            Named::Gids(
                ids.into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect(),
            )
        } else {
            Named::Path(self.str("projectPath"))
        }
    }

    /// The operation's name: `operationName`, or the name after `query` in the document.
    fn operation(&self) -> &str {
        if let Some(name) = self.operation_name {
            return name;
        }
        let named = self.query.split_once("query ").map_or("", |(_, rest)| rest);
        let end = named
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(named.len());
        &named[..end]
    }
}

impl Gitlab {
    /// The answer to a GraphQL request body from `token`, as this GitLab gives it.
    pub(super) fn graphql_answer(&self, body: &Value, token: Option<&str>) -> Answer {
        let asked = Asked {
            operation_name: body["operationName"].as_str(),
            query: body["query"].as_str().unwrap_or_default(),
            vars: &body["variables"],
        };
        if let Some(refused) = self.refusal(&asked) {
            return Answer::of(refused);
        }
        let mut projects = self.projects.lock();
        if asked.operation() == "CompleteProjects" {
            return Answer::of(self.complete_projects(&asked, &projects, token));
        }
        let hosted = find(&mut projects[..], &asked.named())
            .filter(|h| self.access.sees(token, &h.project.path));
        self.operation(&asked, hosted)
    }

    fn operation(&self, asked: &Asked<'_>, hosted: Option<&mut Hosted>) -> Answer {
        match asked.operation() {
            "BlobBySplits" => self.splits(asked, hosted),
            "MissProbe" => Answer::of(self.probe(asked, hosted)),
            "Blame" => Answer::of(self.blame(asked, hosted)),
            "TreeCommit" => Answer::of(self.tree_commit(asked, hosted)),
            "TreePage" => Answer::of(self.tree_page(asked, hosted)),
            "CompleteRefs" => Answer::of(self.complete_refs(asked, hosted)),
            // Scripted documents of older tests name their operation otherwise.
            _ if asked.query.contains("blobs(") => self.blobs(asked, hosted),
            other => Answer::of(
                json!({"errors": [{"message": format!("the stand-in does not answer {other}")}]}),
            ),
        }
    }

    /// graphql-ruby's refusal of the whole document, as the instance's knobs say.
    fn refusal(&self, asked: &Asked<'_>) -> Option<Value> {
        let mut errors = if self.old {
            old_refusals(asked.query)
        } else {
            Vec::new()
        };
        errors.extend(
            self.complexity
                .and_then(|limit| too_complex(asked.vars, limit)),
        );
        let first = errors.first()?["message"].as_str().unwrap_or_default();
        self.log.lock().unwrap().refused.push(first.to_string());
        Some(json!({ "errors": errors }))
    }

    /// `{"data": {"project": …}}` (or `projects.nodes` by id), `null` for no project.
    fn wrap(&self, asked: &Asked<'_>, project: Option<Value>) -> Value {
        match (asked.by_id(), project) {
            (true, Some(p)) => json!({"data": {"projects": {"nodes": [p]}}}),
            (true, None) => json!({"data": {"projects": {"nodes": []}}}),
            (false, p) => json!({"data": {"project": p}}),
        }
    }

    /// The project's own fields the document names, around `repository`.
    fn project_fields(&self, asked: &Asked<'_>, hosted: &Hosted, repository: Value) -> Value {
        let mut project = project_node(&hosted.project.path, hosted.project.id, repository);
        if asked.query.contains("duoContextExclusionSettings") {
            let rules = hosted.rules.clone().unwrap_or_default();
            project["duoContextExclusionSettings"] = json!({ "exclusionRules": rules });
        }
        project
    }

    /// Whether GitLab refuses a ref name "Ref is not valid": one git would not take as a ref
    /// name, or one the stand-in was told to refuse.
    fn refuses_ref(&self, name: &str) -> bool {
        let bare = name
            .strip_prefix("refs/heads/")
            .or_else(|| name.strip_prefix("refs/tags/"))
            .unwrap_or(name);
        !valid_ref_name(name) || self.refused_refs.lock().unwrap().contains(bare)
    }
}

/// git's rules for a ref name (`git check-ref-format`), those GitLab's `blobs(ref:)` meets.
fn valid_ref_name(name: &str) -> bool {
    let bad_char = |c: char| c.is_control() || " ~^:?*[\\".contains(c);
    !name.is_empty()
        && !name.contains("..")
        && !name.contains("@{")
        && !name.contains("//")
        && !name.chars().any(bad_char)
        && !name.starts_with('/')
        && !name.ends_with('/')
        && !name.ends_with('.')
        && !name.ends_with(".lock")
}

/// GitLab's error on one field whose ref it refuses.
fn invalid_ref(path: &[&str]) -> Value {
    json!({"message": "Ref is not valid", "locations": [{"line": 1, "column": 1}], "path": path})
}

#[cfg(test)]
mod tests {
    use super::valid_ref_name;

    #[test]
    fn ref_names_follow_gits_rules() {
        for good in ["main", "HEAD", "release/2026/q4", "v1.0", "refs/heads/main"] {
            assert!(valid_ref_name(good), "{good}");
        }
        for bad in [
            "", "a..b", "a b", "x~1", "a:b", "a/", "/a", "a//b", "x.lock", "a@{1}", "a.",
        ] {
            assert!(!valid_ref_name(bad), "{bad}");
        }
    }
}
