//! The outline of a text ([`outline`], and [`outline_until`] that can be stopped): one
//! tree-sitter parse, one walk of the tree, and why it can fail ([`OutlineError`]).

use std::convert::Infallible;
use std::ops::ControlFlow;

use tree_sitter::{ParseOptions, ParseState};

use super::definition::Outline;
use super::language::Language;
use super::lead::WalkSteps;
use super::memory::Meter;
use super::reach::Kinds;
use super::walk;

/// The longest any parse may take ([`parse_budget`]).
pub(crate) const PARSE_SECONDS_BASE: u64 = 2;
/// And how much longer per MiB of source (started).
pub(crate) const PARSE_SECONDS_PER_MIB: u64 = 1;

/// The longest the parse of `bytes` of source may take: 2 s, and 1 s more per started MiB
/// (0 bytes: 2 s; 1 byte to 1 MiB: 3 s; 1 MiB and one byte: 4 s; 12 MiB, the largest file
/// outlined: 14 s). A valid file parses at 3–6 MB/s on a 2-core VM (release), so a 12 MiB one
/// needs 2–4 s of its 14. A broken one can take far longer (tree-sitter's error recovery:
/// 20 s for 2 MiB of junk as TypeScript); past its budget it is refused, rather than holding
/// a pool thread until the call's deadline.
pub(crate) fn parse_budget(bytes: u64) -> std::time::Duration {
    let mib = bytes.div_ceil(1 << 20);
    std::time::Duration::from_secs(PARSE_SECONDS_BASE + PARSE_SECONDS_PER_MIB * mib)
}

/// Why a text could not be outlined.
#[derive(Debug, thiserror::Error)]
pub enum OutlineError {
    /// This binary was built without the language's grammar (`--no-default-features`).
    #[error(
        "outlines of {language} files are not built into this binary: it was built without the cargo feature `{feature}` (rebuild with `--features {feature}`, or use a release build, which has every grammar)",
        language = .0.as_str(),
        feature = .0.feature()
    )]
    NotBuiltIn(Language),
    /// The grammar does not fit the parser's ABI (a build problem, never expected).
    #[error("the {language} grammar cannot be loaded: {source}", language = .language.as_str())]
    Grammar {
        language: Language,
        #[source]
        source: tree_sitter::LanguageError,
    },
    /// The parser gave no tree (only a cancelled parse does, and a cancelled parse is
    /// [`outline_until`]'s outer error).
    #[error("the {} parser gave no syntax tree", .0.as_str())]
    NoTree(Language),
    /// The parse was stopped when its syntax tree passed `budget` bytes ([`Meter`]).
    #[error(
        "the {language} parse was stopped when its syntax tree passed {budget} bytes",
        language = .language.as_str()
    )]
    OverMemory { language: Language, budget: u64 },
}

/// The outline of `text` in `language`: one parse, one walk of the tree.
pub fn outline(text: &str, language: Language) -> Result<Outline, OutlineError> {
    walked_whole(text, language, Kinds::of(language))
}

/// [`outline`], asking `go_on` whether to go on while it parses (tree-sitter's progress
/// callback, every hundred or so steps of its parser: microseconds apart): its error, if it
/// answers one, ends the parse (the outer `Err`). The parse is the part whose time and
/// memory have no good bound (error recovery in a broken file: 20 s for 2 MiB of junk
/// TypeScript; 60 to 200 bytes of tree per byte of source); the walk after it is linear in
/// the tree. A parse whose tree passes `memory` bytes ([`Meter::held`]) is stopped at the next
/// callback and answers [`OutlineError::OverMemory`].
pub fn outline_until<E>(
    text: &str,
    language: Language,
    memory: u64,
    go_on: impl FnMut() -> Result<(), E>,
) -> Result<Result<Outline, OutlineError>, E> {
    walked(text, language, Kinds::of(language), memory, go_on)
}

/// [`outline`] by a walk of every node, without the pruning of [`Kinds`]: what the pruned
/// walk must find (the outline fuzz target compares the two).
pub(crate) fn outline_of_every_node(
    text: &str,
    language: Language,
) -> Result<Outline, OutlineError> {
    walked_whole(text, language, Kinds::everything())
}

/// [`walked`] without a way to stop.
fn walked_whole(text: &str, language: Language, kinds: &Kinds) -> Result<Outline, OutlineError> {
    let never_stopped = walked(text, language, kinds, u64::MAX, || Ok::<(), Infallible>(()));
    never_stopped.unwrap_or_else(|never| match never {})
}

