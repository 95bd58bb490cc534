//! `scripts/dist.sh` on a given binary, as a packager without Rust runs it (issue 50): no
//! `rustc` or `cargo` on `PATH` (the target comes from the binary's own header), nothing in
//! `dist/` but the packages and `SHA256SUMS`, and the same binary packaged twice gives the same
//! `SHA256SUMS` (reproducible archives). The binary is a small system executable standing in
//! for ours: what is checked is the packaging, which `scripts/check-dist.sh` then installs and
//! runs on the real binary.

use std::path::Path;
use std::process::Command;

/// `PATH` without any directory that holds `rustc` or `cargo`.
fn path_without_rust() -> String {
    let path = std::env::var("PATH").unwrap_or_default();
    let kept: Vec<&str> = path
        .split(':')
        .filter(|dir| {
            !["rustc", "cargo"]
                .iter()
                .any(|tool| Path::new(dir).join(tool).exists())
        })
        .collect();
    kept.join(":")
}

/// Runs `scripts/dist.sh` on `binary` into `out`, with `PATH` as given; panics with its output
/// unless it succeeds.
fn dist(binary: &Path, out: &Path, path: &str) {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = Command::new("bash")
        .arg(format!("{root}/scripts/dist.sh"))
        .env("PATH", path)
        .env("GITLAB_FILE_MCP_BINARY", binary)
        .env("GITLAB_FILE_MCP_DIST", out)
        .env_remove("GITLAB_FILE_MCP_TARGET")
        .env_remove("SOURCE_DATE_EPOCH")
        .output()
        .expect("bash runs");
    assert!(
        output.status.success(),
        "dist.sh failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_given_binary_is_packaged_without_rust_reproducibly_and_alone() {
    let path = path_without_rust();
    let which = |tool: &str| {
        path.split(':')
            .any(|dir| Path::new(dir).join(tool).exists())
    };
    assert!(!which("rustc") && !which("cargo"), "{path}");
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("gitlab-file-mcp");
    std::fs::copy("/bin/true", &binary).expect("a small executable to package");
    let (first, second) = (dir.path().join("dist-1"), dir.path().join("dist-2"));
    dist(&binary, &first, &path);
    // A second run, a second later at the least (gzip's header time was the trap).
    std::thread::sleep(std::time::Duration::from_millis(1100));
    dist(&binary, &second, &path);

    let version = env!("CARGO_PKG_VERSION");
    let triple = "x86_64-unknown-linux-gnu";
    let names = listing(&first);
    assert_eq!(names.len(), 6, "{names:?}");
    assert_eq!(names[0], "SHA256SUMS", "{names:?}");
    for expected in [
        format!("gitlab-file-mcp-{version}-{triple}.mcpb"),
        format!("gitlab-file-mcp-{version}-{triple}.tar.gz"),
        format!("gitlab-file-mcp-{version}.tgz"),
        format!("gitlab-file-mcp-linux-x64-{version}.tgz"),
    ] {
        assert!(names.contains(&expected), "{expected} not in {names:?}");
    }
    assert!(
        names
            .iter()
            .any(|n| n.starts_with(&format!("gitlab_file_mcp-{version}-py3-none-manylinux_"))),
        "{names:?}"
    );
    let sums = std::fs::read_to_string(first.join("SHA256SUMS")).unwrap();
    let mut summed: Vec<&str> = sums.lines().filter_map(|l| l.split("  ").nth(1)).collect();
    summed.sort_unstable();
    assert_eq!(summed, &names[1..], "SHA256SUMS lists what dist/ holds");
    assert_eq!(
        sums,
        std::fs::read_to_string(second.join("SHA256SUMS")).unwrap(),
        "two runs on one binary gave different packages"
    );
}
