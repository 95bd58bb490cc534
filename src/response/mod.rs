//! What the agent reads of a window: the tool's output object and its `system_instruction`
//! hints. The errors it carries are worded beside their own types, where they are defined.
//!
//! Output and hints follow GitLab's own `get_repository_file` tool word for word where it has
//! words; the `start_line`/`end_line` hints and the URL-split note are ours.

pub(crate) mod batch;
pub(crate) mod limit;
pub(crate) mod message;
mod next;
mod notes;
mod outline;
mod output;
mod search;
mod window;

pub(crate) use outline::{OutlineShown, outline_output, symbol_output};
pub(crate) use output::ReadFacts;
pub(crate) use search::search_output;
pub(crate) use window::{file_output, held_output};
