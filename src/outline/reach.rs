//! Which nodes the walk enters and which it asks the rules about, per language ([`Kinds`]),
//! from the grammar's own account of what each kind of node may contain (its
//! `node-types.json`, shipped by every grammar crate): a node is entered only when a
//! definition may lie inside it, and classified only when its kind is one the rules may call a
//! definition. Most of a tree is expressions that can hold no definition (in Python none can:
//! `def` and `class` are statements), so the walk of a Python file visits about a quarter of
//! its nodes. Pure.
//!
//! Sound by construction: a kind the grammar's list does not name (an `ERROR` node, anything
//! unknown) is entered, and so is every node whose subtree has a syntax error (error recovery
//! may put a definition where the grammar allows none).

use std::collections::{HashMap, HashSet};
use std::sync::{LazyLock, OnceLock};

use serde::Deserialize;
use tree_sitter::Node;

use super::language::Language;
use super::rules;

/// What the walk does at each kind of node of one language, indexed by kind id.
#[derive(Debug)]
pub(super) struct Kinds {
    /// Kinds the rules may call a definition.
    defines: Vec<bool>,
    /// Kinds that are, or may contain, a definition.
    holds: Vec<bool>,
}

impl Kinds {
    /// The table of `language`, built on its first use (one parse of its node types: a few
    /// milliseconds once per process).
    pub(super) fn of(language: Language) -> &'static Kinds {
        static TABLES: [OnceLock<Kinds>; Language::ALL.len()] =
            [const { OnceLock::new() }; Language::ALL.len()];
        // `Language::ALL` lists the variants in declaration order: `as usize` is in range.
        TABLES[language as usize].get_or_init(|| Kinds::build(language))
    }

    /// A table that enters and classifies every node: the walk without pruning, to check the
    /// pruning against.
    pub(super) fn everything() -> &'static Kinds {
        static EVERYTHING: LazyLock<Kinds> = LazyLock::new(|| Kinds {
            defines: vec![true; 1 << 16],
            holds: vec![true; 1 << 16],
        });
        &EVERYTHING
    }

    /// Whether the rules may call `node` a definition.
    pub(super) fn may_define(&self, node: Node<'_>) -> bool {
        let id = usize::from(node.kind_id());
        self.defines.get(id).copied().unwrap_or(false)
    }

    /// Whether a definition may lie inside `node` (unknown kinds and errors: yes).
    pub(super) fn may_hold(&self, node: Node<'_>) -> bool {
        let id = usize::from(node.kind_id());
        self.holds.get(id).copied().unwrap_or(true) || node.has_error()
    }

    fn build(language: Language) -> Kinds {
        // A grammar not built in parses nothing (parse.rs refuses it first): an empty table.
        let (Some(grammar), Some(node_types)) = (language.grammar(), language.node_types()) else {
            return Kinds {
                defines: Vec::new(),
                holds: Vec::new(),
            };
        };
        let defining = rules::kinds(language);
        // The grammar crate's own JSON; were it unreadable, every node would be entered.
        let types: Vec<NodeType> = serde_json::from_str(node_types).unwrap_or_default();
        let listed: HashSet<KindName<'_>> = types.iter().map(NodeType::name).collect();
        let holding = holders(&types, defining);
        let (mut defines, mut holds) = (Vec::new(), Vec::new());
        let count = u16::try_from(grammar.node_kind_count()).unwrap_or(u16::MAX);
        for id in 0..count {
            let name = grammar.node_kind_for_id(id).unwrap_or_default();
            let named = grammar.node_kind_is_named(id);
            defines.push(named && defining.contains(&name));
            holds.push(!listed.contains(&(name, named)) || holding.contains(&(name, named)));
        }
        Kinds { defines, holds }
    }
}

/// A kind as `node-types.json` names it: its name, and whether it is a named node.
type KindName<'j> = (&'j str, bool);

/// One entry of `node-types.json`.
#[derive(Debug, Deserialize)]
struct NodeType {
    #[serde(rename = "type")]
    kind: String,
    named: bool,
    #[serde(default)]
    fields: HashMap<String, Children>,
    children: Option<Children>,
    /// A supertype's kinds (a hidden node the tree never shows, named in others' children).
    #[serde(default)]
    subtypes: Vec<TypeRef>,
}

