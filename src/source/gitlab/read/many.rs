//! Many lookups in one go (`get_repository_files`): lookups that share a project and ref are
//! one group, and a group is one blob query with all its paths (`blobs(paths: [...])`, the
//! same document as a single file's). Each lookup is then finished exactly as
//! a single read finishes one ([`finish`]): a miss is probed (only the lookups that missed), Duo
//! exclusions refused, the project id checked, the content taken from the cache, the answer or
//! REST. Lookups whose blob the cache holds are asked without content, in a request of their
//! own; a URL that splits several ways is fetched alone, as the single tool does. Groups run
//! concurrently, at most [`GROUPS_AT_ONCE`] at a time.
//!
//! A group's paths are asked as the instance will answer them ([`paths_query`]: within its
//! paths per request and GitLab's 20 MiB rule on full sizes). Sizes are not known before
//! asking, so a group is asked whole first.

use std::collections::HashMap;

use futures_util::future::join_all;
use futures_util::stream::{self, StreamExt};

use super::finish::{self, Finish, Reply};
use super::shared::GitlabState;
use super::single;
use crate::config::Credential;
use crate::resolve::ref_name::RefType;
use crate::resolve::{Lookup, ProjectFile, ProjectRef};
use crate::source::Wanted;
use crate::source::blob::{Fetched, SourceError};
use crate::source::gitlab::content::keys::LookupKey;
use crate::source::gitlab::query::blob_query::PathsRequest;
use crate::source::gitlab::query::graphql::BlobFields;
use crate::source::gitlab::query::paths_query::{self, PathsAnswer};
use crate::window::Extent;

/// Groups asked at the same time.
const GROUPS_AT_ONCE: usize = 4;

/// One lookup of a group.
struct Member<'a> {
    /// Its place among the targets asked for.
    index: usize,
    lookup: &'a ProjectFile,
    extent: Extent,
    /// The blob id the caller holds (`if_none_match`).
    held: Option<&'a str>,
    path: &'a str,
    expect_project_id: Option<u64>,
    /// Its key in the memory of which blob it named last time.
    key: LookupKey,
}

/// Lookups of one project at one ref.
struct RefGroup<'a> {
    project: ProjectRef,
    git_ref: &'a str,
    ref_type: Option<RefType>,
    members: Vec<Member<'a>>,
}

