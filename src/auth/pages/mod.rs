//! The sign-in's HTML pages, rendered from the template files beside this module
//! (`pages/consent.html`, `pages/refused.html`) by minijinja, which HTML-escapes every value
//! by default (its auto-escape for `.html` templates), so no value a client chose (its name,
//! its redirect URI's host) can become markup. The headers that make a page unframeable and
//! uncached are [`super::refusal::page`]'s.

use minijinja::{Environment, context};
use serde::Serialize;

/// What the consent page shows.
#[derive(Debug, Serialize)]
pub(crate) struct Consent<'a> {
    /// The client's name, as people may be shown it.
    pub name: &'a str,
    /// GitLab's URL.
    pub gitlab: &'a str,
    /// Where the access goes: the redirect URI's host.
    pub host: &'a str,
    /// For a client named by a metadata document, the host that publishes it.
    pub publisher: Option<&'a str>,
    /// The access goes to a program on this computer (a loopback redirect URI).
    pub local: bool,
    pub scope: &'a str,
    /// Where the form is posted.
    pub action: &'a str,
    /// The sealed form.
    pub form: &'a str,
}

/// The consent page (`None` only if a template does not render, which its test rules out).
pub(crate) fn consent(page: &Consent<'_>) -> Option<String> {
    render("consent.html", include_str!("consent.html"), page)
}

/// The page of a refusal that must not be redirected, saying `message`.
pub(crate) fn refused(message: &str) -> Option<String> {
    render(
        "refused.html",
        include_str!("refused.html"),
        context! { message },
    )
}

fn render(name: &'static str, source: &'static str, values: impl Serialize) -> Option<String> {
    let mut env = Environment::new();
    env.add_template(name, source).ok()?;
    let values = minijinja::value::Serde(values);
    env.get_template(name).ok()?.render(values).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_escaped_and_both_pages_render() {
        let page = consent(&Consent {
            name: "<script>alert(1)</script>",
            gitlab: "https://gitlab.example.com",
            host: "a\"b'c&d",
            publisher: Some("docs.example.com"),
            local: true,
            scope: "read_api",
            action: "/authorize/consent",
            form: "sealed-form",
        })
        .unwrap();
        assert!(!page.contains("<script>"), "{page}");
        assert!(page.contains("&lt;script&gt;"), "{page}");
        assert!(!page.contains("a\"b'c&d"), "{page}");
        assert!(page.contains("It describes itself at <strong>docs.example.com</strong>."));
        assert!(page.contains("any program on it could use this name"));
        assert!(page.contains("name=\"form\" value=\"sealed-form\""));
        let refused = refused("No <b>way</b> & no").unwrap();
        assert!(refused.contains("<h1>Sign-in refused</h1>"));
        assert!(
            refused.contains("No &lt;b&gt;way&lt;&#x2f;b&gt; &amp; no"),
            "{refused}"
        );
    }
}
