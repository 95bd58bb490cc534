//! Target `url_args`: tool arguments built from structured input (`arbitrary` over the raw
//! bytes): a `url` assembled from GitLab-shaped pieces or free text, and `project_id`,
//! `file_path`, `ref`, `offset`, `limit`, `start_line`, `end_line` as any JSON value.
//!
//! Properties:
//! - resolving never panics and every error has a message, with the GitLab/local implication
//!   of [`super::arguments::check_resolution`];
//! - a parsed URL's project path is non-empty, has no `/` at either end and no NUL; its
//!   "ref/path" has no NUL; an anchor's lines are at least 1;
//! - the split candidates of a "ref/path" (the URL's, and `file_path`/`ref` as free text) are
//!   exactly those of [`reference_splits`], a direct transcription of the documented rules.

use arbitrary::{Arbitrary, Unstructured};
use gitlab_file_mcp::fuzzing::{self, MAX_SPLITS, RefAndPath};
use serde_json::{Map, Value};

use super::arguments::{base, check_resolution};

#[derive(Arbitrary, Debug)]
pub struct Input {
    base: u8,
    url: Option<UrlInput>,
    project_id: Option<ArgValue>,
    file_path: Option<ArgValue>,
    git_ref: Option<ArgValue>,
    offset: Option<ArgValue>,
    limit: Option<ArgValue>,
    start_line: Option<ArgValue>,
    end_line: Option<ArgValue>,
    unknown: Option<String>,
}

/// A `url` argument: free text, or a URL put together from pieces GitLab URLs are made of.
#[derive(Arbitrary, Debug)]
enum UrlInput {
    Text(String),
    Built(BuiltUrl),
    /// Not a string at all.
    Other(ArgValue),
}

#[derive(Arbitrary, Debug)]
struct BuiltUrl {
    origin: Origin,
    /// Prefix the base's relative root (when it has one).
    with_root: bool,
    segments: Vec<Segment>,
    trailing_slash: bool,
    query: Vec<QueryPair>,
    fragment: Option<Fragment>,
}

/// How the URL names its host, relative to the base.
#[derive(Arbitrary, Debug)]
enum Origin {
    Base,
    UpperCase,
    DefaultPortSpelledOut,
    TrailingDot,
    UserInfo,
    OtherScheme,
    OtherHost,
    NoScheme,
    Text(String),
}

#[derive(Arbitrary, Debug)]
enum Segment {
    Dash,
    Blob,
    Raw,
    Blame,
    Tree,
    Commits,
    Main,
    Release,
    Sha40,
    Sha64,
    Empty,
    Dot,
    DotDot,
    EncodedDot,
    EncodedSlash,
    EncodedNul,
    EncodedSpace,
    BadPercent,
    Backslash,
    Text(String),
}

#[derive(Arbitrary, Debug)]
enum QueryPair {
    RefType(RefTypeValue),
    Other(String, String),
}

#[derive(Arbitrary, Debug)]
enum RefTypeValue {
    Heads,
    Tags,
    Upper,
    Other(String),
}

#[derive(Arbitrary, Debug)]
enum Fragment {
    Line(u64),
    Range {
        start: u64,
        end: u64,
        second_l: bool,
    },
    Text(String),
}

/// A JSON value for one argument.
#[derive(Arbitrary, Debug)]
enum ArgValue {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Text(String),
    NumberText(u64),
    PathLike(Vec<Segment>),
    Array,
    Object,
}

pub fn check(data: &[u8]) {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let base = base(input.base as usize);
    let arguments = input.arguments(&base);
    check_resolution(&arguments, &base);
    if let Some(Value::String(url)) = arguments.get("url") {
        check_file_url(url, &base);
    }
    for name in ["file_path", "ref"] {
        if let Some(Value::String(text)) = arguments.get(name) {
            check_splits(text);
        }
    }
}

impl Input {
    fn arguments(&self, base: &::url::Url) -> Map<String, Value> {
        let mut map = Map::new();
        if let Some(url) = &self.url {
            let value = match url {
                UrlInput::Text(text) => Value::String(text.clone()),
                UrlInput::Built(built) => Value::String(built.render(base)),
                UrlInput::Other(value) => value.to_json(),
            };
            map.insert("url".into(), value);
        }
        let fields = [
            ("project_id", &self.project_id),
            ("file_path", &self.file_path),
            ("ref", &self.git_ref),
            ("offset", &self.offset),
            ("limit", &self.limit),
            ("start_line", &self.start_line),
            ("end_line", &self.end_line),
        ];
        for (name, value) in fields {
            if let Some(value) = value {
                map.insert(name.into(), value.to_json());
            }
        }
        if let Some(name) = &self.unknown {
            map.insert(name.clone(), Value::Null);
        }
        map
    }
}

