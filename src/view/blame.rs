//! The blame view: a window of the file, cut and fitted exactly like a read's (same budget,
//! same hints), with `metadata.blame`, the runs of its lines each last changed by one commit
//! (every returned line in exactly one run), and `metadata.commits`, each commit they name
//! described once.

use serde_json::{Value, json};

use super::error::ViewError;
use super::read::Read;
use super::rendered::Rendered;
use crate::resolve::Target;
use crate::response;
use crate::source::views::{Blamed, Commit};
use crate::window::{self, LineRequest};

/// The most lines one blame call covers (on GitLab: 100 with the read, 900 more in two
/// requests of at most eight fields of 100 lines); a longer window is cut to them and its hint
/// pages on.
pub(crate) const MAX_BLAME_LINES: u64 = 1000;

/// `lines` cut to at most [`MAX_BLAME_LINES`] lines.
pub(super) fn capped(lines: LineRequest) -> LineRequest {
    match lines {
        LineRequest::OffsetLimit { offset, limit } => LineRequest::OffsetLimit {
            offset,
            limit: limit.min(MAX_BLAME_LINES),
        },
        LineRequest::StartEnd { start, end } => {
            let first = start.unwrap_or(1).max(1);
            let last = first.saturating_add(MAX_BLAME_LINES - 1);
            LineRequest::StartEnd {
                start,
                end: Some(end.map_or(last, |e| e.min(last))),
            }
        }
    }
}

/// The window `lines` of the read's text, with the blame of its returned lines.
pub(super) fn render_blame<L>(
    lines: LineRequest,
    blamed: Option<&Blamed>,
    target: &Target<L>,
    read: &Read,
) -> Result<Rendered, ViewError> {
    let (content, cut_by_read_limit) = read.text()?;
    let fitted = window::fit_window_in(content, read.line_index(), lines, read.fit(target))
        .map_err(ViewError::Window)?;
    let Some((first, last)) = fitted.window.returned_lines() else {
        return Err(ViewError::BlamePastEnd {
            total_lines: fitted.window.total_lines,
        });
    };
    let blamed = blamed.ok_or(ViewError::NotAsked)?.within(first, last);
    let facts = read.facts(target, cut_by_read_limit);
    let mut output =
        serde_json::to_value(response::file_output(facts, &fitted)).map_err(ViewError::Output)?;
    output["metadata"]["blame"] = ranges(&blamed);
    let (project, path) = (read.fetched.project.as_deref(), &read.fetched.blob.path);
    output["metadata"]["commits"] = blamed
        .commits
        .iter()
        .map(|c| commit(c, project, path))
        .collect();
    if let Some(Value::String(hint)) = output.get_mut("system_instruction") {
        hint.push_str(" Keep blame: true to blame the next window too.");
    }
    Rendered::of(output, fitted.charged_chars())
}

fn ranges(blamed: &Blamed) -> Value {
    blamed
        .ranges
        .iter()
        .map(|r| json!({"start_line": r.start_line, "end_line": r.end_line, "commit_sha": r.commit_sha}))
        .collect()
}

/// A commit of `metadata.commits`, with the call that shows its change to the file.
fn commit(c: &Commit, project: Option<&str>, path: &str) -> Value {
    let mut v = json!({
        "sha": c.sha,
        "title": c.title,
        "author_name": c.author_name,
        "authored_date": c.authored_date,
        "diff_call": super::history::diff_call(c, project, path),
    });
    if let Some(url) = &c.web_url {
        v["web_url"] = url.as_str().into();
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_is_capped_to_what_one_request_blames() {
        let capped_ol = capped(LineRequest::OffsetLimit {
            offset: 5,
            limit: 2000,
        });
        assert_eq!(
            capped_ol,
            LineRequest::OffsetLimit {
                offset: 5,
                limit: 1000
            }
        );
        let se = capped(LineRequest::StartEnd {
            start: Some(10),
            end: None,
        });
        assert_eq!(
            se,
            LineRequest::StartEnd {
                start: Some(10),
                end: Some(1009)
            }
        );
        let short = capped(LineRequest::StartEnd {
            start: None,
            end: Some(20),
        });
        assert_eq!(
            short,
            LineRequest::StartEnd {
                start: None,
                end: Some(20)
            }
        );
    }
}
