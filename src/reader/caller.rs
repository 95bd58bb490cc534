//! Who a call comes from, as the steps of a read need it ([`CallerContext`]): the credential it
//! reads with, and the caller the memory of the last blob read keys it by, when this server can
//! tell the caller apart from others.

use crate::config::Credential;
use crate::reader::history::Caller;

/// Who a call comes from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallerContext<'a> {
    /// The token the call reads with (the server's, or the request's); `None` reads anonymously.
    pub credential: Option<&'a Credential>,
    /// The caller the "file changed" memory keys reads by; `None` when calls cannot be told
    /// apart (HTTP with the server's token and no session), and nothing is remembered.
    pub caller: Option<Caller>,
}
