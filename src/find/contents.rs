//! Contents mode: the lines `pattern` matches in the files in scope, file by file in path
//! order, each file searched with `get_repository_file`'s own search (`window::search`) on its
//! blob, so line numbers, context and matches are exact whatever found the file.
//!
//! Which files are read: on GitLab, those its own search finds the pattern's literal in
//! ([`super::literal`]; a superset, each verified here); when the pattern has no literal, or
//! GitLab's search is turned off or rate limited, every file in scope while there are at most
//! the source's scan limit of them, else the call says what to narrow. Locally every file is
//! read. Binary files and LFS files are skipped and never named. A page stops when the budget,
//! [`MAX_FILES_READ`], [`MAX_BYTES_READ`] or [`MAX_READ_TIME`] is reached, and its hint continues
//! exactly there.

use serde_json::{Map, Value, json};

use super::error::FindError;
use super::literal;
use super::next::FindCursor;
use crate::config::Credential;
use crate::source::BlobKind;
use crate::source::tree::{Proposed, RefCommit, TreeItem, TreeSource};
use crate::window::LineRequest;
use crate::window::search::{DEFAULT_CONTEXT_LINES, Pattern, Search, SearchPage, search};

/// The most files one call reads.
pub(crate) const MAX_FILES_READ: usize = 20_000;

/// The most bytes of files one call reads (a scan's bound per call).
pub(crate) const MAX_BYTES_READ: u64 = 64 << 20;

/// The longest one call reads files for (each a request on GitLab), well within a call's
/// time limit, so a search of many candidates pages instead of timing out.
pub(crate) const MAX_READ_TIME: std::time::Duration = std::time::Duration::from_secs(25);

/// Files read together (one request on GitLab for those not cached).
const READ_AHEAD: usize = 20;

/// Below this many characters left, a page ends rather than start another file.
const MIN_FILE_CHARS: u64 = 400;

/// What a contents search needs besides the source.
pub(crate) struct Ask<'a> {
    pub pattern: &'a Pattern,
    pub pattern_text: &'a str,
    pub ignore_case: Option<bool>,
    pub context_lines: Option<u64>,
    pub max_chars: u64,
    pub after: Option<&'a str>,
    pub after_line: Option<u64>,
    /// The scope's directory (for GitLab's search).
    pub dir: &'a str,
    /// `<instance>/<project>/-/blob/<sha>/` on GitLab: a hit's permalink is this, its path
    /// and `#L<line>`.
    pub blob_url: Option<String>,
    pub next: &'a FindCursor,
}

/// How the files read were chosen, for the answer.
enum Chosen {
    /// GitLab's search found the literal in these files.
    Proposed { literal: String, complete: bool },
    /// Every file in scope, read because GitLab's search could not be used (why).
    Scanned(String),
}

/// Where a page stopped, when it did not reach the end.
struct PageStop {
    after: String,
    after_line: Option<u64>,
    why: &'static str,
}

/// The search: fills `out`'s `files`, `truncated`, `system_instruction`; returns the text form.
pub(crate) async fn run<S: TreeSource>(
    source: &S,
    at: &RefCommit,
    blobs: Vec<&TreeItem>,
    ask: &Ask<'_>,
    credential: Option<&Credential>,
    out: &mut Map<String, Value>,
) -> Result<String, FindError> {
    let blobs = after_cursor(blobs, ask.after, ask.after_line);
    let (files, chosen) = choose(source, at, blobs, ask, credential).await?;
    let mut state = MatchPage::new();
    for chunk in files.chunks(READ_AHEAD) {
        if state.stops(ask) {
            break;
        }
        let kinds = source.blobs(at, chunk, credential).await;
        for (item, kind) in chunk.iter().zip(kinds) {
            if state.stops(ask) {
                break;
            }
            state.take(item, kind?, ask);
        }
    }
    let text = state.text.clone();
    let hint = state.hint(&chosen, ask);
    out.insert("files".into(), Value::Array(state.files));
    let incomplete = matches!(
        chosen,
        Chosen::Proposed {
            complete: false,
            ..
        }
    );
    out.insert(
        "truncated".into(),
        (state.stop.is_some() || incomplete).into(),
    );
    out.insert("system_instruction".into(), hint.clone().into());
    Ok(format!("{text}{hint}\n"))
}

