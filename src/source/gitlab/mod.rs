//! The GitLab source: reads a [`ProjectFile`] over GitLab's GraphQL API.
//!
//! Every call asks GitLab, with the caller's own credential, whether the caller may read the file
//! at the ref now and which blob it is: the blob query ([`blob_query`]) for a file named by ref
//! and path, or the evidence query ([`evidence_query`]) for a URL whose "ref/path" splits
//! several ways. That one request carries the content only when the blob this lookup named last time
//! is not cached ([`cache`]): windows after the first cost a request without content. The
//! content comes from the cache, the answer, or the REST raw endpoints past GitLab's 10 MiB
//! read limit and for LFS objects ([`content`], [`raw`]). A second request happens only when
//! the answer names a blob that is not cached (the file changed), or on a miss ([`probe`]), to
//! tell a missing ref from a missing file or a directory. The project's Duo exclusion rules
//! ride along in the first request where the instance has them ([`exclusion`] matches them).
//! Which optional fields the instance knows is learned once ([`capabilities`]).

mod blob_query;
mod cache;
mod capabilities;
mod client;
mod content;
mod envelope;
mod error;
mod evidence_query;
mod exclusion;
mod flights;
mod graphql;
mod json_text;
mod many;
mod permalink;
mod probe;
mod raw;
mod scalars;
mod transport;
mod verify;

/// The pure parts the fuzz targets check (through `crate::fuzzing`, nothing else).
pub(crate) mod pure {
    pub(crate) use super::exclusion::{fnmatch, is_excluded, normalize_path};
    pub(crate) use super::json_text::decode as decode_json_text;
}

use std::sync::Arc;

use blob_query::{BlobRequest, ProjectAnswer};
use cache::LastBlobs;
use client::Client;
use content::{Content, ContentStore, FileAt, Landed, size_bytes};
use flights::{Flights, Follow, Role};
use graphql::BlobFields;
use transport::Transport;

use crate::args::ToolArgs;
use crate::config::{ConfigError, Credential, GitlabConfig};
use crate::ref_name::{RefType, qualify_ref};
use crate::resolve::choice::choose;
use crate::resolve::{self, Lookup, ProjectFile, ProjectRef, ResolveError, Target};
use crate::source::blob::{Blob, BlobKind, Fetched, SourceError};
use crate::source::{Source, Wanted, holds};
use crate::window::Extent;

/// The GitLab source; cheap to clone and share across calls (and callers: the blob cache and
/// what was last seen are shared, every call still validates with its own credential).
#[derive(Debug, Clone)]
pub(crate) struct GitlabSource {
    client: Client,
    base: ::url::Url,
    /// The base's origin and root, which GitLab's permalink paths are relative to
    /// ([`permalink`]).
    site: permalink::Site,
    shared: Arc<Shared>,
}

/// What every call shares.
#[derive(Debug)]
struct Shared {
    store: ContentStore,
    last_blobs: LastBlobs,
    /// First reads in flight, by lookup: a concurrent first read of the same lookup follows
    /// one only after its own request has validated it.
    first_reads: Flights<String, Landed>,
}

/// How a read starts: the lookup's content cached (ask without it), a first read (ask with
/// it), or a first read while another is in flight (ask without, then wait for that one).
enum Start {
    Cached,
    First,
    AfterFlight(Follow<Landed>),
}

/// One call's request of [`GitlabSource::fetch`], handed to its rounds.
#[derive(Clone, Copy)]
struct Call<'a> {
    lookup: &'a ProjectFile,
    extent: Extent,
    /// The blob id the caller holds (`if_none_match`).
    held: Option<&'a str>,
    credential: Option<&'a Credential>,
}

/// What a round asked of a blob: how much of it the call needs, whether the request carried
/// content, and whether the answer named the blob the caller holds (`if_none_match`).
#[derive(Debug, Clone, Copy)]
struct Asked {
    extent: Extent,
    content: bool,
    unchanged: bool,
}

impl Asked {
    /// What a round asked of `answered`'s blob, for a caller holding `held`.
    fn of(answered: &Answered, extent: Extent, content: bool, held: Option<&str>) -> Self {
        Self {
            extent,
            content,
            unchanged: holds(held, Some(&answered.node.oid)),
        }
    }
}

/// How a lookup is answered: the project, and the chosen blob of the lookup's file.
struct Answered {
    project: ProjectAnswer,
    node: BlobFields,
    /// The ref the blob was found at, and its type.
    git_ref: String,
    ref_type: Option<RefType>,
    split_fallback_from: Option<String>,
}

impl Source for GitlabSource {
    type Lookup = ProjectFile;

    fn resolve(&self, args: &ToolArgs) -> Result<Target<ProjectFile>, ResolveError> {
        resolve::for_gitlab(args, self.base())
    }

