//! The GitLab pipeline (`.gitlab-ci.yml`), read as its jobs, per architecture (issue 50, and
//! issue 45 item 6): every push and merge request is tested before any release job; a release
//! builds exactly the targets the packages are named for (`scripts/dist/platform_names.py`), each
//! Linux architecture's binary and image on a runner of that architecture (no `ldd` across
//! architectures, the image marked `--platform` from its binary), with the OCI runtime podman
//! has; it publishes the image under the name `server.json` gives it, and the bundles in the
//! registry entry. Not run here (no runners): this is what can be checked without them.

use std::collections::BTreeMap;

fn read(path: &str) -> String {
    let path = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The pipeline's top-level keys (jobs, hidden jobs, `stages`, `workflow`) and each one's
/// block: its own lines, comments left out. The file is ours and plain YAML: a key starts a
/// line at column 0 and ends with `:`.
fn blocks(pipeline: &str) -> BTreeMap<String, String> {
    let mut blocks = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    for line in pipeline.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') {
            if let Some((key, body)) = current.take() {
                blocks.insert(key, body);
            }
            // `dist:x86_64-unknown-linux-gnu:` is a job; `stages: [...]` a key and its value.
            let (key, rest) = match line.strip_suffix(':') {
                Some(key) => (key, ""),
                None => line.split_once(": ").expect("a top-level key"),
            };
            current = Some((key.to_string(), format!("{}\n", rest.trim())));
        } else if let Some((_, body)) = current.as_mut() {
            body.push_str(line.trim());
            body.push('\n');
        }
    }
    if let Some((key, body)) = current {
        blocks.insert(key, body);
    }
    blocks
}

/// A job's block with those it `extends` (and theirs) after it.
fn resolved(blocks: &BTreeMap<String, String>, job: &str) -> String {
    let body = blocks
        .get(job)
        .unwrap_or_else(|| panic!("no job {job}"))
        .clone();
    let parent = body
        .lines()
        .find_map(|l| l.strip_prefix("extends:"))
        .map(|p| p.trim().to_string());
    match parent {
        Some(parent) => format!("{body}{}", resolved(blocks, &parent)),
        None => body,
    }
}

