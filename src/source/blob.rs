//! The source contract's types: what a source found ([`Fetched`], a [`Blob`]) and why it found
//! nothing ([`SourceError`]). Both sources return these, so windowing and wording do not care
//! where a file came from.

use crate::base::quote::shown;
use std::fmt::{self, Display, Formatter};
use std::sync::Arc;

use super::listing::DirEntries;
use super::suggest::{EntryKind, Suggestion};
use super::text::Text;
use crate::base::cause::Shared;

/// A file as a source found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Blob {
    /// Path of the file inside the repository, as resolved (no leading `/`).
    pub path: String,
    /// The ref the file was read at, as the caller named it (or as a URL split resolved it).
    pub git_ref: String,
    /// Size of the file in bytes: GitLab's `rawSize` (for LFS files the LFS object's size);
    /// for a local repository the blob's size (for an LFS pointer, the size the pointer names).
    pub size_bytes: u64,
    /// What the bytes are.
    pub kind: BlobKind,
    /// The git blob id (the content address), when the source knows it.
    pub id: Option<String>,
    /// The commit the ref resolved to (40 or 64 hex digits), when the source knows it: GitLab's
    /// `permalinkPath` names it, the local source resolves it.
    pub commit_sha: Option<String>,
}

/// The three kinds of file the tool tells apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BlobKind {
    /// Text, returned byte-for-byte, shared (a cached blob is not copied per call).
    /// `cut_by_read_limit` is true when this is only the first part of the file (GitLab's
    /// 10 MiB read limit) and the window asked for lies inside it.
    Text {
        content: Arc<Text>,
        cut_by_read_limit: bool,
    },
    /// Not text (GitLab: `rawTextBlob` is null; local: NUL in the first 8,000 bytes, or not UTF-8).
    Binary,
    /// Stored in LFS (`storage` is GitLab's `externalStorage`, e.g. `"lfs"`). The pointer text
    /// is never kept.
    Lfs { storage: String },
    /// Not read: the caller holds this blob already (`if_none_match`) and its content is not
    /// at hand without another request.
    NotRead,
}

/// A blob plus how the source got to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fetched {
    pub blob: Blob,
    /// The project's full path, for a source of many projects (GitLab).
    pub project: Option<String>,
    /// For a URL whose ref/path GitLab would have split differently: the ref GitLab would
    /// have used (and found no such file at).
    pub split_fallback_from: Option<String>,
    /// The file's permalink at the commit read, as a full URL without a line anchor (GitLab).
    pub web_url: Option<String>,
    /// The language the repository declares for the file (GitLab's `language`: the
    /// `gitlab-language` attribute of its `.gitattributes`), when it was asked (an outline or
    /// a symbol, [`crate::window::Extent::Parsed`]) and is set.
    pub language: Option<String>,
}

impl Fetched {
    /// The bytes of the blob's text that were read (0 for none): the size of the work of
    /// rendering it.
    pub(crate) fn text_bytes(&self) -> usize {
        match &self.blob.kind {
            BlobKind::Text { content, .. } => content.len(),
            BlobKind::Binary | BlobKind::Lfs { .. } | BlobKind::NotRead => 0,
        }
    }
}

