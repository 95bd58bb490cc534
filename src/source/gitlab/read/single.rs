//! One lookup read: how it starts (its content cached: ask without it; a first read: ask with
//! it, leading a flight; a first read while another is in flight: ask without, then follow
//! it), and its rounds, at most two: the second only when the first, asked without content,
//! names a blob that is not cached (the file changed, or a first read in flight did not bring
//! it). Each round is one validating request ([`answer`]) and its [`finish`]; for the blame
//! view the same request also blames the window's first lines, for the diff view it also reads
//! the file at the other ref, finished the same way ([`fetch_with`]).

use super::answer::{self, Fields};
use super::finish::{self, Finish, Reply};
use super::shared::GitlabState;
use crate::config::Credential;
use crate::resolve::ProjectFile;
use crate::resolve::ProjectRef;
use crate::source::Wanted;
use crate::source::blob::{Fetched, SourceError};
use crate::source::gitlab::content::download::Landed;
use crate::source::gitlab::content::flights::{FlightRole, Follow};
use crate::source::gitlab::content::keys::{LookupKey, Named};
use crate::source::gitlab::query::blob_query::ProjectAnswer;
use crate::source::gitlab::query::graphql::BlobFields;
use crate::source::no_such_file;
use crate::source::views::{Alongside, Also};
use crate::window::Extent;

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
    let nothing = Also::default();
    Ok(fetch_with(shared, wanted, &nothing, credential).await?.0)
}

/// [`fetch`], the same request also asking what the view asks `also` (a blame of at most 100
/// lines, the file at another ref): what the last round's answer gave of it.
pub(crate) async fn fetch_with(
    shared: &GitlabState,
    wanted: Wanted<'_, ProjectFile>,
    also: &Also,
    credential: Option<&Credential>,
) -> Result<(Fetched, Alongside), SourceError> {
    let key = LookupKey::of(wanted.lookup);
    let mut out = Brought::default();
    let asked = (wanted, also);
    // Boxed: the rounds' future is large (answers, content, downloads), too large for a
    // worker thread's stack in a debug build once the HTTP transport's own frames are on it.
    if wanted.held.is_some() || shared.cached_hint(&key) {
        let fetched = Box::pin(read(shared, asked, credential, Start::Cached, &mut out)).await;
        return Ok((fetched?, out.extras));
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
    Ok((fetched?, out.extras))
}

/// What a read's rounds leave besides the file: the content and path the last answer named,
/// and what it brought of the view's [`Also`].
#[derive(Default)]
struct Brought {
    named: Option<Named>,
    extras: Alongside,
}

/// The rounds of one read of `wanted` (with what its view asks `also`).
async fn read(
    shared: &GitlabState,
    (wanted, also): (Wanted<'_, ProjectFile>, &Also),
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
        let fields = Fields::of(with_content, wanted.extent, also);
        let mut reply =
            answer::ask_lookup(&shared.connection, wanted.lookup, fields, credential).await?;
        out.extras.blamed = reply.project.blamed.take();
        // A base GitLab did not answer (an invalid ref) is read alone, which names its ref.
        let base_node = reply.project.base.take();
        let base = fields.base_ref.zip(base_node).map(|(git_ref, node)| Base {
            node: node.map(|b| *b),
            project: reply.project.clone(),
            git_ref,
            path: reply.path.clone(),
        });
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
        let Some(fetched) = finished.fetched? else {
            with_content = true;
            continue;
        };
        if let Some(base) = base {
            out.extras.base = base.finish(shared, with_content, credential).await?;
        }
        return Ok(fetched);
    }
}

/// The diff view's other side as the read's own answer gave it: the node found at `git_ref`,
/// if any, in the project the answer named.
struct Base<'a> {
    node: Option<BlobFields>,
    project: ProjectAnswer,
    git_ref: &'a str,
    path: String,
}

impl Base<'_> {
    /// The file at the other ref, finished as any read is (the cache, a download past the
    /// read limit, a probe for a miss): `Some(None)` when the ref has no such file, `None`
    /// when it must be read alone (asked without content, and not cached).
    async fn finish(
        self,
        shared: &GitlabState,
        content: bool,
        credential: Option<&Credential>,
    ) -> Result<Option<Option<Fetched>>, SourceError> {
        let lookup = ProjectFile::Named {
            project: ProjectRef::Path(self.project.full_path.clone()),
            git_ref: self.git_ref.to_string(),
            path: self.path.clone(),
        };
        let key = LookupKey::of(&lookup);
        let reply = Reply {
            project: self.project,
            node: self.node,
            git_ref: self.git_ref.to_string(),
            path: self.path,
            ref_type: None,
            split_fallback_from: None,
        };
        let ask = Finish {
            key: &key,
            expect_project_id: None,
            extent: Extent::Whole,
            content,
            held: None,
            credential,
        };
        match finish::finish(shared, reply, ask, None).await.fetched {
            Ok(found) => Ok(found.map(Some)),
            Err(e) if no_such_file(&e) => Ok(Some(None)),
            Err(e) => Err(e),
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
