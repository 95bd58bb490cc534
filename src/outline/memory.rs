//! The memory tree-sitter holds, counted, so a parse can be stopped by the memory it really
//! uses rather than a guess from the file's size ([`Meter`]).
//!
//! tree-sitter's C library allocates through four function pointers it lets a program set.
//! [`Meter::start`] sets them (once per process) to libc's own `malloc`, `calloc`, `realloc`
//! and `free` (the functions tree-sitter calls by default, so memory allocated before is
//! freed the same way), each also adding the block's usable size to a counter of the calling
//! thread. They never fail where libc does not (tree-sitter aborts the process on a null
//! allocation, as it does by default). A parse runs on one thread from start to end, so what
//! that thread's counter gained since the parse began is what the parse holds; a tree freed
//! on another thread than it was made on only moves both threads' counters, never a parse's
//! difference. Where `malloc_usable_size` is missing (not Linux) nothing is counted and a
//! [`Meter`] reads 0.

use std::cell::Cell;

thread_local! {
    /// Bytes tree-sitter allocated on this thread less the bytes it freed here (negative
    /// when trees made on other threads were freed here).
    static NET: Cell<i64> = const { Cell::new(0) };
    /// The highest [`NET`] since the last [`Meter::start`] on this thread.
    static HIGH: Cell<i64> = const { Cell::new(0) };
}

/// The memory of one parse, from when it starts: held now, and at most.
#[derive(Debug)]
pub(crate) struct Meter {
    /// This thread's [`NET`] when the parse began.
    start: i64,
}

impl Meter {
    /// Starts counting on this thread (a thread runs one parse at a time); the first call in
    /// the process installs the counting allocator.
    pub(crate) fn start() -> Self {
        counting::install();
        let start = net();
        let _ = HIGH.try_with(|high| high.set(start));
        Self { start }
    }

    /// Bytes tree-sitter allocated on this thread since [`Meter::start`] and still holds.
    pub(crate) fn held(&self) -> u64 {
        since(self.start, net())
    }

    /// The most [`Meter::held`] was since [`Meter::start`] (every allocation counted; for the
    /// tests and the measure of tree bytes per source byte).
    #[cfg(test)]
    pub(crate) fn peak(&self) -> u64 {
        since(self.start, HIGH.try_with(Cell::get).unwrap_or(0))
    }
}

/// `now - start`, 0 when negative.
fn since(start: i64, now: i64) -> u64 {
    u64::try_from(now.saturating_sub(start)).unwrap_or(0)
}

/// This thread's [`NET`].
fn net() -> i64 {
    NET.try_with(Cell::get).unwrap_or(0)
}

/// Adds `delta` bytes to this thread's counter, and raises its high-water mark. Never
/// panics, never allocates (called from inside the allocator): `try_with` on a `Cell` that
/// has no destructor only fails while the thread is torn down, and then nothing is counted.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn count(delta: i64) {
    let _ = NET.try_with(|net| {
        let now = net.get().saturating_add(delta);
        net.set(now);
        let _ = HIGH.try_with(|high| high.set(high.get().max(now)));
    });
}

#[cfg(target_os = "linux")]
mod counting {
    //! libc's allocator, each block's usable size counted ([`super::count`]).

    use std::ffi::c_void;
    use std::sync::Once;

    use super::count;

    /// Installs the counting functions as tree-sitter's allocator, once per process.
    pub(super) fn install() {
        static INSTALL: Once = Once::new();
        INSTALL.call_once(|| {
            let allocator = tree_sitter::Allocator {
                malloc: counted_malloc,
                calloc: counted_calloc,
                realloc: counted_realloc,
                free: counted_free,
            };
            // SAFETY: the four functions are one family, libc's malloc, which is also
            // tree-sitter's default, so a block allocated before this call (by a parser made
            // before it) is freed by the same libc `free`; none returns null for a non-zero
            // size (they abort, as tree-sitter's defaults do); libc's alignment is kept. The
            // call is made once (`Once`), before any parser of this crate is made: every
            // parse starts a `Meter` first (`parse::walked`), and a parse waiting on this
            // `Once` has made no allocation yet.
            unsafe { tree_sitter::set_allocator(Some(allocator)) };
        });
    }

