//! Local-repository mode end to end (issue #4): the real binary reading the git fixture
//! (`tests/it/support/git_fixture.rs`), once through the `read` command line and once over MCP
//! stdio (`serve --repo`) with rmcp's client. Same contract as GitLab mode: byte-for-byte
//! windows, the hints to follow, every error sentence, and the same `tools/list`.
//!
//! Child processes get a cleaned environment: no `GITLAB_*` (the developer's GitLab settings)
//! and no `GIT_*` (a `cargo test` run from a git hook has `GIT_DIR` set). The tests that check
//! that the user's git environment and global config are ignored set them on purpose.

use crate::support::git_fixture;
use crate::support::gitlab_mock::git_blob_id as blob_id;
use crate::support::mcp;

use std::path::Path;
use std::process::Command;

use git_fixture as fx;
use mcp::{err, ok};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_gitlab-file-mcp");

/// What one run of the binary printed, and how it exited.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

impl Run {
    fn stdout_str(&self) -> &str {
        std::str::from_utf8(&self.stdout).expect("stdout is UTF-8")
    }

    /// Asserts exit 0 and returns stdout.
    fn success(&self) -> &str {
        assert_eq!(self.code, Some(0), "expected success: {self:?}");
        self.stdout_str()
    }

    /// Asserts a tool error (exit 1, nothing on stdout, `error: …` on stderr) and returns the
    /// message after `error: `.
    fn tool_error(&self) -> &str {
        assert_eq!(self.code, Some(1), "expected exit 1 (tool error): {self:?}");
        assert!(self.stdout.is_empty(), "stdout on a tool error: {self:?}");
        self.error_message()
    }

    /// Asserts bad usage (exit 2, nothing on stdout) and returns stderr.
    fn usage_error(&self) -> &str {
        assert_eq!(self.code, Some(2), "expected exit 2 (bad usage): {self:?}");
        assert!(self.stdout.is_empty(), "stdout on bad usage: {self:?}");
        &self.stderr
    }

    fn error_message(&self) -> &str {
        let message = self
            .stderr
            .strip_prefix("error: ")
            .unwrap_or_else(|| panic!("stderr does not start with 'error: ': {self:?}"));
        message.strip_suffix('\n').unwrap_or(message)
    }
}

/// A command for the binary with the GitLab and git environment removed.
fn command(args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    for name in crate::support::env::SERVER_ENV {
        cmd.env_remove(name);
    }
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(|n| n.starts_with("GIT_")) {
            cmd.env_remove(name);
        }
    }
    cmd
}

