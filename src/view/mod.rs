//! What a call asks to see of a file — its [`View`] — and the one dispatch that renders a
//! fetched blob as that view ([`render`]). A view is built once from the call's target (a
//! search's pattern compiled then, so a bad one costs no request), tells the source how much of
//! the file it needs ([`View::extent`]) and picks its renderer. The single read and the batch
//! both go through [`render`]; a new view is a new variant and its renderer here.
//!
//! Rendering is synchronous CPU work on owned or cheaply cloned inputs (the blob's text is an
//! `Arc`): [`render_off_workers`] runs it on the CPU pool ([`crate::base::cpu`]) for a large blob,
//! where a search stops between blocks of lines once the call's caller gives up. A window is
//! cheap whatever its blob ([`pool_work`]): it never waits for the pool.

mod blame;
mod diff;
mod error;
mod history;
mod outline;
mod read;
mod rendered;

pub(crate) use error::ViewError;
pub(crate) use read::Read;
pub(crate) use rendered::Rendered;

use crate::base::cpu::{self, Stop};
use std::sync::Arc;

use crate::outline::Outlines;
use crate::resolve::{HistoryArgs, OutlineArgs, SearchArgs, SymbolArgs, Target};
use crate::response;
use crate::response::message::within_one_message;
use crate::source::BlobKind;
use crate::source::views::{Alongside, Also, Blamed, CommitPage, DiffBase};
use crate::window::search::{self, Pattern};
use crate::window::{self, Extent, LineRequest};
use serde_json::Value;

/// What a call asks to see of a file.
#[derive(Debug, Clone)]
pub(crate) enum View {
    /// A window of lines.
    Window(LineRequest),
    /// A page of the lines a pattern matches (with its arguments, as sent, for the hints).
    Matches { args: SearchArgs, pattern: Pattern },
    /// A page of the file's definitions, parsed once per blob (kept in `outlines`).
    Outline {
        args: OutlineArgs,
        outlines: Arc<Outlines>,
    },
    /// The lines of the definition `args` names, as a window.
    Symbol {
        args: SymbolArgs,
        outlines: Arc<Outlines>,
    },
    /// A page of the commits that changed the file; `page` is the source's answer, asked
    /// once the file was read (`None` until then).
    History {
        args: HistoryArgs,
        page: Option<Arc<CommitPage>>,
    },
    /// A window (at most [`blame::MAX_BLAME_LINES`] lines) and who last changed each of its
    /// lines; `blamed` is the source's answer, asked once the file was read.
    Blame {
        lines: LineRequest,
        blamed: Option<Arc<Blamed>>,
    },
    /// A window of the unified diff from the ref `from`; `base` is the file there, asked once
    /// the file was read.
    Diff {
        from: String,
        lines: LineRequest,
        base: Option<Arc<DiffBase>>,
    },
}

impl View {
    /// The view `target` asks for: a page of matches when it has a `pattern` (compiled here),
    /// an outline or a symbol's lines (their outlines kept in `outlines`), else a window.
    pub(crate) fn of<L>(target: &Target<L>, outlines: &Arc<Outlines>) -> Result<View, ViewError> {
        let asked: Vec<&'static str> = [
            ("pattern", target.search.is_some()),
            ("outline", target.outline.is_some()),
            ("symbol", target.symbol.is_some()),
            ("history", target.history.is_some()),
            ("blame", target.blame),
            ("diff_from", target.diff_from.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, on)| on.then_some(name))
        .collect();
        if let [first, second, ..] = asked[..] {
            return Err(ViewError::Conflict { first, second });
        }
        if let Some(args) = &target.search {
            let pattern = Pattern::new(&args.pattern, args.ignore_case.unwrap_or(false))
                .map_err(ViewError::Pattern)?;
            return Ok(View::Matches {
                args: args.clone(),
                pattern,
            });
        }
        if let Some(args) = target.history {
            return Ok(View::History { args, page: None });
        }
        if let Some(from) = &target.diff_from {
            return Ok(View::Diff {
                from: from.clone(),
                lines: target.lines,
                base: None,
            });
        }
        if target.blame {
            let lines = blame::capped(target.lines);
            return Ok(View::Blame {
                lines,
                blamed: None,
            });
        }
        let outlines = Arc::clone(outlines);
        Ok(match (&target.outline, &target.symbol) {
            (Some(args), _) => View::Outline {
                args: args.clone(),
                outlines,
            },
            (None, Some(args)) => View::Symbol {
                args: args.clone(),
                outlines,
            },
            (None, None) => View::Window(target.lines),
        })
    }

    /// What the view may ask of its read's own request besides the file: the blame view its
    /// window's lines (known before the file's length: an end past the file is cut by the
    /// source), the diff view the file at its other ref.
    pub(crate) fn also(&self) -> Also {
        match self {
            View::Blame { lines, .. } => Also {
                blame: crate::window::lines_covered(Some(*lines), u64::MAX)
                    .ok()
                    .flatten(),
                base_ref: None,
            },
            View::Diff { from, .. } => Also {
                blame: None,
                base_ref: Some(from.clone()),
            },
            _ => Also::default(),
        }
    }

    /// Keeps what the read brought of [`View::also`] for [`crate::reader`] to complete.
    pub(crate) fn keep(&mut self, extras: Alongside) {
        match self {
            View::Blame { blamed, .. } => *blamed = extras.blamed.map(Arc::new),
            View::Diff { from, base, .. } => {
                *base = extras.base.map(|file| {
                    Arc::new(DiffBase {
                        git_ref: from.clone(),
                        file,
                    })
                });
            }
            _ => {}
        }
    }

    /// How much of the file the view needs: a window's lines, or for a search, an outline or
    /// a symbol every line (the GitLab source then reads past the 10 MiB GraphQL cut); an
    /// outline or a symbol parses them, so it also asks the file's declared language.
    pub(crate) fn extent(&self) -> Extent {
        match self {
            View::Window(lines) | View::Blame { lines, .. } => Extent::Lines(*lines),
            View::Matches { .. } | View::Diff { .. } => Extent::Whole,
            View::Outline { .. } | View::Symbol { .. } => Extent::Parsed,
            // The file is read to find it (and its commit); its lines are not shown.
            View::History { .. } => Extent::Lines(LineRequest::OffsetLimit {
                offset: 0,
                limit: 1,
            }),
        }
    }
}

