//! What `get_repository_files` says beyond the single tool's sentences: the hint of an entry
//! the shared budget did not reach, and the answer's `index`, a short line per entry sent
//! before the entries (path, status, hint), so a client that keeps only the head of a long
//! answer (Claude Code's 2,000-character preview of a result it saved) sees every entry.

use serde_json::{Map, Value};

use super::limit::SharedLimit;
use super::message::message_bytes;
use crate::base::quote::shown;
use crate::limits::MAX_MESSAGE_BYTES;

/// The most characters the index's compact JSON takes when its hints are shortened to fit: the
/// rest of a 2,000-character preview is room for `{"index":` before it.
pub(crate) const INDEX_CHARS: usize = 1_950;

/// The fewest characters an index hint is cut to, however many entries share the index.
const MIN_HINT_CHARS: usize = 24;

/// The `system_instruction` of an entry not read because the entries before it spent the
/// call's shared budget, `limit`; `arguments` read it with `get_repository_file`.
pub(crate) fn not_read(limit: SharedLimit, arguments: &Value) -> String {
    format!(
        "Not read: the entries before this one used {}. To read it, call get_repository_file with {arguments}, or call get_repository_files again with the entries not read.",
        limit.words()
    )
}

/// `answer` (`{"index", "files"}`) with each entry's `path` and `ref` quoted as an error quotes
/// them (at most 100 characters) when its message would pass [`MAX_MESSAGE_BYTES`]: the
/// content was already fitted (`message::within_one_message`), so what is left is the paths
/// and refs, echoed whole in each entry (20 entries of a 4,096-character path of `"\`, each
/// character sent as up to 6 bytes, made 1.8 MB). An answer within the bound keeps them whole.
pub(crate) fn within_the_bound(mut answer: Value) -> Value {
    if message_bytes(&answer) <= MAX_MESSAGE_BYTES {
        return answer;
    }
    let files = answer.get_mut(FILES_KEY).and_then(Value::as_array_mut);
    for file in files.into_iter().flatten() {
        for key in ["path", "ref"] {
            if let Some(Value::String(s)) = file.get_mut(key) {
                *s = shown(s);
            }
        }
    }
    answer
}

/// The key of the entries in the batch's answer.
const FILES_KEY: &str = "files";

/// What became of an entry, as the index says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// Everything the entry asked for is in its content.
    Complete,
    /// More is left to read (the window or the page of matches is not all): the hint says how.
    Partial,
    /// The file is still the blob the entry held (`if_none_match`): no content.
    Unchanged,
    /// The shared budget was spent before this entry: no content, the hint says how to read it.
    NotRead,
    /// The entry could not be read: the hint is why.
    Error,
}

impl Status {
    /// Every status, as the output schema lists them.
    pub(crate) const ALL: [Status; 5] = [
        Status::Complete,
        Status::Partial,
        Status::Unchanged,
        Status::NotRead,
        Status::Error,
    ];

    /// The status as the index writes it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Status::Complete => "complete",
            Status::Partial => "partial",
            Status::Unchanged => "unchanged",
            Status::NotRead => "not_read",
            Status::Error => "error",
        }
    }
}

/// One line of the index.
#[derive(Debug, Clone, PartialEq, Eq)]
struct IndexEntry {
    path: Value,
    status: Status,
    hint: Option<String>,
}

impl IndexEntry {
    /// `{"path", "status", "hint"}`, the hint only when there is one.
    fn to_value(&self) -> Value {
        let mut line = Map::new();
        line.insert("path".into(), self.path.clone());
        line.insert("status".into(), self.status.as_str().into());
        if let Some(hint) = &self.hint {
            line.insert("hint".into(), hint.as_str().into());
        }
        Value::Object(line)
    }
}

/// The key of the index in the batch's answer, sent before the entries.
pub(crate) const INDEX: &str = "index";

/// The index of the entries' answers `files`, as the batch's answer sends it; `complete` says
/// of each entry rendered with content whether it holds all the entry asked for (`None` for
/// the others, and where it is not known: then `metadata.truncated` says).
pub(crate) fn index(files: &[Value], complete: &[Option<bool>]) -> Value {
    let lines = index_of(files, complete);
    Value::Array(lines.iter().map(IndexEntry::to_value).collect())
}

/// The index of `files`: each entry's path, status and hint, the hints cut to an equal share of
/// [`INDEX_CHARS`] when they do not all fit whole.
fn index_of(files: &[Value], complete: &[Option<bool>]) -> Vec<IndexEntry> {
    let known = complete.iter().copied().chain(std::iter::repeat(None));
    let mut index: Vec<IndexEntry> = files
        .iter()
        .zip(known)
        .map(|(file, complete)| entry_of(file, complete))
        .collect();
    if compact_len(&index) > INDEX_CHARS {
        for entry in &mut index {
            entry.hint = entry.hint.take().map(|h| digest(&h));
        }
    }
    let whole = compact_len(&index);
    let with_hint = index.iter().filter(|e| e.hint.is_some()).count();
    if whole > INDEX_CHARS && with_hint > 0 {
        let hints: usize = index
            .iter()
            .filter_map(|e| e.hint.as_deref())
            .map(escaped_len)
            .sum();
        let share = (INDEX_CHARS.saturating_sub(whole - hints) / with_hint).max(MIN_HINT_CHARS);
        for entry in &mut index {
            entry.hint = entry.hint.take().map(|h| shortened(&h, share));
        }
    }
    index
}

