//! PHP: classes, interfaces, traits, enums, namespaces, functions and methods; attributes are
//! inside a declaration's node, a `/** */` docblock just above is part of it.

use tree_sitter::Node;

use super::found::{Found, named};
use crate::outline::definition::Kind;

/// The node kinds [`classify`] may call a definition (the walk asks it of no other).
pub(super) const KINDS: &[&str] = &[
    "class_declaration",
    "interface_declaration",
    "trait_declaration",
    "enum_declaration",
    "namespace_definition",
    "function_definition",
    "method_declaration",
];

pub(super) fn classify<'t>(node: Node<'t>, src: &[u8]) -> Option<Found<'t>> {
    let kind = match node.kind() {
        "class_declaration" => Kind::Class,
        "interface_declaration" => Kind::Interface,
        "trait_declaration" => Kind::Trait,
        "enum_declaration" => Kind::Enum,
        "namespace_definition" => Kind::Namespace,
        "function_definition" => Kind::Function,
        "method_declaration" => Kind::Method,
        _ => return None,
    };
    let mut found = named(node, kind, src)?;
    found.name = found.name.replace('\\', ".");
    Some(found)
}
