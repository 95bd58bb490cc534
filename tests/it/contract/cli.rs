//! The command line's own contract: configuration errors exit 2 with a sentence naming the
//! setting (and never a secret the setting carried), before anything is served; `--help`
//! documents the commands; `read` without a file is bad usage.

use crate::support::env;

use std::process::Command;

fn run(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gitlab-file-mcp"));
    cmd.args(args);
    for name in env::cleared() {
        cmd.env_remove(name);
    }
    cmd.envs(env.iter().copied());
    cmd.stdin(std::process::Stdio::null());
    cmd.output().expect("run gitlab-file-mcp")
}

#[test]
fn a_bad_gitlab_url_is_a_usage_error_before_serving() {
    for (args, env) in [
        (vec![], vec![("GITLAB_URL", "ftp://gitlab.example.com")]),
        (vec!["serve"], vec![("GITLAB_URL", "not a url")]),
        (
            vec!["read", "--project", "g/p", "--path", "a", "--ref", "main"],
            vec![("GITLAB_URL", "https://u:p@h")],
        ),
    ] {
        let out = run(&args, &env);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("GITLAB_URL"), "{stderr}");
        assert!(
            out.stdout.is_empty(),
            "stdout is the MCP channel: {:?}",
            out.stdout
        );
    }
}

#[test]
fn a_bad_ca_file_is_a_usage_error() {
    let out = run(
        &["read", "--project", "g/p", "--path", "a", "--ref", "main"],
        &[("GITLAB_CA_FILE", "/nonexistent/ca.pem")],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("GITLAB_CA_FILE"));
}

#[test]
fn help_lists_the_commands() {
    let out = run(&["--help"], &[]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for word in ["serve", "read", "--gitlab-url", "GITLAB_TOKEN"] {
        assert!(help.contains(word), "{word} missing from --help:\n{help}");
    }
}

#[test]
fn a_gitlab_url_with_credentials_or_a_query_is_refused_without_echoing_them() {
    for url in [
        "http://u:SECRETPASS@gitlab.example.com",
        "https://gitlab.example.com/?private_token=SECRETPASS",
        "https://SECRETPASS@gitlab.example.com/gitlab",
        "u:SECRETPASS@gitlab.example.com",
        "http://u:SECRETPASS@gitlab example.com",
    ] {
        for (args, env) in [
            (vec!["serve"], vec![("GITLAB_URL", url)]),
            (
                vec!["read", "--project", "g/p", "--path", "a", "--ref", "main"],
                vec![("GITLAB_URL", url)],
            ),
            (vec!["serve"], vec![("GITLAB_API_URL", url)]),
            (vec!["serve", "--gitlab-url", url], vec![]),
        ] {
            let out = run(&args, &env);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{url}: {stderr}");
            assert!(stderr.contains("GITLAB_URL"), "{url}: {stderr}");
            assert!(!stderr.contains("SECRETPASS"), "{url}: {stderr}");
            assert!(stderr.contains("[redacted]"), "{url}: {stderr}");
        }
    }
    // --help shows the variable, never its value.
    let out = run(&["--help"], &[("GITLAB_URL", "http://u:SECRETPASS@h")]);
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("GITLAB_URL") && !help.contains("SECRETPASS"),
        "{help}"
    );
}

#[test]
fn gitlab_ca_cert_path_is_an_alias_of_gitlab_ca_file_which_wins() {
    let read = ["read", "--project", "g/p", "--path", "a", "--ref", "main"];
    let out = run(
        &read,
        &[("GITLAB_CA_CERT_PATH", "/nonexistent/alias-ca.pem")],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("GITLAB_CA_CERT_PATH") && stderr.contains("/nonexistent/alias-ca.pem"),
        "{stderr}"
    );
    let out = run(
        &read,
        &[
            ("GITLAB_CA_CERT_PATH", "/nonexistent/alias-ca.pem"),
            ("GITLAB_CA_FILE", "/nonexistent/file-ca.pem"),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("/nonexistent/file-ca.pem") && !stderr.contains("alias-ca.pem"),
        "{stderr}"
    );
}

#[test]
fn read_naming_no_file_is_bad_usage() {
    let out = run(&["read", "--project", "g/p", "--ref", "main"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--path"), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn oauth_settings_missing_or_malformed_are_usage_errors_naming_them() {
    let key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
    let serve = ["serve", "--http", "127.0.0.1:0", "--oauth"];
    let public = ["--public-url", "https://mcp.example.com"];
    let with_public: Vec<&str> = serve.iter().chain(public.iter()).copied().collect();
    for (args, env, named) in [
        (serve.to_vec(), vec![], "--public-url"),
        (
            serve
                .iter()
                .copied()
                .chain(["--public-url", "http://mcp.example.com"])
                .collect(),
            vec![],
            "--public-url",
        ),
        (with_public.clone(), vec![], "GITLAB_OAUTH_CLIENT_ID"),
        (
            with_public.clone(),
            vec![("GITLAB_OAUTH_CLIENT_ID", "app")],
            "GITLAB_FILE_MCP_OAUTH_KEYS",
        ),
        (
            with_public.clone(),
            vec![
                ("GITLAB_OAUTH_CLIENT_ID", "app"),
                ("GITLAB_FILE_MCP_OAUTH_KEYS", "c2VjcmV0LWtleS10b28tc2hvcnQ"),
            ],
            "GITLAB_FILE_MCP_OAUTH_KEYS",
        ),
        (
            with_public.clone(),
            vec![
                ("GITLAB_OAUTH_CLIENT_ID", "app"),
                ("GITLAB_FILE_MCP_OAUTH_KEYS", "c2VjcmV0LWtleS10b28tc2hvcnQ="),
            ],
            "GITLAB_FILE_MCP_OAUTH_KEYS",
        ),
        (
            with_public.iter().copied().chain(["--repo", "."]).collect(),
            vec![
                ("GITLAB_OAUTH_CLIENT_ID", "app"),
                ("GITLAB_FILE_MCP_OAUTH_KEYS", key),
            ],
            "--repo",
        ),
    ] {
        let out = run(&args, &env);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?} {env:?}: {stderr}");
        assert!(stderr.contains(named), "{named} not named: {stderr}");
        assert!(!stderr.contains("c2VjcmV0"), "a key is shown: {stderr}");
        assert!(out.stdout.is_empty());
    }
}
