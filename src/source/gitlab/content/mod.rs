//! A blob's bytes, once GitLab's answer has named them: the one way in ([`store`]), the blob
//! cache ([`cache`]), REST downloads one flight per address ([`download`], [`flights`]) of the
//! raw endpoints ([`raw`]), and the typed keys they are filed under ([`keys`]).
//!
//! May import `query/` (the answer's decoded blob), `rules/` and `wire/`; never `read/`.

pub(super) mod cache;
pub(super) mod download;
pub(super) mod flights;
pub(super) mod keys;
pub(super) mod raw;
pub(super) mod store;
