//! Ruby: classes, modules, methods (`def self.x` included) and top-level functions; `#`
//! comments just above are their docs.

use tree_sitter::Node;

use super::found::{Found, function_kind, named};
use crate::outline::definition::Kind;

/// The node kinds [`classify`] may call a definition (the walk asks it of no other).
pub(super) const KINDS: &[&str] = &["class", "module", "method", "singleton_method"];

pub(super) fn classify<'t>(node: Node<'t>, src: &[u8], in_type: bool) -> Option<Found<'t>> {
    let kind = match node.kind() {
        "class" => Kind::Class,
        "module" => Kind::Module,
        "method" => function_kind(in_type),
        "singleton_method" => Kind::Method,
        _ => return None,
    };
    let mut found = named(node, kind, src)?;
    // `A::B` is a class B inside A.
    found.name = found.name.replace("::", ".");
    Some(found)
}
