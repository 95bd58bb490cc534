//! The next call a hint names ([`Continuation`]): built as a value from the arguments it sets and
//! written once, as the hint's first JSON object, so no text of the file or of an argument can
//! stand in for it; its lines in the vocabulary of the call it continues (`offset`/`limit`
//! after `offset`/`limit`, else `start_line`/`end_line`), since a merge of both is refused.

use std::fmt::{self, Display, Formatter};

use serde_json::Value;

use crate::resolve::HintStyle;
use crate::resolve::args::ArgName;
use crate::window::LineRequest;

/// The arguments of the next call, in the order the hint writes them.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Continuation(Vec<(ArgName, Value)>);

impl Continuation {
    /// `name` set to `value`.
    pub(super) fn with(mut self, name: ArgName, value: impl Into<Value>) -> Self {
        self.0.push((name, value.into()));
        self
    }

    /// `name` set to `value` when there is one.
    pub(super) fn with_some(self, name: ArgName, value: Option<impl Into<Value>>) -> Self {
        match value {
            Some(value) => self.with(name, value),
            None => self,
        }
    }

    /// The lines from `start` to `end` (1-indexed, inclusive; `None`: to the file's end), in
    /// the vocabulary of `continued`, the lines the call being continued named: `offset` and
    /// `limit` after `offset`/`limit` (whose end is always known), else `start_line` and
    /// `end_line`.
    pub(super) fn lines(
        self,
        continued: Option<LineRequest>,
        start: u64,
        end: Option<u64>,
    ) -> Self {
        let style = match continued {
            Some(LineRequest::OffsetLimit { .. }) => HintStyle::OffsetLimit,
            _ => HintStyle::StartEnd,
        };
        self.lines_in(style, start, end)
    }

    /// [`Continuation::lines`] in the vocabulary `style` names.
    pub(super) fn lines_in(self, style: HintStyle, start: u64, end: Option<u64>) -> Self {
        match (style, end) {
            (HintStyle::OffsetLimit, Some(end)) => self
                .with(ArgName::Offset, start.saturating_sub(1))
                .with(ArgName::Limit, end.saturating_sub(start) + 1),
            _ => self
                .with(ArgName::StartLine, start)
                .with_some(ArgName::EndLine, end),
        }
    }
}

impl Display for Continuation {
    /// `{"name": value, …}`, each value as JSON writes it.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, (name, value)) in self.0.iter().enumerate() {
            let comma = if i == 0 { "" } else { ", " };
            write!(f, "{comma}\"{}\": {value}", name.as_str())?;
        }
        f.write_str("}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_lines_speak_the_continued_calls_vocabulary() {
        let offset = Some(LineRequest::OffsetLimit {
            offset: 0,
            limit: 100,
        });
        let next = Continuation::default().with(ArgName::Outline, true);
        assert_eq!(
            next.clone().lines(offset, 41, Some(100)).to_string(),
            r#"{"outline": true, "offset": 40, "limit": 60}"#
        );
        assert_eq!(
            next.clone().lines(None, 41, None).to_string(),
            r#"{"outline": true, "start_line": 41}"#
        );
        let start_end = Some(LineRequest::StartEnd {
            start: Some(1),
            end: Some(100),
        });
        assert_eq!(
            next.lines(start_end, 41, Some(100)).to_string(),
            r#"{"outline": true, "start_line": 41, "end_line": 100}"#
        );
    }

    #[test]
    fn values_are_written_as_json() {
        let next = Continuation::default().with(ArgName::Pattern, "}{\"column\": 3}");
        assert_eq!(next.to_string(), r#"{"pattern": "}{\"column\": 3}"}"#);
    }
}
