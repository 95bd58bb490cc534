//! What the tests share: the binary over stdio (`mcp`) and HTTP (`http_server`), the GitLab
//! stand-in (`gitlab`, and the answer shapes of `gitlab_mock` for scripted tests: the
//! `gitlab-standin` crate of `standin/`, which the benches share; `users`), git fixtures, the
//! heavy work of the CPU tests and the environment a spawned server must not inherit (`env`).

pub mod env;
pub mod git_fixture;
pub mod heavy_work;
pub mod http_server;
pub mod mcp;
pub mod users;
pub mod wire;

pub use gitlab_standin::{gitlab, gitlab_mock, python_modules};