/// The parse (stopped when `go_on` errs, or its tree passes `memory` bytes) and a walk
/// entering what `kinds` says.
fn walked<E>(
    text: &str,
    language: Language,
    kinds: &Kinds,
    memory: u64,
    mut go_on: impl FnMut() -> Result<(), E>,
) -> Result<Result<Outline, OutlineError>, E> {
    // First: the meter installs the counting allocator before this crate's first parser.
    let meter = Meter::start();
    let mut parser = tree_sitter::Parser::new();
    let Some(grammar) = language.grammar() else {
        return Ok(Err(OutlineError::NotBuiltIn(language)));
    };
    if let Err(source) = parser.set_language(&grammar) {
        return Ok(Err(OutlineError::Grammar { language, source }));
    }
    let mut stopped = None;
    let mut over_memory = false;
    let mut progress = |_: &ParseState| {
        if meter.held() > memory {
            over_memory = true;
            return ControlFlow::Break(());
        }
        match go_on() {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                stopped = Some(e);
                ControlFlow::Break(())
            }
        }
    };
    let bytes = text.as_bytes();
    let options = ParseOptions::new().progress_callback(&mut progress);
    let tree = parser.parse_with_options(
        &mut |at, _| bytes.get(at..).unwrap_or_default(),
        None,
        Some(options),
    );
    if let Some(e) = stopped {
        return Err(e);
    }
    if over_memory {
        return Ok(Err(OutlineError::OverMemory {
            language,
            budget: memory,
        }));
    }
    let Some(tree) = tree else {
        return Ok(Err(OutlineError::NoTree(language)));
    };
    let mut steps = WalkSteps::new(&mut go_on);
    let walked = walk::definitions(&tree, bytes, language, kinds, &mut steps)?;
    Ok(Ok(Outline {
        language,
        definitions: walked.definitions,
        partial: tree.root_node().has_error(),
        too_deep: walked.too_deep,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_grammar_not_built_in_names_the_feature_that_builds_it() {
        let e = OutlineError::NotBuiltIn(Language::Tsx).to_string();
        assert!(e.starts_with("outlines of tsx files are not built"), "{e}");
        assert!(e.contains("`--features lang-javascript`"), "{e}");
        // Every language's feature is one Cargo.toml declares.
        let manifest = include_str!("../../Cargo.toml");
        for language in Language::ALL {
            let declared = format!("\n{} = [\"dep:tree-sitter-", language.feature());
            assert!(manifest.contains(&declared), "{language:?}: {declared}");
        }
    }

    #[test]
    fn the_parse_budget_grows_by_the_started_mib() {
        let mib = 1 << 20;
        assert_eq!(parse_budget(0), Duration::from_secs(2));
        assert_eq!(parse_budget(1), Duration::from_secs(3));
        assert_eq!(parse_budget(mib), Duration::from_secs(3));
        assert_eq!(parse_budget(mib + 1), Duration::from_secs(4));
        assert_eq!(parse_budget(12 * mib), Duration::from_secs(14));
        assert_eq!(parse_budget(u64::MAX).as_secs(), 2 + u64::MAX.div_ceil(mib));
    }

    #[test]
    fn a_parse_asks_as_it_goes_and_ends_when_told() {
        let text = "def f():\n    return [1, 2, 3]\n".repeat(2_000);
        let mut asked = 0;
        let whole = outline_until(&text, Language::Python, u64::MAX, || {
            asked += 1;
            Ok::<(), ()>(())
        });
        assert_eq!(whole.unwrap().unwrap().definitions.len(), 2_000);
        assert!(asked > 10, "asked {asked} times");
        let mut left = 5;
        let stopped = outline_until(&text, Language::Python, u64::MAX, || {
            left -= 1;
            if left > 0 { Ok(()) } else { Err("enough") }
        });
        assert_eq!(stopped.unwrap_err(), "enough");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_parse_whose_tree_passes_its_memory_is_refused() {
        let text = "def f():\n    return [1, 2, 3]\n".repeat(2_000);
        let go_on = || Ok::<(), ()>(());
        let refused = outline_until(&text, Language::Python, 100_000, go_on).unwrap();
        assert!(
            matches!(
                refused,
                Err(OutlineError::OverMemory {
                    language: Language::Python,
                    budget: 100_000
                })
            ),
            "{refused:?}"
        );
        // 62 KB of source: a few MB of tree, well within 64 MiB.
        let outlined = outline_until(&text, Language::Python, 64 << 20, go_on).unwrap();
        assert_eq!(outlined.unwrap().definitions.len(), 2_000);
    }
}
