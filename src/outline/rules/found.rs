//! A definition a node makes ([`Found`]), and the helpers each language's rules build one
//! with: a node's text, a definition named by a node's `name` field, the wrapper whose lines
//! a definition spans, function or method.

use tree_sitter::Node;

use crate::outline::definition::Kind;

/// A definition a node makes.
#[derive(Debug, Clone)]
pub(in crate::outline) struct Found<'t> {
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
    pub(super) fn new(kind: Kind, name: String, extent: Node<'t>) -> Self {
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
pub(super) fn named<'t>(node: Node<'t>, kind: Kind, src: &[u8]) -> Option<Found<'t>> {
    Some(Found::new(kind, field_text(node, "name", src)?, node))
}

/// `node`'s parent when it is of kind `wrapper` (and wraps only `node` among named nodes),
/// else `node`: the lines a wrapped definition spans.
pub(super) fn wrapped_by<'t>(node: Node<'t>, wrappers: &[&str]) -> Node<'t> {
    match node.parent() {
        Some(p) if wrappers.contains(&p.kind()) => p,
        _ => node,
    }
}

/// Function or method, by where it is.
pub(super) fn function_kind(in_type: bool) -> Kind {
    if in_type {
        Kind::Method
    } else {
        Kind::Function
    }
}
