//! The pure parts against their references: the fuzz corpus replayed, the search model.

mod fuzz_corpus;
mod search_model;
