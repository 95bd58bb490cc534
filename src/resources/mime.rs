//! The MIME type of a resource, from its file name's extension (`mime_guess`'s table, the
//! one hyper's ecosystem keeps): for a text resource a text type (`text/markdown`,
//! `application/json`, `text/x-rust`; `text/plain` where the table names none, or names a
//! type that is not text, as `.ts` is an MPEG stream to it), for a blob resource whatever the
//! table names (`image/png`; `application/octet-stream` where it names none). Pure.

/// The type of a file that is text, when its extension names no text type.
pub(crate) const TEXT_PLAIN: &str = "text/plain";

/// The type of a file that is not text, when its extension names none.
pub(crate) const OCTET_STREAM: &str = "application/octet-stream";

/// The MIME type of the text file at `path`.
pub(crate) fn of_text(path: &str) -> String {
    mime_guess::from_path(path)
        .iter_raw()
        .find(|m| is_text(m))
        .unwrap_or(TEXT_PLAIN)
        .to_string()
}

/// The MIME type of the binary file at `path`.
pub(crate) fn of_binary(path: &str) -> String {
    mime_guess::from_path(path)
        .first_raw()
        .unwrap_or(OCTET_STREAM)
        .to_string()
}

/// Whether `mime` is a type a text file may have: `text/*`, JSON, XML, JavaScript, a shell
/// script, and the structured suffixes (`+json`, `+xml`).
fn is_text(mime: &str) -> bool {
    const TEXT_APPLICATIONS: [&str; 8] = [
        "application/json",
        "application/xml",
        "application/javascript",
        "application/x-javascript",
        "application/x-sh",
        "application/x-csh",
        "application/sql",
        "application/toml",
    ];
    mime.starts_with("text/")
        || TEXT_APPLICATIONS.contains(&mime)
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_file_has_its_extension_s_text_type() {
        assert_eq!(of_text("README.md"), "text/markdown");
        assert_eq!(of_text("a/b/config.json"), "application/json");
        assert_eq!(of_text("src/lib.rs"), "text/x-rust");
        assert_eq!(of_text("index.html"), "text/html");
        assert_eq!(of_text("icon.svg"), "image/svg+xml");
        assert_eq!(of_text("run.sh"), "application/x-sh");
    }

    #[test]
    fn a_text_file_without_a_text_type_is_plain_text() {
        assert_eq!(of_text("Makefile"), TEXT_PLAIN);
        assert_eq!(of_text("notes.unknownext"), TEXT_PLAIN);
        // An MPEG transport stream to the table; TypeScript here, since it read as text.
        assert_eq!(of_text("src/app.ts"), TEXT_PLAIN);
        // A PNG that is text after all (a test fixture) is not served as an image.
        assert_eq!(of_text("fixture.png"), TEXT_PLAIN);
    }

    #[test]
    fn a_binary_file_has_its_extension_s_type() {
        assert_eq!(of_binary("docs/logo.png"), "image/png");
        assert_eq!(of_binary("a.pdf"), "application/pdf");
        assert_eq!(of_binary("data.bin.unknownext"), OCTET_STREAM);
        assert_eq!(of_binary("LICENSE"), OCTET_STREAM);
    }
}
