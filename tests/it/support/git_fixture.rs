//! A throwaway git repository with known contents, built with the `git` command line.
//!
//! Call [`build`].
//! It needs only `std`, `tempfile` and a `git` binary on `PATH`; it ignores the user's global
//! and system git config, pins author, committer and dates (so SHAs are the same on every
//! machine), and disables CRLF conversion so every file is stored byte-for-byte.
//!
//! History (oldest first):
//! 1. `main`: `README.md` ([`README_V1`]) and `src/lib.rs` ([`LIB_MAIN`]). The annotated tag
//!    `v1.0` points here.
//! 2. `main` (tip, `HEAD`): `README.md` becomes [`README_MAIN`]; adds every other file listed
//!    in [`MAIN_FILES`].
//! 3. `release/2026/q4` (from 2): `src/lib.rs` becomes [`LIB_RELEASE`]; adds `notes.md`.
//! 4. `special-entries` (from 2, written with plumbing, never checked out): adds a symlink
//!    `link-to-readme` (target `README.md`) and a submodule entry `vendor/sub`.
//!
//! The work tree is left on a clean `main`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// `README.md` on `main`'s tip.
pub const README_MAIN: &str = "# Fixture\n\nA repository for tests.\nSecond paragraph.\n";
/// `README.md` at the tag `v1.0` (an earlier commit).
pub const README_V1: &str = "# Fixture v1\n\nThe old readme.\n";
/// `src/lib.rs` on `main` (and at `v1.0`).
pub const LIB_MAIN: &str = "pub fn answer() -> u32 {\n    42\n}\n";
/// `src/lib.rs` on `release/2026/q4`.
pub const LIB_RELEASE: &str = "pub fn answer() -> u32 {\n    43\n}\n";
/// `notes.md`, only on `release/2026/q4`.
pub const NOTES_RELEASE: &str = "Release notes for 2026 Q4.\n";
/// `crlf.txt`: CRLF line ends and two empty lines at the end (4 lines).
pub const CRLF: &str = "alpha\r\nbeta\r\n\r\n\r\n";
/// `no-newline.txt`: 2 lines, the last without a terminator.
pub const NO_NEWLINE: &str = "a\nb";
/// `utf8.txt`: multi-byte characters (2-, 3- and 4-byte sequences).
pub const UTF8: &str = "héllo wörld\n日本語のテキスト\nemoji: 🦀🚀\n";
/// `latin1.txt`: ISO-8859-1 bytes ("café naïve\n"), not valid UTF-8, no NUL.
pub const LATIN1: &[u8] = b"caf\xe9 na\xefve\n";
/// `files/images/logo.png`: a PNG header and some bytes, with NULs.
pub const LOGO_PNG: &[u8] =
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00";
/// `files/lfs/lfs_object.iso`: a Git LFS pointer.
pub const LFS_POINTER: &str = "version https://git-lfs.github.com/spec/v1\noid sha256:91eff75a492a3ed0dfcb544d7f31326bc4014c8551849c192fd1e48d4dd2c897\nsize 1575078\n";
/// The LFS object size the pointer names.
pub const LFS_SIZE: u64 = 1_575_078;
/// `docs/guide.md`, the file in the `docs/` directory.
pub const DOCS_GUIDE: &str = "# Guide\n\nRead the code.\n";
/// Number of lines in `big.txt` (`"line 1\n"` … `"line 1500\n"`).
pub const BIG_LINES: usize = 1500;
/// Target of the symlink `link-to-readme` on `special-entries`.
pub const LINK_TARGET: &str = "README.md";

/// Every file on `main`'s tip, by path (no leading `/`).
pub const MAIN_FILES: &[&str] = &[
    "README.md",
    "big.txt",
    "crlf.txt",
    "docs/guide.md",
    "empty.txt",
    "files/images/logo.png",
    "files/lfs/lfs_object.iso",
    "latin1.txt",
    "no-newline.txt",
    "src/lib.rs",
    "utf8.txt",
];

