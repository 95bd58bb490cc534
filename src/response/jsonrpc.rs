//! Every sentence of the JSON-RPC edges (`crate::jsonrpc`): what a line or body that rmcp
//! cannot read is told, and why a request's params do not fit.

use std::fmt::{self, Display, Formatter};

use crate::jsonrpc::{ParamsProblem, Rejection, Untyped};

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
        }
    }
}

impl Display for Untyped {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Untyped::BadParams { method, problem } => {
                write!(f, "Invalid params for {method}: {problem}.")
            }
            Untyped::UnknownMethod { method } => {
                write!(f, "Method not found: {}", super::shown(method))
            }
        }
    }
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
