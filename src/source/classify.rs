//! What a blob's bytes are: binary by git's and GitLab's NUL test ([`looks_binary`]), and, for
//! a source that holds the bytes (the local repository), text, binary or a Git LFS pointer
//! ([`classify`]). Pure.

use std::sync::Arc;

use super::blob::BlobKind;

/// Bytes at the start of a file searched for a NUL (git's and GitLab's binary heuristic).
pub(crate) const BINARY_SNIFF_LEN: usize = 8_000;

/// True when a NUL byte occurs in the first [`BINARY_SNIFF_LEN`] bytes: git's and GitLab's
/// test for a binary file.
pub(crate) fn looks_binary(data: &[u8]) -> bool {
    data[..data.len().min(BINARY_SNIFF_LEN)].contains(&0)
}

/// A Git LFS pointer file is smaller than this (git-lfs spec).
const LFS_POINTER_MAX_LEN: usize = 1024;

/// How a Git LFS pointer starts (GitLab checks this prefix; the spec's version line is
/// `version https://git-lfs.github.com/spec/v1`).
const LFS_VERSION_PREFIX: &str = "version https://git-lfs.github.com/spec/";

/// Size and kind of a blob from its bytes (taken by value: text becomes the `String` without a
/// copy).
///
/// - A Git LFS pointer → [`BlobKind::Lfs`] with the size the pointer names; the pointer text is
///   dropped.
/// - A NUL in the first 8,000 bytes, or not valid UTF-8 → [`BlobKind::Binary`].
/// - Otherwise → [`BlobKind::Text`], never cut.
pub(crate) fn classify(data: Vec<u8>) -> (u64, BlobKind) {
    if let Some(lfs_size) = lfs_pointer_size(&data) {
        let kind = BlobKind::Lfs {
            storage: "lfs".to_owned(),
        };
        return (lfs_size, kind);
    }
    // usize is at most 64 bits on every target Rust supports, so this never truncates.
    let size = data.len() as u64;
    if looks_binary(&data) {
        return (size, BlobKind::Binary);
    }
    let kind = match String::from_utf8(data) {
        Ok(content) => BlobKind::Text {
            content: Arc::new(content.into()),
            cut_by_read_limit: false,
        },
        Err(_) => BlobKind::Binary,
    };
    (size, kind)
}

/// The LFS object size named by `data` if it is a Git LFS pointer: smaller than 1024 bytes,
/// UTF-8, first line `version https://git-lfs.github.com/spec/…`, and lines
/// `oid sha256:<64 lowercase hex>` and `size <decimal>`.
pub(crate) fn lfs_pointer_size(data: &[u8]) -> Option<u64> {
    if data.len() >= LFS_POINTER_MAX_LEN {
        return None;
    }
    let text = std::str::from_utf8(data).ok()?;
    let mut lines = text.lines();
    if !lines.next()?.starts_with(LFS_VERSION_PREFIX) {
        return None;
    }
    let mut has_oid = false;
    let mut size = None;
    for line in lines {
        if let Some(hex) = line.strip_prefix("oid sha256:") {
            has_oid =
                hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        } else if let Some(digits) = line.strip_prefix("size ") {
            size = digits
                .bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| digits.parse::<u64>().ok())
                .flatten();
        }
    }
    if has_oid { size } else { None }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::source::git_fixture as fx;

    /// A text blob's kind, whole.
    pub(crate) fn text(s: &str) -> BlobKind {
        BlobKind::Text {
            content: Arc::new(s.into()),
            cut_by_read_limit: false,
        }
    }

    #[test]
    fn classify_text_binary_and_invalid_utf8() {
        assert_eq!(classify(b"a\r\nb".to_vec()), (4, text("a\r\nb")));
        assert_eq!(classify(Vec::new()), (0, text("")));
        assert_eq!(classify("é🦀".as_bytes().to_vec()), (6, text("é🦀")));
        assert_eq!(classify(b"a\0b".to_vec()), (3, BlobKind::Binary));
        assert_eq!(classify(b"caf\xe9".to_vec()), (4, BlobKind::Binary));
        // A NUL at byte 7,999 counts; a NUL after the first 8,000 bytes does not (still text).
        let mut early = vec![b'a'; 9_000];
        early[7_999] = 0;
        assert_eq!(classify(early).1, BlobKind::Binary);
        let mut late = vec![b'a'; 9_000];
        late[8_000] = 0;
        assert!(matches!(classify(late).1, BlobKind::Text { .. }));
    }

    #[test]
    fn classify_text_reuses_the_buffer() {
        let data = b"no copy".to_vec();
        let ptr = data.as_ptr();
        match classify(data).1 {
            BlobKind::Text { content, .. } => assert_eq!(content.as_ptr(), ptr),
            other => panic!("expected text, got {other:?}"),
        }
    }

    const OID: &str = "91eff75a492a3ed0dfcb544d7f31326bc4014c8551849c192fd1e48d4dd2c897";

    #[test]
    fn lfs_pointer_detection() {
        let pointer = fx::LFS_POINTER.as_bytes();
        assert_eq!(lfs_pointer_size(pointer), Some(1_575_078));
        let kind = BlobKind::Lfs {
            storage: "lfs".to_owned(),
        };
        assert_eq!(classify(pointer.to_vec()), (1_575_078, kind));
        // Extension lines and no trailing newline are fine.
        let ext = format!(
            "version https://git-lfs.github.com/spec/v1\next-0-foo sha256:{OID}\noid sha256:{OID}\nsize 12"
        );
        assert_eq!(lfs_pointer_size(ext.as_bytes()), Some(12));
    }

    #[test]
    fn lfs_lookalikes_are_not_pointers() {
        let v = "version https://git-lfs.github.com/spec/v1";
        let cases = [
            format!("{v}\nsize 12\n"),                                        // no oid
            format!("{v}\noid sha256:{OID}\n"),                               // no size
            format!("{v}\noid sha256:{}\nsize 12\n", &OID[..63]),             // short oid
            format!("{v}\noid sha256:{}\nsize 12\n", OID.to_uppercase()),     // not lowercase
            format!("{v}\noid sha256:{OID}\nsize +12\n"),                     // not digits
            format!("{v}\noid sha256:{OID}\nsize 99999999999999999999999\n"), // overflow
            format!("hello\n{v}\noid sha256:{OID}\nsize 12\n"),               // not first line
            format!("{v}\noid sha256:{OID}\nsize 12\n{}", "x".repeat(1024)),  // too big
        ];
        for case in &cases {
            assert_eq!(lfs_pointer_size(case.as_bytes()), None, "{case:?}");
        }
        // Too-big look-alikes are ordinary text.
        assert!(matches!(
            classify(cases[7].clone().into_bytes()).1,
            BlobKind::Text { .. }
        ));
    }

    #[test]
    fn nul_sniffing_looks_at_the_first_8000_bytes() {
        assert!(!looks_binary(b"text"));
        assert!(!looks_binary(b""));
        assert!(looks_binary(b"a\0b"));
        let mut late = vec![b'x'; BINARY_SNIFF_LEN];
        late.push(0);
        assert!(!looks_binary(&late));
        late[BINARY_SNIFF_LEN - 1] = 0;
        assert!(looks_binary(&late));
    }
}
