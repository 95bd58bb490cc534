//! A page of matches: the groups that fit the caps, rendered in grep's
//! `-n` format, and what the caps left out.

use std::fmt::Write;

use super::super::budget::{self, cut_line};
use super::super::cap::{CapKind, LineCut};
use super::super::chars::charged_chars;
use super::super::column::char_count;
use super::groups::{Group, line_end};
use super::shortened::{PageCap, PageShortened};

/// A group separator: `--` alone on a line.
const SEPARATOR: &str = "--\n";

/// What a page may hold: lines (separators not counted), bytes, and
/// characters as the budget charges them.
#[derive(Debug, Clone, Copy)]
pub(super) struct PageBounds {
    max_lines: u64,
    /// The byte cap and the budget, as a window's caps (for cutting a line).
    caps: budget::ContentCaps,
}

impl PageBounds {
    /// The caps of a page: `max_chars` 0 (or one that cannot bind) is no
    /// budget, as for a window.
    pub(super) fn new(max_lines: u64, max_bytes: usize, max_chars: u64) -> Self {
        PageBounds {
            max_lines,
            caps: budget::ContentCaps::new(max_bytes, max_chars, false, 0),
        }
    }
}

/// The rendered page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Page {
    pub(super) content: String,
    /// The matching lines shown.
    pub(super) shown: Vec<u64>,
    /// The numbers of the first and last lines shown (0 for none).
    pub(super) first_line: u64,
    pub(super) last_line: u64,
    pub(super) shortened: PageShortened,
}

/// Takes `groups` (in order) into a page under `limits`:
///
/// 1. Each group is taken whole, with a separator before it unless it is
///    the first, if the page's lines, bytes and characters stay within the
///    caps, checked in that order for each line (so the budget is named only
///    when the line and byte caps would take the line). A group that is not
///    [`Group::whole`] never fits, by the bound of the reach it passes.
/// 2. The first group that does not fit ends the page
///    ([`PageShortened::DroppedGroups`]), unless it is the first group: then
///    it is shown from its first match, its lines taken while they fit
///    ([`PageShortened::GroupCut`]). That first line is always taken: if it
///    alone passes the byte cap or the budget it is cut as a window's single
///    line is ([`cut_line`], its prefix kept whole; [`PageShortened::LineCut`]).
/// 3. If every group fits but matches past the reach were left out of them
///    (`beyond`, the bound they pass), the page is
///    [`PageShortened::DroppedGroups`] by that bound: no page holds more.
pub(super) fn take(
    text: &str,
    groups: &[Group],
    beyond: Option<PageCap>,
    limits: &PageBounds,
) -> Page {
    let mut page = Builder {
        text,
        limits,
        out: Page {
            content: String::new(),
            shown: Vec::new(),
            first_line: 0,
            last_line: 0,
            shortened: PageShortened::None,
        },
        lines: 0,
        chars: 0,
    };
    for (i, group) in groups.iter().enumerate() {
        let Err(by) = page.whole(group, i > 0) else {
            continue;
        };
        if i == 0 {
            page.show_from_first_match(group, by);
        } else {
            page.out.shortened = PageShortened::DroppedGroups { by };
        }
        break;
    }
    if let (PageShortened::None, Some(by)) = (page.out.shortened, beyond) {
        page.out.shortened = PageShortened::DroppedGroups { by };
    }
    page.out
}

/// A page being filled.
struct Builder<'a> {
    text: &'a str,
    limits: &'a PageBounds,
    out: Page,
    /// Lines in `out.content`, and its charge under a budget (0 without).
    lines: u64,
    chars: usize,
}

/// A line of a group as the page shows it.
struct Shown<'a> {
    number: u64,
    is_match: bool,
    /// The line's bytes, terminator included.
    line: &'a str,
    /// The prefix, `N:` or `N-`.
    prefix: String,
}

impl Shown<'_> {
    /// The bytes the line adds: its prefix, itself, a `\n` if it has none.
    fn bytes(&self) -> usize {
        self.prefix.len() + self.line.len() + usize::from(!self.line.ends_with('\n'))
    }
}

impl<'a> Builder<'a> {
    /// Step 1: appends `group` whole, or leaves the page as it was and
    /// returns the cap it would pass.
    fn whole(&mut self, group: &Group, separated: bool) -> Result<(), PageCap> {
        let mark = (
            self.out.content.len(),
            self.lines,
            self.chars,
            self.out.shown.len(),
        );
        let result = self.append_group(group, separated);
        if result.is_err() {
            self.out.content.truncate(mark.0);
            (self.lines, self.chars) = (mark.1, mark.2);
            self.out.shown.truncate(mark.3);
        } else {
            self.out.last_line = group.last;
        }
        result
    }

