//! The follow-up query after a blob query found nothing (`graphql/miss_probe.graphql`): one
//! request, the same on every GitLab, that tells "ref not found" from "a directory" from "file
//! not found", and for the last names the existing paths most like the one asked ("Did you
//! mean", ranked by [`suggest`]). So a miss costs two requests in all.
//!
//! The query lists a page (100 entries) of subdirectories and files of each directory
//! [`suggest::ancestors_to_list`] names: the path's parent, two more levels above it and the
//! root. Nothing the project's Duo exclusion rules exclude is suggested.

use graphql_client::GraphQLQuery;

use super::connection::Connection;
use super::graphql::{MissProbe, miss_probe};
use crate::config::Credential;
use crate::resolve::ref_name::{RefType, qualify_ref};
use crate::source::blob::{SourceError, file_not_found};
use crate::source::gitlab::rules::exclusion;
use crate::source::gitlab::wire::envelope::GraphqlResponse;
use crate::source::gitlab::wire::error::{GitlabError, answer_data};
use crate::source::listing::DirEntries;
use crate::source::suggest::{self, EntryKind, Listing, ListingEntry, Suggestion};

/// Entries listed per directory and kind: `trees(first:)`, `blobs(first:)` in the document
/// (GitLab's largest page); a test keeps the two equal.
#[cfg(test)]
const PAGE: usize = 100;

/// A file name that only a wildcard matches in practice (no rule names a file `~`), standing
/// for "any file" of a directory when the rules are asked whether its contents are excluded.
const WILDCARD_ONLY: &str = "~";

/// The aliases whose errors only mean "nothing listed there" (a level that is a file, say).
const LISTING_ALIASES: [&str; 4] = ["dir", "up0", "up1", "up2"];

/// What the follow-up query learned.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Probe {
    ref_exists: bool,
    is_dir: bool,
    /// The path's own entries (a page of each kind), and whether either page has more.
    dir_entries: (Vec<ListingEntry>, bool),
    /// The existing directories of [`suggest::ancestors_to_list`], nearest first.
    listings: Vec<Listing>,
}

/// A file GitLab did not find: where it was looked for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Missing<'a> {
    pub project_path: &'a str,
    pub git_ref: &'a str,
    pub path: &'a str,
    pub ref_type: Option<RefType>,
    /// The project's Duo exclusion rules, when the instance has them.
    pub rules: Option<&'a [String]>,
}

/// The error for a file GitLab did not find at its ref: ref not found, a directory, or file
/// not found with what is near it (or why the question could not be answered).
pub(crate) async fn why_missing(
    connection: &Connection,
    missing: Missing<'_>,
    credential: Option<&Credential>,
) -> SourceError {
    let Missing {
        project_path,
        git_ref,
        path,
        ref_type,
        rules,
    } = missing;
    let qualified = qualify_ref(git_ref, ref_type);
    match probe(connection, project_path, &qualified, path, credential).await {
        Ok(Probe {
            ref_exists: false, ..
        }) => SourceError::RefNotFound {
            git_ref: git_ref.to_string(),
        },
        Ok(Probe {
            is_dir: true,
            dir_entries: (entries, paged),
            ..
        }) => SourceError::IsDirectory {
            path: path.to_string(),
            git_ref: git_ref.to_string(),
            entries: DirEntries::of(&entries, paged, |e| entry_allowed(rules, path, e)),
        },
        Ok(Probe { listings, .. }) => {
            let near = suggest::rank(path, &listings, |s| allowed(rules, s, path));
            file_not_found(path, git_ref, near)
        }
        Err(e) => e.into(),
    }
}

/// Whether `rules` let `suggestion` be named: a file that is not excluded, or a directory that
/// is not, and neither is the path it leads to (`app/models/user.rb` for `app/models/`).
fn allowed(rules: Option<&[String]>, suggestion: &Suggestion, asked: &str) -> bool {
    let Some(rules) = rules else {
        return true;
    };
    let excluded = |p: &str| exclusion::is_excluded(rules, p);
    match suggestion.kind {
        EntryKind::File => !excluded(&suggestion.path),
        EntryKind::Directory => {
            !excluded(&suggestion.path) && !excluded(&suggest::through(suggestion, asked))
        }
    }
}

