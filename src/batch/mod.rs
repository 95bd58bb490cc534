//! `get_repository_files`: several files in one call, each read exactly as
//! `get_repository_file` reads it. Not a second pipeline: each entry's arguments are the single
//! tool's ([`args`]), resolved by the source's own `resolve`, fetched through
//! [`Source::fetch_many`] (which groups lookups that share a project and ref into one request
//! where the source can), and rendered as its view by the single tool's [`render`]. What is
//! the batch's own: one character budget shared by the entries in order ([`budget`]), and the
//! `{"files": [...]}` around the entries, a failed entry being `{path, ref, error}`.

mod args;
mod budget;

pub(crate) use args::{BatchError, CALL_WIDE, FILES, MAX_FILES};

use serde_json::{Map, Value, json};

use crate::args::ArgName;
use crate::config::Credential;
use crate::history::Caller;
use crate::reader::{AnySource, ReadError, Reader};
use crate::resolve::{Lookup, ProjectFile, Target};
use crate::response;
use crate::source::{BlobKind, Fetched, Source, SourceError, Wanted, holds};
use crate::view::{Read, View, render};
use args::{BatchCall, Entry, parse};
use budget::SharedBudget;

/// The path and ref a lookup names, when it names one (a URL that splits several ways does not
/// until the source has chosen).
pub(crate) trait Labelled {
    fn path_and_ref(&self) -> Option<(&str, &str)>;
}

impl Labelled for Lookup {
    fn path_and_ref(&self) -> Option<(&str, &str)> {
        match self {
            Lookup::Exact { git_ref, path, .. } => Some((path, git_ref)),
            Lookup::Candidates { .. } => None,
        }
    }
}

impl Labelled for ProjectFile {
    fn path_and_ref(&self) -> Option<(&str, &str)> {
        match self {
            ProjectFile::Named { git_ref, path, .. } => Some((path, git_ref)),
            ProjectFile::Url { file, .. } => file.path_and_ref(),
        }
    }
}

/// Runs one `get_repository_files` call: `Ok` is `{"files": [...]}`, one entry per file asked
/// for; only a malformed call is an error.
pub(crate) async fn read_many(
    reader: &Reader,
    arguments: Option<&Map<String, Value>>,
    who: (Option<&Credential>, Option<Caller>),
) -> Result<Value, BatchError> {
    let call = parse(arguments)?;
    Ok(match reader.backend() {
        AnySource::Gitlab(source) => read_from(reader, source, &call, who).await,
        AnySource::Local(source) => read_from(reader, source, &call, who).await,
    })
}

/// Reads every entry of `call` from `source`: `{"files": [...]}` in the entries' order.
async fn read_from<S>(
    reader: &Reader,
    source: &S,
    call: &BatchCall,
    (credential, caller): (Option<&Credential>, Option<Caller>),
) -> Value
where
    S: Source,
    S::Lookup: Labelled,
{
    let planned: Vec<Result<Planned<S::Lookup>, String>> = call
        .entries
        .iter()
        .map(|entry| target_of(reader, source, entry, call.max_chars))
        .collect();
    let wanted: Vec<Wanted<'_, S::Lookup>> = planned
        .iter()
        .filter_map(|p| p.as_ref().ok())
        .map(|(t, view)| Wanted {
            lookup: &t.lookup,
            extent: view.extent(),
            held: t.if_none_match.as_deref(),
        })
        .collect();
    let mut fetched = source.fetch_many(&wanted, credential).await.into_iter();
    let mut step = Step {
        reader,
        budget: SharedBudget::new(call.max_chars.unwrap_or(reader.defaults().max_chars)),
        call,
        caller,
    };
    let files: Vec<Value> = call
        .entries
        .iter()
        .zip(&planned)
        .map(|(entry, planned)| match planned {
            Err(message) => failed(label::<S::Lookup>(None, entry), message),
            // `fetch_many` answers once per planned entry, in order.
            Ok(planned) => step.answer(planned, fetched.next(), entry),
        })
        .collect();
    json!({ FILES: files })
}

/// An entry's target and its view.
type Planned<L> = (Target<L>, View);