fn run_cmd(mut cmd: Command) -> Run {
    let output = cmd.output().expect("run gitlab-file-mcp");
    Run {
        code: output.status.code(),
        stdout: output.stdout,
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// `gitlab-file-mcp <args>`.
fn run(args: &[&str]) -> Run {
    run_cmd(command(args))
}

/// `gitlab-file-mcp read --repo <repo> <args>`.
fn read(repo: &Path, args: &[&str]) -> Run {
    let repo = repo.to_str().expect("UTF-8 temp path");
    let mut all = vec!["read", "--repo", repo];
    all.extend_from_slice(args);
    run(&all)
}

/// `read … --json`, parsed.
fn read_json(repo: &Path, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let run = read(repo, &all);
    let stdout = run.success();
    assert_eq!(
        stdout.matches('\n').count(),
        1,
        "--json prints one line: {stdout:?}"
    );
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("--json output is JSON ({e}): {run:?}"))
}

/// The arguments object in a "… call again with {…}." hint.
fn next_call(hint: &str) -> Value {
    let start = hint
        .find('{')
        .unwrap_or_else(|| panic!("no {{ in {hint:?}"));
    let end = hint
        .rfind('}')
        .unwrap_or_else(|| panic!("no }} in {hint:?}"));
    serde_json::from_str(&hint[start..=end]).unwrap_or_else(|e| panic!("{e}: {hint:?}"))
}

/// Reads `path` with `read`, starting with `first` and then following the hint on stderr until
/// there is none; returns the concatenated stdout and the number of invocations.
fn follow_hints_cli(repo: &Path, path: &str, first: &[&str]) -> (Vec<u8>, usize) {
    let mut args: Vec<String> = first.iter().map(|s| s.to_string()).collect();
    let mut rebuilt = Vec::new();
    for calls in 1..=100 {
        let mut all = vec!["--path", path];
        all.extend(args.iter().map(String::as_str));
        let run = read(repo, &all);
        assert_eq!(run.code, Some(0), "{run:?}");
        rebuilt.extend_from_slice(&run.stdout);
        if run.stderr.is_empty() {
            return (rebuilt, calls);
        }
        assert!(
            run.stderr.starts_with("File truncated. Remaining lines: ")
                && run.stderr.ends_with(".\n"),
            "{run:?}"
        );
        let next = next_call(&run.stderr);
        let next = next.as_object().expect("hint arguments are an object");
        assert_eq!(next.len(), 2, "{next:?}");
        args = next
            .iter()
            .flat_map(|(k, v)| {
                [
                    format!("--{}", k.replace('_', "-")),
                    v.as_u64().expect("hint values are integers").to_string(),
                ]
            })
            .collect();
    }
    panic!("still truncated after 100 calls");
}

/// A fresh git repository with no commits (its `HEAD` is unborn).
fn empty_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = Command::new("git")
        .args(["init", "--quiet"])
        .current_dir(dir.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", dir.path().join("no-such-config"))
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .expect("run git init");
    assert!(out.status.success(), "{out:?}");
    dir
}

const LFS_PATH: &str = "files/lfs/lfs_object.iso";
const LFS_OID: &str = "91eff75a492a3ed0dfcb544d7f31326bc4014c8551849c192fd1e48d4dd2c897";

/// Asserts that no line of the LFS pointer (nor its OID) appears in `text`.
fn assert_no_pointer_text(text: &str) {
    for line in fx::LFS_POINTER
        .lines()
        .chain([LFS_OID, "git-lfs.github.com"])
    {
        assert!(!text.contains(line), "pointer text {line:?} leaked: {text}");
    }
}

// ---------------------------------------------------------------------------------------------
// `read` on the command line
// ---------------------------------------------------------------------------------------------

#[test]
fn cli_newcomer_command_prints_the_first_lines_and_the_hint() {
    let fix = fx::build();
    let run = read(fix.path(), &["--path", "README.md", "--limit", "2"]);
    assert_eq!(run.success(), "# Fixture\n\n");
    assert_eq!(
        run.stderr,
        "File truncated. Remaining lines: 2. To view more, call again with {\"offset\": 2, \"limit\": 2}.\n"
    );
    // The whole file: no hint at all.
    let run = read(fix.path(), &["--path", "README.md"]);
    assert_eq!(run.success(), fx::README_MAIN);
    assert_eq!(run.stderr, "");
}

#[test]
fn cli_json_prints_the_whole_result() {
    let fix = fx::build();
    assert_eq!(
        read_json(fix.path(), &["--path", "README.md", "--limit", "2"]),
        json!({
            "path": "README.md",
            "ref": "HEAD",
            "metadata": {
                "total_lines": 4,
                "returned_lines": {"start": 1, "end": 2},
                "truncated": true,
                "size_bytes": fx::README_MAIN.len(),
                "blob_id": blob_id(fx::README_MAIN.as_bytes()),
                "commit_sha": fix.main_sha
            },
            "content": "# Fixture\n\n",
            "system_instruction": "File truncated. Remaining lines: 2. To view more, call again with {\"offset\": 2, \"limit\": 2}."
        })
    );
    assert_eq!(
        read_json(fix.path(), &["--path", "crlf.txt", "--ref", "main"]),
        json!({
            "path": "crlf.txt",
            "ref": "main",
            "metadata": {"total_lines": 4, "returned_lines": {"start": 1, "end": 4}, "truncated": false, "size_bytes": 17,
                         "blob_id": blob_id(b"alpha\r\nbeta\r\n\r\n\r\n"), "commit_sha": fix.main_sha},
            "content": fx::CRLF
        })
    );
    assert_eq!(
        read_json(fix.path(), &["--path", "empty.txt"]),
        json!({
            "path": "empty.txt",
            "ref": "HEAD",
            "metadata": {"total_lines": 0, "returned_lines": null, "truncated": false, "size_bytes": 0,
                         "blob_id": blob_id(b""), "commit_sha": fix.main_sha},
            "content": ""
        })
    );
}

#[test]
fn cli_rebuilds_files_byte_for_byte_by_following_the_hints() {
    let fix = fx::build();
    let (big, calls) = follow_hints_cli(fix.path(), "big.txt", &["--limit", "700"]);
    assert_eq!(calls, 3);
    assert_eq!(String::from_utf8(big).unwrap(), fx::big_txt());
    // The default window (500 lines).
    let (big, calls) = follow_hints_cli(fix.path(), "big.txt", &[]);
    assert_eq!(calls, 3);
    assert_eq!(String::from_utf8(big).unwrap(), fx::big_txt());
    // start_line/end_line hints are followed the same way.
    let (big, calls) = follow_hints_cli(
        fix.path(),
        "big.txt",
        &["--start-line", "1", "--end-line", "600"],
    );
    assert_eq!(calls, 3);
    assert_eq!(String::from_utf8(big).unwrap(), fx::big_txt());
    // CRLF and trailing empty lines survive, one line at a time.
    let (crlf, calls) = follow_hints_cli(fix.path(), "crlf.txt", &["--limit", "1"]);
    assert_eq!(calls, 4);
    assert_eq!(crlf, fx::CRLF.as_bytes());
    let (no_newline, calls) = follow_hints_cli(fix.path(), "no-newline.txt", &["--limit", "1"]);
    assert_eq!(calls, 2);
    assert_eq!(no_newline, fx::NO_NEWLINE.as_bytes());
}

#[test]
fn cli_start_and_end_lines() {
    let fix = fx::build();
    let run = read(
        fix.path(),
        &[
            "--path",
            "README.md",
            "--start-line",
            "2",
            "--end-line",
            "3",
        ],
    );
    assert_eq!(run.success(), "\nA repository for tests.\n");
    assert_eq!(
        run.stderr,
        "File truncated. Remaining lines: 1. To view more, call again with {\"start_line\": 4, \"end_line\": 4}.\n"
    );
    let out = read_json(
        fix.path(),
        &[
            "--path",
            "big.txt",
            "--start-line",
            "1499",
            "--end-line",
            "9999",
        ],
    );
    assert_eq!(out["content"], "line 1499\nline 1500\n");
    assert_eq!(
        out["metadata"]["returned_lines"],
        json!({"start": 1499, "end": 1500})
    );
    let e = read(
        fix.path(),
        &[
            "--path",
            "README.md",
            "--start-line",
            "3",
            "--end-line",
            "1",
        ],
    );
    assert!(e.tool_error().starts_with("Invalid line range"), "{e:?}");
}

#[test]
fn cli_negative_lines_line_numbers_and_max_chars() {
    let fix = fx::build();
    // Negative and zero bounds follow the seeds' rules.
    let out = read_json(
        fix.path(),
        &["--path", "big.txt", "--start-line", "-5", "--end-line", "2"],
    );
    assert_eq!(out["content"], "line 1\nline 2\n");
    let out = read_json(
        fix.path(),
        &[
            "--path",
            "big.txt",
            "--start-line",
            "1499",
            "--end-line",
            "0",
        ],
    );
    assert_eq!(out["content"], "line 1499\nline 1500\n");
    // Line numbers, cat -n style, kept in the hint.
    let run = read(
        fix.path(),
        &["--path", "big.txt", "--limit", "2", "--line-numbers"],
    );
    assert_eq!(run.success(), "     1\tline 1\n     2\tline 2\n");
    assert_eq!(
        next_call(&run.stderr),
        json!({"offset": 2, "limit": 2, "line_numbers": true})
    );
    // A budget given to `read` is the call's own: the hint repeats it.
    let run = read(fix.path(), &["--path", "big.txt", "--max-chars", "30"]);
    assert_eq!(run.success(), "line 1\nline 2\nline 3\nline 4\n");
    assert_eq!(
        next_call(&run.stderr),
        json!({"offset": 4, "limit": 500, "max_chars": 30})
    );
    assert!(run.stderr.contains("the 30 character budget"), "{run:?}");
    // ... also from the environment.
    let mut cmd = command(&[
        "read",
        "--repo",
        fix.path().to_str().unwrap(),
        "--path",
        "big.txt",
        "--json",
    ]);
    cmd.env("GITLAB_FILE_MCP_MAX_CHARS", "15");
    let out: Value = serde_json::from_str(run_cmd(cmd).success()).unwrap();
    assert_eq!(out["content"], "line 1\nline 2\n");
    assert!(
        out["system_instruction"]
            .as_str()
            .unwrap()
            .contains("\"max_chars\": 15}")
    );
    // Without one, the default budget applies and is not repeated.
    let out = read_json(fix.path(), &["--path", "big.txt"]);
    assert_eq!(
        out["metadata"]["returned_lines"],
        json!({"start": 1, "end": 500})
    );
    assert!(
        !out["system_instruction"]
            .as_str()
            .unwrap()
            .contains("max_chars")
    );
    let e = read(fix.path(), &["--path", "big.txt", "--max-chars", "-1"]);
    assert_eq!(e.code, Some(2), "{e:?}");
}

#[test]
fn cli_reads_at_tags_slash_branches_shas_and_ancestors() {
    let fix = fx::build();
    let read_at = |git_ref: &str, path: &str| {
        let run = read(fix.path(), &["--path", path, "--ref", git_ref]);
        run.success().to_owned()
    };
    assert_eq!(read_at("v1.0", "README.md"), fx::README_V1);
    assert_eq!(read_at("main", "README.md"), fx::README_MAIN);
    assert_eq!(read_at("release/2026/q4", "src/lib.rs"), fx::LIB_RELEASE);
    assert_eq!(read_at("release/2026/q4", "notes.md"), fx::NOTES_RELEASE);
    assert_eq!(read_at(&fix.release_sha, "notes.md"), fx::NOTES_RELEASE);
    assert_eq!(read_at(&fix.v1_sha[..7], "README.md"), fx::README_V1);
    assert_eq!(read_at("HEAD~1", "README.md"), fx::README_V1);
    let out = read_json(
        fix.path(),
        &["--path", "src/lib.rs", "--ref", "release/2026/q4"],
    );
    assert_eq!(out["ref"], "release/2026/q4");
    // notes.md exists only on the release branch.
    let e = read(fix.path(), &["--path", "notes.md"]);
    assert!(
        e.tool_error()
            .starts_with("File 'notes.md' does not exist at ref 'HEAD'."),
        "{e:?}"
    );
}

#[test]
fn cli_url_with_a_slash_branch_and_a_line_anchor() {
    let fix = fx::build();
    let url = "https://gitlab.example.com/g/p/-/blob/release/2026/q4/src/lib.rs#L2-3";
    let run = read(fix.path(), &["--url", url]);
    assert_eq!(run.success(), "    43\n}\n");
    assert_eq!(run.stderr, "", "the anchor reaches the end: no hint");
    let out = read_json(fix.path(), &["--url", url]);
    assert_eq!(out["ref"], "release/2026/q4");
    assert_eq!(out["path"], "src/lib.rs");
    assert_eq!(
        out["metadata"]["returned_lines"],
        json!({"start": 2, "end": 3})
    );

    let run = read(
        fix.path(),
        &[
            "--url",
            "https://gitlab.example.com/g/p/-/blob/release/2026/q4/notes.md",
        ],
    );
    assert_eq!(run.success(), fx::NOTES_RELEASE);

    // An anchor in the middle of a file: the hint continues after it in offset/limit terms.
    let run = read(
        fix.path(),
        &[
            "--url",
            "http://localhost:8080/a/b/c/-/blob/main/big.txt#L2-3",
        ],
    );
    assert_eq!(run.success(), "line 2\nline 3\n");
    assert_eq!(
        run.stderr,
        "File truncated. Remaining lines: 1497. To view more, call again with {\"offset\": 3, \"limit\": 2}.\n"
    );

    // raw/ URLs, tags, and a project_id that names another project (ignored locally).
    let run = read(
        fix.path(),
        &[
            "--project",
            "some/other/project",
            "--url",
            "https://example.org/g/p/-/raw/v1.0/README.md",
        ],
    );
    assert_eq!(run.success(), fx::README_V1);

    // A full SHA in the URL.
    let url = format!(
        "https://gitlab.example.com/g/p/-/blob/{}/README.md",
        fix.v1_sha
    );
    assert_eq!(read(fix.path(), &["--url", &url]).success(), fx::README_V1);

    // The first segment is not a ref and no longer prefix is one: GitLab's split is reported.
    let run = read(
        fix.path(),
        &[
            "--url",
            "https://gitlab.example.com/g/p/-/blob/release/2026/notes.md",
        ],
    );
    assert!(
        run.tool_error().starts_with("Ref 'release' not found."),
        "{run:?}"
    );
}

#[test]
fn cli_url_split_falls_back_when_gitlabs_split_has_no_such_file() {
    let fix = fx::build();
    // A tag named like the first segment of the branch: GitLab picks the tag `release`, whose
    // tree has no `2026/q4/notes.md`; the branch split has the file and says so.
    fix.git(&["tag", "release", "v1.0"]);
    let url = "https://gitlab.example.com/g/p/-/blob/release/2026/q4/notes.md";
    let run = read(fix.path(), &["--url", url]);
    assert_eq!(run.success(), fx::NOTES_RELEASE);
    assert_eq!(
        run.stderr,
        "The URL was read as ref 'release/2026/q4' and path 'notes.md': GitLab's own split (ref 'release') has no such file.\n"
    );
    // A file the tag has: GitLab's split wins.
    let url = "https://gitlab.example.com/g/p/-/blob/release/README.md";
    assert_eq!(read(fix.path(), &["--url", url]).success(), fx::README_V1);
}

/// A URL's `?ref_type=` qualifies the ref for the lookup only: errors name the ref as the URL
/// has it, as in GitLab mode (`GitlabSource::missing` reports `git_ref`, not the qualified ref).
#[test]
fn cli_errors_for_ref_type_urls_name_the_ref_as_given() {
    let fix = fx::build();
    for (url, message) in [
        (
            "https://gitlab.example.com/g/p/-/blob/v1.0/README.md?ref_type=heads",
            "Ref 'v1.0' not found.",
        ),
        (
            "https://gitlab.example.com/g/p/-/blob/main/nope.md?ref_type=heads",
            "File 'nope.md' does not exist at ref 'main'.",
        ),
        (
            "https://gitlab.example.com/g/p/-/blob/release/2026/q4/nope.md?ref_type=heads",
            "File 'nope.md' does not exist at ref 'release/2026/q4'.",
        ),
        (
            "https://gitlab.example.com/g/p/-/blob/main/docs?ref_type=heads",
            "'docs' is a directory at ref 'main',",
        ),
    ] {
        let run = read(fix.path(), &["--url", url]);
        assert!(run.tool_error().starts_with(message), "{url}: {run:?}");
    }
    // The qualified lookup itself works: a tag is not a branch.
    let url = "https://gitlab.example.com/g/p/-/blob/v1.0/README.md?ref_type=tags";
    assert_eq!(read(fix.path(), &["--url", url]).success(), fx::README_V1);
}

#[test]
fn cli_tool_errors_exit_1_with_the_message_on_stderr() {
    let fix = fx::build();
    let png = format!(
        "File 'files/images/logo.png' is binary and cannot be returned as text. Size: {} bytes.",
        fx::LOGO_PNG.len()
    );
    let latin1 = format!(
        "File 'latin1.txt' is binary and cannot be returned as text. Size: {} bytes.",
        fx::LATIN1.len()
    );
    let cases: &[(&[&str], &str)] = &[
        (&["--path", "files/images/logo.png"], &png),
        (&["--path", "latin1.txt"], &latin1),
        (
            &["--path", LFS_PATH],
            "File 'files/lfs/lfs_object.iso' is stored in LFS (lfs) and its content cannot be read with this tool. Size: 1575078 bytes.",
        ),
        (
            &["--path", "README.md", "--ref", "no-such-branch"],
            "Ref 'no-such-branch' not found. Provide an existing branch name, tag name, or commit SHA, or use HEAD for the default branch.",
        ),
        (
            &["--path", "nope.md"],
            "File 'nope.md' does not exist at ref 'HEAD'. The path must be relative to the repository root. Do not retry the same path; search the repository for the file name to locate it: call search_repository with {\"glob\":\"nope.md\",\"ref\":\"HEAD\"} (and the same project).",
        ),
        (
            &["--path", "docs", "--ref", "main"],
            "'docs' is a directory at ref 'main', not a file. It holds 'guide.md'. Pass the path of a file inside it.",
        ),
        (
            &["--path", "readme.md"],
            "File 'readme.md' does not exist at ref 'HEAD'. Did you mean 'README.md'? Do not retry the same path; if that is not the file, search the repository for the file name to locate it: call search_repository with {\"glob\":\"readme.md\",\"ref\":\"HEAD\"} (and the same project).",
        ),
        (
            &["--path", "../outside.txt"],
            "file_path must not contain a path traversal sequence: '../outside.txt'.",
        ),
        (
            &["--path", "docs/../README.md"],
            "file_path must not contain a path traversal sequence: 'docs/../README.md'.",
        ),
    ];
    for (args, message) in cases {
        let run = read(fix.path(), args);
        assert_eq!(run.tool_error(), *message, "{args:?}");
        assert_eq!(run.stderr.lines().count(), 1, "{run:?}");
    }
    // The LFS pointer is in neither stream, with or without --json.
    for json in [false, true] {
        let mut args = vec!["--path", LFS_PATH];
        if json {
            args.push("--json");
        }
        let run = read(fix.path(), &args);
        assert_eq!(run.code, Some(1));
        assert_no_pointer_text(run.stdout_str());
        assert_no_pointer_text(&run.stderr);
    }
    // A ref that is git syntax for something else than a commit is refused, not followed.
    let run = read(
        fix.path(),
        &["--path", "README.md", "--ref", "main:notes.md"],
    );
    assert!(
        run.tool_error()
            .starts_with("Ref 'main:notes.md' is not valid"),
        "{run:?}"
    );
    let run = read(
        fix.path(),
        &["--path", "README.md", "--ref", &fix.main_tree_sha],
    );
    assert!(run.tool_error().contains("not a commit"), "{run:?}");
    // Argument errors are tool errors too.
    for (args, needle) in [
        (&["--path", "README.md", "--limit", "0"][..], "'limit'"),
        (&["--path", "README.md", "--limit", "2001"][..], "'limit'"),
        (
            &["--path", "README.md", "--offset", "1", "--start-line", "1"][..],
            "not both",
        ),
    ] {
        let run = read(fix.path(), args);
        assert!(run.tool_error().contains(needle), "{args:?}: {run:?}");
    }
}

#[test]
fn cli_bad_usage_exits_2() {
    let fix = fx::build();
    let run = read(fix.path(), &["--path", "README.md", "--no-such-flag"]);
    assert!(run.usage_error().contains("--no-such-flag"), "{run:?}");
    let run = read(fix.path(), &["--path", "README.md", "--offset", "ten"]);
    assert!(run.usage_error().contains("--offset"), "{run:?}");
    let run = read(fix.path(), &["--path", "README.md", "--limit", "-1"]);
    run.usage_error();
    let run = run_cmd(command(&["no-such-command"]));
    run.usage_error();
    // `read --repo DIR` naming no file is bad usage (the README's exit 2), not a tool error.
    let run = read(fix.path(), &[]);
    assert!(run.usage_error().contains("--path"), "{run:?}");
    let run = read(fix.path(), &["--ref", "main", "--limit", "3"]);
    assert!(run.usage_error().contains("--path"), "{run:?}");
    let url = "https://gitlab.example.com/g/p/-/blob/main/README.md";
    assert_eq!(read(fix.path(), &["--url", url]).success(), fx::README_MAIN);

    // --repo at a directory that is not a git repository.
    let not_repo = tempfile::tempdir().expect("tempdir");
    let run = read(not_repo.path(), &["--path", "README.md"]);
    let stderr = run.usage_error();
    let shown = not_repo.path().display().to_string();
    assert!(
        stderr.starts_with("error: no git repository found at or above '")
            && stderr.contains(&shown)
            && stderr.contains("pass the path of a git work tree or a bare repository"),
        "{run:?}"
    );
    // … at a path that does not exist, and at a file.
    let missing = not_repo.path().join("missing");
    let run = read(&missing, &["--path", "README.md"]);
    let stderr = run.usage_error();
    assert!(
        stderr.starts_with("error: '") && stderr.contains("does not exist"),
        "{run:?}"
    );
    let run = read(&fix.path().join("README.md"), &["--path", "README.md"]);
    assert!(
        run.usage_error()
            .starts_with("error: no git repository found"),
        "{run:?}"
    );
    // `serve --repo` refuses it the same way, before any MCP traffic.
    let dir = not_repo.path().to_str().unwrap();
    let run = run_cmd(command(&["serve", "--repo", dir]));
    assert!(
        run.usage_error()
            .starts_with("error: no git repository found"),
        "{run:?}"
    );
}

#[test]
fn cli_reads_what_is_committed_not_the_working_copy() {
    let fix = fx::build();
    std::fs::write(fix.path().join("README.md"), "edited, not committed\n").unwrap();
    std::fs::write(fix.path().join("untracked.txt"), "untracked\n").unwrap();
    assert_eq!(
        read(fix.path(), &["--path", "README.md"]).success(),
        fx::README_MAIN
    );
    let run = read(fix.path(), &["--path", "untracked.txt"]);
    assert!(run.tool_error().contains("does not exist"), "{run:?}");
}

#[test]
fn cli_repository_layouts_subdirectory_bare_worktree_packed_and_empty() {
    let fix = fx::build();
    // A subdirectory of the work tree finds the repository; paths stay repository-relative.
    assert_eq!(
        read(&fix.path().join("docs"), &["--path", "README.md"]).success(),
        fx::README_MAIN
    );
    // A bare clone.
    let scratch = tempfile::tempdir().expect("tempdir");
    let bare = scratch.path().join("bare.git");
    fix.git(&["clone", "--quiet", "--bare", ".", bare.to_str().unwrap()]);
    assert_eq!(
        read(&bare, &["--path", "README.md", "--ref", "v1.0"]).success(),
        fx::README_V1
    );
    let url = "https://gitlab.example.com/g/p/-/blob/release/2026/q4/notes.md";
    assert_eq!(read(&bare, &["--url", url]).success(), fx::NOTES_RELEASE);
    // A linked work tree: HEAD is that work tree's branch.
    let linked = scratch.path().join("linked");
    fix.git(&[
        "worktree",
        "add",
        "--quiet",
        linked.to_str().unwrap(),
        "release/2026/q4",
    ]);
    assert_eq!(
        read(&linked, &["--path", "src/lib.rs"]).success(),
        fx::LIB_RELEASE
    );
    assert_eq!(
        read(fix.path(), &["--path", "src/lib.rs"]).success(),
        fx::LIB_MAIN
    );
    // Packed refs and packed objects.
    fix.git(&["pack-refs", "--all"]);
    fix.git(&["gc", "--quiet", "--prune=now"]);
    assert!(!fix.path().join(".git/refs/tags/v1.0").exists());
    assert_eq!(
        read(fix.path(), &["--url", url]).success(),
        fx::NOTES_RELEASE
    );
    assert_eq!(
        read(fix.path(), &["--path", "README.md", "--ref", "v1.0"]).success(),
        fx::README_V1
    );
    assert_eq!(
        read(fix.path(), &["--path", "big.txt", "--offset", "1499"]).success(),
        "line 1500\n"
    );
    // A repository without commits: HEAD does not resolve.
    let empty = empty_repo();
    let run = read(empty.path(), &["--path", "README.md"]);
    assert!(
        run.tool_error().starts_with("Ref 'HEAD' not found."),
        "{run:?}"
    );
}

#[test]
fn cli_ignores_the_git_environment_and_global_config() {
    let fix = fx::build();
    let other = empty_repo();
    let home = tempfile::tempdir().expect("tempdir");
    let readme = |env: &[(&str, &str)]| {
        let mut cmd = command(&[
            "read",
            "--repo",
            fix.path().to_str().unwrap(),
            "--path",
            "README.md",
            "--ref",
            "v1.0",
        ]);
        cmd.envs(env.iter().copied());
        run_cmd(cmd)
    };
    let other_git_dir = other.path().join(".git");
    let other_git_dir = other_git_dir.to_str().unwrap();
    let home_dir = home.path().to_str().unwrap();
    // The variables a shell, a git hook or a git server may have set.
    for env in [
        &[("GIT_DIR", other_git_dir)][..],
        &[("GIT_WORK_TREE", other.path().to_str().unwrap())][..],
        &[("GIT_NAMESPACE", "elsewhere")][..],
        &[
            ("GIT_CONFIG_COUNT", "1"),
            ("GIT_CONFIG_KEY_0", "gitoxide.core.refsNamespace"),
            ("GIT_CONFIG_VALUE_0", "elsewhere"),
        ][..],
        &[("GIT_OBJECT_DIRECTORY", "/nonexistent/objects")][..],
    ] {
        let run = readme(env);
        assert_eq!(run.code, Some(0), "{env:?}: {run:?}");
        assert_eq!(run.stdout_str(), fx::README_V1, "{env:?}");
    }
    // A user's global config, valid and broken: only the repository's own config counts.
    let global = home.path().join(".gitconfig");
    for config in [
        "[gitoxide \"core\"]\n\trefsNamespace = elsewhere\n",
        "[core\nthis is not git config\n",
    ] {
        std::fs::write(&global, config).unwrap();
        let run = readme(&[
            ("HOME", home_dir),
            ("XDG_CONFIG_HOME", home_dir),
            ("GIT_CONFIG_GLOBAL", global.to_str().unwrap()),
        ]);
        assert_eq!(run.code, Some(0), "{config:?}: {run:?}");
        assert_eq!(run.stdout_str(), fx::README_V1, "{config:?}");
    }
}

#[test]
fn cli_a_repository_that_cannot_be_opened_is_named() {
    // A repository config this build cannot use (SHA-256 objects), and a broken one.
    for config in [
        "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectFormat = sha256\n",
        "[core\nnot git config\n",
    ] {
        let repo = empty_repo();
        let path = repo.path().join(".git").join("config");
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str(config);
        std::fs::write(&path, text).unwrap();
        let run = read(repo.path(), &["--path", "README.md"]);
        let stderr = run.usage_error();
        let shown = format!(
            "error: the git repository at '{}' cannot be opened (",
            repo.path().display()
        );
        assert!(stderr.starts_with(&shown), "{config:?}: {run:?}");
        assert!(
            stderr.ends_with("); pass the path of a readable git work tree or bare repository\n"),
            "{config:?}: {run:?}"
        );
        assert_eq!(stderr.lines().count(), 1, "{run:?}");
    }
}

#[test]
fn cli_unicode_branches_and_paths_with_spaces() {
    let fix = fx::build();
    fix.git(&["checkout", "--quiet", "-b", "feature/ünï"]);
    std::fs::create_dir_all(fix.path().join("dir with space")).unwrap();
    std::fs::write(fix.path().join("dir with space/ü #1.txt"), "unicode\n").unwrap();
    fix.git(&["add", "--all"]);
    fix.git(&["commit", "--quiet", "-m", "unicode"]);
    fix.git(&["checkout", "--quiet", "main"]);
    let path = "dir with space/ü #1.txt";
    assert_eq!(
        read(fix.path(), &["--path", path, "--ref", "feature/ünï"]).success(),
        "unicode\n"
    );
    let url = "https://gitlab.example.com/g/p/-/blob/feature/%C3%BCn%C3%AF/dir%20with%20space/%C3%BC%20%231.txt";
    let out = read_json(fix.path(), &["--url", url]);
    assert_eq!(out["ref"], "feature/ünï");
    assert_eq!(out["path"], path);
    assert_eq!(out["content"], "unicode\n");
}

#[test]
fn cli_local_files_have_no_read_limit() {
    // GitLab cuts blobs at 10 MiB; a local blob is read whole, so every line is reachable.
    let fix = fx::build();
    let lines = 110_000;
    let text: String = (1..=lines).map(|n| format!("{n:099}\n")).collect();
    assert!(text.len() > 10 * 1024 * 1024);
    std::fs::write(fix.path().join("huge.txt"), &text).unwrap();
    fix.git(&["add", "huge.txt"]);
    fix.git(&["commit", "--quiet", "-m", "huge"]);
    let out = read_json(
        fix.path(),
        &["--path", "huge.txt", "--offset", "109999", "--limit", "5"],
    );
    assert_eq!(out["content"], format!("{lines:099}\n"));
    assert_eq!(
        out["metadata"],
        json!({
            "total_lines": lines,
            "returned_lines": {"start": lines, "end": lines},
            "truncated": true,
            "size_bytes": text.len(),
            "blob_id": blob_id(text.as_bytes()),
            "commit_sha": fix.git(&["rev-parse", "HEAD"])
        })
    );
    assert!(out.get("system_instruction").is_none(), "{out}");
}

/// The README's first command, on this repository itself (`cargo run --release -- read --repo .
/// --path README.md --limit 20`); a test cannot run cargo, so it runs the built binary from the
/// crate's own directory with `--repo .`, as a newcomer would, and reads `Cargo.toml`, which
/// `HEAD` contains.
#[test]
fn cli_reads_this_repository() {
    let mut cmd = command(&[
        "read",
        "--repo",
        ".",
        "--path",
        "Cargo.toml",
        "--limit",
        "5",
    ]);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    let run = run_cmd(cmd);
    let stdout = run.success();
    assert!(stdout.starts_with("[package]\n"), "{run:?}");
    assert_eq!(stdout.lines().count(), 5, "{run:?}");
    assert!(
        run.stderr.starts_with("File truncated. Remaining lines: ")
            && run
                .stderr
                .ends_with(" To view more, call again with {\"offset\": 5, \"limit\": 5}.\n"),
        "{run:?}"
    );
    // The absolute path works the same.
    let run = read(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["--path", "Cargo.toml", "--limit", "5"],
    );
    assert_eq!(run.success(), stdout);
}

// ---------------------------------------------------------------------------------------------
// MCP over stdio: `serve --repo`
// ---------------------------------------------------------------------------------------------

async fn serve(fix: &fx::Fixture) -> mcp::Server {
    serve_with_env(fix, &[]).await
}

async fn serve_with_env(fix: &fx::Fixture, env: &[(&str, &str)]) -> mcp::Server {
    let repo = fix.path().to_str().expect("UTF-8 temp path");
    mcp::spawn(&["serve", "--repo", repo], env).await
}

fn file(path: &str) -> Value {
    json!({"file_path": path})
}

fn at(path: &str, git_ref: &str) -> Value {
    json!({"file_path": path, "ref": git_ref})
}

#[tokio::test]
async fn mcp_text_files_byte_for_byte() {
    let fix = fx::build();
    let server = serve(&fix).await;
    assert_eq!(
        ok(&server.call(file("crlf.txt")).await),
        json!({
            "path": "crlf.txt",
            "ref": "HEAD",
            "metadata": {"total_lines": 4, "returned_lines": {"start": 1, "end": 4}, "truncated": false, "size_bytes": 17,
                         "blob_id": blob_id(b"alpha\r\nbeta\r\n\r\n\r\n"), "commit_sha": fix.main_sha},
            "content": "alpha\r\nbeta\r\n\r\n\r\n"
        })
    );
    assert_eq!(
        ok(&server.call(at("empty.txt", "main")).await),
        json!({
            "path": "empty.txt",
            "ref": "main",
            "metadata": {"total_lines": 0, "returned_lines": null, "truncated": false, "size_bytes": 0,
                         "blob_id": blob_id(b""), "commit_sha": fix.main_sha},
            "content": ""
        })
    );
    assert_eq!(
        ok(&server.call(file("no-newline.txt")).await),
        json!({
            "path": "no-newline.txt",
            "ref": "HEAD",
            "metadata": {"total_lines": 2, "returned_lines": {"start": 1, "end": 2}, "truncated": false, "size_bytes": 3,
                         "blob_id": blob_id(b"a\nb"), "commit_sha": fix.main_sha},
            "content": "a\nb"
        })
    );
    let out = ok(&server.call(file("utf8.txt")).await);
    assert_eq!(out["content"], fx::UTF8);
    assert_eq!(out["metadata"]["size_bytes"], fx::UTF8.len());
    assert_eq!(out["metadata"]["total_lines"], 3);
    // Line 2 alone: multi-byte characters are not split.
    let out = ok(&server
        .call(json!({"file_path": "utf8.txt", "offset": 1, "limit": 1}))
        .await);
    assert_eq!(out["content"], "日本語のテキスト\n");
    // A leading '/' and surrounding spaces are GitLab's too.
    let out = ok(&server.call(file("  /docs/guide.md ")).await);
    assert_eq!(
        (&out["path"], &out["content"]),
        (&json!("docs/guide.md"), &json!(fx::DOCS_GUIDE))
    );
    server.stop().await;
}

#[tokio::test]
async fn mcp_windows_follow_the_hints_and_rebuild_the_file() {
    let fix = fx::build();
    let server = serve(&fix).await;
    for (first, expected_calls) in [
        (json!({"file_path": "big.txt", "limit": 400}), 4),
        (
            json!({"file_path": "big.txt", "start_line": 1, "end_line": 1000}),
            2,
        ),
        (json!({"file_path": "crlf.txt", "limit": 1}), 4),
    ] {
        let path = first["file_path"].as_str().unwrap().to_owned();
        let expected = if path == "big.txt" {
            fx::big_txt()
        } else {
            fx::CRLF.to_owned()
        };
        let mut call = first.clone();
        let mut rebuilt = String::new();
        let mut calls = 0;
        loop {
            let out = ok(&server.call(call.clone()).await);
            calls += 1;
            rebuilt.push_str(out["content"].as_str().unwrap());
            // Every window here is a part of the file, the last one too.
            assert_eq!(out["metadata"]["truncated"], true, "{out}");
            let Some(hint) = out["system_instruction"].as_str() else {
                assert_eq!(
                    out["metadata"]["returned_lines"]["end"],
                    out["metadata"]["total_lines"]
                );
                break;
            };
            assert!(calls < 100, "{first}: no end");
            call = next_call(hint);
            call["file_path"] = json!(path);
        }
        assert_eq!(calls, expected_calls, "{first}");
        assert_eq!(rebuilt, expected, "{first}");
    }
    server.stop().await;
}

#[tokio::test]
async fn mcp_offset_past_the_end() {
    let fix = fx::build();
    let server = serve(&fix).await;
    let out = ok(&server
        .call(json!({"file_path": "README.md", "offset": 4}))
        .await);
    assert_eq!(out["content"], "");
    assert_eq!(out["metadata"]["returned_lines"], Value::Null);
    assert_eq!(out["metadata"]["total_lines"], 4);
    assert_eq!(
        out["system_instruction"],
        "Offset 4 is past the end of the file (4 lines). Call again with an offset below 4."
    );
    server.stop().await;
}

#[tokio::test]
async fn mcp_refs_tags_shas_slash_branches_and_urls() {
    let fix = fx::build();
    let server = serve(&fix).await;
    let content = |out: Value| out["content"].as_str().unwrap().to_owned();
    for (git_ref, path, expected) in [
        ("HEAD", "README.md", fx::README_MAIN),
        ("main", "src/lib.rs", fx::LIB_MAIN),
        ("v1.0", "README.md", fx::README_V1),
        ("refs/tags/v1.0", "README.md", fx::README_V1),
        (&fix.main_sha[..8], "README.md", fx::README_MAIN),
        (&fix.v1_sha[..7], "README.md", fx::README_V1),
        (&fix.main_sha, "README.md", fx::README_MAIN),
        (&fix.v1_sha, "README.md", fx::README_V1),
        (&fix.v1_tag_object_sha, "README.md", fx::README_V1),
        (&fix.release_sha, "notes.md", fx::NOTES_RELEASE),
        ("release/2026/q4", "src/lib.rs", fx::LIB_RELEASE),
        ("release/2026/q4", "notes.md", fx::NOTES_RELEASE),
    ] {
        let out = ok(&server.call(at(path, git_ref)).await);
        assert_eq!(out["ref"], git_ref);
        assert_eq!(out["path"], path);
        assert_eq!(content(out), expected, "{git_ref} {path}");
    }
    // The slash branch through a URL on any host, with and without ref_type.
    for url in [
        "https://gitlab.example.com/g/p/-/blob/release/2026/q4/notes.md",
        "https://gitlab.example.com/g/p/-/blob/release/2026/q4/notes.md?ref_type=heads",
        "http://127.0.0.1:1/x/-/blame/release/2026/q4/notes.md",
    ] {
        let out = ok(&server.call(json!({"url": url})).await);
        assert_eq!(out["ref"], "release/2026/q4", "{url}");
        assert_eq!(out["path"], "notes.md", "{url}");
        assert_eq!(content(out), fx::NOTES_RELEASE, "{url}");
    }
    let url = "https://gitlab.example.com/g/p/-/blob/release/2026/q4/src/lib.rs#L2";
    let out = ok(&server.call(json!({"url": url})).await);
    assert_eq!(content(out), "    43\n");
    // Short and full SHAs in a URL.
    for sha in [&fix.v1_sha[..7], &fix.v1_sha] {
        let url = format!("https://gitlab.example.com/g/p/-/blob/{sha}/README.md");
        let out = ok(&server.call(json!({"url": url})).await);
        assert_eq!(out["ref"], sha);
        assert_eq!(content(out), fx::README_V1, "{url}");
    }
    // A URL and a ref that agree.
    let out = ok(&server
        .call(json!({"url": "https://h/g/p/-/blob/v1.0/README.md", "ref": "v1.0"}))
        .await);
    assert_eq!(content(out), fx::README_V1);
    // project_id is optional and ignored: any path, any number, with or without a URL.
    for project in [json!("no/such/project"), json!("999999"), json!(42)] {
        let out = ok(&server
            .call(json!({"project_id": project, "file_path": "README.md", "ref": "main"}))
            .await);
        assert_eq!(content(out), fx::README_MAIN, "{project}");
        let out = ok(&server
            .call(json!({"project_id": project, "url": "https://h/g/p/-/blob/main/README.md"}))
            .await);
        assert_eq!(content(out), fx::README_MAIN, "{project}");
    }
    server.stop().await;
}

#[tokio::test]
async fn mcp_every_error_case() {
    let fix = fx::build();
    let server = serve(&fix).await;
    assert_eq!(
        err(&server.call(file("files/images/logo.png")).await),
        format!(
            "File 'files/images/logo.png' is binary and cannot be returned as text. Size: {} bytes.",
            fx::LOGO_PNG.len()
        )
    );
    assert_eq!(
        err(&server.call(file("latin1.txt")).await),
        format!(
            "File 'latin1.txt' is binary and cannot be returned as text. Size: {} bytes.",
            fx::LATIN1.len()
        )
    );
    let result = server.call(file(LFS_PATH)).await;
    assert_eq!(
        err(&result),
        "File 'files/lfs/lfs_object.iso' is stored in LFS (lfs) and its content cannot be read with this tool. Size: 1575078 bytes."
    );
    assert_no_pointer_text(&serde_json::to_string(&result).unwrap());
    assert_eq!(
        err(&server.call(at("README.md", "nope")).await),
        "Ref 'nope' not found. Provide an existing branch name, tag name, or commit SHA, or use HEAD for the default branch."
    );
    // 'release' and 'release/2026' are only prefixes of the branch name.
    for git_ref in ["release", "release/2026", "refs/heads/v1.0", "0000000"] {
        let e = err(&server.call(at("README.md", git_ref)).await);
        assert!(
            e.starts_with(&format!("Ref '{git_ref}' not found.")),
            "{git_ref}: {e}"
        );
    }
    assert_eq!(
        err(&server.call(at("nope.md", "main")).await),
        "File 'nope.md' does not exist at ref 'main'. The path must be relative to the repository root. Do not retry the same path; search the repository for the file name to locate it: call search_repository with {\"glob\":\"nope.md\",\"ref\":\"main\"} (and the same project)."
    );
    assert!(
        err(&server.call(at("notes.md", "v1.0")).await)
            .starts_with("File 'notes.md' does not exist at ref 'v1.0'.")
    );
    assert_eq!(
        err(&server.call(file("files/images")).await),
        "'files/images' is a directory at ref 'HEAD', not a file. It holds 'logo.png'. Pass the path of a file inside it."
    );
    assert_eq!(
        err(&server.call(file("docs/")).await),
        "file_path must be a file, not a directory: 'docs/'."
    );
    for path in [
        "../etc/passwd",
        "docs/../../x",
        "src\\..\\..\\x",
        "%2e%2e/README.md",
    ] {
        let e = err(&server.call(file(path)).await);
        assert!(e.contains("path traversal"), "{path}: {e}");
    }
    let e = err(&server.call(at("README.md", "main:notes.md")).await);
    assert!(e.starts_with("Ref 'main:notes.md' is not valid"), "{e}");
    let e = err(&server.call(at("README.md", &fix.readme_blob_sha)).await);
    assert!(e.contains("blob") && e.contains("not a commit"), "{e}");
    let e = err(&server
        .call(json!({"url": "https://gitlab.example.com/g/p/-/blob/release/2026/nope.md"}))
        .await);
    assert!(e.starts_with("Ref 'release' not found."), "{e}");
    let e = err(&server
        .call(json!({"url": "https://gitlab.example.com/g/p/-/blob/main/docs"}))
        .await);
    assert!(e.starts_with("'docs' is a directory at ref 'main'"), "{e}");
    let e = err(&server.call(json!({"ref": "main"})).await);
    assert!(e.starts_with("file_path is missing."), "{e}");
    let e = err(&server
        .call(json!({"file_path": "README.md", "start_line": 3, "end_line": 2}))
        .await);
    assert!(e.starts_with("Invalid line range"), "{e}");
    // Symlinks read as their target text; submodules are not files of this repository.
    let out = ok(&server.call(at("link-to-readme", "special-entries")).await);
    assert_eq!(out["content"], fx::LINK_TARGET);
    let e = err(&server.call(at("vendor/sub", "special-entries")).await);
    assert!(e.starts_with("File 'vendor/sub' does not exist"), "{e}");
    server.stop().await;
}

#[tokio::test]
async fn mcp_tools_list_is_the_same_as_in_gitlab_mode() {
    let fix = fx::build();
    let server = serve(&fix).await;
    let tools = server.list_tools().await;
    server.stop().await;
    let path = format!(
        "{}/tests/snapshots/tools_list.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let snapshot: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read the snapshot"))
            .expect("snapshot is JSON");
    assert_eq!(serde_json::to_value(&tools).unwrap(), snapshot);
}

