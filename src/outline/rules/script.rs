//! JavaScript, JSX, TypeScript and TSX: classes, functions (declared, or an arrow or function
//! expression bound by `const`/`let`/`var`), methods, and TypeScript's interfaces, type
//! aliases, enums, namespaces and overload signatures. An `export` wraps what it exports.

use tree_sitter::Node;

use super::found::{Found, function_kind, named, text, wrapped_by};
use crate::outline::definition::Kind;

/// The node kinds [`classify`] may call a definition (the walk asks it of no other).
pub(super) const KINDS: &[&str] = &[
    "class_declaration",
    "abstract_class_declaration",
    "function_declaration",
    "generator_function_declaration",
    "function_signature",
    "method_definition",
    "method_signature",
    "abstract_method_signature",
    "interface_declaration",
    "type_alias_declaration",
    "enum_declaration",
    "internal_module",
    "module",
    "variable_declarator",
];

pub(super) fn classify<'t>(node: Node<'t>, src: &[u8], in_type: bool) -> Option<Found<'t>> {
    let kind = match node.kind() {
        "class_declaration" | "abstract_class_declaration" => Kind::Class,
        "function_declaration" | "generator_function_declaration" | "function_signature" => {
            function_kind(in_type)
        }
        "method_definition" | "method_signature" | "abstract_method_signature" => Kind::Method,
        "interface_declaration" => Kind::Interface,
        "type_alias_declaration" => Kind::Type,
        "enum_declaration" => Kind::Enum,
        "internal_module" | "module" => Kind::Namespace,
        "variable_declarator" => return bound_function(node, src, in_type),
        _ => return None,
    };
    let mut found = named(node, kind, src)?;
    found.extent = wrapped_by(node, &["export_statement"]);
    Some(found)
}

/// `const name = (…) => …` or `= function …`: a function, spanning its declaration when the
/// declaration binds only it.
fn bound_function<'t>(node: Node<'t>, src: &[u8], in_type: bool) -> Option<Found<'t>> {
    let value = node.child_by_field_name("value")?;
    let is_function = matches!(
        value.kind(),
        "arrow_function" | "function_expression" | "function" | "generator_function"
    );
    let name = node.child_by_field_name("name")?;
    if !is_function || name.kind() != "identifier" {
        return None;
    }
    let mut extent = node;
    if let Some(decl) = node.parent().filter(|p| p.named_child_count() == 1) {
        extent = wrapped_by(decl, &["export_statement"]);
    }
    Some(Found::new(
        function_kind(in_type),
        text(name, src).to_string(),
        extent,
    ))
}
