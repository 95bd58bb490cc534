//! The languages an outline can be made of, chosen by the language a repository declares for
//! a file (GitLab's `language`) or else by its extension (pure), and the tree-sitter grammar of
//! each.

/// A language with a grammar and definition rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    Python,
    /// JavaScript and JSX (one grammar parses both).
    JavaScript,
    TypeScript,
    Tsx,
    Go,
    Rust,
    Java,
    Ruby,
    C,
    Cpp,
    CSharp,
    Php,
}

/// The supported languages as the unsupported-file error names them.
pub(crate) const SUPPORTED: &str =
    "Python, JavaScript/JSX, TypeScript/TSX, Go, Rust, Java, Ruby, C, C++, C# and PHP";

impl Language {
    /// Every language, in the order [`SUPPORTED`] names them.
    pub const ALL: [Language; 12] = [
        Language::Python,
        Language::JavaScript,
        Language::TypeScript,
        Language::Tsx,
        Language::Go,
        Language::Rust,
        Language::Java,
        Language::Ruby,
        Language::C,
        Language::Cpp,
        Language::CSharp,
        Language::Php,
    ];

    /// The language of the file at `path`, by its extension (case-insensitive), or `None`.
    pub fn of_path(path: &str) -> Option<Language> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let (_, ext) = name.rsplit_once('.')?;
        Some(match ext.to_ascii_lowercase().as_str() {
            "py" | "pyi" | "pyw" => Language::Python,
            "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "go" => Language::Go,
            "rs" => Language::Rust,
            "java" => Language::Java,
            "rb" | "rake" | "gemspec" | "ru" => Language::Ruby,
            "c" | "h" => Language::C,
            "cc" | "cpp" | "cxx" | "c++" | "hh" | "hpp" | "hxx" | "h++" | "ipp" | "tpp" => {
                Language::Cpp
            }
            "cs" => Language::CSharp,
            "php" | "phtml" | "php8" => Language::Php,
            _ => return None,
        })
    }

    /// The language of a file: the one its repository declares (`declared`, GitLab's
    /// `language`) when it is one of ours, else the one its extension names, else `None`.
    pub fn of_file(declared: Option<&str>, path: &str) -> Option<Language> {
        declared
            .and_then(Language::of_declared)
            .or_else(|| Language::of_path(path))
    }

    /// The language a `gitlab-language` attribute names (GitLab's `language`: a Rouge lexer
    /// tag, case-insensitive, with options after a `?` as in `erb?parent=json`), or `None`
    /// for a language without a grammar here.
    pub fn of_declared(tag: &str) -> Option<Language> {
        let lexer = tag.split('?').next().unwrap_or(tag).trim();
        Some(match lexer.to_ascii_lowercase().as_str() {
            "python" | "py" | "python3" => Language::Python,
            "javascript" | "js" | "jsx" => Language::JavaScript,
            "typescript" | "ts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "go" | "golang" => Language::Go,
            "rust" | "rs" => Language::Rust,
            "java" => Language::Java,
            "ruby" | "rb" => Language::Ruby,
            "c" => Language::C,
            "cpp" | "c++" => Language::Cpp,
            "csharp" | "c#" | "cs" => Language::CSharp,
            "php" => Language::Php,
            _ => return None,
        })
    }

    /// The name `metadata.outline.language` gives.
    pub fn as_str(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::Go => "go",
            Language::Rust => "rust",
            Language::Java => "java",
            Language::Ruby => "ruby",
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::CSharp => "csharp",
            Language::Php => "php",
        }
    }

    /// The tree-sitter grammar.
    pub fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Language::Go => tree_sitter_go::LANGUAGE.into(),
            Language::Rust => tree_sitter_rust::LANGUAGE.into(),
            Language::Java => tree_sitter_java::LANGUAGE.into(),
            Language::Ruby => tree_sitter_ruby::LANGUAGE.into(),
            Language::C => tree_sitter_c::LANGUAGE.into(),
            Language::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            Language::CSharp => tree_sitter_c_sharp::LANGUAGE.into(),
            Language::Php => tree_sitter_php::LANGUAGE_PHP.into(),
        }
    }

    /// The grammar's `node-types.json`: what each kind of node may contain.
    pub(super) fn node_types(self) -> &'static str {
        match self {
            Language::Python => tree_sitter_python::NODE_TYPES,
            Language::JavaScript => tree_sitter_javascript::NODE_TYPES,
            Language::TypeScript => tree_sitter_typescript::TYPESCRIPT_NODE_TYPES,
            Language::Tsx => tree_sitter_typescript::TSX_NODE_TYPES,
            Language::Go => tree_sitter_go::NODE_TYPES,
            Language::Rust => tree_sitter_rust::NODE_TYPES,
            Language::Java => tree_sitter_java::NODE_TYPES,
            Language::Ruby => tree_sitter_ruby::NODE_TYPES,
            Language::C => tree_sitter_c::NODE_TYPES,
            Language::Cpp => tree_sitter_cpp::NODE_TYPES,
            Language::CSharp => tree_sitter_c_sharp::NODE_TYPES,
            Language::Php => tree_sitter_php::PHP_NODE_TYPES,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_by_extension() {
        let cases = [
            ("a/b.py", Some(Language::Python)),
            ("B.PY", Some(Language::Python)),
            ("x.jsx", Some(Language::JavaScript)),
            ("x.d.ts", Some(Language::TypeScript)),
            ("x.tsx", Some(Language::Tsx)),
            ("lib.rs", Some(Language::Rust)),
            ("a.hpp", Some(Language::Cpp)),
            ("a.h", Some(Language::C)),
            ("Program.cs", Some(Language::CSharp)),
            ("README.md", None),
            ("Makefile", None),
            ("dir.py/file", None),
            (".rs", Some(Language::Rust)),
        ];
        for (path, want) in cases {
            assert_eq!(Language::of_path(path), want, "{path}");
        }
    }

    #[test]
    fn a_declared_language_wins_over_the_extension() {
        let cases = [
            // The attribute names a language of ours: it decides, extension or not.
            (Some("ruby"), "Nicefile", Some(Language::Ruby)),
            (Some("cpp"), "include/vec.h", Some(Language::Cpp)),
            (Some("C++"), "a.inc", Some(Language::Cpp)),
            (Some(" PHP "), "page.inc", Some(Language::Php)),
            // Rouge's options after `?` are not part of the lexer's name.
            (
                Some("javascript?foo=bar"),
                "x.es",
                Some(Language::JavaScript),
            ),
            // A language without a grammar here, or none declared: the extension decides.
            (Some("erb"), "view.rb", Some(Language::Ruby)),
            (Some(""), "main.go", Some(Language::Go)),
            (None, "main.go", Some(Language::Go)),
            (Some("markdown"), "README.md", None),
            (None, "Nicefile", None),
        ];
        for (declared, path, want) in cases {
            assert_eq!(
                Language::of_file(declared, path),
                want,
                "{declared:?} {path}"
            );
        }
    }

    #[test]
    fn every_grammar_loads() {
        for language in Language::ALL {
            let mut parser = tree_sitter::Parser::new();
            assert!(
                parser.set_language(&language.grammar()).is_ok(),
                "{language:?}"
            );
        }
    }
}
