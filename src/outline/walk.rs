//! One walk of a syntax tree in document order, without recursion (a deeply nested file
//! cannot overflow the stack), entering only nodes a definition may lie in ([`Kinds`]): each
//! node a language's rules call a definition becomes one,
//! qualified and indented by the definitions around it, its lines widened to the comments and
//! attributes just above that belong to it, its name as [`name::printed`] prints it.
//!
//! Bounded whatever the file: definitions nested [`MAX_DEPTH`] deep are counted but not
//! entered (the work per definition and the length of a qualified name grow with the depth,
//! so 10,000 nested functions would take minutes and gigabytes), and the walk asks whether to
//! go on every [`NODES_PER_ASK`] nodes.

use tree_sitter::{Node, Tree};

use super::definition::Definition;
use super::language::Language;
use super::name;
use super::reach::Kinds;
use super::rules::{self, Found};

/// Definitions inside this many enclosing definitions are counted, not listed, nor entered.
pub(crate) const MAX_DEPTH: usize = 32;

/// Nodes visited between two questions whether to go on (microseconds of work).
const NODES_PER_ASK: u32 = 4096;

/// What a walk found: the definitions in file order, and how many were left out at
/// [`MAX_DEPTH`] (their contents not counted).
pub(super) struct Walked {
    pub definitions: Vec<Definition>,
    pub too_deep: usize,
}

/// A definition the walk is inside: where its node ends, what its contents are qualified
/// with, and whether functions directly in it are methods.
struct Open {
    end_byte: usize,
    scope: String,
    holds_methods: bool,
}

/// The definitions of `tree`, parsed from `src` in `language`, in file order; `kinds` says
/// which nodes to enter and classify. Asks `go_on` as it goes: its error ends the walk.
pub(super) fn definitions<E>(
    tree: &Tree,
    src: &[u8],
    language: Language,
    kinds: &Kinds,
    go_on: &mut impl FnMut() -> Result<(), E>,
) -> Result<Walked, E> {
    let mut found = Vec::new();
    let mut too_deep = 0;
    let mut open: Vec<Open> = Vec::new();
    let mut cursor = tree.walk();
    let mut visited: u32 = 0;
    loop {
        visited = visited.wrapping_add(1);
        if visited.is_multiple_of(NODES_PER_ASK) {
            go_on()?;
        }
        let node = cursor.node();
        while open.last().is_some_and(|o| o.end_byte <= node.start_byte()) {
            open.pop();
        }
        let in_type = open.last().is_some_and(|o| o.holds_methods);
        let def = match kinds.may_define(node) {
            true => rules::classify(language, node, src, in_type),
            false => None,
        };
        let mut enter = kinds.may_hold(node);
        if def.is_some() && open.len() >= MAX_DEPTH {
            too_deep += 1;
            enter = false;
        } else if let Some(def) = def {
            let (definition, scope) = define(&def, &open, src, language);
            open.push(Open {
                end_byte: node.end_byte(),
                scope,
                holds_methods: def.holds_methods,
            });
            found.push(definition);
        }
        if enter && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return Ok(Walked {
                    definitions: found,
                    too_deep,
                });
            }
        }
    }
}

/// The definition `def` makes inside `open`, and the scope its contents get.
fn define(def: &Found<'_>, open: &[Open], src: &[u8], language: Language) -> (Definition, String) {
    let enclosing = open
        .last()
        .map(|o| o.scope.as_str())
        .filter(|q| !q.is_empty());
    let (qualifier, qualifier_cut) = match def.qualifier.as_deref() {
        Some(q) => {
            let (q, cut) = name::printed(q);
            (Some(q), cut)
        }
        None => (None, false),
    };
    let outer = match (enclosing, qualifier) {
        (Some(e), Some(q)) => Some(format!("{e}.{q}")),
        (e, q) => q.or(e.map(str::to_string)),
    };
    let qualify = |name: &str| match &outer {
        Some(q) => format!("{q}.{name}"),
        None => name.to_string(),
    };
    let (own, own_cut) = name::printed(&def.name);
    let name = qualify(&own);
    let scope = match def.scope.as_deref() {
        Some(scope) => qualify(&name::printed(scope).0),
        None => name.clone(),
    };
    let definition = Definition {
        start_line: first_row(def.extent, src, language) as u64 + 1,
        end_line: last_row(def.extent) as u64 + 1,
        depth: open.len(),
        kind: def.kind,
        name,
        shortened: own_cut || qualifier_cut,
    };
    (definition, scope)
}

