//! The house's rules over `src/`, so CI fails when one is broken:
//! - imports run down the floors ([`FLOORS`]): in a folder that names its floors, a module
//!   imports only modules on its own floor or below, and every module of the folder is on one;
//! - no module cycle at any depth: modules importing each other, parent and child included,
//!   and folders importing each other through any of their modules (`tool` → `metrics` →
//!   `metrics::labels` → `tool::name` is `tool <-> metrics`);
//! - no type name defined in two modules, and no crate type re-exported or imported under a
//!   second name;
//! - no folder under `src/` with more than [`MAX_FOLDER_FILES`] files, no file with more than
//!   [`MAX_CODE_LINES`] lines of code outside tests and comments;
//! - no `macro_rules!` outside tests, no function outside tests over 60 lines, no
//!   `Result<_, String>` outside clap value parsers, no NUL-joined string key;
//! - no `static` outside tests but those of [`PROCESS_STATICS`], each saying why it holds
//!   nothing one request learnt (what GitLab said of a token during a call is that request's
//!   state, carried back with it, never a process's).
//!
//! The sources are read as text, not parsed: strings and comments are blanked first, then
//! `#[cfg(test)]` items and test-only files are left out. A module's imports are every path it
//! writes (`use`, `pub use` and `pub(crate) use` re-exports included, `crate::`/`super::`/
//! `self::` paths, a child named directly); the module a path names is its longest prefix that
//! is a module, so a re-export counts for the module that writes it (`pub use child::X` in a
//! parent whose child uses `super::Y` is a cycle). An inline module (`mod m { .. }`) counts as
//! its file's module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

/// The longest function allowed outside tests, in lines (signature and closing brace included).
const MAX_FN_LINES: usize = 60;

/// The most files a folder under `src/` may hold (its own `mod.rs` and test files included;
/// subfolders are not files).
const MAX_FOLDER_FILES: usize = 12;

/// The most lines of code a file may have outside tests and comments (blank lines not counted).
const MAX_CODE_LINES: usize = 500;

/// The floors of the folders that have them, top to bottom: a module may import modules on its
/// own floor or below it, never above (siblings on one floor may import each other, without a
/// cycle). Every module of such a folder must stand on one of its floors; a name with no module
/// (yet) is allowed. A folder's own `mod.rs` is not on a floor: its children use what it
/// declares (a contract such as `source`'s `trait Source`), and it imports what it hands on,
/// with no cycle either way.
const FLOORS: Floors = &[
    (
        "crate",
        &[
            // The binary's wiring and the fuzzers' door.
            &["cli", "fuzzing"],
            // The transports (and issue 36's sign-in, `auth`, beside `http`).
            &["http", "auth", "stdio"],
            // The MCP face: the handler, the tools' definitions, JSON-RPC's edges.
            &["tool"],
            // The resources' face (issue 49): templates, reads, lists, completion.
            &["resources"],
            // A call's steps, one file or many; `search_repository` beside them.
            &["reader", "find"],
            // What a call asks to see of a blob, rendered.
            &["view"],
            // The output and its hints; where the bytes come from.
            &["response", "source"],
            // Arguments → a target.
            &["resolve"],
            // Pure work on a blob's text.
            &["outline"],
            &["window"],
            // Settings, published numbers, metrics.
            &["config", "limits", "metrics"],
            // What every floor stands on.
            &["base"],
        ],
    ),
    (
        "crate::http",
        &[
            &["app", "flags", "left", "listen", "scrape"],
            &["door"],
            &["sessions"],
            &["guard"],
            &["wording"],
        ],
    ),
    (
        "crate::reader",
        &[
            &["batch", "bytes"],
            &["views"],
            &["steps"],
            &["caller", "error", "history"],
        ],
    ),
    (
        "crate::source",
        &[
            &["gitlab", "local"],
            &[
                "blob", "classify", "listing", "suggest", "text", "tree", "views",
            ],
        ],
    ),
    (
        "crate::source::gitlab",
        &[&["read"], &["content"], &["query"], &["rules"], &["wire"]],
    ),
];

/// Floors: a folder's module path (`crate::http`) and its floors, top to bottom.
type Floors = &'static [(&'static str, &'static [&'static [&'static str]])];

/// What the house is meant to be beyond the rules every tree keeps: its folders' floors, and
/// the duplicate type names still waiting on a branch.
struct Plan {
    floors: Floors,
    known_duplicates: &'static [(&'static str, &'static str)],
}

/// This house's plan.
const HOUSE: Plan = Plan {
    floors: FLOORS,
    known_duplicates: KNOWN_DUPLICATES,
};

/// No floors and no known duplicates: the plan of the small trees the reader's own tests read.
const NO_PLAN: Plan = Plan {
    floors: &[],
    known_duplicates: &[],
};

/// Type names still defined in two modules, each waiting on the branch that renames it (name,
/// who). The lead empties this list as those branches land; a name listed here that is no
/// longer defined twice is a finding too, so the list cannot outlive its reason.
const KNOWN_DUPLICATES: &[(&str, &str)] = &[];

/// `fn name`: a function's name.
static FN_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bfn\s+(\w+)").expect("a valid regex"));

/// `value_parser = f`: a clap value parser.
static VALUE_PARSER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"value_parser\s*=\s*([\w:]+)").expect("a valid regex"));

/// `Result<_, String>`.
static STRING_RESULT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"Result<[^;{]*,\s*String\s*>").expect("a valid regex"));

/// The first line of an inline module.
static INLINE_MOD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(pub(\(\w+\))?\s+)?mod\s+\w+\s*\{").expect("a valid regex"));

/// A `use` item's path.
static USE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\buse\s+([^;]+);").expect("a valid regex"));

/// A restricted visibility (`pub(in crate::outline)`): a path that is no import.
static VISIBILITY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"pub\(in\s+[^)]*\)").expect("a valid regex"));

/// A path from `crate`, `super` or `self`.
static ROOTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b((?:crate|super|self)(?:::\w+)+)").expect("a valid regex"));

