//! The stand-in's REST API (`<root>/api/v4/projects/:id/…`), each path parsed once ([`Route`])
//! and answered from the project it names (`:id` the numeric id or the URL-encoded full path)
//! as GitLab does: `repository/blobs/:oid/raw` (a blob by oid, any blob ever stored),
//! `repository/files/:path/raw?ref=R[&lfs=true]` (the file at a ref; with `lfs=true` the LFS
//! object, or a 302 to object storage), `repository/tags?search=` (the tags holding the search),
//! and `search?scope=blobs` (GitLab's basic code search of the default branch: a case-insensitive
//! literal, path matches first then one result per matching line, `per_page` 20 by default and
//! at most 100). A project it does not host, or one hidden from the token, is a 404.

use percent_encoding::percent_decode_str;
use serde_json::{Value, json};

use super::log::Endpoint;
use super::projects::{Hosted, Named, find};
use super::repository::{File, MAIN};
use super::{Gitlab, Reply};

/// A REST request the stand-in knows: the project it names, and what of it.
#[derive(Debug, PartialEq, Eq)]
pub struct Asked {
    pub project: String,
    pub route: Route,
}

/// What a REST path asks of a project.
#[derive(Debug, PartialEq, Eq)]
pub enum Route {
    BlobRaw {
        oid: String,
    },
    FileRaw {
        path: String,
        git_ref: String,
        lfs: bool,
    },
    Tags {
        search: String,
    },
    Search {
        term: String,
        per_page: usize,
        page: usize,
    },
    Unknown,
}

impl Asked {
    /// What a request's URL path (below the instance's root) and query ask.
    pub fn parse(path: &str, url: &url::Url) -> Asked {
        let unknown = |project: &str| Asked {
            project: project.to_string(),
            route: Route::Unknown,
        };
        let Some(rest) = path.strip_prefix("/api/v4/projects/") else {
            return unknown("");
        };
        let (id, rest) = rest.split_once('/').unwrap_or((rest, ""));
        let project = percent_decode_str(id).decode_utf8_lossy().to_string();
        let query = |k: &str| {
            url.query_pairs()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.to_string())
        };
        let number = |k: &str, or: usize| query(k).and_then(|v| v.parse().ok()).unwrap_or(or);
        let raw = |prefix: &str| {
            rest.strip_prefix(prefix)
                .and_then(|r| r.strip_suffix("/raw"))
        };
        let route = if let Some(oid) = raw("repository/blobs/") {
            Route::BlobRaw {
                oid: oid.to_string(),
            }
        } else if let Some(file) = raw("repository/files/") {
            Route::FileRaw {
                path: percent_decode_str(file).decode_utf8_lossy().to_string(),
                git_ref: query("ref").unwrap_or_else(|| "HEAD".into()),
                lfs: query("lfs").as_deref() == Some("true"),
            }
        } else if rest == "repository/tags" {
            Route::Tags {
                search: query("search").unwrap_or_default(),
            }
        } else if rest == "search" {
            Route::Search {
                term: query("search").unwrap_or_default(),
                per_page: number("per_page", 20).min(100),
                page: number("page", 1).max(1),
            }
        } else {
            Route::Unknown
        };
        Asked { project, route }
    }

    pub fn endpoint(&self) -> Endpoint {
        match self.route {
            Route::BlobRaw { .. } => Endpoint::BlobRaw,
            Route::FileRaw { .. } => Endpoint::FileRaw,
            _ => Endpoint::OtherRest,
        }
    }
}

