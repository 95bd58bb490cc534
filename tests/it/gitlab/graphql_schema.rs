//! Every GraphQL document we send is valid against GitLab's real schema: the checked-in
//! operations in `graphql/`, the variants build.rs derives from them without optional fields,
//! and the run-time URL-split documents. Codegen only checks field names against our subset;
//! this catches wrong argument names and variable types.
//!
//! The full schema lives outside the repository (`../shared/gitlab/schema.graphql`). When it
//! is missing this test says so loudly and passes, except under CI (`CI=true`), where it
//! must be present.

use apollo_compiler::validation::Valid;
use apollo_compiler::{ExecutableDocument, Schema};

fn full_schema() -> Option<Valid<Schema>> {
    let path = format!(
        "{}/../shared/gitlab/schema.graphql",
        env!("CARGO_MANIFEST_DIR")
    );
    let Ok(source) = std::fs::read_to_string(&path) else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{path} is missing: CI must validate our queries against GitLab's schema");
        }
        eprintln!(
            "\n!!! WARNING: {path} not found: GraphQL documents NOT validated against GitLab's schema !!!\n"
        );
        return None;
    };
    Some(
        match Schema::parse_and_validate(&source, "gitlab-schema.graphql") {
            Ok(valid) => valid,
            // GitLab's introspected SDL trips a few of apollo's schema rules that do not concern
            // our documents; validate the documents against it as parsed.
            Err(with_errors) => Valid::assume_valid(with_errors.partial),
        },
    )
}

fn validate(schema: &Valid<Schema>, name: &str, document: &str) {
    if let Err(e) = ExecutableDocument::parse_and_validate(schema, document, name) {
        panic!("{name} is not valid against GitLab's schema:\n{}", e.errors);
    }
}

#[test]
fn checked_in_operations_validate_against_gitlabs_schema() {
    let Some(schema) = full_schema() else { return };
    let dir = format!("{}/graphql", env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".graphql") || name == "schema.graphql" {
            continue;
        }
        validate(&schema, &name, &std::fs::read_to_string(&path).unwrap());
        checked += 1;
    }
    // blob.graphql and miss_probe.graphql.
    assert!(
        checked >= 2,
        "expected at least 2 operations, found {checked}"
    );
}

#[test]
fn every_document_sent_validates_against_gitlabs_schema() {
    let Some(schema) = full_schema() else { return };
    let documents = gitlab_file_mcp::testing::graphql_documents();
    assert!(documents.len() > 4, "{documents:?}");
    for (name, document) in documents {
        validate(&schema, &name, &document);
    }
}

#[test]
fn a_wrong_document_is_caught() {
    // Guards the two tests above against validating nothing.
    let Some(schema) = full_schema() else { return };
    let wrong = "query($p: ID!) { project(fullPath: $p) { repository { blobs(path: \"x\") { nodes { path } } } } }";
    assert!(ExecutableDocument::parse_and_validate(&schema, wrong, "wrong.graphql").is_err());
}
