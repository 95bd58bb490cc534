//! The bottom floor of the GitLab source: HTTP to GitLab and what crosses it. The client with
//! its retries and paced bodies ([`transport`]), an LFS redirect to object storage
//! ([`storage`]), GraphQL's answer envelope ([`envelope`]), a JSON string literal decoded
//! ([`json_text`]), bytes proven to be the content they claim ([`verify`]), and what can go
//! wrong below the domain errors ([`error`]).
//!
//! Imports no other floor of the source.

pub(super) mod envelope;
pub(super) mod error;
pub(super) mod json_text;
pub(super) mod storage;
pub(super) mod transport;
pub(super) mod transport_error;
pub(super) mod verify;
