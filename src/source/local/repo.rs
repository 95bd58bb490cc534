//! The local repository through gix ([`LocalRepo`]): open it, resolve a ref to a commit, walk
//! its tree one path component at a time, load the blob.
//!
//! The ref and the path are resolved separately, never as one `"<rev>:<path>"` rev-spec: the ref
//! must pass [`check_rev`] (a git ref name, optionally followed by `~N` / `^N` ancestry steps),
//! which rules out every rev-spec operator that could reach outside "a commit" (`:`, `@{`, `^{`,
//! `..`, …), and the path is looked up entry by entry in the commit's tree, where `..`, `.` and
//! empty components simply do not exist.

use std::path::Path;

use gix::hash::ObjectId;
use gix::object::Kind;
use gix::object::tree::EntryKind;

use super::error::{LocalError, LocalRefError};
use crate::base::cause::Shared;
use crate::resolve::ref_name::{check_ref_name, check_rev, qualify_ref};
use crate::source::blob::{Blob, SourceError, file_not_found};
use crate::source::classify::classify;
use crate::source::listing::DirEntries;
use crate::source::suggest::{self, Listing, ListingEntry};

/// Tag objects followed before giving up (a tag of a tag of … a commit).
const MAX_TAG_DEPTH: usize = 32;

/// A local git repository to read files from. `Send + Sync`; clone it or share it behind an
/// `Arc` (cloning shares the underlying object and ref stores).
#[derive(Clone)]
pub(crate) struct LocalRepo {
    pub(super) repo: gix::ThreadSafeRepository,
}

impl std::fmt::Debug for LocalRepo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalRepo")
            .field("git_dir", &self.repo.git_dir())
            .finish()
    }
}

impl LocalRepo {
    /// Open the repository at `path`: a work tree (or any directory inside one, found by
    /// searching upward like `git` does) or a bare repository.
    ///
    /// Only the repository itself is read: its own config, refs and objects. The environment
    /// (`GIT_DIR`, `GIT_NAMESPACE`, `GIT_CONFIG_*`, …) and the system, global and XDG git config
    /// are ignored, so what a ref names does not depend on who runs the server or from where
    /// (a `GIT_NAMESPACE` or a `gitoxide.core.refsNamespace` in `~/.gitconfig` would otherwise
    /// hide every branch and tag).
    ///
    /// Error: a [`LocalError`] naming the path.
    pub(crate) fn open(path: &Path) -> Result<Self, LocalError> {
        if !path.exists() {
            return Err(LocalError::Missing {
                path: path.to_path_buf(),
            });
        }
        let isolated = gix::open::Options::isolated();
        let trust_map = gix::sec::trust::Mapping {
            full: isolated.clone(),
            reduced: isolated,
        };
        gix::ThreadSafeRepository::discover_opts(path, Default::default(), trust_map)
            .map(|repo| Self { repo })
            .map_err(|err| open_error(path, err))
    }

    /// The repository, for this thread.
    pub(super) fn thread_local(&self) -> gix::Repository {
        self.repo.to_thread_local()
    }

    /// True when `name` is an existing branch (`refs/heads/<name>`) or tag (`refs/tags/<name>`),
    /// exactly: no other ref namespace, no SHA, no `HEAD`, no revision syntax. Used to split URL
    /// `"ref/path"` strings the way GitLab does. Any lookup failure counts as "no".
    pub(crate) fn is_branch_or_tag(&self, name: &str) -> bool {
        if check_ref_name(name).is_err() {
            return false;
        }
        let repo = self.repo.to_thread_local();
        ["refs/heads/", "refs/tags/"]
            .iter()
            .any(|namespace| ref_exists(&repo, &format!("{namespace}{name}")))
    }

