//! What is published and promised: the tools/list snapshot, schemas, README and docs, the CLI.

mod cli;
mod readme;
mod strict_schemas;
mod tools_list;