/// The first row of `extent` with the comments and attributes just above it that belong to
/// it: each directly above the next (no blank line between), none the end of a line of code.
fn first_row(extent: Node<'_>, src: &[u8], language: Language) -> usize {
    let mut start = extent.start_position().row;
    let mut above = extent.prev_named_sibling();
    while let Some(sibling) = above.filter(|s| rules::attaches(language, *s, src)) {
        let before = sibling.prev_sibling();
        let trailing = before.is_some_and(|b| last_row(b) == sibling.start_position().row);
        if trailing || last_row(sibling) + 1 < start {
            break;
        }
        start = sibling.start_position().row;
        above = sibling.prev_named_sibling();
    }
    start
}

/// The last row of `node`'s content: comments after its last statement are not part of it
/// (Python's `end_lineno`), nor a line its end only touches at column 0 (a line comment's
/// newline).
fn last_row(node: Node<'_>) -> usize {
    let mut last = node;
    while let Some(child) = last_content_child(last) {
        last = child;
    }
    let end = last.end_position();
    if end.column == 0 && end.row > last.start_position().row {
        end.row - 1
    } else {
        end.row
    }
}

/// `node`'s last child that is not a comment, when its last child is a comment or contains one
/// at its end; `None` when the node ends with content.
fn last_content_child(node: Node<'_>) -> Option<Node<'_>> {
    let count = node.child_count();
    let last = node.child(count.checked_sub(1)?)?;
    if last.kind().ends_with("comment") || last.child_count() > 0 {
        (0..count)
            .rev()
            .filter_map(|i| node.child(i))
            .find(|c| !c.kind().ends_with("comment"))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test files of every language (tests/fixtures/outline), with their languages.
    fn fixtures() -> Vec<(Language, &'static str)> {
        vec![
            (
                Language::Python,
                include_str!("../../tests/fixtures/outline/billing.py"),
            ),
            (
                Language::TypeScript,
                include_str!("../../tests/fixtures/outline/router.ts"),
            ),
            (
                Language::Tsx,
                include_str!("../../tests/fixtures/outline/router.ts"),
            ),
            (
                Language::JavaScript,
                include_str!("../../tests/fixtures/outline/shapes.js"),
            ),
            (
                Language::Go,
                include_str!("../../tests/fixtures/outline/server.go"),
            ),
            (
                Language::Rust,
                include_str!("../../tests/fixtures/outline/store.rs"),
            ),
            (
                Language::Java,
                include_str!("../../tests/fixtures/outline/Ledger.java"),
            ),
            (
                Language::Ruby,
                include_str!("../../tests/fixtures/outline/cart.rb"),
            ),
            (
                Language::C,
                include_str!("../../tests/fixtures/outline/buffer.c"),
            ),
            (
                Language::Cpp,
                include_str!("../../tests/fixtures/outline/matrix.cpp"),
            ),
            (
                Language::CSharp,
                include_str!("../../tests/fixtures/outline/Inventory.cs"),
            ),
            (
                Language::Php,
                include_str!("../../tests/fixtures/outline/Mailer.php"),
            ),
        ]
    }

    /// The definitions with the pruned walk and with a walk of every node.
    fn both_ways(language: Language, text: &str) -> (Vec<Definition>, Vec<Definition>) {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&language.grammar().unwrap()).unwrap();
        let tree = parser.parse(text, None).unwrap();
        let src = text.as_bytes();
        let walk = |kinds| {
            let walked = definitions(&tree, src, language, kinds, &mut || Ok::<(), ()>(()));
            walked.unwrap().definitions
        };
        (walk(Kinds::of(language)), walk(Kinds::everything()))
    }

    #[test]
    fn pruning_finds_what_a_walk_of_every_node_finds() {
        for (language, text) in fixtures() {
            let (pruned, every) = both_ways(language, text);
            assert!(pruned.len() > 3, "{language:?}: {}", pruned.len());
            assert_eq!(pruned, every, "{language:?}");
        }
    }

    #[test]
    fn pruning_finds_the_same_in_files_with_syntax_errors() {
        // Each file cut short at ten places (unclosed blocks and strings), and with a stray
        // closing bracket and an unfinished expression put in the middle.
        for (language, text) in fixtures() {
            let ends: Vec<usize> = (1..=10).map(|i| text.len() * i / 11).collect();
            for end in ends.into_iter().filter(|&e| text.is_char_boundary(e)) {
                let (pruned, every) = both_ways(language, &text[..end]);
                assert_eq!(pruned, every, "{language:?} cut at {end}");
                let middle = text.len() / 2;
                if text.is_char_boundary(middle) {
                    let broken = format!("{}) = (\n{}", &text[..middle], &text[middle..]);
                    let (pruned, every) = both_ways(language, &broken);
                    assert_eq!(pruned, every, "{language:?} broken at {middle}");
                }
            }
        }
    }
}
