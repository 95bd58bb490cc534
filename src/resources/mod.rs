//! Resources: a second MCP face over the same reader, for a person rather than the model. A
//! client lists the resource templates ([`uri`]: on GitLab a file's own blob URL), reads a
//! resource ([`read`]: a `get_repository_file` call with the default view), lists a local
//! repository's files ([`list`]) and completes a template's variables as one types
//! ([`complete`]). Failures are [`ResourceError`]s; the MCP face (`tool`) turns them into MCP
//! errors and counts each read as a call.
//!
//! Imports the reader, `find` (its tree cache) and the floors below; only `tool` imports it.

mod complete;
mod error;
mod list;
mod mime;
mod read;
mod recent;
mod uri;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use rmcp::model::{CompletionInfo, ListResourcesResult, ReadResourceResult, ResourceTemplate};

pub(crate) use error::ResourceError;

use crate::config::Credential;
use crate::find::Finder;
use crate::reader::caller::CallerContext;
use crate::reader::{AnySource, Reader};
use crate::source::gitlab::GitlabSource;
use recent::{CompletionKey, Recent};

/// Serves the resources of one server; cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct Resources {
    reader: Reader,
    finder: Finder,
    /// The GitLab template (`None`: a local repository).
    gitlab_template: Option<String>,
    /// The GitLab source, for the project and ref completions.
    gitlab: Option<GitlabSource>,
    /// Completions answered a moment ago, per caller.
    recent: Arc<Recent>,
}

impl Resources {
    /// The resources of `reader`'s files, listed and completed with `finder`'s tree cache.
    pub(crate) fn new(reader: Reader, finder: Finder) -> Self {
        let gitlab = match reader.backend() {
            AnySource::Gitlab(s) => Some(s.clone()),
            AnySource::Local(_) => None,
        };
        Self {
            gitlab_template: gitlab
                .as_ref()
                .map(|s| uri::gitlab_template(s.base().as_str())),
            gitlab,
            reader,
            finder,
            recent: Arc::default(),
        }
    }

    fn local(&self) -> bool {
        self.gitlab_template.is_none()
    }

    /// The one template of this server, named and described for a person in a picker.
    pub(crate) fn templates(&self) -> Vec<ResourceTemplate> {
        let template = match &self.gitlab_template {
            Some(t) => ResourceTemplate::new(t.clone(), "gitlab_file")
                .with_title("GitLab file")
                .with_description(
                    "A file of a GitLab project at a branch, tag or commit. Paste the file's GitLab URL, \
or fill project (group/project), ref (branch, tag or commit SHA) and path; each completes as you type.",
                ),
            None => ResourceTemplate::new(uri::LOCAL_TEMPLATE, "repository_file")
                .with_title("Repository file")
                .with_description(
                    "A file of this server's git repository at a ref (default HEAD, the checked-out commit). \
Fill path (it completes as you type) and optionally ref (branch, tag or commit SHA).",
                ),
        };
        vec![template]
    }

    /// `resources/read` of `uri` for `who`.
    pub(crate) async fn read(
        &self,
        uri: &str,
        who: CallerContext<'_>,
    ) -> Result<ReadResourceResult, ResourceError> {
        read::read(&self.reader, uri, self.local(), who).await
    }

    /// `resources/list`: a page of the local repository's files; nothing on GitLab.
    pub(crate) async fn list(
        &self,
        cursor: Option<&str>,
    ) -> Result<ListResourcesResult, ResourceError> {
        if self.local() {
            list::local(&self.finder, cursor).await
        } else {
            Ok(ListResourcesResult::default())
        }
    }

    /// `completion/complete` of `argument` (typed so far: `value`) of the template
    /// `template`, the other variables as `filled`; the same question from the same caller
    /// within a moment is answered from [`Recent`].
    pub(crate) async fn complete(
        &self,
        template: &str,
        argument: &str,
        value: &str,
        filled: &HashMap<String, String>,
        credential: Option<&Credential>,
    ) -> CompletionInfo {
        let ours = match &self.gitlab_template {
            Some(t) => template == t,
            None => template == uri::LOCAL_TEMPLATE,
        };
        if !ours {
            return complete::info(Vec::new());
        }
        let project = filled.get("project").map(String::as_str);
        let git_ref = filled.get("ref").map(String::as_str);
        let parts = [
            argument,
            value,
            project.unwrap_or(""),
            git_ref.unwrap_or(""),
        ];
        let asked = CompletionKey::new(credential, &parts);
        if let Some(info) = self.recent.get(&asked, Instant::now()) {
            return info;
        }
        let info = self
            .completed(argument, value, project, git_ref, credential)
            .await;
        self.recent.put(asked, info.clone(), Instant::now());
        info
    }

    /// The completion of one variable, asked of the source.
    async fn completed(
        &self,
        argument: &str,
        value: &str,
        project: Option<&str>,
        git_ref: Option<&str>,
        credential: Option<&Credential>,
    ) -> CompletionInfo {
        match (argument, &self.gitlab) {
            ("path", _) => {
                let at = complete::At { project, git_ref };
                complete::path(&self.finder, at, value, !self.local(), credential).await
            }
            ("project", Some(gitlab)) => complete::project(gitlab, value, credential).await,
            ("ref", Some(gitlab)) => complete::git_ref(gitlab, project, value, credential).await,
            _ => complete::info(Vec::new()),
        }
    }
}
