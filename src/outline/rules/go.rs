//! Go: functions, methods (qualified by their receiver's type, `Server.ServeHTTP`), and type
//! declarations (struct, interface, other types). `//` comments just above are their docs.

use tree_sitter::Node;

use super::found::{Found, named, text};
use crate::outline::definition::Kind;

/// The node kinds [`classify`] may call a definition (the walk asks it of no other).
pub(super) const KINDS: &[&str] = &[
    "function_declaration",
    "method_declaration",
    "type_spec",
    "type_alias",
];

pub(super) fn classify<'t>(node: Node<'t>, src: &[u8]) -> Option<Found<'t>> {
    match node.kind() {
        "function_declaration" => named(node, Kind::Function, src),
        "method_declaration" => {
            let mut found = named(node, Kind::Method, src)?;
            found.qualifier = receiver_type(node, src);
            Some(found)
        }
        "type_spec" | "type_alias" => type_spec(node, src),
        _ => None,
    }
}

/// A type, spanning its `type` declaration when that declares only it.
fn type_spec<'t>(node: Node<'t>, src: &[u8]) -> Option<Found<'t>> {
    let kind = match node.child_by_field_name("type").map(|t| t.kind()) {
        Some("struct_type") => Kind::Struct,
        Some("interface_type") => Kind::Interface,
        _ => Kind::Type,
    };
    let mut found = named(node, kind, src)?;
    if let Some(decl) = node.parent().filter(|p| p.named_child_count() == 1) {
        found.extent = decl;
    }
    Some(found)
}

/// The receiver's type name: `*Server` and `Server[T]` are `Server`.
fn receiver_type(node: Node<'_>, src: &[u8]) -> Option<String> {
    let receiver = node.child_by_field_name("receiver")?;
    let param = receiver.named_child(0)?;
    let mut ty = param.child_by_field_name("type")?;
    loop {
        ty = match ty.kind() {
            "pointer_type" => ty.named_child(0)?,
            "generic_type" => ty.child_by_field_name("type")?,
            _ => break,
        };
    }
    Some(text(ty, src).to_string())
}
