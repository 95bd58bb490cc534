//! The blob query (`blobs(paths:)` at `ref`, by full path or by id, with the Duo rules,
//! `commit(ref:)`, the optional `blamed` and `base` fields and GitLab's 20 MiB rule on full
//! sizes) and `BlobBySplits` (a URL's candidate ref/path splits, each its own alias), and the
//! blob node both answer with.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{Answer, Asked, invalid_ref};
use crate::gitlab::Gitlab;
use crate::gitlab::deployment::{MAX_BLOBS_SIZE, too_large};
use crate::gitlab::faults::{BentText, next};
use crate::gitlab::projects::Hosted;
use crate::gitlab::repository::File;
use crate::gitlab_mock::blob_node;

impl Gitlab {
    /// A blob's node as GitLab builds it, its text a placeholder until rendered.
    fn node(
        &self,
        hosted: &Hosted,
        at: (&str, &str),
        file: &Arc<File>,
        answer: &mut Answer,
        content: bool,
    ) -> Value {
        let (qualified, path) = at;
        let raw_size = self.raw_sizes.lock().unwrap().get(path).copied();
        let raw_size = raw_size.unwrap_or(file.bytes.len());
        let mut node = blob_node(
            path,
            &file.oid,
            file.blob.len(),
            raw_size,
            file.sha.as_deref(),
        );
        if !self.old {
            let commit = hosted.repo.commit_of(qualified);
            let project = &hosted.project.path;
            node["permalinkPath"] =
                json!(format!("{}/{project}/-/blob/{commit}/{path}", self.root));
        }
        if content {
            node["rawTextBlob"] = match (file.text(), next(&self.texts)) {
                (Some(_), Some(BentText::Null)) | (None, _) => Value::Null,
                (Some(text), Some(BentText::Short)) => json!(&text[..text.len() / 2]),
                (Some(_), None) => answer.text_of(file),
            };
        }
        node
    }

    /// The nodes of `paths` at ref `name`, or `None` for a ref GitLab refuses.
    fn nodes_at(
        &self,
        asked: &Asked<'_>,
        hosted: &Hosted,
        name: &str,
        paths: &[&str],
        answer: &mut Answer,
    ) -> Option<Vec<Value>> {
        if self.refuses_ref(name) {
            return None;
        }
        let content = asked.var("withContent") != &json!(false);
        let qualified = hosted.repo.resolve(name, asked.var("refType").as_str());
        let nodes = paths
            .iter()
            .filter_map(|p| {
                let q = qualified.as_deref()?;
                let file = hosted.repo.file(q, p)?;
                Some(self.node(hosted, (q, p), &file, answer, content))
            })
            .collect();
        Some(nodes)
    }

    /// GitLab's 20 MiB rule: a multi-path content request past the cap, refused.
    fn past_cap(&self, asked: &Asked<'_>, hosted: &Hosted, paths: &[&str]) -> Option<String> {
        let content = asked.var("withContent") != &json!(false);
        let qualified = hosted
            .repo
            .resolve(asked.str("ref"), asked.var("refType").as_str())?;
        let total: usize = paths
            .iter()
            .filter_map(|p| hosted.repo.file(&qualified, p))
            .map(|f| f.blob.len())
            .sum();
        let cap = self.cap.unwrap_or(MAX_BLOBS_SIZE);
        (content && paths.len() > 1 && total > cap).then(|| too_large(total, cap))
    }

