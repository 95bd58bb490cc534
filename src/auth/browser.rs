//! Binding one step of the sign-in to the browser that took the step before it (the MCP
//! spec's "OAuth state parameter validation"): a step that hands the browser something to
//! bring back (the consent form, the `state` sent to GitLab) also sets a cookie holding a
//! random nonce, and seals the same nonce into what it hands out; the next step refuses what
//! comes from a browser that does not hold the nonce. A link to the next step sent to another
//! browser (another user's) is then worthless.
//!
//! Each flow has its own cookie (`<purpose>-<id>`, the id random too), so two sign-ins or two
//! consent pages open in one browser do not overwrite each other's. The cookies are
//! `HttpOnly`, `SameSite=Lax` (sent on the top-level navigation back from GitLab), short-lived,
//! and `__Host-`-prefixed and `Secure` when the server is public over https. Cookies are
//! written and read with the `cookie` crate.

use cookie::{Cookie, SameSite};
use http::{HeaderMap, HeaderValue, header};
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use super::keys::SealKeys;

/// What one flow's cookie is for: its name's stem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// The consent form (its CSRF token).
    Consent,
    /// The trip through GitLab (the `state`).
    SignIn,
}

impl Purpose {
    fn stem(self) -> &'static str {
        match self {
            Self::Consent => "gfm-csrf",
            Self::SignIn => "gfm-signin",
        }
    }
}

/// How the cookies of a server are set: `__Host-` and `Secure` over https.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CookieScope {
    pub secure: bool,
}

impl CookieScope {
    /// The scope of a server whose public URL is `public`.
    pub(crate) fn of(public: &str) -> Self {
        Self {
            secure: public.starts_with("https://"),
        }
    }

    /// `base`, `__Host-`-prefixed when secure.
    pub(crate) fn name(self, base: &str) -> String {
        if self.secure {
            format!("__Host-{base}")
        } else {
            base.to_string()
        }
    }

    /// The `Set-Cookie` value of `base` = `value` for `max_age` seconds (0: delete it).
    pub(crate) fn set_cookie(self, base: &str, value: &str, max_age: u64) -> String {
        let seconds = i64::try_from(max_age).unwrap_or(i64::MAX);
        Cookie::build((self.name(base), value.to_string()))
            .path("/")
            .max_age(cookie::time::Duration::seconds(seconds))
            .http_only(true)
            .same_site(SameSite::Lax)
            .secure(self.secure)
            .build()
            .to_string()
    }
}

/// The value of the cookie `name` among the request's `Cookie` headers.
pub(crate) fn cookie_value(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == name)
        .map(|c| c.value().to_string())
}

/// Appends a `Set-Cookie` to `headers` (a value that is not a valid header is dropped: the
/// cookie crate writes only visible ASCII for the names and values this module gives it).
pub(crate) fn append_cookie(headers: &mut HeaderMap, set_cookie: &str) {
    if let Ok(value) = HeaderValue::from_str(set_cookie) {
        headers.append(header::SET_COOKIE, value);
    }
}

/// One flow's binding: sealed into what the browser brings back, and its nonce in a cookie.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Binding {
    /// Names the flow's cookie.
    id: String,
    /// The cookie's value.
    nonce: String,
}

impl std::fmt::Debug for Binding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Binding({}, [redacted])", self.id)
    }
}

impl Binding {
    /// A new binding (`None` only if the random source fails).
    pub(crate) fn new(keys: &SealKeys) -> Option<Self> {
        Some(Self {
            id: keys.random_text(12)?,
            nonce: keys.random_text(32)?,
        })
    }

