//! The house's rules over `src/`, so CI fails when one is broken: no module importing one that
//! imports it back (parent and child included), no `macro_rules!` outside tests, no function
//! outside tests over 60 lines, no `Result<_, String>` outside clap value parsers, no
//! NUL-joined string key.
//!
//! The sources are read as text, not parsed: strings and comments are blanked first, then
//! `#[cfg(test)]` items and test-only files are left out. A module's imports are every path it
//! writes (`use`, `crate::`/`super::`/`self::` paths, a child named directly); the module a path
//! names is its longest prefix that is a module, so a re-export counts for the module that
//! writes it (`pub use child::X` in a parent whose child uses `super::Y` is a cycle). An inline
//! module (`mod m { .. }`) counts as its file's module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

/// The longest function allowed outside tests, in lines (signature and closing brace included).
const MAX_FN_LINES: usize = 60;

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

/// A `format!` literal with `\0{`.
static NUL_KEY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"format!\(\s*"[^"]*\\0\{"#).expect("a valid regex"));

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
    let found = findings(&sources);
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

/// Every broken rule in `sources`, one sentence each.
fn findings(sources: &[Source]) -> Vec<String> {
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
    }
    out.extend(string_results(&code));
    out.extend(cycles(&code));
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

// ---------------------------------------------------------------- cycles

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

fn module_name(m: &Module) -> String {
    if m.is_empty() {
        "crate".to_string()
    } else {
        format!("crate::{}", m.join("::"))
    }
}

/// Every pair of modules that import each other.
fn cycles(code: &[(&Source, Code)]) -> Vec<String> {
    let modules: BTreeSet<Module> = code.iter().map(|(s, _)| module_of(&s.path)).collect();
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (source, lines) in code {
        let me = module_of(&source.path);
        for path in written_paths(&me, lines, &modules) {
            if let Some(target) = resolve(&me, &path, &modules)
                && target != me
            {
                edges.entry(me.clone()).or_default().insert(target);
            }
        }
    }
    let mut out = Vec::new();
    for (a, targets) in &edges {
        for b in targets {
            if a < b && edges.get(b).is_some_and(|back| back.contains(a)) {
                out.push(format!(
                    "modules importing each other: {} <-> {}",
                    module_name(a),
                    module_name(b)
                ));
            }
        }
    }
    out
}

/// The paths module `me` writes in `lines`: its `use`s expanded, its `crate::`, `super::` and
/// `self::` paths, and the children it names directly (`child::f()`). The lines of an inline
/// module are the file's: their first `super::` is read as `self::`.
fn written_paths(me: &Module, lines: &Code, modules: &BTreeSet<Module>) -> Vec<String> {
    let inline_start = &*INLINE_MOD;
    let mut text = String::new();
    let mut inner = String::new();
    let (mut depth, mut inline_at) = (0i64, None::<i64>);
    for (_, line) in lines {
        if inline_at.is_none() && inline_start.is_match(line) {
            inline_at = Some(depth);
            text.push_str(line);
            text.push('\n');
        } else if inline_at.is_some() {
            inner.push_str(&line.replacen("super::", "self::", 1));
            inner.push('\n');
        } else {
            text.push_str(line);
            text.push('\n');
        }
        depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
        if inline_at.is_some_and(|at| depth <= at) {
            inline_at = None;
        }
    }
    text.push_str(&inner);
    paths_in(me, &text, modules)
}

/// The paths written in `text` (see [`written_paths`]).
fn paths_in(me: &Module, text: &str, modules: &BTreeSet<Module>) -> Vec<String> {
    let uses = &*USE;
    let rooted = &*ROOTED;
    let child = &*CHILD;
    let mut paths = Vec::new();
    for m in uses.captures_iter(text) {
        paths.extend(expand_use(&m[1]));
    }
    for m in rooted.captures_iter(text) {
        paths.push(m[1].to_string());
    }
    for m in child.captures_iter(text) {
        let start = m.get(0).map_or(0, |m| m.start());
        if text[..start].ends_with(':') {
            continue;
        }
        let mut named = me.clone();
        named.push(m[1].to_string());
        if modules.contains(&named) {
            paths.push(format!("{}::x", &m[1]));
        }
    }
    paths
        .into_iter()
        .map(|p| p.split_whitespace().collect())
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
    assert!(findings(&files).is_empty(), "{:?}", findings(&files));
}

#[test]
fn a_long_function_is_counted_from_fn_to_its_brace() {
    let body = |n: usize| format!("fn f() {{\n{}}}\nfn g();\n", "    x();\n".repeat(n - 2));
    let at = |n: usize| findings(&tree(&[("f.rs", &body(n))]));
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
        findings(&files),
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
        findings(&cycle),
        ["modules importing each other: crate::w <-> crate::w::a"]
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
    assert!(findings(&fine).is_empty(), "{:?}", findings(&fine));
}
