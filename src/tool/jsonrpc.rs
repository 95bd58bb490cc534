//! The JSON-RPC edges rmcp leaves to us, shared by both transports, each worded beside its
//! type:
//! - [`parse_message`]: what a line (stdio) or a body (HTTP) is, before rmcp sees it. rmcp
//!   drops a stdio line that is not JSON without a reply, and answers such an HTTP body `415`;
//!   JSON-RPC 2.0 wants a `-32700` parse error (`-32600` for JSON that is no message) with
//!   `"id": null`, which [`Rejection::reply`] is.
//! - [`answer_untyped`]: rmcp types requests through an untagged enum, so a `tools/call` whose
//!   params do not fit falls through to a "custom request", which rmcp answers `-32601` (method
//!   not found) with the bare method name. This answers `-32602` with the reason instead.

use crate::base::quote::shown;
use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolRequestParams, ClientJsonRpcMessage, CustomRequest, ErrorCode};
use serde_json::{Value, json};
use std::fmt::{self, Display, Formatter};

use crate::resolve::args::JsonKind;

/// Methods this server answers whose params rmcp types; a malformed one is -32602.
const TYPED_METHODS: [&str; 3] = ["tools/call", "tools/list", "ping"];
/// JSON allows a leading byte-order mark to be ignored (RFC 8259 §8.1); rmcp's stdio codec
/// does too, but its HTTP transport does not, so over HTTP such a body passes this check and
/// rmcp answers it 415.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Why incoming bytes could not be handed to rmcp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Rejection {
    /// Not JSON: empty, cut short, a syntax error, or not UTF-8 (-32700).
    NotJson,
    /// A JSON array: a batch, which MCP removed in 2025-06-18 (-32600).
    Batch,
    /// JSON, but not a JSON-RPC 2.0 message (-32600).
    NotAMessage,
    /// A stdio line longer than the limit, dropped unread (-32600).
    TooLong { limit: usize },
    /// JSON serde cannot read: nesting past its 128 levels, a lone surrogate escape, a number
    /// past f64 (-32600; answered with the message's id when that can be read: [`read_id`]).
    BeyondReach,
}

impl Display for Rejection {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Rejection::NotJson => f.write_str(
                "Parse error: the message is not JSON (send one JSON-RPC 2.0 object, UTF-8)",
            ),
            Rejection::Batch => f.write_str(
                "Invalid Request: JSON-RPC batches are not supported (MCP removed them in 2025-06-18); send one message at a time",
            ),
            Rejection::NotAMessage => f.write_str(
                "Invalid Request: not a JSON-RPC 2.0 message (an object with \"jsonrpc\": \"2.0\" and a method, or a result or error with an id)",
            ),
            Rejection::TooLong { limit } => write!(
                f,
                "Invalid Request: the message is longer than {limit} bytes and was dropped unread"
            ),
            Rejection::BeyondReach => f.write_str(
                "Invalid Request: the message holds JSON this server cannot read (nesting deeper than 128 levels, a lone surrogate escape such as \\ud800, or a number too large for a double such as 1e400)",
            ),
        }
    }
}

impl Rejection {
    pub(crate) fn code(self) -> ErrorCode {
        match self {
            Rejection::NotJson => ErrorCode::PARSE_ERROR,
            Rejection::Batch
            | Rejection::NotAMessage
            | Rejection::TooLong { .. }
            | Rejection::BeyondReach => ErrorCode::INVALID_REQUEST,
        }
    }

    /// The JSON-RPC error response, serialized, with `"id": null` (the id could not be read).
    pub(crate) fn reply(self) -> Vec<u8> {
        self.reply_to(None)
    }

    /// The JSON-RPC error response to the message with `id` (`null` when `None`).
    pub(crate) fn reply_to(self, id: Option<Value>) -> Vec<u8> {
        error_body(id, self.code(), &self.to_string())
    }
}

/// A JSON-RPC error response, serialized: `code` and `message`, to the message with `id`
/// (`null` when `None`).
pub(crate) fn error_body(id: Option<Value>, code: ErrorCode, message: &str) -> Vec<u8> {
    let body = json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": {"code": code.0, "message": message}
    });
    body.to_string().into_bytes()
}