impl BuiltUrl {
    fn render(&self, base: &::url::Url) -> String {
        let mut url = self.origin.render(base);
        if self.with_root {
            url.push_str(base.path().trim_end_matches('/'));
        }
        for segment in &self.segments {
            url.push('/');
            url.push_str(&segment.render());
        }
        if self.trailing_slash {
            url.push('/');
        }
        for (i, pair) in self.query.iter().enumerate() {
            url.push(if i == 0 { '?' } else { '&' });
            match pair {
                QueryPair::RefType(value) => {
                    url.push_str("ref_type=");
                    url.push_str(match value {
                        RefTypeValue::Heads => "heads",
                        RefTypeValue::Tags => "tags",
                        RefTypeValue::Upper => "TAGS",
                        RefTypeValue::Other(text) => text,
                    });
                }
                QueryPair::Other(key, value) => url.push_str(&format!("{key}={value}")),
            }
        }
        if let Some(fragment) = &self.fragment {
            url.push('#');
            url.push_str(&match fragment {
                Fragment::Line(n) => format!("L{n}"),
                Fragment::Range {
                    start,
                    end,
                    second_l,
                } => format!("L{start}-{}{end}", if *second_l { "L" } else { "" }),
                Fragment::Text(text) => text.clone(),
            });
        }
        url
    }
}

impl Origin {
    fn render(&self, base: &::url::Url) -> String {
        let scheme = base.scheme();
        let host = base.host_str().unwrap_or("gitlab.example.com");
        let port = base.port().map(|p| format!(":{p}")).unwrap_or_default();
        match self {
            Origin::Base => format!("{scheme}://{host}{port}"),
            Origin::UpperCase => {
                format!("{}://{}{port}", scheme.to_uppercase(), host.to_uppercase())
            }
            Origin::DefaultPortSpelledOut => {
                let default = if scheme == "https" { 443 } else { 80 };
                format!("{scheme}://{host}:{}", base.port().unwrap_or(default))
            }
            Origin::TrailingDot => format!("{scheme}://{host}.{port}"),
            Origin::UserInfo => format!("{scheme}://user:secret@{host}{port}"),
            Origin::OtherScheme => format!("ftp://{host}{port}"),
            Origin::OtherHost => format!("{scheme}://gitlab.other.example{port}"),
            Origin::NoScheme => format!("{host}{port}"),
            Origin::Text(text) => text.clone(),
        }
    }
}

impl Segment {
    fn render(&self) -> String {
        let fixed = match self {
            Segment::Dash => "-",
            Segment::Blob => "blob",
            Segment::Raw => "raw",
            Segment::Blame => "blame",
            Segment::Tree => "tree",
            Segment::Commits => "commits",
            Segment::Main => "main",
            Segment::Release => "release",
            Segment::Sha40 => "0123456789abcdef0123456789ABCDEF01234567",
            Segment::Sha64 => "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            Segment::Empty => "",
            Segment::Dot => ".",
            Segment::DotDot => "..",
            Segment::EncodedDot => "%2e%2E",
            Segment::EncodedSlash => "a%2Fb",
            Segment::EncodedNul => "x%00y",
            Segment::EncodedSpace => "%20a%20",
            Segment::BadPercent => "%zz%C3",
            Segment::Backslash => "a\\b",
            Segment::Text(text) => return text.clone(),
        };
        fixed.to_string()
    }
}

impl ArgValue {
    fn to_json(&self) -> Value {
        match self {
            ArgValue::Null => Value::Null,
            ArgValue::Bool(b) => Value::Bool(*b),
            ArgValue::Int(n) => Value::from(*n),
            ArgValue::UInt(n) => Value::from(*n),
            // NaN and infinities have no JSON number: `from` gives null for them.
            ArgValue::Float(x) => Value::from(*x),
            ArgValue::Text(text) => Value::String(text.clone()),
            ArgValue::NumberText(n) => Value::String(n.to_string()),
            ArgValue::PathLike(segments) => {
                let parts: Vec<String> = segments.iter().map(Segment::render).collect();
                Value::String(parts.join("/"))
            }
            ArgValue::Array => Value::Array(vec![Value::from(1)]),
            ArgValue::Object => Value::Object(Map::new()),
        }
    }
}