/// A path from a name (a child module's, if it is one).
static CHILD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b([a-z_]\w*)::\w").expect("a valid regex"));

/// ` as name` at the end of a `use` path.
static ALIAS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\s+as\s+\w+$").expect("a valid regex"));

/// `#[cfg(test)] mod name;`, with or without `#[path]`.
static TEST_MOD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"#\[cfg\(test\)\]\s*(?:#\[path\s*=\s*"([^"]+)"\]\s*)?mod\s+(\w+)\s*;"#)
        .expect("a valid regex")
});

/// A type's definition at the start of a line: `struct`, `enum`, `union`, `trait` or `type`.
static TYPE_DEF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum|union|trait|type)\s+([A-Z]\w*)")
        .expect("a valid regex")
});

/// A `use` that names a path of the crate under another name (`use crate::a::B as C;`).
static USE_AS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\buse\s+(?:crate|super|self)::[^;]*\b([A-Z]\w*)\s+as\s+(\w+)")
        .expect("a valid regex")
});

/// A `format!` literal with `\0{`.
static NUL_KEY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"format!\(\s*"[^"]*\\0\{"#).expect("a valid regex"));

/// The `static` items allowed outside tests (file under `src/`, name) and why each holds no
/// request-derived state. A new one is refused: keep what a request learns in the request.
const PROCESS_STATICS: &[(&str, &str, &str)] = &[
    (
        "source/gitlab/query/blob_query.rs",
        "DOCUMENTS",
        "the query texts, built once",
    ),
    (
        "source/gitlab/wire/transport.rs",
        "ONCE",
        "installs the TLS crypto provider",
    ),
    (
        "metrics/mod.rs",
        "INSTALLED",
        "the process's metrics registry (counts only)",
    ),
    ("reader/history.rs", "KEY", "a random hashing key"),
    (
        "outline/memory.rs",
        "NET",
        "this thread's parser allocation count, reset per parse",
    ),
    (
        "outline/memory.rs",
        "HIGH",
        "this thread's parser allocation peak, reset per parse",
    ),
    (
        "outline/memory.rs",
        "INSTALL",
        "installs the parser's allocator",
    ),
    (
        "outline/reach.rs",
        "TABLES",
        "each grammar's node kinds, built once",
    ),
    (
        "outline/reach.rs",
        "EVERYTHING",
        "the node kinds of no grammar, built once",
    ),
    ("tool/mod.rs", "INFO", "the server's own description"),
    (
        "base/cpu.rs",
        "POOL",
        "the slots of the CPU-bound work, one per core",
    ),
    (
        "base/cpu.rs",
        "CALLER",
        "task-local: the caller one call's jobs are counted for",
    ),
    (
        "base/cpu.rs",
        "CALLERS",
        "the pool's share per caller while it has jobs, then dropped",
    ),
    (
        "base/timing.rs",
        "UPSTREAM",
        "task-local: one call's own time waiting on GitLab",
    ),
    (
        "base/tool_name.rs",
        "LISTED",
        "the tools' names joined, built once",
    ),
];

static STATIC_ITEM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bstatic\s+(?:mut\s+)?([A-Z_][A-Z0-9_]*)\s*:").expect("a valid regex")
});

/// Each `static` outside tests that [`PROCESS_STATICS`] does not list.
fn statics(path: &str, lines: &Code) -> Vec<String> {
    let item = &*STATIC_ITEM;
    lines
        .iter()
        .flat_map(|(no, line)| item.captures_iter(line).map(move |c| (no, c)))
        .filter(|(_, c)| {
            !PROCESS_STATICS
                .iter()
                .any(|(file, name, _)| *file == path && *name == &c[1])
        })
        .map(|(no, c)| {
            format!(
                "a static outside tests: src/{path}:{no} `{}`; keep what a request learns in the request (or list it in PROCESS_STATICS with why it is no request's state)",
                &c[1]
            )
        })
        .collect()
}

/// A module's path below the crate: `["window", "search"]` for `src/window/search/mod.rs`.
type Module = Vec<String>;

/// One source file: its path under `src/` (with `/`) and its text.
struct Source {
    path: String,
    text: String,
}

/// A file's code: (1-indexed line number, the line with strings emptied and comments dropped),
/// `#[cfg(test)]` items left out.
type Code = Vec<(usize, String)>;

#[test]
fn src_keeps_the_house_rules() {
    // `HOUSE_RULES_SRC=/other/src` reads another tree (to compare with the house's checker).
    let src = std::env::var_os("HOUSE_RULES_SRC").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        PathBuf::from,
    );
    let mut sources = Vec::new();
    read_tree(&src, &src, &mut sources);
    assert!(sources.len() > 50, "src/ holds the crate's modules");
    let found = findings(&sources, &HOUSE);
    assert!(
        found.is_empty(),
        "{} house rule(s) broken:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// Every `.rs` file under `dir`, its path relative to `root`.
fn read_tree(root: &Path, dir: &Path, out: &mut Vec<Source>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a readable directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            read_tree(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).expect("under src/");
            let rel = rel.to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&path).expect("a UTF-8 source file");
            out.push(Source { path: rel, text });
        }
    }
}

/// Every broken rule in `sources` (and every departure from `plan`), one sentence each.
fn findings(sources: &[Source], plan: &Plan) -> Vec<String> {
    let test_files = test_files(sources);
    let code: Vec<(&Source, Code)> = sources
        .iter()
        .map(|s| {
            let skip = s.path.ends_with("/tests.rs")
                || s.path == "tests.rs"
                || test_files.contains(&s.path);
            (
                s,
                if skip {
                    Vec::new()
                } else {
                    code_lines(&s.text)
                },
            )
        })
        .collect();
    let mut out = Vec::new();
    for (source, lines) in &code {
        out.extend(macros(&source.path, lines));
        out.extend(long_functions(&source.path, lines));
        out.extend(nul_keys(source, lines));
        out.extend(long_file(&source.path, lines));
        out.extend(second_names(&source.path, lines));
        out.extend(statics(&source.path, lines));
    }
    out.extend(string_results(&code));
    out.extend(full_folders(sources));
    out.extend(types_defined_twice(&code, plan));
    let imports = imports(&code);
    out.extend(floors(&imports, plan));
    out.extend(cycles(&imports));
    out
}

