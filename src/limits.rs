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
pub const MAX_RESULT_ENVELOPE: u64 = 50_000;

/// The largest result a client is asked to take inline
/// (`anthropic/maxResultSizeChars`; Claude Code's maximum), and what is
/// declared when the server's default budget is 0.
pub const MAX_RESULT_CHARS: u64 = 500_000;
