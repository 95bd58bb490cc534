//! Target `window`: a text, a line request and a fit (a character budget, line numbers) built
//! from structured input (`arbitrary` over the raw bytes), cut by
//! `gitlab_file_mcp::window::window`, `fit_window` and `fit_window_in` (with the text's line
//! index).
//!
//! The text is a list of pieces: raw bytes (made a `str` lossily, or the input is skipped
//! unless it is valid UTF-8), runs of newlines, and runs of one character of 1 to 4 bytes
//! that are short or within a few bytes of the 1 MiB cap (at most [`MAX_BIG_RUNS`] of those),
//! so that the cap's outcomes are reached without megabytes of input.
//!
//! Properties:
//! - `window` never panics, for any text and any request;
//! - each window is what [`Lines`], a naive model built with `split_inclusive('\n')`, says
//!   the documented rules give: the range a request covers, the inverted-range error, the
//!   content of whole lines, the byte cap's `DroppedLines` and `LineCut`, and the totals;
//! - the fitted window (any budget, line numbers on or off) covers the same range, holds whole
//!   lines from the range's start or the start of its first line, stays within both caps
//!   (bytes and the charged characters, prefixes included; a first line keeps its prefix and
//!   one character), drops a line only when it would pass a cap, names the budget only when
//!   `max_chars: 0` returns more, and with line numbers is the raw content with a `cat -n`
//!   prefix per line;
//! - following the hints from line 1, as `response` words them, in either style and with the
//!   fit, tiles the text exactly: a line a cap cut goes on from its next column (`column`),
//!   however long the line; and every window on the way that starts at a line's start
//!   satisfies the model too;
//! - the fitted window found with the text's `LineIndex` is the one found without.

use arbitrary::{Arbitrary, Unstructured};
use gitlab_file_mcp::window::{
    self, Cap, CapKind, Fit, Fitted, LINE_NUMBER_WIDTH, LineRequest, MAX_LIMIT, MAX_WINDOW_BYTES,
    Shortened, Window, WindowError,
};

/// The most runs near the byte cap one input makes: enough for two capped windows in a row.
pub const MAX_BIG_RUNS: usize = 2;

/// About this many bytes are scanned while following the hints to rebuild a text: each
/// window scans the text from its start, so the chain's limit is raised for texts of many
/// lines, up to the text's lines over [`MIN_FOLLOWED_WINDOWS`] (or [`MAX_LIMIT`]), to keep
/// a fuzz run fast. Capped windows still come one line at a time.
const FOLLOW_SCAN_BYTES: usize = 8 << 20;

/// The most windows followed while rebuilding a text.
const MAX_REBUILD_WINDOWS: usize = 1024;

/// The most bytes of text the windows followed while rebuilding a text may scan in all (each
/// scans the whole text at most): a long line cut into small pieces is followed for a while,
/// then only its start is compared.
const MAX_REBUILD_SCAN_BYTES: usize = 2 * FOLLOW_SCAN_BYTES;

/// The fewest windows the chain's limit is raised to aim for.
const MIN_FOLLOWED_WINDOWS: usize = 4;

/// The most windows the chain's limit is raised to aim for.
const MAX_FOLLOWED_WINDOWS: usize = 256;

#[derive(Arbitrary, Debug)]
pub struct Input {
    request: Request,
    follow: Follow,
    fit: FitInput,
    text: Text,
}

/// The fit: no budget, a small one (it binds often), or any; line numbers or not.
#[derive(Arbitrary, Debug, Clone, Copy)]
struct FitInput {
    budget: Budget,
    line_numbers: bool,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Budget {
    Off,
    Small(u16),
    Any(u64),
}

impl FitInput {
    fn fit(self) -> Fit {
        let max_chars = match self.budget {
            Budget::Off => 0,
            Budget::Small(n) => n.into(),
            Budget::Any(n) => n,
        };
        Fit {
            max_chars,
            line_numbers: self.line_numbers,
            column: 0,
        }
    }
}

/// The request of the single checked window.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Request {
    OffsetLimit {
        offset: LineNumber,
        limit: Limit,
    },
    StartEnd {
        start: Option<LineNumber>,
        end: Option<LineNumber>,
    },
}

