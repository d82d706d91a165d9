//! The docs a newcomer reads stay short and whole: README.md has at most
//! [`MAX_README_LINES`] lines, every page under `docs/` is linked from it and links back to it,
//! and no link or path in the README or the docs names a file the repository does not hold.
//! Reads the files only; builds nothing.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Component, Path, PathBuf};

/// The longest the README may be, in lines: what it is, a picture, the two commands, a
/// first session, where to read on. Everything else is a page under `docs/`.
const MAX_README_LINES: usize = 250;

/// Top-level folders of the repository: a path in backticks that starts with one of them is a
/// file of the repository, and must be there.
const TOP_FOLDERS: [&str; 11] =
    ["core/", "cli/", "app/", "sync/", "scripts/", "tests/", "www/", "bench/", "cases/", "docs/", ".ci/"];

/// What the tests write and never commit: named in the docs, absent from a clean checkout.
const GENERATED: [&str; 1] = ["tests/e2e/out"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(relative: &str) -> String {
    let path = root().join(relative);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `docs/*.md`, as `docs/NAME.md`, in order.
fn docs_pages() -> Vec<String> {
    let dir = root().join("docs");
    let pages: BTreeSet<String> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    pages.into_iter().collect()
}

/// The README's line count when it is over [`MAX_README_LINES`].
fn over_length(readme: &str) -> Option<usize> {
    let lines = readme.lines().count();
    (lines > MAX_README_LINES).then_some(lines)
}

/// `text` without its fenced code blocks (a transcript's `](` is not a link).
fn prose(text: &str) -> String {
    let mut fenced = false;
    let mut out = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The targets of the inline links and images in `text`, outside code: `[words](target)`.
fn links(text: &str) -> Vec<String> {
    let prose = prose(text);
    // Inline code spans are not links either.
    let mut plain = String::new();
    for (i, part) in prose.split('`').enumerate() {
        if i % 2 == 0 {
            plain.push_str(part);
        }
    }
    plain
        .match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &plain[at + 2..];
            rest.find(')').map(|end| rest[..end].trim().to_string())
        })
        .filter(|target| !target.is_empty())
        .collect()
}

/// Whether `target` leaves the repository for the web (or mail).
fn external(target: &str) -> bool {
    target
        .split_once(':')
        .is_some_and(|(scheme, _)| !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphabetic()))
}

/// `path` with `.` and `..` folded, as a path relative to the repository's root; None when it
/// climbs out of it.
fn normal(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(p) => out.push(p),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// GitHub's anchor for a heading: lower case, letters, digits, `-` and `_` kept, spaces made
/// `-`, everything else dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of the headings of a Markdown text.
fn anchors(text: &str) -> BTreeSet<String> {
    prose(text).lines().filter(|l| l.starts_with('#')).map(|l| slug(l.trim_start_matches('#'))).collect()
}

/// The links of `file` (relative to the root, with its `text`) that name a file the
/// repository does not hold, or a heading its target does not have.
fn broken_links(root: &Path, file: &str, text: &str) -> Vec<String> {
    let dir = Path::new(file).parent().unwrap_or(Path::new(""));
    let mut broken = Vec::new();
    for target in links(text) {
        if external(&target) {
            continue;
        }
        let (path, anchor) = target.split_once('#').unwrap_or((target.as_str(), ""));
        let resolved = if path.is_empty() { Some(PathBuf::from(file)) } else { normal(&dir.join(path)) };
        let Some(resolved) = resolved.filter(|r| root.join(r).exists()) else {
            broken.push(format!("{file}: {target}: no such file in the repository"));
            continue;
        };
        if !anchor.is_empty() && resolved.extension().is_some_and(|x| x == "md") {
            let heads = anchors(&fs::read_to_string(root.join(&resolved)).unwrap_or_default());
            if !heads.contains(anchor) {
                broken.push(format!("{file}: {target}: {} has no heading #{anchor}", resolved.display()));
            }
        }
    }
    broken
}

/// The paths in backticks in `text` that name a file of the repository (they start with one
/// of [`TOP_FOLDERS`]) that it does not hold. Patterns (`*`, `…`) and generated output are
/// not files.
fn missing_paths(root: &Path, file: &str, text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(|span| span.trim_end_matches('/'))
        .filter(|span| TOP_FOLDERS.iter().any(|top| span.starts_with(top)))
        .filter(|span| !span.contains(char::is_whitespace) && !span.contains(['*', '…', '<', '{', '$']))
        .filter(|span| !GENERATED.iter().any(|g| span.starts_with(g)))
        .filter(|span| !root.join(span).exists())
        .map(|span| format!("{file}: `{span}` is not in the repository"))
        .collect()
}

/// The pages the README does not link to.
fn unlinked<'a>(readme: &str, pages: &'a [String]) -> Vec<&'a str> {
    let linked: BTreeSet<PathBuf> = links(readme)
        .iter()
        .filter(|t| !external(t))
        .filter_map(|t| normal(Path::new(t.split('#').next().unwrap_or(""))))
        .collect();
    pages.iter().map(String::as_str).filter(|p| !linked.contains(Path::new(p))).collect()
}

