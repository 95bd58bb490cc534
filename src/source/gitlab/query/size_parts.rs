//! How one group's paths are split into `blobs(paths:)` requests GitLab will answer, by its
//! 20 MiB rule as it applies it (`Resolvers::BlobsResolver`): when more than one path asks for
//! content, GitLab sums the blobs' FULL sizes (not the 10 MiB of each it would send) and
//! refuses the whole field past [`MAX_REQUEST_CONTENT`]; one path alone is never checked.
//! So parts are packed by the full `size` GitLab reports, a file past the cap (or of unknown
//! size) is asked alone, and a part GitLab still refuses (another version's rule) is split in
//! [`halves`] until each path stands alone. Pure: no I/O.

/// The most full-size bytes GitLab lets one multi-path content request sum to (20 MiB).
pub(crate) const MAX_REQUEST_CONTENT: u64 = 20 * 1024 * 1024;

/// `sizes` (path, full size as GitLab reports it; `None` when it gave none) in consecutive
/// parts, in order, of at most `per_request` paths each, whose sizes sum to at most `cap`
/// whenever a part holds more than one path. A path of unknown size, or larger than `cap`, is a
/// part of its own.
pub(crate) fn by_full_size<'a>(
    sizes: &[(&'a str, Option<u64>)],
    cap: u64,
    per_request: usize,
) -> Vec<Vec<&'a str>> {
    let per_request = per_request.max(1);
    let mut parts: Vec<Vec<&str>> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut bytes = 0u64;
    for &(path, size) in sizes {
        // Unknown counts as past the cap: alone is the one request GitLab never refuses for size.
        let size = size.unwrap_or(u64::MAX);
        let fits = bytes.saturating_add(size) <= cap && current.len() < per_request;
        if !current.is_empty() && !fits {
            parts.push(std::mem::take(&mut current));
            bytes = 0;
        }
        current.push(path);
        bytes = bytes.saturating_add(size);
    }
    if !current.is_empty() {
        parts.push(current);
    }
    parts
}

/// A part GitLab refused, in two halves (the first the larger by one for an odd count); `None`
/// for a part of one path or none, which cannot be split.
pub(crate) fn halves<T>(part: &[T]) -> Option<(&[T], &[T])> {
    (part.len() > 1).then(|| part.split_at(part.len().div_ceil(2)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1024 * 1024;

    #[test]
    fn the_cap_is_gitlabs() {
        assert_eq!(MAX_REQUEST_CONTENT, 20_971_520);
    }

    #[test]
    fn parts_are_packed_by_full_size_in_order() {
        // The case: a 12 MB file and a 9.3 MB one fail together though their cut parts
        // (10 + 9.3 MiB) would fit; by full size they are two parts.
        let sizes = [
            ("a", Some(12_000_000)),
            ("b", Some(9_300_000)),
            ("c", Some(1_000)),
        ];
        assert_eq!(
            by_full_size(&sizes, MAX_REQUEST_CONTENT, 20),
            vec![vec!["a"], vec!["b", "c"]]
        );
        // Exactly the cap is allowed; one byte more is not.
        let at = [("a", Some(10 * MIB)), ("b", Some(10 * MIB))];
        assert_eq!(
            by_full_size(&at, MAX_REQUEST_CONTENT, 20),
            vec![vec!["a", "b"]]
        );
        let past = [("a", Some(10 * MIB)), ("b", Some(10 * MIB + 1))];
        assert_eq!(
            by_full_size(&past, MAX_REQUEST_CONTENT, 20),
            vec![vec!["a"], vec!["b"]]
        );
    }

    #[test]
    fn a_file_past_the_cap_or_of_unknown_size_is_asked_alone() {
        let sizes = [
            ("small", Some(10)),
            ("huge", Some(30 * MIB)),
            ("tiny", Some(1)),
            ("unknown", None),
            ("last", Some(5)),
        ];
        assert_eq!(
            by_full_size(&sizes, MAX_REQUEST_CONTENT, 20),
            vec![
                vec!["small"],
                vec!["huge"],
                vec!["tiny"],
                vec!["unknown"],
                vec!["last"]
            ]
        );
        // Sizes that would overflow a sum saturate instead (and a saturated sum is past any cap
        // short of the largest).
        let overflow = [("a", Some(u64::MAX)), ("b", Some(u64::MAX))];
        assert_eq!(
            by_full_size(&overflow, u64::MAX - 1, 20),
            vec![vec!["a"], vec!["b"]]
        );
    }

    #[test]
    fn parts_hold_at_most_per_request_paths() {
        let sizes: Vec<(&str, Option<u64>)> = ["a", "b", "c", "d", "e"]
            .iter()
            .map(|p| (*p, Some(1)))
            .collect();
        assert_eq!(
            by_full_size(&sizes, MAX_REQUEST_CONTENT, 2),
            vec![vec!["a", "b"], vec!["c", "d"], vec!["e"]]
        );
        // Zero is read as one.
        assert_eq!(by_full_size(&sizes, MAX_REQUEST_CONTENT, 0).len(), 5);
        assert!(by_full_size(&[], MAX_REQUEST_CONTENT, 20).is_empty());
    }

    #[test]
    fn zero_sized_files_share_a_part() {
        let sizes = [
            ("a", Some(0)),
            ("b", Some(0)),
            ("c", Some(MAX_REQUEST_CONTENT)),
        ];
        assert_eq!(
            by_full_size(&sizes, MAX_REQUEST_CONTENT, 20),
            vec![vec!["a", "b", "c"]]
        );
    }

    #[test]
    fn a_refused_part_splits_until_one_path() {
        assert_eq!(halves(&[1, 2, 3]), Some((&[1, 2][..], &[3][..])));
        assert_eq!(halves(&[1, 2]), Some((&[1][..], &[2][..])));
        assert_eq!(halves(&[1]), None);
        assert_eq!(halves::<u8>(&[]), None);
    }
}
