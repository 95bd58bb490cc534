//! Find in a file: the lines of a text a pattern matches, with context, in
//! grep's `-n` format, fitted to the agent as a window is.
//!
//! [`search`] takes the whole text and a [`Search`]: a compiled
//! [`Pattern`], the lines to search (a window's [`LineRequest`], uncapped:
//! `start_line: 100` searches from line 100 to the end; none = the whole
//! text), the context lines and the character budget. It returns a page of
//! matches ([`SearchPage`]). Steps, each its own module:
//!
//! 1. [`span`]: the searched lines and their bytes.
//! 2. [`hits`]: the matching lines, in order ([`Pattern`] says how a whole
//!    text is searched at once and still matched line by line).
//! 3. [`groups`]: the matches a page can reach, merged with their context
//!    into groups; the rest only counted.
//! 4. [`page`]: whole groups under the caps, rendered.
//!
//! # Lines and matches
//!
//! Lines are the window's (`\n`-terminated; see the parent module). A line
//! matches when the pattern matches its text without its terminator (`\n`,
//! or `\r\n`: a CRLF line matches without its `\r`; a lone `\r` is
//! content). Grep's rules:
//!
//! - A matching line is `N:text`, a context line `N-text`, `N` its
//!   1-indexed number unpadded; lines keep their bytes and terminator, and a
//!   last line without one gets `\n`.
//! - Each match brings up to `context_lines` lines before and after it,
//!   within the searched lines. Groups that overlap or touch merge (a match
//!   is never shown as another's context, a line never twice); `--` alone on
//!   a line separates groups, so it always stands for skipped lines.
//!
//! # Pages
//!
//! A page holds at most [`MAX_LIMIT`] lines (separators not counted),
//! [`MAX_WINDOW_BYTES`] bytes and `max_chars` characters as the window
//! budget charges them (a control character 6; 0 = no budget). Whole groups
//! are taken from the first while they fit ([`page`] has the walk); a page
//! whose first group does not fit shows it from its first match, as many
//! lines as fit, the match itself cut at a character boundary if it alone
//! is over a cap (the window's rule, [`LineCut`](super::LineCut)). [`SearchPage::next_start`] is
//! the line after the last one shown whenever a match is not shown: the
//! next page searches from there to the same end, so following pages shows
//! every match exactly once.
//!
//! # Cost
//!
//! One pass over the searched bytes by the regex engine (its literal
//! prefilters run at memchr speed), block by block, at most twice the
//! searched bytes whatever the pattern ([`hits`] counts it), with a check
//! between blocks that can stop it ([`search_until`]); a line-alone check
//! per candidate line,
//! `\n` counting with memchr's vectorised count, and work per shown line.
//! Matches past what a page can reach are counted and not kept: memory is
//! bounded by the page, whatever the number of matches.

mod groups;
mod hits;
mod page;
mod pattern;
mod shortened;
mod span;
#[cfg(test)]
mod tests;

pub use pattern::{MAX_COMPILED_BYTES, Pattern, PatternError};
pub use shortened::{PageCap, PageShortened};

use std::convert::Infallible;

use super::cap::MAX_WINDOW_BYTES;
use super::chars::charged_chars;
use super::column::char_count;
use super::lines::count_lines;
use super::request::{LineRequest, MAX_LIMIT, WindowError};

/// The context lines around each match when the call gives none.
pub const DEFAULT_CONTEXT_LINES: u64 = 2;

/// The most context lines a call may ask for around each match.
pub const MAX_CONTEXT_LINES: u64 = 50;

/// The longest pattern accepted, in bytes.
pub const MAX_PATTERN_BYTES: usize = 1024;

/// What to search, and how to show it.
#[derive(Debug, Clone, Copy)]
pub struct Search<'p> {
    pub pattern: &'p Pattern,
    /// The lines searched, a window's request without its [`MAX_LIMIT`]
    /// cap; `None` for the whole text.
    pub lines: Option<LineRequest>,
    /// Lines shown before and after each match.
    pub context_lines: u64,
    /// The character budget of the page (0 = none), as [`super::Fit`]'s.
    pub max_chars: u64,
}

