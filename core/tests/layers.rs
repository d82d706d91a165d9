//! The core's layers are one-way: a module may name (`crate::x`) only its own layer or a
//! lower one. Re-exports (`pub use`) and comments do not count. The order is the one
//! `lib.rs` and ARCHITECTURE.md give.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// Bottom to top.
const LAYERS: &[&str] = &["text", "model", "gate", "store", "history", "llm", "flow", "write", "proof", "testkit"];

fn rank(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == layer)
}

/// Every `crate::<layer>` a file of `layer` names that sits above it, as `line: text`.
fn violations(layer: &str, source: &str) -> Vec<String> {
    let Some(own) = rank(layer) else { return vec![format!("'{layer}' is not a layer")] };
    let mut out = Vec::new();
    for (n, line) in source.lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with("//") || code.starts_with("pub use") {
            continue;
        }
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            match rank(&name) {
                Some(r) if r > own => out.push(format!("{}: {} names the higher layer '{name}'", n + 1, code.trim())),
                Some(_) => {}
                // Braced imports (`crate::{a, b}`) and root items hide the layer: name it.
                None => out.push(format!("{}: {} names 'crate::{name}', not a layer path", n + 1, code.trim())),
            }
        }
    }
    out
}

#[test]
fn no_lower_layer_names_a_higher_one() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut problems = Vec::new();
    let mut files = 0;
    for layer in LAYERS {
        let dir = src.join(layer);
        assert!(dir.is_dir(), "layer folder {} is missing", dir.display());
        // A module's own folder (`text/act/words.rs`) is in its layer too.
        walk(&dir, &mut |path| {
            files += 1;
            let text = fs::read_to_string(path).expect("readable source");
            problems.extend(violations(layer, &text).into_iter().map(|v| format!("{}:{v}", path.display())));
        });
    }
    // Every top-level module is a layer folder: nothing sits beside them unlayered.
    for entry in fs::read_dir(&src).expect("src") {
        let name = entry.expect("entry").file_name().to_string_lossy().to_string();
        if name != "lib.rs" && rank(&name).is_none() {
            problems.push(format!("core/src/{name} is outside every layer"));
        }
    }
    assert!(files >= 30, "only {files} source files found: is the layout right?");
    assert!(problems.is_empty(), "layering broken:\n{}", problems.join("\n"));
}

#[test]
fn the_check_catches_a_lower_layer_naming_a_higher_one() {
    assert_eq!(violations("text", "use crate::proof::audit;\n").len(), 1);
    assert_eq!(violations("gate", "    let s = crate::store::MemStore::new();").len(), 1);
    assert_eq!(violations("model", "use crate::{Item, DAY};").len(), 1, "a braced import hides its layer");
    assert!(violations("proof", "use crate::store::Store;\nuse crate::text::textmath;").is_empty());
    assert!(violations("text", "pub use crate::proof::audit;\n// crate::flow in a comment").is_empty());
}

/// The modules of one layer that a file of it names (`crate::<layer>::<module>`, or
/// `super::<module>` for a sibling), itself left out; comments and re-exports do not count.
fn named_siblings(layer: &str, own: &str, source: &str, siblings: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in source.lines() {
        let code = line.trim_start();
        if code.starts_with("//") || code.starts_with("pub use") {
            continue;
        }
        let prefix = format!("crate::{layer}::");
        for lead in [prefix.as_str(), "super::"] {
            for (at, _) in code.match_indices(lead) {
                let rest = &code[at + lead.len()..];
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if name != own && siblings.contains(&name) {
                    out.insert(name);
                }
            }
        }
    }
    out
}

/// A cycle among `edges` (module → modules it names), as the modules along it.
fn a_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        at: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(from) = path.iter().position(|m| m == at) {
            let mut cycle = path[from..].to_vec();
            cycle.push(at.to_string());
            return Some(cycle);
        }
        if done.contains(at) {
            return None;
        }
        path.push(at.to_string());
        for next in edges.get(at).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(at.to_string());
        None
    }
    let mut done = BTreeSet::new();
    edges.keys().find_map(|m| visit(m, edges, &mut Vec::new(), &mut done))
}