/// Why a source could not produce a blob.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SourceError {
    /// The project does not exist or the token cannot read it (same words for both);
    /// `anonymous`: the call carried no token at all, so only public projects were visible.
    ProjectNotFound { project: String, anonymous: bool },
    /// A URL named project `url_project` (id `url_project_id`) but `project_id` said `given`.
    ProjectMismatch {
        given: u64,
        url_project: String,
        url_project_id: u64,
    },
    /// The ref does not exist.
    RefNotFound { git_ref: String },
    /// The ref exists but has no file at the path.
    FileNotFound { path: String, git_ref: String },
    /// The ref exists but has no file at the path; `near` (never empty) are the existing paths
    /// most like it ("Did you mean").
    FileNotFoundNear {
        path: String,
        git_ref: String,
        near: Vec<Suggestion>,
    },
    /// The path names a directory (tree) at that ref; `entries` are what it holds, as far as
    /// the caller may see.
    IsDirectory {
        path: String,
        git_ref: String,
        entries: DirEntries,
    },
    /// The project's Duo context exclusion rules exclude the file.
    Excluded { path: String },
    /// The ref string is not a valid ref.
    InvalidRef {
        /// The ref as the caller gave it, when known (GitLab's refusal does not name it).
        git_ref: Option<String>,
        /// Why, in the refusing source's own words.
        #[source]
        reason: Failure,
    },
    /// The file is larger than the server's maximum file size.
    FileTooLarge {
        path: String,
        size_bytes: u64,
        limit: u64,
    },
    /// The source itself failed: talking to GitLab, GitLab's answer, the local repository.
    Failed(#[source] Failure),
}

/// A source's own failure, typed by the source (`GitlabError`, `LocalError`, `LocalRefError`)
/// and carried behind the contract boxed: the contract, the reader and the tool need only its
/// sentence and its chain of causes, so no module above a source names the source's types,
/// and [`SourceError`] stays one type for both (a generic error would make every caller
/// generic over the source for no use).
pub(crate) type Failure = Shared<dyn std::error::Error + Send + Sync>;

impl SourceError {
    /// A source's own failure.
    pub(crate) fn failed(e: impl std::error::Error + Send + Sync + 'static) -> SourceError {
        SourceError::Failed(Shared::any(e))
    }
}

/// A project GitLab did not show the caller: the same words whether it is missing or private,
/// and, when the call carried no token, how to send one.
fn project_not_found(f: &mut Formatter<'_>, project: &str, anonymous: bool) -> fmt::Result {
    if anonymous {
        return write!(
            f,
            "Project '{}' not found or inaccessible, and no GitLab token was used, so only public projects are visible. Set GITLAB_TOKEN to a token with the read_api scope in the server's environment (over HTTP with --token-from-request, send it as Authorization: Bearer), or check the project's full path or numeric id.",
            shown(project)
        );
    }
    write!(
        f,
        "Project '{}' not found or inaccessible. Check the project's full path or numeric id, and that the token can read it.",
        shown(project)
    )
}

/// What to pass instead of a ref that does not exist or is not valid.
const PROVIDE_A_REF: &str =
    "Provide an existing branch name, tag name, or commit SHA, or use HEAD for the default branch.";

impl Display for SourceError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::ProjectNotFound { project, anonymous } => {
                project_not_found(f, project, *anonymous)
            }
            SourceError::ProjectMismatch {
                given,
                url_project,
                url_project_id,
            } => write!(
                f,
                "Project mismatch: project_id is '{given}' but url contains '{url_project}' (project id {url_project_id}). Pass one of them, or make them agree."
            ),
            SourceError::RefNotFound { git_ref } => {
                write!(f, "Ref '{}' not found. {PROVIDE_A_REF}", shown(git_ref))
            }
            SourceError::FileNotFound { path, git_ref } => write!(
                f,
                "File '{}' does not exist at ref '{}'. The path must be relative to the repository root. Do not retry the same path; search the repository for the file name to locate it: {}.",
                shown(path),
                shown(git_ref),
                find_call(path, git_ref)
            ),
            SourceError::FileNotFoundNear {
                path,
                git_ref,
                near,
            } => did_you_mean(f, path, git_ref, near),
            SourceError::IsDirectory {
                path,
                git_ref,
                entries,
            } => is_directory(f, path, git_ref, entries),
            SourceError::Excluded { path } => write!(
                f,
                "File '{}' is excluded from AI context by this project's settings and cannot be read.",
                shown(path)
            ),
            SourceError::InvalidRef { git_ref, reason } => {
                invalid_ref(f, git_ref.as_deref(), reason)
            }
            SourceError::FileTooLarge {
                path,
                size_bytes,
                limit,
            } => write!(
                f,
                "File '{path}' is {size_bytes} bytes, larger than this server reads ({limit} bytes). Its operator can raise the limit with --max-file-bytes (GITLAB_FILE_MCP_MAX_FILE_BYTES)."
            ),
            SourceError::Failed(e) => e.fmt(f),
        }
    }
}