    /// Read `path` at `rev`.
    ///
    /// `rev` is a branch, a tag, a full or abbreviated commit SHA, `HEAD`, or a fully qualified
    /// ref (`refs/heads/x`, `refs/tags/x`), optionally followed by ancestry steps `~N` / `^N`
    /// (`HEAD~1`, `main^2`), as Gitaly accepts for GitLab's `blobs(ref:)`. Names resolve in
    /// git's order (so a tag wins over a branch of the same name). Anything else — `rev:path`,
    /// ranges, `@{…}`, `^{…}` — is [`SourceError::InvalidRef`]. A tag is peeled to its commit; a
    /// rev naming a tree or a blob is [`SourceError::InvalidRef`] saying so.
    ///
    /// The result: the blob's bytes, byte-for-byte (no CRLF or other filter is applied); its
    /// `git_ref` is `rev` as given and its `path` is `path` as given. Never cut
    /// (`cut_by_read_limit` is always false): the whole blob is loaded.
    ///
    /// Special tree entries:
    /// - a symlink reads as its target text (what GitLab returns as the blob content; the
    ///   link is not followed);
    /// - a submodule (a commit entry) is [`SourceError::FileNotFound`]: its files live in
    ///   another repository;
    /// - a tree is [`SourceError::IsDirectory`].
    ///
    /// Errors, in the order they are checked: [`SourceError::InvalidRef`] (bad ref syntax,
    /// ambiguous short SHA, not a commit), [`SourceError::RefNotFound`],
    /// [`SourceError::FileNotFound`] (also for an empty path or `.`, `..` or empty components),
    /// [`SourceError::IsDirectory`], [`SourceError::Failed`] (the repository could not be read).
    ///
    /// A missing file's error names the paths most like it ("Did you mean") when `on_miss` is
    /// [`OnMiss::Suggest`]; a URL's other candidate splits do without.
    fn read(&self, rev: &str, path: &str, on_miss: OnMiss) -> Result<Blob, SourceError> {
        check_rev(rev).map_err(|reason| invalid_ref(rev, LocalRefError::Syntax(reason)))?;
        let repo = self.repo.to_thread_local();
        let (commit_id, tree_id) = resolve_commit_tree(&repo, rev)?;
        let not_found = || SourceError::FileNotFound {
            path: path.to_owned(),
            git_ref: rev.to_owned(),
        };
        let components = path_components(path).ok_or_else(not_found)?;
        let blob_id = match find_path(&repo, tree_id, &components).map_err(read_error)? {
            TreeEntry::Blob(id) => id,
            TreeEntry::Submodule => return Err(not_found()),
            TreeEntry::Missing => {
                let near = match on_miss {
                    OnMiss::Suggest => {
                        suggest::rank(path, &listings(&repo, tree_id, path), |_| true)
                    }
                    OnMiss::NoSuggestions => Vec::new(),
                };
                return Err(file_not_found(path, rev, near));
            }
            TreeEntry::Tree(id) => {
                // Naming its entries is never worth failing the answer.
                let entries = list(&repo, id, path).map(|l| l.entries).unwrap_or_default();
                return Err(SourceError::IsDirectory {
                    path: path.to_owned(),
                    git_ref: rev.to_owned(),
                    entries: DirEntries::of(&entries, false, |_| true),
                });
            }
        };
        let data = repo.find_blob(blob_id).map_err(read_error)?.take_data();
        let (size_bytes, kind) = classify(data);
        Ok(Blob {
            path: path.to_owned(),
            git_ref: rev.to_owned(),
            size_bytes,
            kind,
            id: Some(blob_id.to_string()),
            commit_sha: Some(commit_id.to_string()),
        })
    }
}

/// The blob at `path` in the tree `root` (`None`: no file there).
pub(super) fn entry_at(
    repo: &gix::Repository,
    root: ObjectId,
    path: &str,
) -> Result<Option<ObjectId>, SourceError> {
    let Some(components) = path_components(path) else {
        return Ok(None);
    };
    Ok(
        match find_path(repo, root, &components).map_err(read_error)? {
            TreeEntry::Blob(id) => Some(id),
            TreeEntry::Tree(_) | TreeEntry::Submodule | TreeEntry::Missing => None,
        },
    )
}

/// What a read says of a file that is not there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OnMiss {
    /// The paths most like it ("Did you mean"), from the directories near it.
    Suggest,
    /// Only that it does not exist.
    NoSuggestions,
}

impl LocalRepo {
    /// [`LocalRepo::read`] at `git_ref` qualified by `ref_type`, naming `git_ref` as given.
    pub(super) fn read_as(
        &self,
        git_ref: &str,
        ref_type: Option<crate::resolve::ref_name::RefType>,
        path: &str,
        on_miss: OnMiss,
    ) -> Result<Blob, SourceError> {
        let mut blob = self
            .read(&qualify_ref(git_ref, ref_type), path, on_miss)
            .map_err(|e| e.naming_ref(git_ref))?;
        blob.git_ref = git_ref.to_string();
        Ok(blob)
    }
}

impl LocalRepo {
    /// The bytes of `blob` (read before, so its id is known), at most `max_bytes`.
    pub(super) fn bytes(&self, blob: &Blob, max_bytes: u64) -> Result<Vec<u8>, SourceError> {
        let too_large = |size_bytes| SourceError::FileTooLarge {
            path: blob.path.clone(),
            size_bytes,
            limit: max_bytes,
        };
        if blob.size_bytes > max_bytes {
            return Err(too_large(blob.size_bytes));
        }
        let Some(oid) = blob.id.as_deref() else {
            return Err(SourceError::failed(LocalError::NoBlobId {
                path: blob.path.clone(),
            }));
        };
        let id = ObjectId::from_hex(oid.as_bytes()).map_err(read_error)?;
        let repo = self.thread_local();
        let data = repo.find_blob(id).map_err(read_error)?.take_data();
        if data.len() as u64 > max_bytes {
            return Err(too_large(data.len() as u64));
        }
        Ok(data)
    }
}

