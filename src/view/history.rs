//! The history view: the commits that changed a file, newest first, one line each in
//! `content` and described in `metadata.history`, each with the arguments of the `diff_from`
//! call that shows its change to the file; a hint names the next page's arguments.

use serde::Serialize;
use serde_json::{Value, json};

use super::error::ViewError;
use super::read::Read;
use super::rendered::Rendered;
use crate::resolve::HistoryArgs;
use crate::source::views::{Commit, CommitPage};

/// One commit of `metadata.history`.
#[derive(Debug, Serialize)]
struct HistoryEntry<'a> {
    sha: &'a str,
    title: &'a str,
    author_name: &'a str,
    authored_date: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    web_url: Option<&'a str>,
    /// The arguments that show this commit's change to the file.
    diff_call: Value,
}

/// Renders a page of the file's history (`page`, asked with `args`) as the output object.
pub(super) fn render_history(
    args: HistoryArgs,
    page: &CommitPage,
    read: &Read,
) -> Result<Rendered, ViewError> {
    let blob = &read.fetched.blob;
    if page.commits.is_empty() {
        return Err(if args.offset > 0 {
            ViewError::HistoryPastEnd {
                offset: args.offset,
            }
        } else {
            ViewError::NoHistory {
                path: blob.path.clone(),
                git_ref: blob.git_ref.clone(),
            }
        });
    }
    let project = read.fetched.project.as_deref();
    let entries: Vec<HistoryEntry<'_>> = page
        .commits
        .iter()
        .map(|c| entry(c, project, &blob.path))
        .collect();
    let content: String = page.commits.iter().map(line).collect();
    let returned = page.commits.len() as u64;
    let next = page.more.then(|| {
        format!(
            "Older commits follow: call again with history: true, offset: {}, limit: {}. Pass an entry's diff_call arguments to see what that commit changed in the file.",
            args.offset + returned,
            args.limit
        )
    });
    let instruction = next.unwrap_or_else(|| {
        "This is the oldest commit that changed the file at this path (renames are not followed). Pass an entry's diff_call arguments to see what that commit changed.".to_string()
    });
    let output = json!({
        "path": blob.path,
        "ref": blob.git_ref,
        "system_instruction": instruction,
        "metadata": {
            "total_lines": returned,
            "returned_lines": { "start": 1, "end": returned },
            "truncated": page.more,
            "size_bytes": blob.size_bytes,
            "blob_id": blob.id,
            "commit_sha": blob.commit_sha,
            "history": entries,
        },
        "content": content,
    });
    Rendered::of(output, content.chars().count())
}

/// A commit's entry: its facts, and the call that shows its change (from its first parent; a
/// root commit added the file).
fn entry<'a>(commit: &'a Commit, project: Option<&str>, path: &str) -> HistoryEntry<'a> {
    let call = diff_call(commit, project, path);
    HistoryEntry {
        sha: &commit.sha,
        title: &commit.title,
        author_name: &commit.author_name,
        authored_date: &commit.authored_date,
        web_url: commit.web_url.as_deref(),
        diff_call: call,
    }
}

/// The arguments of the call that shows `commit`'s change to the file: the diff from its
/// first parent (a root commit added the file: the file at the commit).
pub(super) fn diff_call(commit: &Commit, project: Option<&str>, path: &str) -> Value {
    let mut call = json!({ "file_path": path, "ref": commit.sha });
    if let Some(project) = project {
        call["project_id"] = project.into();
    }
    if let Some(parent) = &commit.parent_sha {
        call["diff_from"] = parent.as_str().into();
    }
    call
}

/// A commit's line in `content`: short sha, date, author, title.
fn line(commit: &Commit) -> String {
    let short = commit.sha.get(..12).unwrap_or(&commit.sha);
    format!(
        "{short} {} {}: {}\n",
        commit.authored_date, commit.author_name, commit.title
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(sha: &str, parent: Option<&str>) -> Commit {
        Commit {
            sha: sha.into(),
            title: "Fix it".into(),
            author_name: "Ann".into(),
            authored_date: "2024-05-01T12:00:00+02:00".into(),
            parent_sha: parent.map(str::to_string),
            web_url: None,
        }
    }

    #[test]
    fn an_entry_names_the_call_that_shows_its_change() {
        let c = commit("b".repeat(40).as_str(), Some(&"a".repeat(40)));
        let e = entry(&c, Some("g/p"), "src/x.rs");
        assert_eq!(
            e.diff_call,
            json!({"file_path": "src/x.rs", "ref": "b".repeat(40), "project_id": "g/p", "diff_from": "a".repeat(40)})
        );
        let root = commit("c".repeat(40).as_str(), None);
        assert!(entry(&root, None, "x").diff_call.get("diff_from").is_none());
        assert_eq!(
            line(&c),
            format!("{} 2024-05-01T12:00:00+02:00 Ann: Fix it\n", "b".repeat(12))
        );
    }
}
