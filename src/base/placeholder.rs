//! Whether a configured value is an MCP client's placeholder that was passed on unexpanded
//! (pure): `${GITLAB_TOKEN}` from Claude Code or a bundle's `${user_config.gitlab_token}`,
//! `$GITLAB_TOKEN` from a shell-style configuration, `%GITLAB_TOKEN%` from a Windows one. A
//! client that cannot fill such a placeholder (the variable is unset, the field was left empty)
//! may hand the text itself to the server, which would then send it to GitLab as a token.

/// Whether `value` (trimmed) is nothing but one placeholder: `${…}` with anything but `}`
/// inside, `$NAME` or `%NAME%` (a name of ASCII letters, digits and `_`, not starting with a
/// digit). No GitLab token has this form: they are `glpat-…` and the like, or hex.
pub(crate) fn is_unexpanded(value: &str) -> bool {
    let value = value.trim();
    if let Some(inner) = value.strip_prefix("${").and_then(|v| v.strip_suffix('}')) {
        return !inner.is_empty() && !inner.contains('}');
    }
    if let Some(name) = value.strip_prefix('$') {
        return is_name(name);
    }
    value
        .strip_prefix('%')
        .and_then(|v| v.strip_suffix('%'))
        .is_some_and(is_name)
}

/// An environment variable's name as shells and `cmd` write it in a placeholder.
fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_each_client_leaves() {
        for placeholder in [
            "${GITLAB_TOKEN}",
            " ${GITLAB_TOKEN} ",
            "${user_config.gitlab_token}",
            "${env:GITLAB_TOKEN}",
            "${input:gitlab-token}",
            "${GITLAB_TOKEN:-}",
            "$GITLAB_TOKEN",
            "$_token2",
            "%GITLAB_TOKEN%",
        ] {
            assert!(is_unexpanded(placeholder), "{placeholder}");
        }
    }

    #[test]
    fn tokens_and_near_misses_are_not_placeholders() {
        for value in [
            "glpat-xxxxxxxxxxxxxxxxxxxx",
            "0123456789abcdef0123456789abcdef",
            "",
            "$",
            "${}",
            "${a}}",
            "$1abc",
            "$GITLAB-TOKEN",
            "%%",
            "%GITLAB TOKEN%",
            "%GITLAB_TOKEN",
            "Bearer ${GITLAB_TOKEN}",
            "glpat-$abc",
        ] {
            assert!(!is_unexpanded(value), "{value}");
        }
    }
}
