//! What the tests share: the binary over stdio (`mcp`) and HTTP (`http_server`), GitLab
//! stand-ins (`gitlab_mock`, `faulty_gitlab`, `deployed_gitlab`, `users`), git fixtures, the
//! heavy work of the CPU tests and the environment a spawned server must not inherit (`env`).

pub mod deployed_gitlab;
pub mod env;
pub mod faulty_gitlab;
pub mod git_fixture;
pub mod gitlab_mock;
pub mod heavy_work;
pub mod http_server;
pub mod mcp;
pub mod tree_gitlab;
pub mod users;
pub mod wire;