/// A line number or offset, small, near the text's end, or anything.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum LineNumber {
    Small(u8),
    FromEnd(u8),
    Any(u64),
}

/// A limit in `0..=MAX_LIMIT` (the tool's range, and 0), or anything (`window` does not
/// validate it).
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Limit {
    InRange(u16),
    Any(u64),
}

/// How the hints are followed: in which style, with which first limit.
#[derive(Arbitrary, Debug, Clone, Copy)]
struct Follow {
    style: HintStyle,
    limit: u16,
}

/// The two vocabularies of the next-window hint (`resolve::HintStyle`).
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
enum HintStyle {
    OffsetLimit,
    StartEnd,
}

#[derive(Arbitrary, Debug)]
struct Text {
    lossy: bool,
    pieces: Vec<Piece>,
}

#[derive(Arbitrary, Debug)]
enum Piece {
    Bytes(Vec<u8>),
    Newlines(u8),
    CrLfs(u8),
    Run { fill: Fill, len: RunLen },
}

/// The character a run repeats: 1, 2, 3 or 4 bytes wide, or a lone `\r`.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Fill {
    Ascii,
    TwoBytes,
    ThreeBytes,
    FourBytes,
    Cr,
}

/// A run's length: a few characters, or about [`MAX_WINDOW_BYTES`] bytes plus `delta`.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum RunLen {
    Short(u8),
    NearCap(i8),
}

pub fn check(data: &[u8]) {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let Some(text) = input.text.render() else {
        return;
    };
    let lines = Lines::new(&text);
    let request = input.request.resolve(lines.total());
    let fit = input.fit.fit();
    let raw = cut(&text, request);
    check_window(&lines, request, raw);
    check_fitted(&lines, request, fit, raw);
    check_rebuild(&lines, input.follow, fit);
    check_indexed(&text, request, fit);
}

/// The window found with the text's line index (a cached blob's) is the window found without.
fn check_indexed(text: &str, request: LineRequest, fit: Fit) {
    let index = window::LineIndex::of(text.as_bytes());
    let plain = fitted(text, request, fit).map(|f| format!("{f:?}"));
    let indexed = window::fit_window_in(text, Some(&index), request, fit).map(|f| format!("{f:?}"));
    assert_eq!(indexed, plain, "the line index changed the window");
}

/// The code under test: GitLab's window.
fn cut(text: &str, request: LineRequest) -> Result<Window<'_>, WindowError> {
    window::window(text, request)
}

/// The code under test: the fitted window.
fn fitted(text: &str, request: LineRequest, fit: Fit) -> Result<Fitted<'_>, WindowError> {
    window::fit_window(text, request, fit)
}

impl Text {
    /// The text, or `None` for bytes that are not UTF-8 when the input asks for valid UTF-8.
    fn render(&self) -> Option<String> {
        let mut bytes = Vec::new();
        let mut big_runs = 0;
        for piece in &self.pieces {
            match *piece {
                Piece::Bytes(ref b) => bytes.extend_from_slice(b),
                Piece::Newlines(n) => bytes.extend(std::iter::repeat_n(b'\n', n.into())),
                Piece::CrLfs(n) => {
                    for _ in 0..n {
                        bytes.extend_from_slice(b"\r\n");
                    }
                }
                Piece::Run { fill, len } => {
                    let c = fill.char();
                    let count = match len {
                        RunLen::NearCap(delta) if big_runs < MAX_BIG_RUNS => {
                            big_runs += 1;
                            let target = MAX_WINDOW_BYTES as i64 + i64::from(delta);
                            (target as usize).div_ceil(c.len_utf8())
                        }
                        RunLen::NearCap(delta) => delta.unsigned_abs().into(),
                        RunLen::Short(n) => n.into(),
                    };
                    bytes.extend_from_slice(c.to_string().repeat(count).as_bytes());
                }
            }
        }
        if self.lossy {
            Some(String::from_utf8_lossy(&bytes).into_owned())
        } else {
            String::from_utf8(bytes).ok()
        }
    }
}

