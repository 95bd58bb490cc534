//! The commits that changed a file in the local repository, newest first (the history view):
//! a walk of the commit graph from the read's commit by commit time, keeping each commit
//! whose entry at the path differs from every parent's (a merge that took one side's file
//! as it was changed nothing). Renames are not followed, as on GitLab. And who last changed
//! each line of a window: gix's blame of those lines only (renames followed, as git blame does).

use gix::hash::ObjectId;

use super::repo::{LocalRepo, entry_at, read_error};
use crate::source::blob::SourceError;
use crate::source::views::{Blamed, Commit, CommitPage, CommitWindow, FileCommit};

impl LocalRepo {
    /// The page `window` of the commits that changed `file.path`, walking back from
    /// `file.commit_sha`.
    pub(super) fn history(
        &self,
        file: &FileCommit,
        window: CommitWindow,
    ) -> Result<CommitPage, SourceError> {
        let repo = self.thread_local();
        let tip = ObjectId::from_hex(file.commit_sha.as_bytes()).map_err(read_error)?;
        let wanted = window.offset.saturating_add(window.limit).saturating_add(1);
        let walk = repo
            .rev_walk([tip])
            .sorting(gix::revision::walk::Sorting::ByCommitTime(
                Default::default(),
            ))
            .all()
            .map_err(read_error)?;
        let mut changed = Vec::new();
        for info in walk {
            let commit = info.map_err(read_error)?.object().map_err(read_error)?;
            if changes(&repo, &commit, &file.path)? {
                changed.push(describe(&commit)?);
                if changed.len() as u64 >= wanted {
                    break;
                }
            }
        }
        Ok(CommitPage::of(changed, window))
    }

    /// The blame of the lines `first..=last` of `file` at its commit.
    pub(super) fn blame(
        &self,
        file: &FileCommit,
        (first, last): (u64, u64),
    ) -> Result<Blamed, SourceError> {
        let repo = self.thread_local();
        let tip = ObjectId::from_hex(file.commit_sha.as_bytes()).map_err(read_error)?;
        let to_u32 = |n: u64| u32::try_from(n).map_err(read_error);
        let options = gix::repository::blame_file::Options {
            ranges: gix::blame::BlameRanges::from_one_based_inclusive_range(
                to_u32(first)?..=to_u32(last)?,
            )
            .map_err(read_error)?,
            rewrites: Some(Default::default()),
            ..Default::default()
        };
        let outcome = repo
            .blame_file(file.path.as_bytes().into(), tip, options)
            .map_err(read_error)?;
        let mut entries = outcome.entries;
        entries.sort_by_key(|e| e.start_in_blamed_file);
        let mut blamed = Blamed::default();
        for entry in entries {
            let start = u64::from(entry.start_in_blamed_file) + 1;
            let end = start + u64::from(entry.len.get()) - 1;
            let commit = repo.find_commit(entry.commit_id).map_err(read_error)?;
            blamed.push(start, end, describe(&commit)?);
        }
        Ok(blamed.within(first, last))
    }
}

/// Whether `commit` changed `path`: its entry there differs from every parent's (a root
/// commit changed it when it has it).
fn changes(
    repo: &gix::Repository,
    commit: &gix::Commit<'_>,
    path: &str,
) -> Result<bool, SourceError> {
    let mine = entry_at(repo, commit.tree_id().map_err(read_error)?.detach(), path)?;
    let mut parents = commit.parent_ids().peekable();
    if parents.peek().is_none() {
        return Ok(mine.is_some());
    }
    for parent in parents {
        let tree = parent
            .object()
            .map_err(read_error)?
            .into_commit()
            .tree_id()
            .map_err(read_error)?
            .detach();
        if entry_at(repo, tree, path)? == mine {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A commit as the history describes it.
fn describe(commit: &gix::Commit<'_>) -> Result<Commit, SourceError> {
    let message = commit.message().map_err(read_error)?;
    let author = commit.author().map_err(read_error)?;
    let authored_date = author
        .time()
        .map(|t| t.format_or_unix(gix::date::time::format::ISO8601_STRICT))
        .unwrap_or_default();
    Ok(Commit {
        sha: commit.id.to_string(),
        title: message.title.to_string(),
        author_name: author.name.to_string(),
        authored_date,
        parent_sha: commit.parent_ids().next().map(|p| p.to_string()),
        web_url: None,
    })
}
