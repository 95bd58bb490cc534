//! Throughput of `window::fit_window` over a ~10 MiB blob held in memory:
//! GitLab's raw window, under the default character budget, and with line
//! numbers.
//!
//! A `harness = false` bench: `cargo bench --bench window` prints a markdown
//! table of MB/s, counting every byte of the input as processed once per
//! call (a window costs a pass over the whole blob: the lines before it are
//! skipped and the lines after it counted). The target is >= 1000 MB/s; the
//! bench reports, it does not assert.

use std::hint::black_box;
use std::time::{Duration, Instant};

use gitlab_file_mcp::limits::DEFAULT_MAX_CHARS;
use gitlab_file_mcp::window::{Fit, LineRequest, fit_window};

/// The size each generated text reaches (it stops at the first line end at
/// or past this).
const TEXT_BYTES: usize = 10 * 1024 * 1024;

/// How long each case runs after its warm-up.
const RUN_FOR: Duration = Duration::from_millis(400);

/// A small deterministic generator (xorshift64), so every run measures the
/// same text.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `lo..hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo) as u64) as usize
    }
}

/// Source-like text: indented lines of words, 2 to about 90 bytes long (42
/// on average), ending in `eol`, until the text reaches [`TEXT_BYTES`].
fn code_like(eol: &str, seed: u64) -> String {
    const WORDS: &[&str] = &[
        "let", "fn", "self", "match", "value", "=", "{", "}", "(x)", "return", "Some(v)", "é",
        "->", "0", "&mut", "items", ";", "//", "if", "else",
    ];
    let mut rng = Rng(seed);
    let mut text = String::with_capacity(TEXT_BYTES + 128);
    while text.len() < TEXT_BYTES {
        let len = rng.range(1, 78);
        let start = text.len();
        for _ in 0..rng.range(0, 4) * 4 {
            text.push(' ');
        }
        while text.len() - start < len {
            text.push_str(WORDS[rng.range(0, WORDS.len())]);
            text.push(' ');
        }
        text.push_str(eol);
    }
    text
}

/// Lines of `line_len` bytes (`\n` included), like minified files or data.
fn long_lines(line_len: usize) -> String {
    let line = format!("{}\n", "x".repeat(line_len - 1));
    line.repeat(TEXT_BYTES.div_ceil(line_len))
}

/// The number of lines in `text`, the naive way (setup only).
fn lines_in(text: &str) -> u64 {
    text.split_inclusive('\n').count() as u64
}

/// Runs `req` under `fit` over `text` for [`RUN_FOR`] and returns
/// (iterations, MB/s).
fn measure(text: &str, req: LineRequest, fit: Fit) -> (u64, f64) {
    for _ in 0..3 {
        let _ = black_box(fit_window(black_box(text), black_box(req), fit));
    }
    let started = Instant::now();
    let mut iterations = 0u64;
    while started.elapsed() < RUN_FOR || iterations < 10 {
        for _ in 0..10 {
            let _ = black_box(fit_window(black_box(text), black_box(req), fit));
        }
        iterations += 10;
    }
    let seconds = started.elapsed().as_secs_f64();
    let mb = text.len() as f64 * iterations as f64 / 1e6;
    (iterations, mb / seconds)
}

/// ANSI-coloured log lines: ESC (charged 6 by the budget) in every line.
fn ansi_log() -> String {
    let line = "\x1b[32mINFO\x1b[0m 2026-12-01T07:00:00Z request served in 12 ms\n";
    line.repeat(TEXT_BYTES.div_ceil(line.len()))
}

fn main() {
    let code = code_like("\n", 0x9E37_79B9_7F4A_7C15);
    let crlf = code_like("\r\n", 0x2545_F491_4F6C_DD1D);
    let long = long_lines(300 * 1024);
    let single = "y".repeat(TEXT_BYTES);

    let off = |offset, limit| LineRequest::OffsetLimit { offset, limit };
    let mut cases: Vec<(String, &str, LineRequest)> = Vec::new();
    for (name, text) in [("40 B lines", &code), ("40 B CRLF lines", &crlf)] {
        let total = lines_in(text);
        cases.push((format!("{name}, start (0, 500)"), text, off(0, 500)));
        cases.push((format!("{name}, middle (500)"), text, off(total / 2, 500)));
        cases.push((
            format!("{name}, end (last 500)"),
            text,
            off(total - 500, 500),
        ));
        cases.push((format!("{name}, past end"), text, off(total + 10, 500)));
        cases.push((
            format!("{name}, start..end middle (2000)"),
            text,
            LineRequest::StartEnd {
                start: Some(total / 2),
                end: Some(total / 2 + 1999),
            },
        ));
    }
    let total = lines_in(&long);
    cases.push(("300 KiB lines, start".into(), &long, off(0, 500)));
    cases.push(("300 KiB lines, middle".into(), &long, off(total / 2, 500)));
    cases.push(("300 KiB lines, end".into(), &long, off(total - 1, 500)));
    cases.push(("one 10 MiB line (cut)".into(), &single, off(0, 500)));

    let raw = Fit::RAW;
    let budget = Fit {
        max_chars: DEFAULT_MAX_CHARS,
        line_numbers: false,
        column: 0,
    };
    let numbers = Fit {
        max_chars: 0,
        line_numbers: true,
        column: 0,
    };
    let both = Fit {
        max_chars: DEFAULT_MAX_CHARS,
        line_numbers: true,
        column: 0,
    };
    let log = ansi_log();
    let total = lines_in(&code);
    let mut fitted: Vec<(String, &str, LineRequest, Fit)> =
        cases.into_iter().map(|(n, t, r)| (n, t, r, raw)).collect();
    for (label, fit) in [
        ("raw", raw),
        ("budget 100k", budget),
        ("numbers", numbers),
        ("budget 100k + numbers", both),
    ] {
        fitted.push((
            format!("40 B lines, start (0, 500), {label}"),
            &code,
            off(0, 500),
            fit,
        ));
        fitted.push((
            format!("40 B lines, middle (2000), {label}"),
            &code,
            off(total / 2, 2000),
            fit,
        ));
    }
    for (label, fit) in [("raw", raw), ("budget 100k", budget)] {
        fitted.push((
            format!("ANSI log lines, start (0, 2000), {label}"),
            &log,
            off(0, 2000),
            fit,
        ));
    }
    fitted.push((
        "300 KiB lines, start, budget 100k (cut)".into(),
        &long,
        off(0, 500),
        budget,
    ));
    fitted.push((
        "one 10 MiB line, budget 100k (cut)".into(),
        &single,
        off(0, 500),
        budget,
    ));

    println!("| case | bytes | iterations | MB/s |");
    println!("| --- | ---: | ---: | ---: |");
    for (name, text, req, fit) in &fitted {
        let (iterations, mb_per_s) = measure(text, *req, *fit);
        println!("| {name} | {} | {iterations} | {mb_per_s:.0} |", text.len());
    }
}
