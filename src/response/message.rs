//! What one answer weighs on the wire, and fitting an answer into one JSON-RPC message of at
//! most [`MAX_MESSAGE_BYTES`]: an answer is sent as `structuredContent` and again as a text
//! block holding the same JSON escaped once more, so its content counts about twice, and up to
//! three times its escaped length (a `"` is `\"` in one copy and `\\\"` in the other). Pure.

use serde_json::Value;

use crate::limits::MAX_MESSAGE_BYTES;

/// Bytes of a result message beside its two copies of the answer: the JSON-RPC envelope
/// (`jsonrpc`, `id`, `result`, `content`, `type`, `isError`) and an SSE event's framing, with
/// room to spare (a request id is at most a few dozen bytes in practice).
const FRAMING_BYTES: usize = 1_000;

/// How many times an answer is fitted again with a smaller budget before it is sent as it is.
const MAX_REFITS: usize = 8;

/// Bytes of the message that sends `answer`: its compact JSON, the same JSON as a JSON string
/// (the text block), and [`FRAMING_BYTES`].
pub(crate) fn message_bytes(answer: &Value) -> usize {
    let structured = answer.to_string();
    let structured_bytes = structured.len();
    let text_bytes = Value::String(structured).to_string().len();
    structured_bytes + text_bytes + FRAMING_BYTES
}

/// The character budget that should bring an answer of `bytes` whose content was charged
/// `charged` within [`MAX_MESSAGE_BYTES`]: the budget scaled by the room over the size, a
/// fiftieth less for the envelope's share. `None` when the content is not what makes it large.
fn smaller_budget(charged: u64, bytes: usize) -> Option<u64> {
    if charged == 0 || bytes <= MAX_MESSAGE_BYTES {
        return None;
    }
    let room = (MAX_MESSAGE_BYTES - FRAMING_BYTES) as u128;
    let scaled = u128::from(charged) * room * 49 / (bytes as u128 * 50);
    u64::try_from(scaled).ok().filter(|&b| b > 0 && b < charged)
}

/// Renders an answer with `budget` (`render` gives the answer and what its content was
/// charged), and again with a smaller budget while its message would pass
/// [`MAX_MESSAGE_BYTES`]. The smaller answer's hints name the budget it was fitted to and the
/// next window, as for any budget.
pub(crate) fn within_one_message<E>(
    budget: u64,
    mut render: impl FnMut(u64) -> Result<(Value, u64), E>,
) -> Result<Value, E> {
    let (mut answer, mut charged) = render(budget)?;
    for _ in 0..MAX_REFITS {
        match smaller_budget(charged, message_bytes(&answer)) {
            Some(smaller) => (answer, charged) = render(smaller)?,
            None => break,
        }
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_answer_weighs_its_two_copies_and_the_framing() {
        // {"a":"x\"y"} is 12 bytes; as a JSON string, its quotes included, 20.
        let answer = json!({"a": "x\"y"});
        assert_eq!(answer.to_string().len(), 12);
        assert_eq!(message_bytes(&answer), 12 + 20 + FRAMING_BYTES);
    }

    #[test]
    fn the_budget_shrinks_with_the_room_over_the_size() {
        assert_eq!(smaller_budget(1000, MAX_MESSAGE_BYTES), None);
        assert_eq!(smaller_budget(0, 5 * MAX_MESSAGE_BYTES), None);
        // Twice too large: a little under half the budget.
        let b = smaller_budget(1_000_000, 2 * MAX_MESSAGE_BYTES).unwrap();
        assert!((480_000..500_000).contains(&b), "{b}");
    }

    /// A stand-in for a window: `budget` characters of `unit` each (0 = no budget: 2,000,000).
    fn render(unit: &str) -> impl FnMut(u64) -> Result<(Value, u64), ()> + '_ {
        move |budget| {
            let n = if budget == 0 { 2_000_000 } else { budget };
            let content = unit.repeat(usize::try_from(n).unwrap());
            Ok((json!({"path": "a", "content": content}), n))
        }
    }

    #[test]
    fn every_answer_fits_one_message_whatever_its_characters() {
        for unit in ["x", "\"", "\\", "\n", "\u{1}", "é", "😀"] {
            let answer = within_one_message(0, render(unit)).unwrap();
            let bytes = message_bytes(&answer);
            assert!(bytes <= MAX_MESSAGE_BYTES, "{unit:?}: {bytes}");
            // As much as fits: within a tenth of the cap.
            assert!(bytes > MAX_MESSAGE_BYTES * 9 / 10, "{unit:?}: {bytes}");
        }
    }

    #[test]
    fn an_answer_that_fits_is_rendered_once() {
        let mut calls = 0;
        let answer = within_one_message(10, |b| {
            calls += 1;
            Ok::<_, ()>((json!({"content": "x".repeat(b as usize)}), b))
        })
        .unwrap();
        assert_eq!((calls, answer["content"].as_str().unwrap().len()), (1, 10));
    }
}
