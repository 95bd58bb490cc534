//! Rust: items (functions, structs, enums, unions, traits, impls, modules, type aliases,
//! constants, statics, macros); a function in an impl or a trait is a method, qualified by the
//! impl's type. Attributes and `///` or `/** */` docs above an item are part of it.

use tree_sitter::Node;

use super::found::{Found, function_kind, named, text};
use crate::outline::definition::Kind;

/// The node kinds [`classify`] may call a definition (the walk asks it of no other).
pub(super) const KINDS: &[&str] = &[
    "function_item",
    "function_signature_item",
    "struct_item",
    "union_item",
    "enum_item",
    "trait_item",
    "impl_item",
    "mod_item",
    "type_item",
    "const_item",
    "static_item",
    "macro_definition",
];

pub(super) fn classify<'t>(node: Node<'t>, src: &[u8], in_type: bool) -> Option<Found<'t>> {
    let kind = match node.kind() {
        "function_item" => function_kind(in_type),
        "function_signature_item" => Kind::Method,
        "struct_item" => Kind::Struct,
        "union_item" => Kind::Union,
        "enum_item" => Kind::Enum,
        "trait_item" => Kind::Trait,
        "impl_item" => return implementation(node, src),
        "mod_item" => Kind::Module,
        "type_item" => Kind::Type,
        "const_item" | "static_item" => Kind::Constant,
        "macro_definition" => Kind::Macro,
        _ => return None,
    };
    let mut found = named(node, kind, src)?;
    // Functions in a module are functions.
    found.holds_methods = matches!(kind, Kind::Trait);
    Some(found)
}

/// `impl Type` (named `Type`) or `impl Trait for Type` (named so); what is inside is
/// qualified by `Type` without its generic arguments.
fn implementation<'t>(node: Node<'t>, src: &[u8]) -> Option<Found<'t>> {
    let ty = node.child_by_field_name("type")?;
    let base = match ty.kind() {
        "generic_type" => ty.child_by_field_name("type").unwrap_or(ty),
        _ => ty,
    };
    let type_name = text(base, src).to_string();
    let name = match node.child_by_field_name("trait") {
        Some(t) => format!("{} for {type_name}", text(t, src)),
        None => type_name.clone(),
    };
    let mut found = Found::new(Kind::Impl, name, node);
    found.scope = Some(type_name);
    Some(found)
}