/// A hint that names a call, shortened to that call's arguments, compact (`{"offset":500,
/// "limit":500}`): what the entry's status asks to do next. The arguments follow the words
/// that lead to them in this module's and [`super`]'s sentences (`call again with {…}`).
/// Other hints are whole.
fn digest(hint: &str) -> String {
    for lead in CALL_LEADS {
        let Some(at) = hint.find(lead) else {
            continue;
        };
        let arguments = &hint[at + lead.len()..];
        let mut stream = serde_json::Deserializer::from_str(arguments).into_iter::<Value>();
        if let Some(Ok(call @ Value::Object(_))) = stream.next() {
            return call.to_string();
        }
    }
    hint.to_string()
}

/// The words before a call's arguments in the hints.
const CALL_LEADS: [&str; 3] = [
    "call again with ",
    "Calling again with ",
    "call get_repository_file with ",
];

/// An entry's line of the index, read from its answer and, when known, whether it holds all
/// the entry asked for: a window of lines 3-5 returned whole is complete though the file goes
/// on (its `truncated` is true), a symbol read whole too.
fn entry_of(file: &Value, complete: Option<bool>) -> IndexEntry {
    let field = |name: &str| file.get(name).and_then(Value::as_str).map(str::to_string);
    let metadata = file.get("metadata").and_then(Value::as_object);
    let flag = |m: &Map<String, Value>, name: &str| m.get(name).and_then(Value::as_bool);
    let status = match (field("error"), metadata) {
        (Some(_), _) => Status::Error,
        (None, None) => Status::NotRead,
        (None, Some(m)) if flag(m, "unchanged") == Some(true) => Status::Unchanged,
        (None, Some(_)) if complete == Some(true) => Status::Complete,
        (None, Some(_)) if complete == Some(false) => Status::Partial,
        (None, Some(m)) if flag(m, "truncated") == Some(true) => Status::Partial,
        (None, Some(_)) => Status::Complete,
    };
    let path = file.get("path").and_then(Value::as_str);
    IndexEntry {
        path: path.map_or(Value::Null, |p| shown(p).into()),
        status,
        hint: field("error").or_else(|| field("system_instruction")),
    }
}

/// `hint` in at most `chars` characters as JSON escapes it: whole, or its head and `…`.
fn shortened(hint: &str, chars: usize) -> String {
    if escaped_len(hint) <= chars {
        return hint.to_string();
    }
    let mut out = String::new();
    let mut used = 1; // the ellipsis
    for c in hint.chars() {
        let cost = escaped_len(c.encode_utf8(&mut [0; 4]));
        if used + cost > chars {
            break;
        }
        used += cost;
        out.push(c);
    }
    out.push('…');
    out
}

/// Characters of `text` as a JSON string's contents (without the quotes).
fn escaped_len(text: &str) -> usize {
    serde_json::to_string(text)
        .map(|s| s.chars().count().saturating_sub(2))
        .unwrap_or(text.len())
}

