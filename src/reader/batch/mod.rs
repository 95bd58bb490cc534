//! `get_repository_files`: several files in one call, each read exactly as
//! `get_repository_file` reads it. Not a second pipeline: each entry's arguments are the single
//! tool's ([`args`]), planned and fetched by the single read's [`Steps`] (all at once, through
//! [`Source::fetch_many`], which groups lookups that share a
//! project and ref into one request where the source can), and rendered as its view by the
//! single tool's [`render`]. What is
//! the batch's own: one character budget shared by the entries in order ([`budget`]), and the
//! `{"files": [...]}` around the entries, a failed entry being `{path, ref, error}`.

mod args;
mod budget;
mod failure;

pub(crate) use args::{BatchError, CALL_WIDE, FILES, MAX_FILES, parse};

use serde_json::{Map, Value, json};

use super::error::ReadError;
use super::steps::{Call, Labelled, Planned, Steps};
use crate::base::cpu::{self, Stop};
use crate::base::quote::shown;
use crate::resolve::args::ArgName;
use crate::response;
use crate::response::limit::SharedLimit;
use crate::source::{BlobKind, Fetched, Source, Wanted, holds};
use crate::view::{self, Read, render};
use args::{BatchCall, Entry};
use budget::SharedBudget;
use failure::EntryFailure;

/// A `get_repository_files` call, run with the steps of its source.
pub(crate) struct Many<'c> {
    pub call: &'c BatchCall,
}

impl Call for Many<'_> {
    /// `{"files": [...]}`, one entry per file asked for.
    type Output = Value;

    async fn run<S>(self, steps: Steps<'_, S>) -> Value
    where
        S: Source,
        S::Lookup: Labelled + Send + 'static,
    {
        read_from(&steps, self.call).await
    }
}