/// The contents of `big.txt`.
pub fn big_txt() -> String {
    (1..=BIG_LINES).map(|n| format!("line {n}\n")).collect()
}

/// A built fixture repository. Dropping it deletes the repository.
pub struct Fixture {
    /// The temporary directory; the repository's work tree is its root (`.git` inside).
    pub dir: tempfile::TempDir,
    /// Full SHA of `main`'s tip commit (`HEAD`).
    pub main_sha: String,
    /// Full SHA of the commit the annotated tag `v1.0` points to.
    pub v1_sha: String,
    /// Full SHA of the annotated tag object `v1.0` itself.
    pub v1_tag_object_sha: String,
    /// Full SHA of `release/2026/q4`'s tip commit.
    pub release_sha: String,
    /// Full SHA of `special-entries`' tip commit.
    pub special_sha: String,
    /// Full SHA of the root tree of `main`'s tip (a tree, not a commit).
    pub main_tree_sha: String,
    /// Full SHA of the blob `README.md` on `main` (a blob, not a commit).
    pub readme_blob_sha: String,
}

impl Fixture {
    /// The repository's work tree.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Run `git` in the repository with the fixture's isolated environment; returns trimmed
    /// stdout. Panics (with git's stderr) when git fails.
    pub fn git(&self, args: &[&str]) -> String {
        git(self.path(), args, &[])
    }
}

/// Build the fixture repository. Panics when `git` is missing or fails: this is test support.
pub fn build() -> Fixture {
    let dir = tempfile::tempdir().expect("create temp dir for the git fixture");
    let root = dir.path().to_path_buf();
    let run = |args: &[&str]| git(&root, args, &[]);

    run(&["init", "--quiet"]);
    // Also for gits older than 2.28, which ignore init.defaultBranch.
    run(&["symbolic-ref", "HEAD", "refs/heads/main"]);
    run(&["config", "core.autocrlf", "false"]);
    run(&["config", "commit.gpgsign", "false"]);
    run(&["config", "tag.gpgsign", "false"]);

    // 1. The commit v1.0 tags.
    write(&root, "README.md", README_V1.as_bytes());
    write(&root, "src/lib.rs", LIB_MAIN.as_bytes());
    commit(&root, "first commit", 1);
    run(&["tag", "-a", "v1.0", "-m", "version 1.0"]);

    // 2. main's tip.
    write(&root, "README.md", README_MAIN.as_bytes());
    write(&root, "crlf.txt", CRLF.as_bytes());
    write(&root, "no-newline.txt", NO_NEWLINE.as_bytes());
    write(&root, "empty.txt", b"");
    write(&root, "big.txt", big_txt().as_bytes());
    write(&root, "utf8.txt", UTF8.as_bytes());
    write(&root, "latin1.txt", LATIN1);
    write(&root, "files/images/logo.png", LOGO_PNG);
    write(&root, "files/lfs/lfs_object.iso", LFS_POINTER.as_bytes());
    write(&root, "docs/guide.md", DOCS_GUIDE.as_bytes());
    commit(&root, "add test files", 2);

    // 3. A branch whose name contains slashes.
    run(&["checkout", "--quiet", "-b", "release/2026/q4"]);
    write(&root, "src/lib.rs", LIB_RELEASE.as_bytes());
    write(&root, "notes.md", NOTES_RELEASE.as_bytes());
    commit(&root, "release changes", 3);
    run(&["checkout", "--quiet", "main"]);

    // 4. Symlink and submodule entries, built in a scratch index so the work tree stays clean.
    let special_sha = build_special_entries(&root);

    let rev = |spec: &str| run(&["rev-parse", "--verify", "--quiet", spec]);
    Fixture {
        main_sha: rev("refs/heads/main"),
        v1_sha: rev("refs/tags/v1.0^{commit}"),
        v1_tag_object_sha: rev("refs/tags/v1.0"),
        release_sha: rev("refs/heads/release/2026/q4"),
        special_sha,
        main_tree_sha: rev("refs/heads/main^{tree}"),
        readme_blob_sha: rev("refs/heads/main:README.md"),
        dir,
    }
}

