//! How the stand-in answers one request: the sign-in's endpoints, then GraphQL or REST below
//! the instance's root; the token's verdict (a refused token is 401, the token check answered
//! as GitLab does); the faults it was told (REST statuses, bent bodies, slow answers); and each
//! answer counted under its endpoint and gzip-compressed when told and accepted.

use serde_json::Value;
use wiremock::{Request, Respond, ResponseTemplate};

use super::access::{Access, Verdict, asks_current_user, bearer, current_user};
use super::deployment::{self, gzip};
use super::log::Endpoint;
use super::{Gitlab, faults, rest};

/// An answer before it is counted and sent.
pub enum Reply {
    Body {
        status: u16,
        body: Vec<u8>,
        mime: &'static str,
        headers: Vec<(&'static str, String)>,
    },
    /// A 302 to this location.
    Redirect(String),
}

impl Reply {
    pub fn json(status: u16, body: Vec<u8>) -> Reply {
        Reply::Body {
            status,
            body,
            mime: "application/json",
            headers: Vec::new(),
        }
    }

    /// A raw blob as GitLab's raw endpoints send it, with its `X-Gitlab-*` headers.
    pub(crate) fn raw(body: Vec<u8>, oid: &str, commit: String) -> Reply {
        let size = body.len().to_string();
        Reply::Body {
            status: 200,
            body,
            mime: "text/plain; charset=utf-8",
            headers: vec![
                ("x-gitlab-size", size),
                ("x-gitlab-blob-id", oid.to_string()),
                ("x-gitlab-commit-id", commit),
            ],
        }
    }

    pub(crate) fn with_header(mut self, name: &'static str, value: &str) -> Reply {
        if let Reply::Body { headers, .. } = &mut self {
            headers.push((name, value.to_string()));
        }
        self
    }
}

impl Gitlab {
    /// `reply` counted under `endpoint` and sent, gzip-compressed when told and accepted.
    fn send(&self, request: &Request, endpoint: Endpoint, reply: Reply) -> ResponseTemplate {
        let (status, body, mime, headers) = match reply {
            Reply::Redirect(location) => {
                self.log.lock().unwrap().sent(endpoint, 0, 0);
                return ResponseTemplate::new(302).insert_header("location", location.as_str());
            }
            Reply::Body {
                status,
                body,
                mime,
                headers,
            } => (status, body, mime, headers),
        };
        let mut response = ResponseTemplate::new(status);
        for (name, value) in headers {
            response = response.insert_header(name, value.as_str());
        }
        if !(self.gzip && deployment::accepts_gzip(request)) {
            self.log
                .lock()
                .unwrap()
                .sent(endpoint, body.len(), body.len());
            return response.set_body_raw(body, mime);
        }
        let compressed = gzip(&body);
        self.log
            .lock()
            .unwrap()
            .sent(endpoint, body.len(), compressed.len());
        response
            .insert_header("content-encoding", "gzip")
            .insert_header("vary", "Accept-Encoding")
            .set_body_raw(compressed, mime)
    }

    fn graphql(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        self.log.lock().unwrap().keep(&body);
        let token = bearer(request);
        let verdict = self.access.verdict(token);
        if asks_current_user(&body) || matches!(verdict, Verdict::Invalid) {
            return current_user(match verdict {
                Verdict::Reads(user) => Some(user),
                Verdict::Hidden => Some(8),
                Verdict::Invalid => None,
            });
        }
        let with_content = body["variables"]["withContent"] != Value::Bool(false);
        let answer = self.graphql_answer(&body, token).render();
        let endpoint = Endpoint::Graphql { with_content };
        let response = self.send(request, endpoint, Reply::json(200, answer));
        match &self.slow {
            Some((slow, delay)) if token == Some(slow.as_str()) => response.set_delay(*delay),
            _ => response,
        }
    }

    fn rest(&self, request: &Request, path: &str) -> ResponseTemplate {
        let shown = match request.url.query() {
            Some(q) => format!("{path}?{q}"),
            None => path.to_string(),
        };
        self.log.lock().unwrap().rest.push(shown);
        let asked = rest::Asked::parse(path, &request.url);
        let endpoint = asked.endpoint();
        if let Some(status) = faults::next(&self.rest_faults) {
            self.log.lock().unwrap().sent(endpoint, 0, 0);
            return ResponseTemplate::new(status).insert_header("retry-after", "0");
        }
        let token = bearer(request);
        let reply = match self.access.verdict(token) {
            _ if self.bomb => Reply::raw(vec![b'a'; 64 * 1024 * 1024], "", String::new()),
            Verdict::Invalid => Reply::json(401, br#"{"message":"401 Unauthorized"}"#.to_vec()),
            _ => self.rest_answer(&asked, token),
        };
        match (faults::next(&self.rest_bodies), reply) {
            (
                Some(how),
                Reply::Body {
                    status: 200, body, ..
                },
            ) => {
                self.log
                    .lock()
                    .unwrap()
                    .sent(endpoint, body.len(), body.len());
                faults::bend(body, how)
            }
            (_, reply) => self.send(request, endpoint, reply),
        }
    }

    /// The answer to any request, before the instance's own delay.
    fn answer(&self, request: &Request) -> ResponseTemplate {
        if let Access::SignedIn(provider) = &self.access
            && let Some(answer) = provider.answer(request)
        {
            return answer;
        }
        let path = request.url.path();
        let below_root = path.strip_prefix(self.root.as_str()).unwrap_or(path);
        if below_root == "/api/graphql" {
            self.graphql(request)
        } else {
            self.rest(request, below_root)
        }
    }
}

impl Respond for Gitlab {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let response = self.answer(request);
        match self.delay {
            Some(delay) => response.set_delay(delay),
            None => response,
        }
    }
}