/// serde_json's words for JSON it cannot read though it may be valid.
const BEYOND_REACH: [&str; 4] = [
    "recursion limit exceeded",
    "lone leading surrogate",
    "invalid unicode code point",
    "number out of range",
];

/// Whether serde's error `e` about UTF-8 `bytes` is about valid JSON it cannot read. Its
/// "unexpected end of hex escape" is one when a leading surrogate (`\uD800`–`\uDBFF`) ends
/// a string, and a syntax error otherwise (`\u12"`).
fn beyond_reach(e: &serde_json::Error, bytes: &[u8]) -> bool {
    let said = e.to_string();
    if std::str::from_utf8(bytes).is_err() {
        return false;
    }
    BEYOND_REACH.iter().any(|w| said.contains(w))
        || (said.contains("unexpected end of hex escape") && has_leading_surrogate(bytes))
}

fn has_leading_surrogate(bytes: &[u8]) -> bool {
    bytes.windows(6).any(|w| {
        w.starts_with(b"\\u")
            && w[2].eq_ignore_ascii_case(&b'd')
            && matches!(w[3].to_ascii_lowercase(), b'8'..=b'9' | b'a' | b'b')
            && w[4..].iter().all(u8::is_ascii_hexdigit)
    })
}

/// The `id` of a message serde could not read ([`Rejection::BeyondReach`]), when it can be read
/// without it: the value of the top-level object's `"id"` key, a string or a number serde reads
/// on its own. Strings are skipped escape by escape without decoding, so a lone surrogate
/// elsewhere does not hide the id.
pub(crate) fn read_id(bytes: &[u8]) -> Option<Value> {
    let (mut depth, mut i) = (0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.checked_sub(1)?,
            b'"' => {
                let end = string_end(bytes, i)?;
                if depth == 1 && &bytes[i..end] == b"\"id\"" {
                    let rest = bytes[end..].trim_ascii_start().strip_prefix(b":")?;
                    return id_value(rest.trim_ascii_start());
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index just past the string starting at `start` (a `"`).
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// A JSON-RPC id at the start of `bytes`: a string or a number, as serde reads it.
fn id_value(bytes: &[u8]) -> Option<Value> {
    let len = match bytes.first()? {
        b'"' => string_end(bytes, 0)?,
        _ => bytes
            .iter()
            .position(|b| !matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
            .unwrap_or(bytes.len()),
    };
    let value: Value = serde_json::from_slice(&bytes[..len]).ok()?;
    (value.is_string() || value.is_number()).then_some(value)
}

/// The message in `bytes` (one stdio line without its terminator, or one HTTP body).
pub(crate) fn parse_message(bytes: &[u8]) -> Result<ClientJsonRpcMessage, Rejection> {
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    serde_json::from_slice(bytes).map_err(|e| match e.classify() {
        _ if beyond_reach(&e, bytes) => Rejection::BeyondReach,
        serde_json::error::Category::Data if starts_with(bytes, b'[') => Rejection::Batch,
        serde_json::error::Category::Data => Rejection::NotAMessage,
        _ => Rejection::NotJson,
    })
}

fn starts_with(bytes: &[u8], first: u8) -> bool {
    bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&first)
}

/// What is wrong with the params of a request rmcp could not type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ParamsProblem {
    /// No params, or `null` (for `tools/call`).
    Missing,
    /// Params of this JSON kind where an object belongs.
    NotAnObject { kind: JsonKind },
    /// `tools/call` params of this JSON kind, not an object of name and arguments.
    NotACall { kind: JsonKind },
    /// `tools/call` without `name`.
    NameMissing,
    /// `tools/call` with a `name` of this kind.
    NameNotAString { kind: JsonKind },
    /// `tools/call` with `arguments` of this kind.
    ArgumentsNotAnObject { kind: JsonKind },
    /// serde's reason (or none) why the params are not `tools/call`'s.
    Mismatch { reason: Option<String> },
}

impl Display for ParamsProblem {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ParamsProblem::Missing => f.write_str(
                "params are missing; send {\"name\": <the tool's name>, \"arguments\": {…}}",
            ),
            ParamsProblem::NotAnObject { kind } => {
                write!(f, "params must be an object, not {kind}")
            }
            ParamsProblem::NotACall { kind } => {
                write!(
                    f,
                    "params must be an object with name and arguments, not {kind}"
                )
            }
            ParamsProblem::NameMissing => {
                f.write_str("params.name is missing; name the tool to call (see tools/list)")
            }
            ParamsProblem::NameNotAString { kind } => write!(
                f,
                "params.name must be a string (the tool's name, see tools/list), not {kind}"
            ),
            ParamsProblem::ArgumentsNotAnObject { kind } => write!(
                f,
                "params.arguments must be an object of the tool's arguments, not {kind}"
            ),
            ParamsProblem::Mismatch { reason: Some(r) } => f.write_str(r),
            ParamsProblem::Mismatch { reason: None } => {
                f.write_str("params do not match tools/call")
            }
        }
    }
}

/// A request rmcp could not type, as we answer it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Untyped {
    /// A method this server answers, with params that do not fit (-32602).
    BadParams {
        method: String,
        #[source]
        problem: ParamsProblem,
    },
    /// Any other method (-32601).
    UnknownMethod { method: String },
}

