//! `Blame` (the aliased fields `b0`… of one file that `with<i>` includes) and the blame the
//! blob query's `blamed` field carries: groups of 10 lines, each from one of three commits, the
//! end clamped to the file as GitLab clamps it, in GitLab's shapes (`gitlab_mock::blame_group`).

use serde_json::{Map, Value, json};

use super::Asked;
use crate::gitlab::Gitlab;
use crate::gitlab::projects::Hosted;
use crate::gitlab::repository::File;
use crate::gitlab_mock::{blame_group, commit_node};

impl Gitlab {
    /// A blame of lines `from..=to` of `file`.
    pub(super) fn blame_of(&self, hosted: &Hosted, file: &File, (from, to): (u64, u64)) -> Value {
        let total = file.bytes.iter().filter(|b| **b == b'\n').count() as u64;
        let to = to.min(total.max(1));
        let mut groups = Vec::new();
        let mut line = from.max(1);
        while line <= to {
            let end = ((line - 1) / 10 * 10 + 10).min(to);
            let sha = format!("{:040x}", (line - 1) / 10 % 3 + 1);
            let mut commit = commit_node(&sha, "A change", None);
            let web = format!(
                "https://gitlab.example.com/{}/-/commit/{sha}",
                hosted.project.path
            );
            commit["webUrl"] = json!(web);
            groups.push(blame_group(line, end - line + 1, commit));
            line = end + 1;
        }
        json!({ "groups": groups })
    }

    /// `Blame`: the aliased fields of one file at a ref.
    pub(super) fn blame(&self, asked: &Asked<'_>, hosted: Option<&mut Hosted>) -> Value {
        let empty = json!({"data": {"project": {"repository": {"blobs": {"nodes": []}}}}});
        let Some(hosted) = hosted else {
            return json!({"data": {"project": null}});
        };
        let qualified = hosted.repo.resolve(asked.str("ref"), None);
        let Some(file) = qualified.and_then(|q| hosted.repo.file(&q, asked.str("path"))) else {
            return empty;
        };
        let mut node = Map::new();
        for i in (0..10).filter(|i| *i == 0 || asked.flag(&format!("with{i}"))) {
            let lines = (
                asked.line(&format!("from{i}")),
                asked.line(&format!("to{i}")),
            );
            node.insert(format!("b{i}"), self.blame_of(hosted, &file, lines));
        }
        json!({"data": {"project": {"repository": {"blobs": {"nodes": [node]}}}}})
    }
}
