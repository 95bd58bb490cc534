//! The ground floor: small pieces every floor stands on, each importing nothing of the crate
//! above it. How an error quotes a caller's value ([`quote`]), keeps secrets out of what is
//! shown ([`redact`]) and carries a library error as its cause ([`cause`]); a bounded
//! least-recently-used map ([`lru`]); freed memory given back to the system ([`memory`]); CPU-bound work off the async workers ([`cpu`]); a call's
//! time waiting on GitLab ([`timing`]); the tools' names, which the MCP face publishes and the
//! metrics label calls with ([`tool_name`]); whether a setting is a client's placeholder left
//! unexpanded ([`placeholder`]).

pub(crate) mod cause;
pub(crate) mod cpu;
pub(crate) mod lru;
pub(crate) mod memory;
pub(crate) mod placeholder;
pub(crate) mod quote;
pub(crate) mod redact;
pub(crate) mod timing;
pub(crate) mod tool_name;
