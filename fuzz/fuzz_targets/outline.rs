#![no_main]
//! See `gitlab_file_mcp_fuzz::checks::outline` for the input format and the properties checked.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gitlab_file_mcp_fuzz::checks::outline::check(data));
