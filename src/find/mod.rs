//! `search_repository`: find paths and lines in a whole ref without a clone, over the same
//! sources as the reads ([`Finder`]). A call resolves its scope ([`scope`]), asks the source
//! which commit the ref names (proving the caller may read the project), takes the listing of
//! the directory at that commit from the [`cache`] or the source, drops what the project's Duo
//! exclusion rules exclude, filters by [`glob`], and then either pages the paths ([`paths`]) or
//! searches the files' lines ([`contents`], with [`literal`] for GitLab's search). Hints name
//! the next call ([`next`]); failures are [`FindError`]s.
//!
//! Stands beside `reader` (it reads the reader's source); imports the sources' tree contract,
//! `window::search` and the floors below; only `tool` imports it.

mod args;
mod cache;
mod contents;
mod entries;
mod error;
mod glob;
mod listing;
mod literal;
mod next;
mod paths;
mod scope;

use std::sync::Arc;

use serde_json::{Map, Value};

use args::FindArgs;
pub(crate) use args::NAMES as ARGUMENT_NAMES;
use cache::{DEFAULT_TREE_CACHE_BYTES, TreeCache, TreeKey};
pub(crate) use entries::Depth;
use entries::is_child;
pub(crate) use error::FindError;
use glob::PathFilter;
use listing::{LISTING_WAIT, Listings};
use next::FindCursor;

use crate::config::Credential;
use crate::reader::AnySource;
use crate::reader::caller::CallerContext;
use crate::source::gitlab::pure::is_excluded;
use crate::source::tree::{ItemKind, Items, RefCommit, Scope, TreeItem, TreeSource};
use crate::window::search::Pattern;

/// An answer: the structured output and the same answer in grep form.
#[derive(Debug, Clone)]
pub(crate) struct FindAnswer {
    pub structured: Value,
    pub text: String,
}

/// Runs `search_repository` calls; cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct Finder {
    backend: AnySource,
    trees: Arc<TreeCache>,
    listings: Arc<Listings>,
    default_max_chars: u64,
}

impl Finder {
    /// A finder over `backend`; a call without `max_chars` gets `default_max_chars`.
    pub(crate) fn new(backend: AnySource, default_max_chars: u64) -> Self {
        Self {
            backend,
            trees: Arc::new(TreeCache::new(DEFAULT_TREE_CACHE_BYTES)),
            listings: Arc::new(Listings::default()),
            default_max_chars,
        }
    }

    /// One call.
    pub(crate) async fn find(
        &self,
        arguments: Option<&Map<String, Value>>,
        who: CallerContext<'_>,
    ) -> Result<FindAnswer, FindError> {
        let args = args::parse(arguments).map_err(FindError::Args)?;
        let credential = who.credential;
        match &self.backend {
            AnySource::Gitlab(s) => self.run(s, Some(s.base()), &args, credential).await,
            AnySource::Local(s) => self.run(s, None, &args, credential).await,
        }
    }

    async fn run<S: TreeSource + Clone + Send + Sync + 'static>(
        &self,
        source: &S,
        base: Option<&url::Url>,
        args: &FindArgs,
        credential: Option<&Credential>,
    ) -> Result<FindAnswer, FindError> {
        let scope = scope::of(args, base).map_err(FindError::Scope)?;
        let filter = args.glob.as_deref().map(PathFilter::new).transpose();
        let filter = filter.map_err(FindError::Glob)?;
        let pattern = compiled(args)?;
        let at = source.ref_commit(&scope, credential).await?;
        let next = FindCursor::new(args, &scope, &at);
        let mut out = Map::new();
        out.insert("commit_sha".into(), at.sha.clone().into());
        out.insert("ref".into(), scope.git_ref.clone().into());
        out.insert("path".into(), scope.path.clone().into());
        let Some(items) = self.listing(source, &at, &scope, credential).await? else {
            return Ok(still_listing(out, &next, pattern.is_some()));
        };
        let passing: Vec<&TreeItem> = items
            .iter()
            .filter(|i| visible(i, &at) && filter.as_ref().is_none_or(|f| f.matches(&i.path)))
            .collect();
        let max_chars = args.max_chars.unwrap_or(self.default_max_chars);
        let text = match (&pattern, args.pattern.as_deref()) {
            (Some(pattern), Some(pattern_text)) => {
                let blobs = passing
                    .into_iter()
                    .filter(|i| i.kind == ItemKind::Blob && !i.lfs)
                    .collect();
                let ask = contents::Ask {
                    pattern,
                    pattern_text,
                    ignore_case: args.ignore_case,
                    context_lines: args.context_lines,
                    max_chars,
                    after: args.after.as_deref(),
                    after_line: args.after_line,
                    dir: &scope.path,
                    blob_url: blob_url(base, &at),
                    next: &next,
                };
                contents::run(source, &at, blobs, &ask, credential, &mut out).await?
            }
            _ => paths::page(&passing, args.after.as_deref(), max_chars).answer(&next, &mut out),
        };
        Ok(FindAnswer {
            structured: Value::Object(out),
            text,
        })
    }

    /// The listing of the scope's directory at `at`: cached, or listed and kept. A path that
    /// is a file or names nothing is an error.
    async fn listing<S: TreeSource + Clone + Send + Sync + 'static>(
        &self,
        source: &S,
        at: &RefCommit,
        scope: &Scope,
        credential: Option<&Credential>,
    ) -> Result<Option<Items>, FindError> {
        let key = TreeKey {
            project: at.project_path.clone().unwrap_or_default(),
            commit: at.sha.clone(),
            dir: scope.path.clone(),
        };
        let items = match self.trees.get(&key) {
            Some(items) => items,
            None => {
                let listing = (at, credential);
                let waited = self
                    .listings
                    .wait(&self.trees, source, key, listing, LISTING_WAIT);
                match waited.await? {
                    Some(items) => items,
                    None => return Ok(None),
                }
            }
        };
        let missing = || (scope.path.clone(), scope.git_ref.clone());
        match items.as_slice() {
            [] if !scope.path.is_empty() => {
                let (path, git_ref) = missing();
                Err(FindError::NoSuchDirectory { path, git_ref })
            }
            [one] if *one.path == *scope.path && one.kind == ItemKind::Blob => {
                let (path, git_ref) = missing();
                Err(FindError::IsAFile { path, git_ref })
            }
            _ => Ok(Some(items)),
        }
    }
}

