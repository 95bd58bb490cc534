//! What the packages promise, checked without building them (scripts/check-dist.sh builds and
//! installs them): `server.json` is the MCP Registry entry of this version, naming the npm and
//! PyPI packages and only variables the server reads; the PyPI description carries the
//! `mcp-name:` line the registry verifies; the crate can be published with its license; the
//! container image runs as non-root from nothing; the release pipeline runs the same script
//! CI checks.

use serde_json::Value;

fn read(path: &str) -> String {
    let path = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `key = "value"` of Cargo.toml's `[package]` table (its first lines).
fn package_field(key: &str) -> Option<String> {
    let manifest = read("Cargo.toml");
    let package = manifest.split("\n[").next().unwrap_or_default().to_string();
    package.lines().find_map(|line| {
        let (k, v) = line.split_once(" = ")?;
        (k == key).then(|| v.trim_matches('"').to_string())
    })
}

fn server_json() -> Value {
    serde_json::from_str(&read("server.json")).expect("server.json is JSON")
}

#[test]
fn server_json_is_this_version_and_names_its_packages() {
    let server = server_json();
    let version = package_field("version").expect("a version");
    assert_eq!(server["version"], version.as_str());
    assert_eq!(
        server["$schema"],
        "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
    );
    let packages = server["packages"].as_array().expect("packages");
    let mut registries: Vec<&str> = packages
        .iter()
        .map(|p| p["registryType"].as_str().unwrap())
        .collect();
    registries.sort_unstable();
    // The bundles join at release (scripts/dist/registry_entry.py): their SHA-256 is known then.
    assert_eq!(registries, ["npm", "oci", "pypi"]);
    for package in packages {
        if package["registryType"] == "oci" {
            let image = package["identifier"].as_str().unwrap();
            assert!(
                image.ends_with(&format!("/gitlab-file-mcp:{version}")),
                "{image}"
            );
        } else {
            assert_eq!(package["identifier"], "gitlab-file-mcp", "{package}");
            assert_eq!(package["version"], version.as_str(), "{package}");
        }
        assert_eq!(package["transport"]["type"], "stdio", "{package}");
    }
}

#[test]
fn server_json_names_only_variables_the_server_reads_and_hides_the_token() {
    let config = read("src/config.rs");
    for package in server_json()["packages"].as_array().unwrap() {
        let variables = package["environmentVariables"].as_array().unwrap();
        for variable in variables {
            let name = variable["name"].as_str().unwrap();
            assert!(
                config.contains(&format!("\"{name}\"")),
                "{name} is not read in src/config.rs"
            );
            let secret = variable["isSecret"].as_bool().unwrap_or(false);
            assert_eq!(secret, name.contains("TOKEN"), "{name}: isSecret {secret}");
        }
        let names: Vec<&str> = variables
            .iter()
            .map(|v| v["name"].as_str().unwrap())
            .collect();
        assert!(
            names.starts_with(&["GITLAB_URL", "GITLAB_TOKEN"]),
            "{names:?}"
        );
    }
}

#[test]
fn the_registry_can_verify_the_packages_are_ours() {
    let name = server_json()["name"].as_str().unwrap().to_string();
    // PyPI: a line of the description (the wheel's METADATA body is packaging/README.md).
    let readme = read("packaging/README.md");
    assert!(
        readme.lines().any(|l| l == format!("mcp-name: {name}")),
        "packaging/README.md has no line 'mcp-name: {name}'"
    );
    // npm: scripts/dist.sh passes server.json's name to npm.py as package.json's mcpName.
    let dist = read("scripts/dist.sh");
    assert!(dist.contains(r#"json.load(open("server.json"))["name"]"#));
    assert!(read("scripts/dist/npm.py").contains(r#""mcpName": mcp_name"#));
}

#[test]
fn the_crate_can_be_published_with_its_license() {
    assert_eq!(package_field("license").as_deref(), Some("MIT"));
    assert!(read("LICENSE").starts_with("MIT License"));
    assert_eq!(package_field("publish"), None, "publish = false is set");
    for key in ["description", "repository", "readme"] {
        assert!(package_field(key).is_some(), "Cargo.toml has no {key}");
    }
    // What build.rs needs ships; tests and fixtures (which need ../shared) do not.
    let include = package_field("include").expect("an include list");
    for needed in ["/src/", "/graphql/", "/build.rs", "/LICENSE", "/README.md"] {
        assert!(include.contains(needed), "include lacks {needed}");
    }
    assert!(!include.contains("tests"), "{include}");
}

#[test]
fn the_image_runs_the_http_mode_as_non_root_from_nothing() {
    let containerfile = read("Containerfile");
    let lines: Vec<&str> = containerfile
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect();
    assert_eq!(lines.first(), Some(&"FROM scratch"));
    assert!(lines.contains(&"USER 65532:65532"), "{lines:?}");
    assert!(
        lines.contains(&r#"CMD ["serve", "--http", "0.0.0.0:8080"]"#),
        "{lines:?}"
    );
    // The CA bundle is in it: without it the HTTP client cannot be built.
    assert!(read("scripts/image.sh").contains("/etc/ssl/certs/ca-certificates.crt"));
}

#[test]
fn the_release_pipeline_runs_what_ci_checks() {
    let pipeline = read(".gitlab-ci.yml");
    assert!(pipeline.contains("scripts/dist.sh"));
    assert!(pipeline.contains("scripts/image.sh"));
    for target in [
        "x86_64-unknown-linux-gnu",
        "aarch64-unknown-linux-gnu",
        "aarch64-apple-darwin",
        "x86_64-pc-windows-msvc",
    ] {
        assert!(pipeline.contains(target), "no job for {target}");
    }
    // The release's own check gates it: GitLab ignores a failing `after_script`, so the check
    // there would publish packages that do not install.
    assert!(pipeline.contains("scripts/check-dist.sh"));
    assert!(
        !pipeline.contains("after_script:"),
        "the release pipeline runs a step in after_script, whose failure GitLab ignores"
    );
    let ci = read(".ci/run");
    assert!(
        ci.contains("\nPACKAGED_BINARY=$(scripts/glibc-build.sh)\nscripts/check-dist.sh \"$PACKAGED_BINARY\"\n"),
        ".ci/run does not run the check on a binary built as the release builds it"
    );
    // The Linux packages are linked against one old glibc, and CI checks that same one.
    let value_after = |text: &str, prefix: &str| {
        text.lines()
            .find_map(|line| line.trim().strip_prefix(prefix))
            .map(|value| value.trim_matches('"').to_string())
    };
    let released = value_after(&pipeline, "GITLAB_FILE_MCP_GLIBC: ");
    assert_eq!(released.as_deref(), Some("2.17"));
    assert_eq!(
        value_after(&ci, "export GITLAB_FILE_MCP_GLIBC="),
        released,
        ".ci/run checks another glibc"
    );
}
