//! The stand-in's `POST /api/graphql`: each operation the server sends, answered from the
//! repository in GitLab's shapes (`../shared/gitlab/samples/`): the blob query (by full path or
//! by id, `blobs(paths:)` with the Duo rules, `commit(ref:)`, the optional `blamed` and `base`
//! fields, GitLab's 20 MiB rule), `BlobBySplits`, `MissProbe`, `Blame`, `TreeCommit`, `TreePage`
//! and the token check. A project other than the stand-in's is `project: null`, as GitLab
//! answers a missing or hidden one.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::Gitlab;
use super::deployment::{MAX_BLOBS_SIZE, old_refusals, too_complex, too_large};
use super::faults::{BentText, next};
use super::repository::{Entry, File, Repository};
use crate::gitlab_mock::{blame_group, commit_node, git_blob_id};

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

    /// The answer's bytes, each placeholder replaced by its file's text.
    pub fn render(&self) -> Vec<u8> {
        let mut text = self.value.to_string();
        for file in &self.texts {
            text = text.replacen(&placeholder_json(file), file.text_json(), 1);
        }
        text.into_bytes()
    }
}

fn placeholder(file: &File) -> String {
    format!("\u{1}{}", file.oid)
}

fn placeholder_json(file: &File) -> String {
    format!("\"\\u0001{}\"", file.oid)
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

    fn by_id(&self) -> bool {
        self.flag("byId") || (self.vars.get("byId").is_none() && self.query.contains("projects("))
    }

    fn paths(&self) -> Vec<&str> {
        let mut paths: Vec<&str> = self.vars["paths"]
            .as_array()
            .map(|p| p.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if paths.is_empty() {
            paths.extend(self.vars["p0"].as_str());
        }
        paths
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
    /// The answer to a GraphQL request body, as this GitLab gives it.
    pub(super) fn graphql_answer(&self, body: &Value) -> Answer {
        let asked = Asked {
            operation_name: body["operationName"].as_str(),
            query: body["query"].as_str().unwrap_or_default(),
            vars: &body["variables"],
        };
        if let Some(refused) = self.refusal(&asked) {
            return Answer::of(refused);
        }
        match asked.operation() {
            "BlobBySplits" => self.splits(&asked),
            "MissProbe" => Answer::of(self.probe(&asked)),
            "Blame" => Answer::of(self.blame(&asked)),
            "TreeCommit" => Answer::of(self.tree_commit(&asked)),
            "TreePage" => Answer::of(self.tree_page(&asked)),
            // Scripted documents of older tests name their operation otherwise.
            _ if asked.query.contains("blobs(") => self.blobs(&asked),
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

    fn is_ours(&self, asked: &Asked<'_>) -> bool {
        if asked.by_id() {
            let gid = json!(self.project.gid());
            asked
                .var("ids")
                .as_array()
                .is_some_and(|ids| ids.contains(&gid))
        } else {
            asked.str("projectPath") == self.project.path
        }
    }

    /// `{"data": {"project": …}}` (or `projects.nodes` by id), `null` for another project.
    fn wrap(&self, asked: &Asked<'_>, project: Option<Value>) -> Value {
        match (asked.by_id(), project) {
            (true, Some(p)) => json!({"data": {"projects": {"nodes": [p]}}}),
            (true, None) => json!({"data": {"projects": {"nodes": []}}}),
            (false, p) => json!({"data": {"project": p}}),
        }
    }

    /// The project's own fields the document names, around `repository`.
    fn project_fields(&self, asked: &Asked<'_>, repository: Value) -> Value {
        let mut project = json!({"id": self.project.gid(), "fullPath": self.project.path,
            "repository": repository});
        if asked.query.contains("duoContextExclusionSettings") {
            let rules = self.rules.clone().unwrap_or_default();
            project["duoContextExclusionSettings"] = json!({ "exclusionRules": rules });
        }
        project
    }

    /// A blob's node as GitLab builds it, its text a placeholder until rendered.
    fn node(
        &self,
        repo: &Repository,
        qualified: &str,
        path: &str,
        file: &Arc<File>,
        content: bool,
        answer: &mut Answer,
    ) -> Value {
        let raw_size = self.raw_sizes.lock().unwrap().get(path).copied();
        let mut node = json!({
            "oid": file.oid, "path": path,
            "size": file.blob.len().to_string(),
            "rawSize": raw_size.unwrap_or(file.bytes.len()).to_string(),
            "storedExternally": file.lfs, "externalStorage": file.lfs.then_some("lfs"),
            "lfsOid": file.sha,
        });
        if !self.old {
            let commit = repo.commit_of(qualified);
            node["permalinkPath"] = json!(format!("/{}/-/blob/{commit}/{path}", self.project.path));
        }
        if content {
            node["rawTextBlob"] = match (file.text(), next(&self.texts)) {
                (Some(_), Some(BentText::Null)) | (None, _) => Value::Null,
                (Some(text), Some(BentText::Short)) => json!(&text[..text.len() / 2]),
                (Some(_), None) => {
                    answer.texts.push(Arc::clone(file));
                    json!(placeholder(file))
                }
            };
        }
        node
    }

    /// The blob query: `blobs(paths:)` at `ref`, with what else the document asks.
    fn blobs(&self, asked: &Asked<'_>) -> Answer {
        let mut answer = Answer::default();
        if !self.is_ours(asked) {
            answer.value = self.wrap(asked, None);
            return answer;
        }
        let repo = self.repo.lock().unwrap();
        let content = asked.var("withContent") != &json!(false);
        let paths = asked.paths();
        let qualified = repo.resolve(asked.str("ref"), asked.var("refType").as_str());
        let found: Vec<(&str, Arc<File>)> = paths
            .iter()
            .filter_map(|p| Some((*p, repo.file(qualified.as_deref()?, p)?)))
            .collect();
        let total: usize = found.iter().map(|(_, f)| f.blob.len()).sum();
        let cap = self.cap.unwrap_or(MAX_BLOBS_SIZE);
        if content && paths.len() > 1 && total > cap {
            let message = too_large(total, cap);
            self.log.lock().unwrap().refused.push(message.clone());
            let project = self.project_fields(asked, json!({ "blobs": null }));
            let mut value = self.wrap(asked, Some(project));
            value["errors"] =
                json!([{"message": message, "path": ["project", "repository", "blobs"]}]);
            answer.value = value;
            return answer;
        }
        let q = qualified.as_deref().unwrap_or_default();
        let nodes: Vec<Value> = found
            .iter()
            .map(|(p, f)| self.node(&repo, q, p, f, content, &mut answer))
            .collect();
        let mut repository = json!({"blobs": {"nodes": nodes}});
        if asked.flag("withBase") {
            let base = repo.resolve(asked.str("baseRef"), None);
            let nodes: Vec<Value> = paths
                .iter()
                .filter_map(|p| {
                    let b = base.as_deref()?;
                    Some(self.node(&repo, b, p, &repo.file(b, p)?, content, &mut answer))
                })
                .collect();
            repository["base"] = json!({ "nodes": nodes });
        }
        if asked.flag("withBlame") {
            let lines = (line(asked.var("blameFrom")), line(asked.var("blameTo")));
            let nodes: Vec<Value> = found
                .first()
                .map(|(_, f)| json!({"blame": self.blame_of(f, lines)}))
                .into_iter()
                .collect();
            repository["blamed"] = json!({ "nodes": nodes });
        }
        if asked.query.contains("commit(") && !self.old {
            repository["commit"] = json!(
                qualified
                    .as_ref()
                    .map(|q| json!({"sha": repo.commit_of(q)}))
            );
        }
        answer.value = self.wrap(asked, Some(self.project_fields(asked, repository)));
        answer
    }

    /// `BlobBySplits`: for each candidate `i`, the blob `p<i>` at ref `r<i>` as `b<i>`, and
    /// whether `h<i>` / `t<i>` (a branch, a tag) exist as commits.
    fn splits(&self, asked: &Asked<'_>) -> Answer {
        let content = asked.var("withContent") != &json!(false);
        let repo = self.repo.lock().unwrap();
        let mut answer = Answer::default();
        let mut repository = Map::new();
        for i in 0..=64 {
            let Some(git_ref) = asked.var(&format!("r{i}")).as_str() else {
                continue;
            };
            let path = asked.var(&format!("p{i}"))[0].as_str().unwrap_or_default();
            let qualified = repo.resolve(git_ref, asked.var("refType").as_str());
            let nodes: Vec<Value> = qualified
                .iter()
                .filter_map(|q| {
                    Some(self.node(&repo, q, path, &repo.file(q, path)?, content, &mut answer))
                })
                .collect();
            repository.insert(format!("b{i}"), json!({ "nodes": nodes }));
            for kind in ["h", "t"] {
                if let Some(r) = asked.var(&format!("{kind}{i}")).as_str() {
                    let sha = repo
                        .ref_exists(r)
                        .then(|| json!({"sha": repo.commit_of(r)}));
                    repository.insert(format!("{kind}{i}"), sha.unwrap_or(Value::Null));
                }
            }
        }
        answer.value =
            json!({"data": {"project": self.project_fields(asked, Value::Object(repository))}});
        answer
    }

    /// A directory's direct entries as `tree(ref:, path:)` lists them (a page of 100 of each kind).
    fn listing(repo: &Repository, qualified: Option<&str>, dir: &str) -> Value {
        let (trees, blobs) = qualified.map(|q| repo.children(q, dir)).unwrap_or_default();
        let names = |v: Vec<String>| {
            let more = v.len() > 100;
            let nodes: Vec<Value> = v
                .into_iter()
                .take(100)
                .map(|n| json!({"name": n}))
                .collect();
            json!({"nodes": nodes, "pageInfo": {"hasNextPage": more}})
        };
        json!({"trees": names(trees), "blobs": names(blobs)})
    }

    /// `MissProbe`: whether the ref exists, and what the path and its parents hold.
    fn probe(&self, asked: &Asked<'_>) -> Value {
        if !self.is_ours(asked) {
            return json!({"data": {"project": null}});
        }
        let repo = self.repo.lock().unwrap();
        let qualified = repo.resolve(asked.str("ref"), None);
        let q = qualified.as_deref();
        let mut root = Self::listing(&repo, q, "");
        root["lastCommit"] = json!(q.map(|q| json!({"sha": repo.commit_of(q)})));
        let mut repository =
            json!({"root": root, "dir": Self::listing(&repo, q, asked.str("path"))});
        for level in ["up0", "up1", "up2"] {
            if asked.flag(&format!("withUp{}", &level[2..])) {
                repository[level] = Self::listing(&repo, q, asked.str(level));
            }
        }
        json!({"data": {"project": {"repository": repository}}})
    }

    /// A blame of lines `from..=to` (the end clamped to the file, as GitLab clamps it): groups
    /// of 10 lines, each from one of three commits.
    fn blame_of(&self, file: &File, (from, to): (u64, u64)) -> Value {
        let total = file.bytes.iter().filter(|b| **b == b'\n').count() as u64;
        let to = to.min(total.max(1));
        let mut groups = Vec::new();
        let mut line = from.max(1);
        while line <= to {
            let end = ((line - 1) / 10 * 10 + 10).min(to);
            let sha = format!("{:040x}", (line - 1) / 10 % 3 + 1);
            let mut commit = commit_node(&sha, "A change", None);
            commit["webUrl"] = json!(format!(
                "https://gitlab.example.com/{}/-/commit/{sha}",
                self.project.path
            ));
            groups.push(blame_group(line, end - line + 1, commit));
            line = end + 1;
        }
        json!({ "groups": groups })
    }

    /// `Blame`: the aliased fields `b0`… (those `with<i>` includes) of one file.
    fn blame(&self, asked: &Asked<'_>) -> Value {
        let repo = self.repo.lock().unwrap();
        let file = repo
            .resolve(asked.str("ref"), None)
            .and_then(|q| repo.file(&q, asked.str("path")));
        let Some(file) = file.filter(|_| self.is_ours(asked)) else {
            return json!({"data": {"project": {"repository": {"blobs": {"nodes": []}}}}});
        };
        let mut node = Map::new();
        for i in (0..10).filter(|i| *i == 0 || asked.flag(&format!("with{i}"))) {
            let lines = (
                line(asked.var(&format!("from{i}"))),
                line(asked.var(&format!("to{i}"))),
            );
            node.insert(format!("b{i}"), self.blame_of(&file, lines));
        }
        json!({"data": {"project": {"repository": {"blobs": {"nodes": [node]}}}}})
    }

    /// `TreeCommit`: the project, its Duo rules and the ref's commit (null for a missing ref).
    fn tree_commit(&self, asked: &Asked<'_>) -> Value {
        if !self.is_ours(asked) {
            return self.wrap(asked, None);
        }
        let repo = self.repo.lock().unwrap();
        let sha = repo
            .resolve(asked.str("ref"), None)
            .map(|q| json!({"sha": repo.commit_of(&q)}));
        let repository = json!({"commit": sha, "tree": {"lastCommit": sha}});
        self.wrap(asked, Some(self.project_fields(asked, repository)))
    }

    /// `TreePage`: `paginatedTree` of at most 100 entries a page, trees first as Gitaly sorts
    /// them, `endCursor` "" on the last page.
    fn tree_page(&self, asked: &Asked<'_>) -> Value {
        if !self.is_ours(asked) {
            return self.wrap(asked, None);
        }
        let mut repo = self.repo.lock().unwrap();
        let qualified = repo.resolve(asked.str("ref"), None).unwrap_or_default();
        let all = repo.listing(&qualified, asked.str("path"));
        let start: usize = asked.str("after").parse().unwrap_or(0);
        let end = (start + 100).min(all.len());
        let (mut trees, mut blobs) = (Vec::new(), Vec::new());
        for entry in &all[start.min(end)..end] {
            match entry {
                Entry::Tree(p) => trees.push(json!({"path": p, "sha": git_blob_id(p.as_bytes())})),
                Entry::Blob(p, f) => blobs.push(json!({"path": p, "sha": f.oid, "lfsOid": f.sha})),
            }
        }
        let more = end < all.len();
        json!({"data": {"project": {"repository": {"paginatedTree": {
            "pageInfo": {"endCursor": if more { end.to_string() } else { String::new() }, "hasNextPage": more},
            "nodes": [{"trees": {"nodes": trees}, "blobs": {"nodes": blobs}}]
        }}}}})
    }
}

fn line(value: &Value) -> u64 {
    value.as_u64().unwrap_or(1)
}