/// What one concurrent step reads.
enum Work<'a> {
    Group(RefGroup<'a>),
    /// A lookup read as the single tool reads it (a URL that splits several ways).
    Single(usize, Wanted<'a, ProjectFile>),
}

/// Reads every lookup's file, enough of it for its extent: one answer per lookup, in order.
pub(crate) async fn fetch_many(
    shared: &GitlabState,
    wanted: &[Wanted<'_, ProjectFile>],
    credential: Option<&Credential>,
) -> Vec<Result<Fetched, SourceError>> {
    // The steps' futures are built first: a closure inside the stream would make the
    // call's future not `Send` for the compiler (a higher-ranked lifetime it cannot prove).
    let steps: Vec<_> = plan(wanted)
        .into_iter()
        .map(|work| run(shared, work, credential))
        .collect();
    let mut done: Vec<(usize, Result<Fetched, SourceError>)> = stream::iter(steps)
        .buffer_unordered(GROUPS_AT_ONCE)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .flatten()
        .collect();
    // `plan` puts every lookup in exactly one step.
    done.sort_by_key(|(index, _)| *index);
    done.into_iter().map(|(_, fetched)| fetched).collect()
}

async fn run(
    shared: &GitlabState,
    work: Work<'_>,
    credential: Option<&Credential>,
) -> Vec<(usize, Result<Fetched, SourceError>)> {
    match work {
        // Boxed: these futures are large, and a batch holds many of them.
        Work::Single(index, w) => {
            let fetched = Box::pin(single::fetch(shared, w, credential)).await;
            vec![(index, fetched)]
        }
        Work::Group(group) => Box::pin(fetch_group(shared, &group, credential)).await,
    }
}

/// One group: the lookups whose blob is cached, or that the caller holds, asked without
/// content, the others with it, both at once; then each finished.
async fn fetch_group(
    shared: &GitlabState,
    group: &RefGroup<'_>,
    credential: Option<&Credential>,
) -> Vec<(usize, Result<Fetched, SourceError>)> {
    let (cached, fresh): (Vec<&Member<'_>>, Vec<&Member<'_>>) = group
        .members
        .iter()
        .partition(|m| m.held.is_some() || shared.cached_hint(&m.key));
    let (bare, full) = tokio::join!(
        ask_set(shared, group, &cached, false, credential),
        ask_set(shared, group, &fresh, true, credential)
    );
    let mut done = finish_set(shared, group, &cached, bare, false, credential).await;
    done.extend(finish_set(shared, group, &fresh, full, true, credential).await);
    done
}

/// One request for `members`' paths (none for no members).
async fn ask_set(
    shared: &GitlabState,
    group: &RefGroup<'_>,
    members: &[&Member<'_>],
    with_content: bool,
    credential: Option<&Credential>,
) -> PathsAnswer {
    let paths = unique_paths(members.iter().map(|m| m.path));
    // One request for the set: the language is asked when one member parses its file.
    let language = members.iter().any(|m| m.extent == Extent::Parsed);
    ask_paths(shared, group, &paths, with_content, language, credential).await
}

async fn ask_paths(
    shared: &GitlabState,
    group: &RefGroup<'_>,
    paths: &[&str],
    with_content: bool,
    language: bool,
    credential: Option<&Credential>,
) -> PathsAnswer {
    if paths.is_empty() {
        return Ok(None);
    }
    let request = PathsRequest {
        project: &group.project,
        git_ref: group.git_ref,
        paths,
        ref_type: group.ref_type,
        language,
        blame: None,
        base_ref: None,
    };
    paths_query::ask_paths(&shared.connection, request, with_content, credential).await
}

/// Each member of a set finished from the set's answer.
async fn finish_set(
    shared: &GitlabState,
    group: &RefGroup<'_>,
    members: &[&Member<'_>],
    answer: PathsAnswer,
    with_content: bool,
    credential: Option<&Credential>,
) -> Vec<(usize, Result<Fetched, SourceError>)> {
    let mut project = match answer {
        Ok(Some(project)) => project,
        Ok(None) => {
            let missing = SourceError::ProjectNotFound {
                project: group.project.to_string(),
                anonymous: credential.is_none(),
            };
            return members
                .iter()
                .map(|m| (m.index, Err(missing.clone())))
                .collect();
        }
        Err(e) => {
            let failed = |m: &&Member<'_>| {
                let e = SourceError::from(e.clone()).naming_ref(group.git_ref);
                (m.index, Err(e))
            };
            return members.iter().map(failed).collect();
        }
    };
    let mut nodes = Nodes::new(std::mem::take(&mut project.nodes), members);
    let finishing: Vec<_> = members
        .iter()
        .map(|m| {
            let reply = Reply {
                project: project.clone(),
                node: nodes.take(m.path),
                git_ref: group.git_ref.to_string(),
                path: m.path.to_string(),
                ref_type: group.ref_type,
                split_fallback_from: None,
            };
            async move {
                let finishing = finish_member(shared, m, reply, with_content, credential);
                (m.index, Box::pin(finishing).await)
            }
        })
        .collect();
    join_all(finishing).await
}

/// One lookup from its group's answer, finished as a single read finishes one.
async fn finish_member(
    shared: &GitlabState,
    member: &Member<'_>,
    reply: Reply,
    with_content: bool,
    credential: Option<&Credential>,
) -> Result<Fetched, SourceError> {
    let ask = Finish {
        key: &member.key,
        expect_project_id: member.expect_project_id,
        extent: member.extent,
        content: with_content,
        held: member.held,
        credential,
    };
    match finish::finish(shared, reply, ask, None).await.fetched? {
        Some(fetched) => Ok(fetched),
        // Asked without content, and the blob named is neither cached (the file changed,
        // or the cache let it go) nor the one the caller holds: read as a single lookup,
        // which asks again with content.
        None => {
            let wanted = Wanted {
                lookup: member.lookup,
                extent: member.extent,
                held: None,
            };
            Box::pin(single::fetch(shared, wanted, credential)).await
        }
    }
}

/// The blobs of an answer by path, handed to the members that asked for them (a path asked
/// by two members is copied for the first).
struct Nodes {
    by_path: HashMap<String, BlobFields>,
    uses: HashMap<String, usize>,
}

impl Nodes {
    fn new(nodes: Vec<BlobFields>, members: &[&Member<'_>]) -> Self {
        let mut uses: HashMap<String, usize> = HashMap::new();
        for m in members {
            *uses.entry(m.path.to_string()).or_default() += 1;
        }
        let by_path = nodes.into_iter().map(|n| (n.path.clone(), n)).collect();
        Self { by_path, uses }
    }

    fn take(&mut self, path: &str) -> Option<BlobFields> {
        let left = self.uses.get_mut(path)?;
        *left = left.saturating_sub(1);
        if *left == 0 {
            self.by_path.remove(path)
        } else {
            self.by_path.get(path).cloned()
        }
    }
}

/// The steps that read `wanted`: one group per (project as named, ref, ref type) in the order
/// first seen, a URL that splits several ways on its own.
fn plan<'a>(wanted: &[Wanted<'a, ProjectFile>]) -> Vec<Work<'a>> {
    let mut work: Vec<Work<'a>> = Vec::new();
    let mut groups: HashMap<(ProjectRef, &str, Option<RefType>), usize> = HashMap::new();
    for (index, &w) in wanted.iter().enumerate() {
        let Some((project, git_ref, path, ref_type, expect_project_id)) = exact(w.lookup) else {
            work.push(Work::Single(index, w));
            continue;
        };
        let (lookup, extent, held) = (w.lookup, w.extent, w.held);
        let member = Member {
            index,
            lookup,
            extent,
            held,
            path,
            expect_project_id,
            key: LookupKey::of(lookup),
        };
        let group_key = (project.clone(), git_ref, ref_type);
        if let Some(&at) = groups.get(&group_key)
            && let Some(Work::Group(group)) = work.get_mut(at)
        {
            group.members.push(member);
            continue;
        }
        groups.insert(group_key, work.len());
        work.push(Work::Group(RefGroup {
            project,
            git_ref,
            ref_type,
            members: vec![member],
        }));
    }
    work
}

/// A lookup of exactly one ref and path: its project, ref, path, ref type and the project id a
/// URL's project must have.
type ExactLookup<'a> = (ProjectRef, &'a str, &'a str, Option<RefType>, Option<u64>);

fn exact(lookup: &ProjectFile) -> Option<ExactLookup<'_>> {
    match lookup {
        ProjectFile::Named {
            project,
            git_ref,
            path,
        } => Some((project.clone(), git_ref, path, None, None)),
        ProjectFile::Url {
            project_path,
            expect_project_id,
            file:
                Lookup::Exact {
                    git_ref,
                    path,
                    ref_type,
                },
        } => Some((
            ProjectRef::Path(project_path.clone()),
            git_ref,
            path,
            *ref_type,
            *expect_project_id,
        )),
        ProjectFile::Url {
            file: Lookup::Candidates { .. },
            ..
        } => None,
    }
}

