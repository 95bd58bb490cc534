//! rmcp's in-memory session manager, told when a session ends: each method is rmcp's own,
//! and [`SessionManager::close_session`] (a `DELETE`, or a session idle past
//! `--session-idle-secs`, whose worker then closes it) also frees the session's slot
//! ([`Slots::release`]), forgets its owner ([`Owners::ended`]), updates the open-sessions
//! gauge and lets the allocator give the memory back ([`Trimmer`]). Nothing else is kept
//! here.

use std::sync::Arc;
use std::time::Duration;

use futures_util::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};

use super::give_back::Trimmer;
use super::session::Owners;
use super::session_slots::Slots;
use crate::metrics;

/// [`LocalSessionManager`], counting sessions out as they end.
#[derive(Debug)]
pub(crate) struct CountedSessions {
    inner: LocalSessionManager,
    slots: Arc<Slots>,
    owners: Arc<Owners>,
    trimmer: Trimmer,
}

impl CountedSessions {
    /// Sessions closed after `idle` without a request (rmcp's keep-alive).
    pub(crate) fn new(idle: Duration, slots: Arc<Slots>, owners: Arc<Owners>) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(idle);
        Self {
            inner,
            slots,
            owners,
            trimmer: Trimmer::default(),
        }
    }

    /// Whether rmcp still holds `session` (it may have ended before its slot was bound).
    pub(crate) async fn holds(&self, session: &str) -> bool {
        let id: SessionId = Arc::from(session);
        self.inner.has_session(&id).await.unwrap_or(false)
    }
}

impl SessionManager for CountedSessions {
    type Error = LocalSessionManagerError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        self.inner.create_session().await
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    /// rmcp's close, then the slot and the owner: removed from rmcp's map first, so a request
    /// binding a slot for it after this sees it gone ([`Self::holds`]).
    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        let closed = self.inner.close_session(id).await;
        self.owners.ended(id);
        if self.slots.release(id) {
            let open = self.slots.open();
            metrics::sessions_open(open);
            self.trimmer.ended(open);
        }
        closed
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_stream(id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.resume(id, last_event_id).await
    }
}
