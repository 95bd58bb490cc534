//! What a resource template's completion asks GitLab, one request each, with the caller's own
//! credential: the projects the caller is a member of matching what was typed
//! (`graphql/complete_projects.graphql`), a project's default branch and branches starting with
//! it (`graphql/complete_refs.graphql`), and its tags starting with it (REST: GraphQL lists
//! none). Answers are read as JSON values; an unusable answer is no values.

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Value, json};

use crate::config::Credential;
use crate::source::gitlab::query::connection::Connection;
use crate::source::gitlab::query::graphql::{complete_projects, complete_refs};
use crate::source::gitlab::wire::envelope::GraphqlResponse;
use crate::source::gitlab::wire::error::{GitlabError, answer_data};

/// Values asked for: the protocol's limit on a completion's values.
pub(crate) const LIMIT: usize = 100;

/// The bytes of a tags answer read at most (100 tags with their commits and messages).
const MAX_TAGS_BYTES: usize = 4 << 20;

/// Values and whether GitLab has more.
pub(crate) type ProjectsFound = (Vec<String>, bool);

/// The full paths of the caller's projects matching `typed` (all of them, most recently active
/// first, for nothing typed).
pub(crate) async fn ask_projects(
    connection: &Connection,
    typed: &str,
    credential: Option<&Credential>,
) -> Result<ProjectsFound, GitlabError> {
    let search = Some(typed.trim()).filter(|t| !t.is_empty());
    let body = json!({
        "query": complete_projects::QUERY,
        "variables": {"search": search, "first": LIMIT},
    });
    let answer: GraphqlResponse<Value> = connection.post(&body, credential).await?;
    let data = answer_data(answer)?;
    let nodes = data.pointer("/projects/nodes").and_then(Value::as_array);
    let paths = nodes
        .into_iter()
        .flatten()
        .filter_map(|n| n.get("fullPath").and_then(Value::as_str))
        .map(String::from)
        .collect();
    let more = data.pointer("/projects/pageInfo/hasNextPage") == Some(&Value::Bool(true));
    Ok((paths, more))
}

/// `project`'s default branch (when the project is readable and has one) and its branches
/// starting with `typed`; `None` for a project the caller cannot read.
pub(crate) async fn ask_branches(
    connection: &Connection,
    project: &str,
    typed: &str,
    credential: Option<&Credential>,
) -> Result<Option<(Option<String>, Vec<String>)>, GitlabError> {
    let body = json!({
        "query": complete_refs::QUERY,
        "variables": {"projectPath": project, "pattern": format!("{typed}*"), "limit": LIMIT + 1},
    });
    let answer: GraphqlResponse<Value> = connection.post(&body, credential).await?;
    let data = answer_data(answer)?;
    let Some(repository) = data.pointer("/project/repository") else {
        return Ok(None);
    };
    let root = repository.get("rootRef").and_then(Value::as_str);
    let names = repository.get("branchNames").and_then(Value::as_array);
    let branches = names
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(String::from)
        .collect();
    Ok(Some((root.map(String::from), branches)))
}

/// `project`'s tags starting with `typed` (GitLab's `search=^typed`), at most [`LIMIT`] + 1;
/// none when the request fails.
pub(crate) async fn ask_tags(
    connection: &Connection,
    project: &str,
    typed: &str,
    credential: Option<&Credential>,
) -> Vec<String> {
    let query = format!(
        "projects/{}/repository/tags?search=%5E{}&per_page={}&order_by=updated",
        utf8_percent_encode(project, NON_ALPHANUMERIC),
        utf8_percent_encode(typed, NON_ALPHANUMERIC),
        LIMIT + 1
    );
    let Ok(mut body) = connection
        .get_rest(&query, "GitLab's tags", credential)
        .await
    else {
        return Vec::new();
    };
    let mut bytes = Vec::new();
    while let Ok(Some(chunk)) = body.chunk().await {
        bytes.extend_from_slice(&chunk);
        if bytes.len() > MAX_TAGS_BYTES {
            return Vec::new();
        }
    }
    tag_names(&bytes)
}

/// The `name`s of a tags answer.
fn tag_names(bytes: &[u8]) -> Vec<String> {
    let tags: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
    tags.as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .map(String::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_names_are_read_and_anything_else_is_none() {
        assert_eq!(
            tag_names(br#"[{"name": "v1.0", "commit": {}}, {"name": "v1.1"}]"#),
            ["v1.0", "v1.1"]
        );
        assert!(tag_names(b"{\"message\": \"404\"}").is_empty());
        assert!(tag_names(b"not json").is_empty());
    }
}
