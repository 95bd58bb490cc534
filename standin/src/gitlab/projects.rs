//! The projects GitLab hosts: each one's full path, id, repository and Duo rules, found as
//! GitLab finds a project: by full path (case-insensitively, as `Project.find_by_full_path`)
//! or by global id. The first is the stand-in's default project, `grp/proj` (id 42).

use std::sync::{Arc, Mutex, MutexGuard};

use super::repository::Repository;

/// A project's full path and numeric id.
#[derive(Clone, Debug)]
pub struct Project {
    pub path: String,
    pub id: u64,
}

impl Project {
    pub fn gid(&self) -> String {
        format!("gid://gitlab/Project/{}", self.id)
    }
}

/// One hosted project.
pub struct Hosted {
    pub project: Project,
    pub repo: Repository,
    /// Its Duo context exclusion rules (none: an empty list).
    pub rules: Option<Vec<String>>,
}

impl Hosted {
    pub fn new(path: &str, id: u64) -> Hosted {
        Hosted {
            project: Project {
                path: path.into(),
                id,
            },
            repo: Repository::default(),
            rules: None,
        }
    }
}

/// The hosted projects, shared by every clone of the stand-in.
#[derive(Clone)]
pub struct Projects(Arc<Mutex<Vec<Hosted>>>);

impl Default for Projects {
    fn default() -> Self {
        Projects::of(Hosted::new("grp/proj", 42))
    }
}

impl Projects {
    pub fn of(first: Hosted) -> Projects {
        Projects(Arc::new(Mutex::new(vec![first])))
    }

    pub fn lock(&self) -> MutexGuard<'_, Vec<Hosted>> {
        self.0.lock().unwrap()
    }
}

/// How a request names its project: by full path, by global ids, or by numeric id.
pub enum Named<'a> {
    Path(&'a str),
    Gids(Vec<&'a str>),
    Id(u64),
}

/// The project `named` names, if GitLab hosts it.
pub fn find<'p>(projects: &'p mut [Hosted], named: &Named<'_>) -> Option<&'p mut Hosted> {
    projects.iter_mut().find(|h| match named {
        Named::Path(path) => h.project.path.eq_ignore_ascii_case(path),
        Named::Gids(gids) => gids.contains(&h.project.gid().as_str()),
        Named::Id(id) => h.project.id == *id,
    })
}
