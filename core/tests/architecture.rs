//! ARCHITECTURE.md stays a map a newcomer can read: it names every module file under
//! `core/src` (as `layer/module.rs`, and `lib.rs`), and no line of it runs past
//! [`MAX_LINE`] characters (a table cell of two thousand characters is not a map). And the
//! files it names stay readable: none is over [`MAX_FILE_LINES`] lines.

use std::fs;
use std::path::{Path, PathBuf};

/// The longest line ARCHITECTURE.md may have, in characters.
const MAX_LINE: usize = 200;

/// The most lines a file under `core/src` may have: a longer one is split along its
/// concepts, its parts child modules in a folder of its name (`text/act/words.rs`).
const MAX_FILE_LINES: usize = 700;

/// Every `.rs` file under `dir`, as a path relative to `root` with `/` between parts.
fn module_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    let paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    for path in paths {
        if path.is_dir() {
            module_files(root, &path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            let relative = path.strip_prefix(root).expect("under the root");
            let parts: Vec<String> =
                relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            out.push(parts.join("/"));
        }
    }
}

/// The module files `doc` does not name, each as written under `core/src`.
fn unnamed<'a>(modules: &'a [String], doc: &str) -> Vec<&'a str> {
    modules.iter().map(String::as_str).filter(|m| !doc.contains(m)).collect()
}

/// The lines of `doc` longer than [`MAX_LINE`], as `line number: length`.
fn long_lines(doc: &str) -> Vec<String> {
    doc.lines()
        .enumerate()
        .filter(|(_, l)| l.chars().count() > MAX_LINE)
        .map(|(n, l)| format!("{}: {} characters", n + 1, l.chars().count()))
        .collect()
}

/// The files of `files` (`(path, text)`) longer than [`MAX_FILE_LINES`], as `path: n lines`.
fn long_files(files: &[(String, String)]) -> Vec<String> {
    files
        .iter()
        .map(|(path, text)| (path, text.lines().count()))
        .filter(|(_, n)| *n > MAX_FILE_LINES)
        .map(|(path, n)| format!("{path}: {n} lines"))
        .collect()
}

fn architecture() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ARCHITECTURE.md");
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn architecture_names_every_core_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules = Vec::new();
    module_files(&src, &src, &mut modules);
    assert!(modules.len() >= 30, "only {} module files found: is the layout right?", modules.len());
    let doc = architecture();
    let missing = unnamed(&modules, &doc);
    assert!(missing.is_empty(), "ARCHITECTURE.md does not name these modules of core/src:\n{}", missing.join("\n"));
}

#[test]
fn architecture_has_no_line_over_200_characters() {
    let long = long_lines(&architecture());
    assert!(long.is_empty(), "ARCHITECTURE.md lines over {MAX_LINE} characters:\n{}", long.join("\n"));
}

#[test]
fn the_checks_catch_an_unnamed_module_and_a_long_line() {
    let modules = ["text/split.rs".to_string(), "store/erase.rs".to_string(), "lib.rs".to_string()];
    let doc = "- `lib.rs` names the layers\n- `text/split.rs`: the one splitter\n";
    assert_eq!(unnamed(&modules, doc), ["store/erase.rs"]);
    assert!(long_lines(doc).is_empty());
    let cell = format!("| `store/erase.rs` | {} |", "x".repeat(MAX_LINE));
    assert_eq!(long_lines(&format!("{doc}{cell}\n")), [format!("3: {} characters", cell.chars().count())]);
}

#[test]
fn no_core_file_is_over_700_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules = Vec::new();
    module_files(&src, &src, &mut modules);
    assert!(modules.len() >= 30, "only {} module files found: is the layout right?", modules.len());
    let files: Vec<(String, String)> = modules
        .into_iter()
        .map(|m| {
            let text = fs::read_to_string(src.join(&m)).unwrap_or_else(|e| panic!("core/src/{m}: {e}"));
            (m, text)
        })
        .collect();
    let long = long_files(&files);
    assert!(
        long.is_empty(),
        "core/src files over {MAX_FILE_LINES} lines; split each along its concepts (child modules in a folder of \
         its name, as text/act/words.rs):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_file_check_catches_a_file_over_700_lines() {
    let at_most = "fn x() {}\n".repeat(MAX_FILE_LINES);
    let over = format!("{at_most}// one more\n");
    let files = [("text/act.rs".to_string(), at_most), ("text/addressed.rs".to_string(), over)];
    assert_eq!(long_files(&files), [format!("text/addressed.rs: {} lines", MAX_FILE_LINES + 1)]);
}
