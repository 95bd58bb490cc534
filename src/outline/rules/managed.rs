//! Java and C#: types (classes, records, interfaces, enums, structs, annotation types),
//! namespaces, methods, constructors and C# properties and local functions. Annotations and
//! attributes are inside a declaration's node; `/** */` (Java) or `///` and `[…]` (C#) just
//! above are part of it.

use tree_sitter::Node;

use super::found::{Found, function_kind, named};
use crate::outline::definition::Kind;

/// The node kinds [`classify`] may call a definition (the walk asks it of no other).
pub(super) const KINDS: &[&str] = &[
    "class_declaration",
    "record_declaration",
    "interface_declaration",
    "annotation_type_declaration",
    "enum_declaration",
    "struct_declaration",
    "namespace_declaration",
    "file_scoped_namespace_declaration",
    "method_declaration",
    "constructor_declaration",
    "compact_constructor_declaration",
    "property_declaration",
    "local_function_statement",
];

pub(super) fn classify<'t>(node: Node<'t>, src: &[u8], in_type: bool) -> Option<Found<'t>> {
    let kind = match node.kind() {
        "class_declaration" | "record_declaration" => Kind::Class,
        "interface_declaration" | "annotation_type_declaration" => Kind::Interface,
        "enum_declaration" => Kind::Enum,
        "struct_declaration" => Kind::Struct,
        "namespace_declaration" | "file_scoped_namespace_declaration" => Kind::Namespace,
        "method_declaration" => Kind::Method,
        "constructor_declaration" | "compact_constructor_declaration" => Kind::Constructor,
        "property_declaration" => Kind::Property,
        "local_function_statement" => function_kind(in_type),
        _ => return None,
    };
    named(node, kind, src)
}