    async fn fetch(
        &self,
        lookup: &ProjectFile,
        extent: Extent,
        held: Option<&str>,
        credential: Option<&Credential>,
    ) -> Result<Fetched, SourceError> {
        GitlabSource::fetch(self, lookup, extent, held, credential).await
    }

    async fn fetch_many(
        &self,
        wanted: &[Wanted<'_, ProjectFile>],
        credential: Option<&Credential>,
    ) -> Vec<Result<Fetched, SourceError>> {
        GitlabSource::fetch_many(self, wanted, credential).await
    }
}

impl GitlabSource {
    pub(crate) fn new(config: &GitlabConfig) -> Result<Self, ConfigError> {
        let transport = Transport::new(config)?;
        let store = ContentStore::new(transport.clone(), config.cache_bytes, config.max_file_bytes);
        Ok(Self {
            client: Client::new(transport),
            base: config.base_url.clone(),
            site: permalink::Site::of(&config.base_url),
            shared: Arc::new(Shared {
                store,
                last_blobs: LastBlobs::new(),
                first_reads: Flights::default(),
            }),
        })
    }

    /// The instance's base URL (file URLs must be on it).
    pub(crate) fn base(&self) -> &::url::Url {
        &self.base
    }

    /// Reads the file `lookup` names with the caller's credential, enough of it for `extent`.
    /// A first read of a lookup (nothing cached for it) leads a flight; a concurrent first
    /// read of the same lookup validates with its own request first, without content, and
    /// only then waits for that flight to land ([`Self::read`]).
    /// With `held` (the blob id the caller holds, `if_none_match`) the first request goes
    /// without content and joins no flight, and when it names that blob its content is only
    /// taken from the cache, never downloaded: [`BlobKind::NotRead`] when the cache cannot
    /// give it.
    pub(crate) async fn fetch(
        &self,
        lookup: &ProjectFile,
        extent: Extent,
        held: Option<&str>,
        credential: Option<&Credential>,
    ) -> Result<Fetched, SourceError> {
        let key = hint_key(lookup);
        let call = Call {
            lookup,
            extent,
            held,
            credential,
        };
        // Boxed: the rounds' future is large (answers, content, downloads), too large for a
        // worker thread's stack in a debug build once the HTTP transport's own frames are on it.
        if held.is_some() || self.cached_hint(&key) {
            return Box::pin(self.read(call, Start::Cached, &mut String::new())).await;
        }
        match self.shared.first_reads.join(key) {
            Role::Lead(lead) => {
                let mut named = String::new();
                let outcome = Box::pin(self.read(call, Start::First, &mut named)).await;
                let kind = outcome.as_ref().map(|f| f.blob.kind.clone());
                lead.land(Landed::new(named, kind.map_err(Clone::clone)));
                outcome
            }
            Role::Follow(flight) => {
                let start = Start::AfterFlight(flight);
                Box::pin(self.read(call, start, &mut String::new())).await
            }
        }
    }

    /// The rounds of one read, at most two: the second only when the first, asked without
    /// content, names a blob that is not cached (the file changed, or a first read in flight
    /// did not bring it). `named` is left naming the content and path the last answer named.
    async fn read(
        &self,
        call: Call<'_>,
        start: Start,
        named: &mut String,
    ) -> Result<Fetched, SourceError> {
        let Call {
            lookup,
            extent,
            held,
            credential,
        } = call;
        let key = hint_key(lookup);
        let (mut with_content, mut flight) = match start {
            Start::Cached => (false, None),
            Start::First => (true, None),
            Start::AfterFlight(flight) => (false, Some(flight)),
        };
        loop {
            let answered = self.answer(lookup, with_content, credential).await?;
            let content_key = content::cache_key(&answered.node);
            self.shared.last_blobs.remember(&key, &content_key);
            *named = format!("{content_key}\0{}", answered.node.path);
            if let ProjectFile::Url {
                expect_project_id, ..
            } = lookup
            {
                check_project_id(*expect_project_id, &answered.project)?;
            }
            // Validated with this caller's own request: only now may it wait on another's.
            if let Some(flight) = flight.take()
                && let Some(failure) = flight.outcome().await.and_then(|l| l.failure_for(named))
            {
                return Err(failure);
            }
            let asked = Asked::of(&answered, extent, with_content, held);
            match self.blob(answered, asked, credential).await? {
                Some(fetched) => return Ok(fetched),
                None => with_content = true,
            }
        }
    }

    /// Whether the content the lookup named last time is cached.
    fn cached_hint(&self, key: &str) -> bool {
        self.shared
            .last_blobs
            .get(key)
            .is_some_and(|oid| self.shared.store.holds(&oid))
    }

