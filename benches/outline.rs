//! Outline bench (issue 28): what `outline` and `symbol` cost, and what they save.
//!
//! 1. Parse time in this process (`gitlab_file_mcp::outline::outline`: one tree-sitter parse
//!    and one walk, what a cold outline call spends beyond fetching), beside tree-sitter's parse
//!    alone (the floor): a ~600 KB Python file and a 3,500-line TypeScript file, median of 9.
//! 2. Calls over MCP (the release binary over stdio against the in-process mock GitLab): the
//!    first `outline` call of a blob (download, parse, page) and the next 20 (one content-free
//!    GraphQL request, the cached outline, the page), and a `symbol` call after the outline
//!    (cached): the server's own time per call (its log's `own_us`: the call's time less the
//!    time spent waiting on GitLab), and the client's wall time.
//! 3. Model-visible characters (the result text blocks a client hands the model) to show one
//!    40-line class of a 25,000-line Python file: one `symbol` call, against one `pattern`
//!    call plus one `start_line`/`end_line` window, and against the class's own text.
//!
//! Run: `cargo bench --bench outline`. It reports; it asserts nothing about speed.

// Each bench uses part of the shared support.
#[allow(dead_code)]
#[path = "support/mcp.rs"]
mod mcp;
#[allow(dead_code)]
#[path = "support/mock_gitlab.rs"]
mod mock_gitlab;

use std::time::{Duration, Instant};

use gitlab_file_mcp::outline::{Language, outline};
use mcp::{file_args, output_of, percentile, text_of, thousands};

#[tokio::main]
async fn main() {
    let python = python_file(25_000);
    let typescript = typescript_file(3_500);
    println!("## 1. Parse and walk, in process (median of 9)\n");
    println!(
        "| file | bytes | lines | definitions | tree-sitter's parse alone | outline (parse and walk) |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    parse_time("Python", &python, Language::Python);
    parse_time("TypeScript", &typescript, Language::TypeScript);
    over_mcp(&python, &typescript).await;
    model_visible(&python).await;
}

fn parse_time(label: &str, text: &str, language: Language) {
    let (mut parses, mut outlines) = (Vec::new(), Vec::new());
    let mut count = 0;
    for _ in 0..9 {
        let start = Instant::now();
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&language.grammar().expect("built with the default features"))
            .expect("the grammar");
        drop(parser.parse(text, None).expect("a tree"));
        parses.push(start.elapsed());
        let start = Instant::now();
        let parsed = outline(text, language).expect("an outline");
        outlines.push(start.elapsed());
        count = parsed.definitions.len();
    }
    parses.sort();
    outlines.sort();
    println!(
        "| {label} | {} | {} | {} | {:.1} ms | {:.1} ms |",
        thousands(text.len() as u64),
        thousands(text.lines().count() as u64),
        thousands(count as u64),
        ms(percentile(&parses, 0.5)),
        ms(percentile(&outlines, 0.5))
    );
}

async fn over_mcp(python: &str, typescript: &str) {
    let mock = mock_gitlab::start(vec![
        ("app/models.py", python.to_string()),
        ("web/app.ts", typescript.to_string()),
    ])
    .await;
    let server = mcp::start_timed(&mock.base_url).await;
    println!("\n## 2. Calls over MCP: the server's own time (client wall time)\n");
    println!("| file | first outline call (cold) | next 20, p50 (cached) | symbol after, p50 |");
    println!("|---|---:|---:|---:|");
    let mut calls = 0;
    for (path, symbol) in [
        ("app/models.py", "TargetModel"),
        ("web/app.ts", "Service100.handle"),
    ] {
        let mut args = file_args(path);
        args.insert("outline".into(), true.into());
        let cold = server.call(&args).await;
        assert!(output_of(&cold.result.expect("an outline")).is_some());
        let mut cached = Vec::new();
        for _ in 0..20 {
            cached.push(server.call(&args).await.elapsed);
        }
        let mut sym = file_args(path);
        sym.insert("symbol".into(), symbol.into());
        let mut symbols = Vec::new();
        for _ in 0..20 {
            let call = server.call(&sym).await;
            assert!(
                output_of(call.result.as_ref().expect("a symbol")).is_some(),
                "{path} {symbol}"
            );
            symbols.push(call.elapsed);
        }
        let own = server.own_times(calls + 41).await.split_off(calls);
        calls += 41;
        println!(
            "| {path} | {} | {} | {} |",
            both(&own[..1], &[cold.elapsed]),
            both(&own[1..21], &cached),
            both(&own[21..41], &symbols)
        );
    }
    server.stop().await;
}

