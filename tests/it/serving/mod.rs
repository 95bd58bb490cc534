//! The transports and their guards: HTTP, sessions, tokens, metrics, deadlines, the CPU pool.

mod cpu_decode;
mod cpu_pool;
mod hardening;
mod http;
mod metrics;
mod missing_token;
mod outline_http;
mod resources_http;
mod sessions;
mod stdio_deadline;
