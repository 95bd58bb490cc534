//! Every error sentence an agent or a user reads, worded once, from the typed errors of each
//! layer: `Display` for each error enum lives here, nowhere else. The words follow GitLab's own
//! tool where it has words; each message says what to do next.

use std::borrow::Cow;
use std::fmt::{self, Display, Formatter};

use crate::args::{ArgError, ArgName, Got, JsonKind};
use crate::config::{CA_FILE_ALIAS, ConfigError, TokenOrigin};
use crate::reader::ReadError;
use crate::ref_name::RefNameError;
use crate::resolve::file_url::{SplitError, UrlError, UrlProblem};
use crate::resolve::{PathError, ResolveError};
use crate::source::gitlab::GitlabError;
use crate::source::gitlab::json_text::JsonTextError;
use crate::source::gitlab::transport::{MAX_BODY_BYTES, NoAnswer, TransportError};
use crate::source::local::{LocalError, LocalRefError};
use crate::source::suggest::{EntryKind, Suggestion};
use crate::source::{RefProblem, SourceError};
use crate::tool::CallRefusal;
use crate::window::WindowError;

/// What to pass instead of a ref that does not exist or is not valid.
const PROVIDE_A_REF: &str =
    "Provide an existing branch name, tag name, or commit SHA, or use HEAD for the default branch.";
/// What to pass instead of a bad local ref, appended to reasons.
const PASS_INSTEAD: &str = "pass a branch, tag or commit SHA";
/// The argument forms, for a call that has neither.
const PROVIDE: &str =
    "Provide either url, or project_id, file_path, and ref (use HEAD for the default branch).";
/// What a file URL looks like, for a URL that is not one.
const URL_FORM: &str = "Expected .../-/blob/<ref>/<file_path> (/-/raw/ and /-/blame/ also work), \
for example https://gitlab.example.com/group/project/-/blob/main/README.md; or pass project_id, \
file_path and ref instead of url.";

/// The most characters of a caller's value an error quotes.
const MAX_QUOTED_CHARS: usize = 100;

/// Shortens `s` for an error message: at most [`MAX_QUOTED_CHARS`] characters, with `…`
/// appended when something was cut. Cuts on a character boundary. Every value a caller sent
/// goes through this (or [`shown`]) before it is quoted, so a 1 MiB argument never makes a
/// 1 MiB error.
pub(crate) fn shorten(s: &str) -> Cow<'_, str> {
    match s.char_indices().nth(MAX_QUOTED_CHARS) {
        None => Cow::Borrowed(s),
        Some((cut, _)) => Cow::Owned(format!("{}…", &s[..cut])),
    }
}

/// A caller's value for an error: control characters escaped (`\n`), then shortened.
pub(crate) fn shown(s: &str) -> String {
    if s.chars().any(char::is_control) {
        shorten(&s.escape_debug().to_string()).into_owned()
    } else {
        shorten(s).into_owned()
    }
}

impl Display for ReadError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Args(e) => e.fmt(f),
            ReadError::Resolve(e) => e.fmt(f),
            ReadError::Source(e) => e.fmt(f),
            ReadError::Window(e) => write!(
                f,
                "Invalid line range: {e}. Pass start_line less than or equal to end_line."
            ),
            ReadError::Binary { path, size_bytes } => write!(
                f,
                "File '{}' is binary and cannot be returned as text. Size: {size_bytes} bytes.",
                shown(path)
            ),
            ReadError::Lfs {
                path,
                storage,
                size_bytes,
            } => write!(
                f,
                "File '{}' is stored in LFS ({storage}) and its content cannot be read with this tool. Size: {size_bytes} bytes.",
                shown(path)
            ),
            ReadError::Output(e) => write!(f, "internal error: cannot serialise the output: {e}"),
        }
    }
}

impl Display for CallRefusal {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            CallRefusal::UnknownTool { name, ours } => write!(
                f,
                "Unknown tool '{}'. This server's tools: {ours}.",
                shown(name)
            ),
            CallRefusal::NoCallerToken => f.write_str(
                "This server reads with each caller's own GitLab token: send it as 'Authorization: Bearer <token>' or 'PRIVATE-TOKEN: <token>'.",
            ),
        }
    }
}

