//! C and C++: function definitions (named through their declarators; `Class::method` defined
//! outside its class is a method of it), structs, unions, enums and classes with a body,
//! typedefs, namespaces; a template spans its `template <…>` line. `/** */` and `///` docs
//! just above are part of a definition.

use tree_sitter::Node;

use super::found::{Found, function_kind, named, text, wrapped_by};
use crate::outline::definition::Kind;

/// The node kinds [`classify`] may call a definition (the walk asks it of no other).
pub(super) const KINDS: &[&str] = &[
    "function_definition",
    "struct_specifier",
    "union_specifier",
    "enum_specifier",
    "class_specifier",
    "type_definition",
    "namespace_definition",
];

pub(super) fn classify<'t>(node: Node<'t>, src: &[u8], in_type: bool) -> Option<Found<'t>> {
    let mut found = match node.kind() {
        "function_definition" => function(node, src, in_type)?,
        "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier" => {
            specifier(node, src)?
        }
        "type_definition" => {
            let declarator = node.child_by_field_name("declarator")?;
            Found::new(Kind::Type, text(declarator, src).to_string(), node)
        }
        "namespace_definition" => named(node, Kind::Namespace, src)?,
        _ => return None,
    };
    found.extent = wrapped_by(found.extent, &["template_declaration"]);
    Some(found)
}

/// A struct, union, enum or class with a body and a name (a typedef's anonymous struct is the
/// typedef's).
fn specifier<'t>(node: Node<'t>, src: &[u8]) -> Option<Found<'t>> {
    node.child_by_field_name("body")?;
    if node.parent().is_some_and(|p| p.kind() == "type_definition") {
        return None;
    }
    let kind = match node.kind() {
        "struct_specifier" => Kind::Struct,
        "union_specifier" => Kind::Union,
        "enum_specifier" => Kind::Enum,
        _ => Kind::Class,
    };
    let mut found = named(node, kind, src)?;
    if let Some(decl) = node
        .parent()
        .filter(|p| p.kind() == "declaration" && p.named_child_count() == 1)
    {
        found.extent = decl;
    }
    Some(found)
}

/// A function named by its declarator chain (`*name(…)`, `Class::name(…)`, `~Class()`).
fn function<'t>(node: Node<'t>, src: &[u8], in_type: bool) -> Option<Found<'t>> {
    let mut declarator = node.child_by_field_name("declarator")?;
    while matches!(
        declarator.kind(),
        "function_declarator"
            | "pointer_declarator"
            | "reference_declarator"
            | "parenthesized_declarator"
            | "attributed_declarator"
    ) {
        declarator = declarator
            .child_by_field_name("declarator")
            .or_else(|| declarator.named_child(0))?;
    }
    let name = text(declarator, src).replace("::", ".");
    let (qualifier, own) = match name.rsplit_once('.') {
        Some((q, own)) => (Some(q.to_string()), own.to_string()),
        None => (None, name),
    };
    let kind = if qualifier.is_some() {
        Kind::Method
    } else {
        function_kind(in_type)
    };
    let mut found = Found::new(kind, own, node);
    found.qualifier = qualifier;
    Some(found)
}
