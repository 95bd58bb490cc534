//! A rendered answer ([`Rendered`]): the output object, and what its content was charged.

use super::error::ViewError;

/// A rendered answer: the output object, and what its content was charged against the budget.
#[derive(Debug)]
pub(crate) struct Rendered {
    pub output: serde_json::Value,
    pub charged: u64,
}

impl Rendered {
    pub(super) fn of(output: impl serde::Serialize, charged: usize) -> Result<Self, ViewError> {
        Ok(Self {
            output: serde_json::to_value(output).map_err(ViewError::Output)?,
            charged: charged as u64,
        })
    }
}