impl Display for Untyped {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Untyped::BadParams { method, problem } => {
                write!(f, "Invalid params for {method}: {problem}.")
            }
            Untyped::UnknownMethod { method } => {
                write!(f, "Method not found: {}", shown(method))
            }
        }
    }
}

/// The answer to a request rmcp could not type: -32602 with the reason for a method this
/// server answers (its params are what did not fit), -32601 for any other method.
pub(crate) fn answer_untyped(request: &CustomRequest) -> McpError {
    let untyped = classify_untyped(request);
    let code = match untyped {
        Untyped::BadParams { .. } => ErrorCode::INVALID_PARAMS,
        Untyped::UnknownMethod { .. } => ErrorCode::METHOD_NOT_FOUND,
    };
    McpError::new(code, untyped.to_string(), None)
}

fn classify_untyped(request: &CustomRequest) -> Untyped {
    let method = request.method.clone();
    if !TYPED_METHODS.contains(&method.as_str()) {
        return Untyped::UnknownMethod { method };
    }
    let params = request.params.as_ref().filter(|p| !p.is_null());
    let problem = if method == "tools/call" {
        tools_call_problem(params)
    } else {
        ParamsProblem::NotAnObject {
            kind: JsonKind::of(params.unwrap_or(&Value::Null)),
        }
    };
    Untyped::BadParams { method, problem }
}

