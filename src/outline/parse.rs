//! The outline of a text ([`outline`]): one tree-sitter parse, one walk of the tree, and why
//! it can fail ([`OutlineError`]).

use super::definition::Outline;
use super::language::Language;
use super::reach::Kinds;
use super::walk;

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
        definitions: walk::definitions(&tree, text.as_bytes(), language, Kinds::of(language)),
        partial: tree.root_node().has_error(),
    })
}