impl Display for WindowError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match *self {
            WindowError::InvertedRange {
                start,
                end,
                requested_start,
                requested_end,
                total_lines,
            } => {
                write!(f, "start line {start} is after end line {end}")?;
                if (start, end) != (requested_start, requested_end) {
                    write!(
                        f,
                        " (requested lines {requested_start} to {requested_end}, \
                         clamped to the file's {total_lines} lines)"
                    )?;
                }
                Ok(())
            }
        }
    }
}

// ---- arguments -------------------------------------------------------------------------------

impl Display for ArgName {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A JSON kind as the messages name it: `a boolean`, `an array`, `null`.
impl Display for JsonKind {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            JsonKind::Null => "null",
            JsonKind::Boolean => "a boolean",
            JsonKind::Number => "a number",
            JsonKind::String => "a string",
            JsonKind::Array => "an array",
            JsonKind::Object => "an object",
        })
    }
}

impl Display for Got {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.text {
            Some(text) => write!(f, "{} ({text})", self.kind),
            None => self.kind.fmt(f),
        }
    }
}

impl Display for ArgError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ArgError::Unknown { names, more } => unknown_arguments(f, names, *more),
            ArgError::NotAString { name, got } => {
                write!(f, "Argument '{name}' must be a string, got {got}.")
            }
            ArgError::TooLong {
                name,
                max,
                got_bytes,
            } => write!(
                f,
                "Argument '{name}' is {got_bytes} bytes long; the longest accepted is {max} bytes."
            ),
            ArgError::NotAProjectId { got } => write!(
                f,
                "Argument 'project_id' must be a project's numeric id or full path (e.g. \"42\" or \"group/project\"), got {got}."
            ),
            ArgError::NotAnInteger { name, got } => {
                write!(f, "Argument '{name}' must be an integer, got {got}.")
            }
            ArgError::OutOfRange {
                name,
                min,
                max,
                got,
            } => {
                let got = number_sent(got);
                if *max == u64::MAX {
                    write!(f, "Argument '{name}' must be at least {min}, got {got}.")
                } else {
                    write!(f, "Argument '{name}' must be between {min} and {max}, got {got}.")
                }
            }
            ArgError::TooLarge { name, max, got } => write!(
                f,
                "Argument '{name}' is too large (got {}); the maximum is {max}.",
                number_sent(got)
            ),
            ArgError::NotALineNumber { name, got } => write!(
                f,
                "Argument '{name}' must be an integer between {} and {}, got {}.",
                i64::MIN,
                i64::MAX,
                number_sent(got)
            ),
            ArgError::NotABoolean { name, got } => {
                write!(f, "Argument '{name}' must be true or false, got {got}.")
            }
            ArgError::BothWindowForms => f.write_str(
                "Use either offset/limit (zero-indexed) or start_line/end_line (1-indexed, inclusive), not both.",
            ),
        }
    }
}

fn unknown_arguments(f: &mut Formatter<'_>, names: &[String], more: usize) -> fmt::Result {
    let mut quoted: Vec<String> = names.iter().map(|k| format!("'{}'", shown(k))).collect();
    if more > 0 {
        quoted.push(format!("and {more} more"));
    }
    let accepted: Vec<&str> = ArgName::ALL.iter().map(|a| a.as_str()).collect();
    write!(
        f,
        "Unknown argument{} {}. Accepted arguments: {}.",
        if names.len() + more == 1 { "" } else { "s" },
        quoted.join(", "),
        accepted.join(", ")
    )
}

/// A number as sent (`-1`, `1.8446744073709552e19`); other values by their kind.
fn number_sent(got: &Got) -> String {
    match (&got.kind, &got.text) {
        (JsonKind::Number, Some(text)) => text.clone(),
        _ => got.to_string(),
    }
}

// ---- resolving -------------------------------------------------------------------------------

