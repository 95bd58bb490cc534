//! The GitLab connection every query shares: the transport and what the instance is known to
//! support. Cheap to clone (the capabilities are shared).

use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::capabilities::Capabilities;
use crate::config::Credential;
use crate::source::gitlab::wire::envelope::GraphqlResponse;
use crate::source::gitlab::wire::error::GitlabError;
use crate::source::gitlab::wire::transport::{FollowRedirect, RawBody, Transport};
use crate::source::gitlab::wire::transport_error::TransportError;

#[derive(Debug, Clone)]
pub(crate) struct Connection {
    transport: Transport,
    caps: Arc<Capabilities>,
}

impl Connection {
    pub(crate) fn new(transport: Transport) -> Self {
        Self {
            transport,
            caps: Arc::new(Capabilities::default()),
        }
    }

    /// What this instance is known to support.
    pub(crate) fn caps(&self) -> &Capabilities {
        &self.caps
    }

    /// Posts one GraphQL request with the caller's credential.
    pub(crate) async fn post<B: Serialize, T: DeserializeOwned + Send + 'static>(
        &self,
        body: &B,
        credential: Option<&Credential>,
    ) -> Result<GraphqlResponse<T>, GitlabError> {
        Ok(self.transport.post(body, credential).await?)
    }

    /// Gets a REST endpoint (`path_and_query` under `/api/v4/`, percent-encoded) with the
    /// caller's credential, its body left to stream; `what` names it in errors.
    pub(crate) async fn get_rest(
        &self,
        path_and_query: &str,
        what: &str,
        credential: Option<&Credential>,
    ) -> Result<RawBody, TransportError> {
        self.transport
            .get_raw(path_and_query, what, FollowRedirect::Nothing, credential)
            .await
    }
}
