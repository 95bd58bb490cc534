//! The outline and symbol views' renderers: the blob's outline (parsed once per blob, through
//! the cache), then a page of its definitions, or one definition's lines as a window.

use std::sync::Arc;

use super::error::ViewError;
use super::read::Read;
use super::rendered::Rendered;
use crate::base::cpu::{Stop, Stopped, thread_cpu_time};
use crate::outline::{self, Language, MAX_OUTLINE_BYTES, Outline, OutlineError, Outlines, Picked};
use crate::resolve::{OutlineArgs, SymbolArgs, Target};
use crate::response;
use crate::window::{self, Fitted, LineRequest, lines_covered};

/// A page of the blob's definitions starting in the lines the call names.
pub(super) fn render_outline<L>(
    args: &OutlineArgs,
    outlines: &Outlines,
    target: &Target<L>,
    read: &Read,
    stop: &Stop,
) -> Result<Rendered, ViewError> {
    let (text, cut_by_read_limit) = read.text()?;
    let outline = parsed(outlines, read, text, stop)?;
    let total_lines = read.total_lines();
    let listed = lines_covered(args.lines, total_lines).map_err(ViewError::Window)?;
    let page = outline::page(&outline, listed, read.max_chars);
    let facts = read.facts(target, cut_by_read_limit);
    let shown = response::OutlineShown {
        outline: &outline,
        page: &page,
        args,
        listed,
        total_lines,
        budget: read.max_chars,
    };
    Rendered::of(response::outline_output(facts, &shown), page.charged)
}

/// The lines of the definition `name` as a window, with `metadata.symbol`.
pub(super) fn render_symbol<L>(
    args: &SymbolArgs,
    outlines: &Outlines,
    target: &Target<L>,
    read: &Read,
    stop: &Stop,
) -> Result<Rendered, ViewError> {
    let (text, cut_by_read_limit) = read.text()?;
    let shown = symbol_window(args, outlines, target, read, text, stop)?;
    let facts = read.facts(target, cut_by_read_limit);
    let asked = LineRequest::StartEnd {
        start: None,
        end: Some(shown.last_line),
    };
    let complete = shown.fitted.window.holds_all_of(Some(asked));
    let rendered = Rendered::of(
        response::symbol_output(facts, &shown.fitted, &shown.picked, shown.last_line),
        shown.fitted.charged_chars(),
    )?;
    Ok(rendered.complete(complete))
}

/// A symbol's window: the definition picked, and the last line the view reads (the
/// definition's, or the end of the line range the call named within it).
pub(super) struct SymbolWindow<'t> {
    pub fitted: Fitted<'t>,
    pub picked: Picked,
    pub last_line: u64,
}

/// The window of the definition `args` names in `text` (the blob `read` holds): its lines,
/// within the lines the call names when it names some (and they meet), and the definition.
pub(super) fn symbol_window<'t, L>(
    args: &SymbolArgs,
    outlines: &Outlines,
    target: &Target<L>,
    read: &Read,
    text: &'t str,
    stop: &Stop,
) -> Result<SymbolWindow<'t>, ViewError> {
    let outline = parsed(outlines, read, text, stop)?;
    let blob = &read.fetched.blob;
    let picked = outline::pick(&outline, &args.name, &blob.path, &|| stop.go_on().is_ok());
    stop.go_on().map_err(ViewError::Stopped)?;
    let picked = picked.map_err(ViewError::Symbol)?;
    let (mut start, mut end) = (picked.start_line, picked.end_line);
    let total = read.total_lines();
    let within = lines_covered(args.lines, total).map_err(ViewError::Window)?;
    if let Some((first, last)) = within.filter(|&(first, last)| first <= end && start <= last) {
        (start, end) = (start.max(first), end.min(last));
    }
    let lines = LineRequest::StartEnd {
        start: Some(start),
        end: Some(end),
    };
    let fitted = window::fit_window_in(text, read.line_index(), lines, read.fit(target))
        .map_err(ViewError::Window)?;
    Ok(SymbolWindow {
        fitted,
        picked,
        last_line: end,
    })
}

/// The outline of the blob `read` holds (its text `text`): its language as the repository
/// declares it, else by the path's extension; refused past [`MAX_OUTLINE_BYTES`]; a parse
/// stops when `stop` says so, and is refused past [`outline::parse_budget`] of CPU time (the
/// parse and the walk after it) or when its syntax tree passes the outlines' memory budget.
fn parsed(
    outlines: &Outlines,
    read: &Read,
    text: &str,
    stop: &Stop,
) -> Result<Arc<Outline>, ViewError> {
    let blob = &read.fetched.blob;
    let Some(language) = Language::of_file(read.fetched.language.as_deref(), &blob.path) else {
        return Err(ViewError::Unsupported {
            path: blob.path.clone(),
        });
    };
    if blob.size_bytes > MAX_OUTLINE_BYTES {
        return Err(ViewError::OutlineTooLarge {
            path: blob.path.clone(),
            size_bytes: blob.size_bytes,
        });
    }
    let budget = outline::parse_budget(blob.size_bytes);
    // CPU time of this thread, not wall time: a parse on a loaded machine gets what it needs.
    let started = thread_cpu_time();
    let go_on = || {
        stop.go_on().map_err(ParseEnd::Stopped)?;
        match thread_cpu_time().saturating_sub(started) > budget {
            true => Err(ParseEnd::OverBudget),
            false => Ok(()),
        }
    };
    match outlines.get(blob.id.as_deref(), language, text, go_on) {
        Ok(Err(OutlineError::OverMemory { budget, .. })) => Err(ViewError::OutlineOverMemory {
            path: blob.path.clone(),
            size_bytes: blob.size_bytes,
            budget,
        }),
        Ok(parsed) => parsed.map_err(ViewError::Outline),
        Err(ParseEnd::Stopped(e)) => Err(ViewError::Stopped(e)),
        Err(ParseEnd::OverBudget) => Err(ViewError::OutlineTooSlow {
            path: blob.path.clone(),
            size_bytes: blob.size_bytes,
            budget,
        }),
    }
}

/// Why a parse ended before its tree: the call's caller gave up, or it passed its budget.
enum ParseEnd {
    Stopped(Stopped),
    OverBudget,
}
