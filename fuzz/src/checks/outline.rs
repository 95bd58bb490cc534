//! The `outline` target: arbitrary bytes (as UTF-8, invalid sequences replaced) are outlined
//! in every supported language. Checked: the parser never fails; every definition's lines lie
//! in the file (`1 <= start <= end <= lines`); definitions come in file order; and they nest:
//! a definition at depth `d > 0` lies inside the last definition before it at depth `d - 1`,
//! and depth grows by at most one from one definition to the next; and the walk's pruning
//! (`src/outline/reach.rs`) finds exactly what a walk of every node finds.

pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let ranges = gitlab_file_mcp::fuzzing::outline_ranges(&text)
        .unwrap_or_else(|e| panic!("the outline failed: {e}"));
    assert!(
        ranges.pruning_differs_in.is_empty(),
        "the pruned walk differs in {:?}",
        ranges.pruning_differs_in
    );
    let last_line = ranges.lines.max(1);
    for (language, definitions) in ranges.per_language.iter().enumerate() {
        let mut open: Vec<(u64, u64)> = Vec::new();
        let mut previous_start = 0;
        for &(start, end, depth) in definitions {
            assert!(
                1 <= start && start <= end && end <= last_line,
                "language {language}: {start}-{end} in {last_line} lines"
            );
            assert!(
                start >= previous_start,
                "language {language}: {start} after {previous_start}"
            );
            previous_start = start;
            assert!(
                depth <= open.len(),
                "language {language}: depth {depth} after {}",
                open.len()
            );
            open.truncate(depth);
            if let Some(&(outer_start, outer_end)) = open.last() {
                assert!(
                    outer_start <= start && end <= outer_end,
                    "language {language}: {start}-{end} outside {outer_start}-{outer_end}"
                );
            }
            open.push((start, end));
        }
    }
}