/// Create branch `special-entries` = main + symlink `link-to-readme` + gitlink `vendor/sub`,
/// without touching the work tree or the real index. Returns the new commit's SHA.
/// A repository of one commit on `main` holding `files` (path, bytes). Dropping the directory
/// deletes it.
pub fn build_with(files: &[(String, Vec<u8>)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("create temp dir for a git repository");
    let root = dir.path();
    git(root, &["init", "--quiet"], &[]);
    git(root, &["symbolic-ref", "HEAD", "refs/heads/main"], &[]);
    git(root, &["config", "core.autocrlf", "false"], &[]);
    git(root, &["config", "commit.gpgsign", "false"], &[]);
    for (path, bytes) in files {
        write(root, path, bytes);
    }
    commit(root, "files", 1);
    dir
}

/// A repository whose files change over five commits on `main`, for the history views
/// (oldest first, one day apart, author "Fixture Author"):
/// 1. "add files": `a.txt` ([`HIST_A1`]), `bin.dat` ([`HIST_BIN1`]), `crlf.txt`
///    ([`HIST_CRLF1`]), `same.txt` ([`HIST_SAME`]).
/// 2. "change a and bin": `a.txt` becomes [`HIST_A2`], `bin.dat` [`HIST_BIN2`].
/// 3. "rename a to b": `a.txt` moves to `b.txt`, unchanged.
/// 4. "crlf endings": `crlf.txt` becomes [`HIST_CRLF2`] (only line ends change).
/// 5. "change b": `b.txt` becomes [`HIST_B5`].
pub struct HistoryFixture {
    pub dir: tempfile::TempDir,
    /// The commits' SHAs, oldest first (`shas[4]` is `main`).
    pub shas: Vec<String>,
}

pub const HIST_A1: &str = "one\n";
pub const HIST_A2: &str = "one\ntwo\n";
pub const HIST_B5: &str = "one\ntwo\nthree\n";
pub const HIST_BIN1: &[u8] = b"\x00\x01bin";
pub const HIST_BIN2: &[u8] = b"\x00\x02bin";
pub const HIST_CRLF1: &str = "x\ny\n";
pub const HIST_CRLF2: &str = "x\r\ny\r\n";
pub const HIST_SAME: &str = "never changes\n";

/// Builds [`HistoryFixture`].
pub fn build_history() -> HistoryFixture {
    let dir = tempfile::tempdir().expect("create temp dir for the history fixture");
    let root = dir.path();
    git(root, &["init", "--quiet"], &[]);
    git(root, &["symbolic-ref", "HEAD", "refs/heads/main"], &[]);
    git(root, &["config", "core.autocrlf", "false"], &[]);
    git(root, &["config", "commit.gpgsign", "false"], &[]);
    let mut shas = Vec::new();
    let mut step = |message: &str, n: u32| {
        commit(root, message, n);
        shas.push(git(root, &["rev-parse", "HEAD"], &[]));
    };
    write(root, "a.txt", HIST_A1.as_bytes());
    write(root, "bin.dat", HIST_BIN1);
    write(root, "crlf.txt", HIST_CRLF1.as_bytes());
    write(root, "same.txt", HIST_SAME.as_bytes());
    step("add files", 1);
    write(root, "a.txt", HIST_A2.as_bytes());
    write(root, "bin.dat", HIST_BIN2);
    step("change a and bin", 2);
    git(root, &["mv", "a.txt", "b.txt"], &[]);
    step("rename a to b", 3);
    write(root, "crlf.txt", HIST_CRLF2.as_bytes());
    step("crlf endings", 4);
    write(root, "b.txt", HIST_B5.as_bytes());
    step("change b", 5);
    HistoryFixture { dir, shas }
}

fn build_special_entries(root: &Path) -> String {
    let index: PathBuf = root.join(".git").join("fixture-special-index");
    let index_str = index.to_str().expect("temp path is UTF-8");
    let env = [("GIT_INDEX_FILE", index_str)];
    let run = |args: &[&str]| git(root, args, &env);

    let link_blob = git_with_stdin(root, &["hash-object", "-w", "--stdin"], LINK_TARGET);
    let main = run(&["rev-parse", "--verify", "refs/heads/main"]);
    run(&["read-tree", &main]);
    run(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("120000,{link_blob},link-to-readme"),
    ]);
    // A gitlink entry pointing at some commit (the submodule's objects are not in this repo).
    run(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{main},vendor/sub"),
    ]);
    let tree = run(&["write-tree"]);
    let commit = run_commit_tree(root, &tree, &main, "special entries", 4);
    run(&["update-ref", "refs/heads/special-entries", &commit]);
    std::fs::remove_file(&index).expect("remove scratch index");
    commit
}