/// Reads every entry of `call` with `steps`: `{"files": [...]}` in the entries' order.
async fn read_from<S>(steps: &Steps<'_, S>, call: &BatchCall) -> Value
where
    S: Source,
    S::Lookup: Labelled + Send + 'static,
{
    let mut planned: Vec<Result<Planned<S::Lookup>, EntryFailure>> = call
        .entries
        .iter()
        .map(|entry| target_of(steps, entry, call.max_chars))
        .collect();
    let wanted: Vec<Wanted<'_, S::Lookup>> = planned
        .iter()
        .filter_map(|p| p.as_ref().ok())
        .map(|p| steps.wanted(p))
        .collect();
    let (mut fetched, changed) = fetch_all(steps, &wanted).await;
    drop(wanted);
    complete_all(steps, &mut planned, &mut fetched).await;
    // Rendering every entry is one job, off the async workers ([`cpu`]) when its work is large
    // (windows are cheap: [`view::pool_work`]); it fits the answer to one message as a single
    // read does.
    let views = planned
        .iter()
        .filter_map(|p| p.as_ref().ok())
        .map(|(_, v)| v);
    let texts = fetched
        .iter()
        .map(|f| f.as_ref().map_or(0, Fetched::text_bytes));
    let work = view::pool_work(views.zip(texts));
    view::count_render(work);
    let budget = steps.budget(call.max_chars);
    let owned_call = call.clone();
    let walked = cpu::run(work, move |stop| {
        response::message::within_one_message(budget, |total| {
            let mut walk = EntryWalk {
                budget: SharedBudget::new(total),
                fitted_to_message: total != budget,
                call: &owned_call,
                stop,
            };
            let files = walk.walk(&planned, &fetched, &changed);
            Ok::<_, std::convert::Infallible>((answer_of(files), walk.budget.spent()))
        })
    })
    .await;
    match walked {
        Ok(Ok(answer)) => response::batch::within_the_bound(answer),
        Ok(Err(never)) => match never {},
        Err(e) => {
            let failure = EntryFailure::Cpu(e);
            let fail = |entry| (failed(label::<S::Lookup>(None, entry), &failure), None);
            answer_of(call.entries.iter().map(fail).collect())
        }
    }
}

/// An entry's answer, and for one rendered with content whether it holds all the entry asked
/// for (what the index calls `complete` or `partial`).
type Answered = (Value, Option<bool>);

/// The batch's answer: the index of its entries (the preview rule), then the entries.
fn answer_of(answered: Vec<Answered>) -> Value {
    let (files, complete): (Vec<Value>, Vec<Option<bool>>) = answered.into_iter().unzip();
    let index = response::batch::index(&files, &complete);
    json!({ response::batch::INDEX: index, FILES: files })
}

/// Asks the source what each planned view needs beyond its blob ([`Steps::complete`]); a
/// failure is that entry's.
async fn complete_all<S: Source>(
    steps: &Steps<'_, S>,
    planned: &mut [Result<Planned<S::Lookup>, EntryFailure>],
    fetched: &mut [Result<Fetched, EntryFailure>],
) {
    let views = planned.iter_mut().filter_map(|p| p.as_mut().ok());
    for ((_, view), read) in views.zip(fetched.iter_mut()) {
        if let Ok(f) = read
            && let Err(e) = steps.complete(view, f).await
        {
            *read = Err(EntryFailure::Read(ReadError::Source(e)));
        }
    }
}

/// What the source fetched for each wanted entry, in order (`fetch_many` answers once per
/// entry); and the blob the caller's previous window of each file came
/// from when it was another one, asked once (asking records this read).
async fn fetch_all<S: Source>(
    steps: &Steps<'_, S>,
    wanted: &[Wanted<'_, S::Lookup>],
) -> (Vec<Result<Fetched, EntryFailure>>, Vec<Option<String>>)
where
    S::Lookup: Labelled,
{
    let fetched: Vec<Result<Fetched, EntryFailure>> = steps
        .fetch_each(wanted)
        .await
        .into_iter()
        .map(|f| f.map_err(|e| EntryFailure::Read(ReadError::Source(e))))
        .collect();
    let changed = fetched
        .iter()
        .map(|f| steps.changed_from(f.as_ref().ok()?))
        .collect();
    (fetched, changed)
}

/// An entry's target, the call's `max_chars` its own (so hints repeat it), and its view (a
/// pattern compiled); or why it has none (a bad pattern costs no request).
fn target_of<S: Source>(
    steps: &Steps<'_, S>,
    entry: &Entry,
    max_chars: Option<u64>,
) -> Result<Planned<S::Lookup>, EntryFailure> {
    let args = entry
        .parsed
        .as_ref()
        .map_err(|e| EntryFailure::Arguments(e.clone()))?;
    let (mut target, view) = steps.plan(args).map_err(EntryFailure::Read)?;
    target.max_chars = max_chars;
    Ok((target, view))
}

/// The entries' walk in order: the shared budget, and the call.
struct EntryWalk<'a> {
    budget: SharedBudget,
    /// The budget is what fits in one message, less than the call's.
    fitted_to_message: bool,
    call: &'a BatchCall,
    /// Whether to go on ([`cpu::Stop`]).
    stop: &'a Stop,
}

impl EntryWalk<'_> {
    /// The limit the shared budget is, as a not-read hint names it: what fits in one message
    /// when that is less than the budget, else the call's `max_chars` or the default budget.
    fn shared_limit(&self) -> SharedLimit {
        let total = self.budget.total();
        match (self.fitted_to_message, self.call.max_chars) {
            (true, _) => SharedLimit::OneMessage,
            (false, Some(_)) => SharedLimit::Call(total),
            (false, None) => SharedLimit::Default(total),
        }
    }

    /// Every entry's answer, in order: `planned`, and what the source fetched for each planned
    /// entry with the blob the caller's previous window of its file came from (both in order).
    fn walk<L: Labelled>(
        &mut self,
        planned: &[Result<Planned<L>, EntryFailure>],
        fetched: &[Result<Fetched, EntryFailure>],
        changed: &[Option<String>],
    ) -> Vec<Answered> {
        let call = self.call;
        let mut served = fetched.iter().zip(changed);
        call.entries
            .iter()
            .zip(planned)
            .map(|(entry, planned)| match planned {
                Err(failure) => (failed(label::<L>(None, entry), failure), None),
                Ok(planned) => self.answer(planned, served.next(), entry),
            })
            .collect()
    }

    /// A planned entry's answer from what the source fetched for it, and the blob the
    /// caller's previous window of the file came from when it was another one.
    fn answer<L: Labelled>(
        &mut self,
        planned: &Planned<L>,
        fetched: Option<(&Result<Fetched, EntryFailure>, &Option<String>)>,
        entry: &Entry,
    ) -> Answered {
        let (target, _) = planned;
        let failure = match fetched {
            Some((Ok(fetched), changed_from)) => {
                return self.served(planned, fetched.clone(), changed_from.clone(), entry);
            }
            Some((Err(failure), _)) => failure,
            // `fetch_many` answers once per lookup: never reached.
            None => &EntryFailure::NoAnswer,
        };
        (failed(label(Some(&target.lookup), entry), failure), None)
    }

    /// A fetched entry: its window or page of matches within what is left of the budget (the
    /// single tool's output, or its error), or, once the budget is spent, no content and the
    /// arguments that read it.
    fn served<L>(
        &mut self,
        (target, view): &Planned<L>,
        fetched: Fetched,
        changed_from: Option<String>,
        entry: &Entry,
    ) -> Answered {
        let blob = &fetched.blob;
        let has_content = matches!(blob.kind, BlobKind::Text { .. })
            && !holds(target.held.as_deref(), blob.id.as_deref());
        let max_chars = match self.budget.next() {
            Some(left) => left,
            None if has_content => {
                return (
                    not_read(self.shared_limit(), self.call, entry, &fetched),
                    None,
                );
            }
            // A binary or LFS file is an error without content, and an unchanged one has none:
            // nothing to spend.
            None => 0,
        };
        let read = Read {
            fetched,
            changed_from,
            max_chars,
            fitted_to_message: self.fitted_to_message,
            shared: Some(self.shared_limit()),
        };
        match render(view, target, &read, self.stop) {
            // An entry after others whose floor (its first line) passes what they left is not
            // read: the batch holds at most its budget (55 of 50 characters with line numbers,
            // 2,007 of 2,000 with an outline, before).
            Ok(rendered) if !self.budget.take(rendered.charged) => (
                not_read(self.shared_limit(), self.call, entry, &read.fetched),
                None,
            ),
            Ok(rendered) => (rendered.output, Some(rendered.complete)),
            Err(e) => {
                let blob = &read.fetched.blob;
                let failure = EntryFailure::Read(ReadError::View(e));
                let label = (json!(shown(&blob.path)), json!(shown(&blob.git_ref)));
                (failed(label, &failure), None)
            }
        }
    }
}

