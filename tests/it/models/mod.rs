//! The pure parts against their references: the fuzz corpus replayed, the search model; and an
//! agent that follows only the hints, over MCP.

mod agent_progress;
mod fuzz_corpus;
mod hint_following;
mod search_model;