    /// The usable size of a live block, as a signed count.
    ///
    /// # Safety
    /// `block` is non-null and was returned by libc's allocator and not freed.
    unsafe fn usable(block: *mut c_void) -> i64 {
        // SAFETY: the caller's contract.
        let size = unsafe { libc::malloc_usable_size(block) };
        i64::try_from(size).unwrap_or(i64::MAX)
    }

    /// libc's `malloc`, counted; aborts rather than answer null for a non-zero size.
    unsafe extern "C" fn counted_malloc(size: usize) -> *mut c_void {
        // SAFETY: malloc has no preconditions.
        let block = unsafe { libc::malloc(size) };
        match block.is_null() {
            true if size > 0 => std::process::abort(),
            true => block,
            false => {
                // SAFETY: a live block libc just returned.
                count(unsafe { usable(block) });
                block
            }
        }
    }

    /// libc's `calloc`, counted; aborts rather than answer null for a non-zero size.
    unsafe extern "C" fn counted_calloc(count_of: usize, size: usize) -> *mut c_void {
        // SAFETY: calloc has no preconditions (it checks the product for overflow).
        let block = unsafe { libc::calloc(count_of, size) };
        match block.is_null() {
            true if count_of > 0 && size > 0 => std::process::abort(),
            true => block,
            false => {
                // SAFETY: a live block libc just returned.
                count(unsafe { usable(block) });
                block
            }
        }
    }

    /// libc's `realloc`, counted by the change of usable size; aborts rather than answer
    /// null for a non-zero size.
    ///
    /// # Safety
    /// `block` is null or a live block of libc's allocator (tree-sitter's contract).
    unsafe extern "C" fn counted_realloc(block: *mut c_void, size: usize) -> *mut c_void {
        let before = match block.is_null() {
            true => 0,
            // SAFETY: a live block, by the caller's contract.
            false => unsafe { usable(block) },
        };
        // SAFETY: the caller's contract.
        let moved = unsafe { libc::realloc(block, size) };
        if moved.is_null() {
            if size > 0 {
                std::process::abort();
            }
            // glibc's realloc to 0 bytes frees the block and answers null.
            count(-before);
            return moved;
        }
        // SAFETY: a live block libc just returned.
        count(unsafe { usable(moved) } - before);
        moved
    }

    /// libc's `free`, counted.
    ///
    /// # Safety
    /// `block` is null or a live block of libc's allocator (tree-sitter's contract).
    unsafe extern "C" fn counted_free(block: *mut c_void) {
        if !block.is_null() {
            // SAFETY: a live block, by the caller's contract.
            count(-unsafe { usable(block) });
        }
        // SAFETY: the caller's contract.
        unsafe { libc::free(block) }
    }
}

#[cfg(not(target_os = "linux"))]
mod counting {
    //! Nothing counted: tree-sitter keeps its default allocator.