impl Finder {
    /// The visible entries under `scope.path` at `scope.git_ref` for the other faces (the
    /// resource list, path completion): the same ref check with the caller's credential, tree
    /// cache and exclusion rules as a search, none of its paging; sorted by path, `None` while
    /// a large tree is still being listed (a later call finds it cached).
    pub(crate) async fn entries(
        &self,
        scope: &Scope,
        depth: Depth,
        credential: Option<&Credential>,
    ) -> Result<Option<Vec<TreeItem>>, FindError> {
        match &self.backend {
            AnySource::Gitlab(s) => self.entries_in(s, scope, depth, credential).await,
            AnySource::Local(s) => self.entries_in(s, scope, depth, credential).await,
        }
    }

    async fn entries_in<S: TreeSource + Clone + Send + Sync + 'static>(
        &self,
        source: &S,
        scope: &Scope,
        depth: Depth,
        credential: Option<&Credential>,
    ) -> Result<Option<Vec<TreeItem>>, FindError> {
        let at = source.ref_commit(scope, credential).await?;
        let Some(items) = self.listing(source, &at, scope, credential).await? else {
            return Ok(None);
        };
        let dir = scope.path.as_str();
        let kept = items
            .iter()
            .filter(|i| visible(i, &at) && *i.path != *dir)
            .filter(|i| depth == Depth::All || is_child(dir, &i.path))
            .cloned()
            .collect();
        Ok(Some(kept))
    }
}

/// The answer while the tree is still being listed: nothing yet, and the same call again.
fn still_listing(mut out: Map<String, Value>, next: &FindCursor, contents: bool) -> FindAnswer {
    let list = if contents { "files" } else { "entries" };
    out.insert(list.into(), Value::Array(Vec::new()));
    out.insert("truncated".into(), true.into());
    let hint = format!(
        "This commit's tree is still being listed (a large tree: GitLab gives 100 paths a request, and the listing goes on without you). Call search_repository again with {} in a few seconds.",
        next.call(None, None)
    );
    out.insert("system_instruction".into(), hint.clone().into());
    FindAnswer {
        structured: Value::Object(out),
        text: hint + "\n",
    }
}

/// The call's pattern, compiled before anything is asked.
fn compiled(args: &FindArgs) -> Result<Option<Pattern>, FindError> {
    let Some(text) = args.pattern.as_deref() else {
        return Ok(None);
    };
    if text.is_empty() {
        return Err(FindError::EmptyPattern);
    }
    Pattern::new(text, args.ignore_case.unwrap_or(false))
        .map(Some)
        .map_err(FindError::Pattern)
}

/// Whether the project's exclusion rules let `item` be named: a file that is not excluded, a
/// directory that is not and whose files are not all excluded by a wildcard.
fn visible(item: &TreeItem, at: &RefCommit) -> bool {
    let Some(rules) = at.rules.as_deref() else {
        return true;
    };
    match item.kind {
        ItemKind::Blob => !is_excluded(rules, &item.path),
        ItemKind::Tree => {
            !is_excluded(rules, &item.path) && !is_excluded(rules, &format!("{}/~", item.path))
        }
    }
}

/// `<instance>/<project>/-/blob/<sha>/` for permalinks, on GitLab.
fn blob_url(base: Option<&url::Url>, at: &RefCommit) -> Option<String> {
    let project = at.project_path.as_deref()?;
    let base = base?.as_str().trim_end_matches('/');
    Some(format!("{base}/{project}/-/blob/{}/", at.sha))
}