/// Renders what a call read as its view; a blob the caller holds (`if_none_match`) without
/// content. The one dispatch point of every read, single or batched; `stop` says when to give
/// up (a search asks it between blocks of lines, an outline while it parses).
pub(crate) fn render<L>(
    view: &View,
    target: &Target<L>,
    read: &Read,
    stop: &Stop,
) -> Result<Rendered, ViewError> {
    if let View::History { args, page } = view {
        let page = page.as_deref().ok_or(ViewError::NotAsked)?;
        return history::render_history(*args, page, read);
    }
    if let View::Blame { lines, blamed } = view {
        return blame::render_blame(*lines, blamed.as_deref(), target, read);
    }
    if let View::Diff { lines, base, .. } = view {
        return diff::render_diff(*lines, base.as_deref(), target, read);
    }
    if read.held(target) {
        return render_held(view, target, read, stop);
    }
    match view {
        View::Window(lines) => render_window(*lines, target, read),
        View::Matches { args, pattern } => render_search(target, read, args, pattern, stop),
        View::Outline { args, outlines } => {
            outline::render_outline(args, outlines, target, read, stop)
        }
        View::Symbol { args, outlines } => {
            outline::render_symbol(args, outlines, target, read, stop)
        }
        View::History { .. } | View::Blame { .. } | View::Diff { .. } => Err(ViewError::NotAsked),
    }
}

/// The most text (summed over a batch's entries) whose windows render where the call runs: a
/// window's work past its own lines is a vectorised count of the text's lines (over 10 GB/s in
/// a release build, so about 13 ms at most), less than a wait for a pool that a heavy call holds.
pub(crate) const WINDOW_INLINE_BYTES: usize = 128 * 1024 * 1024;

/// The work to hand the CPU pool for rendering `views`, each over its blob's text of the given
/// bytes ([`cpu::run`] runs less than [`cpu::INLINE_BYTES`] where it is called): every view's
/// text but the windows' (issue 46: a 2-line window of a large cached file waited behind a
/// caller's timed-out outlines), whose text counts only past [`WINDOW_INLINE_BYTES`].
pub(crate) fn pool_work<'v>(views: impl IntoIterator<Item = (&'v View, usize)>) -> usize {
    let (mut windows, mut others) = (0usize, 0usize);
    for (view, bytes) in views {
        match view {
            View::Window(_) => windows = windows.saturating_add(bytes),
            _ => others = others.saturating_add(bytes),
        }
    }
    match windows > WINDOW_INLINE_BYTES {
        true => others.saturating_add(windows),
        false => others,
    }
}

/// Counts a render of `work` bytes handed to [`cpu::run`]: on the pool or where the call runs.
pub(crate) fn count_render(work: usize) {
    crate::metrics::view_render(cpu::on_pool(work));
}

/// [`render`] fitted to one message (`response::message::within_one_message`, starting from
/// the read's budget), off the async workers when its work is large ([`pool_work`],
/// [`cpu::run`]); dropping the future stops the work. `Ok` is the output object.
pub(crate) async fn render_off_workers<L>(
    view: View,
    target: Target<L>,
    mut read: Read,
) -> Result<Value, ViewError>
where
    L: Send + 'static,
{
    let work = pool_work([(&view, read.text_bytes())]);
    count_render(work);
    let budget = read.max_chars;
    cpu::run(work, move |stop| {
        within_one_message(budget, |max_chars| {
            read.max_chars = max_chars;
            read.fitted_to_message = max_chars != budget;
            render(&view, &target, &read, stop).map(|r| (r.output, r.charged))
        })
    })
    .await
    .map_err(ViewError::Cpu)?
}

