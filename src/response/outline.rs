//! What an outline or a symbol answers: the tool's output with `metadata.outline` (a page of
//! definitions, its hints as a page of matches has them) or `metadata.symbol` (a window).

use super::limit::ONE_MESSAGE;
use super::next::Continuation;
use super::notes::{READ_LIMIT_NOTE, nothing_covered, read_notes};
use super::output::{
    FileOutput, LineRange, Metadata, OutlineMeta, ReadFacts, SymbolMeta, WindowMetadata,
    metadata_of,
};
use super::search::ends_by_caller;
use super::window::file_output;
use crate::base::quote::in_hint;
use crate::outline::{MAX_DEPTH, Outline, OutlinePage, OutlinePageCap, Picked, SplitLine};
use crate::resolve::args::ArgName;
use crate::resolve::{HintStyle, OutlineArgs};
use crate::window::{Fitted, MAX_LIMIT, MAX_WINDOW_BYTES, Shortened};

/// A page of an outline and what it was cut from.
pub(crate) struct OutlineShown<'a> {
    pub outline: &'a Outline,
    pub page: &'a OutlinePage,
    pub args: &'a OutlineArgs,
    /// The lines whose definitions were listed, `None` when none were.
    pub listed: Option<(u64, u64)>,
    pub total_lines: u64,
    /// The character budget the page was fitted to.
    pub budget: u64,
}

/// The output of an outline; `content` borrows the page's.
pub(crate) fn outline_output<'a>(facts: ReadFacts<'a>, shown: &OutlineShown<'a>) -> FileOutput<'a> {
    let page = shown.page;
    let window = WindowMetadata {
        total_lines: shown.total_lines,
        returned_lines: page.spanned.map(|(start, end)| LineRange { start, end }),
        truncated: page.returned < page.total || facts.cut_by_read_limit,
        columns: None,
    };
    FileOutput {
        path: facts.path,
        git_ref: facts.git_ref,
        metadata: Metadata {
            outline: Some(OutlineMeta {
                language: shown.outline.language.as_str(),
                total: page.total as u64,
                returned: page.returned as u64,
                partial: shown.outline.partial,
            }),
            ..metadata_of(&facts, Some(window), false)
        },
        system_instruction: outline_instruction(&facts, shown),
        content: Some(&page.content),
    }
}

/// The output of a symbol's window: a window's, with `metadata.symbol`; the window's hints
/// when a cap cut the lines up to `last_line` (the last line the view reads), else a note that
/// the definition (or the part of it the line range asked) is all there.
pub(crate) fn symbol_output<'a>(
    facts: ReadFacts<'a>,
    fitted: &'a Fitted<'_>,
    picked: &'a Picked,
    last_line: u64,
) -> FileOutput<'a> {
    let mut output = file_output(facts, fitted);
    if let Some(note) = whole_symbol_note(fitted, picked, last_line, facts.hint_style) {
        let mut notes = read_notes(&facts);
        notes.push(note);
        if facts.cut_by_read_limit {
            notes.push(READ_LIMIT_NOTE.to_string());
        }
        output.system_instruction = Some(notes.join(" "));
    }
    output.metadata.symbol = Some(SymbolMeta {
        name: &picked.name,
        kind: picked.kind.as_str(),
        start_line: picked.start_line,
        end_line: picked.end_line,
    });
    output
}

/// The note of a symbol's window that shows every line up to `last_line` uncut, `None` when a
/// cap cut it (the window's own hints then name the next window). The lines the view read are
/// the whole definition, or the part of it a line range asked.
fn whole_symbol_note(
    fitted: &Fitted<'_>,
    picked: &Picked,
    last_line: u64,
    style: HintStyle,
) -> Option<String> {
    let (first, last) = fitted.window.returned_lines()?;
    if fitted.shortened != Shortened::None || last < last_line {
        return None;
    }
    let (kind, name) = (picked.kind.as_str(), in_hint(&picked.name));
    let (start, end) = (picked.start_line, picked.end_line);
    if (first, last) == (start, end) {
        return Some(format!(
            "This is the whole {kind} {name}: lines {start}-{end} of {}.",
            fitted.window.total_lines
        ));
    }
    let asked = format!(
        "These are lines {first}-{last} of {kind} {name} (lines {start}-{end}), as the line range asked."
    );
    if last >= end {
        return Some(asked);
    }
    // The definition goes on past the range: the next range of the same size, within it
    // (issue 46: a 5,001-line function's windows stopped at line 4,000).
    let next_end = last.saturating_add(last - first + 1).min(end);
    let next = Continuation::default().lines_in(style, last + 1, Some(next_end));
    Some(format!(
        "{asked} It goes on to line {end}: to read on, call again with {next}."
    ))
}

