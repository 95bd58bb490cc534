//! A call's steps over one source, written once for the single read and the batch: the target
//! the arguments name and its view ([`Steps::plan`]), the file fetched ([`Steps::fetch`], or
//! [`Steps::fetch_each`] for many), what the caller read of it before
//! ([`Steps::changed_from`]), and the budget the view may take. Each read then renders its view
//! with [`crate::view::render`]. What runs the steps is a [`Call`]; the reader hands it the
//! steps of the source it reads from, matching on the source's kind in one place.

use std::sync::Arc;

use super::caller::CallerContext;
use super::error::ReadError;
use super::history::{FileKey, History};
use crate::outline::Outlines;
use crate::resolve::args::ToolArgs;
use crate::resolve::{Lookup, ProjectFile, Target};
use crate::source::text::Text;
use crate::source::{BlobKind, Fetched, Source, SourceError, Wanted};
use crate::view::View;

/// A read planned: the target the arguments name, and the view the call asks of it.
pub(crate) type Planned<L> = (Target<L>, View);

/// What a call does once its source is known: a single read, or a batch.
pub(crate) trait Call {
    type Output;

    /// Runs the call with the steps of one source.
    async fn run<S>(self, steps: Steps<'_, S>) -> Self::Output
    where
        S: Source,
        S::Lookup: Labelled + Send + 'static;
}

/// The path and ref a lookup names, when it names one (a URL that splits several ways does not
/// until the source has chosen).
pub(crate) trait Labelled: PartialEq {
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

/// The steps of a call reading from `S`, for one caller.
#[derive(Debug)]
pub(crate) struct Steps<'a, S> {
    pub(super) source: &'a S,
    pub(super) who: CallerContext<'a>,
    /// Outlines kept by blob id, for the outline and symbol views.
    pub(super) outlines: &'a Arc<Outlines>,
    pub(super) history: &'a History,
    /// The character budget of a call without `max_chars` (0 = none).
    pub(super) default_max_chars: u64,
}

impl<S: Source> Steps<'_, S> {
    /// The target `args` name for this source, and its view: a pattern that cannot be searched
    /// with costs no request.
    pub(crate) fn plan(&self, args: &ToolArgs) -> Result<Planned<S::Lookup>, ReadError> {
        let target = self.source.resolve(args).map_err(ReadError::Resolve)?;
        let view = View::of(&target, self.outlines).map_err(ReadError::View)?;
        Ok((target, view))
    }

    /// What a planned read asks the source: its lookup, as much of the file as its view needs,
    /// and the blob the caller holds.
    pub(crate) fn wanted<'p>(
        &self,
        (target, view): &'p Planned<S::Lookup>,
    ) -> Wanted<'p, S::Lookup> {
        Wanted {
            lookup: &target.lookup,
            extent: view.extent(),
            held: target.held.as_deref(),
        }
    }

    /// The file a planned read names, with the caller's credential, and what its view asks of
    /// the same request ([`View::also`]) where the source gives it (kept in the view, which
    /// [`Steps::complete`] then finishes).
    pub(crate) async fn fetch(
        &self,
        planned: &mut Planned<S::Lookup>,
    ) -> Result<Fetched, SourceError> {
        let credential = self.who.credential;
        let also = planned.1.also();
        let w = self.wanted(planned);
        if also.is_nothing() {
            return (self.source)
                .fetch(w.lookup, w.extent, w.held, credential)
                .await;
        }
        let (fetched, extras) = self.source.fetch_with(w, &also, credential).await?;
        planned.1.keep(extras);
        Ok(fetched)
    }

    /// The files of several reads, one answer each, in order ([`Source::fetch_many`]): each
    /// file asked once however many reads name it, and one copy of each blob's text held
    /// however many reads got it (20 windows of one 95 MB file held 20 copies: 1.8 GB).
    pub(crate) async fn fetch_each(
        &self,
        wanted: &[Wanted<'_, S::Lookup>],
    ) -> Vec<Result<Fetched, SourceError>>
    where
        S::Lookup: PartialEq,
    {
        let (distinct, slots) = distinct(wanted);
        let mut fetched = self.source.fetch_many(&distinct, self.who.credential).await;
        share_texts(&mut fetched);
        slots.into_iter().map(|i| fetched[i].clone()).collect()
    }

    /// The blob the caller's previous window of this file came from, when it was another one;
    /// asking records this read (nothing is asked of a caller that cannot be told apart).
    pub(crate) fn changed_from(&self, fetched: &Fetched) -> Option<String> {
        let caller = self.who.caller?;
        let blob = &fetched.blob;
        let id = blob.id.as_deref()?;
        let file = FileKey {
            project: fetched.project.clone().unwrap_or_default(),
            git_ref: blob.git_ref.clone(),
            path: blob.path.clone(),
        };
        self.history.record(caller, file, id)
    }

    /// The character budget of a call that gave `max_chars` (or did not).
    pub(crate) fn budget(&self, max_chars: Option<u64>) -> u64 {
        max_chars.unwrap_or(self.default_max_chars)
    }
}

