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

/// Whether `sibling`, just above a definition, is part of it in `language` (a doc comment,
/// an attribute, a decorator).
pub(super) fn attaches(language: Language, sibling: Node<'_>, src: &[u8]) -> bool {
    let text = text(sibling, src);
    match language {
        // As Python's `ast`: decorators are inside `decorated_definition`, comments are not.
        Language::Python => false,
        Language::JavaScript | Language::TypeScript | Language::Tsx => {
            sibling.kind() == "decorator" || is_comment(sibling) && text.starts_with("/**")
        }
        Language::Rust => {
            sibling.kind() == "attribute_item"
                || is_comment(sibling) && (doc_line(text, "///") || text.starts_with("/**"))
        }
        Language::Go | Language::Ruby => is_comment(sibling),
        Language::Java | Language::Php => is_comment(sibling) && text.starts_with("/**"),
        Language::CSharp => {
            sibling.kind() == "attribute_list" || is_comment(sibling) && doc_line(text, "///")
        }
        Language::C | Language::Cpp => {
            is_comment(sibling) && (text.starts_with("/**") || doc_line(text, "///"))
        }
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