    /// Nothing to install.
    pub(super) fn install() {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_difference_below_the_start_reads_zero() {
        assert_eq!(since(10, 25), 15);
        assert_eq!(since(10, 10), 0);
        assert_eq!(since(10, -5), 0);
        assert_eq!(since(i64::MIN, i64::MAX), u64::try_from(i64::MAX).unwrap());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_parse_is_counted_while_it_holds_its_tree_and_not_after() {
        let meter = Meter::start();
        let text = "def f():\n    return [1, 2, 3]\n".repeat(2_000);
        let mut parser = tree_sitter::Parser::new();
        let grammar = crate::outline::language::Language::Python
            .grammar()
            .unwrap();
        parser.set_language(&grammar).unwrap();
        let tree = parser.parse(&text, None).unwrap();
        let held = meter.held();
        // About a hundred thousand nodes: megabytes, tens of bytes per byte of source.
        assert!(
            held > 10 * text.len() as u64,
            "{held} for {} bytes",
            text.len()
        );
        drop(tree);
        drop(parser);
        assert_eq!(meter.held(), 0, "all given back");
        assert!(meter.peak() >= held, "{} < {held}", meter.peak());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_tree_freed_on_another_thread_leaves_this_threads_count_alone() {
        let meter = Meter::start();
        let mut parser = tree_sitter::Parser::new();
        let grammar = crate::outline::language::Language::Python
            .grammar()
            .unwrap();
        parser.set_language(&grammar).unwrap();
        let tree = parser.parse("x = 1\n".repeat(1_000), None).unwrap();
        drop(parser);
        let held = meter.held();
        assert!(held > 0);
        // Freed elsewhere: that thread's count goes below its start, and reads 0.
        std::thread::spawn(move || {
            let there = Meter::start();
            drop(tree);
            // (Freeing a tree allocates a little for a while: its stack of subtrees.)
            assert_eq!(there.held(), 0);
        })
        .join()
        .unwrap();
        assert_eq!(meter.held(), held, "this thread did not free it");
    }
}

/// A measure, not a test (`cargo test --lib outline::memory::measure -- --ignored
/// --nocapture`): the bytes of syntax tree per byte of source, held when the parse ends and at
/// its peak, for 2 MB of generated code in several languages (the shapes of
/// `benches/outline_rss.py`, and junk). docs/performance.md quotes it.
#[cfg(all(test, target_os = "linux"))]
mod measure {
    use super::*;
    use crate::outline::language::Language;

    /// A language and one unit of its code (`{i}` replaced by the unit's number).
    const SHAPES: [(Language, &str); 9] = [
        (
            Language::Python,
            "class C{i}:\n    def m{i}(self, x):\n        return [x, {i}, 'x' * {i}]\n\n",
        ),
        (
            Language::JavaScript,
            "class C{i} {\n  m{i}(x) { return [x, {i}, 'x'.repeat({i})]; }\n}\n",
        ),
        (
            Language::Ruby,
            "class C{i}\n  def m{i}(x)\n    [x, {i}, 'x' * {i}]\n  end\nend\n",
        ),
        (
            Language::Rust,
            "struct C{i};\nimpl C{i} {\n    fn m{i}(x: u64) -> u64 { x + {i} }\n}\n",
        ),
        (
            Language::C,
            "int f{i}(int x) { return x + {i} * (x - 1); }\n",
        ),
        (
            Language::Java,
            "class C{i} { int m{i}(int x) { return x + {i}; } }\n",
        ),
        (
            Language::TypeScript,
            "export function f{i}(x: number): number[] { return [x, {i}]; }\n",
        ),
        (Language::Rust, "}{ fn ( {i} => ; let ]] x{i} <"),
        (Language::Ruby, "def {i} ) end end class ( {i} <<"),
    ];

    #[test]
    #[ignore]
    fn tree_bytes_per_source_byte() {
        for (language, shape) in SHAPES {
            let mut text = String::new();
            let mut i = 0;
            while text.len() < 2_000_000 {
                text.push_str(&shape.replace("{i}", &i.to_string()));
                i += 1;
            }
            let meter = Meter::start();
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&language.grammar().unwrap()).unwrap();
            let tree = parser.parse(&text, None).unwrap();
            let held = meter.held();
            drop(tree);
            drop(parser);
            let per_byte = |bytes: u64| bytes as f64 / text.len() as f64;
            eprintln!(
                "{language:?} {:?}: {} bytes; held {held} ({:.1} per byte), peak {} ({:.1})",
                &shape[..12],
                text.len(),
                per_byte(held),
                meter.peak(),
                per_byte(meter.peak())
            );
        }
    }
}
