//! The sign-in's clients: what they may say about themselves and how it is checked. A client
//! is either registered at `/register` (its `client_id` the registration, sealed; the handler
//! is `auth::register`) or names itself with an https URL, a Client ID Metadata Document
//! fetched from there ([`fetch`], with SSRF in mind: [`address`]). Both give a name and
//! redirect URIs checked alike ([`document`]); a request's redirect URI is matched against
//! them in [`redirect`].
//!
//! Below the sign-in's handlers: nothing here imports `auth`'s state or handlers.

mod address;
mod document;
mod fetch;
pub(crate) mod redirect;

pub(crate) use self::document::{ClientMetadata, ClientMetadataError, is_document_url, shown_name};
pub(crate) use self::fetch::ClientDocuments;