impl Display for ResolveError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let agree = "Pass one of them, or make them agree.";
        match self {
            ResolveError::Missing(name) => write!(f, "{name} is missing. {PROVIDE}"),
            ResolveError::ProjectMismatch { given, in_url } => write!(
                f,
                "Project mismatch: project_id is '{}' but url contains '{}'. {agree}",
                shown(given),
                shown(in_url)
            ),
            ResolveError::PathMismatch { given, in_url } => write!(
                f,
                "File path mismatch: file_path is '{}' but url contains '{}'. {agree}",
                shown(given),
                shown(in_url)
            ),
            ResolveError::RefMismatch { given, in_url } => write!(
                f,
                "Ref mismatch: ref is '{}' but url contains '{}'. {agree}",
                shown(given),
                shown(in_url)
            ),
            ResolveError::ProjectIdTooLarge { raw } => {
                write!(
                    f,
                    "project_id '{}' is too large to be a project id.",
                    shown(raw)
                )
            }
            ResolveError::NotAProject { raw } => write!(
                f,
                "project_id '{}' is not a project id or full path (e.g. \"42\" or \"group/project\").",
                shown(raw)
            ),
            ResolveError::RefControlCharacters { git_ref } => write!(
                f,
                "ref '{}' contains control characters; {PASS_INSTEAD}.",
                shown(git_ref)
            ),
            ResolveError::Path(e) => e.fmt(f),
            ResolveError::UrlPath { url, error } => {
                write!(f, "Invalid file URL: {error} (from {})", shown(url))
            }
            ResolveError::Url(e) => e.fmt(f),
            ResolveError::Split(e) => e.fmt(f),
        }
    }
}

impl Display for PathError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            PathError::Empty => f.write_str("file_path must not be empty."),
            PathError::ControlCharacters { path } => write!(
                f,
                "file_path '{}' contains control characters (NUL, newline, …); pass the path as it appears in the repository.",
                shown(path)
            ),
            PathError::Directory { path } => {
                write!(
                    f,
                    "file_path must be a file, not a directory: '{}'.",
                    shown(path)
                )
            }
            PathError::Traversal { path } => write!(
                f,
                "file_path must not contain a path traversal sequence: '{}'.",
                shown(path)
            ),
        }
    }
}

impl Display for UrlError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            UrlError::ForeignHost { configured, got } => write!(
                f,
                "URL host '{}' is not the configured GitLab instance '{configured}'; \
                 this server only reads from {configured}. Pass a URL on {configured}, \
                 or project_id/file_path/ref.",
                shown(got)
            ),
            UrlError::Invalid { url, problem } => write!(
                f,
                "Invalid file URL '{}': {} {URL_FORM}",
                shown(url),
                url_problem(problem)
            ),
        }
    }
}

/// The sentence saying what is wrong with a URL (the middle of an "Invalid file URL" message).
pub(crate) fn url_problem(problem: &UrlProblem) -> String {
    let open_a_file = "not a file; open a file in that directory and pass its /-/blob/ URL.";
    match problem {
        UrlProblem::Empty => "The URL is empty.".into(),
        UrlProblem::NoScheme => {
            "It has no scheme; a file URL starts with https:// or http://.".into()
        }
        UrlProblem::NoHost => "It has no host name.".into(),
        UrlProblem::BadPort => "Its port is not a number from 0 to 65535.".into(),
        UrlProblem::NotAUrl { cause } => format!("It is not a valid URL ({cause})."),
        UrlProblem::Scheme { scheme } => {
            format!("Only http and https URLs are supported, not '{scheme}:'.")
        }
        UrlProblem::NotUnderRoot { root, configured } => format!(
            "Its path is not under the GitLab instance's relative URL root '{root}' (configured as {configured})."
        ),
        UrlProblem::NoProject => "It has no project path before the file marker.".into(),
        UrlProblem::NoProjectBefore { marker } => {
            format!("It has no project path before /-/{marker}/.")
        }
        UrlProblem::LegacyTree => format!("It points at a directory (tree), {open_a_file}"),
        UrlProblem::Tree => format!("It points at a directory (/-/tree/), {open_a_file}"),
        UrlProblem::OtherPage { page } => format!(
            "'/-/{}/' URLs do not name a file; only /-/blob/, /-/raw/ and /-/blame/ URLs do.",
            shown(page)
        ),
        UrlProblem::NoMarker => {
            "It does not point at a file: its path has no /-/blob/, /-/raw/ or /-/blame/ part."
                .into()
        }
    }
}

