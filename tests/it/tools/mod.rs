//! What an agent sees of both tools over MCP: against wiremock GitLabs and a local repository.

mod batch;
mod batch_bounds;
mod client_limits;
mod find;
mod gitlab_tool;
mod gitlab_urls;
mod local_repo;
mod outline;
mod outline_abuse;
mod resources;
mod search;
mod search_linear;
mod small_holes;
mod views;
mod windows;