/// Whether a page under `docs/` links back to the README.
fn links_back(page: &str) -> bool {
    links(page).iter().any(|t| t.split('#').next() == Some("../README.md"))
}

#[test]
fn the_readme_is_at_most_250_lines() {
    if let Some(lines) = over_length(&read("README.md")) {
        panic!("README.md has {lines} lines, more than {MAX_README_LINES}: move the rest into a page under docs/");
    }
}

#[test]
fn the_readme_links_every_docs_page_and_each_links_back() {
    let pages = docs_pages();
    assert!(pages.len() >= 5, "only {} pages under docs/: is the layout right?", pages.len());
    let missing = unlinked(&read("README.md"), &pages);
    assert!(missing.is_empty(), "README.md does not link to:\n{}", missing.join("\n"));
    let orphans: Vec<&String> = pages.iter().filter(|p| !links_back(&read(p))).collect();
    assert!(orphans.is_empty(), "these pages do not link back to ../README.md: {orphans:?}");
}

#[test]
fn every_link_and_path_in_the_readme_and_docs_is_in_the_repository() {
    let root = root();
    let mut files = vec!["README.md".to_string(), "ARCHITECTURE.md".to_string()];
    files.extend(docs_pages());
    let mut problems = Vec::new();
    for file in &files {
        let text = read(file);
        problems.extend(broken_links(&root, file, &text));
        if file != "ARCHITECTURE.md" {
            // ARCHITECTURE.md also names what the build writes (`cases/index.json` in dist/).
            problems.extend(missing_paths(&root, file, &text));
        }
    }
    assert!(problems.is_empty(), "references to what the repository does not hold:\n{}", problems.join("\n"));
}

#[test]
fn the_checks_catch_each_planted_fault() {
    let root = root();
    // A README one line too long; one at the limit is fine.
    assert_eq!(over_length(&"line\n".repeat(MAX_README_LINES + 1)), Some(MAX_README_LINES + 1));
    assert_eq!(over_length(&"line\n".repeat(MAX_README_LINES)), None);
    // A page the README does not link, and one it does (with an anchor, and ./).
    let pages = vec!["docs/a.md".to_string(), "docs/b.md".to_string()];
    assert_eq!(unlinked("see [a](./docs/a.md#x) and `[b](docs/b.md)` in code", &pages), vec!["docs/b.md"]);
    assert_eq!(unlinked("```\n[b](docs/b.md)\n```\n[a](docs/a.md)", &pages), vec!["docs/b.md"]);
    // A page that does not link back.
    assert!(links_back("[← README](../README.md)") && !links_back("[README](README.md) and [x](https://x)"));
    // A link to a file the repository does not hold, one that climbs out of it, a missing
    // heading; a web link and a link to a heading that is there are fine.
    let page = "[gone](gone.md) [out](../../x.md) [h](../README.md#no-such-heading) [w](https://example.com) [ok](../README.md#nocturne)";
    let broken = broken_links(&root, "docs/x.md", page);
    assert_eq!(broken.len(), 3, "{broken:?}");
    assert!(broken[0].contains("gone.md") && broken[1].contains("../../x.md") && broken[2].contains("no-such-heading"));
    // A path in backticks the repository does not hold; a pattern, a generated folder and a
    // path outside the repository's folders are not checked.
    let text =
        "`core/src/no_such_module.rs`, `core/tests/docs.rs`, `cases/*.json`, `tests/e2e/out/x.png`, `~/.cache/x`";
    let missing = missing_paths(&root, "README.md", text);
    assert_eq!(missing.len(), 1, "{missing:?}");
    assert!(missing[0].contains("no_such_module"));
    assert_eq!(slug(" The memory in other assistants (MCP)"), "the-memory-in-other-assistants-mcp");
}