/// Checks what [`fuzzing::file_url`] makes of `url`, then the splits of its "ref/path".
fn check_file_url(url: &str, base: &::url::Url) {
    let parts = match fuzzing::file_url(url, base) {
        Ok(parts) => parts,
        Err(refused) => {
            let message = refused.to_string();
            assert!(!message.trim().is_empty(), "a URL error without a message");
            return;
        }
    };
    let project = &parts.project_path;
    assert!(!project.is_empty(), "empty project path from {url:?}");
    assert!(
        !project.starts_with('/') && !project.ends_with('/'),
        "project path {project:?} from {url:?} has a `/` at an end"
    );
    assert!(!project.contains('\0') && !parts.ref_and_path.contains('\0'));
    assert!(parts.line_start.is_none_or(|n| n >= 1));
    assert!(parts.line_end.is_none_or(|n| n >= 1));
    assert!(parts.line_end.is_none() || parts.line_start.is_some());
    check_splits(&parts.ref_and_path);
}

/// Checks [`fuzzing::split_candidates`] against [`reference_splits`].
pub fn check_splits(ref_and_path: &str) {
    let got = fuzzing::split_candidates(ref_and_path);
    match (&got, reference_splits(ref_and_path)) {
        (Ok(got), Expected::Sha(want)) => {
            assert!(got.sha, "{ref_and_path:?}: SHA not recognised");
            assert_eq!(got.candidates, [want], "{ref_and_path:?}");
        }
        (Ok(got), Expected::Candidates(want)) => {
            assert!(!got.sha, "{ref_and_path:?}: not a SHA");
            assert_eq!(got.candidates, want, "{ref_and_path:?}");
            for pair in got.candidates.windows(2) {
                assert!(pair[1].git_ref.starts_with(&pair[0].git_ref));
                assert!(pair[1].git_ref.len() > pair[0].git_ref.len());
            }
        }
        (Err(refused), Expected::NoPath | Expected::TooMany) => {
            assert!(
                !refused.to_string().trim().is_empty(),
                "a split error without a message"
            );
        }
        (got, want) => panic!("{ref_and_path:?}: got {got:?}, want {want:?}"),
    }
}

/// What the documented rules of `splits` give.
#[derive(Debug)]
pub enum Expected {
    Sha(RefAndPath),
    Candidates(Vec<RefAndPath>),
    NoPath,
    TooMany,
}

/// The splits of `ref_and_path` by the rules documented on `resolve::file_url::splits`,
/// written from that text, naively: leading `/`s are dropped; exactly 40 or 64 leading hex
/// digits followed by `/` or the end are the only split; otherwise each `/` is a candidate
/// cut, the ref being the text before it stripped of Ruby whitespace and the path the text
/// after it less one leading and one trailing `/`, keeping those whose path is non-empty and
/// whose ref is non-empty and does not end in `/`.
pub fn reference_splits(ref_and_path: &str) -> Expected {
    let s = ref_and_path.trim_start_matches('/');
    let hex = s.bytes().take_while(u8::is_ascii_hexdigit).count();
    if (hex == 40 || hex == 64) && matches!(s.as_bytes().get(hex), None | Some(b'/')) {
        let path = trim_one_slash_each_end(&s[hex..]);
        if path.is_empty() {
            return Expected::NoPath;
        }
        return Expected::Sha(RefAndPath {
            git_ref: s[..hex].to_string(),
            path: path.to_string(),
        });
    }
    let ruby_space = |c: char| matches!(c, '\0' | '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ');
    let candidates: Vec<RefAndPath> = s
        .match_indices('/')
        .map(|(slash, _)| RefAndPath {
            git_ref: s[..slash].trim_matches(ruby_space).to_string(),
            path: trim_one_slash_each_end(&s[slash + 1..]).to_string(),
        })
        .filter(|c| !c.git_ref.is_empty() && !c.git_ref.ends_with('/') && !c.path.is_empty())
        .collect();
    match candidates.len() {
        0 => Expected::NoPath,
        n if n > MAX_SPLITS => Expected::TooMany,
        _ => Expected::Candidates(candidates),
    }
}

fn trim_one_slash_each_end(s: &str) -> &str {
    let s = s.strip_prefix('/').unwrap_or(s);
    s.strip_suffix('/').unwrap_or(s)
}