impl Display for SplitError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let expected =
            "Expected .../-/blob/<ref>/<file_path>, or pass project_id, file_path and ref.";
        match self {
            SplitError::NoPath { ref_and_path } if ref_and_path.trim_matches('/').is_empty() => {
                write!(
                    f,
                    "The URL names no ref and no file after /-/blob/. {expected}"
                )
            }
            SplitError::NoPath { ref_and_path } => write!(
                f,
                "The URL names '{}' after /-/blob/ but no file path after the ref; a URL \
                 ending in a ref or a directory does not name a file. {expected}",
                shown(ref_and_path)
            ),
            SplitError::TooManySegments { count, max } => write!(
                f,
                "The ref and file path in the URL can be split into a ref and a path in \
                 {count} ways, more than the {max} this server tries. Pass project_id, \
                 file_path and ref separately instead of url."
            ),
        }
    }
}

// ---- sources ---------------------------------------------------------------------------------

impl Display for SourceError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::ProjectNotFound { project } => write!(
                f,
                "Project '{}' not found or inaccessible. Check the project's full path or numeric id, and that the token can read it.",
                shown(project)
            ),
            SourceError::ProjectMismatch {
                given,
                url_project,
                url_project_id,
            } => write!(
                f,
                "Project mismatch: project_id is '{given}' but url contains '{url_project}' (project id {url_project_id}). Pass one of them, or make them agree."
            ),
            SourceError::RefNotFound { git_ref } => {
                write!(f, "Ref '{}' not found. {PROVIDE_A_REF}", shown(git_ref))
            }
            SourceError::FileNotFound { path, git_ref } => write!(
                f,
                "File '{}' does not exist at ref '{}'. The path must be relative to the repository root. Do not retry the same path; search the repository for the file name to locate it.",
                shown(path),
                shown(git_ref)
            ),
            SourceError::FileNotFoundNear {
                path,
                git_ref,
                near,
            } => did_you_mean(f, path, git_ref, near),
            SourceError::IsDirectory { path, git_ref } => write!(
                f,
                "'{}' is a directory at ref '{}', not a file. Pass the path of a file inside it.",
                shown(path),
                shown(git_ref)
            ),
            SourceError::Excluded { path } => write!(
                f,
                "File '{}' is excluded from AI context by this project's settings and cannot be read.",
                shown(path)
            ),
            SourceError::InvalidRef { git_ref, reason } => invalid_ref(f, git_ref, reason),
            SourceError::FileTooLarge {
                path,
                size_bytes,
                limit,
            } => write!(
                f,
                "File '{path}' is {size_bytes} bytes, larger than this server reads ({limit} bytes). Its operator can raise the limit with --max-file-bytes (GITLAB_FILE_MCP_MAX_FILE_BYTES)."
            ),
            SourceError::ChangedWhileReading { path } => write!(
                f,
                "File '{path}' changed while it was being read (its LFS object is not the one GitLab named). Call again."
            ),
            SourceError::Gitlab(e) => e.fmt(f),
            SourceError::Local(e) => e.fmt(f),
        }
    }
}

/// `File 'x' does not exist at ref 'main'. Did you mean 'a', 'b' or 'c'? …`: the suggestions
/// are quoted whole (they are paths to pass as they are), directories with a trailing `/`.
fn did_you_mean(
    f: &mut Formatter<'_>,
    path: &str,
    git_ref: &str,
    near: &[Suggestion],
) -> fmt::Result {
    let quoted: Vec<String> = near
        .iter()
        .map(|s| match s.kind {
            EntryKind::File => format!("'{}'", s.path),
            EntryKind::Directory => format!("'{}/'", s.path),
        })
        .collect();
    let (choices, none_of_them) = match quoted.as_slice() {
        [one] => (one.clone(), "if that is not the file"),
        [one, two] => (format!("{one} or {two}"), "if neither is the file"),
        [init @ .., last] => (
            format!("{} or {last}", init.join(", ")),
            "if none of these is the file",
        ),
        [] => (String::new(), "if none of these is the file"),
    };
    let directories = if near.iter().any(|s| s.kind == EntryKind::Directory) {
        " Paths ending in '/' are directories; the file may be inside one."
    } else {
        ""
    };
    write!(
        f,
        "File '{}' does not exist at ref '{}'. Did you mean {choices}?{directories} Do not retry the same path; {none_of_them}, search the repository for the file name to locate it.",
        shown(path),
        shown(git_ref)
    )
}

