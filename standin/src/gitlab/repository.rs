//! The repository the stand-in serves, as GitLab's Gitaly keeps it: files at fully qualified
//! refs (`refs/heads/main`, `refs/tags/v1`), a ref name resolved as GitLab resolves it (`HEAD`
//! the default branch `main`, a commit sha, `refs/…` as it is, else tags before heads, or by
//! `refType`), a commit per ref that moves with each change, and every blob and LFS object ever
//! stored (content addresses are forever). Pure: no requests, no answers.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, OnceLock};

use sha2::{Digest, Sha256};

use crate::gitlab_mock::git_blob_id;

/// GitLab's GraphQL read limit (`MAX_DATA_DISPLAY_SIZE`): `rawTextBlob` holds at most this much.
pub const READ_LIMIT: usize = 10 * 1024 * 1024;

/// The default branch, which `HEAD` names.
pub const MAIN: &str = "refs/heads/main";

/// One file: its bytes, whether it is stored in LFS, and (worked out once, so a request costs
/// the stand-in no hashing) its blob — the bytes or their LFS pointer — and ids.
pub struct File {
    pub bytes: Vec<u8>,
    pub lfs: bool,
    pub blob: Vec<u8>,
    pub oid: String,
    /// The LFS object's sha256.
    pub sha: Option<String>,
    /// `rawTextBlob` as a JSON literal (GitLab's cut, escaped once), `None` for a binary blob.
    text_json: OnceLock<Option<String>>,
}

impl File {
    pub fn new(bytes: Vec<u8>, lfs: bool) -> File {
        let sha = lfs.then(|| hex(&Sha256::digest(&bytes)));
        let blob = match &sha {
            Some(sha) => pointer(sha, bytes.len()),
            None => bytes.clone(),
        };
        let oid = git_blob_id(&blob);
        File {
            bytes,
            lfs,
            blob,
            oid,
            sha,
            text_json: OnceLock::new(),
        }
    }

    /// The blob as text, `None` when it is not UTF-8 (GitLab's `rawTextBlob: null`).
    pub fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.blob).ok()
    }

    /// `rawTextBlob` as GitLab sends it, already a JSON literal (`null` for a binary blob).
    pub fn text_json(&self) -> &str {
        let json = self.text_json.get_or_init(|| {
            // Serialising a &str cannot fail.
            self.text()
                .map(|t| serde_json::to_string(cut(t)).expect("a str serialises"))
        });
        json.as_deref().unwrap_or("null")
    }
}

/// An LFS pointer file for an object.
pub fn pointer(sha: &str, size: usize) -> Vec<u8> {
    format!("version https://git-lfs.github.com/spec/v1\noid sha256:{sha}\nsize {size}\n")
        .into_bytes()
}

/// GitLab's cut: at most [`READ_LIMIT`] bytes, at a character boundary.
pub fn cut(text: &str) -> &str {
    let mut end = text.len().min(READ_LIMIT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One entry of a recursive tree listing: a directory or a file, by full path.
#[derive(Clone)]
pub enum Entry {
    Tree(String),
    Blob(String, Arc<File>),
}

/// Files at refs, the commits of the refs, and every object stored.
#[derive(Default)]
pub struct Repository {
    /// Qualified ref → path → file (paths sorted, as trees list them).
    refs: BTreeMap<String, BTreeMap<String, Arc<File>>>,
    /// How many times each ref moved.
    moves: HashMap<String, u64>,
    /// Blobs by oid, LFS objects by `lfs:<sha256>`.
    objects: HashMap<String, Arc<File>>,
    /// Recursive listings as answered, by (ref, directory), built once per state.
    listings: HashMap<(String, String), Arc<Vec<Entry>>>,
}

impl Repository {
    /// Stores `bytes` at `path` on the qualified ref `git_ref`: one commit more on that ref.
    pub fn put(&mut self, git_ref: &str, path: &str, bytes: Vec<u8>, lfs: bool) -> Arc<File> {
        let file = Arc::new(File::new(bytes, lfs));
        self.objects.insert(file.oid.clone(), Arc::clone(&file));
        if let Some(sha) = &file.sha {
            self.objects.insert(format!("lfs:{sha}"), Arc::clone(&file));
        }
        let files = self.refs.entry(git_ref.to_string()).or_default();
        files.insert(path.to_string(), Arc::clone(&file));
        *self.moves.entry(git_ref.to_string()).or_default() += 1;
        self.listings.clear();
        file
    }

    /// Every qualified ref, sorted.
    pub fn refs(&self) -> impl Iterator<Item = &str> {
        self.refs.keys().map(String::as_str)
    }

    pub fn ref_exists(&self, qualified: &str) -> bool {
        self.refs.contains_key(qualified)
    }

    /// The commit a qualified ref is at: a new one after each change to it.
    pub fn commit_of(&self, qualified: &str) -> String {
        let moved = self.moves.get(qualified).copied().unwrap_or(0);
        git_blob_id(format!("commit {qualified} {moved}").as_bytes())
    }

    /// The qualified ref `name` names, as GitLab resolves it, if it exists.
    pub fn resolve(&self, name: &str, ref_type: Option<&str>) -> Option<String> {
        let candidates = match ref_type {
            Some("HEADS") => vec![format!("refs/heads/{name}")],
            Some("TAGS") => vec![format!("refs/tags/{name}")],
            _ if name == "HEAD" => vec![MAIN.to_string()],
            _ if name.starts_with("refs/") => vec![name.to_string()],
            _ => vec![format!("refs/tags/{name}"), format!("refs/heads/{name}")],
        };
        let by_name = candidates.into_iter().find(|r| self.ref_exists(r));
        by_name.or_else(|| {
            self.refs
                .keys()
                .find(|r| self.commit_of(r) == name)
                .cloned()
        })
    }

    pub fn file(&self, qualified: &str, path: &str) -> Option<Arc<File>> {
        self.refs.get(qualified)?.get(path).cloned()
    }

    /// A blob by oid, or an LFS object by `lfs:<sha256>`.
    pub fn object(&self, key: &str) -> Option<Arc<File>> {
        self.objects.get(key).cloned()
    }

    /// A blob by oid at any ref now.
    pub fn blob_by_oid(&self, oid: &str) -> Option<Arc<File>> {
        self.refs
            .values()
            .flat_map(BTreeMap::values)
            .find(|f| f.oid == oid)
            .cloned()
    }

    /// The names directly under `dir` at `qualified`: (subdirectories, files), each sorted.
    pub fn children(&self, qualified: &str, dir: &str) -> (Vec<String>, Vec<String>) {
        let (mut trees, mut blobs) = (BTreeSet::new(), Vec::new());
        for (path, _) in self.under(qualified, dir) {
            let rest = &path[prefix(dir).len()..];
            match rest.split_once('/') {
                Some((sub, _)) => {
                    trees.insert(sub.to_string());
                }
                None => blobs.push(rest.to_string()),
            }
        }
        (trees.into_iter().collect(), blobs)
    }

    /// Everything under `dir` at `qualified`, recursively: every directory, then every file,
    /// each sorted by path (Gitaly's order).
    pub fn listing(&mut self, qualified: &str, dir: &str) -> Arc<Vec<Entry>> {
        let key = (qualified.to_string(), dir.to_string());
        if let Some(built) = self.listings.get(&key) {
            return Arc::clone(built);
        }
        let mut trees = BTreeSet::new();
        let mut blobs = Vec::new();
        for (path, file) in self.under(qualified, dir) {
            let mut at = prefix(dir).len();
            while let Some(i) = path[at..].find('/') {
                trees.insert(path[..at + i].to_string());
                at += i + 1;
            }
            blobs.push(Entry::Blob(path.clone(), Arc::clone(file)));
        }
        let all: Vec<Entry> = trees.into_iter().map(Entry::Tree).chain(blobs).collect();
        let built = Arc::new(all);
        self.listings.insert(key, Arc::clone(&built));
        built
    }

    /// The files under `dir` (every file for `""`) at `qualified`, in path order.
    fn under<'a>(
        &'a self,
        qualified: &str,
        dir: &str,
    ) -> impl Iterator<Item = (&'a String, &'a Arc<File>)> + 'a {
        let prefix = prefix(dir);
        self.refs.get(qualified).into_iter().flat_map(move |files| {
            let prefix = prefix.clone();
            files
                .range(prefix.clone()..)
                .take_while(move |(p, _)| p.starts_with(&prefix))
        })
    }

    /// Every file at `qualified`.
    pub fn files(&self, qualified: &str) -> Vec<(String, Arc<File>)> {
        self.under(qualified, "")
            .map(|(p, f)| (p.clone(), Arc::clone(f)))
            .collect()
    }
}