impl NodeType {
    fn name(&self) -> KindName<'_> {
        (&self.kind, self.named)
    }

    /// The kinds a node of this kind may have directly below it.
    fn below(&self) -> impl Iterator<Item = KindName<'_>> {
        let children = self.fields.values().chain(&self.children);
        children
            .flat_map(|c| &c.types)
            .chain(&self.subtypes)
            .map(|t| (t.kind.as_str(), t.named))
    }
}

#[derive(Debug, Deserialize)]
struct Children {
    types: Vec<TypeRef>,
}

#[derive(Debug, Deserialize)]
struct TypeRef {
    #[serde(rename = "type")]
    kind: String,
    named: bool,
}

/// The kinds that are one of `defining` (named kinds) or may have one somewhere below them:
/// everything from which a defining kind is reachable, found backwards from the defining kinds.
fn holders<'j>(types: &'j [NodeType], defining: &[&'j str]) -> HashSet<KindName<'j>> {
    let mut above: HashMap<KindName<'j>, Vec<KindName<'j>>> = HashMap::new();
    for t in types {
        for below in t.below() {
            above.entry(below).or_default().push(t.name());
        }
    }
    let mut held: HashSet<KindName<'j>> = defining.iter().map(|&k| (k, true)).collect();
    let mut queue: Vec<KindName<'j>> = held.iter().copied().collect();
    while let Some(kind) = queue.pop() {
        for &parent in above.get(&kind).into_iter().flatten() {
            if held.insert(parent) {
                queue.push(parent);
            }
        }
    }
    held
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(json: &str, defining: &[&str]) -> Vec<String> {
        let types: Vec<NodeType> = serde_json::from_str(json).unwrap();
        let mut held: Vec<String> = holders(&types, defining)
            .into_iter()
            .map(|(k, named)| format!("{k}{}", if named { "" } else { "'" }))
            .collect();
        held.sort();
        held
    }

    #[test]
    fn a_kind_holds_what_its_fields_children_and_subtypes_may_hold() {
        // module > (statement: supertype) > block > def; `call` holds nothing; `(` is a token.
        let json = r#"[
            {"type": "module", "named": true, "children": {"types": [{"type": "statement", "named": true}]}},
            {"type": "statement", "named": true, "subtypes": [{"type": "if", "named": true}, {"type": "call", "named": true}]},
            {"type": "if", "named": true, "fields": {"body": {"types": [{"type": "block", "named": true}]}}},
            {"type": "block", "named": true, "children": {"types": [{"type": "def", "named": true}, {"type": "call", "named": true}]}},
            {"type": "def", "named": true, "fields": {"body": {"types": [{"type": "block", "named": true}]}}},
            {"type": "call", "named": true, "children": {"types": [{"type": "(", "named": false}]}},
            {"type": "(", "named": false}
        ]"#;
        assert_eq!(
            names(json, &["def"]),
            ["block", "def", "if", "module", "statement"]
        );
        // A defining kind that nothing contains holds only itself.
        assert_eq!(
            names(json, &["call"]),
            ["block", "call", "def", "if", "module", "statement"]
        );
        assert_eq!(names(json, &["nowhere"]), ["nowhere"]);
    }

    #[test]
    fn every_grammar_lists_its_kinds_and_the_rules_name_real_ones() {
        for language in Language::ALL {
            let types: Vec<NodeType> = serde_json::from_str(language.node_types().unwrap())
                .unwrap_or_else(|e| panic!("{language:?}: {e}"));
            let kinds = Kinds::build(language);
            // The pruning prunes: some listed kinds hold no definition.
            let skipped = kinds.holds.iter().filter(|h| !**h).count();
            assert!(skipped > 10, "{language:?}: {skipped} of {}", types.len());
        }
        // Each kind a rule names is a named kind of one of the grammars sharing the rule
        // (`abstract_class_declaration` is TypeScript's, not JavaScript's).
        for language in Language::ALL {
            let sharing: Vec<Language> = Language::ALL
                .into_iter()
                .filter(|l| std::ptr::eq(rules::kinds(*l), rules::kinds(language)))
                .collect();
            for kind in rules::kinds(language) {
                let defined_in = |l: &Language| {
                    let id = l.grammar().unwrap().id_for_node_kind(kind, true);
                    id != 0 && Kinds::of(*l).defines[usize::from(id)]
                };
                assert!(
                    sharing.iter().any(defined_in),
                    "{sharing:?} have no node kind {kind}"
                );
            }
        }
    }
}