/// The files at or after the cursor: after `after`, or from `after` itself when a line in it
/// is named.
fn after_cursor<'a>(
    blobs: Vec<&'a TreeItem>,
    after: Option<&str>,
    after_line: Option<u64>,
) -> Vec<&'a TreeItem> {
    let Some(after) = after else {
        return blobs;
    };
    blobs
        .into_iter()
        .filter(|b| &*b.path > after || (after_line.is_some() && &*b.path == after))
        .collect()
}

/// The files to read, and how they were chosen.
async fn choose<'a, S: TreeSource>(
    source: &S,
    at: &RefCommit,
    blobs: Vec<&'a TreeItem>,
    ask: &Ask<'_>,
    credential: Option<&Credential>,
) -> Result<(Vec<&'a TreeItem>, Chosen), FindError> {
    let (why, limit) = match literal::required(ask.pattern_text) {
        Some(lit) => match source.propose(at, &lit, ask.dir, credential).await {
            Proposed::Paths { paths, complete } => {
                let set: std::collections::HashSet<&str> =
                    paths.iter().map(String::as_str).collect();
                let files = blobs
                    .into_iter()
                    .filter(|b| set.contains(&*b.path))
                    .collect();
                let chosen = Chosen::Proposed {
                    literal: lit,
                    complete,
                };
                return Ok((files, chosen));
            }
            Proposed::Unavailable { why, scan_limit } => (why, scan_limit),
        },
        None => {
            let why = format!(
                "the pattern holds no literal of {}+ characters for GitLab's search",
                literal::MIN_LITERAL_CHARS
            );
            let limit = source
                .propose(at, "", ask.dir, credential)
                .await
                .scan_limit();
            (why, limit)
        }
    };
    if blobs.len() > limit {
        return Err(FindError::TooManyToScan {
            why,
            files: blobs.len(),
            limit,
        });
    }
    Ok((blobs, Chosen::Scanned(why)))
}

impl Proposed {
    /// How many files a scan may read when this is all the search gave.
    fn scan_limit(&self) -> usize {
        match self {
            Proposed::Unavailable { scan_limit, .. } => *scan_limit,
            Proposed::Paths { .. } => usize::MAX,
        }
    }
}

/// A page being filled.
struct MatchPage {
    started: std::time::Instant,
    files: Vec<Value>,
    text: String,
    spent: u64,
    read: usize,
    bytes: u64,
    stop: Option<PageStop>,
    /// The last file shown whole (the cursor when the next does not fit).
    last_whole: Option<String>,
}

impl MatchPage {
    fn new() -> Self {
        Self {
            started: std::time::Instant::now(),
            files: Vec::new(),
            text: String::new(),
            spent: 0,
            read: 0,
            bytes: 0,
            stop: None,
            last_whole: None,
        }
    }

    /// Whether the page stops before the next file (the budget, the time or the reads are
    /// spent), recording where.
    fn stops(&mut self, ask: &Ask<'_>) -> bool {
        if self.stop.is_some() {
            return true;
        }
        let left = ask.max_chars.saturating_sub(self.spent);
        let full = ask.max_chars > 0 && left < MIN_FILE_CHARS && !self.files.is_empty();
        let late = self.started.elapsed() >= MAX_READ_TIME && self.read > 0;
        if full || late || self.read >= MAX_FILES_READ || self.bytes >= MAX_BYTES_READ {
            let why = match (full, late) {
                (true, _) => "budget",
                (_, true) => "time",
                _ => "reads",
            };
            self.stop = Some(self.cursor(why));
        }
        self.stop.is_some()
    }

    /// Searches one file's content, adding its matches (binary and LFS files are skipped).
    fn take(&mut self, item: &TreeItem, kind: BlobKind, ask: &Ask<'_>) {
        self.read += 1;
        let left = ask.max_chars.saturating_sub(self.spent);
        let content = match kind {
            BlobKind::Text { content, .. } => content,
            BlobKind::Binary | BlobKind::Lfs { .. } | BlobKind::NotRead => {
                self.last_whole = Some(item.path.to_string());
                return;
            }
        };
        self.bytes += content.len() as u64;
        let from = match ask.after {
            Some(a) if a == &*item.path => ask.after_line.map(|l| l + 1),
            _ => None,
        };
        let lines = from.map(|start| LineRequest::StartEnd {
            start: Some(start),
            end: None,
        });
        let found = search(
            &content,
            &Search {
                pattern: ask.pattern,
                lines,
                context_lines: ask.context_lines.unwrap_or(DEFAULT_CONTEXT_LINES),
                max_chars: if ask.max_chars == 0 { 0 } else { left / 2 },
            },
        );
        match found {
            Ok(page) if page.total_matches > 0 => self.add(item, &page, ask),
            _ => self.last_whole = Some(item.path.to_string()),
        }
    }