fn prefix(dir: &str) -> String {
    if dir.is_empty() {
        String::new()
    } else {
        format!("{}/", dir.trim_end_matches('/'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_resolve_as_gitlab_resolves_them() {
        let mut repo = Repository::default();
        repo.put(MAIN, "a.txt", b"main\n".to_vec(), false);
        repo.put("refs/tags/v1", "a.txt", b"tag\n".to_vec(), false);
        repo.put("refs/heads/v1", "a.txt", b"branch\n".to_vec(), false);
        assert_eq!(repo.resolve("HEAD", None).as_deref(), Some(MAIN));
        assert_eq!(repo.resolve("v1", None).as_deref(), Some("refs/tags/v1"));
        assert_eq!(
            repo.resolve("v1", Some("HEADS")).as_deref(),
            Some("refs/heads/v1")
        );
        assert_eq!(repo.resolve("missing", None), None);
        let commit = repo.commit_of(MAIN);
        assert_eq!(repo.resolve(&commit, None).as_deref(), Some(MAIN));
        repo.put(MAIN, "b.txt", b"b\n".to_vec(), false);
        assert_ne!(repo.commit_of(MAIN), commit, "a change moves the ref");
    }

    #[test]
    fn listings_put_directories_first_and_children_are_direct() {
        let mut repo = Repository::default();
        for path in ["z.txt", "d/a.txt", "d/e/b.txt", "dd.txt"] {
            repo.put(MAIN, path, path.as_bytes().to_vec(), false);
        }
        let names: Vec<String> = repo
            .listing(MAIN, "")
            .iter()
            .map(|e| match e {
                Entry::Tree(p) => format!("{p}/"),
                Entry::Blob(p, _) => p.clone(),
            })
            .collect();
        assert_eq!(
            names,
            ["d/", "d/e/", "d/a.txt", "d/e/b.txt", "dd.txt", "z.txt"]
        );
        assert_eq!(
            repo.children(MAIN, "d"),
            (vec!["e".into()], vec!["a.txt".into()])
        );
        assert_eq!(repo.children(MAIN, "nope"), (vec![], vec![]));
    }

    #[test]
    fn an_lfs_file_is_a_pointer_and_its_object_stays() {
        let mut repo = Repository::default();
        let file = repo.put(MAIN, "big.bin", vec![1, 2, 3], true);
        assert!(file.blob.starts_with(b"version https://git-lfs"));
        let sha = file.sha.clone().unwrap();
        repo.put(MAIN, "big.bin", vec![4], false);
        assert_eq!(repo.object(&format!("lfs:{sha}")).unwrap().bytes, [1, 2, 3]);
        assert!(
            repo.object(&file.oid).is_some(),
            "content addresses are forever"
        );
    }
}
