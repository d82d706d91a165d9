//! `nocturne import` as a user runs it: a zipped ChatGPT export into a store file, the
//! estimate of a dry run, a second import that adds nothing, refused files that change
//! nothing, an unreachable model.

use nocturne_core::text::order;
mod common;

use common::exported;

use nocturne_core::store::document::Document;
use nocturne_core::testkit::exports::{self, START};
use std::path::PathBuf;
use std::process::{Command, Output};

const NOW: &str = "1740000000";

fn nocturne(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocturne")).args(args).output().expect("nocturne runs")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nocturne-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

fn chatgpt_zip(name: &str) -> PathBuf {
    let path = temp(name);
    let json = serde_json::to_vec(&exports::chatgpt_conversations()).expect("json");
    std::fs::write(&path, exports::zip(&[("chat.html", b"<html></html>"), ("conversations.json", &json)]))
        .expect("write");
    path
}

#[test]
fn a_zipped_chatgpt_export_imports_into_a_store_file_once() {
    let (zip, store) = (chatgpt_zip("export.zip"), temp("memory.db"));
    let (zip, store) = (zip.to_str().expect("utf8"), store.to_str().expect("utf8"));
    let _ = std::fs::remove_file(store);
    let dry = nocturne(&["import", zip, "--store", store, "--now", NOW, "--dry-run"]);
    let out = text(&dry);
    assert!(dry.status.success(), "{out}");
    assert!(out.contains("read: format=chatgpt conversations=2 userMessages=4 assistantMessages=4"), "{out}");
    assert!(out.contains("import-estimate: conversations=2 newUser=4 newAssistant=4 duplicates=0"), "{out}");
    assert!(out.contains("dry run: nothing was written") && !std::path::Path::new(store).exists(), "{out}");

    let run = nocturne(&["import", zip, "--store", store, "--now", NOW]);
    let out = text(&run);
    assert!(run.status.success(), "{out}");
    assert!(out.contains("import: conversations=2 userTurns=4 assistantTurns=4"), "{out}");
    let doc = Document::parse(&exported(std::path::Path::new(store))).expect("a memory");
    let users: Vec<(String, i64)> = doc
        .transcript
        .iter()
        .filter(|t| t.role == nocturne_core::model::memory::Role::User)
        .map(|t| (t.text.clone(), t.at))
        .collect();
    let mut want: Vec<(String, i64)> =
        exports::chatgpt_expected().into_iter().map(|(t, at)| (t.to_string(), at)).collect();
    order::sort_by_key(&mut want, |w| w.1);
    assert_eq!(users, want);
    let lisbon = doc.items.iter().find(|i| i.text.contains("Lisbon")).expect("a fact about Lisbon");
    assert_eq!(lisbon.created_at, START + 60);

    let before = exported(std::path::Path::new(store));
    let again = nocturne(&["import", zip, "--store", store, "--now", NOW]);
    let out = text(&again);
    assert!(again.status.success() && out.contains("nothing new to import") && out.contains("duplicates=8"), "{out}");
    assert_eq!(exported(std::path::Path::new(store)), before, "a second import wrote something");
}

#[test]
fn a_file_that_is_no_export_is_refused_and_the_store_file_is_untouched() {
    let store = temp("untouched.db");
    let s = store.to_str().expect("utf8");
    let _ = std::fs::remove_file(&store);
    let seeded = nocturne(&["chat", "--store", s, "--now", NOW, "I live in Ghent."]);
    assert!(seeded.status.success(), "{}", text(&seeded));
    let before = exported(&store);
    let json = serde_json::to_vec(&exports::chatgpt_conversations()).expect("json");
    let cases: Vec<(&str, Vec<u8>, &[&str], &str)> = vec![
        ("cut.json", json[..json.len() / 3].to_vec(), &[], "truncated"),
        ("empty.zip", exports::zip(&[("user.json", b"{}")]), &[], "no conversations.json"),
        (
            "claude.json",
            serde_json::to_vec(&exports::claude_conversations()).expect("json"),
            &["--format", "chatgpt"],
            "found a Claude export",
        ),
        ("notes.txt", b"dear diary".to_vec(), &[], "is not JSON"),
    ];
    for (name, bytes, extra, says) in cases {
        let file = temp(name);
        std::fs::write(&file, bytes).expect("write");
        let mut args = vec!["import", file.to_str().expect("utf8"), "--store", s, "--now", NOW];
        args.extend_from_slice(extra);
        let out = nocturne(&args);
        let t = text(&out);
        assert!(!out.status.success(), "{name} was accepted: {t}");
        assert!(t.contains(says) && t.contains("nothing was imported"), "{name}: {t}");
        assert_eq!(exported(&store), before, "{name} changed the store file");
    }
    let missing = nocturne(&["import", "/no/such/export.zip", "--store", s]);
    assert!(text(&missing).contains("cannot read /no/such/export.zip"), "{}", text(&missing));
}

#[test]
fn an_unreachable_model_ends_the_import_with_a_clear_error_and_keeps_the_store_file() {
    let (zip, store) = (chatgpt_zip("down.zip"), temp("down.db"));
    let _ = std::fs::remove_file(&store);
    let out = nocturne(&[
        "import",
        zip.to_str().expect("utf8"),
        "--store",
        store.to_str().expect("utf8"),
        "--now",
        NOW,
        "--provider",
        "openai",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--timeout",
        "5",
    ]);
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    assert!(t.contains("could not be reached") && t.contains("import again to resume"), "{t}");
}

#[test]
fn a_careless_model_s_invented_fact_is_refused_and_reported() {
    // The scripted model proposes a fact nobody said beside one they did.
    let base = common::model(|_, _| {
        Some(r#"{"facts":[{"text":"I moved to Lisbon in March.","category":"place"},{"text":"I was born on Mars.","category":"identity"}]}"#.into())
    });
    let (zip, store) = (chatgpt_zip("careless.zip"), temp("careless.db"));
    let _ = std::fs::remove_file(&store);
    let out = nocturne(&[
        "import",
        zip.to_str().expect("utf8"),
        "--store",
        store.to_str().expect("utf8"),
        "--now",
        NOW,
        "--sleep",
        "none",
        "--provider",
        "openai",
        "--base-url",
        &base,
        "--proposal-style",
        "free-text",
    ]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("refused 2×"), "the invented fact is refused in both batches: {t}");
    let doc = Document::parse(&exported(&store)).expect("a memory");
    assert!(!doc.items.iter().any(|i| i.text.contains("Mars")), "an invented fact was stored");
    assert!(doc
        .mutations
        .iter()
        .any(|m| !m.accepted && m.refs.proposal.as_ref().is_some_and(|p| p.to_string().contains("Mars"))));
}