/// The p50 of the server's own times and, in brackets, of the client's wall times.
fn both(own: &[Duration], wall: &[Duration]) -> String {
    let p50 = |times: &[Duration]| {
        let mut sorted = times.to_vec();
        sorted.sort();
        ms(percentile(&sorted, 0.5))
    };
    format!("{:.2} ms ({:.2} ms)", p50(own), p50(wall))
}

async fn model_visible(python: &str) {
    // The definition starts at its decorator, the line above `class TargetModel` (the
    // 0-based index of the class line is the 1-based number of the decorator's).
    let target = python
        .lines()
        .position(|l| l.starts_with("class TargetModel"))
        .expect("the class") as u64;
    let class_text: String = python
        .split_inclusive('\n')
        .skip(target as usize - 1)
        .take(40)
        .collect();
    let mock = mock_gitlab::start(vec![("app/models.py", python.to_string())]).await;
    let server = mcp::start(&mock.base_url).await;
    let mut sym = file_args("app/models.py");
    sym.insert("symbol".into(), "TargetModel".into());
    let result = server.call(&sym).await.result.expect("a symbol");
    let symbol_chars = text_of(&result).encode_utf16().count();
    let out = output_of(&result).expect("an output");
    assert_eq!(out["content"], class_text.as_str());
    let mut find = file_args("app/models.py");
    find.insert("pattern".into(), r"^class TargetModel\b".into());
    let search_chars = text_of(&server.call(&find).await.result.expect("a search"))
        .encode_utf16()
        .count();
    let mut window = file_args("app/models.py");
    window.insert("start_line".into(), target.into());
    window.insert("end_line".into(), (target + 39).into());
    let window_chars = text_of(&server.call(&window).await.result.expect("a window"))
        .encode_utf16()
        .count();
    server.stop().await;
    let class_chars = class_text.encode_utf16().count();
    println!(
        "\n## 3. Model-visible characters to show one class ({} lines; the class at line {target}, {} characters)\n",
        thousands(python.lines().count() as u64),
        thousands(class_chars as u64)
    );
    println!("| way | calls | characters (text blocks) |");
    println!("|---|---:|---:|");
    println!(
        "| one `symbol` call | 1 | {} |",
        thousands(symbol_chars as u64)
    );
    println!(
        "| `pattern` call ({}) + one 40-line window ({}) | 2 | {} |",
        thousands(search_chars as u64),
        thousands(window_chars as u64),
        thousands((search_chars + window_chars) as u64)
    );
    println!(
        "\nsymbol / the class's text = {:.3}; the goal's bound (1.1 × the class's text + 600) = {:.0}",
        symbol_chars as f64 / class_chars as f64,
        1.1 * class_chars as f64 + 600.0
    );
}

/// A Python module of about `lines` lines (~600 KB for 25,000): decorated classes with
/// methods, and one 40-line `TargetModel` two thirds in.
fn python_file(lines: usize) -> String {
    let mut text = String::from("\"\"\"Generated models.\"\"\"\nimport dataclasses\n\n");
    let mut i = 0;
    while text.lines().count() < lines {
        if i == 500 {
            text.push_str("@dataclasses.dataclass\nclass TargetModel:\n");
            for j in 0..19 {
                text.push_str(&format!(
                    "    def field_{j}(self):\n        return self.values[{j}] * 2\n"
                ));
            }
            text.push('\n');
        }
        text.push_str(&format!(
            "@dataclasses.dataclass\nclass Model{i}(Base):\n    \"\"\"Model number {i} of the generated set.\"\"\"\n\n    name: str = \"model_{i}\"\n    size: int = {i}\n\n    @property\n    def label(self) -> str:\n        return f\"{{self.name}}-{{self.size}}\"\n\n    def scaled(self, factor: float) -> float:\n        total = self.size * factor\n        return round(total, 2)\n\n"
        ));
        i += 1;
    }
    text
}

/// A TypeScript module of about `lines` lines: interfaces and classes with typed methods.
fn typescript_file(lines: usize) -> String {
    let mut text = String::from("import { Request, Response } from \"./http\";\n\n");
    let mut i = 0;
    while text.lines().count() < lines {
        text.push_str(&format!(
            "export interface Options{i} {{\n  retries: number;\n  timeout?: number;\n}}\n\n/** Service {i}. */\nexport class Service{i} {{\n  constructor(private readonly opts: Options{i}) {{}}\n\n  async handle(req: Request): Promise<Response> {{\n    const started = Date.now();\n    return {{ status: 200, body: `${{req.path}} ${{started}}` }};\n  }}\n\n  private retry(n: number): boolean {{\n    return n < this.opts.retries;\n  }}\n}}\n\n"
        ));
        i += 1;
    }
    text
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