/// A page of matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchPage {
    /// grep `-n` lines (module doc).
    pub content: String,
    /// The lines of the whole text.
    pub total_lines: u64,
    /// The searched lines, 1-indexed inclusive; `None` when none were (an
    /// empty text, or an offset past its end).
    pub searched: Option<(u64, u64)>,
    /// The first and last lines in `content` (matches or context), `None`
    /// when it is empty.
    pub returned_lines: Option<(u64, u64)>,
    /// The matching lines among the searched, all of them counted.
    pub total_matches: u64,
    /// The numbers of the matching lines in `content`, ascending.
    pub shown: Vec<u64>,
    /// The first line of the next page (the line after the last shown),
    /// when some match is not shown.
    pub next_start: Option<u64>,
    /// What the caps did.
    pub shortened: PageShortened,
    /// Whether the pattern can match only across lines, so no line matches
    /// ([`Pattern::only_across_lines`]).
    pub only_across_lines: bool,
    /// For a page whose one line, a match, was cut ([`PageShortened::LineCut`]): the column
    /// (characters from the line's start, 0-indexed) where the pattern's first match in it
    /// starts, so a window can read the line from there.
    pub match_column: Option<u64>,
}

impl SearchPage {
    /// Whether some match is not in `content`.
    pub fn is_partial(&self) -> bool {
        (self.shown.len() as u64) < self.total_matches
    }

    /// What `content` is charged against the character budget (prefixes,
    /// context and separators included, as the page was fitted).
    pub fn charged_chars(&self) -> usize {
        charged_chars(self.content.as_bytes())
    }
}

/// Searches `text` as `search` says (module doc). The only error is an
/// inverted `start_line`/`end_line`, the window's.
pub fn search(text: &str, search: &Search<'_>) -> Result<SearchPage, WindowError> {
    let Ok(found) = search_until(text, search, || Ok::<(), Infallible>(()));
    found
}

/// [`search`], asking `go_on` before each block of about 64 KiB of
/// lines whether to go on: its error, if it answers one, ends the search
/// (the outer `Err`), within a block's work.
pub fn search_until<E>(
    text: &str,
    search: &Search<'_>,
    go_on: impl FnMut() -> Result<(), E>,
) -> Result<Result<SearchPage, WindowError>, E> {
    let bytes = text.as_bytes();
    let total_lines = count_lines(bytes);
    let range = match span::searched(bytes, search.lines, total_lines) {
        Ok(Some(range)) => range,
        Ok(None) => return Ok(Ok(nothing_searched(search, total_lines))),
        Err(e) => return Ok(Err(e)),
    };
    let mut found = hits::Hits::new(bytes, search.pattern, &range, go_on);
    let reach = groups::Reach {
        lines: MAX_LIMIT,
        bytes: MAX_WINDOW_BYTES,
    };
    let recorded = groups::record(&mut found, reach);
    if let Some(stopped) = found.stopped() {
        return Err(stopped);
    }
    let grouped = groups::group(bytes, &recorded, &range, search.context_lines);
    let limits = page::PageBounds::new(MAX_LIMIT, MAX_WINDOW_BYTES, search.max_chars);
    let beyond = recorded.beyond.map(|(_, cap)| cap);
    let page = page::take(text, &grouped, beyond, &limits);
    // A page shows at least its first match, so with a match left out it
    // shows a line, and the next page starts after it.
    let next_start = ((page.shown.len() as u64) < recorded.total).then_some(page.last_line + 1);
    Ok(Ok(SearchPage {
        content: page.content,
        total_lines,
        searched: Some((range.first, range.last)),
        returned_lines: (page.first_line > 0).then_some((page.first_line, page.last_line)),
        total_matches: recorded.total,
        shown: page.shown,
        next_start,
        match_column: cut_match_column(bytes, &page.shortened, &grouped, search.pattern),
        shortened: page.shortened,
        only_across_lines: search.pattern.only_across_lines(),
    }))
}

/// Where the first match starts in a page's cut line, the first match of its first group (the
/// only line such a page shows), as a column.
fn cut_match_column(
    bytes: &[u8],
    shortened: &PageShortened,
    grouped: &[groups::Group],
    pattern: &Pattern,
) -> Option<u64> {
    let PageShortened::LineCut { .. } = shortened else {
        return None;
    };
    let hit = grouped.first()?.matches.first()?;
    let line = hits::line_text(&bytes[hit.start..hit.end]);
    let at = pattern.first_match(line)?;
    Some(char_count(&line[..at]))
}

/// The answer when no line is searched.
fn nothing_searched(search: &Search<'_>, total_lines: u64) -> SearchPage {
    SearchPage {
        content: String::new(),
        total_lines,
        searched: None,
        returned_lines: None,
        total_matches: 0,
        shown: Vec::new(),
        next_start: None,
        shortened: PageShortened::None,
        only_across_lines: search.pattern.only_across_lines(),
        match_column: None,
    }
}
