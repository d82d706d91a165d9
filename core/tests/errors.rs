//! Errors a caller can tell apart: no public function or type of the core or the sync crate
//! answers `Result<_, String>` (each says what failed in a type carrying the value at
//! fault), and the page and the command line keep at most [`MOST_IN_SHELLS`] such results,
//! each with its reason in the doc comment above it (a clap value parser's contract, a
//! Leptos value that must be `Clone`).

use std::fs;
use std::path::{Path, PathBuf};

/// How many `Result<_, String>` the app and the CLI may keep between them.
const MOST_IN_SHELLS: usize = 10;

/// A `Result<_, String>` in a source file: where, and the item it belongs to.
#[derive(Debug)]
struct StringError {
    at: String,
    /// The line that opens the item (`pub fn …`, `fn …`, `type …`), trimmed.
    item: String,
    /// The item's doc comment, whole.
    doc: String,
}

impl StringError {
    /// An item others may call: `pub`, not `pub(crate)` or `pub(super)`.
    fn public(&self) -> bool {
        self.item.starts_with("pub ")
    }
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for path in entries.flatten().map(|e| e.path()) {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// The error type of the `Result<…>` whose arguments `text` starts with (just after
/// `Result<`), if its brackets close: its last top-level argument.
fn error_type(text: &str) -> Option<&str> {
    let mut depth = 1usize;
    for (i, c) in text.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => {
                depth -= 1;
                if depth == 0 {
                    return top_level_args(&text[..i]).pop();
                }
            }
            _ => {}
        }
    }
    None
}

/// The arguments of a bracket's inside, split at its own commas, blank ones (a trailing
/// comma's) left out.
fn top_level_args(inside: &str) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0usize, 0, Vec::new());
    for (i, c) in inside.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(inside[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(inside[start..].trim());
    out.retain(|a| !a.is_empty());
    out
}

/// The `Result<_, String>` of `source` (named `name`), each with the item it is in.
fn string_errors(name: &str, source: &str) -> Vec<StringError> {
    let lines: Vec<&str> = source.lines().collect();
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let code = line.split("//").next().unwrap_or_default();
        let mut rest = code;
        while let Some(at) = rest.find("Result<") {
            rest = &rest[at + "Result<".len()..];
            // The type may run over the next lines; `rest` starts at the same offset in them.
            let joined = lines[n..lines.len().min(n + 4)].join(" ");
            if error_type(&joined[code.len() - rest.len()..]) == Some("String") {
                let opens = (0..=n).rev().find(|&k| {
                    let t = lines[k].trim_start();
                    ["fn ", "pub fn ", "pub async fn ", "async fn ", "type ", "pub type ", "pub(crate) ", "pub(super) "]
                        .iter()
                        .any(|p| t.starts_with(p))
                });
                let item = opens.map_or(String::new(), |k| lines[k].trim().to_string());
                // The doc of the item, and of the line itself where it is a field.
                let doc = [opens, Some(n)].into_iter().flatten().map(|k| doc_above(&lines, k)).collect::<Vec<_>>();
                let doc = doc.join("\n");
                out.push(StringError { at: format!("{name}:{}", n + 1), item, doc });
            }
        }
    }
    out
}

/// The doc comment (and attributes) right above line `k`.
fn doc_above(lines: &[&str], k: usize) -> String {
    let starts = |l: &str| ["///", "#["].iter().any(|p| l.trim_start().starts_with(p));
    let first = (0..k).rev().take_while(|&j| starts(lines[j])).last().unwrap_or(k);
    lines[first..k].join("\n")
}

fn errors_under(crates: &[&str]) -> Vec<StringError> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for krate in crates {
        let mut files = Vec::new();
        rust_files(&root.join(krate).join("src"), &mut files);
        nocturne_core::text::order::sort(&mut files);
        for file in files {
            let source = fs::read_to_string(&file).expect("a source file reads");
            let name = file.strip_prefix(&root).unwrap_or(&file).display().to_string();
            out.extend(string_errors(&name, &source));
        }
    }
    out
}

#[test]
fn no_public_function_of_the_core_or_the_sync_crate_answers_a_bare_string_error() {
    let public: Vec<String> = errors_under(&["core", "sync"])
        .into_iter()
        .filter(StringError::public)
        .map(|e| format!("{}: {}", e.at, e.item))
        .collect();
    assert!(public.is_empty(), "public items answering Result<_, String>:\n{}", public.join("\n"));
}

#[test]
fn the_page_and_the_command_line_keep_few_string_errors_each_with_its_reason() {
    let kept = errors_under(&["app", "cli"]);
    let unexplained: Vec<String> =
        kept.iter().filter(|e| !e.doc.contains("`String`")).map(|e| format!("{}: {}", e.at, e.item)).collect();
    assert!(
        unexplained.is_empty(),
        "Result<_, String> whose doc comment does not say why `String`:\n{}",
        unexplained.join("\n")
    );
    assert!(
        kept.len() <= MOST_IN_SHELLS,
        "{} Result<_, String> in the app and the CLI, more than {MOST_IN_SHELLS}:\n{}",
        kept.len(),
        kept.iter().map(|e| e.at.as_str()).collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn a_string_error_is_found_across_lines_and_inside_other_types() {
    let found = |s: &str| string_errors("x.rs", s).len();
    assert_eq!(found("pub fn a() -> Result<u8, String> {"), 1);
    assert_eq!(found("pub fn a() -> Result<Vec<(u8, u8)>, String> {"), 1);
    assert_eq!(found("fn a() -> Result<(PathBuf, Result<Value, String>), String> {"), 2);
    assert_eq!(found("pub fn a() -> Result<\n    u8,\n    String,\n> {"), 1);
    assert_eq!(found("pub fn a() -> Result<String, Error> {"), 0);
    assert_eq!(found("// Result<u8, String>"), 0);
    let e = &string_errors("x.rs", "/// Why `String`: clap's.\npub(crate) fn a() -> Result<u8, String> {")[0];
    assert!(!e.public() && e.doc.contains("`String`"), "{e:?}");
    let e = &string_errors(
        "x.rs",
        "struct Row {\n    /// A `String`: Clone.\n    done: Action<u8, Result<u8, String>>,\n}",
    )[0];
    assert!(e.doc.contains("`String`"), "a field's own doc: {e:?}");
    let e = &string_errors("x.rs", "pub async fn carry_out(\n    apply: impl Fn() -> Result<u8, String>,\n) {")[0];
    assert!(e.public(), "a parameter of a public function is its API: {e:?}");
}