    fn append_group(&mut self, group: &Group, separated: bool) -> Result<(), PageCap> {
        if separated {
            self.fits(0, SEPARATOR.len(), SEPARATOR.len())?;
            self.push_raw(SEPARATOR, SEPARATOR.len());
        }
        for shown in self.lines_of(group, group.first, group.start) {
            let charge = self.charge(&shown);
            self.fits(1, shown.bytes(), charge)?;
            self.push(&shown, charge);
        }
        match group.past {
            Some(cap) if !group.whole => Err(cap),
            _ => Ok(()),
        }
    }

    /// Step 2: `group` from its first match, as many lines as fit.
    fn show_from_first_match(&mut self, group: &Group, whole_by: PageCap) {
        let first = group.matches[0];
        let mut by = whole_by;
        for (i, shown) in self.lines_of(group, first.number, first.start).enumerate() {
            let charge = self.charge(&shown);
            match self.fits(1, shown.bytes(), charge) {
                Ok(()) => self.push(&shown, charge),
                Err(cap) if i == 0 => {
                    self.push_first_cut(&shown, charge, cap);
                    return;
                }
                Err(cap) => {
                    by = cap;
                    break;
                }
            }
            self.out.last_line = shown.number;
        }
        self.out.shortened = PageShortened::GroupCut { by };
    }

    /// The page's first line, over a cap: cut as a window's single line is
    /// (the prefix, and the `\n` a last line without one gets, taken from
    /// the room), or whole when the cut would keep it all.
    fn push_first_cut(&mut self, shown: &Shown<'_>, charge: usize, cap: PageCap) {
        self.out.last_line = shown.number;
        // A line without a terminator gets a `\n` when whole: its room is one less.
        let room_taken = shown.prefix.len() + usize::from(!shown.line.ends_with('\n'));
        let Some(cut) = cut_line(shown.line, room_taken, &self.limits.caps) else {
            self.push(shown, charge);
            self.out.shortened = PageShortened::GroupCut { by: cap };
            return;
        };
        // `cut_line` keeps a char boundary of the line.
        let kept = &shown.line[..cut.kept];
        self.out.first_line = shown.number;
        self.out.content.push_str(&shown.prefix);
        self.out.content.push_str(kept);
        self.out.shown.push(shown.number);
        self.lines += 1;
        self.out.shortened = PageShortened::LineCut {
            number: shown.number,
            cut: LineCut {
                by: cut.by,
                line_bytes: shown.line.len(),
                returned_bytes: cut.kept,
                bytes_without_budget: cut.kept_by_bytes,
                line_chars: (cut.by == CapKind::Chars)
                    .then(|| charged_chars(shown.line.as_bytes())),
                chars: char_count(shown.line.as_bytes()),
            },
        };
    }

    /// The lines of `group` from line `number`, which starts at byte
    /// `start`, to its last.
    fn lines_of(
        &self,
        group: &'a Group,
        number: u64,
        start: usize,
    ) -> impl Iterator<Item = Shown<'a>> + 'a {
        let text = self.text;
        let mut matches = group.matches.iter().peekable();
        let mut at = start;
        (number..=group.last).map(move |n| {
            let end = line_end(text.as_bytes(), at, text.len());
            // `at` and `end` follow a `\n` or are the text's ends: char
            // boundaries.
            let line = &text[at..end];
            at = end;
            while matches.next_if(|m| m.number < n).is_some() {}
            let is_match = matches.next_if(|m| m.number == n).is_some();
            let mut prefix = String::with_capacity(21);
            // Writing to a `String` cannot fail.
            let _ = write!(prefix, "{n}{}", if is_match { ':' } else { '-' });
            Shown {
                number: n,
                is_match,
                line,
                prefix,
            }
        })
    }

    /// What the budget charges for `shown` (0 without a budget).
    fn charge(&self, shown: &Shown<'_>) -> usize {
        if self.limits.caps.max_chars.is_none() {
            return 0;
        }
        shown.prefix.len()
            + charged_chars(shown.line.as_bytes())
            + usize::from(!shown.line.ends_with('\n'))
    }

    /// Whether `lines`, `bytes` and `chars` more stay within the caps, and
    /// else the first cap passed, in the order lines, bytes, characters.
    fn fits(&self, lines: u64, bytes: usize, chars: usize) -> Result<(), PageCap> {
        let caps = &self.limits.caps;
        if self.lines + lines > self.limits.max_lines {
            return Err(PageCap::Lines);
        }
        if self.out.content.len() + bytes > caps.max_bytes {
            return Err(PageCap::Bytes);
        }
        match caps.max_chars {
            Some(max) if self.chars + chars > max => Err(PageCap::Chars),
            _ => Ok(()),
        }
    }

    fn push(&mut self, shown: &Shown<'_>, charge: usize) {
        if self.lines == 0 {
            self.out.first_line = shown.number;
        }
        self.out.content.push_str(&shown.prefix);
        self.push_raw(shown.line, charge);
        if !shown.line.ends_with('\n') {
            self.out.content.push('\n');
        }
        self.lines += 1;
        if shown.is_match {
            self.out.shown.push(shown.number);
        }
    }

    fn push_raw(&mut self, s: &str, charge: usize) {
        self.out.content.push_str(s);
        self.chars += charge;
    }
}