    /// The blob query: `blobs(paths:)` at `ref`, with what else the document asks.
    pub(super) fn blobs(&self, asked: &Asked<'_>, hosted: Option<&mut Hosted>) -> Answer {
        let mut answer = Answer::default();
        let Some(hosted) = hosted else {
            answer.value = self.wrap(asked, None);
            return answer;
        };
        let paths = paths(asked);
        let mut errors = Vec::new();
        let mut repository = Map::new();
        if let Some(message) = self.past_cap(asked, hosted, &paths) {
            self.log.lock().unwrap().refused.push(message.clone());
            errors.push(json!({"message": message, "path": ["project", "repository", "blobs"]}));
            repository.insert("blobs".into(), Value::Null);
        } else {
            let blobs = self.nodes_at(asked, hosted, asked.str("ref"), &paths, &mut answer);
            self.field(&mut repository, &mut errors, "blobs", blobs);
        }
        if asked.flag("withBase") {
            let base = self.nodes_at(asked, hosted, asked.str("baseRef"), &paths, &mut answer);
            self.field(&mut repository, &mut errors, "base", base);
        }
        if asked.flag("withBlame") && !self.refuses_ref(asked.str("ref")) {
            let lines = (asked.line("blameFrom"), asked.line("blameTo"));
            let qualified = hosted
                .repo
                .resolve(asked.str("ref"), asked.var("refType").as_str());
            let first = paths
                .first()
                .zip(qualified)
                .and_then(|(p, q)| hosted.repo.file(&q, p));
            let nodes: Vec<Value> = first
                .map(|f| json!({"blame": self.blame_of(hosted, &f, lines)}))
                .into_iter()
                .collect();
            repository.insert("blamed".into(), json!({ "nodes": nodes }));
        }
        if asked.query.contains("commit(") && !self.old {
            let commit = hosted.repo.resolve(asked.str("ref"), None);
            let sha = commit.map(|q| json!({"sha": hosted.repo.commit_of(&q)}));
            repository.insert("commit".into(), json!(sha));
        }
        let project = self.project_fields(asked, hosted, Value::Object(repository));
        answer.value = self.wrap(asked, Some(project));
        if !errors.is_empty() {
            answer.value["errors"] = json!(errors);
        }
        answer
    }

    /// A repository field: its nodes, or `null` and GitLab's error for a refused ref.
    fn field(
        &self,
        repository: &mut Map<String, Value>,
        errors: &mut Vec<Value>,
        alias: &str,
        nodes: Option<Vec<Value>>,
    ) {
        match nodes {
            Some(nodes) => repository.insert(alias.into(), json!({ "nodes": nodes })),
            None => {
                errors.push(invalid_ref(&["project", "repository", alias]));
                repository.insert(alias.into(), Value::Null)
            }
        };
    }

    /// `BlobBySplits`: for each candidate `i`, the blob `p<i>` at ref `r<i>` as `b<i>`, and
    /// whether `h<i>` / `t<i>` (a branch, a tag) exist as commits.
    pub(super) fn splits(&self, asked: &Asked<'_>, hosted: Option<&mut Hosted>) -> Answer {
        let mut answer = Answer::default();
        let Some(hosted) = hosted else {
            answer.value = self.wrap(asked, None);
            return answer;
        };
        let mut repository = Map::new();
        let mut errors = Vec::new();
        for i in 0..=64 {
            let Some(git_ref) = asked.var(&format!("r{i}")).as_str() else {
                continue;
            };
            let path = asked.var(&format!("p{i}"))[0].as_str().unwrap_or_default();
            let nodes = self.nodes_at(asked, hosted, git_ref, &[path], &mut answer);
            self.field(&mut repository, &mut errors, &format!("b{i}"), nodes);
            for kind in ["h", "t"] {
                let Some(r) = asked.var(&format!("{kind}{i}")).as_str() else {
                    continue;
                };
                let alias = format!("{kind}{i}");
                if self.refuses_ref(r) {
                    self.field(&mut repository, &mut errors, &alias, None);
                    continue;
                }
                let sha = hosted
                    .repo
                    .ref_exists(r)
                    .then(|| json!({"sha": hosted.repo.commit_of(r)}));
                repository.insert(alias, sha.unwrap_or(Value::Null));
            }
        }
        let project = self.project_fields(asked, hosted, Value::Object(repository));
        answer.value = json!({"data": {"project": project}});
        if !errors.is_empty() {
            answer.value["errors"] = json!(errors);
        }
        answer
    }
}

/// The paths a blob query asks: `paths`, or an older document's `p0`.
fn paths<'a>(asked: &Asked<'a>) -> Vec<&'a str> {
    let mut paths: Vec<&str> = asked.vars["paths"]
        .as_array()
        .map(|p| p.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if paths.is_empty() {
        paths.extend(asked.vars["p0"].as_str());
    }
    paths
}
