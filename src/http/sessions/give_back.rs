//! Giving the memory of ended sessions back to the system. glibc's allocator keeps what a
//! program frees for its next allocations: after 1,000 idle sessions expired, the process
//! still held all of their 68 KiB each, and each later round of sessions added to it. So once
//! sessions have ended, [`Trimmer::ended`] asks glibc to return its free pages
//! (`malloc_trim`): when none is left open, and after every [`EVERY`] ends otherwise (a trim
//! walks the whole heap, so not at every end). A no-op where the allocator is not glibc's.

use std::sync::atomic::{AtomicU64, Ordering};

/// Session ends between two trims while sessions remain open.
pub(crate) const EVERY: u64 = 1_024;

/// Counts session ends and trims when due.
#[derive(Debug, Default)]
pub(crate) struct Trimmer {
    ends: AtomicU64,
}

impl Trimmer {
    /// A session ended; `open` are left. Trims when none is left or [`EVERY`] ends have passed.
    pub(crate) fn ended(&self, open: usize) {
        let ends = self.ends.fetch_add(1, Ordering::Relaxed) + 1;
        if due(ends, open) {
            trim();
        }
    }
}

/// Whether a trim is due after the `ends`-th end with `open` sessions left. Pure.
fn due(ends: u64, open: usize) -> bool {
    open == 0 || ends.is_multiple_of(EVERY)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim() {
    // SAFETY: malloc_trim has no preconditions: it takes the allocator's own locks and only
    // returns free memory to the system. Its result (whether memory was released) is not needed.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trim_is_due_when_none_is_left_or_every_so_many_ends() {
        assert!(due(1, 0));
        assert!(!due(1, 5));
        assert!(!due(EVERY - 1, 5));
        assert!(due(EVERY, 5));
        assert!(!due(EVERY + 1, 5));
        assert!(due(2 * EVERY, 1));
        // Trimming itself is harmless at any time.
        Trimmer::default().ended(0);
    }
}
