//! The faults of networks and proxies the stand-in can be told to answer with: REST statuses,
//! REST bodies that are not the blob ([`Bent`]), GraphQL texts that are not the blob's
//! ([`BentText`]). Each list is taken in order, one per answer, before answering normally.

use sha2::{Digest, Sha256};
use wiremock::ResponseTemplate;

use super::repository::{hex, pointer};

/// A REST body that is not the blob: what a proxy or a broken cache in between can do.
#[derive(Clone, Copy, Debug)]
pub enum Bent {
    /// The first half, with a Content-Length to match.
    Short,
    /// The blob and more.
    Long,
    /// The same length, the first line replaced.
    Altered,
    /// The same length, a NUL first.
    Binary,
    /// An answer that does not come within the test (an hour late).
    Stalled,
    /// An LFS object's pointer instead of the object (GitLab's answer when it lacks it).
    Pointer,
    /// A redirect to another host, with secrets in its Location.
    Redirect,
}

/// A GraphQL `rawTextBlob` that is not the blob's.
#[derive(Clone, Copy, Debug)]
pub enum BentText {
    /// `null`, GitLab's word for a binary blob.
    Null,
    /// Half of it.
    Short,
}

/// The Location of [`Bent::Redirect`]: user info, a token in the query, and a long path.
pub fn secret_location() -> String {
    format!(
        "https://robot:hunter2@elsewhere.example/{}?private_token=SECRET-TOKEN&x=1",
        "very/long/".repeat(30)
    )
}

/// `bytes` bent as `how` says.
pub fn bend(bytes: Vec<u8>, how: Bent) -> ResponseTemplate {
    let mut bytes = bytes;
    match how {
        Bent::Short => bytes.truncate(bytes.len() / 2),
        Bent::Long => bytes.extend_from_slice(b"POISONED tail\n"),
        Bent::Altered => bytes[..9].copy_from_slice(b"POISONED "),
        Bent::Binary => bytes[0] = 0,
        Bent::Stalled => {
            return ResponseTemplate::new(200)
                .set_body_raw(bytes, "text/plain")
                .set_delay(std::time::Duration::from_secs(3600));
        }
        Bent::Redirect => {
            return ResponseTemplate::new(302).insert_header("location", secret_location());
        }
        Bent::Pointer => bytes = pointer(&hex(&Sha256::digest(&bytes)), bytes.len()),
    }
    ResponseTemplate::new(200).set_body_raw(bytes, "text/plain")
}

/// The next of a list of faults, taken.
pub fn next<T>(list: &std::sync::Mutex<Vec<T>>) -> Option<T> {
    let mut list = list.lock().unwrap();
    (!list.is_empty()).then(|| list.remove(0))
}
