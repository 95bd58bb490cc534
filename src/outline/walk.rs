//! One walk of a syntax tree in document order, without recursion (a deeply nested file
//! cannot overflow the stack), entering only nodes a definition may lie in ([`Kinds`]): each
//! node a language's rules call a definition becomes one,
//! qualified and indented by the definitions around it, its lines widened to the comments and
//! attributes just above that belong to it, its name as [`name::printed`] prints it.
//!
//! Bounded whatever the file: definitions nested [`MAX_DEPTH`] deep are counted but not
//! entered (the work per definition and the length of a qualified name grow with the depth,
//! so 10,000 nested functions would take minutes and gigabytes); every step, a node visited
//! or a child looked at, is taken through [`WalkSteps`], which asks whether to go on every
//! [`NODES_PER_ASK`](super::lead::NODES_PER_ASK) steps; and the work is linear in the nodes
//! visited: no step asks tree-sitter for a node's parent or previous sibling (each found from
//! the first child of the node's parent), the walk keeps what it needs as it goes ([`Leads`]).

use tree_sitter::Tree;

use super::definition::Definition;
use super::language::Language;
use super::lead::{Leads, WalkSteps, last_row};
use super::name;
use super::reach::Kinds;
use super::rules::{self, Found};

/// Definitions inside this many enclosing definitions are counted, not listed, nor entered.
pub(crate) const MAX_DEPTH: usize = 32;

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
/// which nodes to enter and classify. Takes its steps through `steps`: `go_on`'s error ends
/// the walk.
pub(super) fn definitions<E>(
    tree: &Tree,
    src: &[u8],
    language: Language,
    kinds: &Kinds,
    steps: &mut WalkSteps<'_, E>,
) -> Result<Walked, E> {
    let mut found = Vec::new();
    let mut too_deep = 0;
    let mut open: Vec<Open> = Vec::new();
    let mut leads = Leads::default();
    let mut cursor = tree.walk();
    loop {
        steps.take()?;
        let node = cursor.node();
        leads.visit(node, src, language, steps)?;
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
            let start = leads.first_row(def.extent);
            let (definition, scope) = define(&def, start, &open, steps)?;
            open.push(Open {
                end_byte: node.end_byte(),
                scope,
                holds_methods: def.holds_methods,
            });
            found.push(definition);
        }
        if enter && cursor.goto_first_child() {
            leads.enter();
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return Ok(Walked {
                    definitions: found,
                    too_deep,
                });
            }
            leads.leave();
        }
    }
}

