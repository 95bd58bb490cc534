//! The fuzz targets' library: the properties they check, in [`checks`]. The corpus replay test
//! (`tests/it/models/fuzz_corpus.rs` in the main crate) includes the same files with `#[path]`, so every
//! corpus file is checked on stable too.
pub mod checks;
