//! Which of a URL's candidate ref/path splits to read, from what the repository says about
//! each: GitLab's own `ExtractsRef::RefExtractor` precedence, with a fallback when GitLab's pick
//! has no such file but another candidate does. Pure; both sources use it.

/// What the repository says about one candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Evidence {
    /// The candidate's ref is the exact name of an existing branch or tag.
    pub ref_is_branch_or_tag: bool,
    /// A file exists at the candidate's path when the candidate's ref is
    /// resolved (by any means: branch, tag, commit SHA, …).
    pub blob_found: bool,
}

/// Which candidate to read, from [`choose`]. Indexes are into the evidence
/// slice (the same order as `Candidates::Segments`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Choice {
    /// GitLab's own pick, and the file exists there.
    Gitlab(usize),
    /// GitLab's pick (`gitlab`) has no such file but candidate `used` does.
    Fallback {
        /// GitLab's pick.
        gitlab: usize,
        /// The candidate used instead.
        used: usize,
    },
    /// No candidate has the file; report about GitLab's pick.
    NotFound {
        /// GitLab's pick.
        gitlab: usize,
    },
}

/// Picks the candidate to read, given evidence for each candidate in the
/// order of `Candidates::Segments`.
///
/// GitLab's own pick `g` (`gitlab_pick`): index 0 (the first segment) when
/// its ref is an existing branch or tag; else the longest candidate whose ref
/// is an existing branch or tag; else index 0 (split at the first `/`). Then:
///
/// 1. `evidence[g].blob_found` → `Gitlab(g)`.
/// 2. Else the highest index `i != g` with both `ref_is_branch_or_tag` and
///    `blob_found` → `Fallback { gitlab: g, used: i }`.
/// 3. Else the highest index `i != g` with `blob_found` (its ref resolves
///    some other way, e.g. a short SHA) → `Fallback { gitlab: g, used: i }`.
/// 4. Else `NotFound { gitlab: g }`.
///
/// GitLab picks by the longest existing ref among all refs that prefix the
/// string followed by `/`; the candidates are exactly the prefixes that end
/// at a `/`, so the two agree.
///
/// One GitLab rule is not modelled: GitLab skips the first-segment rule when
/// the repository has "ambiguous refs" (`Repository#has_ambiguous_refs?`:
/// some slash-free branch or tag name followed by `/` starts another ref,
/// as tag `foo` and branch `foo/bar`), and then uses the longest-ref rule
/// alone. The evidence does not say whether the repository is in that
/// state, so the first-segment rule always applies here; when the first
/// segment has no such file, step 2 still finds it under the longer ref.
///
/// An empty slice gives `NotFound { gitlab: 0 }`, which the caller cannot
/// index: `candidates::enumerate` never returns an empty candidate list.
pub(crate) fn choose(evidence: &[Evidence]) -> Choice {
    let gitlab = gitlab_pick(evidence);
    if evidence.get(gitlab).is_some_and(|e| e.blob_found) {
        return Choice::Gitlab(gitlab);
    }
    let with_blob = || {
        evidence
            .iter()
            .enumerate()
            .rev()
            .filter(move |&(i, e)| i != gitlab && e.blob_found)
    };
    let used = with_blob()
        .find(|(_, e)| e.ref_is_branch_or_tag)
        .or_else(|| with_blob().next());
    match used {
        Some((used, _)) => Choice::Fallback { gitlab, used },
        None => Choice::NotFound { gitlab },
    }
}

/// The candidate GitLab's `extract_raw_ref` picks: 0 when candidate 0 (the
/// first segment) is an existing branch or tag; else the highest index
/// whose ref is an existing branch or tag (the longest ref, since
/// candidates come in order of increasing ref length); else 0 (split at the
/// first `/`). 0 for an empty slice.
fn gitlab_pick(evidence: &[Evidence]) -> usize {
    match evidence.first() {
        Some(first) if first.ref_is_branch_or_tag => 0,
        _ => evidence
            .iter()
            .rposition(|e| e.ref_is_branch_or_tag)
            .unwrap_or(0),
    }
}

/// What a source reads after [`choose`]: candidate `used`, and, when that is not GitLab's own
/// pick, which candidate GitLab would have used (to say so in the hint).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pick {
    pub used: usize,
    pub fallback_from: Option<usize>,
}

