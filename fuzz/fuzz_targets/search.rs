#![no_main]
//! See `gitlab_file_mcp_fuzz::checks::search` for the input format and the properties checked.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gitlab_file_mcp_fuzz::checks::search::check(data));
