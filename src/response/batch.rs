//! What `get_repository_files` says beyond the single tool's sentences: the hint of an entry
//! the shared budget did not reach.

use serde_json::Value;

/// The `system_instruction` of an entry not read because the entries before it spent the
/// call's budget of `total` characters; `arguments` read it with `get_repository_file`.
pub(crate) fn not_read(total: u64, arguments: &Value) -> String {
    format!(
        "Not read: the entries before this one used the call's {total} character budget (max_chars). To read it, call get_repository_file with {arguments}, or call get_repository_files again with the entries not read."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_the_budget_and_the_arguments() {
        let args = json!({"project_id": "g/p", "file_path": "a.txt", "ref": "main"});
        assert_eq!(
            not_read(500, &args),
            "Not read: the entries before this one used the call's 500 character budget (max_chars). To read it, call get_repository_file with {\"project_id\":\"g/p\",\"file_path\":\"a.txt\",\"ref\":\"main\"}, or call get_repository_files again with the entries not read."
        );
    }
}