#[tokio::test]
async fn mcp_concurrent_calls_each_get_their_own_file() {
    let fix = fx::build();
    let server = serve(&fix).await;
    let cases = [
        (at("README.md", "main"), fx::README_MAIN.to_owned()),
        (at("README.md", "v1.0"), fx::README_V1.to_owned()),
        (
            at("src/lib.rs", "release/2026/q4"),
            fx::LIB_RELEASE.to_owned(),
        ),
        (
            json!({"file_path": "big.txt", "limit": 2000}),
            fx::big_txt(),
        ),
        (file("crlf.txt"), fx::CRLF.to_owned()),
        (file("utf8.txt"), fx::UTF8.to_owned()),
    ];
    let results = futures_join_all(cases.iter().map(|(args, _)| server.call(args.clone()))).await;
    for ((args, expected), result) in cases.iter().zip(results) {
        assert_eq!(ok(&result)["content"], json!(expected), "{args}");
    }
    server.stop().await;
}

/// Runs the futures concurrently on the current task and collects their outputs in order.
async fn futures_join_all<F: std::future::Future>(
    futures: impl Iterator<Item = F>,
) -> Vec<F::Output> {
    let mut set = Vec::new();
    for f in futures {
        set.push(Box::pin(f));
    }
    let mut outputs: Vec<Option<F::Output>> = set.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (f, out) in set.iter_mut().zip(outputs.iter_mut()) {
            if out.is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => *out = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    outputs.into_iter().map(|o| o.expect("ready")).collect()
}

#[tokio::test]
async fn mcp_ignores_the_git_environment() {
    let fix = fx::build();
    let other = empty_repo();
    let git_dir = other.path().join(".git");
    let server = serve_with_env(
        &fix,
        &[
            ("GIT_DIR", git_dir.to_str().unwrap()),
            ("GIT_NAMESPACE", "elsewhere"),
        ],
    )
    .await;
    let out = ok(&server.call(file("README.md")).await);
    assert_eq!(out["content"], fx::README_MAIN);
    let out = ok(&server
        .call(json!({"url": "https://h/g/p/-/blob/release/2026/q4/notes.md"}))
        .await);
    assert_eq!(out["content"], fx::NOTES_RELEASE);
    server.stop().await;
}

#[tokio::test]
async fn mcp_a_running_server_sees_new_commits_repacks_and_deleted_branches() {
    let fix = fx::build();
    let server = serve(&fix).await;
    let out = ok(&server.call(at("README.md", "main")).await);
    assert_eq!(out["content"], fx::README_MAIN);
    std::fs::write(fix.path().join("README.md"), "changed\n").unwrap();
    fix.git(&["commit", "--quiet", "--all", "-m", "change"]);
    let out = ok(&server.call(at("README.md", "main")).await);
    assert_eq!(out["content"], "changed\n");
    // Loose objects packed and pruned under the running server.
    fix.git(&["gc", "--quiet", "--prune=now"]);
    let out = ok(&server.call(at("README.md", "HEAD~1")).await);
    assert_eq!(out["content"], fx::README_MAIN);
    std::fs::write(fix.path().join("README.md"), "changed again\n").unwrap();
    fix.git(&["commit", "--quiet", "--all", "-m", "change 2"]);
    fix.git(&["tag", "v2.0"]);
    fix.git(&["gc", "--quiet", "--prune=now"]);
    let out = ok(&server.call(at("README.md", "v2.0")).await);
    assert_eq!(out["content"], "changed again\n");
    fix.git(&["branch", "--quiet", "-D", "release/2026/q4"]);
    let e = err(&server.call(at("notes.md", "release/2026/q4")).await);
    assert!(e.starts_with("Ref 'release/2026/q4' not found."), "{e}");
    server.stop().await;
}

#[tokio::test]
async fn mcp_a_miss_names_the_nearest_existing_paths() {
    let fix = fx::build();
    let server = serve(&fix).await;
    let cases = [
        ("readme.md", "Did you mean 'README.md'?"),
        (
            "scr/lib.rs",
            "Did you mean 'src/'? Paths ending in '/' are directories",
        ),
        ("docs/old/guide.md", "Did you mean 'docs/guide.md'?"),
        ("src/lib.rc", "Did you mean 'src/lib.rs'?"),
    ];
    for (path, want) in cases {
        let e = err(&server.call(at(path, "main")).await);
        assert!(
            e.starts_with(&format!(
                "File '{path}' does not exist at ref 'main'. {want}"
            )),
            "{path}: {e}"
        );
        assert!(e.contains("Do not retry the same path"), "{e}");
    }
    let e = err(&server.call(at("zzz/nothing-like-it.txt", "main")).await);
    assert!(!e.contains("Did you mean"), "{e}");
    // A URL whose "ref/path" splits several ways and finds nothing: GitLab's own split
    // (`main` + `docs/old/guide.md`) is the one answered, with what is near it.
    let url = "https://h/g/p/-/blob/main/docs/old/guide.md";
    let e = err(&server.call(json!({ "url": url })).await);
    assert!(
        e.starts_with(
            "File 'docs/old/guide.md' does not exist at ref 'main'. Did you mean 'docs/guide.md'?"
        ),
        "{e}"
    );
    server.stop().await;
}

#[tokio::test]
async fn mcp_answers_name_the_commit_read_and_no_web_url() {
    let fix = fx::build();
    let server = serve(&fix).await;
    let out = ok(&server.call(file("README.md")).await);
    assert_eq!(out["metadata"]["commit_sha"], fix.main_sha);
    assert!(out["metadata"].get("web_url").is_none(), "{out}");
    let out = ok(&server.call(at("README.md", "v1.0")).await);
    assert_eq!(out["metadata"]["commit_sha"], fix.v1_sha);
    // The branch moves: the same ref is now another commit.
    std::fs::write(fix.path().join("README.md"), "moved\n").unwrap();
    fix.git(&["commit", "--quiet", "-am", "move main"]);
    let out = ok(&server.call(at("README.md", "main")).await);
    assert_eq!(out["content"], "moved\n");
    assert_eq!(
        out["metadata"]["commit_sha"],
        fix.git(&["rev-parse", "main"])
    );
    assert_ne!(out["metadata"]["commit_sha"], fix.main_sha);
    server.stop().await;
}

#[tokio::test]
async fn mcp_if_none_match_both_ways() {
    let fix = fx::build();
    let server = serve(&fix).await;
    let held = blob_id(fx::README_MAIN.as_bytes());
    let out = ok(&server
        .call(json!({"file_path": "README.md", "limit": 2, "if_none_match": held}))
        .await);
    assert_eq!(out.get("content"), None);
    assert_eq!(
        out["metadata"],
        json!({"total_lines": 4, "returned_lines": {"start": 1, "end": 2}, "truncated": true,
               "size_bytes": fx::README_MAIN.len(), "blob_id": held,
               "commit_sha": fix.main_sha, "unchanged": true})
    );
    assert_eq!(
        out["system_instruction"],
        format!(
            "The file at ref 'HEAD' (commit {}) is unchanged since blob {}; the content you hold is current.",
            &fix.main_sha[..12],
            &held[..12]
        )
    );
    // Another blob (v1.0's README): the normal answer.
    let out = ok(&server
        .call(json!({"file_path": "README.md", "ref": "v1.0", "if_none_match": held}))
        .await);
    assert_eq!(out["content"], fx::README_V1);
    assert!(out["metadata"].get("unchanged").is_none(), "{out}");
    // Not a blob id's shape (40 or 64 hexadecimal digits, as sent): refused, quoted.
    for sent in ["nope".to_string(), format!(" {held}\n"), format!("{held} ")] {
        let e = err(&server
            .call(json!({"file_path": "README.md", "if_none_match": sent}))
            .await);
        assert_eq!(
            e,
            format!(
                "Argument 'if_none_match' must be a blob id, 40 or 64 hexadecimal digits (metadata.blob_id of an earlier answer), got '{}'.",
                sent.escape_debug()
            )
        );
    }
    // Longer than one: refused by its length.
    let e = err(&server
        .call(json!({"file_path": "README.md", "if_none_match": "a".repeat(65)}))
        .await);
    assert!(
        e.contains("'if_none_match'") && e.contains("64 bytes"),
        "{e}"
    );
    server.stop().await;
}

#[test]
fn cli_if_none_match_prints_no_content() {
    let fix = fx::build();
    let held = blob_id(fx::README_MAIN.as_bytes());
    let run = read(
        fix.path(),
        &["--path", "README.md", "--if-none-match", &held],
    );
    assert_eq!(run.success(), "");
    assert!(
        run.stderr.contains("the content you hold is current"),
        "{run:?}"
    );
}

#[tokio::test]
async fn mcp_a_directory_names_its_entries() {
    let fix = fx::build();
    let server = serve(&fix).await;
    assert_eq!(
        err(&server.call(at("files", "main")).await),
        "'files' is a directory at ref 'main', not a file. It holds 'images/' and 'lfs/'. Pass the path of a file inside it."
    );
    let many: String = (0..120).map(|i| format!("many/f{i:03}.txt ")).collect();
    for name in many.split_whitespace() {
        let path = fix.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "x\n").unwrap();
    }
    fix.git(&["add", "many"]);
    fix.git(&["commit", "--quiet", "-m", "many"]);
    let e = err(&server.call(at("many", "main")).await);
    assert!(
        e.ends_with("'f099.txt' and 20 more. Pass the path of a file inside it."),
        "{e}"
    );
    assert_eq!(e.matches(".txt'").count(), 100, "{e}");
    server.stop().await;
}
