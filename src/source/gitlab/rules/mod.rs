//! GitLab's own rules, as pure functions: Duo context exclusion ([`exclusion`]) and what makes
//! an answer citable ([`permalink`]).
//!
//! Imports no other floor.

pub(super) mod exclusion;
pub(super) mod permalink;