/// `'src' is a directory at ref 'main', not a file. …`, with what it holds when known.
fn is_directory(
    f: &mut Formatter<'_>,
    path: &str,
    git_ref: &str,
    entries: &DirEntries,
) -> fmt::Result {
    let holds = match entries.named.is_empty() {
        true => String::new(),
        false => format!(" {entries}"),
    };
    write!(
        f,
        "'{}' is a directory at ref '{}', not a file.{holds} Pass the path of a file inside it.",
        shown(path),
        shown(git_ref)
    )
}

/// The `search_repository` call that finds a missing file by its base name (a glob, its
/// special characters escaped), at the same ref.
pub(crate) fn find_call(path: &str, git_ref: &str) -> String {
    let base = path.rsplit('/').next().unwrap_or(path);
    if base.chars().count() > 100 || git_ref.chars().count() > 100 {
        return "call search_repository with a glob of its name".to_string();
    }
    let mut glob = String::with_capacity(base.len());
    for c in base.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
            glob.push('\\');
        }
        glob.push(c);
    }
    let call = serde_json::json!({"glob": glob, "ref": git_ref});
    format!("call search_repository with {call} (and the same project)")
}

/// `File 'x' does not exist at ref 'main'. Did you mean 'a', 'b' or 'c'? …`: the suggestions
/// are quoted whole (they are paths to pass as they are), directories with a trailing `/`.
fn did_you_mean(
    f: &mut Formatter<'_>,
    path: &str,
    git_ref: &str,
    near: &[Suggestion],
) -> fmt::Result {
    let quoted: Vec<String> = near
        .iter()
        .map(|s| match s.kind {
            EntryKind::File => format!("'{}'", s.path),
            EntryKind::Directory => format!("'{}/'", s.path),
        })
        .collect();
    let (choices, none_of_them) = match quoted.as_slice() {
        [one] => (one.clone(), "if that is not the file"),
        [one, two] => (format!("{one} or {two}"), "if neither is the file"),
        [init @ .., last] => (
            format!("{} or {last}", init.join(", ")),
            "if none of these is the file",
        ),
        [] => (String::new(), "if none of these is the file"),
    };
    let directories = if near.iter().any(|s| s.kind == EntryKind::Directory) {
        " Paths ending in '/' are directories; the file may be inside one."
    } else {
        ""
    };
    write!(
        f,
        "File '{}' does not exist at ref '{}'. Did you mean {choices}?{directories} Do not retry the same path; {none_of_them}, search the repository for the file name to locate it: {}.",
        shown(path),
        shown(git_ref),
        find_call(path, git_ref)
    )
}

pub(crate) fn invalid_ref(
    f: &mut Formatter<'_>,
    git_ref: Option<&str>,
    reason: &dyn Display,
) -> fmt::Result {
    match git_ref.filter(|r| !r.is_empty()) {
        None => write!(f, "The ref is not valid ({reason}). {PROVIDE_A_REF}"),
        Some(git_ref) => write!(
            f,
            "Ref '{}' is not valid ({reason}). {PROVIDE_A_REF}",
            shown(git_ref)
        ),
    }
}

impl SourceError {
    /// The same error, naming `given` as the ref (the caller's spelling, not the qualified
    /// `refs/tags/v1.0` a lookup used).
    pub(crate) fn naming_ref(self, given: &str) -> SourceError {
        let git_ref = given.to_string();
        match self {
            SourceError::RefNotFound { .. } => SourceError::RefNotFound { git_ref },
            SourceError::FileNotFound { path, .. } => SourceError::FileNotFound { path, git_ref },
            SourceError::FileNotFoundNear { path, near, .. } => SourceError::FileNotFoundNear {
                path,
                git_ref,
                near,
            },
            SourceError::IsDirectory { path, entries, .. } => SourceError::IsDirectory {
                path,
                git_ref,
                entries,
            },
            SourceError::InvalidRef { reason, .. } => SourceError::InvalidRef {
                git_ref: Some(git_ref),
                reason,
            },
            other => other,
        }
    }
}

