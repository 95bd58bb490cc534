//! The stand-in's REST API (`/api/v4`), each path parsed once ([`Route`]) and answered from the
//! repository as GitLab does: `repository/blobs/:oid/raw` (a blob by oid, any blob ever stored),
//! `repository/files/:path/raw?ref=R[&lfs=true]` (the file at a ref; with `lfs=true` the LFS
//! object, or a 302 to object storage), and `search?scope=blobs` (GitLab's basic code search: a
//! case-insensitive literal, path matches first then one result per matching line, `per_page`
//! 20 by default and at most 100). `:id` is the numeric id or the URL-encoded full path.

use percent_encoding::percent_decode_str;
use serde_json::{Value, json};

use super::log::Endpoint;
use super::repository::Repository;
use super::{Gitlab, Reply};

/// A REST path the stand-in knows.
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
    Search {
        term: String,
        per_page: usize,
        page: usize,
    },
    Unknown,
}

impl Route {
    /// The route of a request to project `(id, full path)`; another project's is `Unknown`.
    pub fn parse(url: &url::Url, project: (u64, &str)) -> Route {
        let Some(rest) = url.path().strip_prefix("/api/v4/projects/") else {
            return Route::Unknown;
        };
        let (id, rest) = rest.split_once('/').unwrap_or((rest, ""));
        let id = percent_decode_str(id).decode_utf8_lossy();
        if id != project.0.to_string() && id != project.1 {
            return Route::Unknown;
        }
        let query = |k: &str| {
            url.query_pairs()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.to_string())
        };
        let number = |k: &str, or: usize| query(k).and_then(|v| v.parse().ok()).unwrap_or(or);
        if let Some(oid) = rest
            .strip_prefix("repository/blobs/")
            .and_then(|r| r.strip_suffix("/raw"))
        {
            return Route::BlobRaw {
                oid: oid.to_string(),
            };
        }
        if let Some(path) = rest
            .strip_prefix("repository/files/")
            .and_then(|r| r.strip_suffix("/raw"))
        {
            return Route::FileRaw {
                path: percent_decode_str(path).decode_utf8_lossy().to_string(),
                git_ref: query("ref").unwrap_or_else(|| "HEAD".into()),
                lfs: query("lfs").as_deref() == Some("true"),
            };
        }
        if rest == "search" {
            return Route::Search {
                term: query("search").unwrap_or_default(),
                per_page: number("per_page", 20).min(100),
                page: number("page", 1).max(1),
            };
        }
        Route::Unknown
    }

    pub fn endpoint(&self) -> Endpoint {
        match self {
            Route::BlobRaw { .. } => Endpoint::BlobRaw,
            Route::FileRaw { .. } => Endpoint::FileRaw,
            _ => Endpoint::OtherRest,
        }
    }
}

/// GitLab's 404 body.
pub fn not_found(what: &str) -> Reply {
    Reply::json(
        404,
        format!(r#"{{"message":"404 {what} Not Found"}}"#).into_bytes(),
    )
}

impl Gitlab {
    /// The answer to a REST request the stand-in may serve.
    pub(super) fn rest_answer(&self, route: &Route) -> Reply {
        let repo = self.repo.lock().unwrap();
        match route {
            Route::BlobRaw { oid } => match repo.object(oid) {
                Some(file) => Reply::raw(file.blob.clone(), &file.oid, &repo),
                None => not_found("Blob"),
            },
            Route::FileRaw { path, git_ref, lfs } => {
                let qualified = repo.resolve(git_ref, None);
                let Some(file) = qualified.as_deref().and_then(|q| repo.file(q, path)) else {
                    return not_found("File");
                };
                match (&file.sha, &self.storage) {
                    (Some(sha), Some(storage)) if *lfs => Reply::Redirect(storage.signed_url(sha)),
                    (Some(_), None) if *lfs => Reply::raw(file.bytes.clone(), &file.oid, &repo),
                    _ => Reply::raw(file.blob.clone(), &file.oid, &repo),
                }
            }
            Route::Search {
                term,
                per_page,
                page,
            } => match self.search {
                SearchMode::Forbidden => {
                    Reply::json(403, br#"{"message":"403 Forbidden"}"#.to_vec())
                }
                SearchMode::RateLimited => {
                    Reply::json(429, br#"{"message":"429 Too Many Requests"}"#.to_vec())
                        .with_header("retry-after", "0")
                }
                SearchMode::Works => {
                    let all = search(&repo, term);
                    let page: Vec<Value> = all
                        .into_iter()
                        .skip((page - 1) * per_page)
                        .take(*per_page)
                        .collect();
                    Reply::json(200, Value::Array(page).to_string().into_bytes())
                }
            },
            Route::Unknown => not_found(""),
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
fn search(repo: &Repository, term: &str) -> Vec<Value> {
    let needle = term.to_lowercase();
    let files = repo.files(super::repository::MAIN);
    let text = |f: &super::repository::File| String::from_utf8_lossy(&f.blob).into_owned();
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

    fn request(path: &str) -> url::Url {
        url::Url::parse(&format!("http://127.0.0.1{path}")).unwrap()
    }

    #[test]
    fn routes_take_the_id_or_the_encoded_path() {
        let project = (42, "grp/proj");
        let raw = Route::BlobRaw { oid: "abc".into() };
        assert_eq!(
            Route::parse(
                &request("/api/v4/projects/42/repository/blobs/abc/raw"),
                project
            ),
            raw
        );
        assert_eq!(
            Route::parse(
                &request("/api/v4/projects/grp%2Fproj/repository/blobs/abc/raw"),
                project
            ),
            raw
        );
        assert_eq!(
            Route::parse(
                &request("/api/v4/projects/7/repository/blobs/abc/raw"),
                project
            ),
            Route::Unknown
        );
        assert_eq!(
            Route::parse(
                &request("/api/v4/projects/42/repository/files/a%2Fb.txt/raw?ref=v1&lfs=true"),
                project
            ),
            Route::FileRaw {
                path: "a/b.txt".into(),
                git_ref: "v1".into(),
                lfs: true
            }
        );
        assert_eq!(
            Route::parse(
                &request("/api/v4/projects/42/search?scope=blobs&search=x&per_page=500"),
                project
            ),
            Route::Search {
                term: "x".into(),
                per_page: 100,
                page: 1
            }
        );
    }
}