/// `paths` without repeats, in order.
fn unique_paths<'a>(paths: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut unique: Vec<&str> = Vec::new();
    for path in paths {
        if !unique.contains(&path) {
            unique.push(path);
        }
    }
    unique
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::LineRequest;

    fn named(project: ProjectRef, git_ref: &str, path: &str) -> ProjectFile {
        ProjectFile::Named {
            project,
            git_ref: git_ref.into(),
            path: path.into(),
        }
    }

    fn url(project: &str, file: Lookup) -> ProjectFile {
        ProjectFile::Url {
            project_path: project.into(),
            expect_project_id: None,
            file,
        }
    }

    /// Each step as the indexes it reads, `S` marking a single lookup.
    fn steps(work: &[Work<'_>]) -> Vec<String> {
        work.iter()
            .map(|w| match w {
                Work::Single(i, _) => format!("S{i}"),
                Work::Group(g) => {
                    let members: Vec<String> =
                        g.members.iter().map(|m| m.index.to_string()).collect();
                    format!("{}@{}:{}", g.project, g.git_ref, members.join(","))
                }
            })
            .collect()
    }

    #[test]
    fn lookups_group_by_project_and_ref_in_order() {
        let p = || ProjectRef::Path("g/p".into());
        let exact = |r: &str, path: &str, ref_type| Lookup::Exact {
            git_ref: r.into(),
            path: path.into(),
            ref_type,
        };
        let split = Lookup::Candidates {
            candidates: vec![],
            ref_type: None,
        };
        let targets = [
            named(p(), "main", "a"),
            named(ProjectRef::Id(42), "main", "b"),
            named(p(), "dev", "c"),
            url("g/p", exact("main", "d", None)),
            url("g/p", split),
            url("g/p", exact("main", "e", Some(RefType::Tags))),
            named(p(), "main", "a"),
        ];
        let all = Extent::Lines(LineRequest::OffsetLimit {
            offset: 0,
            limit: 500,
        });
        let refs: Vec<Wanted<'_, ProjectFile>> = targets
            .iter()
            .map(|lookup| Wanted {
                lookup,
                extent: all,
                held: None,
            })
            .collect();
        assert_eq!(
            steps(&plan(&refs)),
            [
                "g/p@main:0,3,6",
                "42@main:1",
                "g/p@dev:2",
                "S4",
                "g/p@main:5"
            ]
        );
    }

    #[test]
    fn paths_are_asked_once_and_handed_to_each_member() {
        assert_eq!(
            unique_paths(["a", "b", "a", "c", "b"].into_iter()),
            ["a", "b", "c"]
        );
    }
}