/// A missing file's error: with the suggestions when there are any.
pub(crate) fn file_not_found(path: &str, git_ref: &str, near: Vec<Suggestion>) -> SourceError {
    let (path, git_ref) = (path.to_string(), git_ref.to_string());
    if near.is_empty() {
        SourceError::FileNotFound { path, git_ref }
    } else {
        SourceError::FileNotFoundNear {
            path,
            git_ref,
            near,
        }
    }
}

/// Whether a caller holding `held` (`if_none_match`) holds the blob `blob_id`: the full id, in
/// any case (an abbreviation names no blob).
pub(crate) fn holds(held: Option<&str>, blob_id: Option<&str>) -> bool {
    matches!((held, blob_id), (Some(held), Some(id)) if held.eq_ignore_ascii_case(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_blob_is_named_by_its_id_in_any_case() {
        let id = "7795c8ccea29e07ee1af55595d1608ae7d9d2155";
        assert!(holds(Some(id), Some(id)));
        assert!(holds(Some(&id.to_uppercase()), Some(id)));
        assert!(
            !holds(Some(&id[..12]), Some(id)),
            "an abbreviation is no match"
        );
        assert!(!holds(None, Some(id)));
        assert!(!holds(Some(id), None));
    }

    /// A source's reason for refusing a ref, in its own words.
    #[derive(Debug, thiserror::Error)]
    #[error("Ref is not valid")]
    struct Refused;

    #[test]
    fn invalid_refs_name_the_ref_when_known() {
        let reason: Failure = Shared::any(Refused);
        let named = SourceError::InvalidRef {
            git_ref: Some("a..b".into()),
            reason: reason.clone(),
        };
        assert!(
            named
                .to_string()
                .starts_with("Ref 'a..b' is not valid (Ref is not valid).")
        );
        let unnamed = SourceError::InvalidRef {
            git_ref: None,
            reason,
        };
        assert!(unnamed.to_string().starts_with("The ref is not valid"));
    }

    #[test]
    fn did_you_mean_names_one_two_or_three_paths() {
        let near = |paths: &[(&str, EntryKind)]| SourceError::FileNotFoundNear {
            path: "app/model/user.rb".into(),
            git_ref: "main".into(),
            near: paths
                .iter()
                .map(|&(p, kind)| Suggestion {
                    path: p.into(),
                    kind,
                })
                .collect(),
        };
        let file = EntryKind::File;
        assert_eq!(
            near(&[("app/models/user.rb", file)]).to_string(),
            "File 'app/model/user.rb' does not exist at ref 'main'. Did you mean 'app/models/user.rb'? Do not retry the same path; if that is not the file, search the repository for the file name to locate it: call search_repository with {\"glob\":\"user.rb\",\"ref\":\"main\"} (and the same project)."
        );
        assert_eq!(
            near(&[("a.rb", file), ("b.rb", file)]).to_string(),
            "File 'app/model/user.rb' does not exist at ref 'main'. Did you mean 'a.rb' or 'b.rb'? Do not retry the same path; if neither is the file, search the repository for the file name to locate it: call search_repository with {\"glob\":\"user.rb\",\"ref\":\"main\"} (and the same project)."
        );
        assert_eq!(
            near(&[
                ("a.rb", file),
                ("b.rb", file),
                ("app/models", EntryKind::Directory)
            ])
            .to_string(),
            "File 'app/model/user.rb' does not exist at ref 'main'. Did you mean 'a.rb', 'b.rb' or 'app/models/'? Paths ending in '/' are directories; the file may be inside one. Do not retry the same path; if none of these is the file, search the repository for the file name to locate it: call search_repository with {\"glob\":\"user.rb\",\"ref\":\"main\"} (and the same project)."
        );
    }
}
