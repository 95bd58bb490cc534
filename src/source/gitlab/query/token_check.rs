//! Whether GitLab accepts a caller's token, asked before a session is opened for it
//! (`--token-from-request`, see `crate::http`): one `query { currentUser { id } }`
//! (`graphql/current_user.graphql`), the cheapest question that needs a valid token.
//!
//! GitLab answers a token it rejects with HTTP 401 (`{"errors":[{"message":"Invalid token"}]}`)
//! or, for a token without the API scope, 403: both are [`TokenStanding::Refused`], as a call with
//! that token would be refused. An answer without a user (`currentUser: null`, what GitLab says
//! to a request it takes as anonymous) is refused too. Anything else that is no answer (GitLab
//! unreachable, 5xx after the retries, an answer of another shape) is an error: nothing is
//! known of the token.

use graphql_client::GraphQLQuery;

use super::connection::Connection;
use super::graphql::{CurrentUser, current_user};
use crate::config::Credential;
use crate::source::gitlab::wire::envelope::GraphqlResponse;
use crate::source::gitlab::wire::error::{GitlabError, answer_data};
use crate::source::gitlab::wire::transport_error::TransportError;

/// What GitLab said of a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenStanding {
    /// GitLab knows the token's user.
    Accepted,
    /// GitLab rejected the token (401, 403) or knows no user for it.
    Refused,
}

/// Asks GitLab whether it accepts `credential` (one request, retried as any other).
pub(crate) async fn check(
    connection: &Connection,
    credential: &Credential,
) -> Result<TokenStanding, GitlabError> {
    let body = CurrentUser::build_query(current_user::Variables {});
    let answer: Result<GraphqlResponse<current_user::ResponseData>, GitlabError> =
        connection.post(&body, Some(credential)).await;
    standing(answer)
}

/// The standing an answer (or its failure) gives a token. Pure.
fn standing(
    answer: Result<GraphqlResponse<current_user::ResponseData>, GitlabError>,
) -> Result<TokenStanding, GitlabError> {
    match answer {
        Ok(response) => Ok(match answer_data(response)?.current_user {
            Some(_) => TokenStanding::Accepted,
            None => TokenStanding::Refused,
        }),
        Err(GitlabError::Transport(TransportError::Rejected { .. })) => Ok(TokenStanding::Refused),
        Err(other) => Err(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TokenOrigin;

    fn answer(
        json: serde_json::Value,
    ) -> Result<GraphqlResponse<current_user::ResponseData>, GitlabError> {
        Ok(serde_json::from_value(json).unwrap())
    }

    #[test]
    fn a_user_is_accepted_no_user_is_refused() {
        let user =
            answer(serde_json::json!({"data": {"currentUser": {"id": "gid://gitlab/User/7"}}}));
        assert_eq!(standing(user), Ok(TokenStanding::Accepted));
        let anonymous = answer(serde_json::json!({"data": {"currentUser": null}}));
        assert_eq!(standing(anonymous), Ok(TokenStanding::Refused));
    }

    #[test]
    fn a_rejected_token_is_refused_other_failures_are_errors() {
        for status in [401, 403] {
            let rejected = GitlabError::Transport(TransportError::Rejected {
                instance: "https://gitlab.example.com".into(),
                status,
                detail: Some("Invalid token".into()),
                origin: Some(TokenOrigin::Request),
            });
            assert_eq!(
                standing(Err(rejected)),
                Ok(TokenStanding::Refused),
                "{status}"
            );
        }
        let down = GitlabError::Transport(TransportError::RetriesExhausted {
            status: 502,
            retry_after: None,
            retries: 2,
        });
        assert_eq!(standing(Err(down.clone())), Err(down));
        let errors = answer(serde_json::json!({"errors": [{"message": "boom"}]}));
        assert!(matches!(standing(errors), Err(GitlabError::Graphql { .. })));
        assert_eq!(
            standing(answer(serde_json::json!({}))),
            Err(GitlabError::NoData)
        );
    }
}