fn invalid_ref(f: &mut Formatter<'_>, git_ref: &str, reason: &dyn Display) -> fmt::Result {
    if git_ref.is_empty() {
        write!(f, "The ref is not valid ({reason}). {PROVIDE_A_REF}")
    } else {
        write!(
            f,
            "Ref '{}' is not valid ({reason}). {PROVIDE_A_REF}",
            shown(git_ref)
        )
    }
}

impl Display for RefProblem {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            RefProblem::Gitlab { messages } => f.write_str(messages),
            RefProblem::Local(e) => e.fmt(f),
        }
    }
}

impl Display for LocalRefError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            LocalRefError::Syntax(e) => e.fmt(f),
            LocalRefError::Ambiguous => f.write_str(
                "it is ambiguous (an abbreviated SHA matching several objects); use more hex digits or the full SHA",
            ),
            LocalRefError::NotACommit { kind } => {
                write!(f, "it names a {kind} object, not a commit; {PASS_INSTEAD}")
            }
            LocalRefError::TagChain { max } => {
                write!(f, "it names a chain of more than {max} tags; {PASS_INSTEAD}")
            }
        }
    }
}

impl Display for RefNameError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        use RefNameError as E;
        match self {
            E::Empty => f.write_str("it is empty"),
            E::ControlCharacter(c) => write!(f, "it contains the control character {c:?}"),
            E::Space => f.write_str("it contains a space"),
            E::Colon => {
                f.write_str("it contains ':' (name the file with the path, not as 'ref:path')")
            }
            E::Forbidden(c) => write!(f, "it contains '{c}'"),
            E::DoubleDot => f.write_str("it contains '..'"),
            E::AtBrace => f.write_str("it contains '@{'"),
            E::LoneAt => f.write_str("it is '@'"),
            E::LeadingDash => f.write_str("it starts with '-'"),
            E::BadSlashes => f.write_str("it starts or ends with '/' or contains '//'"),
            E::TrailingDot => f.write_str("it ends with '.'"),
            E::ComponentStartsWithDot => f.write_str("a '/'-separated part of it starts with '.'"),
            E::ComponentEndsWithLock => {
                f.write_str("a '/'-separated part of it ends with '.lock'")
            }
            E::StartsWithStep(c) => write!(
                f,
                "it starts with '{c}'; {PASS_INSTEAD}, optionally followed by ~N or ^N"
            ),
            E::StepNotANumber => f.write_str(
                "'~' and '^' may only be followed by a number (as in HEAD~1 or main^2); name the file with the path, not in the ref",
            ),
        }
    }
}

impl Display for LocalError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            LocalError::Missing { path } => write!(
                f,
                "'{}' does not exist; pass the path of a local git repository (a work tree or a bare repository)",
                path.display()
            ),
            LocalError::NoRepository { path, cause } => write!(
                f,
                "no git repository found at or above '{}' ({cause}); pass the path of a git work tree or a bare repository",
                path.display()
            ),
            LocalError::CannotOpen { found, cause } => write!(
                f,
                "the git repository at '{}' cannot be opened ({cause}); pass the path of a readable git work tree or bare repository",
                found.display()
            ),
            LocalError::Read { cause } => write!(f, "could not read the local repository: {cause}"),
            LocalError::Task { cause } => write!(f, "local read failed: {cause}"),
        }
    }
}

