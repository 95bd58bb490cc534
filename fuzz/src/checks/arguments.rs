//! Target `arguments`: the input is any bytes, read as a JSON document; a JSON object is the
//! `arguments` of a `tools/call` and is resolved against every instance of [`BASES`].
//!
//! Properties: parsing and resolving never panic, every error has a message, and arguments
//! good enough for a GitLab without a relative root are good enough for a local repository
//! (which needs less: no project, a default ref, any host).

use serde_json::{Map, Value};

/// The GitLab instances arguments are resolved against: with and without a relative root, a
/// port and an IPv6 literal.
pub const BASES: [&str; 4] = [
    "https://gitlab.example.com",
    "https://gitlab.example.com/gitlab/",
    "http://127.0.0.1:8080",
    "https://[::1]:8443/git/lab",
];

/// The instance `BASES[i % BASES.len()]`, parsed.
pub fn base(i: usize) -> ::url::Url {
    let text = BASES[i % BASES.len()];
    // Every entry of `BASES` is a valid absolute URL (the replay test parses them all).
    ::url::Url::parse(text).expect("BASES are valid URLs")
}

pub fn check(data: &[u8]) {
    let Ok(Value::Object(arguments)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    for i in 0..BASES.len() {
        check_resolution(&arguments, &base(i));
    }
}

/// Resolves `arguments` for the GitLab at `base` and for a local repository and checks the
/// outcomes; shared with the `url_args` target.
pub fn check_resolution(arguments: &Map<String, Value>, base: &::url::Url) {
    let [gitlab, local] = gitlab_file_mcp::fuzzing::resolve_arguments(arguments, base);
    for message in [&gitlab, &local].into_iter().flatten() {
        assert!(!message.trim().is_empty(), "an error without a message");
    }
    // Without a relative root the two resolutions parse a URL identically; the local one only
    // drops checks (host, project path agreement) and fills in defaults (project, ref).
    let no_root = base.path().trim_end_matches('/').is_empty();
    if no_root && gitlab.is_none() {
        assert_eq!(
            local, None,
            "resolves for GitLab at {base} but not locally: {arguments:?}"
        );
    }
}