// ---------------------------------------------------------------- reading the text

/// The files declared `#[cfg(test)] mod name;` (with or without `#[path]`): test-only.
fn test_files(sources: &[Source]) -> BTreeSet<String> {
    let declared = &*TEST_MOD;
    let mut out = BTreeSet::new();
    for s in sources {
        let (dir, file) = s.path.rsplit_once('/').unwrap_or(("", &s.path));
        let owner = matches!(file, "mod.rs" | "lib.rs" | "main.rs");
        let here = match (dir, owner) {
            (_, true) => dir.to_string(),
            ("", false) => file.trim_end_matches(".rs").to_string(),
            (_, false) => format!("{dir}/{}", file.trim_end_matches(".rs")),
        };
        for m in declared.captures_iter(&s.text) {
            if let Some(path) = m.get(1) {
                out.insert(normalize(&join(dir, path.as_str())));
            } else {
                let name = &m[2];
                out.insert(join(&here, &format!("{name}.rs")));
                out.insert(join(&here, &format!("{name}/mod.rs")));
            }
        }
    }
    out
}

fn join(dir: &str, rest: &str) -> String {
    if dir.is_empty() {
        rest.to_string()
    } else {
        format!("{dir}/{rest}")
    }
}

/// `a/b/../c.rs` → `a/c.rs`.
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// Where the blanking is between lines: in code, in a string (a raw one with its `#`s), or in
/// a block comment (its nesting depth).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lexed {
    Code,
    Str,
    Raw(usize),
    Comment(usize),
}

/// `text` line by line with string and character literals emptied (`""`, `' '`) and comments
/// dropped; a string or block comment over several lines blanks the lines it spans.
fn blanked(text: &str) -> Vec<String> {
    let mut state = Lexed::Code;
    text.split('\n')
        .map(|line| {
            let (out, next) = blank_line(line, state);
            state = next;
            out
        })
        .collect()
}

/// One line of [`blanked`], starting in `state`; the state the next line starts in.
fn blank_line(line: &str, mut state: Lexed) -> (String, Lexed) {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match state {
            Lexed::Str => {
                match c {
                    '\\' => i += 1,
                    '"' => state = Lexed::Code,
                    _ => {}
                }
                i += 1;
            }
            Lexed::Raw(hashes) => {
                if c == '"' && chars[i + 1..].iter().take_while(|&&h| h == '#').count() >= hashes {
                    state = Lexed::Code;
                    i += hashes;
                }
                i += 1;
            }
            Lexed::Comment(depth) => {
                let next = chars.get(i + 1).copied();
                if c == '*' && next == Some('/') {
                    state = if depth == 1 {
                        Lexed::Code
                    } else {
                        Lexed::Comment(depth - 1)
                    };
                    i += 1;
                } else if c == '/' && next == Some('*') {
                    state = Lexed::Comment(depth + 1);
                    i += 1;
                }
                i += 1;
            }
            Lexed::Code => {
                let (taken, next) = code_char(&chars, i, &mut out);
                if taken == 0 {
                    break;
                }
                state = next;
                i += taken;
            }
        }
    }
    (out, state)
}

/// Reads code at `chars[i]` into `out`: how many characters it took (0: a line comment, the
/// rest of the line is dropped) and the state after them.
fn code_char(chars: &[char], i: usize, out: &mut String) -> (usize, Lexed) {
    let c = chars[i];
    let next = chars.get(i + 1).copied();
    let after_word = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    match c {
        '/' if next == Some('/') => (0, Lexed::Code),
        '/' if next == Some('*') => (2, Lexed::Comment(1)),
        '"' => {
            out.push_str("\"\"");
            (1, Lexed::Str)
        }
        'r' if !after_word || (i > 0 && chars[i - 1] == 'b') => {
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            if chars.get(i + 1 + hashes) == Some(&'"') {
                out.push_str("\"\"");
                (hashes + 2, Lexed::Raw(hashes))
            } else {
                out.push(c);
                (1, Lexed::Code)
            }
        }
        '\'' => match char_literal(&chars[i..]) {
            Some(len) => {
                out.push_str("' '");
                (len, Lexed::Code)
            }
            None => {
                out.push(c);
                (1, Lexed::Code)
            }
        },
        _ => {
            out.push(c);
            (1, Lexed::Code)
        }
    }
}

/// The length of the character literal `chars` starts with (`'a'`, `'\n'`, `'\u{1F600}'`),
/// `None` for a lifetime or label.
fn char_literal(chars: &[char]) -> Option<usize> {
    match chars.get(1)? {
        '\\' => {
            let close = chars.iter().skip(2).position(|&c| c == '\'')?;
            Some(close + 3)
        }
        '\'' => None,
        _ => (chars.get(2) == Some(&'\'')).then_some(3),
    }
}

/// The code of a file: [`blanked`] lines without the `#[cfg(test)]` items.
fn code_lines(text: &str) -> Code {
    let mut out = Vec::new();
    let (mut depth, mut skip_depth, mut pending_test) = (0i64, None::<i64>, false);
    for (no, line) in blanked(text)
        .into_iter()
        .enumerate()
        .map(|(n, l)| (n + 1, l))
    {
        let mut stripped = line.trim();
        if let Some(rest) = stripped.strip_prefix("#[cfg(test)]") {
            pending_test = true;
            stripped = rest.trim();
            if stripped.is_empty() {
                continue;
            }
        }
        let opens = stripped.matches('{').count() as i64;
        let closes = stripped.matches('}').count() as i64;
        if let Some(skip) = skip_depth {
            depth += opens - closes;
            if depth <= skip {
                skip_depth = None;
            }
            continue;
        }
        if pending_test && !stripped.is_empty() && !stripped.starts_with("#[") {
            pending_test = false;
            if opens > closes {
                skip_depth = Some(depth);
                depth += opens - closes;
                continue;
            }
            if stripped.ends_with(';') || opens > 0 {
                continue;
            }
        }
        depth += opens - closes;
        out.push((no, line));
    }
    out
}