    /// Where the next page starts when this one stops before the file it was at.
    fn cursor(&self, why: &'static str) -> PageStop {
        PageStop {
            after: self.last_whole.clone().unwrap_or_default(),
            after_line: None,
            why,
        }
    }

    /// One file's matches: its object, its grep lines, and where to go on if cut.
    fn add(&mut self, item: &TreeItem, page: &SearchPage, ask: &Ask<'_>) {
        let mut matches = Vec::new();
        for line in page.content.lines() {
            let digits = line.bytes().take_while(u8::is_ascii_digit).count();
            let (number, rest) = line.split_at(digits);
            match (number.parse::<u64>(), rest.chars().next()) {
                (Ok(n), Some(':')) => {
                    matches.push(json!({"line": n, "text": rest[1..].trim_end_matches('\r')}));
                    self.text.push_str(&format!("{}:{line}\n", item.path));
                }
                (Ok(_), Some('-')) => self.text.push_str(&format!("{}-{line}\n", item.path)),
                _ => self.text.push_str("--\n"),
            }
        }
        self.spent += 2 * page.charged_chars() as u64 + 2 * item.path.len() as u64 + 200;
        let mut file = json!({
            "path": item.path,
            "blob_id": item.oid,
            "matches": matches,
            "read": read_call(item, ask),
        });
        if let (Some(url), Some(first)) = (&ask.blob_url, page.shown.first()) {
            file["web_url"] = format!("{url}{}#L{first}", item.path).into();
        }
        self.files.push(file);
        match page.next_start {
            Some(next) => {
                self.stop = Some(PageStop {
                    after: item.path.to_string(),
                    after_line: Some(next.saturating_sub(1)),
                    why: "budget",
                })
            }
            None => self.last_whole = Some(item.path.to_string()),
        }
    }

    /// The page's `system_instruction`.
    fn hint(&self, chosen: &Chosen, ask: &Ask<'_>) -> String {
        let how = match chosen {
            Chosen::Proposed { literal, complete } => {
                // A brace would read as the start of a call in the hint.
                let named = match literal.contains(['{', '}']) {
                    true => "the pattern's literal".to_string(),
                    false => format!("'{literal}'"),
                };
                let mut s = format!(
                    "Files were found by GitLab's search for {named}, each verified line by line."
                );
                if !complete {
                    s.push_str(" GitLab's search had more results than this server pages through, so files may be missing: narrow path or glob for a complete answer.");
                }
                s
            }
            Chosen::Scanned(why) => format!("Every file in scope was read ({why})."),
        };
        let shown = self.files.len();
        match &self.stop {
            Some(stop) => {
                let args = ask.next.call(
                    (!stop.after.is_empty()).then_some(stop.after.as_str()),
                    stop.after_line,
                );
                let why = match stop.why {
                    "budget" => "the character budget is spent",
                    "time" => "this call read files as long as one call may",
                    _ => "this call read as many files as one call may",
                };
                format!(
                    "More files may match: this page stopped because {why}. To go on from there, call search_repository with {args} {how}"
                )
            }
            None if shown == 0 => format!("No line matches. {how}"),
            None => format!("All matching files are listed ({shown}). {how}"),
        }
    }
}

/// The `get_repository_file` call that reads a file's matches.
fn read_call(item: &TreeItem, ask: &Ask<'_>) -> Value {
    let base = ask.next.arguments(None, None);
    let mut read = Map::new();
    if let Some(p) = base.get("project_id") {
        read.insert("project_id".into(), p.clone());
    }
    if let Some(r) = base.get("ref") {
        read.insert("ref".into(), r.clone());
    }
    read.insert("file_path".into(), item.path.to_string().into());
    read.insert("pattern".into(), ask.pattern_text.into());
    if let Some(i) = ask.ignore_case {
        read.insert("ignore_case".into(), i.into());
    }
    if let Some(c) = ask.context_lines {
        read.insert("context_lines".into(), c.into());
    }
    Value::Object(read)
}