/// GitLab's 404 body.
pub fn not_found(what: &str) -> Reply {
    let what = if what.is_empty() {
        String::new()
    } else {
        format!("{what} ")
    };
    Reply::json(
        404,
        format!(r#"{{"message":"404 {what}Not Found"}}"#).into_bytes(),
    )
}

impl Gitlab {
    /// The answer to a REST request from `token`.
    pub(super) fn rest_answer(&self, asked: &Asked, token: Option<&str>) -> Reply {
        let mut projects = self.projects.lock();
        let named = match asked.project.parse::<u64>() {
            Ok(id) => Named::Id(id),
            Err(_) => Named::Path(&asked.project),
        };
        let hosted =
            find(&mut projects[..], &named).filter(|h| self.access.sees(token, &h.project.path));
        match (hosted, &asked.route) {
            (_, Route::Unknown) => not_found(""),
            (None, _) => not_found("Project"),
            (Some(hosted), route) => self.project_answer(hosted, route),
        }
    }

    fn project_answer(&self, hosted: &Hosted, route: &Route) -> Reply {
        let repo = &hosted.repo;
        match route {
            Route::BlobRaw { oid } => match repo.object(oid) {
                Some(file) => Reply::raw(file.blob.clone(), &file.oid, repo.commit_of(MAIN)),
                None => not_found("Blob"),
            },
            Route::FileRaw { path, git_ref, lfs } => {
                let qualified = repo.resolve(git_ref, None);
                match qualified.as_deref().and_then(|q| repo.file(q, path)) {
                    Some(file) => self.file_raw(
                        &file,
                        *lfs,
                        repo.commit_of(qualified.as_deref().unwrap_or(MAIN)),
                    ),
                    None => not_found("File"),
                }
            }
            Route::Tags { search } => {
                let tags: Vec<Value> = repo
                    .refs()
                    .filter_map(|r| r.strip_prefix("refs/tags/"))
                    .filter(|name| name.contains(search.as_str()))
                    .map(|name| {
                        let commit = repo.commit_of(&format!("refs/tags/{name}"));
                        json!({"name": name, "message": "", "target": commit, "commit": {"id": commit}})
                    })
                    .collect();
                Reply::json(200, Value::Array(tags).to_string().into_bytes())
            }
            Route::Search {
                term,
                per_page,
                page,
            } => self.search_answer(hosted, term, *per_page, *page),
            Route::Unknown => not_found(""),
        }
    }

    /// A file's raw answer: the blob, or with `lfs=true` its LFS object (or a 302 to storage).
    fn file_raw(&self, file: &File, lfs: bool, commit: String) -> Reply {
        match (&file.sha, &self.storage) {
            (Some(sha), Some(storage)) if lfs => Reply::Redirect(storage.signed_url(sha)),
            (Some(_), None) if lfs => Reply::raw(file.bytes.clone(), &file.oid, commit),
            _ => Reply::raw(file.blob.clone(), &file.oid, commit),
        }
    }

    fn search_answer(&self, hosted: &Hosted, term: &str, per_page: usize, page: usize) -> Reply {
        match self.search {
            SearchMode::Forbidden => Reply::json(403, br#"{"message":"403 Forbidden"}"#.to_vec()),
            SearchMode::RateLimited => {
                Reply::json(429, br#"{"message":"429 Too Many Requests"}"#.to_vec())
                    .with_header("retry-after", "0")
            }
            SearchMode::Works => {
                let all = search(hosted, term);
                let page: Vec<Value> = all
                    .into_iter()
                    .skip((page - 1) * per_page)
                    .take(per_page)
                    .collect();
                Reply::json(200, Value::Array(page).to_string().into_bytes())
            }
        }
    }
}

/// How the code search answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SearchMode {
    #[default]
    Works,
    Forbidden,
    RateLimited,
}

/// GitLab's basic search of the default branch: path matches first, then one result per
/// matching line.
fn search(hosted: &Hosted, term: &str) -> Vec<Value> {
    let needle = term.to_lowercase();
    let files = hosted.repo.files(MAIN);
    let text = |f: &File| String::from_utf8_lossy(&f.blob).into_owned();
    let mut results: Vec<Value> = files
        .iter()
        .filter(|(p, _)| p.to_lowercase().contains(&needle))
        .map(|(p, f)| json!({"path": p, "filename": p, "id": f.oid, "data": text(f), "startline": 1}))
        .collect();
    for (p, f) in &files {
        for (i, line) in text(f).lines().enumerate() {
            if line.to_lowercase().contains(&needle) {
                results.push(
                    json!({"path": p, "filename": p, "id": null, "data": line, "startline": i + 1}),
                );
            }
        }
    }
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(path: &str) -> Asked {
        let url = url::Url::parse(&format!("http://127.0.0.1{path}")).unwrap();
        Asked::parse(url.path(), &url)
    }

    #[test]
    fn routes_name_their_project_by_id_or_encoded_path() {
        let raw = Route::BlobRaw { oid: "abc".into() };
        let a = asked("/api/v4/projects/42/repository/blobs/abc/raw");
        assert_eq!((a.project.as_str(), &a.route), ("42", &raw));
        let a = asked("/api/v4/projects/grp%2Fproj/repository/blobs/abc/raw");
        assert_eq!((a.project.as_str(), &a.route), ("grp/proj", &raw));
        assert_eq!(
            asked("/api/v4/projects/42/repository/files/a%2Fb.txt/raw?ref=v1&lfs=true").route,
            Route::FileRaw {
                path: "a/b.txt".into(),
                git_ref: "v1".into(),
                lfs: true
            }
        );
        assert_eq!(
            asked("/api/v4/projects/42/search?scope=blobs&search=x&per_page=500").route,
            Route::Search {
                term: "x".into(),
                per_page: 100,
                page: 1
            }
        );
        assert_eq!(
            asked("/api/v4/projects/42/repository/tags?search=v").route,
            Route::Tags { search: "v".into() }
        );
        assert_eq!(asked("/api/v4/version").route, Route::Unknown);
    }
}