// ---------------------------------------------------------------- the line rules

fn macros(path: &str, lines: &Code) -> Vec<String> {
    lines
        .iter()
        .filter(|(_, l)| l.contains("macro_rules!"))
        .map(|(no, _)| format!("macro_rules! outside tests: src/{path}:{no}"))
        .collect()
}

/// Each `fn` with a body longer than [`MAX_FN_LINES`], from its `fn` line to its closing brace.
fn long_functions(path: &str, lines: &Code) -> Vec<String> {
    let fn_name = &*FN_NAME;
    let mut out = Vec::new();
    for (i, (no, line)) in lines.iter().enumerate() {
        let Some(name) = fn_name.captures(line).map(|c| c[1].to_string()) else {
            continue;
        };
        if let Some(last) = body_end(&lines[i..]) {
            let length = last - no + 1;
            if length > MAX_FN_LINES {
                out.push(format!(
                    "function over {MAX_FN_LINES} lines: src/{path}:{no} {name} ({length})"
                ));
            }
        }
    }
    out
}

/// The line number of the brace that closes the body starting in `lines[0]`'s item; `None`
/// for a declaration without a body (`fn f();`).
fn body_end(lines: &[(usize, String)]) -> Option<usize> {
    let mut depth = 0i64;
    let mut started = false;
    for (no, line) in lines {
        if !started && !line.contains('{') && line.trim_end().ends_with(';') {
            return None;
        }
        for c in line.chars() {
            match c {
                '{' => {
                    depth += 1;
                    started = true;
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        if started && depth <= 0 {
            return Some(*no);
        }
    }
    started.then(|| lines.last().map_or(0, |(no, _)| *no))
}

/// `Result<_, String>` anywhere but in the signature of a function a clap `value_parser = f`
/// names.
fn string_results(code: &[(&Source, Code)]) -> Vec<String> {
    let parser = &*VALUE_PARSER;
    let result = &*STRING_RESULT;
    let fn_name = &*FN_NAME;
    let allowed: BTreeSet<String> = code
        .iter()
        .flat_map(|(_, lines)| lines.iter())
        .flat_map(|(_, l)| parser.captures_iter(l).map(|c| c[1].to_string()))
        .map(|p| p.rsplit("::").next().unwrap_or_default().to_string())
        .collect();
    let mut out = Vec::new();
    for (source, lines) in code {
        for (i, (no, line)) in lines.iter().enumerate() {
            if !result.is_match(line) {
                continue;
            }
            // The function whose signature this is: on the line, or up to 7 lines above.
            let name = lines[i.saturating_sub(7)..=i]
                .iter()
                .rev()
                .find_map(|(_, l)| fn_name.captures(l).map(|c| c[1].to_string()));
            if !name.as_ref().is_some_and(|n| allowed.contains(n)) {
                out.push(format!(
                    "Result<_, String> outside a clap value parser: src/{}:{no} {}",
                    source.path,
                    name.as_deref().unwrap_or("(no fn)")
                ));
            }
        }
    }
    out
}

/// A `format!` whose literal joins parts with `\0` (a string key where a typed one belongs).
fn nul_keys(source: &Source, lines: &Code) -> Vec<String> {
    let nul = &*NUL_KEY;
    let raw: Vec<&str> = source.text.split('\n').collect();
    lines
        .iter()
        .filter(|(no, _)| nul.is_match(raw[no - 1]))
        .map(|(no, _)| format!("NUL-joined string key: src/{}:{no}", source.path))
        .collect()
}

// ---------------------------------------------------------------- names and sizes

/// A file with more than [`MAX_CODE_LINES`] lines of code outside tests (blank and comment lines
/// not counted).
fn long_file(path: &str, lines: &Code) -> Option<String> {
    let code = lines.iter().filter(|(_, l)| !l.trim().is_empty()).count();
    (code > MAX_CODE_LINES)
        .then(|| format!("file over {MAX_CODE_LINES} lines of code: src/{path} ({code}); split it"))
}

/// Each `use` that names a crate type under another name (`use crate::a::B as C`): one thing,
/// one name. `as _` (a trait brought in scope) is no name.
fn second_names(path: &str, lines: &Code) -> Vec<String> {
    let use_as = &*USE_AS;
    lines
        .iter()
        .flat_map(|(no, line)| use_as.captures_iter(line).map(move |c| (no, c)))
        .filter(|(_, c)| &c[2] != "_")
        .map(|(no, c)| {
            format!(
                "a crate type under a second name: src/{path}:{no} `{} as {}`; call it by its name",
                &c[1], &c[2]
            )
        })
        .collect()
}

/// Each folder under `src/` (`src/` included) with more than [`MAX_FOLDER_FILES`] files.
fn full_folders(sources: &[Source]) -> Vec<String> {
    let mut files: BTreeMap<&str, usize> = BTreeMap::new();
    for s in sources {
        let folder = s.path.rsplit_once('/').map_or("", |(dir, _)| dir);
        *files.entry(folder).or_default() += 1;
    }
    files
        .into_iter()
        .filter(|(_, n)| *n > MAX_FOLDER_FILES)
        .map(|(folder, n)| {
            let shown = if folder.is_empty() {
                "src/".to_string()
            } else {
                format!("src/{folder}/")
            };
            format!("folder with more than {MAX_FOLDER_FILES} files: {shown} ({n}); give it floors")
        })
        .collect()
}

/// The types `lines` defines at item level (not in a function, `impl` or `trait`: an associated
/// type is its trait's), each with its line.
fn type_definitions(lines: &Code) -> Vec<(usize, String)> {
    let (type_def, inline_mod) = (&*TYPE_DEF, &*INLINE_MOD);
    let mut out = Vec::new();
    // One entry per open brace: whether it opened an inline module.
    let mut open: Vec<bool> = Vec::new();
    for (no, line) in lines {
        if open.iter().all(|&is_mod| is_mod)
            && let Some(name) = type_def.captures(line)
        {
            out.push((*no, name[1].to_string()));
        }
        let mut opens_mod = inline_mod.is_match(line);
        for c in line.chars() {
            match c {
                '{' => open.push(std::mem::take(&mut opens_mod)),
                '}' => {
                    open.pop();
                }
                _ => {}
            }
        }
    }
    out
}

/// Each type name defined in more than one module, but those `plan` knows of; and each name it
/// knows of which is not defined twice (any more).
fn types_defined_twice(code: &[(&Source, Code)], plan: &Plan) -> Vec<String> {
    let mut defined: BTreeMap<String, BTreeMap<Module, String>> = BTreeMap::new();
    for (source, lines) in code {
        for (no, name) in type_definitions(lines) {
            defined
                .entry(name)
                .or_default()
                .entry(module_of(&source.path))
                .or_insert_with(|| format!("src/{}:{no}", source.path));
        }
    }
    let known = |name: &str| plan.known_duplicates.iter().any(|(n, _)| *n == name);
    let mut out: Vec<String> = defined
        .iter()
        .filter(|(name, places)| places.len() > 1 && !known(name))
        .map(|(name, places)| {
            let places: Vec<&str> = places.values().map(String::as_str).collect();
            format!(
                "type name defined in {} modules: {name} ({}); rename all but one",
                places.len(),
                places.join(", ")
            )
        })
        .collect();
    for (name, who) in plan.known_duplicates {
        if defined.get(*name).is_none_or(|places| places.len() < 2) {
            out.push(format!(
                "KNOWN_DUPLICATES lists {name} ({who}), which is no longer defined twice: take it off the list"
            ));
        }
    }
    out
}

// ---------------------------------------------------------------- the import graph

/// The module a file under `src/` is: `window/search/mod.rs` → `["window", "search"]`, `lib.rs`
/// and `main.rs` → the crate (`[]`).
fn module_of(path: &str) -> Module {
    let mut parts: Module = path
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// `crate::a::b` for `["a", "b"]`, `crate` for the crate.
fn module_name(m: &[String]) -> String {
    if m.is_empty() {
        "crate".to_string()
    } else {
        format!("crate::{}", m.join("::"))
    }
}

/// One import of a module by another: who writes it, what it names, and where.
#[derive(Debug)]
struct Import {
    from: Module,
    to: Module,
    file: String,
    line: usize,
    path: String,
}

impl Import {
    /// Where the import is written: `src/a/b.rs:12 `crate::c::D``.
    fn at(&self) -> String {
        format!("src/{}:{} `{}`", self.file, self.line, self.path)
    }
}

/// The crate's modules and every import between two of them.
struct Graph {
    modules: BTreeSet<Module>,
    imports: Vec<Import>,
}

/// The graph of `code`: each path a module writes, resolved to the module it names.
fn imports(code: &[(&Source, Code)]) -> Graph {
    let modules: BTreeSet<Module> = code.iter().map(|(s, _)| module_of(&s.path)).collect();
    let mut imports = Vec::new();
    for (source, lines) in code {
        let me = module_of(&source.path);
        for (line, path) in written_paths(&me, lines, &modules) {
            if let Some(to) = resolve(&me, &path, &modules)
                && to != me
            {
                imports.push(Import {
                    from: me.clone(),
                    to,
                    file: source.path.clone(),
                    line,
                    path,
                });
            }
        }
    }
    Graph { modules, imports }
}

/// `m` as its ancestor `depth` names deep (itself when it is not as deep).
fn cut(m: &Module, depth: usize) -> Module {
    m[..m.len().min(depth)].to_vec()
}

// ---------------------------------------------------------------- floors

/// The floors `plan` gives `folder`, if any.
fn floors_of(plan: &Plan, folder: &Module) -> Option<&'static [&'static [&'static str]]> {
    let name = module_name(folder);
    plan.floors
        .iter()
        .find(|(f, _)| *f == name)
        .map(|(_, floors)| *floors)
}

/// Which floor of `floors` (0 the top) `child` stands on.
fn floor_of(floors: &[&[&str]], child: &str) -> Option<usize> {
    floors.iter().position(|floor| floor.contains(&child))
}

/// `floors` as a finding writes them: `read > content | query > wire`.
fn floor_order(floors: &[&[&str]]) -> String {
    let floors: Vec<String> = floors.iter().map(|f| f.join(" | ")).collect();
    floors.join(" > ")
}

/// Imports that climb a folder's floors, and modules of a folder with floors that stand on none.
fn floors(graph: &Graph, plan: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    for import in &graph.imports {
        let common = import
            .from
            .iter()
            .zip(&import.to)
            .take_while(|(a, b)| a == b)
            .count();
        if common == import.from.len() || common == import.to.len() {
            // A module and its ancestor: the cycle rule's business.
            continue;
        }
        let folder = import.from[..common].to_vec();
        let Some(floors) = floors_of(plan, &folder) else {
            continue;
        };
        let (mine, theirs) = (
            floor_of(floors, &import.from[common]),
            floor_of(floors, &import.to[common]),
        );
        if let (Some(mine), Some(theirs)) = (mine, theirs)
            && theirs < mine
        {
            out.push(format!(
                "upward import: {} in {} names {}, a floor above it in {} ({})",
                import.at(),
                module_name(&import.from),
                module_name(&import.to),
                module_name(&folder),
                floor_order(floors)
            ));
        }
    }
    for module in &graph.modules {
        let Some((name, folder)) = module.split_last() else {
            continue;
        };
        if let Some(floors) = floors_of(plan, &folder.to_vec())
            && floor_of(floors, name).is_none()
        {
            out.push(format!(
                "module on no floor: {} is in {}, whose floors are {}; put it on one in FLOORS",
                module_name(module),
                module_name(folder),
                floor_order(floors)
            ));
        }
    }
    out
}

// ---------------------------------------------------------------- cycles

/// Every module cycle, at any depth: modules that reach themselves through their imports, and
/// folders that do (each module counted as its ancestor so many names deep: `tool` → `metrics`
/// → `metrics::labels` → `tool::name` is the cycle `tool -> metrics -> tool`). A cycle is
/// named once, at the shallowest depth it shows, with the import that makes each step.
fn cycles(graph: &Graph) -> Vec<String> {
    let deepest = graph.modules.iter().map(Vec::len).max().unwrap_or(0);
    let mut named: Vec<(usize, BTreeSet<Module>)> = Vec::new();
    let mut out = Vec::new();
    for depth in 1..=deepest {
        let mut edges: BTreeMap<Module, BTreeMap<Module, &Import>> = BTreeMap::new();
        for import in &graph.imports {
            let (from, to) = (cut(&import.from, depth), cut(&import.to, depth));
            if from != to {
                edges.entry(from).or_default().entry(to).or_insert(import);
            }
        }
        for component in strongly_connected(&edges) {
            let already = named.iter().any(|(at, set)| {
                let seen: BTreeSet<Module> = component.iter().map(|m| cut(m, *at)).collect();
                seen.len() > 1 && seen.is_subset(set)
            });
            if !already {
                out.push(describe_cycle(&component, &edges));
                named.push((depth, component));
            }
        }
    }
    out
}

/// The sets of more than one module that each reach every other through `edges`.
fn strongly_connected(
    edges: &BTreeMap<Module, BTreeMap<Module, &Import>>,
) -> Vec<BTreeSet<Module>> {
    let reach = |start: &Module| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![start.clone()];
        while let Some(m) = todo.pop() {
            for next in edges.get(&m).into_iter().flat_map(BTreeMap::keys) {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&Module, BTreeSet<Module>> =
        edges.keys().map(|m| (m, reach(m))).collect();
    let mut out: Vec<BTreeSet<Module>> = Vec::new();
    for (m, from_m) in &reached {
        if !from_m.contains(*m) || out.iter().any(|c| c.contains(*m)) {
            continue;
        }
        let component: BTreeSet<Module> = from_m
            .iter()
            .filter(|other| reached.get(other).is_some_and(|r| r.contains(*m)))
            .cloned()
            .collect();
        out.push(component);
    }
    out
}

/// The shortest cycle in `component` (the first such, modules in order), each step with its
/// import: `module cycle: crate::a -> crate::b -> crate::a (src/a.rs:3 `crate::b::X`; ...)`.
fn describe_cycle(
    component: &BTreeSet<Module>,
    edges: &BTreeMap<Module, BTreeMap<Module, &Import>>,
) -> String {
    let steps = component
        .iter()
        .filter_map(|start| cycle_through(start, component, edges))
        .min_by_key(Vec::len)
        .expect("each module of a component lies on a cycle");
    let names: Vec<String> = steps.iter().map(|m| module_name(m)).collect();
    let why: Vec<String> = steps
        .windows(2)
        .map(|pair| edges[pair[0]][pair[1]].at())
        .collect();
    format!("module cycle: {} ({})", names.join(" -> "), why.join("; "))
}

/// The shortest way from `start` back to itself within `component` (breadth first), `start`
/// at both ends.
fn cycle_through<'m>(
    start: &'m Module,
    component: &BTreeSet<Module>,
    edges: &'m BTreeMap<Module, BTreeMap<Module, &Import>>,
) -> Option<Vec<&'m Module>> {
    let mut came_from: BTreeMap<&Module, &Module> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(m) = queue.pop_front() {
        for next in edges.get(m).into_iter().flat_map(BTreeMap::keys) {
            if !component.contains(next) || came_from.contains_key(next) {
                continue;
            }
            came_from.insert(next, m);
            if next == start {
                let mut steps = vec![start];
                let mut at = m;
                while at != start {
                    steps.push(at);
                    at = came_from[at];
                }
                steps.push(start);
                steps.reverse();
                return Some(steps);
            }
            queue.push_back(next);
        }
    }
    None
}

/// The paths module `me` writes in `lines`, each with its line: its `use`s expanded, its
/// `crate::`, `super::` and `self::` paths, and the children it names directly (`child::f()`).
/// The lines of an inline module are the file's: their first `super::` is read as `self::`.
fn written_paths(me: &Module, lines: &Code, modules: &BTreeSet<Module>) -> Vec<(usize, String)> {
    let inline_start = &*INLINE_MOD;
    let mut outer: Vec<(usize, String)> = Vec::new();
    let mut inner: Vec<(usize, String)> = Vec::new();
    let (mut depth, mut inline_at) = (0i64, None::<i64>);
    for (no, line) in lines {
        let line = &VISIBILITY.replace_all(line, "pub").into_owned();
        if inline_at.is_none() && inline_start.is_match(line) {
            inline_at = Some(depth);
            outer.push((*no, line.clone()));
        } else if inline_at.is_some() {
            inner.push((*no, line.replacen("super::", "self::", 1)));
        } else {
            outer.push((*no, line.clone()));
        }
        depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
        if inline_at.is_some_and(|at| depth <= at) {
            inline_at = None;
        }
    }
    outer.extend(inner);
    let mut text = String::new();
    let mut starts = Vec::new();
    for (_, line) in &outer {
        starts.push(text.len());
        text.push_str(line);
        text.push('\n');
    }
    let mut paths: Vec<(usize, String)> = paths_in(me, &text, modules)
        .into_iter()
        .map(|(offset, path)| {
            let index = starts.partition_point(|&s| s <= offset) - 1;
            (outer[index].0, path)
        })
        .collect();
    // A `use crate::a::B` is also a `crate::` path: one import.
    paths.sort();
    paths.dedup();
    paths
}

/// The paths written in `text` (see [`written_paths`]), each with its offset in `text`.
fn paths_in(me: &Module, text: &str, modules: &BTreeSet<Module>) -> Vec<(usize, String)> {
    let uses = &*USE;
    let rooted = &*ROOTED;
    let child = &*CHILD;
    let mut paths = Vec::new();
    for m in uses.captures_iter(text) {
        let at = m.get(1).map_or(0, |g| g.start());
        paths.extend(expand_use(&m[1]).into_iter().map(|p| (at, p)));
    }
    for m in rooted.captures_iter(text) {
        let at = m.get(1).map_or(0, |g| g.start());
        paths.push((at, m[1].to_string()));
    }
    for m in child.captures_iter(text) {
        let start = m.get(0).map_or(0, |m| m.start());
        if text[..start].ends_with(':') {
            continue;
        }
        let mut named = me.clone();
        named.push(m[1].to_string());
        if modules.contains(&named) {
            paths.push((start, format!("{}::x", &m[1])));
        }
    }
    paths
        .into_iter()
        .map(|(at, p)| (at, p.split_whitespace().collect()))
        .collect()
}

/// `a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e` (enough for the paths' module prefixes);
/// `a as b` → `a`.
fn expand_use(body: &str) -> Vec<String> {
    let body = body.trim().trim_end_matches(';').trim();
    let Some((prefix, inner)) = body
        .find("::{")
        .filter(|_| body.ends_with('}'))
        .map(|at| (&body[..at], &body[at + 3..body.len() - 1]))
    else {
        let alias = &*ALIAS;
        return vec![alias.replace(body, "").into_owned()];
    };
    let mut items = Vec::new();
    let (mut depth, mut current) = (0, String::new());
    for c in inner.chars() {
        match c {
            ',' if depth == 0 => items.push(std::mem::take(&mut current)),
            '{' => {
                depth += 1;
                current.push(c);
            }
            '}' => {
                depth -= 1;
                current.push(c);
            }
            _ => current.push(c),
        }
    }
    items.push(current);
    items
        .iter()
        .filter(|item| !item.trim().is_empty())
        .flat_map(|item| expand_use(item))
        .map(|rest| format!("{prefix}::{rest}"))
        .collect()
}

/// The module `path` names, written in `current`: its longest prefix that is a module; `None`
/// for a path that does not start in the crate (another crate's, or a local name).
fn resolve(current: &Module, path: &str, modules: &BTreeSet<Module>) -> Option<Module> {
    let parts: Vec<&str> = path.split("::").collect();
    let (mut base, rest): (Module, &[&str]) = match parts[0] {
        "crate" => (Vec::new(), &parts[1..]),
        "self" => (current.clone(), &parts[1..]),
        "super" => {
            let ups = parts.iter().take_while(|&&p| p == "super").count();
            let keep = current.len().saturating_sub(ups);
            (current[..keep].to_vec(), &parts[ups..])
        }
        first => {
            let mut child = current.clone();
            child.push(first.to_string());
            if !modules.contains(&child) {
                return None;
            }
            (current.clone(), &parts[..])
        }
    };
    let mut best = modules.contains(&base).then(|| base.clone());
    for part in rest {
        base.push(part.to_string());
        if modules.contains(&base) {
            best = Some(base.clone());
        }
    }
    best
}

// ---------------------------------------------------------------- the reader's own edge cases

fn tree(files: &[(&str, &str)]) -> Vec<Source> {
    files
        .iter()
        .map(|(path, text)| Source {
            path: path.to_string(),
            text: text.to_string(),
        })
        .collect()
}

#[test]
fn strings_chars_and_comments_are_blanked() {
    let lines = blanked(
        "let a = \"{ fn x\"; // fn y {\nlet b = r#\"}\"#; let c = '{'; let d: &'a str = x; /* { */ z\nlet e = \"one\n} two\"; f {",
    );
    assert_eq!(lines[0], "let a = \"\"; ");
    assert_eq!(
        lines[1],
        "let b = \"\"; let c = ' '; let d: &'a str = x;  z"
    );
    assert_eq!(lines[2], "let e = \"\"");
    assert_eq!(lines[3], "; f {", "a string over two lines blanks both");
    assert_eq!(blanked("let q = '\"'; r\"\\\"")[0], "let q = ' '; \"\"");
}

#[test]
fn test_items_and_test_files_are_left_out() {
    let code = code_lines(
        "fn a() {}\n#[cfg(test)]\nmod tests {\n    fn b() {}\n}\n#[cfg(test)]\nuse x::y;\nfn c() {}",
    );
    let kept: Vec<usize> = code.iter().map(|(no, _)| *no).collect();
    assert_eq!(kept, [1, 8]);
    let files = tree(&[
        (
            "a/mod.rs",
            "#[cfg(test)]\nmod tests;\n#[cfg(test)]\n#[path = \"../t.rs\"]\nmod t;",
        ),
        ("a/tests.rs", "macro_rules! m { () => {} }"),
        ("t.rs", "macro_rules! m { () => {} }"),
    ]);
    assert_eq!(
        test_files(&files),
        BTreeSet::from(["a/tests.rs".into(), "a/tests/mod.rs".into(), "t.rs".into()])
    );
    assert!(
        findings(&files, &NO_PLAN).is_empty(),
        "{:?}",
        findings(&files, &NO_PLAN)
    );
}

#[test]
fn a_long_function_is_counted_from_fn_to_its_brace() {
    let body = |n: usize| format!("fn f() {{\n{}}}\nfn g();\n", "    x();\n".repeat(n - 2));
    let at = |n: usize| findings(&tree(&[("f.rs", &body(n))]), &NO_PLAN);
    assert!(at(MAX_FN_LINES).is_empty());
    assert_eq!(
        at(MAX_FN_LINES + 1),
        ["function over 60 lines: src/f.rs:1 f (61)"]
    );
}

#[test]
fn string_results_are_allowed_only_in_clap_value_parsers() {
    let files = tree(&[(
        "cli.rs",
        "#[arg(value_parser = parse_port)]\nport: u16,\nfn parse_port(s: &str) -> Result<u16, String> { x }\nfn other(\n    s: &str,\n) -> Result<u16, String> { x }",
    )]);
    assert_eq!(
        findings(&files, &NO_PLAN),
        ["Result<_, String> outside a clap value parser: src/cli.rs:6 other"]
    );
}

#[test]
fn uses_expand_to_every_path() {
    assert_eq!(
        expand_use("super::{a::{B, c}, d as e, self}"),
        ["super::a::B", "super::a::c", "super::d", "super::self"]
    );
    assert_eq!(expand_use("crate::x::Y as Z"), ["crate::x::Y"]);
}

#[test]
fn a_parent_and_a_child_importing_each_other_is_a_cycle() {
    let cycle = tree(&[
        ("lib.rs", "mod w;"),
        ("w/mod.rs", "mod a;\nmod b;\npub use a::A;\npub struct W;"),
        ("w/a.rs", "use super::W;\npub struct A;"),
        ("w/b.rs", "use super::a::A;\nuse crate::w::c::X;"),
    ]);
    assert_eq!(
        findings(&cycle, &NO_PLAN),
        [
            "module cycle: crate::w -> crate::w::a -> crate::w (src/w/mod.rs:3 `a::A`; src/w/a.rs:1 `super::W`)"
        ]
    );
    // A sibling reached through `super::` is the sibling, not the parent; an inline module's
    // `super::` is its file's module.
    let fine = tree(&[
        ("w/mod.rs", "mod a;\nmod b;\npub use a::A;"),
        (
            "w/a.rs",
            "use super::b::B;\npub struct A;\nmod inner {\n    use super::A;\n}",
        ),
        ("w/b.rs", "pub struct B;"),
    ]);
    assert!(
        findings(&fine, &NO_PLAN).is_empty(),
        "{:?}",
        findings(&fine, &NO_PLAN)
    );
}

#[test]
fn an_upward_import_and_a_module_on_no_floor_are_named() {
    let files = tree(&[
        ("source/gitlab/mod.rs", "mod read;\nmod wire;\nmod extra;"),
        (
            "source/gitlab/read/mod.rs",
            "use crate::source::gitlab::wire::W;",
        ),
        (
            "source/gitlab/wire/mod.rs",
            "pub struct W;\nuse crate::source::gitlab::read::R;",
        ),
        ("source/gitlab/extra.rs", "pub struct E;"),
    ]);
    assert_eq!(
        findings(&files, &HOUSE)
            .into_iter()
            .filter(|f| !f.starts_with("KNOWN_DUPLICATES"))
            .collect::<Vec<_>>(),
        [
            "upward import: src/source/gitlab/wire/mod.rs:2 `crate::source::gitlab::read::R` in crate::source::gitlab::wire names crate::source::gitlab::read, a floor above it in crate::source::gitlab (read > content > query > rules > wire)",
            "module on no floor: crate::source::gitlab::extra is in crate::source::gitlab, whose floors are read > content > query > rules > wire; put it on one in FLOORS",
            "module cycle: crate::source::gitlab::read -> crate::source::gitlab::wire -> crate::source::gitlab::read (src/source/gitlab/read/mod.rs:1 `crate::source::gitlab::wire::W`; src/source/gitlab/wire/mod.rs:2 `crate::source::gitlab::read::R`)",
        ]
    );
}

#[test]
fn a_cycle_through_a_re_export_is_found_at_the_depth_it_shows() {
    // tool → metrics → metrics::labels → tool::name: no two modules import each other, but the
    // folders do, through a re-export.
    let files = tree(&[
        ("tool/mod.rs", "pub mod name;\nuse crate::metrics;"),
        ("tool/name.rs", "pub enum ToolName { A }"),
        (
            "metrics/mod.rs",
            "mod labels;\npub(crate) use labels::ToolName;",
        ),
        (
            "metrics/labels.rs",
            "pub(crate) use crate::tool::name::ToolName;",
        ),
    ]);
    assert_eq!(
        findings(&files, &NO_PLAN),
        [
            "module cycle: crate::metrics -> crate::tool -> crate::metrics (src/metrics/labels.rs:1 `crate::tool::name::ToolName`; src/tool/mod.rs:2 `crate::metrics`)"
        ]
    );
}

#[test]
fn a_type_name_defined_twice_and_a_second_name_are_named() {
    let files = tree(&[
        (
            "a.rs",
            "pub struct Entry;\ntrait T {\n    type Entry;\n}\nfn f() {}",
        ),
        (
            "b/mod.rs",
            "mod inner {\n    pub(crate) enum Entry {}\n}\nimpl X {\n    type Out = u8;\n}",
        ),
        (
            "c.rs",
            "pub use crate::a::Entry as Item;\nuse crate::a::Tr as _;",
        ),
    ]);
    assert_eq!(
        findings(&files, &NO_PLAN),
        [
            "a crate type under a second name: src/c.rs:1 `Entry as Item`; call it by its name",
            "type name defined in 2 modules: Entry (src/a.rs:1, src/b/mod.rs:2); rename all but one",
        ]
    );
    let stale = Plan {
        floors: &[],
        known_duplicates: &[("Gone", "nobody")],
    };
    assert_eq!(
        findings(&tree(&[("a.rs", "pub struct Gone;")]), &stale),
        [
            "KNOWN_DUPLICATES lists Gone (nobody), which is no longer defined twice: take it off the list"
        ]
    );
}

#[test]
fn a_full_folder_and_a_long_file_are_named() {
    let mut files: Vec<(String, String)> = (0..=MAX_FOLDER_FILES)
        .map(|i| (format!("w/f{i}.rs"), String::new()))
        .collect();
    let code = "let x = 1;\n// a comment\n\n".repeat(MAX_CODE_LINES + 1);
    let tests = format!(
        "#[cfg(test)]\nmod tests {{\n{}}}\n",
        "    x();\n".repeat(600)
    );
    files.push(("long.rs".into(), code));
    files.push(("tested.rs".into(), tests));
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    assert_eq!(
        findings(&tree(&files), &NO_PLAN),
        [
            "file over 500 lines of code: src/long.rs (501); split it",
            "folder with more than 12 files: src/w/ (13); give it floors",
        ]
    );
}
