//! What is published and promised: the tools/list snapshot, schemas, README and docs, the CLI,
//! the packages.

mod cli;
mod dist_script;
mod packaging;
mod pipeline;
mod readme;
mod strict_schemas;
mod token_placeholder;
mod tools_list;