impl Display for GitlabError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            GitlabError::Transport(e) => e.fmt(f),
            GitlabError::Graphql { messages } => write!(f, "GitLab reported: {messages}"),
            GitlabError::InvalidRef { messages } => invalid_ref(f, "", messages),
            GitlabError::NoData => f.write_str("GitLab returned no data and no error"),
            GitlabError::Shape { reason } => {
                write!(
                    f,
                    "GitLab's blob answer was not shaped as expected: {reason}"
                )
            }
            GitlabError::Content(e) => write!(f, "GitLab's rawTextBlob could not be decoded: {e}"),
        }
    }
}

impl Display for JsonTextError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            JsonTextError::NotAString => f.write_str("not a JSON string literal"),
            JsonTextError::BadEscape(at) => write!(f, "invalid escape at byte {at}"),
            JsonTextError::BadSurrogate(at) => write!(f, "unpaired surrogate at byte {at}"),
        }
    }
}

/// What the agent or operator should check when GitLab rejects the token.
fn what_to_check(origin: TokenOrigin) -> &'static str {
    match origin {
        TokenOrigin::GitlabToken => "the GITLAB_TOKEN environment variable",
        TokenOrigin::PersonalAccessToken => "the GITLAB_PERSONAL_ACCESS_TOKEN environment variable",
        TokenOrigin::Request => {
            "the token sent with this request (Authorization or PRIVATE-TOKEN header)"
        }
    }
}

impl Display for TransportError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        use TransportError as T;
        match self {
            T::TokenNotAHeader { origin } => write!(
                f,
                "The GitLab token contains characters that cannot be sent in an HTTP header. Check {}.",
                what_to_check(*origin)
            ),
            T::Redirect {
                instance,
                status,
                location,
            } => redirect(f, instance, *status, location),
            T::TooLarge { endpoint } => write!(
                f,
                "GitLab's answer from {endpoint} exceeded {} MiB; this is not a GitLab GraphQL answer this server can use.",
                MAX_BODY_BYTES / 1_048_576
            ),
            T::Rejected {
                instance,
                status,
                detail,
                origin,
            } => rejected(f, instance, *status, detail.as_deref(), *origin),
            T::NoApi { endpoint } => write!(
                f,
                "GitLab's GraphQL API was not found at {endpoint} (HTTP 404). Check GITLAB_URL: it must be the instance's base URL (with its relative root, if any), e.g. https://gitlab.example.com."
            ),
            T::Empty { status, endpoint } => write!(
                f,
                "GitLab answered HTTP {status} without data or errors from {endpoint}. Check GITLAB_URL."
            ),
            T::Status { status, messages } => {
                write!(f, "GitLab answered HTTP {status}: {messages}")
            }
            T::NotJson {
                status,
                content_type,
                endpoint,
                cause,
            } => not_json(f, *status, content_type, endpoint, cause),
            T::Unexpected { status, cause } => write!(
                f,
                "GitLab's answer (HTTP {status}) was JSON but not shaped as expected: {cause}. This GitLab version may not be supported."
            ),
            T::NoAnswer { instance, why } => no_answer(f, instance, why),
            T::RetriesExhausted {
                status,
                retry_after,
                retries,
            } => retries_exhausted(f, *status, *retry_after, *retries),
            T::Raw { status: 404, what } => write!(
                f,
                "GitLab's raw file endpoint found no {what} (HTTP 404). The file may have changed since the request that named it; call again."
            ),
            T::Raw { status, what } => write!(
                f,
                "GitLab's raw file endpoint answered HTTP {status} for {what}; try again later."
            ),
        }
    }
}

fn no_answer(f: &mut Formatter<'_>, instance: &str, why: &NoAnswer) -> fmt::Result {
    match why {
        NoAnswer::Timeout { cause } => write!(
            f,
            "GitLab at {instance} did not answer in time ({cause}). Try again; if it keeps happening, raise GITLAB_REQUEST_TIMEOUT or GITLAB_CONNECT_TIMEOUT."
        ),
        NoAnswer::Connect { cause } => write!(
            f,
            "Cannot connect to GitLab at {instance} ({cause}). Check GITLAB_URL and the network (HTTPS_PROXY, or GITLAB_CA_FILE for a private certificate)."
        ),
        NoAnswer::Reset { retries } => write!(
            f,
            "GitLab at {instance} closed the connection before answering, and still did after {retries} retries. GitLab, or a proxy in front of it, may be restarting or overloaded; try again later."
        ),
        NoAnswer::Failed { cause } => write!(f, "Request to GitLab at {instance} failed: {cause}"),
    }
}