// ---------------------------------------------------------------------------------------------
// gix I/O
// ---------------------------------------------------------------------------------------------

/// The sentence for a repository that could not be opened: none found, or one found that
/// cannot be read (a broken config, an object format this build does not support, …).
fn open_error(path: &Path, err: gix::Error) -> LocalError {
    match gix::discover::upwards(path) {
        Ok((found, _trust)) => LocalError::CannotOpen {
            found: found.as_ref().to_path_buf(),
            cause: Shared::new(err),
        },
        Err(_) => LocalError::NoRepository {
            path: path.to_path_buf(),
            cause: Shared::new(err),
        },
    }
}

/// True when the exact full ref name `full_name` exists (loose or packed).
fn ref_exists(repo: &gix::Repository, full_name: &str) -> bool {
    // `try_find_reference` also tries other namespaces for a partial name; compare the name
    // it found so only `full_name` itself counts.
    match repo.try_find_reference(full_name) {
        Ok(Some(reference)) => reference.name().as_bstr() == full_name,
        Ok(None) | Err(_) => false,
    }
}

/// Resolve a checked `rev` to a commit and return the commit and its root tree.
pub(super) fn resolve_commit_tree(
    repo: &gix::Repository,
    rev: &str,
) -> Result<(ObjectId, ObjectId), SourceError> {
    let id = repo
        .rev_parse_single(rev)
        .map_err(|err| rev_parse_error(rev, err))?
        .detach();
    let commit_id = peel_to_commit(repo, rev, id)?;
    let commit = repo
        .find_commit(commit_id)
        .map_err(|err| lookup_error(rev, err))?;
    let tree_id = commit.tree_id().map_err(read_error)?;
    Ok((commit_id, tree_id.detach()))
}

/// Follow tag objects from `id` to a commit. Trees and blobs are refused: a file is read at a
/// commit.
fn peel_to_commit(
    repo: &gix::Repository,
    rev: &str,
    mut id: ObjectId,
) -> Result<ObjectId, SourceError> {
    for _ in 0..MAX_TAG_DEPTH {
        let object = repo.find_object(id).map_err(|err| lookup_error(rev, err))?;
        match object.kind {
            Kind::Commit => return Ok(id),
            Kind::Tag => {
                id = object
                    .try_into_tag()
                    .and_then(|tag| tag.target_id())
                    .map_err(read_error)?
                    .detach();
            }
            kind @ (Kind::Tree | Kind::Blob) => {
                let kind = if kind == Kind::Tree { "tree" } else { "blob" };
                return Err(invalid_ref(rev, LocalRefError::NotACommit { kind }));
            }
        }
    }
    Err(invalid_ref(
        rev,
        LocalRefError::TagChain { max: MAX_TAG_DEPTH },
    ))
}

/// What a path names in a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TreeEntry {
    /// A file or a symlink (whose blob is the link target).
    Blob(ObjectId),
    /// A directory, and its tree.
    Tree(ObjectId),
    /// A gitlink (a commit of another repository), or a path inside one.
    Submodule,
    /// Nothing at that path (or a component before the last is not a directory).
    Missing,
}

/// Look `components` up in the tree `root`, one entry at a time. An empty list is `Missing`.
pub(super) fn find_path(
    repo: &gix::Repository,
    root: ObjectId,
    components: &[&str],
) -> gix::Result<TreeEntry> {
    let Some((last, parents)) = components.split_last() else {
        return Ok(TreeEntry::Missing);
    };
    let tree_id = match walk_dirs(repo, root, parents)? {
        Walk::Tree(id) => id,
        Walk::Submodule => return Ok(TreeEntry::Submodule),
        Walk::Missing => return Ok(TreeEntry::Missing),
    };
    let tree = repo.find_tree(tree_id)?;
    let Some(entry) = tree.find_entry(*last) else {
        return Ok(TreeEntry::Missing);
    };
    Ok(match entry.kind() {
        EntryKind::Tree => TreeEntry::Tree(entry.object_id()),
        EntryKind::Commit => TreeEntry::Submodule,
        EntryKind::Blob | EntryKind::BlobExecutable | EntryKind::Link => {
            TreeEntry::Blob(entry.object_id())
        }
    })
}

