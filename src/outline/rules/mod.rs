//! Which syntax nodes are definitions, per language: a node's kind and name, the node whose
//! lines it spans (a decorated or exported wrapper), and which comments and attributes just
//! above it belong to it. Pure functions of a node and the source.

mod c_family;
mod go;
mod managed;
mod php;
mod python;
mod ruby;
mod rust;
mod script;

use tree_sitter::Node;

use super::Kind;
use super::language::Language;

/// A definition a node makes.
#[derive(Debug, Clone)]
pub(super) struct Found<'t> {
    pub kind: Kind,
    /// Its own name, as the outline prints its last part (`Display for Miss` for an impl).
    pub name: String,
    /// A qualifier after the enclosing definitions' (a Go method's receiver type, a C++
    /// `Class::method` defined outside its class).
    pub qualifier: Option<String>,
    /// What definitions inside it are qualified with, when not `name` (an impl: its type).
    pub scope: Option<String>,
    /// Definitions directly inside are methods.
    pub holds_methods: bool,
    /// The node whose lines the definition spans (before the comments above it).
    pub extent: Node<'t>,
}

impl<'t> Found<'t> {
    /// A definition of `kind` named `name`, spanning `extent`.
    fn new(kind: Kind, name: String, extent: Node<'t>) -> Self {
        Found {
            kind,
            name,
            qualifier: None,
            scope: None,
            holds_methods: matches!(
                kind,
                Kind::Class
                    | Kind::Struct
                    | Kind::Interface
                    | Kind::Trait
                    | Kind::Impl
                    | Kind::Enum
                    | Kind::Module
            ),
            extent,
        }
    }
}

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

/// The source text of `node` (empty if it is not UTF-8, which a `&str` source never is).
pub(super) fn text<'s>(node: Node<'_>, src: &'s [u8]) -> &'s str {
    std::str::from_utf8(&src[node.byte_range()]).unwrap_or_default()
}

/// The text of `node`'s field `field`.
fn field_text(node: Node<'_>, field: &str, src: &[u8]) -> Option<String> {
    node.child_by_field_name(field)
        .map(|n| text(n, src).to_string())
}

/// A definition of `kind` named by `node`'s `name` field, spanning `node`.
fn named<'t>(node: Node<'t>, kind: Kind, src: &[u8]) -> Option<Found<'t>> {
    Some(Found::new(kind, field_text(node, "name", src)?, node))
}

/// `node`'s parent when it is of kind `wrapper` (and wraps only `node` among named nodes),
/// else `node`: the lines a wrapped definition spans.
fn wrapped_by<'t>(node: Node<'t>, wrappers: &[&str]) -> Node<'t> {
    match node.parent() {
        Some(p) if wrappers.contains(&p.kind()) => p,
        _ => node,
    }
}

/// Function or method, by where it is.
fn function_kind(in_type: bool) -> Kind {
    if in_type {
        Kind::Method
    } else {
        Kind::Function
    }
}
