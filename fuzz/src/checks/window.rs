//! Target `window`: a text and a line request built from structured input (`arbitrary` over
//! the raw bytes), cut by `gitlab_file_mcp::window::window`.
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
//! - following the next-window hints from line 1, as `response` words them, in either style,
//!   rebuilds the text exactly unless a window was a `Cap::LineCut`, and every window on the
//!   way satisfies the model too.
//!
//! The one call of the code under test is [`cut`], so a new window parameter (a character
//! budget) is one field of [`Input`] and one argument of [`cut`].

use arbitrary::{Arbitrary, Unstructured};
use gitlab_file_mcp::window::{
    self, Cap, LineRequest, MAX_LIMIT, MAX_WINDOW_BYTES, Window, WindowError,
};

/// The most runs near the byte cap one input makes: enough for two capped windows in a row.
pub const MAX_BIG_RUNS: usize = 2;

/// About this many bytes are scanned while following the hints to rebuild a text: each
/// window scans the text from its start, so the chain's limit is raised for texts of many
/// lines, up to the text's lines over [`MIN_FOLLOWED_WINDOWS`] (or [`MAX_LIMIT`]), to keep
/// a fuzz run fast. Capped windows still come one line at a time.
const FOLLOW_SCAN_BYTES: usize = 8 << 20;

/// The fewest windows the chain's limit is raised to aim for.
const MIN_FOLLOWED_WINDOWS: usize = 4;

/// The most windows the chain's limit is raised to aim for.
const MAX_FOLLOWED_WINDOWS: usize = 256;

#[derive(Arbitrary, Debug)]
pub struct Input {
    request: Request,
    follow: Follow,
    text: Text,
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
    check_window(&lines, request, cut(&text, request));
    check_rebuild(&lines, input.follow);
}

/// The code under test: the one place a window is cut.
fn cut(text: &str, request: LineRequest) -> Result<Window<'_>, WindowError> {
    window::window(text, request)
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

/// Follows the hints from line 1 and checks that the windows rebuild the text.
fn check_rebuild(lines: &Lines<'_>, follow: Follow) {
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
    let mut rebuilt = String::with_capacity(text.len());
    let mut line_cut = false;
    loop {
        let got = cut(text, request);
        let w = got.unwrap_or_else(|e| panic!("the hint {request:?} failed: {e}"));
        check_window(lines, request, got);
        rebuilt.push_str(w.content);
        line_cut |= w.cap == Cap::LineCut;
        if w.remaining() == 0 {
            break;
        }
        assert!(
            w.returned > 0,
            "{request:?} returned nothing, yet lines remain"
        );
        request = hint(&w, follow.style);
    }
    if line_cut {
        assert!(rebuilt.len() < text.len());
    } else {
        assert!(rebuilt == text, "the windows do not rebuild the text");
    }
}

/// The request the next-window hint names, as `response` words it.
fn hint(w: &Window<'_>, style: HintStyle) -> LineRequest {
    let next = w.next_offset();
    let limit = w.limit.max(1);
    match style {
        HintStyle::OffsetLimit => LineRequest::OffsetLimit {
            offset: next,
            limit,
        },
        HintStyle::StartEnd => LineRequest::StartEnd {
            start: Some(next + 1),
            end: Some((next + limit).min(w.total_lines)),
        },
    }
}