    /// The validating request: may this caller read this file at this ref now, and which blob
    /// is it (with its content when `with_content`)?
    async fn answer(
        &self,
        lookup: &ProjectFile,
        with_content: bool,
        credential: Option<&Credential>,
    ) -> Result<Answered, SourceError> {
        match lookup {
            ProjectFile::Named {
                project,
                git_ref,
                path,
            } => {
                let request = BlobRequest {
                    project,
                    git_ref,
                    path,
                    ref_type: None,
                };
                self.answer_exact(request, with_content, credential).await
            }
            ProjectFile::Url {
                project_path,
                file:
                    Lookup::Exact {
                        git_ref,
                        path,
                        ref_type,
                    },
                ..
            } => {
                let project = ProjectRef::Path(project_path.clone());
                let request = BlobRequest {
                    project: &project,
                    git_ref,
                    path,
                    ref_type: *ref_type,
                };
                self.answer_exact(request, with_content, credential).await
            }
            ProjectFile::Url {
                project_path,
                file:
                    Lookup::Candidates {
                        candidates,
                        ref_type,
                    },
                ..
            } => {
                let asked = evidence_query::Asked {
                    project_path,
                    candidates,
                    ref_type: *ref_type,
                    content: with_content,
                };
                self.answer_split(asked, credential).await
            }
        }
    }

    async fn answer_exact(
        &self,
        request: BlobRequest<'_>,
        with_content: bool,
        credential: Option<&Credential>,
    ) -> Result<Answered, SourceError> {
        let answer = blob_query::ask(&self.client, request, with_content, credential)
            .await
            .map_err(|e| SourceError::from(e).naming_ref(request.git_ref))?;
        let Some(mut project) = answer else {
            return Err(SourceError::ProjectNotFound {
                project: request.project.to_string(),
            });
        };
        let Some(node) = project.take_node(request.path) else {
            let missing = probe::Missing {
                project_path: &project.full_path,
                git_ref: request.git_ref,
                path: request.path,
                ref_type: request.ref_type,
                rules: project.rules.as_deref(),
            };
            let missing = probe::why_missing(&self.client, missing, credential);
            return Err(missing.await);
        };
        refuse_excluded(&project, request.path)?;
        Ok(Answered {
            project,
            node,
            git_ref: request.git_ref.to_string(),
            ref_type: request.ref_type,
            split_fallback_from: None,
        })
    }

    /// A URL whose "ref/path" splits several ways: one request asks for every candidate (and
    /// whether each candidate ref is a branch or tag); GitLab's precedence picks the answer.
    async fn answer_split(
        &self,
        asked: evidence_query::Asked<'_>,
        credential: Option<&Credential>,
    ) -> Result<Answered, SourceError> {
        let Some(evidence_query::CandidatesAnswer {
            project,
            mut answers,
        }) = evidence_query::ask(&self.client, asked, credential).await?
        else {
            return Err(SourceError::ProjectNotFound {
                project: asked.project_path.to_string(),
            });
        };
        let evidence: Vec<_> = answers
            .iter()
            .map(evidence_query::CandidateAnswer::evidence)
            .collect();
        let candidates = asked.candidates;
        // Indexes from `choose` are into `evidence`: one per candidate and per answer.
        let pick = match choose(&evidence).pick() {
            Ok(pick) => pick,
            Err(gitlab) => {
                let c = &candidates[gitlab];
                let missing = probe::Missing {
                    project_path: &project.full_path,
                    git_ref: &c.git_ref,
                    path: &c.path,
                    ref_type: asked.ref_type,
                    rules: project.rules.as_deref(),
                };
                let missing = probe::why_missing(&self.client, missing, credential);
                return Err(missing.await);
            }
        };
        let chosen = &candidates[pick.used];
        refuse_excluded(&project, &chosen.path)?;
        let Some(node) = answers.swap_remove(pick.used).node else {
            // `choose` only picks candidates whose blob was found.
            return Err(SourceError::FileNotFound {
                path: chosen.path.clone(),
                git_ref: chosen.git_ref.clone(),
            });
        };
        Ok(Answered {
            project,
            node,
            git_ref: chosen.git_ref.clone(),
            ref_type: asked.ref_type,
            split_fallback_from: pick.fallback_from.map(|g| candidates[g].git_ref.clone()),
        })
    }

