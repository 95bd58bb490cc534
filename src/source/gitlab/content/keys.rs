//! The source's two identities, typed so the compiler keeps them apart: which file a lookup
//! names ([`LookupKey`], what the memory of the last blob a lookup named is keyed by), and
//! which content a blob is ([`ContentKey`], what the blob cache and the downloads in flight are
//! keyed by: a git blob, or the LFS object a pointer blob stands for). Pure.

use std::fmt::{self, Display, Formatter};

use crate::resolve::ref_name::RefType;
use crate::resolve::{Lookup, ProjectFile, ProjectRef};
use crate::source::gitlab::query::graphql::BlobFields;

/// A lookup as the caller named it: the project as named and the ref and path, or a URL's
/// project and its "ref/path" as written (with the ref type it asked for).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum LookupKey {
    Named {
        project: ProjectRef,
        git_ref: String,
        path: String,
    },
    Url {
        project_path: String,
        /// The URL's "ref/path" (of its first candidate split, when it splits several ways).
        ref_path: String,
        ref_type: Option<RefType>,
    },
}

impl LookupKey {
    pub(crate) fn of(lookup: &ProjectFile) -> Self {
        match lookup {
            ProjectFile::Named {
                project,
                git_ref,
                path,
            } => LookupKey::Named {
                project: project.clone(),
                git_ref: git_ref.clone(),
                path: path.clone(),
            },
            ProjectFile::Url {
                project_path, file, ..
            } => {
                let (git_ref, path, ref_type) = match file {
                    Lookup::Exact {
                        git_ref,
                        path,
                        ref_type,
                    } => (git_ref.as_str(), path.as_str(), *ref_type),
                    Lookup::Candidates {
                        candidates,
                        ref_type,
                    } => {
                        let first = candidates.first();
                        let git_ref = first.map_or("", |c| c.git_ref.as_str());
                        (git_ref, first.map_or("", |c| c.path.as_str()), *ref_type)
                    }
                };
                LookupKey::Url {
                    project_path: project_path.clone(),
                    ref_path: format!("{git_ref}/{path}"),
                    ref_type,
                }
            }
        }
    }
}

/// A content address: a git blob's oid, or an LFS object's sha256 (the blob is only its
/// pointer).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum ContentKey {
    Blob(String),
    Lfs(String),
}

impl ContentKey {
    /// The content `node` names: the LFS object's for a file stored in LFS, else the blob's.
    pub(crate) fn of(node: &BlobFields) -> Self {
        match (&node.lfs_oid, node.stored_externally) {
            (Some(sha256), Some(true)) => ContentKey::Lfs(sha256.clone()),
            _ => ContentKey::Blob(node.oid.clone()),
        }
    }
}

/// What a read's answer named: the content, and the path it is at (a first read in flight hands
/// a failure on only to a follower whose own answer named the same).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Named {
    pub content: ContentKey,
    pub path: String,
}

/// As the logs name it: the oid, or `lfs:<sha256>`.
impl Display for ContentKey {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ContentKey::Blob(oid) => f.write_str(oid),
            ContentKey::Lfs(sha256) => write!(f, "lfs:{sha256}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::Candidate;

    #[test]
    fn lookups_are_keyed_as_named() {
        let named = |project| ProjectFile::Named {
            project,
            git_ref: "main".into(),
            path: "a".into(),
        };
        let by_path = LookupKey::of(&named(ProjectRef::Path("42".into())));
        assert_ne!(by_path, LookupKey::of(&named(ProjectRef::Id(42))));
        let url = |file| ProjectFile::Url {
            project_path: "g/p".into(),
            expect_project_id: Some(7),
            file,
        };
        let exact = url(Lookup::Exact {
            git_ref: "main".into(),
            path: "a/b".into(),
            ref_type: None,
        });
        let split = url(Lookup::Candidates {
            candidates: vec![
                Candidate {
                    git_ref: "main".into(),
                    path: "a/b".into(),
                },
                Candidate {
                    git_ref: "main/a".into(),
                    path: "b".into(),
                },
            ],
            ref_type: None,
        });
        // A URL's ref/path as written: the same whichever way it splits.
        assert_eq!(LookupKey::of(&exact), LookupKey::of(&split));
        assert_ne!(LookupKey::of(&exact), by_path);
    }

    #[test]
    fn an_lfs_object_is_not_a_blob() {
        let blob = ContentKey::Blob("abc".into());
        let lfs = ContentKey::Lfs("abc".into());
        assert_ne!(blob, lfs);
        assert_eq!(
            (blob.to_string(), lfs.to_string()),
            ("abc".into(), "lfs:abc".into())
        );
    }
}
