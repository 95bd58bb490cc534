//! MCP sessions over HTTP: who owns each ([`session`]), whether one may open
//! ([`session_open`]: a free slot, [`session_slots`]), rmcp's session manager told when one ends ([`counted_sessions`]), the
//! memory of ended ones given back ([`give_back`]), and a token kept only as a keyed
//! [`fingerprint`].
//!
//! May import `guard/` and `wording/`; never the door or the app above it.

pub(super) mod counted_sessions;
pub(super) mod fingerprint;
pub(super) mod give_back;
pub(super) mod session;
pub(super) mod session_open;
pub(super) mod session_slots;
