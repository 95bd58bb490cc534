//! The checks a request passes before it reaches the tool, each refusing with its own status:
//! what they share ([`admission`]), who the caller is ([`mode`], decided once), the header checks ([`gate`]: [`origin`], [`host`], the
//! caller's [`token`]), the body received whole ([`body`]), and a free slot within a deadline
//! ([`capacity`]).
//!
//! May import `wording/`; never the sessions or the app above it.

pub(super) mod admission;
pub(super) mod body;
pub(super) mod capacity;
pub(super) mod gate;
pub(super) mod host;
pub(super) mod mode;
pub(super) mod origin;
pub(super) mod token;