/// Windows a fetched blob, fitted to the budget and numbered if asked, and serialises the
/// output (or the binary/LFS/range error).
fn render_window<L>(
    lines: LineRequest,
    target: &Target<L>,
    read: &Read,
) -> Result<Rendered, ViewError> {
    let (content, cut_by_read_limit) = read.text()?;
    let fitted = window::fit_window_in(content, read.line_index(), lines, read.fit(target))
        .map_err(ViewError::Window)?;
    let facts = read.facts(target, cut_by_read_limit);
    let asked = target.lines_named.then_some(lines);
    let complete = holds_all_asked(&fitted, asked, cut_by_read_limit);
    let rendered = Rendered::of(
        response::file_output(facts, &fitted),
        fitted.charged_chars(),
    )?;
    Ok(rendered.complete(complete))
}

/// Whether `fitted` holds every line `asked` names (`None`: the whole file), and, when the text
/// read was cut at GitLab's read limit, does not end at that cut (the file goes on past it).
fn holds_all_asked(fitted: &window::Fitted, asked: Option<LineRequest>, cut: bool) -> bool {
    let w = &fitted.window;
    w.holds_all_of(asked) && !(cut && w.remaining() == 0)
}

/// Searches a fetched blob (the whole of it was fetched) and serialises the page of matches.
fn render_search<L>(
    target: &Target<L>,
    read: &Read,
    args: &SearchArgs,
    pattern: &Pattern,
    stop: &Stop,
) -> Result<Rendered, ViewError> {
    let (content, cut_by_read_limit) = read.text()?;
    let how = search::Search {
        pattern,
        lines: args.lines,
        context_lines: args.context_lines.unwrap_or(search::DEFAULT_CONTEXT_LINES),
        max_chars: read.max_chars,
    };
    let found = search::search_until(content, &how, || stop.go_on())
        .map_err(ViewError::Stopped)?
        .map_err(ViewError::Window)?;
    let facts = read.facts(target, cut_by_read_limit);
    let output = response::search_output(facts, args, &found, how.max_chars);
    Rendered::of(output, found.charged_chars())
}

/// The answer for a blob the caller holds: no content, and the window's metadata when the
/// text was at hand and the call asked for a window (an invalid window is refused as in any
/// answer); a search's answer names no window.
fn render_held<L>(
    view: &View,
    target: &Target<L>,
    read: &Read,
    stop: &Stop,
) -> Result<Rendered, ViewError> {
    let text = match &read.fetched.blob.kind {
        BlobKind::Text {
            content,
            cut_by_read_limit,
        } => Some((content.as_str(), *cut_by_read_limit)),
        _ => None,
    };
    let fitted = match (view, text) {
        (View::Window(lines), Some((text, _))) => Some(
            window::fit_window_in(text, read.line_index(), *lines, read.fit(target))
                .map_err(ViewError::Window)?,
        ),
        (View::Symbol { args, outlines }, Some((text, _))) => {
            Some(outline::symbol_window(args, outlines, target, read, text, stop)?.fitted)
        }
        _ => None,
    };
    let cut_by_read_limit = fitted.is_some() && text.is_some_and(|(_, cut)| cut);
    let facts = read.facts(target, cut_by_read_limit);
    Rendered::of(response::held_output(facts, fitted.as_ref()), 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1024 * 1024;

    fn window() -> View {
        View::Window(LineRequest::OffsetLimit {
            offset: 0,
            limit: 2,
        })
    }

    fn history() -> View {
        View::History {
            args: HistoryArgs {
                offset: 0,
                limit: 20,
            },
            page: None,
        }
    }

    #[test]
    fn windows_never_wait_for_the_pool_up_to_their_bound() {
        // A window of any one file the server reads renders where the call runs.
        let (w, h) = (window(), history());
        assert_eq!(pool_work([(&w, 100 * MIB)]), 0);
        assert!(!cpu::on_pool(pool_work([(&w, 100 * MIB)])));
        // Every other view's text counts.
        assert_eq!(pool_work([(&h, 8 * MIB)]), 8 * MIB);
        assert_eq!(pool_work([(&w, 8 * MIB), (&h, MIB)]), MIB);
        // A batch's windows past the bound, summed, go to the pool with the rest.
        let twenty = vec![(&w, 95 * MIB); 20];
        assert_eq!(pool_work(twenty), 20 * 95 * MIB);
        assert_eq!(pool_work([(&w, WINDOW_INLINE_BYTES)]), 0);
        assert_eq!(
            pool_work([(&w, WINDOW_INLINE_BYTES), (&w, 1)]),
            WINDOW_INLINE_BYTES + 1
        );
    }
}
