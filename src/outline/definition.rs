//! What an outline holds: a definition's [`Kind`], one [`Definition`] (its lines, depth and
//! qualified name), and a file's [`Outline`].

use super::language::Language;

/// What a definition is, one word as the outline prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Class,
    Function,
    Method,
    Constructor,
    Property,
    Struct,
    Union,
    Enum,
    Trait,
    Impl,
    Interface,
    Type,
    Module,
    Namespace,
    Constant,
    Macro,
}

impl Kind {
    /// The word.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Class => "class",
            Kind::Function => "function",
            Kind::Method => "method",
            Kind::Constructor => "constructor",
            Kind::Property => "property",
            Kind::Struct => "struct",
            Kind::Union => "union",
            Kind::Enum => "enum",
            Kind::Trait => "trait",
            Kind::Impl => "impl",
            Kind::Interface => "interface",
            Kind::Type => "type",
            Kind::Module => "module",
            Kind::Namespace => "namespace",
            Kind::Constant => "constant",
            Kind::Macro => "macro",
        }
    }
}

/// One definition: 1-indexed inclusive lines, nesting depth (0 = top level), and its name
/// qualified by the definitions around it, `.`-separated (`Invoice.Status.parse`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    pub start_line: u64,
    pub end_line: u64,
    pub depth: usize,
    pub kind: Kind,
    pub name: String,
}

impl Definition {
    /// The last part of the qualified name (`parse` of `Invoice.Status.parse`).
    pub fn last_part(&self) -> &str {
        self.name.rsplit('.').next().unwrap_or(&self.name)
    }

    /// The outline's line for it, without indentation: `START-END KIND QUALIFIED_NAME`.
    pub fn line(&self) -> String {
        format!(
            "{}-{} {} {}",
            self.start_line,
            self.end_line,
            self.kind.as_str(),
            self.name
        )
    }
}

/// A file's definitions in file order, and whether its syntax tree had errors (tree-sitter
/// recovers, so the outline is then partial but still correct where the tree is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outline {
    pub language: Language,
    pub definitions: Vec<Definition>,
    pub partial: bool,
}

impl Outline {
    /// Bytes it holds, as the cache weighs it.
    pub(crate) fn weight(&self) -> u64 {
        let names: usize = self.definitions.iter().map(|d| d.name.len()).sum();
        let each = std::mem::size_of::<Definition>();
        (names + each * self.definitions.len() + std::mem::size_of::<Outline>()) as u64
    }
}
