//! Which syntax nodes are definitions, per language: a node's kind and name, the node whose
//! lines it spans (a decorated or exported wrapper), and which comments and attributes just
//! above it belong to it. Pure functions of a node and the source.

mod c_family;
mod found;
mod go;
mod managed;
mod php;
mod python;
mod ruby;
mod rust;
mod script;

use tree_sitter::Node;

use super::language::Language;
pub(super) use found::Found;
use found::text;

/// The definition `node` makes in `language`, if any; `in_type` says whether the nearest
/// enclosing definition holds methods (so a function there is a method).
pub(super) fn classify<'t>(
    language: Language,
    node: Node<'t>,
    src: &[u8],
    in_type: bool,
) -> Option<Found<'t>> {
    match language {
        Language::Python => python::classify(node, src, in_type),
        Language::JavaScript | Language::TypeScript | Language::Tsx => {
            script::classify(node, src, in_type)
        }
        Language::Rust => rust::classify(node, src, in_type),
        Language::Go => go::classify(node, src),
        Language::Java | Language::CSharp => managed::classify(node, src, in_type),
        Language::Ruby => ruby::classify(node, src, in_type),
        Language::C | Language::Cpp => c_family::classify(node, src, in_type),
        Language::Php => php::classify(node, src),
    }
}

/// The node kinds [`classify`] may call a definition in `language`.
pub(super) fn kinds(language: Language) -> &'static [&'static str] {
    match language {
        Language::Python => python::KINDS,
        Language::JavaScript | Language::TypeScript | Language::Tsx => script::KINDS,
        Language::Rust => rust::KINDS,
        Language::Go => go::KINDS,
        Language::Java | Language::CSharp => managed::KINDS,
        Language::Ruby => ruby::KINDS,
        Language::C | Language::Cpp => c_family::KINDS,
        Language::Php => php::KINDS,
    }
}

/// Whether `sibling`, just above a definition, is part of it in `language` (a doc comment,
/// an attribute, a decorator).
pub(super) fn attaches(language: Language, sibling: Node<'_>, src: &[u8]) -> bool {
    // The text only of a comment (a sibling may be a whole class).
    let doc = |marker: &str| is_comment(sibling) && text(sibling, src).starts_with(marker);
    let doc_line = |marker: &str| is_comment(sibling) && doc_line(text(sibling, src), marker);
    match language {
        // As Python's `ast`: decorators are inside `decorated_definition`, comments are not.
        Language::Python => false,
        Language::JavaScript | Language::TypeScript | Language::Tsx => {
            sibling.kind() == "decorator" || doc("/**")
        }
        Language::Rust => sibling.kind() == "attribute_item" || doc_line("///") || doc("/**"),
        Language::Go | Language::Ruby => is_comment(sibling),
        Language::Java | Language::Php => doc("/**"),
        Language::CSharp => sibling.kind() == "attribute_list" || doc_line("///"),
        Language::C | Language::Cpp => doc("/**") || doc_line("///"),
    }
}

/// Whether `node` is a comment (every grammar names its comments so).
fn is_comment(node: Node<'_>) -> bool {
    node.kind().ends_with("comment")
}

/// A line doc comment starting with `marker` (`///`, not `////`).
fn doc_line(text: &str, marker: &str) -> bool {
    text.starts_with(marker) && !text[marker.len()..].starts_with('/')
}