impl Fill {
    fn char(self) -> char {
        match self {
            Fill::Ascii => 'a',
            Fill::TwoBytes => 'é',
            Fill::ThreeBytes => '€',
            Fill::FourBytes => '😀',
            Fill::Cr => '\r',
        }
    }
}

impl Request {
    fn resolve(self, total: u64) -> LineRequest {
        match self {
            Request::OffsetLimit { offset, limit } => LineRequest::OffsetLimit {
                offset: offset.resolve(total),
                limit: match limit {
                    Limit::InRange(n) => u64::from(n) % (MAX_LIMIT + 1),
                    Limit::Any(n) => n,
                },
            },
            Request::StartEnd { start, end } => LineRequest::StartEnd {
                start: start.map(|n| n.resolve(total)),
                end: end.map(|n| n.resolve(total)),
            },
        }
    }
}

impl LineNumber {
    fn resolve(self, total: u64) -> u64 {
        match self {
            LineNumber::Small(n) => n.into(),
            LineNumber::FromEnd(n) => total.saturating_sub(n.into()),
            LineNumber::Any(n) => n,
        }
    }
}

/// The reference model: the text's lines, found the obvious way.
pub struct Lines<'a> {
    text: &'a str,
    /// The byte offset of each line's start, then the text's length.
    bounds: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut bounds = vec![0];
        for line in text.split_inclusive('\n') {
            bounds.push(bounds[bounds.len() - 1] + line.len());
        }
        Lines { text, bounds }
    }

    pub fn total(&self) -> u64 {
        (self.bounds.len() - 1) as u64
    }

    /// Lines `from..to` (zero-indexed), joined.
    fn span(&self, from: u64, to: u64) -> &'a str {
        &self.text[self.bounds[from as usize]..self.bounds[to as usize]]
    }

    fn line(&self, i: u64) -> &'a str {
        self.span(i, i + 1)
    }

    /// The zero-indexed `(offset, limit)` a request covers, or the clamped `(start, end)` of
    /// an inverted range, by the rules documented on `window::window`.
    fn range(&self, request: LineRequest) -> Result<(u64, u64), (u64, u64)> {
        let total = self.total();
        match request {
            LineRequest::OffsetLimit { offset, limit } => Ok((offset, limit)),
            LineRequest::StartEnd { .. } if total == 0 => Ok((0, 0)),
            // A start past the end is a window past the end: one line asked, none there.
            LineRequest::StartEnd { start: Some(s), .. } if s > total => Ok((s - 1, 1)),
            LineRequest::StartEnd { start, end } => {
                let start = start.unwrap_or(1).clamp(1, total);
                let end = end.unwrap_or(total).clamp(1, total);
                if start > end {
                    return Err((start, end));
                }
                Ok((start - 1, (end - start + 1).min(MAX_LIMIT)))
            }
        }
    }
}

