//! The diff view (`diff_from`): the changes to the file from another ref to the ref read, as a
//! unified diff with hunk headers (`@@ -a,b +c,d @@`, both sides' line numbers), computed by
//! `similar` (Myers, with a deadline past which it settles for a coarser diff) and windowed
//! over its lines like a read (same budget, same hints). `metadata.diff` names both commits
//! and counts the lines added and removed. An added file is diffed from nothing and said so;
//! identical and binary (or LFS) files are answered in one sentence, without content.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use similar::{Algorithm, ChangeTag, TextDiff};

use super::error::ViewError;
use super::read::Read;
use super::rendered::Rendered;
use crate::resolve::Target;
use crate::response;
use crate::source::views::DiffBase;
use crate::source::{BlobKind, Fetched};
use crate::window::{self, LineRequest};

/// How long the diff may search for the smallest edit before it settles for a coarser one.
const DIFF_DEADLINE: Duration = Duration::from_secs(2);

/// What both sides hold.
enum Sides<'a> {
    Texts {
        old: &'a str,
        new: &'a str,
    },
    /// One side is binary or stored in LFS.
    NotText,
    Identical,
}

/// The diff from `base` to the read's file, windowed by `lines`.
pub(super) fn render_diff<L>(
    lines: LineRequest,
    base: Option<&DiffBase>,
    target: &Target<L>,
    read: &Read,
) -> Result<Rendered, ViewError> {
    let base = base.ok_or(ViewError::NotAsked)?;
    let new = &read.fetched;
    let old = base.file.as_ref();
    match sides(old, new) {
        Sides::Identical => sentence_only(base, read, 0, 0, identical(base, new)),
        Sides::NotText => sentence_only(base, read, 0, 0, binary(base, new)),
        Sides::Texts {
            old: old_text,
            new: new_text,
        } => {
            let (diff, added, removed) = unified(old_text, new_text, base, new);
            let fitted =
                window::fit_window(&diff, lines, read.fit(target)).map_err(ViewError::Window)?;
            let facts = read.facts(target, false);
            let mut output = serde_json::to_value(response::file_output(facts, &fitted))
                .map_err(ViewError::Output)?;
            output["metadata"]["diff"] = diff_meta(base, new, added, removed);
            if old.is_none() {
                let said = format!(
                    "'{}' does not exist at '{}': it was added since (or renamed: renames are not followed), so every line is added.",
                    new.blob.path, base.git_ref
                );
                prefix_hint(&mut output, &said);
            }
            Rendered::of(output, fitted.charged_chars())
        }
    }
}

fn sides<'a>(old: Option<&'a Fetched>, new: &'a Fetched) -> Sides<'a> {
    let text = |f: &'a Fetched| match &f.blob.kind {
        BlobKind::Text { content, .. } => Some(content.as_str()),
        _ => None,
    };
    if old.is_some_and(|o| o.blob.id.is_some() && o.blob.id == new.blob.id) {
        return Sides::Identical;
    }
    match (old.map(text), text(new)) {
        (Some(Some(old)), Some(new)) => Sides::Texts { old, new },
        (None, Some(new)) => Sides::Texts { old: "", new },
        _ => Sides::NotText,
    }
}

/// The unified diff of `old` to `new` (3 lines of context), and the lines added and removed.
fn unified(old: &str, new: &str, base: &DiffBase, file: &Fetched) -> (String, u64, u64) {
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .deadline(Instant::now() + DIFF_DEADLINE)
        .diff_lines(old, new);
    let (mut added, mut removed) = (0u64, 0u64);
    for change in diff.iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    let path = &file.blob.path;
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(
            &format!("{}:{path}", base.git_ref),
            &format!("{}:{path}", file.blob.git_ref),
        )
        .to_string();
    (text, added, removed)
}

fn diff_meta(base: &DiffBase, new: &Fetched, added: u64, removed: u64) -> Value {
    json!({
        "from_ref": base.git_ref,
        "from_commit_sha": base.file.as_ref().and_then(|f| f.blob.commit_sha.as_deref()),
        "to_commit_sha": new.blob.commit_sha,
        "added": added,
        "removed": removed,
    })
}

fn identical(base: &DiffBase, new: &Fetched) -> String {
    format!(
        "'{}' is identical at '{}' and '{}' (blob {}): nothing changed.",
        new.blob.path,
        base.git_ref,
        new.blob.git_ref,
        new.blob.id.as_deref().unwrap_or("?")
    )
}

fn binary(base: &DiffBase, new: &Fetched) -> String {
    let old = base.file.as_ref().map_or("no file".to_string(), |f| {
        format!("{} bytes", f.blob.size_bytes)
    });
    format!(
        "'{}' is binary or stored in LFS, so no line diff is shown: {old} at '{}', {} bytes at '{}'.",
        new.blob.path, base.git_ref, new.blob.size_bytes, new.blob.git_ref
    )
}

/// An answer that is one sentence: no content, the diff's facts.
fn sentence_only(
    base: &DiffBase,
    read: &Read,
    added: u64,
    removed: u64,
    sentence: String,
) -> Result<Rendered, ViewError> {
    let new = &read.fetched;
    let output = json!({
        "path": new.blob.path,
        "ref": new.blob.git_ref,
        "system_instruction": sentence,
        "metadata": {
            "total_lines": 0,
            "returned_lines": null,
            "truncated": false,
            "size_bytes": new.blob.size_bytes,
            "blob_id": new.blob.id,
            "commit_sha": new.blob.commit_sha,
            "diff": diff_meta(base, new, added, removed),
        },
        "content": "",
    });
    Rendered::of(output, 0)
}

fn prefix_hint(output: &mut Value, said: &str) {
    let hint = match output.get("system_instruction").and_then(Value::as_str) {
        Some(h) => format!("{said} {h}"),
        None => said.to_string(),
    };
    output["system_instruction"] = hint.into();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::blob::Blob;
    use std::sync::Arc;

    fn fetched(git_ref: &str, text: &str) -> Fetched {
        Fetched {
            blob: Blob {
                path: "f.txt".into(),
                git_ref: git_ref.into(),
                size_bytes: text.len() as u64,
                kind: BlobKind::Text {
                    content: Arc::new(text.into()),
                    cut_by_read_limit: false,
                },
                id: Some(format!("{:x}", text.len())),
                commit_sha: None,
            },
            project: None,
            split_fallback_from: None,
            web_url: None,
            language: None,
        }
    }

    #[test]
    fn a_unified_diff_has_hunk_headers_and_counts() {
        let base = DiffBase {
            git_ref: "v1".into(),
            file: Some(fetched("v1", "a\nb\nc\n")),
        };
        let new = fetched("main", "a\nB\nc\nd\n");
        let (text, added, removed) = unified("a\nb\nc\n", "a\nB\nc\nd\n", &base, &new);
        assert_eq!((added, removed), (2, 1));
        assert!(
            text.starts_with("--- v1:f.txt\n+++ main:f.txt\n@@ -1,3 +1,4 @@\n"),
            "{text}"
        );
        assert!(text.contains("-b\n+B\n"));
    }
}