/// The targets the packages are named for (`scripts/dist/platform_names.py`).
fn package_targets() -> Vec<String> {
    let script = "import sys; sys.path.insert(0, 'scripts/dist'); import platform_names; \
                  print('\\n'.join(p.triple for p in platform_names.PLATFORMS))";
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("python3 runs");
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn dist_jobs(blocks: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    blocks
        .keys()
        .filter(|k| k.starts_with("dist:"))
        .map(|k| (k.clone(), resolved(blocks, k)))
        .collect()
}

#[test]
fn every_push_and_merge_request_is_tested_before_any_release_job() {
    let blocks = blocks(&read(".gitlab-ci.yml"));
    assert_eq!(blocks["stages"].trim(), "[test, package, publish]");
    let workflow = &blocks["workflow"];
    for rule in [
        "$CI_PIPELINE_SOURCE == \"merge_request_event\"",
        "if: $CI_COMMIT_BRANCH\n",
        "$CI_COMMIT_TAG =~",
    ] {
        assert!(workflow.contains(rule), "workflow lacks {rule}: {workflow}");
    }
    let test = resolved(&blocks, "test");
    assert!(
        test.contains("stage: test") && test.contains("bash .ci/run"),
        "{test}"
    );
    assert!(
        !test.contains("rules:"),
        "the test job runs in every pipeline: {test}"
    );
    // .ci/run is that test: fmt, clippy, the packages' check, the README's test command (the
    // workspace: the server and its GitLab stand-in).
    let ci = read(".ci/run");
    for step in [
        "cargo fmt --check",
        "cargo clippy --workspace --all-targets -- -D warnings",
        "scripts/check-dist.sh",
        "\ncargo test --workspace\n",
    ] {
        assert!(ci.contains(step), ".ci/run lacks {step}");
    }
    // Every other job is a release job: tags only, after the test stage.
    for job in blocks.keys().filter(|k| !k.starts_with('.')) {
        if ["stages", "workflow", "test", "variables"].contains(&job.as_str()) {
            continue;
        }
        let body = resolved(&blocks, job);
        assert!(
            body.contains("stage: package") || body.contains("stage: publish"),
            "{job}"
        );
        assert!(
            body.contains("rules:\n- if: $CI_COMMIT_TAG =~ /^v\\d+\\.\\d+\\.\\d+$/"),
            "{job} is not limited to release tags: {body}"
        );
    }
}

#[test]
fn a_release_builds_exactly_the_targets_the_packages_name() {
    let blocks = blocks(&read(".gitlab-ci.yml"));
    let jobs = dist_jobs(&blocks);
    let mut built: Vec<String> = jobs
        .values()
        .map(|body| {
            let line = body
                .lines()
                .find(|l| l.contains("GITLAB_FILE_MCP_TARGET: "))
                .unwrap_or_else(|| panic!("a dist job names no target: {body}"));
            let target = line.split("GITLAB_FILE_MCP_TARGET: ").nth(1).unwrap();
            target.trim_end_matches([' ', '}']).to_string()
        })
        .collect();
    for (job, body) in &jobs {
        assert!(body.contains("bash scripts/dist.sh"), "{job}");
        assert_eq!(
            job.strip_prefix("dist:"),
            built
                .iter()
                .find(|t| body.contains(t.as_str()))
                .map(|t| t.as_str()),
            "{job} builds another target than its name"
        );
    }
    built.sort();
    let mut named = package_targets();
    named.sort();
    assert_eq!(built, named, "the jobs build what platform_names.py names");
}

/// Per Linux architecture: the binary, its packages' check and its image, all on a runner of
/// that architecture; the image published as that job saved it.
#[test]
fn each_linux_architecture_builds_its_image_from_its_own_binary_on_its_own_runner() {
    let blocks = blocks(&read(".gitlab-ci.yml"));
    let publish = resolved(&blocks, "publish:image");
    for (triple, runner_arch) in [
        ("x86_64-unknown-linux-gnu", "amd64"),
        ("aarch64-unknown-linux-gnu", "arm64"),
    ] {
        let job = format!("dist:{triple}");
        let body = resolved(&blocks, &job);
        let tags = body
            .lines()
            .find_map(|l| l.strip_prefix("tags:"))
            .unwrap_or_else(|| panic!("{job} names no runner"));
        assert!(tags.contains(runner_arch), "{job} runs on {tags}");
        assert!(body.contains("GITLAB_FILE_MCP_GLIBC: \"2.17\""), "{job}");
        assert!(body.contains("scripts/check-dist.sh"), "{job}");
        assert!(body.contains("scripts/image.sh"), "{job} builds no image");
        assert!(body.contains("save --format oci-archive"), "{job}");
        assert!(
            publish.contains(&format!("needs: [\"{job}\""))
                || publish.contains(&format!("\"{job}\"")),
            "publish:image does not wait for {job}"
        );
    }
    assert!(
        publish.contains("for t in x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu"),
        "{publish}"
    );
    assert!(
        publish.contains("podman load -q -i \"image/$t.tar\""),
        "{publish}"
    );
    for builds in ["image.sh", "ldd", "podman build"] {
        assert!(
            !publish.contains(builds),
            "publish:image runs {builds}: {publish}"
        );
    }
    // The image is marked with its binary's architecture, refused on another machine, and
    // built with whatever OCI runtime podman has.
    let image = read("scripts/image.sh");
    assert!(image.contains("--platform \"linux/$ARCH\""));
    assert!(image.contains("scripts/dist/target.py"));
    assert!(image.contains("\"$(uname -m)\" != \"$MACHINE\""));
    for file in [
        ".gitlab-ci.yml",
        "scripts/image.sh",
        "scripts/check-dist.sh",
        ".ci/run",
    ] {
        assert!(
            !read(file).contains("--runtime runc"),
            "{file} hard-codes runc"
        );
    }
}

/// The image the registry entry names is the one publish:image pushes, with the label the
/// registry verifies; the bundles join the entry when the release has them.
#[test]
fn the_registry_entry_names_the_published_image_and_the_bundles() {
    let server: serde_json::Value = serde_json::from_str(&read("server.json")).unwrap();
    let name = server["name"].as_str().unwrap();
    let version = server["version"].as_str().unwrap();
    let oci = server["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["registryType"] == "oci")
        .expect("server.json lists the image");
    let identifier = oci["identifier"].as_str().unwrap();
    let repository = identifier
        .strip_suffix(&format!(":{version}"))
        .unwrap_or_else(|| panic!("{identifier} is not tagged {version}"));
    let blocks = blocks(&read(".gitlab-ci.yml"));
    let publish = resolved(&blocks, "publish:image");
    assert!(
        publish.contains(&format!("\"{repository}:$VERSION\"")),
        "publish:image does not push {repository}: {publish}"
    );
    assert!(
        read("Containerfile").contains(&format!(
            "LABEL io.modelcontextprotocol.server.name=\"{name}\""
        )),
        "the image's label is not {name}"
    );
    let registry = resolved(&blocks, "publish:mcp-registry");
    assert!(registry.contains("scripts/dist/registry_entry.py server.json dist"));
    assert!(registry.contains("publish registry-entry.json"));
    let release = resolved(&blocks, "publish:release");
    assert!(release.contains("direct_asset_path"), "{release}");
}

#[test]
fn the_npm_launcher_says_there_is_no_musl_build() {
    let launcher = read("packaging/npm/bin/gitlab-file-mcp.js");
    assert!(launcher.contains("there is no build for musl Linux"));
    assert!(launcher.contains("process.execve"));
}