/// An entry the budget did not reach: its path and ref, and how to read it.
fn not_read(limit: SharedLimit, call: &BatchCall, entry: &Entry, fetched: &Fetched) -> Value {
    let mut arguments: Map<String, Value> = entry.arguments.clone();
    if let Some(max_chars) = call.max_chars {
        arguments.insert(ArgName::MaxChars.as_str().into(), max_chars.into());
    }
    json!({
        "path": fetched.blob.path,
        "ref": fetched.blob.git_ref,
        "system_instruction": response::batch::not_read(limit, &Value::Object(arguments)),
    })
}

/// `{path, ref, error}`: the failure worded, once, here; `path` and `ref` quoted as an error
/// quotes them (at most 100 characters: 20 entries naming a missing 4,096-character path made
/// a message of a megabyte).
fn failed((path, git_ref): (Value, Value), failure: &EntryFailure) -> Value {
    json!({ "path": path, "ref": git_ref, "error": failure.to_string() })
}

/// The path and ref an entry's error names, quoted: the lookup's, else as the entry gave them
/// (a URL stands for the path), `null` when it gave none.
fn label<L: Labelled>(lookup: Option<&L>, entry: &Entry) -> (Value, Value) {
    if let Some((path, git_ref)) = lookup.and_then(Labelled::path_and_ref) {
        return (json!(shown(path)), json!(shown(git_ref)));
    }
    let path = entry
        .quoted(ArgName::FilePath)
        .or_else(|| entry.quoted(ArgName::Url));
    (
        path.map_or(Value::Null, Value::String),
        entry
            .quoted(ArgName::Ref)
            .map_or(Value::Null, Value::String),
    )
}
