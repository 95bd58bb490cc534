//! The server's and the tool's published numbers that are not windowing rules: the default
//! character budget and the result ceiling `tools/list` declares from it. The window's own
//! limits (bytes, lines) are in [`crate::window`].

/// The character budget when the server is given none (`--max-chars`): about 25,000 tokens,
/// Claude Code's default ceiling for a tool result.
pub const DEFAULT_MAX_CHARS: u64 = 100_000;

/// What a tool result's text block may take beyond twice its content's
/// budget: the envelope around `content` (names, numbers, the
/// `system_instruction` sentences, their JSON escaping), with room to spare.
/// A content charged at most `B` is at most `2 × B` characters as a JSON
/// string, so a result is at most `2 × B + MAX_RESULT_ENVELOPE`.
///
/// A window's envelope is at most about 44,000 (the longest path, ref and
/// project, escaped; `web_url` repeats the project and the percent-encoded
/// path beside the commit); a search adds `metadata.matches.lines`, at most `MAX_LIMIT`
/// numbers of at most 9 digits (a 100 MiB file has fewer than 10^9 lines)
/// and their commas, 20,000, and one hint naming the pattern, at most
/// 7 × `MAX_PATTERN_BYTES` escaped twice (a control character becomes
/// `\u0001` in the hint, `\\u0001` in the text block), 7,168, with its
/// sentences: about 72,000 in all.
pub const MAX_RESULT_ENVELOPE: u64 = 80_000;

/// The largest result a client is asked to take inline
/// (`anthropic/maxResultSizeChars`; Claude Code's maximum), and what is
/// declared when the server's default budget is 0.
pub const MAX_RESULT_CHARS: u64 = 500_000;

/// The most bytes one JSON-RPC message of an answer may take: under the 1 MiB (1,048,576
/// bytes) that clients cap one message or server-sent event at (the Python SDK, and so
/// fast-agent), with room for the transport's framing. An answer carries its content twice
/// (the text block, itself JSON escaped once more, and `structuredContent`), so a window is
/// fitted to what fits in one message, not only to [`crate::window::MAX_WINDOW_BYTES`].
pub const MAX_MESSAGE_BYTES: usize = 1_000_000;

/// The largest binary file `resources/read` serves, as a blob resource (base64): 700,000
/// bytes, 933,336 characters of base64, so the answer stays within one message
/// ([`MAX_MESSAGE_BYTES`]) with room for its URI and MIME type. A larger binary file is
/// refused with a sentence naming where to get it.
pub const MAX_BLOB_BYTES: u64 = 700_000;

// Base64 takes 4 characters for each 3 bytes (rounded up); 60,000 bytes are left for the rest.
const _: () = assert!(MAX_BLOB_BYTES.div_ceil(3) * 4 + 60_000 <= MAX_MESSAGE_BYTES as u64);
