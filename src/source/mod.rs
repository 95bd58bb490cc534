//! Where the bytes come from. [`Blob`] and [`SourceError`] are what every source returns;
//! [`local`] reads a local git repository (the GitLab source lives in `crate::gitlab`).
mod blob;
pub mod local;

pub use blob::*;
