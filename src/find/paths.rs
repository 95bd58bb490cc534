//! Paths mode (pure): the entries of a listing that pass the filter, after the cursor, as many
//! as the character budget holds ([`page`]), and their answer ([`PathsPage::answer`]): the
//! `entries` and the same list as text, one path a line, a directory with a trailing `/`.

use serde_json::{Map, Value, json};

use super::next::FindCursor;
use crate::source::tree::{ItemKind, TreeItem};

/// The most entries one page lists, whatever the budget.
pub(crate) const MAX_ENTRIES: usize = 5_000;

/// What one entry is charged: its JSON object and its text line (the path twice, and about
/// 48 characters of keys, kind and size).
fn charge(item: &TreeItem) -> u64 {
    2 * item.path.chars().count() as u64 + 48
}

/// A page of paths.
#[derive(Debug)]
pub(crate) struct PathsPage<'a> {
    pub entries: Vec<&'a TreeItem>,
    /// Entries that pass the filter, in all.
    pub total: usize,
    /// Entries that pass the filter and come before this page.
    pub before: usize,
    /// The last entry shown, when more follow it.
    pub next_after: Option<String>,
}

/// The page of `passing` (sorted, filtered) after `after`, within `max_chars` (0 = no budget):
/// at least one entry when any is left.
pub(crate) fn page<'a>(
    passing: &[&'a TreeItem],
    after: Option<&str>,
    max_chars: u64,
) -> PathsPage<'a> {
    let before = after.map_or(0, |a| passing.partition_point(|i| *i.path <= *a));
    let mut spent = 0u64;
    let mut entries = Vec::new();
    for item in &passing[before..] {
        let cost = charge(item);
        let over = max_chars > 0 && spent + cost > max_chars;
        if !entries.is_empty() && (over || entries.len() >= MAX_ENTRIES) {
            break;
        }
        spent += cost;
        entries.push(*item);
    }
    let more = before + entries.len() < passing.len();
    let next_after = more
        .then(|| entries.last().map(|i| i.path.to_string()))
        .flatten();
    PathsPage {
        entries,
        total: passing.len(),
        before,
        next_after,
    }
}

impl PathsPage<'_> {
    /// The output's `entries`, `truncated` and `system_instruction`, and the text form.
    pub(crate) fn answer(&self, next: &FindCursor, out: &mut Map<String, Value>) -> String {
        let entries: Vec<Value> = self
            .entries
            .iter()
            .map(|i| json!({"path": i.path, "type": i.kind.as_str(), "size": i.size}))
            .collect();
        let mut text = String::new();
        for i in &self.entries {
            text.push_str(&i.path);
            if i.kind == ItemKind::Tree {
                text.push('/');
            }
            text.push('\n');
        }
        out.insert("entries".into(), Value::Array(entries));
        out.insert("truncated".into(), self.next_after.is_some().into());
        let hint = self.hint(next);
        if !hint.is_empty() {
            text.push_str(&hint);
            text.push('\n');
            out.insert("system_instruction".into(), hint.into());
        }
        text
    }

    fn hint(&self, next: &FindCursor) -> String {
        let shown = self.entries.len();
        match &self.next_after {
            Some(after) => format!(
                "{} more paths after these {shown} (of {}). To list them, call search_repository with {}",
                self.total - self.before - shown,
                self.total,
                next.call(Some(after), None),
            ),
            None if self.total == 0 => {
                "No path matches. Check glob (a glob without '/' matches base names, e.g. '*.py'; with '/', whole paths from the root, e.g. 'src/**/*.rs') or path.".to_string()
            }
            None => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(n: usize) -> Vec<TreeItem> {
        (0..n)
            .map(|i| TreeItem {
                path: format!("d/f{i:05}.rs").into(),
                kind: ItemKind::Blob,
                oid: "0".repeat(40).into(),
                size: Some(1),
                lfs: false,
            })
            .collect()
    }

    #[test]
    fn pages_follow_each_other_without_gaps() {
        let all = items(60_000);
        let passing: Vec<&TreeItem> = all.iter().collect();
        let mut after: Option<String> = None;
        let mut seen = 0;
        let mut pages = 0;
        loop {
            let p = page(&passing, after.as_deref(), 100_000);
            assert!(!p.entries.is_empty());
            assert_eq!(p.before, seen);
            seen += p.entries.len();
            pages += 1;
            match p.next_after {
                Some(a) => after = Some(a),
                None => break,
            }
        }
        assert_eq!(seen, 60_000);
        assert!(pages > 1 && pages < 100, "{pages}");
    }

    #[test]
    fn one_entry_always_fits() {
        let all = items(3);
        let passing: Vec<&TreeItem> = all.iter().collect();
        let p = page(&passing, None, 1);
        assert_eq!(p.entries.len(), 1);
        assert_eq!(p.next_after.as_deref(), Some("d/f00000.rs"));
    }
}