/// The hint sentences, joined by a space.
fn outline_instruction(facts: &ReadFacts<'_>, shown: &OutlineShown<'_>) -> Option<String> {
    let mut notes = read_notes(facts);
    notes.extend(outcome_note(facts, shown));
    if let Some(split) = shown.page.split {
        notes.push(split_note(split, shown, facts));
    }
    if shown.page.shortened > 0 {
        notes.push(format!(
            "Names ending in …[+N bytes] are shortened ({} on this page): N more bytes of the name are in the file; symbol accepts a name as shown.",
            shown.page.shortened
        ));
    }
    if shown.outline.too_deep > 0 {
        notes.push(format!(
            "Definitions nested {MAX_DEPTH} deep are not listed ({} of them, not counting the definitions inside them): read them by their lines.",
            shown.outline.too_deep
        ));
    }
    if shown.outline.partial {
        notes.push("The file has syntax errors: where the parser could not recover, definitions may be missing (metadata.outline.partial).".to_string());
    }
    (!notes.is_empty()).then(|| notes.join(" "))
}

/// What was listed when nothing was, or the next page when definitions were left out.
fn outcome_note(facts: &ReadFacts<'_>, shown: &OutlineShown<'_>) -> Option<String> {
    let total = shown.total_lines;
    let Some((first, last)) = shown.listed else {
        return Some(nothing_covered(
            shown.args.lines,
            total,
            "definition to list",
            "listed",
        ));
    };
    let page = shown.page;
    if page.total == 0 {
        return Some(format!(
            "No definition starts in lines {first}-{last} of {total}."
        ));
    }
    let next = page.next_start?;
    let end = ends_by_caller(shown.args.lines).then_some(last);
    let call = Continuation::default()
        .with(ArgName::Outline, true)
        .lines(shown.args.lines, next, end)
        .with_some(ArgName::MaxChars, facts.max_chars_arg);
    let by = page
        .cut_by
        .map(|cap| format!(" to stay within {}", cap_words(cap, shown.budget, facts)))
        .unwrap_or_default();
    Some(format!(
        "Outline truncated{by}: {} of {} definitions shown (lines {first}-{last} listed). To see the next definitions, call again with {call}.",
        page.returned, page.total
    ))
}

/// The sentence of a page whose first line starts more definitions than it holds: those
/// left out are read in the line itself (or by name); the next page is the next line's.
fn split_note(split: SplitLine, shown: &OutlineShown<'_>, facts: &ReadFacts<'_>) -> String {
    let cap = shown
        .page
        .cut_by
        .map(|cap| format!(" within {}", cap_words(cap, shown.budget, facts)))
        .unwrap_or_default();
    let line = split.line;
    // `outline: false` first: merged into the call, the line is read as text (with `outline`
    // kept, it would list the same page again).
    let read_line = Continuation::default().with(ArgName::Outline, false).lines(
        shown.args.lines,
        line,
        Some(line),
    );
    format!(
        "Line {line} starts {} definitions, more than one page holds{cap}: the first {} are listed, the other {} are not listed by any outline page; read the line itself with {read_line}, or one definition with symbol.",
        split.total,
        split.shown,
        split.total - split.shown
    )
}

/// A cap as the hints name it: the character budget is what fits in one message when the
/// content was fitted to that (the call's `max_chars` may be 0, no budget at all).
fn cap_words(cap: OutlinePageCap, budget: u64, facts: &ReadFacts<'_>) -> String {
    match cap {
        OutlinePageCap::Lines => format!("the {MAX_LIMIT} definitions a page holds"),
        OutlinePageCap::Bytes => format!("the {MAX_WINDOW_BYTES} byte response limit"),
        OutlinePageCap::Chars if facts.fitted_to_message => ONE_MESSAGE.to_string(),
        OutlinePageCap::Chars => format!("the {budget} character budget (max_chars)"),
    }
}
