//! A file's map: its definitions (kind, qualified name, lines including the decorators,
//! attributes and doc comments that belong to them), parsed with tree-sitter, for the
//! `outline` view; and one definition found by name, for the `symbol` view.
//!
//! Pure but for [`cache`] and [`memory`] (tree-sitter's allocator, counted, so a parse can be
//! stopped by the memory it holds): [`outline`] parses a text once and walks its tree
//! ([`walk`], entering the nodes [`reach`] says a definition may lie in, with each language's
//! rules in [`rules`], and [`lead`] the comments and attributes above each definition, met as
//! it goes); [`page`] cuts an outline into a page;
//! [`symbol`] picks a definition by name. Parsing is CPU work, called synchronously at the
//! view's dispatch.

mod cache;
mod definition;
mod language;
mod lead;
mod memory;
mod name;
mod page;
mod parse;
mod reach;
mod rules;
mod symbol;
mod walk;

pub(crate) use cache::{OUTLINE_CACHE_BYTES, Outlines};
pub use definition::{Definition, Kind, Outline};
pub use language::Language;
pub(crate) use language::SUPPORTED;
pub(crate) use name::MAX_NAME_CHARS;
pub(crate) use page::{OutlinePage, OutlinePageCap, SplitLine, page};
pub use parse::{OutlineError, outline, outline_until};
pub(crate) use parse::{
    PARSE_SECONDS_BASE, PARSE_SECONDS_PER_MIB, outline_of_every_node, parse_budget,
};
pub(crate) use symbol::{Picked, SymbolError, pick};
pub(crate) use walk::MAX_DEPTH;

/// The largest file outlined (12 MiB): past GitLab's 10 MiB GraphQL cut (such files are read
/// whole, as for `pattern`), below what takes many seconds to parse. Its tree is bounded apart
/// ([`DEFAULT_PARSE_MEMORY_BYTES`]: tree-sitter holds 35 to 105 bytes of tree per byte of
/// source, so 12 MiB of Ruby would need 1.3 GB).
pub const MAX_OUTLINE_BYTES: u64 = 12 * 1024 * 1024;

/// The default bytes of syntax tree one parse may hold (`--outline-memory-bytes`): a parse
/// whose tree passes it is stopped and the file refused ([`OutlineError::OverMemory`]).
pub(crate) const DEFAULT_PARSE_MEMORY_BYTES: u64 = 512 * 1024 * 1024;
