//! Generates typed GraphQL operations from `graphql/*.graphql` (one operation per file)
//! against our schema subset `graphql/schema.graphql`, with graphql_client's codegen.
//! The output is one file, `$OUT_DIR/graphql_operations.rs`, included by `src/gitlab/operations.rs`.

use graphql_client_codegen::{
    CodegenMode, GraphQLClientCodegenOptions, generate_module_token_stream,
};
use std::path::{Path, PathBuf};

fn main() {
    let dir = Path::new("graphql");
    let schema = dir.join("schema.graphql");
    println!("cargo:rerun-if-changed={}", dir.display());

    let mut operations: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "graphql") && *p != schema)
            .collect(),
        Err(e) => panic!("cannot read graphql/: {e}"),
    };
    operations.sort();

    let mut out = String::new();
    for op in &operations {
        println!("cargo:rerun-if-changed={}", op.display());
        let mut options = GraphQLClientCodegenOptions::new(CodegenMode::Cli);
        options.set_response_derives("Debug, Clone, PartialEq".to_string());
        options.set_variables_derives("Debug, Clone".to_string());
        options.set_module_visibility(
            syn::parse_str("pub").unwrap_or_else(|e| panic!("visibility: {e}")),
        );
        options.set_custom_scalars_module(
            syn::parse_str("crate::gitlab::scalars").unwrap_or_else(|e| panic!("path: {e}")),
        );
        let absolute =
            std::fs::canonicalize(op).unwrap_or_else(|e| panic!("{}: {e}", op.display()));
        options.set_query_file(absolute.clone());
        let tokens = generate_module_token_stream(absolute, &schema, options)
            .unwrap_or_else(|e| panic!("graphql codegen failed for {}: {e}", op.display()));
        out.push_str(&tokens.to_string());
        out.push('\n');
    }

    let out_dir = std::env::var("OUT_DIR").unwrap_or_else(|e| panic!("OUT_DIR: {e}"));
    let target = Path::new(&out_dir).join("graphql_operations.rs");
    std::fs::write(&target, out).unwrap_or_else(|e| panic!("{}: {e}", target.display()));
}