/// The existing directories of [`suggest::ancestors_to_list`] for a missing `path` in the tree
/// `root`, nearest first, with all their entries ("Did you mean"). A directory that cannot be
/// read is left out: a suggestion is never worth failing the answer.
fn listings(repo: &gix::Repository, root: ObjectId, path: &str) -> Vec<Listing> {
    suggest::ancestors_to_list(path)
        .into_iter()
        .filter_map(|dir| {
            let tree_id = match path_components(dir) {
                None if dir.is_empty() => root,
                None => return None,
                Some(components) => match walk_dirs(repo, root, &components).ok()? {
                    Walk::Tree(id) => id,
                    Walk::Submodule | Walk::Missing => return None,
                },
            };
            list(repo, tree_id, dir).ok()
        })
        .collect()
}

/// Where a walk down directories from a tree ends.
enum Walk {
    /// Every component was a directory: the last one's tree.
    Tree(ObjectId),
    /// A component is a submodule (its files live in another repository).
    Submodule,
    /// A component is missing, or a file.
    Missing,
}

/// Walks `components` down from the tree `root` (no component: `root` itself).
fn walk_dirs(repo: &gix::Repository, root: ObjectId, components: &[&str]) -> gix::Result<Walk> {
    let mut tree_id = root;
    for name in components {
        match repo.find_tree(tree_id)?.find_entry(*name) {
            Some(entry) if entry.kind() == EntryKind::Tree => tree_id = entry.object_id(),
            Some(entry) if entry.kind() == EntryKind::Commit => return Ok(Walk::Submodule),
            Some(_) | None => return Ok(Walk::Missing),
        }
    }
    Ok(Walk::Tree(tree_id))
}

/// The entries of the tree `id` (the directory `dir`): subdirectories and files (symlinks read
/// as files); submodules and names that are not UTF-8 are left out.
fn list(repo: &gix::Repository, id: ObjectId, dir: &str) -> gix::Result<Listing> {
    let tree = repo.find_tree(id)?;
    let mut entries = Vec::new();
    for entry in tree.iter() {
        let entry = entry?;
        let kind = match entry.kind() {
            EntryKind::Tree => suggest::EntryKind::Directory,
            EntryKind::Blob | EntryKind::BlobExecutable | EntryKind::Link => {
                suggest::EntryKind::File
            }
            EntryKind::Commit => continue,
        };
        if let Ok(name) = std::str::from_utf8(entry.filename()) {
            entries.push(ListingEntry {
                name: name.to_string(),
                kind,
            });
        }
    }
    Ok(Listing {
        dir: dir.to_string(),
        entries,
    })
}

/// Map a rev-parse failure: ambiguous short SHAs are invalid, everything that was simply not
/// there is "not found", anything else is a repository problem.
fn rev_parse_error(rev: &str, err: gix::Error) -> SourceError {
    use gix::revision::spec::parse::Error as ParseError;
    match err.downcast_any_ref::<ParseError>() {
        Some(ParseError::AmbiguousPrefix { .. } | ParseError::AmbiguousRefAndObject { .. }) => {
            invalid_ref(rev, LocalRefError::Ambiguous)
        }
        Some(ParseError::MissingReference { .. }) => not_found_ref(rev),
        _ if err.is_not_found() => not_found_ref(rev),
        // Syntax gix refuses although `check_rev` allowed it (e.g. a `~N` count that does not
        // fit, or an ancestor past the root commit): no such revision.
        _ if err.is_validation() => not_found_ref(rev),
        _ => read_error(err),
    }
}

/// Map an object lookup failure while resolving `rev`.
fn lookup_error(rev: &str, err: gix::Error) -> SourceError {
    if err.is_not_found() {
        not_found_ref(rev)
    } else {
        read_error(err)
    }
}

fn not_found_ref(rev: &str) -> SourceError {
    SourceError::RefNotFound {
        git_ref: rev.to_owned(),
    }
}

pub(super) fn invalid_ref(rev: &str, reason: LocalRefError) -> SourceError {
    SourceError::InvalidRef {
        git_ref: Some(rev.to_owned()),
        reason: Shared::any(reason),
    }
}

pub(super) fn read_error(err: impl std::error::Error + Send + Sync + 'static) -> SourceError {
    SourceError::failed(LocalError::Read {
        cause: Shared::any(err),
    })
}

