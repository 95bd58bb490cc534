//! Replays every file of the checked-in fuzz corpus (`fuzz/corpus/<target>/`) through the
//! same checks the fuzz targets run (`fuzz/src/checks/`, included here), so CI guards what
//! fuzzing found without nightly or cargo-fuzz. A failing file is named in the panic message.

use crate::checks;

use std::path::{Path, PathBuf};

fn corpus_dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target)
}

/// The files of one target's corpus, sorted; at least one.
fn corpus_files(target: &str) -> Vec<PathBuf> {
    files_in(&corpus_dir(target))
}

/// The files of a directory, sorted; at least one.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} has no corpus", dir.display());
    files
}

/// The check the fuzz target `target` runs.
fn check_of(target: &str) -> fn(&[u8]) {
    checks::TARGETS
        .iter()
        .find(|t| t.name == target)
        .unwrap_or_else(|| panic!("no target {target}"))
        .check
}

/// Runs `check` on every corpus file of `target`, reporting every failing file at once.
fn replay(target: &str) {
    replay_files(check_of(target), &corpus_files(target));
}

/// Runs `check` on every file of `files`, reporting every failing file at once.
fn replay_files(check: fn(&[u8]), files: &[PathBuf]) {
    let failures: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let data = std::fs::read(path).expect("a readable corpus file");
            std::panic::catch_unwind(|| check(&data))
                .err()
                .map(|_| path.display().to_string())
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} corpus file(s) fail (see the panics above):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn url_args_corpus() {
    replay("url_args");
}

#[test]
fn arguments_corpus() {
    replay("arguments");
}

#[test]
fn window_corpus() {
    replay("window");
}

#[test]
fn json_text_corpus() {
    replay("json_text");
}

#[test]
fn glob_corpus() {
    replay("glob");
}

#[test]
fn search_corpus() {
    replay("search");
}

#[test]
fn outline_corpus() {
    replay("outline");
}

/// The outline tests' source files are the outline target's seeds too (the target takes raw
/// source bytes); pass `../tests/fixtures/outline` as a second corpus directory when fuzzing.
#[test]
fn outline_fixtures_as_seeds() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/outline");
    replay_files(check_of("outline"), &files_in(&fixtures));
}

#[test]
fn every_target_has_a_test_and_a_corpus() {
    let names: Vec<&str> = checks::TARGETS.iter().map(|t| t.name).collect();
    assert_eq!(
        names,
        [
            "url_args",
            "arguments",
            "window",
            "json_text",
            "glob",
            "search",
            "outline"
        ]
    );
    for name in names {
        let source = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fuzz/fuzz_targets")
            .join(format!("{name}.rs"));
        assert!(source.is_file(), "{} is missing", source.display());
        corpus_files(name);
    }
    for i in 0..checks::arguments::BASES.len() {
        checks::arguments::base(i);
    }
}
