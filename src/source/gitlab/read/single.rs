//! One lookup read: how it starts (its content cached: ask without it; a first read: ask with
//! it, leading a flight; a first read while another is in flight: ask without, then follow
//! it), and its rounds, at most two: the second only when the first, asked without content,
//! names a blob that is not cached (the file changed, or a first read in flight did not bring
//! it). Each round is one validating request ([`answer`]) and its [`finish`]; for the blame
//! view the same request also blames the window's first lines ([`fetch_blamed`]).

use super::answer::{self, Fields};
use super::finish::{self, Finish};
use super::shared::GitlabState;
use crate::config::Credential;
use crate::resolve::ProjectFile;
use crate::source::Wanted;
use crate::source::blob::{Fetched, SourceError};
use crate::source::gitlab::content::download::Landed;
use crate::source::gitlab::content::flights::{FlightRole, Follow};
use crate::source::gitlab::content::keys::{LookupKey, Named};
use crate::source::views::Blamed;

/// How a read starts.
enum Start {
    Cached,
    First,
    AfterFlight(Follow<Landed<Named>>),
}

/// Reads the file `wanted` names with the caller's credential, enough of it for its extent.
/// A first read of a lookup (nothing cached for it) leads a flight; a concurrent first read of
/// the same lookup validates with its own request first, without content, and only then waits
/// for that flight to land. With a held blob (`if_none_match`) the first request goes without
/// content and joins no flight, and when it names that blob its content is only taken from the
/// cache, never downloaded ([`BlobKind::NotRead`](crate::source::BlobKind::NotRead) when the
/// cache cannot give it).
pub(crate) async fn fetch(
    shared: &GitlabState,
    wanted: Wanted<'_, ProjectFile>,
    credential: Option<&Credential>,
) -> Result<Fetched, SourceError> {
    Ok(fetch_blamed(shared, wanted, None, credential).await?.0)
}

/// [`fetch`], the same request also blaming the lines `blame` (at most 100) where it can: the
/// blame the last round's answer gave, if any.
pub(crate) async fn fetch_blamed(
    shared: &GitlabState,
    wanted: Wanted<'_, ProjectFile>,
    blame: Option<(u64, u64)>,
    credential: Option<&Credential>,
) -> Result<(Fetched, Option<Blamed>), SourceError> {
    let key = LookupKey::of(wanted.lookup);
    let mut out = Brought::default();
    let asked = (wanted, blame);
    // Boxed: the rounds' future is large (answers, content, downloads), too large for a
    // worker thread's stack in a debug build once the HTTP transport's own frames are on it.
    if wanted.held.is_some() || shared.cached_hint(&key) {
        let fetched = Box::pin(read(shared, asked, credential, Start::Cached, &mut out)).await;
        return Ok((fetched?, out.blamed));
    }
    let fetched = match shared.first_reads.join(key) {
        FlightRole::Lead(lead) => {
            let outcome = Box::pin(read(shared, asked, credential, Start::First, &mut out)).await;
            // A lead that named nothing hands nothing on: dropped, its followers read alone.
            if let Some(named) = out.named.take() {
                let kind = outcome.as_ref().map(|f| f.blob.kind.clone());
                lead.land(Landed::new(named, kind.map_err(Clone::clone)));
            }
            outcome
        }
        FlightRole::Follow(flight) => {
            let start = Start::AfterFlight(flight);
            Box::pin(read(shared, asked, credential, start, &mut out)).await
        }
    };
    Ok((fetched?, out.blamed))
}

/// What a read's rounds leave besides the file: the content and path the last answer named,
/// and the blame it gave.
#[derive(Default)]
struct Brought {
    named: Option<Named>,
    blamed: Option<Blamed>,
}

/// The rounds of one read of `wanted` (blaming the lines `blame` with it).
async fn read(
    shared: &GitlabState,
    (wanted, blame): (Wanted<'_, ProjectFile>, Option<(u64, u64)>),
    credential: Option<&Credential>,
    start: Start,
    out: &mut Brought,
) -> Result<Fetched, SourceError> {
    let key = LookupKey::of(wanted.lookup);
    let (mut with_content, mut flight) = match start {
        Start::Cached => (false, None),
        Start::First => (true, None),
        Start::AfterFlight(flight) => (false, Some(flight)),
    };
    loop {
        let fields = Fields::of(with_content, wanted.extent, blame);
        let mut reply =
            answer::ask_lookup(&shared.connection, wanted.lookup, fields, credential).await?;
        out.blamed = reply.project.blamed.take();
        let ask = Finish {
            key: &key,
            expect_project_id: expect_project_id(wanted.lookup),
            extent: wanted.extent,
            content: with_content,
            held: wanted.held,
            credential,
        };
        let finished = finish::finish(shared, reply, ask, flight.take()).await;
        if finished.named.is_some() {
            out.named = finished.named;
        }
        match finished.fetched? {
            Some(fetched) => return Ok(fetched),
            None => with_content = true,
        }
    }
}

/// With a URL, the numeric `project_id` given beside it.
fn expect_project_id(lookup: &ProjectFile) -> Option<u64> {
    match lookup {
        ProjectFile::Named { .. } => None,
        ProjectFile::Url {
            expect_project_id, ..
        } => *expect_project_id,
    }
}