fn redirect(f: &mut Formatter<'_>, instance: &str, status: u16, location: &str) -> fmt::Result {
    write!(
        f,
        "GitLab at {instance} answered with a redirect (HTTP {status}) to {location}. Redirects are not followed so the token never leaves the configured instance: set GITLAB_URL to the instance's final address."
    )
}

fn not_json(
    f: &mut Formatter<'_>,
    status: u16,
    content_type: &str,
    endpoint: &str,
    cause: &str,
) -> fmt::Result {
    write!(
        f,
        "GitLab answered HTTP {status} with a body that is not JSON (content-type {content_type}) from {endpoint}. Check GITLAB_URL: it must point at GitLab itself, not a login page or a proxy. ({cause})"
    )
}

fn rejected(
    f: &mut Formatter<'_>,
    instance: &str,
    status: u16,
    detail: Option<&str>,
    origin: Option<TokenOrigin>,
) -> fmt::Result {
    let detail = detail.map(|d| format!(": {d}")).unwrap_or_default();
    match origin {
        Some(origin) => write!(
            f,
            "GitLab rejected the token (HTTP {status}{detail}). Check {}: it must be a valid, unexpired token with the read_api scope for {instance}.",
            what_to_check(origin)
        ),
        None => write!(
            f,
            "GitLab requires authentication (HTTP {status}{detail}). Set GITLAB_TOKEN to a token with the read_api scope for {instance}."
        ),
    }
}

fn retries_exhausted(
    f: &mut Formatter<'_>,
    status: u16,
    retry_after: Option<std::time::Duration>,
    retries: u32,
) -> fmt::Result {
    let tried = if retries == 0 {
        "did not retry".to_string()
    } else {
        format!("still did after {retries} retries")
    };
    if status == 429 {
        let wait = retry_after
            .map(|d| format!("{} s", d.as_secs()))
            .unwrap_or_else(|| "a minute".to_string());
        write!(
            f,
            "GitLab is rate-limiting requests (HTTP 429) and {tried}. Wait {wait} and call again."
        )
    } else {
        write!(
            f,
            "GitLab answered HTTP {status} and {tried}. GitLab may be down or overloaded; try again later."
        )
    }
}

// ---- configuration ---------------------------------------------------------------------------