fn run_commit_tree(root: &Path, tree: &str, parent: &str, message: &str, n: u32) -> String {
    let date = fixed_date(n);
    git(
        root,
        &["commit-tree", tree, "-p", parent, "-m", message],
        &[("GIT_AUTHOR_DATE", &date), ("GIT_COMMITTER_DATE", &date)],
    )
}

fn commit(root: &Path, message: &str, n: u32) {
    let date = fixed_date(n);
    git(root, &["add", "--all"], &[]);
    git(
        root,
        &["commit", "--quiet", "--no-verify", "-m", message],
        &[("GIT_AUTHOR_DATE", &date), ("GIT_COMMITTER_DATE", &date)],
    );
}

/// Commit `n`'s date: one day apart, so commit order is unambiguous.
fn fixed_date(n: u32) -> String {
    format!("{} +0000", 1_767_225_600 + u64::from(n) * 86_400)
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create fixture directory");
    }
    std::fs::write(&path, bytes).expect("write fixture file");
}

/// A `git` command isolated from the user's and system's configuration and from any
/// `GIT_*` variables of the environment the tests run in.
fn git_command(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new("git");
    for var in [
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_NAMESPACE",
        "GIT_CEILING_DIRECTORIES",
        "GIT_CONFIG",
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
    ] {
        cmd.env_remove(var);
    }
    cmd.current_dir(root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        // A file that does not exist: git reads it as an empty global config.
        .env(
            "GIT_CONFIG_GLOBAL",
            root.join(".git-fixture-no-global-config"),
        )
        .env("GIT_AUTHOR_NAME", "Fixture Author")
        .env("GIT_AUTHOR_EMAIL", "author@example.com")
        .env("GIT_COMMITTER_NAME", "Fixture Committer")
        .env("GIT_COMMITTER_EMAIL", "committer@example.com")
        .env("GIT_AUTHOR_DATE", fixed_date(0))
        .env("GIT_COMMITTER_DATE", fixed_date(0))
        .env("GIT_TERMINAL_PROMPT", "0")
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "user.name=Fixture Committer",
            "-c",
            "user.email=committer@example.com",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "tag.gpgsign=false",
            "-c",
            "core.autocrlf=false",
            "-c",
            "core.safecrlf=false",
        ])
        .args(args);
    for (key, value) in env {
        cmd.env(key, value);
    }
    cmd
}

fn git(root: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let output = git_command(root, args, env)
        .output()
        .unwrap_or_else(|e| panic!("cannot run git {args:?} (is git installed?): {e}"));
    finish(args, output)
}

fn git_with_stdin(root: &Path, args: &[&str], stdin: &str) -> String {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = git_command(root, args, &[])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run git {args:?} (is git installed?): {e}"));
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(stdin.as_bytes())
        .expect("write git stdin");
    let output = child.wait_with_output().expect("wait for git");
    finish(args, output)
}

fn finish(args: &[&str], output: std::process::Output) -> String {
    assert!(
        output.status.success(),
        "git {args:?} failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("git output is UTF-8")
        .trim()
        .to_owned()
}
