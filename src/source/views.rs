//! What the history views ask a source beyond a blob, and what it answers: a file at a
//! resolved commit ([`FileCommit`]), the commits that changed it ([`CommitPage`]), who last
//! changed its lines ([`Blamed`]). A view first
//! fetches the file as any read does (so a missing ref, path or project is the read's own
//! error), then asks its source this with the commit the read resolved.

/// A file a read found: the project (GitLab's full path; `None` for the local repository),
/// its path, and the commit its ref resolved to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileCommit {
    pub project: Option<String>,
    pub path: String,
    pub commit_sha: String,
}

/// A commit as the history views describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Commit {
    pub sha: String,
    /// The first line of the message (GitLab's `title`).
    pub title: String,
    pub author_name: String,
    /// ISO 8601 with the author's offset (`2024-05-01T12:00:00+02:00`).
    pub authored_date: String,
    /// The first parent, `None` for a root commit.
    pub parent_sha: Option<String>,
    /// The commit's page on GitLab.
    pub web_url: Option<String>,
}

/// Which commits of a history to list: `limit` after skipping the newest `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CommitWindow {
    pub offset: u64,
    pub limit: u64,
}

/// A page of the commits that changed a file, newest first; `more`: older ones follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CommitPage {
    pub commits: Vec<Commit>,
    pub more: bool,
}

impl CommitPage {
    /// The page `window` of `all` (newest first, at least `offset + limit + 1` of them when
    /// there are more).
    pub(crate) fn of(mut all: Vec<Commit>, window: CommitWindow) -> CommitPage {
        let skip = usize::try_from(window.offset).unwrap_or(usize::MAX);
        let take = usize::try_from(window.limit).unwrap_or(usize::MAX);
        let more = all.len() > skip.saturating_add(take);
        all.truncate(skip.saturating_add(take));
        let commits = all.into_iter().skip(skip).collect();
        CommitPage { commits, more }
    }
}

/// The other side of a diff: the ref asked, and the file there (`None`: no such file there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DiffBase {
    pub git_ref: String,
    pub file: Option<super::blob::Fetched>,
}

/// What a view may ask of its read's own request besides the file: the blame of some lines
/// (1-indexed, inclusive; an end past the file is cut to it), the file at another ref.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Also {
    pub blame: Option<(u64, u64)>,
    pub base_ref: Option<String>,
}

impl Also {
    /// Whether it asks nothing.
    pub(crate) fn is_nothing(&self) -> bool {
        self.blame.is_none() && self.base_ref.is_none()
    }
}

/// What a source brought of an [`Also`] with the file; each `None` when it did not (the view
/// then asks its source alone). `base: Some(None)`: the other ref has no such file.
#[derive(Debug, Default)]
pub(crate) struct Alongside {
    pub blamed: Option<Blamed>,
    pub base: Option<Option<super::blob::Fetched>>,
}

/// A run of lines last changed by one commit: `start_line..=end_line`, 1-indexed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BlameRange {
    pub start_line: u64,
    pub end_line: u64,
    pub commit_sha: String,
}

/// The blame of some lines: their runs in order, and each commit they name, once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Blamed {
    pub ranges: Vec<BlameRange>,
    pub commits: Vec<Commit>,
}

impl Blamed {
    /// The blame GitLab's groups `(lineno, span, commit)` make, in any order (one request's
    /// fields each cut their runs at their ends; a group of no lines is left out).
    pub(crate) fn of_groups(mut groups: Vec<(u64, u64, Commit)>) -> Blamed {
        groups.sort_by_key(|g| g.0);
        let mut blamed = Blamed::default();
        for (lineno, span, commit) in groups.into_iter().filter(|g| g.1 > 0) {
            blamed.push(lineno, lineno + span - 1, commit);
        }
        blamed
    }

    /// Whether its runs cover every line of `first..=last`.
    pub(crate) fn covers(&self, first: u64, last: u64) -> bool {
        let mut next = first;
        for r in &self.ranges {
            if r.start_line <= next && r.end_line >= next {
                next = r.end_line + 1;
            }
        }
        next > last
    }

    /// Adds the runs of `later`, which follow this blame's lines.
    pub(crate) fn extend(&mut self, later: Blamed) {
        for r in later.ranges {
            if let Some(c) = later.commits.iter().find(|c| c.sha == r.commit_sha) {
                self.push(r.start_line, r.end_line, c.clone());
            }
        }
    }

