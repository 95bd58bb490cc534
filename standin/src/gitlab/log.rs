//! What the stand-in saw and sent: every GraphQL body and REST path, every refusal, and the
//! requests and body bytes of each endpoint ([`Traffic`]), before and after compression. Tests
//! count requests and bytes from here; benches subtract two [`Traffic`] snapshots.

use serde_json::Value;

/// Requests and response body bytes (before compression).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    pub requests: u64,
    pub bytes: u64,
}

impl Count {
    fn add(&mut self, bytes: usize) {
        self.requests += 1;
        self.bytes += bytes as u64;
    }

    fn minus(self, earlier: Count) -> Count {
        Count {
            requests: self.requests - earlier.requests,
            bytes: self.bytes - earlier.bytes,
        }
    }

    fn plus(self, other: Count) -> Count {
        Count {
            requests: self.requests + other.requests,
            bytes: self.bytes + other.bytes,
        }
    }
}

/// Each endpoint's count, at one moment (or, after [`Traffic::since`], in an interval).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Traffic {
    pub graphql: Count,
    /// GraphQL requests that asked for content.
    pub with_content: u64,
    /// `GET …/repository/blobs/:oid/raw`.
    pub blob_raw: Count,
    /// `GET …/repository/files/:path/raw`.
    pub file_raw: Count,
    /// Any other REST request (code search, unknown paths).
    pub other_rest: Count,
}

impl Traffic {
    /// What was served between `earlier` and `self`.
    pub fn since(&self, earlier: &Traffic) -> Traffic {
        Traffic {
            graphql: self.graphql.minus(earlier.graphql),
            with_content: self.with_content - earlier.with_content,
            blob_raw: self.blob_raw.minus(earlier.blob_raw),
            file_raw: self.file_raw.minus(earlier.file_raw),
            other_rest: self.other_rest.minus(earlier.other_rest),
        }
    }

    /// REST requests of every kind.
    pub fn rest(&self) -> Count {
        self.blob_raw.plus(self.file_raw).plus(self.other_rest)
    }

    /// Every request to GitLab.
    pub fn total(&self) -> Count {
        self.graphql.plus(self.rest())
    }
}

/// The endpoint an answer counts under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    Graphql {
        with_content: bool,
    },
    BlobRaw,
    FileRaw,
    OtherRest,
    /// Sign-in endpoints: logged, not counted as traffic.
    Oauth,
}

/// What the stand-in saw and sent.
#[derive(Default, Debug, Clone)]
pub struct Log {
    /// Every GraphQL request body, in order.
    pub graphql: Vec<Value>,
    /// The first error message of every GraphQL refusal, in order.
    pub refused: Vec<String>,
    /// Every REST path (with query) asked for.
    pub rest: Vec<String>,
    /// Response body bytes as sent (compressed when compressed).
    pub wire: usize,
    /// Response body bytes before compression.
    pub plain: usize,
    pub traffic: Traffic,
    /// Log no GraphQL bodies (a bench's thousands of requests).
    pub forget_bodies: bool,
}

impl Log {
    /// Logs a GraphQL request body, unless told to forget them.
    pub fn keep(&mut self, body: &Value) {
        if !self.forget_bodies {
            self.graphql.push(body.clone());
        }
    }

    /// Counts one answer of `plain` bytes, `wire` of them on the wire.
    pub fn sent(&mut self, endpoint: Endpoint, plain: usize, wire: usize) {
        self.plain += plain;
        self.wire += wire;
        let t = &mut self.traffic;
        match endpoint {
            Endpoint::Graphql { with_content } => {
                t.graphql.add(plain);
                t.with_content += u64::from(with_content);
            }
            Endpoint::BlobRaw => t.blob_raw.add(plain),
            Endpoint::FileRaw => t.file_raw.add(plain),
            Endpoint::OtherRest => t.other_rest.add(plain),
            Endpoint::Oauth => {}
        }
    }
}

/// What the stand-in sent, as the blob-cache tests count it.
#[derive(Default, Debug, Clone)]
pub struct Sent {
    pub graphql: usize,
    /// GraphQL requests that asked for content.
    pub with_content: usize,
    pub rest: usize,
    /// Response body bytes, GraphQL and REST together.
    pub bytes: usize,
}

impl From<&Traffic> for Sent {
    fn from(t: &Traffic) -> Sent {
        Sent {
            graphql: t.graphql.requests as usize,
            with_content: t.with_content as usize,
            rest: t.rest().requests as usize,
            bytes: t.total().bytes as usize,
        }
    }
}