/// Checks one window (or its error) against the model.
fn check_window(lines: &Lines<'_>, request: LineRequest, got: Result<Window<'_>, WindowError>) {
    let total = lines.total();
    let w = match (lines.range(request), got) {
        (Ok((offset, limit)), Ok(w)) => {
            assert_eq!((w.offset, w.limit), (offset, limit), "{request:?}");
            w
        }
        (
            Err((start, end)),
            Err(WindowError::InvertedRange {
                start: s,
                end: e,
                total_lines,
                ..
            }),
        ) => {
            assert_eq!((s, e, total_lines), (start, end, total), "{request:?}");
            return;
        }
        (want, got) => panic!("{request:?} on {total} lines: got {got:?}, want {want:?}"),
    };
    assert_eq!(w.total_lines, total, "{request:?}");
    assert_eq!(w.remaining(), total.saturating_sub(w.next_offset()));
    assert_eq!(w.is_partial(), w.returned < total || w.cap != Cap::None);
    assert_eq!(w.returned_lines().is_some(), w.returned > 0);
    if w.offset >= total {
        assert_eq!(
            (w.content, w.returned, w.cap),
            ("", 0, Cap::None),
            "{request:?}"
        );
        return;
    }
    let covered_end = w.offset.saturating_add(w.limit).min(total);
    let len = w.content.len();
    match w.cap {
        Cap::None => {
            assert_eq!(w.returned, covered_end - w.offset, "{request:?}");
            assert!(
                w.content == lines.span(w.offset, covered_end),
                "{request:?}"
            );
            assert!(len <= MAX_WINDOW_BYTES, "{request:?}: {len} bytes");
        }
        Cap::DroppedLines => {
            let end = w.offset + w.returned;
            assert!(w.returned > 0 && end < covered_end, "{request:?}: {w:?}");
            assert!(w.content == lines.span(w.offset, end), "{request:?}");
            assert!(len <= MAX_WINDOW_BYTES, "{request:?}: {len} bytes");
            let next = lines.line(end).len();
            assert!(
                len == MAX_WINDOW_BYTES || len + next > MAX_WINDOW_BYTES,
                "{request:?}: dropped a line of {next} bytes after {len} bytes"
            );
        }
        Cap::LineCut => {
            let line = lines.line(w.offset);
            assert_eq!(w.returned, 1, "{request:?}");
            assert!(
                line.len() > MAX_WINDOW_BYTES,
                "{request:?}: cut a short line"
            );
            assert!(line.starts_with(w.content), "{request:?}");
            // Cut at the last character boundary at or before the cap: less than one
            // character (at most 4 bytes) back.
            assert!(
                len <= MAX_WINDOW_BYTES && len + 4 > MAX_WINDOW_BYTES,
                "{len} bytes"
            );
        }
    }
}

/// Follows the hints from line 1 with the fit and checks that the windows tile the text: a
/// line a cap cut goes on from its next column in the same window, as its hint says, and the
/// window after a line's end starts at the next line's start.
fn check_rebuild(lines: &Lines<'_>, follow: Follow, fit: Fit) {
    let text = lines.text;
    let total = lines.total();
    let windows =
        (FOLLOW_SCAN_BYTES / text.len().max(1)).clamp(MIN_FOLLOWED_WINDOWS, MAX_FOLLOWED_WINDOWS);
    let limit = (u64::from(follow.limit) % MAX_LIMIT + 1)
        .max(total.div_ceil(windows as u64))
        .min(MAX_LIMIT);
    let mut request = match follow.style {
        HintStyle::OffsetLimit => LineRequest::OffsetLimit { offset: 0, limit },
        HintStyle::StartEnd => LineRequest::StartEnd {
            start: Some(1),
            end: Some(limit),
        },
    };
    let mut column = 0;
    let mut rebuilt = String::with_capacity(text.len());
    let mut done = false;
    // A budget that cuts every line makes many windows per line, each scanning its line from
    // the start: the walk is bounded in windows and in bytes scanned, and the text is compared
    // whole only when the walk reached its end.
    let mut scanned = 0;
    for _ in 0..MAX_REBUILD_WINDOWS {
        scanned += text.len();
        if scanned > MAX_REBUILD_SCAN_BYTES {
            break;
        }
        let f = fitted(text, request, Fit { column, ..fit })
            .unwrap_or_else(|e| panic!("the hint {request:?} at column {column} failed: {e}"));
        if column == 0 {
            let raw = cut(text, request).expect("the raw window of a fitted one");
            check_fitted_window(lines, request, fit, &raw, &f);
        }
        let w = f.window;
        assert!(
            !w.content.is_empty() || w.returned == 0,
            "{request:?} at column {column}"
        );
        rebuilt.push_str(w.content);
        if let Some(next) = w.next_column() {
            assert!(next > column, "column {column} did not move on");
            column = next;
            request = again(&w, follow.style);
            continue;
        }
        column = 0;
        if w.remaining() == 0 {
            done = true;
            break;
        }
        assert!(
            w.returned > 0,
            "{request:?} returned nothing, yet lines remain"
        );
        request = hint(&w, follow.style);
    }
    if done {
        assert!(rebuilt == text, "the windows do not tile the text");
    } else {
        assert!(
            text.starts_with(&rebuilt),
            "the windows so far are not the text's start"
        );
    }
}

