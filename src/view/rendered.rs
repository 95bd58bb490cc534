//! A rendered answer ([`Rendered`]): the output object, what its content was charged, and
//! whether it holds all the call asked for.

use super::error::ViewError;

/// A rendered answer: the output object, what its content was charged against the budget, and
/// whether it holds everything the call asked for (what a batch's index calls `complete`).
#[derive(Debug)]
pub(crate) struct Rendered {
    pub output: serde_json::Value,
    pub charged: u64,
    pub complete: bool,
}

impl Rendered {
    /// `output`, complete unless its `metadata.truncated` is true (a page of matches or of
    /// definitions with more left, a window that is not the whole file): a window's renderer
    /// says better ([`Rendered::complete`]).
    pub(super) fn of(output: impl serde::Serialize, charged: usize) -> Result<Self, ViewError> {
        let output = serde_json::to_value(output).map_err(ViewError::Output)?;
        let truncated = output
            .pointer("/metadata/truncated")
            .and_then(serde_json::Value::as_bool);
        Ok(Self {
            complete: truncated != Some(true),
            output,
            charged: charged as u64,
        })
    }

    /// The answer, saying whether it holds all the call asked for.
    pub(super) fn complete(self, complete: bool) -> Self {
        Self { complete, ..self }
    }
}
