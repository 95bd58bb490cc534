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

    /// The tree-sitter grammar, or `None` when this binary was built without its cargo feature
    /// ([`Language::feature`]).
    pub fn grammar(self) -> Option<tree_sitter::Language> {
        match self {
            #[cfg(feature = "lang-python")]
            Language::Python => Some(tree_sitter_python::LANGUAGE.into()),
            #[cfg(feature = "lang-javascript")]
            Language::JavaScript => Some(tree_sitter_javascript::LANGUAGE.into()),
            #[cfg(feature = "lang-javascript")]
            Language::TypeScript => Some(tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()),
            #[cfg(feature = "lang-javascript")]
            Language::Tsx => Some(tree_sitter_typescript::LANGUAGE_TSX.into()),
            #[cfg(feature = "lang-go")]
            Language::Go => Some(tree_sitter_go::LANGUAGE.into()),
            #[cfg(feature = "lang-rust")]
            Language::Rust => Some(tree_sitter_rust::LANGUAGE.into()),
            #[cfg(feature = "lang-java")]
            Language::Java => Some(tree_sitter_java::LANGUAGE.into()),
            #[cfg(feature = "lang-ruby")]
            Language::Ruby => Some(tree_sitter_ruby::LANGUAGE.into()),
            #[cfg(feature = "lang-c")]
            Language::C => Some(tree_sitter_c::LANGUAGE.into()),
            #[cfg(feature = "lang-c")]
            Language::Cpp => Some(tree_sitter_cpp::LANGUAGE.into()),
            #[cfg(feature = "lang-csharp")]
            Language::CSharp => Some(tree_sitter_c_sharp::LANGUAGE.into()),
            #[cfg(feature = "lang-php")]
            Language::Php => Some(tree_sitter_php::LANGUAGE_PHP.into()),
            // Only reachable in a build without some grammar's feature.
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// The grammar's `node-types.json`: what each kind of node may contain (`None` as for
    /// [`Language::grammar`]).
    pub(super) fn node_types(self) -> Option<&'static str> {
        match self {
            #[cfg(feature = "lang-python")]
            Language::Python => Some(tree_sitter_python::NODE_TYPES),
            #[cfg(feature = "lang-javascript")]
            Language::JavaScript => Some(tree_sitter_javascript::NODE_TYPES),
            #[cfg(feature = "lang-javascript")]
            Language::TypeScript => Some(tree_sitter_typescript::TYPESCRIPT_NODE_TYPES),
            #[cfg(feature = "lang-javascript")]
            Language::Tsx => Some(tree_sitter_typescript::TSX_NODE_TYPES),
            #[cfg(feature = "lang-go")]
            Language::Go => Some(tree_sitter_go::NODE_TYPES),
            #[cfg(feature = "lang-rust")]
            Language::Rust => Some(tree_sitter_rust::NODE_TYPES),
            #[cfg(feature = "lang-java")]
            Language::Java => Some(tree_sitter_java::NODE_TYPES),
            #[cfg(feature = "lang-ruby")]
            Language::Ruby => Some(tree_sitter_ruby::NODE_TYPES),
            #[cfg(feature = "lang-c")]
            Language::C => Some(tree_sitter_c::NODE_TYPES),
            #[cfg(feature = "lang-c")]
            Language::Cpp => Some(tree_sitter_cpp::NODE_TYPES),
            #[cfg(feature = "lang-csharp")]
            Language::CSharp => Some(tree_sitter_c_sharp::NODE_TYPES),
            #[cfg(feature = "lang-php")]
            Language::Php => Some(tree_sitter_php::PHP_NODE_TYPES),
            // Only reachable in a build without some grammar's feature.
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// The cargo feature that builds this language's grammar in (one per grammar group:
    /// JavaScript, TypeScript and TSX share one, C and C++ another; all are on by default).
    pub fn feature(self) -> &'static str {
        match self {
            Language::Python => "lang-python",
            Language::JavaScript | Language::TypeScript | Language::Tsx => "lang-javascript",
            Language::Go => "lang-go",
            Language::Rust => "lang-rust",
            Language::Java => "lang-java",
            Language::Ruby => "lang-ruby",
            Language::C | Language::Cpp => "lang-c",
            Language::CSharp => "lang-csharp",
            Language::Php => "lang-php",
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
                parser.set_language(&language.grammar().unwrap()).is_ok(),
                "{language:?}"
            );
        }
    }
}