/// The distinct reads of `wanted` (same lookup, extent and held blob), and the one each read
/// is, by index.
fn distinct<'a, L: PartialEq>(wanted: &[Wanted<'a, L>]) -> (Vec<Wanted<'a, L>>, Vec<usize>) {
    let mut distinct: Vec<Wanted<'a, L>> = Vec::new();
    let slots = wanted
        .iter()
        .map(|w| {
            let same = |d: &Wanted<'a, L>| {
                d.lookup == w.lookup && d.extent == w.extent && d.held == w.held
            };
            distinct.iter().position(same).unwrap_or_else(|| {
                distinct.push(*w);
                distinct.len() - 1
            })
        })
        .collect();
    (distinct, slots)
}

/// Makes every text of one blob the same shared copy (reads of one file with different
/// extents each got their own).
fn share_texts(fetched: &mut [Result<Fetched, SourceError>]) {
    let mut seen: Vec<(String, Arc<Text>)> = Vec::new();
    for f in fetched.iter_mut().flatten() {
        let Some(id) = f.blob.id.clone() else {
            continue;
        };
        let BlobKind::Text { content, .. } = &mut f.blob.kind else {
            continue;
        };
        match seen
            .iter()
            .find(|(i, text)| *i == id && text.len() == content.len())
        {
            Some((_, text)) => *content = Arc::clone(text),
            None => seen.push((id, Arc::clone(content))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::blob::Blob;
    use crate::window::Extent;

    fn wanted<'a>(lookup: &'a u32, held: Option<&'a str>) -> Wanted<'a, u32> {
        Wanted {
            lookup,
            extent: Extent::Whole,
            held,
        }
    }

    #[test]
    fn a_read_named_twice_is_fetched_once() {
        let (a, b) = (1, 2);
        let asked = [
            wanted(&a, None),
            wanted(&b, None),
            wanted(&a, None),
            wanted(&a, Some("x")),
        ];
        let (distinct, slots) = distinct(&asked);
        assert_eq!(distinct.len(), 3);
        assert_eq!(slots, [0, 1, 0, 2]);
    }

    fn text(id: &str, content: &str) -> Result<Fetched, SourceError> {
        Ok(Fetched {
            blob: Blob {
                path: "f".into(),
                git_ref: "main".into(),
                size_bytes: content.len() as u64,
                kind: BlobKind::Text {
                    content: Arc::new(content.into()),
                    cut_by_read_limit: false,
                },
                id: Some(id.into()),
                commit_sha: None,
            },
            project: None,
            split_fallback_from: None,
            web_url: None,
            language: None,
        })
    }

    #[test]
    fn one_blob_read_twice_is_held_once() {
        let mut fetched = [text("b1", "abc"), text("b2", "xyz"), text("b1", "abc")];
        share_texts(&mut fetched);
        let content = |i: usize| match &fetched[i].as_ref().unwrap().blob.kind {
            BlobKind::Text { content, .. } => Arc::clone(content),
            _ => unreachable!(),
        };
        assert!(Arc::ptr_eq(&content(0), &content(2)));
        assert!(!Arc::ptr_eq(&content(0), &content(1)));
    }
}