/// Split a repository path into its components, or `None` when it is empty or has an empty,
/// `.` or `..` component (such paths name nothing inside a tree).
pub(crate) fn path_components(path: &str) -> Option<Vec<&str>> {
    let components: Vec<&str> = path.split('/').collect();
    let all_plain = components
        .iter()
        .all(|c| !c.is_empty() && *c != "." && *c != "..");
    all_plain.then_some(components)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::blob::BlobKind;
    use crate::source::classify::tests::text;
    use crate::source::git_fixture::{self as fx, Fixture};

    #[test]
    fn path_components_refuse_empty_dot_and_dotdot() {
        assert_eq!(path_components("a/b.txt"), Some(vec!["a", "b.txt"]));
        assert_eq!(path_components("README.md"), Some(vec!["README.md"]));
        for bad in [
            "", "/", "/a", "a/", "a//b", ".", "./a", "a/./b", "..", "../a", "a/../b",
        ] {
            assert_eq!(path_components(bad), None, "{bad:?}");
        }
    }

    // ---- against a real repository ----

    fn fixture() -> (Fixture, LocalRepo) {
        let fixture = fx::build();
        let repo = LocalRepo::open(fixture.path()).expect("open fixture");
        (fixture, repo)
    }

    fn read_text(repo: &LocalRepo, rev: &str, path: &str) -> String {
        match repo.read(rev, path, OnMiss::Suggest) {
            Ok(Blob {
                kind:
                    BlobKind::Text {
                        content,
                        cut_by_read_limit: false,
                    },
                ..
            }) => content.to_string(),
            other => panic!("{rev} {path}: expected text, got {other:?}"),
        }
    }

    #[test]
    fn local_repo_is_send_sync() {
        fn assert_send_sync<T: Send + Sync + Clone + std::fmt::Debug>() {}
        assert_send_sync::<LocalRepo>();
    }

    #[test]
    fn reads_text_at_every_kind_of_ref() {
        let (fix, repo) = fixture();
        let blob = repo
            .read("HEAD", "README.md", OnMiss::Suggest)
            .expect("read");
        assert_eq!(
            blob,
            Blob {
                path: "README.md".to_owned(),
                git_ref: "HEAD".to_owned(),
                size_bytes: fx::README_MAIN.len() as u64,
                kind: text(fx::README_MAIN),
                id: Some(fix.readme_blob_sha.clone()),
                commit_sha: Some(fix.main_sha.clone()),
            }
        );
        assert_eq!(read_text(&repo, "main", "README.md"), fx::README_MAIN);
        assert_eq!(
            read_text(&repo, "refs/heads/main", "README.md"),
            fx::README_MAIN
        );
        assert_eq!(read_text(&repo, "main", "src/lib.rs"), fx::LIB_MAIN);
        assert_eq!(
            read_text(&repo, "release/2026/q4", "src/lib.rs"),
            fx::LIB_RELEASE
        );
        assert_eq!(
            read_text(&repo, "release/2026/q4", "notes.md"),
            fx::NOTES_RELEASE
        );
        assert_eq!(read_text(&repo, "v1.0", "README.md"), fx::README_V1);
        assert_eq!(
            read_text(&repo, "refs/tags/v1.0", "README.md"),
            fx::README_V1
        );
        assert_eq!(
            read_text(&repo, &fix.main_sha, "README.md"),
            fx::README_MAIN
        );
        assert_eq!(read_text(&repo, &fix.v1_sha, "README.md"), fx::README_V1);
        assert_eq!(
            read_text(&repo, &fix.main_sha[..8], "README.md"),
            fx::README_MAIN
        );
        assert_eq!(
            read_text(&repo, &fix.v1_sha[..7], "README.md"),
            fx::README_V1
        );
        assert_eq!(
            read_text(&repo, &fix.v1_tag_object_sha, "README.md"),
            fx::README_V1
        );
    }

    #[test]
    fn ancestry_steps_are_allowed() {
        let (_fix, repo) = fixture();
        assert_eq!(read_text(&repo, "HEAD~1", "README.md"), fx::README_V1);
        assert_eq!(read_text(&repo, "main^", "README.md"), fx::README_V1);
        assert_eq!(
            read_text(&repo, "release/2026/q4~2", "README.md"),
            fx::README_V1
        );
        assert_eq!(read_text(&repo, "v1.0~0", "README.md"), fx::README_V1);
        // Past the root commit: no such revision.
        assert_eq!(
            repo.read("HEAD~5", "README.md", OnMiss::Suggest),
            Err(not_found_ref("HEAD~5"))
        );
        let huge = "HEAD~99999999999999999999999";
        assert_eq!(
            repo.read(huge, "README.md", OnMiss::Suggest),
            Err(not_found_ref(huge))
        );
        assert_eq!(
            repo.read("main^3", "README.md", OnMiss::Suggest),
            Err(not_found_ref("main^3"))
        );
    }

    #[test]
    fn reads_bytes_exactly() {
        let (_fx, repo) = fixture();
        assert_eq!(read_text(&repo, "main", "crlf.txt"), fx::CRLF);
        assert_eq!(read_text(&repo, "main", "no-newline.txt"), fx::NO_NEWLINE);
        assert_eq!(read_text(&repo, "main", "utf8.txt"), fx::UTF8);
        assert_eq!(read_text(&repo, "main", "big.txt"), fx::big_txt());
        assert_eq!(read_text(&repo, "main", "docs/guide.md"), fx::DOCS_GUIDE);
        let empty = repo
            .read("main", "empty.txt", OnMiss::Suggest)
            .expect("read");
        assert_eq!((empty.size_bytes, empty.kind), (0, text("")));
        let crlf = repo
            .read("main", "crlf.txt", OnMiss::Suggest)
            .expect("read");
        assert_eq!(crlf.size_bytes, fx::CRLF.len() as u64);
    }

    #[test]
    fn binary_latin1_and_lfs() {
        let (fix, repo) = fixture();
        let png = repo
            .read("main", "files/images/logo.png", OnMiss::Suggest)
            .expect("read");
        assert_eq!(
            (png.size_bytes, png.kind),
            (fx::LOGO_PNG.len() as u64, BlobKind::Binary)
        );
        let latin1 = repo
            .read("main", "latin1.txt", OnMiss::Suggest)
            .expect("read");
        assert_eq!(
            (latin1.size_bytes, latin1.kind),
            (fx::LATIN1.len() as u64, BlobKind::Binary)
        );
        let lfs = repo
            .read("main", "files/lfs/lfs_object.iso", OnMiss::Suggest)
            .expect("read");
        assert_eq!(
            lfs,
            Blob {
                path: "files/lfs/lfs_object.iso".to_owned(),
                git_ref: "main".to_owned(),
                size_bytes: fx::LFS_SIZE,
                kind: BlobKind::Lfs {
                    storage: "lfs".to_owned()
                },
                id: lfs.id.clone(),
                commit_sha: Some(fix.main_sha.clone()),
            }
        );
        assert!(lfs.id.as_ref().is_some_and(|id| id.len() == 40));
        let debug = format!("{lfs:?}");
        assert!(
            !debug.contains("sha256") && !debug.contains("git-lfs"),
            "{debug}"
        );
    }

    #[test]
    fn missing_refs_files_and_directories() {
        let (fix, repo) = fixture();
        let file_not_found = |path: &str, git_ref: &str| SourceError::FileNotFound {
            path: path.to_owned(),
            git_ref: git_ref.to_owned(),
        };
        for rev in [
            "nope",
            "release",
            "release/2026",
            "refs/heads/v1.0",
            "deadbeef",
            "0000000",
        ] {
            assert_eq!(
                repo.read(rev, "README.md", OnMiss::Suggest),
                Err(not_found_ref(rev)),
                "{rev}"
            );
        }
        let zero = "0".repeat(40);
        assert_eq!(
            repo.read(&zero, "README.md", OnMiss::Suggest),
            Err(not_found_ref(&zero))
        );
        for path in [
            "nope.md",
            "notes.md",
            "README.md/x",
            "src/nope.rs",
            "docs/guide.md/",
            "../README.md",
            "./README.md",
            "src/../README.md",
            "/README.md",
            "",
            ".",
            "..",
        ] {
            assert_eq!(
                repo.read("main", path, OnMiss::Suggest),
                Err(file_not_found(path, "main")),
                "{path:?}"
            );
        }
        // The ref is checked before the path.
        assert_eq!(
            repo.read("nope", "../x", OnMiss::Suggest),
            Err(not_found_ref("nope"))
        );
        let holds = |names: &[&str]| DirEntries {
            named: names.iter().map(|n| n.to_string()).collect(),
            more: 0,
            paged: false,
        };
        for (dir, names) in [
            ("docs", holds(&["guide.md"])),
            ("files/images", holds(&["logo.png"])),
            ("src", holds(&["lib.rs"])),
            ("files", holds(&["images/", "lfs/"])),
        ] {
            assert_eq!(
                repo.read("main", dir, OnMiss::Suggest),
                Err(SourceError::IsDirectory {
                    path: dir.to_owned(),
                    git_ref: "main".to_owned(),
                    entries: names,
                })
            );
        }
        assert_eq!(
            repo.read(&fix.v1_sha, "docs", OnMiss::Suggest),
            Err(file_not_found("docs", &fix.v1_sha))
        );
    }

    #[test]
    fn missing_files_name_what_is_near() {
        let (_fix, repo) = fixture();
        let near = |rev: &str, path: &str| match repo.read(rev, path, OnMiss::Suggest) {
            Err(SourceError::FileNotFoundNear { near, .. }) => near
                .into_iter()
                .map(|s| match s.kind {
                    suggest::EntryKind::File => s.path,
                    suggest::EntryKind::Directory => format!("{}/", s.path),
                })
                .collect::<Vec<_>>(),
            Err(SourceError::FileNotFound { .. }) => Vec::new(),
            other => panic!("{rev} {path}: {other:?}"),
        };
        assert_eq!(near("main", "readme.md"), ["README.md"]);
        assert_eq!(near("main", "src/lib.rc"), ["src/lib.rs"]);
        assert_eq!(near("main", "scr/lib.rs"), ["src/"]);
        assert_eq!(near("main", "docs/old/guide.md"), ["docs/guide.md"]);
        assert_eq!(near("main", "files/image/logo.png"), ["files/images/"]);
        assert_eq!(near("release/2026/q4", "note.md"), ["notes.md"]);
        assert!(near("main", "zzz/nothing-like-it.txt").is_empty());
        // Submodules are another repository: nothing is suggested inside them.
        assert!(near("special-entries", "vendor/sub/README.md").is_empty());
    }

    #[test]
    fn invalid_refs_and_non_commits() {
        let (fix, repo) = fixture();
        for rev in [
            "a..b",
            "main:README.md",
            "HEAD:README.md",
            ":README.md",
            "main^{tree}",
            "main@{0}",
            "@",
            "has space",
            "main..release/2026/q4",
            "-main",
            "",
        ] {
            assert!(
                matches!(repo.read(rev, "README.md", OnMiss::Suggest), Err(SourceError::InvalidRef { ref git_ref, .. }) if git_ref.as_deref() == Some(rev)),
                "{rev:?}"
            );
        }
        for (sha, kind) in [(&fix.main_tree_sha, "tree"), (&fix.readme_blob_sha, "blob")] {
            match repo.read(sha, "README.md", OnMiss::Suggest) {
                Err(SourceError::InvalidRef { git_ref, reason }) => {
                    let reason = reason.to_string();
                    assert_eq!(git_ref.as_deref(), Some(sha.as_str()));
                    assert!(
                        reason.contains(kind) && reason.contains("not a commit"),
                        "{reason}"
                    );
                }
                other => panic!("{kind}: {other:?}"),
            }
        }
    }

    #[test]
    fn ambiguous_short_shas_and_tags_of_trees() {
        let (fix, repo) = fixture();
        // Two blobs whose SHAs share the prefix 1e7ba (precomputed).
        let scratch = tempfile::tempdir().expect("tempdir");
        let mut paths = Vec::new();
        for n in [690, 783] {
            let path = scratch.path().join(format!("b{n}"));
            std::fs::write(&path, format!("ambiguous {n}\n")).expect("write");
            paths.push(path.to_str().expect("utf-8 temp path").to_owned());
        }
        let mut args = vec!["hash-object", "-w"];
        args.extend(paths.iter().map(String::as_str));
        let shas = fix.git(&args);
        assert!(shas.lines().all(|sha| sha.starts_with("1e7ba")), "{shas}");
        match repo.read("1e7ba", "README.md", OnMiss::Suggest) {
            Err(SourceError::InvalidRef { reason, .. }) => {
                assert!(reason.to_string().contains("ambiguous"), "{reason}")
            }
            other => panic!("{other:?}"),
        }

        fix.git(&["tag", "tree-tag", &fix.main_tree_sha]);
        fix.git(&["tag", "-a", "-m", "blob", "blob-tag", &fix.readme_blob_sha]);
        for (rev, kind) in [("tree-tag", "tree"), ("blob-tag", "blob")] {
            match repo.read(rev, "README.md", OnMiss::Suggest) {
                Err(SourceError::InvalidRef { reason, .. }) => {
                    assert!(reason.to_string().contains(kind), "{reason}")
                }
                other => panic!("{rev}: {other:?}"),
            }
            assert!(
                repo.read(&format!("{rev}~1"), "README.md", OnMiss::Suggest)
                    .is_err()
            );
            assert!(
                repo.read(&format!("{rev}^"), "README.md", OnMiss::Suggest)
                    .is_err()
            );
        }
        assert!(repo.is_branch_or_tag("tree-tag"));
    }

    #[test]
    fn symlinks_read_as_their_target_and_submodules_are_not_files() {
        let (_fx, repo) = fixture();
        let link = repo
            .read("special-entries", "link-to-readme", OnMiss::Suggest)
            .expect("read");
        assert_eq!(
            (link.size_bytes, link.kind),
            (fx::LINK_TARGET.len() as u64, text(fx::LINK_TARGET))
        );
        for path in ["vendor/sub", "vendor/sub/README.md"] {
            assert_eq!(
                repo.read("special-entries", path, OnMiss::Suggest),
                Err(SourceError::FileNotFound {
                    path: path.to_owned(),
                    git_ref: "special-entries".to_owned()
                })
            );
        }
        // A directory holding only a submodule names nothing (a submodule is no file).
        assert_eq!(
            repo.read("special-entries", "vendor", OnMiss::Suggest),
            Err(SourceError::IsDirectory {
                path: "vendor".to_owned(),
                git_ref: "special-entries".to_owned(),
                entries: DirEntries::default(),
            })
        );
    }

    #[test]
    fn is_branch_or_tag_is_exact() {
        let (fix, repo) = fixture();
        for yes in ["main", "release/2026/q4", "v1.0", "special-entries"] {
            assert!(repo.is_branch_or_tag(yes), "{yes}");
        }
        for no in [
            "release",
            "release/2026",
            "release/2026/q4/x",
            "HEAD",
            "refs/heads/main",
            "heads/main",
            "tags/v1.0",
            "v1",
            "main~1",
            "main:README.md",
            "../HEAD",
            "",
            &fix.main_sha,
            &fix.main_sha[..8],
        ] {
            assert!(!repo.is_branch_or_tag(no), "{no}");
        }
    }

    #[test]
    fn open_bare_subdirectory_and_errors() {
        let (fix, _repo) = fixture();
        let sub = LocalRepo::open(&fix.path().join("docs")).expect("open from a subdirectory");
        assert_eq!(read_text(&sub, "main", "docs/guide.md"), fx::DOCS_GUIDE);

        let bare_parent = tempfile::tempdir().expect("tempdir");
        let bare = bare_parent.path().join("bare.git");
        let bare_str = bare.to_str().expect("utf-8 temp path");
        fix.git(&["clone", "--quiet", "--bare", ".", bare_str]);
        let bare_repo = LocalRepo::open(&bare).expect("open bare");
        assert_eq!(read_text(&bare_repo, "v1.0", "README.md"), fx::README_V1);
        assert!(bare_repo.is_branch_or_tag("release/2026/q4"));

        let missing = bare_parent.path().join("missing");
        match LocalRepo::open(&missing) {
            Err(msg) => {
                let msg = msg.to_string();
                assert!(
                    msg.contains(&missing.display().to_string()) && msg.contains("pass"),
                    "{msg}"
                )
            }
            other => panic!("{other:?}"),
        }
        let not_repo = tempfile::tempdir().expect("tempdir");
        match LocalRepo::open(not_repo.path()) {
            Err(msg) => {
                let msg = msg.to_string();
                assert!(
                    msg.contains(&not_repo.path().display().to_string()) && msg.contains("pass"),
                    "{msg}"
                )
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_repository_that_cannot_be_opened_is_not_called_missing() {
        let fix = fx::build();
        let config = fix.path().join(".git").join("config");
        let mut text = std::fs::read_to_string(&config).expect("read config");
        // SHA-256 object format: this build reads SHA-1 repositories only.
        text.push_str(
            "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectFormat = sha256\n",
        );
        std::fs::write(&config, &text).expect("write config");
        match LocalRepo::open(&fix.path().join("docs")) {
            Err(msg) => {
                let msg = msg.to_string();
                let shown = format!(
                    "the git repository at '{}' cannot be opened (",
                    fix.path().display()
                );
                assert!(msg.starts_with(&shown), "{msg}");
                assert!(msg.contains("sha256") && !msg.contains('\n'), "{msg}");
            }
            other => panic!("{other:?}"),
        }
        std::fs::write(&config, "[core\nnot git config\n").expect("write config");
        match LocalRepo::open(fix.path()) {
            Err(msg) => {
                let msg = msg.to_string();
                assert!(
                    msg.contains("cannot be opened") && !msg.contains('\n'),
                    "{msg}"
                )
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn hostile_inputs_do_not_panic() {
        let (_fx, repo) = fixture();
        let long = "a".repeat(5_000);
        let revs = [
            "main@",
            "@main",
            "main-g1234567",
            "v1.0-1-gdeadbee",
            "HEAD^0~0^^",
            "FETCH_HEAD",
            "ORIG_HEAD",
            "refs/heads",
            "refs",
            "refs/",
            "HEAD/x",
            "a/b/c/d/e",
            "é",
            "ff",
            "f",
            "main~",
            "main~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
            "{}",
            "main}",
            "%00",
            &long,
        ];
        for rev in revs {
            for path in ["README.md", "", "/", "\0", "a\0b", &long] {
                let _ = repo.read(rev, path, OnMiss::Suggest);
            }
            let _ = repo.is_branch_or_tag(rev);
        }
    }
}