/// The definition `def` makes inside `open`, its lines from row `start`, and the scope its
/// contents get.
fn define<E>(
    def: &Found<'_>,
    start: usize,
    open: &[Open],
    steps: &mut WalkSteps<'_, E>,
) -> Result<(Definition, String), E> {
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
        start_line: start as u64 + 1,
        end_line: last_row(def.extent, steps)? as u64 + 1,
        depth: open.len(),
        kind: def.kind,
        name,
        shortened: own_cut || qualifier_cut,
    };
    Ok((definition, scope))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tree_sitter::Node;

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
            let mut go_on = || Ok::<(), ()>(());
            let walked = definitions(&tree, src, language, kinds, &mut WalkSteps::new(&mut go_on));
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

    /// The first row as the walk found it before issue 46, walking back over the siblings
    /// above `extent` (quadratic in a run of comments): what [`Leads`] must agree with.
    fn first_row_walking_back(extent: Node<'_>, src: &[u8], language: Language) -> usize {
        let last_row = |n| {
            let mut go_on = || Ok::<(), ()>(());
            last_row(n, &mut WalkSteps::new(&mut go_on)).unwrap()
        };
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

    /// The start lines of every node `rules::classify` calls a definition, in document order,
    /// found walking back from each.
    fn starts_walking_back(language: Language, text: &str) -> Vec<u64> {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&language.grammar().unwrap()).unwrap();
        let tree = parser.parse(text, None).unwrap();
        let mut starts = Vec::new();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            if let Some(def) = rules::classify(language, node, text.as_bytes(), false) {
                let row = first_row_walking_back(def.extent, text.as_bytes(), language);
                starts.push(row as u64 + 1);
            }
            let mut cursor = node.walk();
            let children: Vec<_> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
        starts
    }

    /// `text` with runs of comments of `language`'s doc style put above lines, beside lines
    /// and between blank lines.
    fn with_comment_runs(language: Language, text: &str) -> String {
        let marker = match language {
            Language::Python | Language::Ruby => "#",
            Language::Rust | Language::CSharp | Language::C | Language::Cpp => "///",
            Language::Go => "//",
            _ => "/** doc */",
        };
        let mut out = String::new();
        for (i, line) in text.lines().enumerate() {
            let indent = &line[..line.len() - line.trim_start().len()];
            match i % 4 {
                0 => (0..3).for_each(|_| out.push_str(&format!("{indent}{marker} run\n"))),
                1 => out.push_str(&format!("{indent}{marker} a\n\n{indent}{marker} b\n")),
                _ => {}
            }
            out.push_str(line);
            if i % 7 == 3 && !line.trim_end().ends_with('\\') {
                out.push_str(&format!(" {marker} trailing"));
            }
            out.push('\n');
        }
        out
    }

    #[test]
    fn leads_agree_with_a_walk_back_over_the_siblings() {
        for (language, text) in fixtures() {
            for text in [text.to_string(), with_comment_runs(language, text)] {
                let (pruned, _) = both_ways(language, &text);
                let starts: Vec<u64> = pruned.iter().map(|d| d.start_line).collect();
                assert_eq!(starts, starts_walking_back(language, &text), "{language:?}");
            }
        }
    }

    /// The steps an outline of `text` takes, and the nodes of its tree.
    fn steps_and_nodes(language: Language, text: &str) -> (u64, usize, Vec<Definition>) {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&language.grammar().unwrap()).unwrap();
        let tree = parser.parse(text, None).unwrap();
        let mut go_on = || Ok::<(), ()>(());
        let mut steps = WalkSteps::new(&mut go_on);
        let walked = definitions(
            &tree,
            text.as_bytes(),
            language,
            Kinds::of(language),
            &mut steps,
        );
        let nodes = tree.root_node().descendant_count();
        (steps.taken(), nodes, walked.unwrap().definitions)
    }

    #[test]
    fn a_run_of_comments_above_a_definition_costs_a_step_per_node() {
        // Issue 46: 50,000 `// doc` lines above one Go function took 17 s (N² steps inside
        // tree-sitter, each walking back from the parent's first child), unasked.
        let cases = [
            (Language::Go, "// doc\n", "func F() {}\n"),
            (Language::Rust, "/// doc\n", "fn f() {}\n"),
            (Language::CSharp, "/// doc\n", "class C {}\n"),
            (Language::Ruby, "# doc\n", "def f; end\n"),
            (Language::JavaScript, "/** doc */\n", "function f() {}\n"),
            (Language::C, "/// doc\n", "int f(void) { return 0; }\n"),
            (Language::Php, "/** doc */\n", "function f() {}\n"),
        ];
        for (language, comment, definition) in cases {
            let mut per_node = Vec::new();
            for lines in [2_000, 8_000] {
                let php = if language == Language::Php {
                    "<?php\n"
                } else {
                    ""
                };
                let text = format!("{php}{}{definition}", comment.repeat(lines));
                let (steps, nodes, found) = steps_and_nodes(language, &text);
                assert_eq!(found.len(), 1, "{language:?}");
                assert_eq!(
                    found[0].start_line,
                    1 + php.len().min(1) as u64,
                    "{language:?}"
                );
                per_node.push(steps as f64 / nodes as f64);
            }
            // A few steps per node whatever the run's length (quadratic would be 4 times more).
            assert!(per_node[1] < 4.0, "{language:?}: {per_node:?}");
            assert!(
                per_node[1] < per_node[0] * 1.2,
                "{language:?}: {per_node:?}"
            );
        }
    }

    #[test]
    fn a_long_run_of_comments_is_stopped_when_told() {
        let text = format!("{}func F() {{}}\n", "// doc\n".repeat(50_000));
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&Language::Go.grammar().unwrap())
            .unwrap();
        let tree = parser.parse(&text, None).unwrap();
        let mut asked = 0;
        let mut go_on = || {
            asked += 1;
            if asked < 3 { Ok(()) } else { Err("stop") }
        };
        let walked = definitions(
            &tree,
            text.as_bytes(),
            Language::Go,
            Kinds::of(Language::Go),
            &mut WalkSteps::new(&mut go_on),
        );
        assert_eq!(walked.err(), Some("stop"));
    }
}