impl Choice {
    /// The candidate to read, or `Err(gitlab)`: nothing has the file, report about GitLab's
    /// own pick.
    pub(crate) fn pick(self) -> Result<Pick, usize> {
        match self {
            Choice::Gitlab(used) => Ok(Pick {
                used,
                fallback_from: None,
            }),
            Choice::Fallback { gitlab, used } => Ok(Pick {
                used,
                fallback_from: Some(gitlab),
            }),
            Choice::NotFound { gitlab } => Err(gitlab),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    // ---- choose ----

    fn ev(pairs: &[(bool, bool)]) -> Vec<Evidence> {
        pairs
            .iter()
            .map(|&(ref_is_branch_or_tag, blob_found)| Evidence {
                ref_is_branch_or_tag,
                blob_found,
            })
            .collect()
    }

    #[test]
    fn choose_rules() {
        const T: bool = true;
        const F: bool = false;
        let cases: &[(&[(bool, bool)], Choice)] = &[
            // (ref exists, blob found) per candidate
            (&[(T, T)], Choice::Gitlab(0)),
            (&[(F, T)], Choice::Gitlab(0)),
            (&[(F, F)], Choice::NotFound { gitlab: 0 }),
            (&[(T, F)], Choice::NotFound { gitlab: 0 }),
            // First segment wins even when a longer ref exists.
            (&[(T, T), (T, T)], Choice::Gitlab(0)),
            (&[(T, T), (F, F), (T, T)], Choice::Gitlab(0)),
            // Longest existing ref.
            (&[(F, F), (T, T), (F, F)], Choice::Gitlab(1)),
            (&[(F, F), (T, T), (T, T)], Choice::Gitlab(2)),
            (&[(F, F), (T, F), (F, F), (T, T)], Choice::Gitlab(3)),
            // No ref exists: split at the first slash.
            (&[(F, T), (F, F), (F, F)], Choice::Gitlab(0)),
            // Fallbacks: an existing ref with the file, longest first.
            (&[(T, F), (T, T)], Choice::Fallback { gitlab: 0, used: 1 }),
            (
                &[(T, F), (T, T), (T, T)],
                Choice::Fallback { gitlab: 0, used: 2 },
            ),
            (
                &[(F, F), (T, T), (T, F)],
                Choice::Fallback { gitlab: 2, used: 1 },
            ),
            (&[(F, T), (T, F)], Choice::Fallback { gitlab: 1, used: 0 }),
            // ... before a non-ref candidate with the file, even a longer one.
            (
                &[(T, F), (T, T), (F, T)],
                Choice::Fallback { gitlab: 0, used: 1 },
            ),
            // Then any candidate with the file, longest first.
            (
                &[(T, F), (F, T), (F, T)],
                Choice::Fallback { gitlab: 0, used: 2 },
            ),
            (&[(F, F), (F, T)], Choice::Fallback { gitlab: 0, used: 1 }),
            // Nothing found anywhere.
            (&[(F, F), (F, F), (F, F)], Choice::NotFound { gitlab: 0 }),
            (&[(F, F), (T, F), (F, F)], Choice::NotFound { gitlab: 1 }),
            (&[(T, F), (T, F)], Choice::NotFound { gitlab: 0 }),
            // Empty evidence.
            (&[], Choice::NotFound { gitlab: 0 }),
        ];
        for &(evidence, want) in cases {
            assert_eq!(choose(&ev(evidence)), want, "evidence {evidence:?}");
        }
    }

    #[test]
    fn picks() {
        assert_eq!(
            Choice::Fallback { gitlab: 0, used: 2 }.pick(),
            Ok(Pick {
                used: 2,
                fallback_from: Some(0)
            })
        );
        assert_eq!(
            Choice::Gitlab(1).pick(),
            Ok(Pick {
                used: 1,
                fallback_from: None
            })
        );
        assert_eq!(Choice::NotFound { gitlab: 3 }.pick(), Err(3));
    }

    proptest! {
        #[test]
        fn choose_index_in_range(evidence in prop::collection::vec(any::<(bool, bool)>(), 1..8)) {
            let evidence = ev(&evidence);
            let (Choice::Gitlab(g) | Choice::Fallback { gitlab: g, .. } | Choice::NotFound { gitlab: g }) =
                choose(&evidence);
            prop_assert!(g < evidence.len());
            if let Choice::Fallback { used, .. } = choose(&evidence) {
                prop_assert!(used < evidence.len() && evidence[used].blob_found);
            }
        }
    }
}
