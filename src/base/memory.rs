//! Giving freed memory back to the system after a large piece of work. glibc's allocator keeps
//! what a program frees for its next allocations, so a parse of a 10 MB file (hundreds of MiB
//! of syntax tree, freed when its walk ends) left the process that large: 23 large outlines in
//! a row held 2.8 GB at rest. [`give_back`] asks glibc to return its free pages
//! (`malloc_trim`); it walks the whole heap, so it is for after large work only
//! ([`GIVE_BACK_BYTES`]). A no-op where the allocator is not glibc's. (The HTTP face trims
//! after sessions end the same way.)

/// Work on at least this many bytes of input gives its memory back when it ends.
pub(crate) const GIVE_BACK_BYTES: usize = 1 << 20;

/// Returns the allocator's free memory to the system.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) fn give_back() {
    // SAFETY: malloc_trim has no preconditions: it takes the allocator's own locks and only
    // returns free memory to the system. Its result (whether memory was released) is not needed.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Returns the allocator's free memory to the system (nothing to do here).
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn give_back() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn giving_back_is_harmless_at_any_time() {
        let held: Vec<Vec<u8>> = (0..64).map(|_| vec![7; 64 * 1024]).collect();
        drop(held);
        give_back();
        give_back();
    }
}
