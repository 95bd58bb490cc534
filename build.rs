//! Generates typed GraphQL operations from `graphql/*.graphql` against our schema subset
//! `graphql/schema.graphql`, with graphql_client's codegen, into one file,
//! `$OUT_DIR/graphql_operations.rs`, included by `src/source/gitlab/query/graphql.rs`.
//!
//! Besides graphql_client's modules (one per operation) it emits, for the code that builds
//! documents at run time or has to leave an optional field out:
//! - `fragments::<NAME>`: the text of every fragment definition (`BLOB_FIELDS` for
//!   `fragment BlobFields …`), so a fragment's field list is written once, in `graphql/`;
//! - `variants::<OPERATION>_WITHOUT_<FRAGMENT>`: for every fragment whose name ends in
//!   `IfSupported` (fields some GitLab versions lack), each operation that spreads it, with the
//!   spreads and the definition removed. The typed response of the full operation reads the
//!   shorter document's answer too: the fields left out are nullable, so they read as `None`.

use graphql_client_codegen::{
    CodegenMode, GraphQLClientCodegenOptions, generate_module_token_stream,
};
use graphql_parser::query::{Definition, Document, OperationDefinition, Selection, SelectionSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Fragments with this suffix select fields that not every GitLab has.
const OPTIONAL_SUFFIX: &str = "IfSupported";

fn main() {
    let dir = Path::new("graphql");
    let schema = dir.join("schema.graphql");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut out = String::new();
    let mut fragments = String::new();
    let mut variants = String::new();
    for op in operation_files(dir, &schema) {
        println!("cargo:rerun-if-changed={}", op.display());
        out.push_str(&typed_module(&op, &schema));
        out.push('\n');
        let text = read(&op);
        let document = graphql_parser::parse_query::<String>(&text)
            .unwrap_or_else(|e| panic!("{}: {e}", op.display()));
        fragments.push_str(&fragment_consts(&document));
        variants.push_str(&variant_consts(&document));
    }
    write!(
        out,
        "pub mod fragments {{\n{fragments}}}\npub mod variants {{\n{variants}}}\n"
    )
    .unwrap_or_else(|e| panic!("formatting: {e}"));
    let out_dir = std::env::var("OUT_DIR").unwrap_or_else(|e| panic!("OUT_DIR: {e}"));
    let target = Path::new(&out_dir).join("graphql_operations.rs");
    std::fs::write(&target, out).unwrap_or_else(|e| panic!("{}: {e}", target.display()));
}

/// Every `graphql/*.graphql` file but the schema, sorted.
fn operation_files(dir: &Path, schema: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read graphql/: {e}"));
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "graphql") && p != schema)
        .collect();
    files.sort();
    files
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// graphql_client's modules for the operations of one file.
fn typed_module(op: &Path, schema: &Path) -> String {
    let mut options = GraphQLClientCodegenOptions::new(CodegenMode::Cli);
    options.set_response_derives("Debug, Clone, PartialEq".to_string());
    options.set_variables_derives("Debug, Clone".to_string());
    options
        .set_module_visibility(syn::parse_str("pub").unwrap_or_else(|e| panic!("visibility: {e}")));
    options.set_custom_scalars_module(
        syn::parse_str("crate::source::gitlab::query::scalars")
            .unwrap_or_else(|e| panic!("path: {e}")),
    );
    // Absent optional variables are left out, so a variable's default applies.
    options.set_skip_serializing_none(true);
    // Our own `RefType` (in scope where the output is included) serialises as GitLab's enum.
    options.set_extern_enums(vec!["RefType".to_string()]);
    // No `set_query_file`: it makes the output `include_str!` the query by its absolute path,
    // which breaks a build cache shared by checkouts at other paths (the build script, whose
    // inputs are unchanged, does not run again; the library, rebuilt, includes a path that
    // is not there). `rerun-if-changed` above already rebuilds on a query's change.
    let absolute = std::fs::canonicalize(op).unwrap_or_else(|e| panic!("{}: {e}", op.display()));
    generate_module_token_stream(absolute, schema, options)
        .unwrap_or_else(|e| panic!("graphql codegen failed for {}: {e}", op.display()))
        .to_string()
}

/// `pub const <NAME>: &str = "<fragment definition>";` for every fragment of `document`.
fn fragment_consts(document: &Document<'_, String>) -> String {
    let mut out = String::new();
    for definition in &document.definitions {
        if let Definition::Fragment(f) = definition {
            let text = Definition::Fragment(f.clone()).to_string();
            writeln!(
                out,
                "pub const {}: &str = {:?};",
                screaming(&f.name),
                text.trim()
            )
            .unwrap_or_else(|e| panic!("formatting: {e}"));
        }
    }
    out
}

/// `pub const <OP>_WITHOUT_<FRAGMENT>: &str` for every optional fragment `document` defines.
fn variant_consts(document: &Document<'_, String>) -> String {
    let mut out = String::new();
    let optional = document.definitions.iter().filter_map(|d| match d {
        Definition::Fragment(f) if f.name.ends_with(OPTIONAL_SUFFIX) => Some(f.name.clone()),
        _ => None,
    });
    for fragment in optional {
        let reduced = without_fragment(document, &fragment);
        for definition in &document.definitions {
            if let Definition::Operation(OperationDefinition::Query(q)) = definition {
                let name = q.name.clone().unwrap_or_else(|| panic!("unnamed query"));
                writeln!(
                    out,
                    "pub const {}_WITHOUT_{}: &str = {:?};",
                    screaming(&name),
                    screaming(&fragment),
                    reduced.to_string()
                )
                .unwrap_or_else(|e| panic!("formatting: {e}"));
            }
        }
    }
    out
}

/// `document` without the fragment `name`: its definition and every spread of it.
fn without_fragment<'a>(document: &Document<'a, String>, name: &str) -> Document<'a, String> {
    let mut reduced = document.clone();
    reduced
        .definitions
        .retain(|d| !matches!(d, Definition::Fragment(f) if f.name == name));
    for definition in &mut reduced.definitions {
        match definition {
            Definition::Fragment(f) => drop_spreads(&mut f.selection_set, name),
            Definition::Operation(OperationDefinition::Query(q)) => {
                drop_spreads(&mut q.selection_set, name)
            }
            Definition::Operation(_) => panic!("only queries are supported"),
        }
    }
    reduced
}

fn drop_spreads(set: &mut SelectionSet<'_, String>, name: &str) {
    set.items
        .retain(|s| !matches!(s, Selection::FragmentSpread(f) if f.fragment_name == name));
    for item in &mut set.items {
        match item {
            Selection::Field(field) => drop_spreads(&mut field.selection_set, name),
            Selection::InlineFragment(inline) => drop_spreads(&mut inline.selection_set, name),
            Selection::FragmentSpread(_) => {}
        }
    }
}

/// `BlobFields` → `BLOB_FIELDS`.
fn screaming(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}
