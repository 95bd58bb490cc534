//! Python: classes and functions (methods directly in a class), spanning their decorators as
//! `decorated_definition` wraps them; comments above are not part of them, as in Python's `ast`.

use tree_sitter::Node;

use super::found::{Found, function_kind, named, wrapped_by};
use crate::outline::definition::Kind;

/// The node kinds [`classify`] may call a definition (the walk asks it of no other).
pub(super) const KINDS: &[&str] = &["class_definition", "function_definition"];

pub(super) fn classify<'t>(node: Node<'t>, src: &[u8], in_type: bool) -> Option<Found<'t>> {
    let kind = match node.kind() {
        "class_definition" => Kind::Class,
        "function_definition" => function_kind(in_type),
        _ => return None,
    };
    let mut found = named(node, kind, src)?;
    found.extent = wrapped_by(node, &["decorated_definition"]);
    Some(found)
}
