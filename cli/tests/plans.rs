//! Files that cannot be forged or left behind (issue #68): a review plan names its memory
//! and the head it was planned on and its id is the digest of its content, so a plan made
//! on another memory, or with an edit changed by hand, is refused whole and the memory's
//! folder stays byte-identical; erase leaves the words in no file of that folder.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nocturne-plans-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocturne")).args(args).output().expect("nocturne runs")
}

fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every file under `dir` with its bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push((path.clone(), std::fs::read(&path).expect("bytes")));
        }
    }
    nocturne_core::text::order::sort(&mut out);
    out
}

/// A memory in a folder of its own, with what its offline Sleep edits.
fn memory(folder: &Path, at: &str, said: &[&str]) -> String {
    let store = folder.join("m.db");
    let s = store.to_str().expect("utf8").to_string();
    for text in said {
        ok(&["chat", "--store", &s, "--now", at, text]);
    }
    s
}

const SAID: [&str; 4] = [
    "I keep a bearded dragon.",
    "I keep a bearded dragon called Saffron.",
    "I live in Lisbon.",
    "I moved to Porto, I no longer live in Lisbon.",
];

#[test]
fn another_memorys_plan_and_a_tampered_plan_are_refused_whole() {
    let (a, b, plans) = (dir("a"), dir("b"), dir("p"));
    let store_a = memory(&a, "1767000000", &SAID);
    // Memory b says the same, a second later: the same ids, another memory.
    let store_b = memory(&b, "1767000001", &SAID);
    let plan = plans.join("plan.json");
    let p = plan.to_str().expect("utf8");
    ok(&["sleep", "--store", &store_a, "--review", p, "--now", "1767900000"]);
    let text = std::fs::read_to_string(&plan).expect("plan");
    assert!(text.contains("\"memory\": \"m-") && text.contains("\"head\": \"v"), "{text}");

    let before = files(&b);
    let out = run(&["apply", p, "--store", &store_b, "--now", "1767900060"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("was made on memory") && err.contains("no edit of it is applied"), "{err}");
    assert_eq!(files(&b), before, "another memory's plan wrote nothing");

    // One edit changed by hand (its reason, the least a forger would touch): refused whole.
    let before = files(&a);
    let plan_json: serde_json::Value = serde_json::from_str(&text).expect("json");
    let reason = plan_json["edits"][0]["reason"].as_str().expect("a reason").to_string();
    assert!(!reason.is_empty());
    let tampered = text.replacen(&format!("\"reason\": \"{reason}\""), "\"reason\": \"a forged reason\"", 1);
    assert_ne!(tampered, text);
    std::fs::write(&plan, &tampered).expect("tampered");
    let out = run(&["apply", p, "--store", &store_a, "--now", "1767900060"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("was changed after it was planned"), "{err}");
    assert_eq!(files(&a), before, "a tampered plan wrote nothing");

    // The plan as made applies to its own memory.
    std::fs::write(&plan, &text).expect("restored");
    let applied = ok(&["apply", p, "--store", &store_a, "--now", "1767900060"]);
    assert!(applied.contains("applied"), "{applied}");
}

#[test]
fn erase_leaves_the_words_in_no_file_of_the_memorys_folder() {
    let folder = dir("erase");
    let store = memory(&folder, "1767000000", &["My door code is 4417. I keep bees.", "My door code is 4417."]);
    // Plans kept beside the memory, as the MCP server keeps them: each holds the words.
    let kept = folder.join("m.db.plans");
    std::fs::create_dir_all(&kept).expect("plans dir");
    for n in 0..2 {
        let plan = kept.join(format!("p-{n}.json"));
        ok(&["sleep", "--store", &store, "--review", plan.to_str().expect("utf8"), "--now", "1767900000"]);
    }
    let held = |word: &str| -> Vec<PathBuf> {
        files(&folder)
            .into_iter()
            .filter(|(_, b)| b.windows(word.len()).any(|w| w == word.as_bytes()))
            .map(|(p, _)| p)
            .collect()
    };
    assert!(held("4417").len() >= 3, "the setup: the store and both plans hold the code: {:?}", held("4417"));
    let id = ok(&["search", "--store", &store, "door", "code"])
        .lines()
        .next()
        .and_then(|l| l.split_whitespace().next())
        .expect("a fact about the door code")
        .to_string();
    let said = ok(&["erase", "--store", &store, "--now", "1767900100", &id]);
    assert_eq!(said.matches("removed ").count(), 2, "it says which files it removed: {said}");
    for word in ["4417", "door", "Door"] {
        assert!(held(word).is_empty(), "{word} is still in {:?}", held(word));
    }
    assert!(!held("bees").is_empty(), "the unrelated fact stays");
}