    /// The flow's id: unique per flow, so a use-once memory can be keyed by it.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    fn base(&self, purpose: Purpose) -> String {
        format!("{}-{}", purpose.stem(), self.id)
    }

    /// The `Set-Cookie` that gives this browser the nonce for `max_age` seconds.
    pub(crate) fn set_cookie(&self, purpose: Purpose, scope: CookieScope, max_age: u64) -> String {
        scope.set_cookie(&self.base(purpose), &self.nonce, max_age)
    }

    /// The `Set-Cookie` that removes it once the flow has moved on.
    pub(crate) fn clear_cookie(&self, purpose: Purpose, scope: CookieScope) -> String {
        scope.set_cookie(&self.base(purpose), "", 0)
    }

    /// Whether the browser that sent `headers` holds this binding's nonce.
    pub(crate) fn held_by(
        &self,
        purpose: Purpose,
        scope: CookieScope,
        headers: &HeaderMap,
    ) -> bool {
        let held = cookie_value(headers, &scope.name(&self.base(purpose)));
        held.is_some_and(|held| bool::from(held.as_bytes().ct_eq(self.nonce.as_bytes())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> SealKeys {
        SealKeys::parse("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8").unwrap()
    }

    fn sent(cookies: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for c in cookies {
            headers.append(header::COOKIE, HeaderValue::from_str(c).unwrap());
        }
        headers
    }

    /// The `name=value` pair a browser sends back for a `Set-Cookie`.
    fn pair(set_cookie: &str) -> &str {
        set_cookie.split(';').next().unwrap()
    }

    #[test]
    fn cookies_are_found_by_name_across_headers() {
        let headers = sent(&["a=1; gfm-csrf=xyz", "b=2"]);
        assert_eq!(cookie_value(&headers, "gfm-csrf").as_deref(), Some("xyz"));
        assert_eq!(cookie_value(&headers, "b").as_deref(), Some("2"));
        assert_eq!(cookie_value(&headers, "c"), None);
        assert_eq!(cookie_value(&sent(&["garbage"]), "garbage"), None);
    }

    #[test]
    fn only_the_browser_given_the_nonce_holds_the_binding() {
        let keys = keys();
        let scope = CookieScope::of("http://localhost");
        let one = Binding::new(&keys).unwrap();
        let set = one.set_cookie(Purpose::SignIn, scope, 600);
        assert!(one.held_by(Purpose::SignIn, scope, &sent(&[pair(&set)])));
        // Another browser: no cookie, another flow's cookie, or a forged value.
        assert!(!one.held_by(Purpose::SignIn, scope, &HeaderMap::new()));
        let two = Binding::new(&keys).unwrap();
        let other = two.set_cookie(Purpose::SignIn, scope, 600);
        assert!(!one.held_by(Purpose::SignIn, scope, &sent(&[pair(&other)])));
        let forged = format!("{}=forged", pair(&set).split('=').next().unwrap());
        assert!(!one.held_by(Purpose::SignIn, scope, &sent(&[&forged])));
        // The same nonce under the other purpose's name is not held.
        assert!(!one.held_by(Purpose::Consent, scope, &sent(&[pair(&set)])));
        // Two flows in one browser keep both cookies.
        let both = sent(&[pair(&set), pair(&other)]);
        assert!(
            one.held_by(Purpose::SignIn, scope, &both)
                && two.held_by(Purpose::SignIn, scope, &both)
        );
    }

    #[test]
    fn cookies_are_http_only_lax_and_host_prefixed_over_https() {
        let binding = Binding::new(&keys()).unwrap();
        let plain = binding.set_cookie(Purpose::Consent, CookieScope::of("http://localhost"), 600);
        assert!(plain.starts_with("gfm-csrf-"), "{plain}");
        for part in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=600"] {
            assert!(plain.contains(part), "{plain}");
        }
        assert!(!plain.contains("Secure"), "{plain}");
        let secure =
            binding.set_cookie(Purpose::SignIn, CookieScope::of("https://mcp.example"), 600);
        assert!(
            secure.starts_with("__Host-gfm-signin-") && secure.contains("Secure"),
            "{secure}"
        );
        let cleared = binding.clear_cookie(Purpose::SignIn, CookieScope::of("https://mcp.example"));
        assert!(cleared.contains("Max-Age=0"), "{cleared}");
        assert!(!format!("{binding:?}").contains(&binding.nonce));
    }
}