    /// The blob of an answer, with its content from the cache, the answer or REST (for a blob
    /// the caller holds, from the cache alone). `Ok(None)`: asked without content, and the
    /// blob named is not cached.
    async fn blob(
        &self,
        answered: Answered,
        asked: Asked,
        credential: Option<&Credential>,
    ) -> Result<Option<Fetched>, SourceError> {
        let Answered {
            project,
            node,
            git_ref,
            ref_type,
            split_fallback_from,
        } = answered;
        let (path, oid, size_bytes) = (node.path.clone(), node.oid.clone(), size_bytes(&node));
        let cited = node
            .permalink_path
            .as_deref()
            .and_then(|p| permalink::read(&self.site, &project.full_path, p));
        if node.permalink_path.is_some() && cited.is_none() {
            tracing::debug!(permalink_path = ?node.permalink_path, "a permalink that names no commit");
        }
        let rest_ref = qualify_ref(&git_ref, ref_type);
        let at = FileAt {
            project_id: project.id,
            path: &path,
            git_ref: &rest_ref,
        };
        let store = &self.shared.store;
        let kind = if asked.unchanged {
            let key = content::cache_key(&node);
            store
                .at_hand(&key, asked.extent)
                .unwrap_or(BlobKind::NotRead)
        } else {
            match store.content(node, at, asked.extent, credential).await? {
                Content::Ready(kind) => kind,
                Content::NotInAnswer if asked.content => store.binary(&oid),
                Content::NotInAnswer => return Ok(None),
            }
        };
        let (commit_sha, web_url) = cited.map(|c| (c.commit_sha, c.web_url)).unzip();
        let blob = Blob {
            path,
            git_ref,
            size_bytes: content::proven_size(&kind, size_bytes),
            kind,
            id: Some(oid),
            commit_sha,
        };
        Ok(Some(Fetched {
            blob,
            project: Some(project.full_path),
            split_fallback_from,
            web_url,
        }))
    }
}

/// The key under which [`LastBlobs`] remembers which blob a lookup named: the project as named,
/// and the ref and path (or the URL's ref/path and ref type).
fn hint_key(lookup: &ProjectFile) -> String {
    match lookup {
        ProjectFile::Named {
            project,
            git_ref,
            path,
        } => format!("named\0{project}\0{git_ref}\0{path}"),
        ProjectFile::Url {
            project_path, file, ..
        } => match file {
            Lookup::Exact {
                git_ref,
                path,
                ref_type,
            } => format!("url\0{project_path}\0{git_ref}/{path}\0{ref_type:?}"),
            Lookup::Candidates {
                candidates,
                ref_type,
            } => {
                let first = candidates
                    .first()
                    .map(|c| (c.git_ref.as_str(), c.path.as_str()));
                let (r, p) = first.unwrap_or_default();
                format!("url\0{project_path}\0{r}/{p}\0{ref_type:?}")
            }
        },
    }
}

/// The project's Duo exclusion rules, applied to the path that is about to be returned.
fn refuse_excluded(project: &ProjectAnswer, path: &str) -> Result<(), SourceError> {
    match &project.rules {
        Some(rules) if exclusion::is_excluded(rules, path) => Err(SourceError::Excluded {
            path: path.to_string(),
        }),
        _ => Ok(()),
    }
}

/// With a URL, a numeric `project_id` must be the id of the project the URL named.
fn check_project_id(expected: Option<u64>, project: &ProjectAnswer) -> Result<(), SourceError> {
    match (expected, project.id) {
        (Some(given), Some(got)) if given != got => Err(SourceError::ProjectMismatch {
            given,
            url_project: project.full_path.clone(),
            url_project_id: got,
        }),
        _ => Ok(()),
    }
}

/// Every GraphQL document this source may send, named: the checked-in operations, their
/// variants without optional fields, and the run-time URL-split documents (every batch size
/// and combination of optional fields).
pub(crate) fn all_documents() -> Vec<(String, String)> {
    use graphql::{blob, miss_probe, variants};
    let mut documents: Vec<(String, String)> = vec![
        ("Blob".into(), blob::QUERY.into()),
        (
            "Blob without exclusions".into(),
            variants::BLOB_WITHOUT_DUO_EXCLUSIONS_IF_SUPPORTED.into(),
        ),
        ("MissProbe".into(), miss_probe::QUERY.into()),
    ];
    for (name, document) in [
        ("Blob without permalink", blob::QUERY),
        (
            "Blob without exclusions or permalink",
            variants::BLOB_WITHOUT_DUO_EXCLUSIONS_IF_SUPPORTED,
        ),
    ] {
        documents.push((name.into(), graphql::without_permalink(document)));
    }
    for count in 1..=evidence_query::MAX_PER_REQUEST {
        for (rules, commit, permalink) in (0..8).map(|i| (i & 1 != 0, i & 2 != 0, i & 4 != 0)) {
            let extras = evidence_query::Extras {
                rules,
                commit,
                content: true,
                permalink,
            };
            documents.push((
                format!("BlobBySplits {count} {extras:?}"),
                evidence_query::document(count, 3, extras),
            ));
        }
    }
    documents
}
