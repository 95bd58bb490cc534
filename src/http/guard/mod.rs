//! The checks a request passes before it reaches the tool, each refusing with its own status:
//! what they share ([`admission`]), the header checks ([`gate`]: [`origin`], [`host`]), the
//! token headers read and hidden ([`token`], for the door above), the body received whole
//! ([`body`]), and a free slot within a deadline ([`capacity`]); every refusal of the HTTP layer, told in one place ([`refusal`]).
//!
//! May import `wording/`; never the sessions or the app above it.

pub(super) mod admission;
pub(super) mod body;
pub(super) mod capacity;
pub(super) mod gate;
pub(super) mod host;
pub(super) mod origin;
pub(super) mod refusal;
pub(super) mod token;