#[test]
fn no_two_modules_of_one_layer_name_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut problems = Vec::new();
    for layer in LAYERS {
        let mut sources: BTreeMap<String, String> = BTreeMap::new();
        let dir = src.join(layer);
        walk(&dir, &mut |path| {
            // The files of a module's own folder (`text/act/words.rs`) are part of it (`act`).
            let first = path.strip_prefix(&dir).expect("under its layer").components().next().expect("a file");
            let stem = Path::new(first.as_os_str()).file_stem().expect("stem").to_string_lossy().to_string();
            let text = sources.entry(stem).or_default();
            text.push_str(&fs::read_to_string(path).expect("readable source"));
            text.push('\n');
        });
        let siblings: BTreeSet<String> = sources.keys().filter(|m| *m != "mod").cloned().collect();
        let edges = sources.iter().map(|(m, text)| (m.clone(), named_siblings(layer, m, text, &siblings))).collect();
        if let Some(cycle) = a_cycle(&edges) {
            problems.push(format!("{layer}: {}", cycle.join(" → ")));
        }
    }
    assert!(
        problems.is_empty(),
        "modules that name each other (one of them should own what both need):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_cycle_check_catches_two_modules_naming_each_other() {
    let siblings: BTreeSet<String> = ["prompt", "answer", "provider"].map(String::from).into();
    let prompt =
        named_siblings("llm", "prompt", "use crate::llm::answer::free_request;\nuse super::provider;", &siblings);
    assert_eq!(prompt, ["answer", "provider"].map(String::from).into());
    let answer =
        named_siblings("llm", "answer", "// crate::llm::prompt\nlet r = crate::llm::prompt::chat(x);", &siblings);
    let mut edges: BTreeMap<String, BTreeSet<String>> =
        [("prompt".to_string(), prompt), ("answer".to_string(), answer)].into();
    assert_eq!(a_cycle(&edges), Some(["answer", "prompt", "answer"].map(String::from).to_vec()));
    edges.insert("answer".into(), BTreeSet::new());
    assert_eq!(a_cycle(&edges), None);
}

#[test]
fn every_source_file_opens_with_a_doc_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut missing = Vec::new();
    for dir in ["core/src", "core/tests", "app/src", "cli/src", "cli/tests", "tests"] {
        walk(&root.join(dir), &mut |path| {
            let text = fs::read_to_string(path).expect("readable source");
            if !text.trim_start().starts_with("//!") {
                missing.push(path.display().to_string());
            }
        });
    }
    assert!(missing.is_empty(), "files without a //! line:\n{}", missing.join("\n"));
}

fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, f);
        } else if path.extension().is_some_and(|x| x == "rs") {
            f(&path);
        }
    }
}

/// Functions longer than this are split: a reader should see a whole function at once.
const MAX_FUNCTION_LINES: usize = 100;

/// `(name, lines)` of every function in `source` longer than the limit, by the rustfmt
/// layout: a `fn` line and the `}` at its own indentation.
fn long_functions(source: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = source.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let signature = [
            "fn ",
            "pub fn ",
            "async fn ",
            "pub async fn ",
            "pub(super) fn ",
            "pub(super) async fn ",
            "pub(crate) fn ",
        ];
        let Some(rest) = signature.iter().find_map(|s| code.strip_prefix(s)) else { continue };
        if line.trim_end().ends_with(';') {
            continue;
        }
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let close = format!("{indent}}}");
        if let Some(end) = lines[i + 1..].iter().position(|l| *l == close) {
            let len = end + 2;
            if len > MAX_FUNCTION_LINES {
                out.push((name, len));
            }
        }
    }
    out
}

#[test]
fn no_core_function_is_over_100_lines() {
    let mut long = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut |path| {
        let text = fs::read_to_string(path).expect("readable source");
        for (name, len) in long_functions(&text) {
            long.push(format!("{}: {name} is {len} lines", path.display()));
        }
    });
    assert!(long.is_empty(), "split these:\n{}", long.join("\n"));
}

#[test]
fn the_length_check_sees_a_long_function() {
    let body = "    let x = 1;\n".repeat(MAX_FUNCTION_LINES);
    let source = format!("pub fn short() {{\n}}\n\nasync fn long() {{\n{body}}}\n");
    assert_eq!(long_functions(&source), [("long".to_string(), MAX_FUNCTION_LINES + 2)]);
}