/// Whether `rules` let the entry `entry` of the directory `dir` be named: a file that is not
/// excluded, or a directory that is not, and whose contents are not as far as a wildcard rule
/// says (`secrets/` under `secrets/*` or `secrets/**`: a file named only by a wildcard,
/// [`WILDCARD_ONLY`], directly inside it is excluded). A rule naming some files in it
/// (`secrets/*.pem`) leaves the directory named.
fn entry_allowed(rules: Option<&[String]>, dir: &str, entry: &ListingEntry) -> bool {
    let Some(rules) = rules else {
        return true;
    };
    let path = format!("{dir}/{}", entry.name);
    let excluded = |p: &str| exclusion::is_excluded(rules, p);
    match entry.kind {
        EntryKind::File => !excluded(&path),
        EntryKind::Directory => !excluded(&path) && !excluded(&format!("{path}/{WILDCARD_ONLY}")),
    }
}

async fn probe(
    connection: &Connection,
    project_path: &str,
    git_ref: &str,
    path: &str,
    credential: Option<&Credential>,
) -> Result<Probe, GitlabError> {
    let body = MissProbe::build_query(variables(project_path, git_ref, path));
    let answer: GraphqlResponse<miss_probe::ResponseData> =
        connection.post(&body, credential).await?;
    let data = answer_data(without_listing_errors(answer))?;
    Ok(read(data, path))
}

/// The directories above `path` that get their own alias: those of
/// [`suggest::ancestors_to_list`] but the root (the `root` alias lists it).
fn levels(path: &str) -> Vec<&str> {
    let mut dirs = suggest::ancestors_to_list(path);
    dirs.retain(|d| !d.is_empty());
    dirs
}

/// The query's variables: `up0`..`up2` are [`levels`], left out (`withUpN: false`) past its end.
fn variables(project_path: &str, git_ref: &str, path: &str) -> miss_probe::Variables {
    let levels = levels(path);
    let up = |i: usize| levels.get(i).copied();
    let text = |i: usize| up(i).unwrap_or_default().to_string();
    miss_probe::Variables {
        project_path: project_path.to_string(),
        ref_: git_ref.to_string(),
        path: path.to_string(),
        up0: text(0),
        up1: text(1),
        up2: text(2),
        with_up0: up(0).is_some(),
        with_up1: up(1).is_some(),
        with_up2: up(2).is_some(),
    }
}

/// `answer` without the errors confined to a listing alias: that alias reads as null, "nothing
/// listed there". Errors anywhere else stay.
fn without_listing_errors<T>(mut answer: GraphqlResponse<T>) -> GraphqlResponse<T> {
    if let Some(errors) = answer.errors.take() {
        let (listing, rest): (Vec<_>, Vec<_>) = errors
            .into_iter()
            .partition(|e| LISTING_ALIASES.iter().any(|alias| e.is_under(alias)));
        if !listing.is_empty() {
            tracing::debug!(?listing, "GitLab could not list some directories of a miss");
        }
        answer.errors = (!rest.is_empty()).then_some(rest);
    }
    answer
}

/// The answer as a [`Probe`]: the ref exists when its root tree has a last commit or any tree
/// has an entry; the path is a directory when its own tree has entries.
fn read(data: miss_probe::ResponseData, path: &str) -> Probe {
    let Some(repo) = data.project.and_then(|p| p.repository) else {
        return Probe {
            ref_exists: false,
            is_dir: false,
            dir_entries: (Vec::new(), false),
            listings: Vec::new(),
        };
    };
    let is_dir = repo
        .dir
        .as_ref()
        .is_some_and(|d| any_entry(&d.trees.nodes) || any_entry(&d.blobs.nodes));
    let dir_entries = repo.dir.map(own_entries).unwrap_or_default();
    let has_last_commit = repo.root.as_ref().is_some_and(|r| r.last_commit.is_some());
    let ups = [repo.up0, repo.up1, repo.up2];
    let mut listings: Vec<Listing> = levels(path)
        .into_iter()
        .zip(ups)
        .filter_map(|(dir, answer)| listing(dir, answer?))
        .collect();
    if let Some(root) = repo.root.and_then(|r| listing("", r.dir_entries)) {
        listings.push(root);
    }
    Probe {
        ref_exists: has_last_commit || is_dir || !listings.is_empty(),
        is_dir,
        dir_entries,
        listings,
    }
}

/// The path's own page of entries, and whether either page has more.
fn own_entries(dir: miss_probe::MissProbeProjectRepositoryDir) -> (Vec<ListingEntry>, bool) {
    let paged = dir.trees.page_info.has_next_page || dir.blobs.page_info.has_next_page;
    let entry = |name, kind| ListingEntry { name, kind };
    let trees = dir.trees.nodes.into_iter().flatten().flatten();
    let blobs = dir.blobs.nodes.into_iter().flatten().flatten();
    let entries = trees
        .map(|t| entry(t.name, EntryKind::Directory))
        .chain(blobs.map(|b| entry(b.name, EntryKind::File)))
        .collect();
    (entries, paged)
}

