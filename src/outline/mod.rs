//! A file's map: its definitions (kind, qualified name, lines including the decorators,
//! attributes and doc comments that belong to them), parsed with tree-sitter, for the
//! `outline` view; and one definition found by name, for the `symbol` view.
//!
//! Pure but for [`cache`]: [`outline`] parses a text once and walks its tree
//! ([`walk`], with each language's rules in [`rules`]); [`page`] cuts an outline into a page;
//! [`symbol`] picks a definition by name. Parsing is CPU work, called synchronously at the
//! view's dispatch.

mod cache;
mod language;
mod page;
mod rules;
mod symbol;
mod walk;

pub(crate) use cache::Outlines;
pub use language::Language;
pub(crate) use language::SUPPORTED;
pub(crate) use page::{OutlinePage, PageCap, page};
pub(crate) use symbol::{Picked, SymbolError, pick};

/// The largest file outlined (12 MiB): past GitLab's 10 MiB GraphQL cut (such files are read
/// whole, as for `pattern`), below what takes seconds to parse and a few hundred MiB of syntax
/// tree (tree-sitter holds about 25 bytes of tree per byte of source while it walks).
pub const MAX_OUTLINE_BYTES: u64 = 12 * 1024 * 1024;

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

/// Why a text could not be outlined.
#[derive(Debug, thiserror::Error)]
pub enum OutlineError {
    /// The grammar does not fit the parser's ABI (a build problem, never expected).
    #[error("the {language} grammar cannot be loaded: {source}", language = .language.as_str())]
    Grammar {
        language: Language,
        #[source]
        source: tree_sitter::LanguageError,
    },
    /// The parser gave no tree (only a cancelled parse does).
    #[error("the {} parser gave no syntax tree", .0.as_str())]
    NoTree(Language),
}

/// The outline of `text` in `language`: one parse, one walk of the tree.
pub fn outline(text: &str, language: Language) -> Result<Outline, OutlineError> {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&language.grammar())
        .map_err(|source| OutlineError::Grammar { language, source })?;
    let tree = parser
        .parse(text, None)
        .ok_or(OutlineError::NoTree(language))?;
    Ok(Outline {
        language,
        definitions: walk::definitions(&tree, text.as_bytes(), language),
        partial: tree.root_node().has_error(),
    })
}