/// What is wrong with the params of a `tools/call` rmcp could not type.
fn tools_call_problem(params: Option<&Value>) -> ParamsProblem {
    let Some(params) = params else {
        return ParamsProblem::Missing;
    };
    let Some(object) = params.as_object() else {
        return ParamsProblem::NotACall {
            kind: JsonKind::of(params),
        };
    };
    match object.get("name") {
        None => return ParamsProblem::NameMissing,
        Some(Value::String(_)) => {}
        Some(other) => {
            return ParamsProblem::NameNotAString {
                kind: JsonKind::of(other),
            };
        }
    }
    if let Some(arguments) = object
        .get("arguments")
        .filter(|a| !a.is_object() && !a.is_null())
    {
        return ParamsProblem::ArgumentsNotAnObject {
            kind: JsonKind::of(arguments),
        };
    }
    let reason = serde_json::from_value::<CallToolRequestParams>(params.clone())
        .err()
        .map(|e| e.to_string());
    ParamsProblem::Mismatch { reason }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(bytes: &[u8]) -> Rejection {
        parse_message(bytes).expect_err("rejected")
    }

    #[test]
    fn messages_pass_and_everything_else_is_classified() {
        let ok = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        assert!(parse_message(ok).is_ok());
        let with_bom = [BOM, ok.as_slice()].concat();
        assert!(parse_message(&with_bom).is_ok());
        assert!(
            parse_message(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).is_ok()
        );
        for not_json in [
            &b""[..],
            b"   ",
            b"not json",
            b"{\"jsonrpc\":",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
            b"\xff\xfe",
        ] {
            assert_eq!(rejected(not_json), Rejection::NotJson, "{not_json:?}");
        }
        assert_eq!(rejected(b" [ ]"), Rejection::Batch);
        assert_eq!(
            rejected(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#),
            Rejection::Batch
        );
        for not_a_message in [
            &b"{}"[..],
            b"42",
            b"\"x\"",
            b"null",
            br#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
        ] {
            assert_eq!(
                rejected(not_a_message),
                Rejection::NotAMessage,
                "{not_a_message:?}"
            );
        }
    }

    #[test]
    fn json_beyond_serdes_reach_is_told_apart_and_its_id_read() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}1{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let surrogate =
            br#"{"jsonrpc":"2.0","method":"tools/call","params":{"x":"\ud800"},"id":"a\"b"}"#;
        let huge = br#"{"jsonrpc":"2.0","id":-3,"method":"tools/call","params":{"x":1e400}}"#;
        // Not JSON at all: a cut escape.
        assert_eq!(rejected(br#"{"id":1,"x":"\u12"}"#), Rejection::NotJson);
        assert_eq!(rejected(deep.as_bytes()), Rejection::BeyondReach);
        assert_eq!(read_id(deep.as_bytes()), Some(json!(7)));
        assert_eq!(rejected(surrogate), Rejection::BeyondReach);
        assert_eq!(read_id(surrogate), Some(json!("a\"b")));
        assert_eq!(rejected(huge), Rejection::BeyondReach);
        assert_eq!(read_id(huge), Some(json!(-3)));
        // No id, an id that is no id, an id inside params, a lone surrogate in the id itself.
        for no_id in [
            &br#"{"jsonrpc":"2.0","params":{"x":1e400}}"#[..],
            br#"{"id":[1],"x":1e400}"#,
            br#"{"params":{"id":5},"x":1e400}"#,
            br#"{"id":"\ud800","x":1e400}"#,
            b"[1e400]",
        ] {
            assert_eq!(read_id(no_id), None, "{}", String::from_utf8_lossy(no_id));
        }
        let reply = Rejection::BeyondReach.reply_to(Some(json!(7)));
        let reply: Value = serde_json::from_slice(&reply).unwrap();
        assert_eq!(reply["id"], 7);
        assert_eq!(reply["error"]["code"], -32600);
    }

    #[test]
    fn a_reply_is_a_jsonrpc_error_with_a_null_id() {
        let reply: Value = serde_json::from_slice(&Rejection::NotJson.reply()).unwrap();
        assert_eq!(reply["jsonrpc"], "2.0");
        assert!(reply["id"].is_null() && reply.as_object().unwrap().contains_key("id"));
        assert_eq!(reply["error"]["code"], -32700);
        let reply: Value = serde_json::from_slice(&Rejection::Batch.reply()).unwrap();
        assert_eq!(reply["error"]["code"], -32600);
        let long = Rejection::TooLong { limit: 16 }.to_string();
        assert!(long.contains("16 bytes"), "{long}");
    }

    fn untyped(method: &str, params: Option<Value>) -> McpError {
        answer_untyped(&CustomRequest::new(method, params))
    }

    #[test]
    fn malformed_tools_call_params_are_invalid_params_with_the_reason() {
        let cases = [
            (None, "params are missing"),
            (Some(Value::Null), "params are missing"),
            (
                Some(json!("x")),
                "params must be an object with name and arguments, not a string",
            ),
            (Some(json!({"arguments": {}})), "params.name is missing"),
            (Some(json!({"name": 5})), "params.name must be a string"),
            (
                Some(json!({"name": "get_repository_file", "arguments": "x"})),
                "params.arguments must be an object of the tool's arguments, not a string",
            ),
            (
                Some(json!({"name": "get_repository_file", "arguments": [1]})),
                "not an array",
            ),
        ];
        for (params, reason) in cases {
            let error = untyped("tools/call", params.clone());
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{params:?}");
            assert!(
                error.message.starts_with("Invalid params for tools/call: "),
                "{}",
                error.message
            );
            assert!(
                error.message.contains(reason),
                "{params:?}: {}",
                error.message
            );
        }
    }

    #[test]
    fn other_answered_methods_and_unknown_methods() {
        let error = untyped("tools/list", Some(json!("x")));
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert!(error.message.contains("not a string"), "{}", error.message);
        let error = untyped("resources/frobnicate", None);
        assert_eq!(error.code, ErrorCode::METHOD_NOT_FOUND);
        assert_eq!(error.message, "Method not found: resources/frobnicate");
    }
}