    /// Adds the run `start_line..=end_line` of `commit`, merged into the last run when it
    /// continues it (GitLab's fields of 100 lines cut runs), the commit described once.
    pub(crate) fn push(&mut self, start_line: u64, end_line: u64, commit: Commit) {
        match self.ranges.last_mut() {
            Some(last) if last.commit_sha == commit.sha && last.end_line + 1 == start_line => {
                last.end_line = end_line;
            }
            _ => self.ranges.push(BlameRange {
                start_line,
                end_line,
                commit_sha: commit.sha.clone(),
            }),
        }
        if !self.commits.iter().any(|c| c.sha == commit.sha) {
            self.commits.push(commit);
        }
    }

    /// The runs within `first..=last`, cut to them, and the commits they name.
    pub(crate) fn within(&self, first: u64, last: u64) -> Blamed {
        let ranges: Vec<BlameRange> = self
            .ranges
            .iter()
            .filter(|r| r.end_line >= first && r.start_line <= last)
            .map(|r| BlameRange {
                start_line: r.start_line.max(first),
                end_line: r.end_line.min(last),
                commit_sha: r.commit_sha.clone(),
            })
            .collect();
        let commits = self
            .commits
            .iter()
            .filter(|c| ranges.iter().any(|r| r.commit_sha == c.sha))
            .cloned()
            .collect();
        Blamed { ranges, commits }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(n: u32) -> Commit {
        Commit {
            sha: format!("{n:040}"),
            title: format!("c{n}"),
            author_name: "A".into(),
            authored_date: "2024-01-01T00:00:00Z".into(),
            parent_sha: None,
            web_url: None,
        }
    }

    #[test]
    fn pages_skip_take_and_say_whether_more_follow() {
        let all: Vec<Commit> = (0..5).map(commit).collect();
        let page = CommitPage::of(
            all.clone(),
            CommitWindow {
                offset: 1,
                limit: 2,
            },
        );
        assert_eq!(page.commits, all[1..3].to_vec());
        assert!(page.more);
        let last = CommitPage::of(
            all.clone(),
            CommitWindow {
                offset: 3,
                limit: 2,
            },
        );
        assert_eq!(last.commits, all[3..5].to_vec());
        assert!(!last.more);
        let past = CommitPage::of(
            all,
            CommitWindow {
                offset: 9,
                limit: 2,
            },
        );
        assert!(past.commits.is_empty() && !past.more);
    }
    #[test]
    fn blame_runs_merge_across_fields_and_cut_to_a_window() {
        let mut b = Blamed::default();
        b.push(1, 100, commit(1));
        b.push(101, 120, commit(1));
        b.push(121, 130, commit(2));
        b.push(131, 140, commit(1));
        assert_eq!(b.ranges.len(), 3);
        assert_eq!((b.ranges[0].start_line, b.ranges[0].end_line), (1, 120));
        assert_eq!(b.commits.len(), 2);
        let cut = b.within(110, 125);
        assert_eq!(cut.ranges.len(), 2);
        assert_eq!(
            (cut.ranges[0].start_line, cut.ranges[0].end_line),
            (110, 120)
        );
        assert_eq!(
            (cut.ranges[1].start_line, cut.ranges[1].end_line),
            (121, 125)
        );
        assert_eq!(cut.commits.len(), 2);
        assert_eq!(b.within(131, 131).commits, vec![commit(1)]);
    }

    #[test]
    fn groups_in_any_order_make_runs_and_say_what_they_cover() {
        let b = Blamed::of_groups(vec![
            (11, 5, commit(2)),
            (1, 10, commit(1)),
            (16, 0, commit(3)),
        ]);
        assert_eq!(b.ranges.len(), 2);
        assert_eq!(b.commits, vec![commit(1), commit(2)]);
        assert!(b.covers(1, 15));
        assert!(b.covers(5, 12));
        assert!(!b.covers(1, 16), "line 16 is in no run");
        assert!(!b.covers(0, 3), "line 0 is in no run");
        assert!(!Blamed::default().covers(1, 1));
        let mut gap = Blamed::of_groups(vec![(1, 2, commit(1)), (4, 1, commit(1))]);
        assert!(!gap.covers(1, 4), "line 3 is missing");
        gap.extend(Blamed::of_groups(vec![
            (5, 3, commit(1)),
            (8, 1, commit(4)),
        ]));
        assert_eq!(
            gap.ranges
                .iter()
                .map(|r| (r.start_line, r.end_line))
                .collect::<Vec<_>>(),
            vec![(1, 2), (4, 7), (8, 8)]
        );
        assert_eq!(gap.commits, vec![commit(1), commit(4)]);
    }
}