/// Checks a fitted window (or its error) against GitLab's window for the request, `raw`, and
/// the caps.
fn check_fitted(
    lines: &Lines<'_>,
    request: LineRequest,
    fit: Fit,
    raw: Result<Window<'_>, WindowError>,
) {
    match (raw, fitted(lines.text, request, fit)) {
        (Err(raw), Err(got)) => assert_eq!(raw, got, "{request:?} {fit:?}"),
        (Ok(raw), Ok(f)) => check_fitted_window(lines, request, fit, &raw, &f),
        (raw, got) => panic!("{request:?} {fit:?}: raw {raw:?}, fitted {got:?}"),
    }
}

/// The properties of one fitted window, against GitLab's window for the request, `raw`.
fn check_fitted_window(
    lines: &Lines<'_>,
    request: LineRequest,
    fit: Fit,
    raw: &Window<'_>,
    f: &Fitted<'_>,
) {
    let w = f.window;
    assert_eq!(
        (w.offset, w.limit, w.total_lines),
        (raw.offset, raw.limit, raw.total_lines),
        "{request:?} {fit:?}"
    );
    assert_eq!(w.cap, f.shortened.cap());
    if fit == Fit::RAW {
        assert_eq!(w, *raw, "{request:?}");
    }
    check_numbers(fit, f);
    if w.returned == 0 {
        assert_eq!((f.content.as_ref(), f.shortened), ("", Shortened::None));
        return;
    }
    let covered_end = w.offset.saturating_add(w.limit).min(lines.total());
    // The one documented exception to the caps: a first line keeps its prefix and one
    // character, even when that passes a budget smaller than them.
    let first_char_floor = w.returned == 1 && w.content.chars().count() == 1;
    let within = within_caps(fit, f.content.len(), charged(&f.content)) || first_char_floor;
    match f.shortened {
        Shortened::None => {
            assert_eq!(w.returned, covered_end - w.offset, "{request:?} {fit:?}");
            assert!(w.content == lines.span(w.offset, covered_end));
            assert!(within, "{request:?} {fit:?}: over a cap");
        }
        Shortened::DroppedLines { by } => {
            let end = w.offset + w.returned;
            assert!(end < covered_end, "{request:?} {fit:?}: {w:?}");
            assert!(w.content == lines.span(w.offset, end));
            assert!(within, "{request:?} {fit:?}: over a cap");
            let next = numbered(fit, end, lines.line(end));
            let (bytes, chars) = (
                f.content.len() + next.len(),
                charged(&f.content) + charged(&next),
            );
            let at_cap = !within_caps(fit, f.content.len() + 1, charged(&f.content) + 1);
            assert!(
                at_cap || !within_caps(fit, bytes, chars),
                "{request:?} {fit:?}: dropped line {} although it fits",
                end + 1
            );
            check_budget_named(lines, request, fit, by, f);
        }
        Shortened::LineCut(c) => {
            let line = lines.line(w.offset);
            assert_eq!(w.returned, 1);
            assert_eq!(
                (c.line_bytes, c.returned_bytes),
                (line.len(), w.content.len())
            );
            assert!(c.returned_bytes < c.line_bytes && line.starts_with(w.content));
            assert!(
                !w.content.is_empty(),
                "a cut line keeps its first character"
            );
            assert!(within, "{request:?} {fit:?}: a cut line over a cap");
            match check_budget_named(lines, request, fit, c.by, f) {
                Some(open) => assert_eq!(
                    open.window.content.len().min(c.line_bytes),
                    c.bytes_without_budget.min(c.line_bytes)
                ),
                None => assert_eq!(c.bytes_without_budget, c.returned_bytes),
            }
        }
    }
}