/// Characters of the index's compact JSON.
fn compact_len(index: &[IndexEntry]) -> usize {
    let lines: Vec<Value> = index.iter().map(IndexEntry::to_value).collect();
    Value::Array(lines).to_string().chars().count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_the_budget_and_the_arguments() {
        let args = json!({"project_id": "g/p", "file_path": "a.txt", "ref": "main"});
        assert_eq!(
            not_read(SharedLimit::Call(500), &args),
            "Not read: the entries before this one used the call's 500 character budget (max_chars). To read it, call get_repository_file with {\"project_id\":\"g/p\",\"file_path\":\"a.txt\",\"ref\":\"main\"}, or call get_repository_files again with the entries not read."
        );
        let tail = ". To read it, call get_repository_file with {}, or call get_repository_files again with the entries not read.";
        assert_eq!(
            not_read(SharedLimit::Default(100_000), &json!({})),
            format!(
                "Not read: the entries before this one used the default 100000 character budget (the call sent no max_chars){tail}"
            )
        );
        assert_eq!(
            not_read(SharedLimit::OneMessage, &json!({})),
            format!(
                "Not read: the entries before this one used what fits in one message (1000000 bytes, the content being sent twice){tail}"
            )
        );
    }

    fn window(path: &str, truncated: bool, hint: Option<&str>) -> Value {
        let mut v = json!({"path": path, "ref": "main",
            "metadata": {"total_lines": 9, "truncated": truncated, "size_bytes": 9},
            "content": "x".repeat(5000)});
        if let Some(h) = hint {
            v["system_instruction"] = json!(h);
        }
        v
    }

    #[test]
    fn each_entry_has_its_status_and_hint() {
        let files = vec![
            window("a.txt", false, None),
            window("b.txt", true, Some("File truncated. Remaining lines: 4.")),
            json!({"path": "c.txt", "ref": "main", "metadata": {"size_bytes": 1, "unchanged": true},
                   "system_instruction": "The file is unchanged."}),
            json!({"path": "d.txt", "ref": "main", "system_instruction": "Not read: …"}),
            json!({"path": null, "ref": null, "error": "project_id is missing."}),
        ];
        assert_eq!(
            index(&files, &[]),
            json!([
                {"path": "a.txt", "status": "complete"},
                {"path": "b.txt", "status": "partial", "hint": "File truncated. Remaining lines: 4."},
                {"path": "c.txt", "status": "unchanged", "hint": "The file is unchanged."},
                {"path": "d.txt", "status": "not_read", "hint": "Not read: …"},
                {"path": null, "status": "error", "hint": "project_id is missing."},
            ])
        );
    }

    #[test]
    fn what_the_render_knows_of_completeness_wins_over_truncated() {
        // Lines 3-5 of a longer file returned whole: `truncated`, yet all it asked for.
        let files = vec![
            window("a.txt", true, Some("File truncated. Remaining lines: 4.")),
            window("b.txt", false, None),
            window("c.txt", true, None),
        ];
        let statuses = |complete: &[Option<bool>]| -> Vec<Value> {
            let index = index(&files, complete);
            index
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["status"].clone())
                .collect()
        };
        assert_eq!(
            statuses(&[Some(true), Some(false), None]),
            [json!("complete"), json!("partial"), json!("partial")]
        );
        assert_eq!(
            statuses(&[]),
            [json!("partial"), json!("complete"), json!("partial")]
        );
    }

    #[test]
    fn twenty_long_hints_are_cut_to_fit_the_preview() {
        let hint = "File truncated. Remaining lines: 2500. To view more, call again with {\"offset\": 500, \"limit\": 500}. The window was shortened to stay within the 1048576 byte response limit.";
        let files: Vec<Value> = (0..20)
            .map(|i| window(&format!("src/file_{i:02}.txt"), true, Some(hint)))
            .collect();
        let shown = index(&files, &[]).to_string();
        assert!(shown.chars().count() <= INDEX_CHARS, "{shown}");
        for i in 0..20 {
            assert!(shown.contains(&format!("\"src/file_{i:02}.txt\",\"status\":\"partial\",\"hint\":\"{{\\\"offset\\\":500,\\\"limit\\\":500}}\"")), "{shown}");
        }
        assert_eq!(shown.matches("…").count(), 0);
        // Long paths leave less room: the digests are cut.
        let files: Vec<Value> = (0..20)
            .map(|i| {
                window(
                    &format!("src/{}/file_{i:02}.txt", "deep/".repeat(3)),
                    true,
                    Some(hint),
                )
            })
            .collect();
        let shown = index(&files, &[]).to_string();
        assert!(shown.chars().count() <= INDEX_CHARS, "{shown}");
        assert_eq!(
            shown.matches("\"hint\":\"{\\\"offset\\\":500").count(),
            20,
            "{shown}"
        );
        assert_eq!(shown.matches("…").count(), 20);
    }

    #[test]
    fn a_digest_is_the_call_a_hint_names() {
        assert_eq!(
            digest(
                "File truncated. Remaining lines: 9. To view more, call again with {\"offset\": 3, \"limit\": 3}. The window was shortened."
            ),
            "{\"offset\":3,\"limit\":3}"
        );
        // Braces inside the arguments' strings do not end them.
        assert_eq!(
            digest(
                "Matches truncated: 1 of 9. To see the next matches, call again with {\"pattern\": \"a{2}}\", \"start_line\": 7}."
            ),
            "{\"pattern\":\"a{2}}\",\"start_line\":7}"
        );
        assert_eq!(
            digest(&not_read(
                SharedLimit::Call(5),
                &json!({"file_path": "c.txt"})
            )),
            "{\"file_path\":\"c.txt\"}"
        );
        assert_eq!(digest("File 'x' is binary."), "File 'x' is binary.");
        assert_eq!(digest("call again with nothing"), "call again with nothing");
    }

    #[test]
    fn hints_that_fit_are_whole() {
        let files = vec![window("a", true, Some("short hint"))];
        assert_eq!(index(&files, &[])[0]["hint"], "short hint");
    }

    #[test]
    fn shortening_counts_escapes_and_keeps_characters_whole() {
        assert_eq!(shortened("abcdef", 6), "abcdef");
        assert_eq!(shortened("abcdefg", 6), "abcde…");
        // A quote is two characters escaped: "a\"b…" is 5.
        assert_eq!(shortened("a\"bcdef", 5), "a\"b…");
        assert_eq!(shortened("ééééé", 3), "éé…");
        assert_eq!(shortened("abc", 0), "…");
    }
}
