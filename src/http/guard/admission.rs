//! What every request to `/mcp` is checked against, shared by the checks of `gate`, `body` and
//! `capacity` (built by `app` from the flags).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;

use super::origin::OriginPolicy;

/// What every request to `/mcp` is checked against, and the slots it takes.
#[derive(Debug)]
pub(crate) struct Admission {
    pub allowed_hosts: Vec<String>,
    pub origins: OriginPolicy,
    pub max_body: usize,
    pub body_timeout: Duration,
    pub slots: Arc<Semaphore>,
    pub request_timeout: Duration,
}