/// `CapKind::Chars` is named only when the same request with `max_chars: 0` returns more;
/// that window is returned, for further checks.
fn check_budget_named<'t>(
    lines: &Lines<'t>,
    request: LineRequest,
    fit: Fit,
    by: CapKind,
    f: &Fitted<'_>,
) -> Option<Fitted<'t>> {
    if by != CapKind::Chars {
        return None;
    }
    assert!(fit.max_chars > 0, "the budget named without one");
    let open = fitted(
        lines.text,
        request,
        Fit {
            max_chars: 0,
            ..fit
        },
    )
    .unwrap();
    assert!(
        open.window.content.len() > f.window.content.len(),
        "{request:?} {fit:?}: the budget named, but max_chars: 0 returns no more"
    );
    Some(open)
}

/// With line numbers, each line of the content is its `cat -n` prefix and the raw line;
/// without, the content is the raw slice itself.
fn check_numbers(fit: Fit, f: &Fitted<'_>) {
    if !fit.line_numbers {
        assert!(
            f.content == f.window.content,
            "content without numbers is the raw slice"
        );
        return;
    }
    let mut raw = String::new();
    for (i, line) in f.content.split_inclusive('\n').enumerate() {
        let number = f.window.offset + 1 + i as u64;
        let prefix = format!("{number:>LINE_NUMBER_WIDTH$}\t");
        let rest = line
            .strip_prefix(&prefix)
            .unwrap_or_else(|| panic!("line {number} lacks its prefix: {line:?}"));
        raw.push_str(rest);
    }
    assert!(
        raw == f.window.content,
        "stripping the prefixes gives the raw lines"
    );
}

/// A line as the fit returns it: its prefix (with line numbers) and the line.
fn numbered(fit: Fit, index: u64, line: &str) -> String {
    if fit.line_numbers {
        format!("{:>LINE_NUMBER_WIDTH$}\t{line}", index + 1)
    } else {
        line.to_string()
    }
}

/// Whether content of `bytes` bytes and `chars` charged characters is within both caps.
fn within_caps(fit: Fit, bytes: usize, chars: u64) -> bool {
    bytes <= MAX_WINDOW_BYTES && (fit.max_chars == 0 || chars <= fit.max_chars)
}

/// What the budget charges for `s`, character by character: a C0 control JSON writes as
/// `\u00XX` (all but `\b \t \n \f \r`) costs 6, any other character 1. A transcription of the
/// documented rule, independent of `window`'s byte-level count ([`json_escapes_as_u`] checks
/// it against serde_json).
fn charged(s: &str) -> u64 {
    s.chars()
        .map(|c| if json_escapes_as_u(c) { 6 } else { 1 })
        .sum()
}

/// Whether JSON writes `c` as a six-character `\u00XX` escape.
fn json_escapes_as_u(c: char) -> bool {
    (c as u32) < 0x20 && !matches!(c, '\u{8}' | '\t' | '\n' | '\u{c}' | '\r')
}

/// The request the next-window hint names, as `response` words it.
fn hint(w: &Window<'_>, style: HintStyle) -> LineRequest {
    request_at(w.next_offset(), w, style)
}

/// The request a cut line's hint names: this window again (from the next column).
fn again(w: &Window<'_>, style: HintStyle) -> LineRequest {
    request_at(w.offset, w, style)
}

/// `w`'s limit of lines from zero-indexed `offset`, in a style.
fn request_at(offset: u64, w: &Window<'_>, style: HintStyle) -> LineRequest {
    let limit = w.limit.max(1);
    match style {
        HintStyle::OffsetLimit => LineRequest::OffsetLimit { offset, limit },
        HintStyle::StartEnd => LineRequest::StartEnd {
            start: Some(offset + 1),
            end: Some((offset + limit).min(w.total_lines)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_charge_reference_agrees_with_serde_json() {
        for c in (0u8..0x80).map(char::from) {
            let escaped = serde_json::to_string(&c.to_string()).unwrap();
            assert_eq!(json_escapes_as_u(c), escaped.starts_with("\"\\u"), "{c:?}");
        }
    }
}