impl Display for ConfigError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let example = "e.g. https://gitlab.example.com";
        match self {
            ConfigError::BadUrl { shown, cause } => write!(
                f,
                "GITLAB_URL '{}' is not a URL ({cause}); expected {example}",
                shorten(shown)
            ),
            ConfigError::NotHttp { shown } => write!(
                f,
                "GITLAB_URL '{}' must be an http(s) URL with a host, {example}",
                shorten(shown)
            ),
            ConfigError::CarriesSecrets { shown } => write!(
                f,
                "GITLAB_URL '{}' must not carry credentials, a query or a fragment: put the token in GITLAB_TOKEN",
                shorten(shown)
            ),
            ConfigError::ZeroTimeout => f.write_str("timeouts must be at least 1 second"),
            ConfigError::CaUnreadable { path, cause } => write!(
                f,
                "cannot read GITLAB_CA_FILE (or {CA_FILE_ALIAS}) '{}': {cause}",
                path.display()
            ),
            ConfigError::CaNotPem { path, cause } => write!(
                f,
                "GITLAB_CA_FILE (or {CA_FILE_ALIAS}) '{}' is not a PEM certificate bundle: {cause}",
                path.display()
            ),
            ConfigError::CaEmpty { path } => write!(
                f,
                "GITLAB_CA_FILE (or {CA_FILE_ALIAS}) '{}' holds no PEM certificate",
                path.display()
            ),
            ConfigError::HttpClient { cause } => write!(f, "cannot build the HTTP client: {cause}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exhausted_wording() {
        let m = TransportError::RetriesExhausted {
            status: 429,
            retry_after: Some(std::time::Duration::from_secs(60)),
            retries: 0,
        }
        .to_string();
        assert!(
            m.contains("429") && m.contains("60 s") && m.contains("did not retry"),
            "{m}"
        );
        let m = TransportError::RetriesExhausted {
            status: 502,
            retry_after: None,
            retries: 2,
        }
        .to_string();
        assert!(m.contains("502") && m.contains("2 retries"), "{m}");
    }

    #[test]
    fn invalid_refs_name_the_ref_when_known() {
        let reason = RefProblem::Gitlab {
            messages: "Ref is not valid".into(),
        };
        let named = SourceError::InvalidRef {
            git_ref: "a..b".into(),
            reason: reason.clone(),
        };
        assert!(
            named
                .to_string()
                .starts_with("Ref 'a..b' is not valid (Ref is not valid).")
        );
        let unnamed = SourceError::InvalidRef {
            git_ref: String::new(),
            reason,
        };
        assert!(unnamed.to_string().starts_with("The ref is not valid"));
    }

    #[test]
    fn did_you_mean_names_one_two_or_three_paths() {
        let near = |paths: &[(&str, EntryKind)]| SourceError::FileNotFoundNear {
            path: "app/model/user.rb".into(),
            git_ref: "main".into(),
            near: paths
                .iter()
                .map(|&(p, kind)| Suggestion {
                    path: p.into(),
                    kind,
                })
                .collect(),
        };
        let file = EntryKind::File;
        assert_eq!(
            near(&[("app/models/user.rb", file)]).to_string(),
            "File 'app/model/user.rb' does not exist at ref 'main'. Did you mean 'app/models/user.rb'? Do not retry the same path; if that is not the file, search the repository for the file name to locate it."
        );
        assert_eq!(
            near(&[("a.rb", file), ("b.rb", file)]).to_string(),
            "File 'app/model/user.rb' does not exist at ref 'main'. Did you mean 'a.rb' or 'b.rb'? Do not retry the same path; if neither is the file, search the repository for the file name to locate it."
        );
        assert_eq!(
            near(&[
                ("a.rb", file),
                ("b.rb", file),
                ("app/models", EntryKind::Directory)
            ])
            .to_string(),
            "File 'app/model/user.rb' does not exist at ref 'main'. Did you mean 'a.rb', 'b.rb' or 'app/models/'? Paths ending in '/' are directories; the file may be inside one. Do not retry the same path; if none of these is the file, search the repository for the file name to locate it."
        );
    }

    #[test]
    fn long_values_are_shortened() {
        let long = "é".repeat(1000);
        let s = shorten(&long);
        assert_eq!(s.chars().count(), 101);
        assert!(s.ends_with('…'));
        assert_eq!(shorten("short"), "short");
        assert_eq!(shown("a\nb"), "a\\nb");
        assert_eq!(shown(&"\n".repeat(500)).chars().count(), 101);
    }

    #[test]
    fn every_echo_of_a_huge_value_is_short() {
        let huge = "x".repeat(1 << 20);
        let errors: Vec<String> = vec![
            ResolveError::NotAProject { raw: huge.clone() }.to_string(),
            ResolveError::ProjectIdTooLarge { raw: huge.clone() }.to_string(),
            ResolveError::RefMismatch {
                given: huge.clone(),
                in_url: huge.clone(),
            }
            .to_string(),
            ResolveError::UrlPath {
                url: huge.clone(),
                error: PathError::Traversal { path: huge.clone() },
            }
            .to_string(),
            SourceError::ProjectNotFound {
                project: huge.clone(),
            }
            .to_string(),
            SourceError::FileNotFound {
                path: huge.clone(),
                git_ref: huge.clone(),
            }
            .to_string(),
            SourceError::RefNotFound {
                git_ref: huge.clone(),
            }
            .to_string(),
            ArgError::Unknown {
                names: vec![huge.clone()],
                more: 0,
            }
            .to_string(),
            CallRefusal::UnknownTool {
                name: huge.clone(),
                ours: "t",
            }
            .to_string(),
        ];
        for e in errors {
            assert!(e.len() < 1_000, "{} bytes: {}…", e.len(), &e[..200]);
        }
    }
}