/// An entry's target, the call's `max_chars` its own (so hints repeat it), and its view (a
/// pattern compiled); or the sentence of why it has none (a bad pattern costs no request).
fn target_of<S: Source>(
    reader: &Reader,
    source: &S,
    entry: &Entry,
    max_chars: Option<u64>,
) -> Result<Planned<S::Lookup>, String> {
    let args = entry.parsed.as_ref().map_err(ToString::to_string)?;
    let mut target = source
        .resolve(args)
        .map_err(|e| ReadError::Resolve(e).to_string())?;
    target.max_chars = max_chars;
    let view = View::of(&target, reader.outlines()).map_err(|e| ReadError::View(e).to_string())?;
    Ok((target, view))
}

/// The entries' walk in order: the shared budget, and what rendering an entry needs besides
/// the entry.
struct Step<'a> {
    reader: &'a Reader,
    budget: SharedBudget,
    call: &'a BatchCall,
    caller: Option<Caller>,
}

impl Step<'_> {
    /// A planned entry's answer from what the source fetched for it.
    fn answer<L: Labelled>(
        &mut self,
        planned: &Planned<L>,
        fetched: Option<Result<Fetched, SourceError>>,
        entry: &Entry,
    ) -> Value {
        let (target, _) = planned;
        match fetched {
            Some(Ok(fetched)) => self.served(planned, fetched, entry),
            Some(Err(e)) => {
                let message = ReadError::Source(e).to_string();
                failed(label(Some(&target.lookup), entry), &message)
            }
            // `fetch_many` answers once per lookup: never reached.
            None => failed(
                label(Some(&target.lookup), entry),
                "internal error: the source gave no answer for this entry",
            ),
        }
    }

    /// A fetched entry: its window or page of matches within what is left of the budget (the
    /// single tool's output, or its error), or, once the budget is spent, no content and the
    /// arguments that read it.
    fn served<L>(&mut self, (target, view): &Planned<L>, fetched: Fetched, entry: &Entry) -> Value {
        let blob = &fetched.blob;
        let has_content = matches!(blob.kind, BlobKind::Text { .. })
            && !holds(target.if_none_match.as_deref(), blob.id.as_deref());
        let max_chars = match self.budget.next() {
            Some(left) => left,
            None if has_content => {
                return not_read(self.budget.total(), self.call, entry, &fetched);
            }
            // A binary or LFS file is an error without content, and an unchanged one has none:
            // nothing to spend.
            None => 0,
        };
        let changed_from = self
            .caller
            .and_then(|c| self.reader.changed_since_last_window(c, &fetched));
        let read = Read {
            fetched,
            changed_from,
            max_chars,
        };
        match render(view, target, &read) {
            Ok(rendered) => {
                self.budget.spend(rendered.charged);
                rendered.output
            }
            Err(e) => {
                let blob = &read.fetched.blob;
                failed((json!(blob.path), json!(blob.git_ref)), &e.to_string())
            }
        }
    }
}

/// An entry the budget did not reach: its path and ref, and how to read it.
fn not_read(total: u64, call: &BatchCall, entry: &Entry, fetched: &Fetched) -> Value {
    let mut arguments: Map<String, Value> = entry.arguments.clone();
    if let Some(max_chars) = call.max_chars {
        arguments.insert(ArgName::MaxChars.as_str().into(), max_chars.into());
    }
    json!({
        "path": fetched.blob.path,
        "ref": fetched.blob.git_ref,
        "system_instruction": response::batch::not_read(total, &Value::Object(arguments)),
    })
}

/// `{path, ref, error}`.
fn failed((path, git_ref): (Value, Value), message: &str) -> Value {
    json!({ "path": path, "ref": git_ref, "error": message })
}

/// The path and ref an entry's error names: the lookup's, else as the entry gave them (a URL
/// stands for the path), `null` when it gave none.
fn label<L: Labelled>(lookup: Option<&L>, entry: &Entry) -> (Value, Value) {
    if let Some((path, git_ref)) = lookup.and_then(Labelled::path_and_ref) {
        return (json!(path), json!(git_ref));
    }
    let given = |name: &str| entry.arguments.get(name).filter(|v| v.is_string()).cloned();
    let path = given(ArgName::FilePath.as_str()).or_else(|| given(ArgName::Url.as_str()));
    (
        path.unwrap_or(Value::Null),
        given(ArgName::Ref.as_str()).unwrap_or(Value::Null),
    )
}
