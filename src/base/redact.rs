//! Secrets kept out of what is shown or logged: a URL's user info (`u:SECRET@`) and its query
//! (`?private_token=…`). Pure string work, so it also handles strings that are not valid URLs:
//! a configuration value is redacted before it is quoted in an error, and tool arguments before
//! they are logged.

use serde_json::{Map, Value};

/// What replaces a secret.
const REDACTED: &str = "[redacted]";

/// The most characters of one argument value a log line keeps.
const MAX_LOGGED_CHARS: usize = 200;

/// How much of a query (and fragment) survives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Query {
    /// All of it becomes `[redacted]` (configuration: a base URL has no business with one).
    Drop,
    /// Keys stay, values become `[redacted]`; a part without `=` is redacted whole in the query
    /// and kept in the fragment (`#L10-20`).
    KeysOnly,
}

/// `s` with the user info of its authority and its query (and fragment) redacted. The
/// authority starts after `://`, or at the start when there is none (`u:p@host`), and ends at
/// the first `/`, `\`, `?` or `#`; user info is everything before its last `@`. With
/// [`Query::Drop`] (configuration), everything before the last `@` ahead of the query is user
/// info, so a password holding a `/` is not shown either.
pub(crate) fn url(s: &str, query: Query) -> String {
    let start = s.find("://").map_or(0, |i| i + 3);
    let rest = &s[start..];
    let before_query = rest.find(['?', '#']).unwrap_or(rest.len());
    let userinfo_end = match query {
        Query::Drop => rest[..before_query].rfind('@'),
        Query::KeysOnly => {
            let authority_len = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
            rest[..authority_len].rfind('@')
        }
    };
    let mut out = String::with_capacity(s.len());
    out.push_str(&s[..start]);
    let tail = match userinfo_end {
        Some(at) => {
            out.push_str(REDACTED);
            &rest[at..]
        }
        None => rest,
    };
    let (path, fragment) = match tail.find('#') {
        Some(i) => tail.split_at(i),
        None => (tail, ""),
    };
    let (path, search) = match path.find('?') {
        Some(i) => path.split_at(i),
        None => (path, ""),
    };
    out.push_str(path);
    if let Some(q) = search.strip_prefix('?') {
        out.push('?');
        out.push_str(&parts(q, query, true));
    }
    if let Some(f) = fragment.strip_prefix('#') {
        out.push('#');
        out.push_str(&parts(f, query, false));
    }
    out
}

/// A query or fragment, `&`-separated, redacted as `query` says.
fn parts(s: &str, query: Query, bare_is_secret: bool) -> String {
    if query == Query::Drop {
        return REDACTED.to_string();
    }
    s.split('&')
        .map(|part| match part.split_once('=') {
            Some((key, _)) => format!("{key}={REDACTED}"),
            None if part.is_empty() || !bare_is_secret => part.to_string(),
            None => REDACTED.to_string(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// Tool arguments for a log line: every string value through [`url()`] (keys kept) and cut to
/// [`MAX_LOGGED_CHARS`] characters; the rest as sent.
pub(crate) fn arguments(arguments: Option<&Map<String, Value>>) -> String {
    let Some(map) = arguments else {
        return "{}".to_string();
    };
    let redacted: Map<String, Value> = map
        .iter()
        .map(|(k, v)| {
            let key: String = k.chars().take(MAX_LOGGED_CHARS).collect();
            let value = match v {
                // Redacted whole, then cut: a cut first could drop the `@` that marks a long
                // user info as one.
                Value::String(s) => Value::String(
                    url(s, Query::KeysOnly)
                        .chars()
                        .take(MAX_LOGGED_CHARS)
                        .collect(),
                ),
                other => other.clone(),
            };
            (key, value)
        })
        .collect();
    Value::Object(redacted).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn configuration_urls_lose_user_info_query_and_fragment() {
        let cases = [
            ("http://u:SECRET@host", "http://[redacted]@host"),
            (
                "https://SECRET@host/gitlab",
                "https://[redacted]@host/gitlab",
            ),
            ("https://h/?private_token=SECRET", "https://h/?[redacted]"),
            ("https://h#SECRET", "https://h#[redacted]"),
            ("u:SECRET@host/x", "[redacted]@host/x"),
            (
                "http://u:p@ss:w@rd@host:8080/x",
                "http://[redacted]@host:8080/x",
            ),
            ("http://u:pa/ss@host", "http://[redacted]@host"),
            ("not a url", "not a url"),
            ("https://gitlab.example.com", "https://gitlab.example.com"),
            ("", ""),
        ];
        for (raw, want) in cases {
            assert_eq!(url(raw, Query::Drop), want, "{raw}");
        }
    }

    #[test]
    fn logged_urls_keep_query_keys_and_line_anchors() {
        assert_eq!(
            url(
                "https://u:pw@h/g/p/-/blob/main/a.rs?private_token=tok&ref_type=heads&bare#L10-20",
                Query::KeysOnly
            ),
            "https://[redacted]@h/g/p/-/blob/main/a.rs?private_token=[redacted]&ref_type=[redacted]&[redacted]#L10-20"
        );
        assert_eq!(
            url("h/x#access_token=t", Query::KeysOnly),
            "h/x#access_token=[redacted]"
        );
        // A path with an `@` is no user info.
        assert_eq!(url("http://host/a@b", Query::KeysOnly), "http://host/a@b");
    }

    #[test]
    fn arguments_are_redacted_and_cut() {
        let map = json!({"url": "http://u:SECRET@h/g/p/-/blob/main/x?private_token=SECRET2",
                         "file_path": "x".repeat(1000), "offset": 3});
        let logged = arguments(map.as_object());
        assert!(!logged.contains("SECRET"), "{logged}");
        assert!(logged.contains("http://[redacted]@h/g/p/-/blob/main/x?private_token=[redacted]"));
        assert!(
            logged.contains("\"offset\":3") && logged.len() < 400,
            "{logged}"
        );
        assert_eq!(arguments(None), "{}");
    }

    #[test]
    fn user_info_longer_than_the_cut_is_redacted_too() {
        let secret = "S".repeat(300);
        let map = json!({"url": format!("https://u:{secret}@h/g/p/-/blob/main/x")});
        let logged = arguments(map.as_object());
        assert!(!logged.contains("SSS"), "{logged}");
        assert!(
            logged.contains("https://[redacted]@h/g/p/-/blob/main/x"),
            "{logged}"
        );
    }
}