/// A directory's listing, or `None` when it has no entries (it does not exist).
fn listing(dir: &str, answer: miss_probe::DirEntries) -> Option<Listing> {
    let entry = |name, kind| ListingEntry { name, kind };
    let trees = answer.trees.nodes.into_iter().flatten().flatten();
    let blobs = answer.blobs.nodes.into_iter().flatten().flatten();
    let entries: Vec<ListingEntry> = trees
        .map(|t| entry(t.name, EntryKind::Directory))
        .chain(blobs.map(|b| entry(b.name, EntryKind::File)))
        .collect();
    (!entries.is_empty()).then(|| Listing {
        dir: dir.to_string(),
        entries,
    })
}

/// Whether a connection's `nodes` hold an entry: git stores no empty directories, so a path
/// with entries is a directory.
fn any_entry<T>(nodes: &Option<Vec<Option<T>>>) -> bool {
    nodes.iter().flatten().flatten().next().is_some()
}

/// GitLab's complexity score of the document, by the rules `evidence_query` documents, counted high:
/// each `trees`/`blobs` connection as if it were a resolver connection (1% more per item it may
/// load): `(name + nodes + field + Gitaly) × (1 + first/100)` = 4 × 2 = 8 with a full page, 4
/// with `first: 1`, and `pageInfo { hasNextPage }` adds 2 inside the factor (the path's own
/// listing, `dir`); a `tree` adds 1 + 1 (Gitaly) to its children, `lastCommit { sha }` costs 3,
/// `repository` 1 and `project` 2.
#[cfg(test)]
fn estimated_complexity(levels: usize, page: usize) -> usize {
    // GitLab truncates (`complexity.to_i`).
    let connection = |own: usize, first: usize| own * (100 + first) / 100;
    let listing_tree = 2 * connection(4, page) + 2;
    let root = listing_tree + 3;
    let dir = 2 * connection(6, page) + 2;
    2 + 1 + root + dir + levels * listing_tree
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn any_entry_needs_a_node() {
        assert!(!any_entry::<u8>(&None));
        assert!(!any_entry::<u8>(&Some(vec![])));
        assert!(!any_entry::<u8>(&Some(vec![None])));
        assert!(any_entry(&Some(vec![None, Some(1)])));
    }

    #[test]
    fn the_query_stays_inside_gitlabs_complexity_limits() {
        let worst = estimated_complexity(suggest::LEVELS_ABOVE_PARENT + 1, PAGE);
        assert_eq!(worst, 104);
        assert!(worst <= 200, "anonymous limit");
        // The document pages what PAGE says (the fragment and the path's own listing), and
        // lists three levels besides the root.
        let doc = miss_probe::QUERY;
        assert_eq!(doc.matches(&format!("(first: {PAGE})")).count(), 4, "{doc}");
        assert!(doc.contains("up2: tree(") && !doc.contains("up3"));
    }

    #[test]
    fn variables_name_the_levels_and_leave_out_the_rest() {
        let v =
            serde_json::to_value(variables("g/p", "refs/heads/main", "app/model/user.rb")).unwrap();
        assert_eq!(v["up0"], "app/model");
        assert_eq!(v["up1"], "app");
        assert_eq!(
            (
                v["withUp0"].clone(),
                v["withUp1"].clone(),
                v["withUp2"].clone()
            ),
            (json!(true), json!(true), json!(false))
        );
        assert_eq!(v["ref"], "refs/heads/main");
        let v = serde_json::to_value(variables("g/p", "main", "README.md")).unwrap();
        assert_eq!(
            (v["withUp0"].clone(), v["up0"].clone()),
            (json!(false), json!(""))
        );
    }

    fn answer(v: Value) -> GraphqlResponse<miss_probe::ResponseData> {
        serde_json::from_value(v).unwrap()
    }

    fn entries(trees: &[&str], blobs: &[&str]) -> Value {
        let nodes =
            |names: &[&str]| json!(names.iter().map(|n| json!({"name": n})).collect::<Vec<_>>());
        let page = json!({"hasNextPage": false});
        json!({"trees": {"nodes": nodes(trees), "pageInfo": page},
               "blobs": {"nodes": nodes(blobs), "pageInfo": page}})
    }

    #[test]
    fn answers_tell_ref_directory_and_listings_apart() {
        let no_entries = entries(&[], &[]);
        let mut root = entries(&["app"], &["README.md"]);
        root["lastCommit"] = json!({"sha": "abc"});
        let a = answer(json!({"data": {"project": {"repository": {
            "root": root, "dir": no_entries,
            "up0": no_entries, "up1": entries(&["models"], &["app.rb"])
        }}}}));
        let p = read(answer_data(a).unwrap(), "app/model/user.rb");
        assert!(p.ref_exists && !p.is_dir);
        let dirs: Vec<&str> = p.listings.iter().map(|l| l.dir.as_str()).collect();
        assert_eq!(dirs, ["app", ""]);
        // A missing ref: no last commit and no entries anywhere, or a null tree.
        let mut bare = entries(&[], &[]);
        bare["lastCommit"] = Value::Null;
        for root in [bare, Value::Null] {
            let a = answer(json!({"data": {"project": {"repository": {
                "root": root, "dir": entries(&[], &[])
            }}}}));
            assert!(!read(answer_data(a).unwrap(), "README.md").ref_exists);
        }
        let a = answer(json!({"data": {"project": {"repository": {
            "root": {"lastCommit": {"sha": "abc"}, "trees": {"nodes": []}, "blobs": {"nodes": []}},
            "dir": entries(&[], &["x"])
        }}}}));
        assert!(read(answer_data(a).unwrap(), "src").is_dir);
        let a = answer(json!({"data": {"project": null}}));
        assert!(!read(answer_data(a).unwrap(), "x").ref_exists);
    }

    #[test]
    fn a_directory_names_its_entries_but_not_excluded_ones() {
        let mut root = entries(&["app"], &[]);
        root["lastCommit"] = json!({"sha": "abc"});
        let mut dir = entries(&["models", "secrets"], &["app.rb", "prod.env"]);
        dir["blobs"]["pageInfo"]["hasNextPage"] = json!(true);
        let a = answer(json!({"data": {"project": {"repository": {"root": root, "dir": dir}}}}));
        let p = read(answer_data(a).unwrap(), "app");
        assert!(p.is_dir && p.dir_entries.1, "{p:?}");
        let rules = vec![
            "app/secrets/*".to_string(),
            "*.env".to_string(),
            "app/models/*.pem".to_string(),
        ];
        let named = DirEntries::of(&p.dir_entries.0, p.dir_entries.1, |e| {
            entry_allowed(Some(&rules), "app", e)
        });
        assert_eq!(named.named, ["models/", "app.rb"]);
        assert_eq!(named.to_string(), "It holds 'models/', 'app.rb' and more.");
        let all = DirEntries::of(&p.dir_entries.0, false, |e| entry_allowed(None, "app", e));
        assert_eq!(all.named, ["models/", "secrets/", "app.rb", "prod.env"]);
    }

    #[test]
    fn an_error_on_a_listing_is_only_a_missing_listing() {
        let mut root = entries(&[], &["README.md"]);
        root["lastCommit"] = json!({"sha": "abc"});
        let a = answer(json!({
            "errors": [{"message": "not a tree", "path": ["project", "repository", "up0"]}],
            "data": {"project": {"repository": {"root": root, "dir": null, "up0": null}}}}));
        let p = read(
            answer_data(without_listing_errors(a)).unwrap(),
            "README.md/x",
        );
        assert!(p.ref_exists && p.listings.len() == 1);
        let a = answer(json!({
            "errors": [{"message": "boom", "path": ["project", "repository", "root"]}],
            "data": {"project": {"repository": {"root": null}}}}));
        assert!(answer_data(without_listing_errors(a)).is_err());
    }

    #[test]
    fn excluded_paths_are_never_allowed() {
        let rules = vec!["secrets/*".to_string(), "*.env".to_string()];
        let file = |p: &str| Suggestion {
            path: p.into(),
            kind: EntryKind::File,
        };
        let dir = |p: &str| Suggestion {
            path: p.into(),
            kind: EntryKind::Directory,
        };
        assert!(!allowed(Some(&rules), &file("prod.env"), "prod.envv"));
        assert!(allowed(Some(&rules), &file("README.md"), "readme.md"));
        // `secrets/` itself matches no rule, but what it leads to does.
        assert!(!allowed(Some(&rules), &dir("secrets"), "secret/key.pem"));
        assert!(allowed(Some(&rules), &dir("src"), "scr/main.rs"));
        assert!(allowed(None, &file("prod.env"), "prod.envv"));
    }
}
