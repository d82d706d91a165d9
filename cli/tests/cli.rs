//! The command line as a user runs it.

use std::path::PathBuf;
use std::process::{Command, Output};

fn nocturne(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocturne")).args(args).output().expect("nocturne runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn cases() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../cases");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .expect("cases/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| p.display().to_string())
        .collect();
    files.sort();
    files
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nocturne-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

#[test]
fn gate_judges_every_case_file_and_exits_zero() {
    let files = cases();
    let args: Vec<&str> = std::iter::once("gate").chain(files.iter().map(String::as_str)).collect();
    let out = nocturne(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> =
        stdout(&out).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    assert_eq!(lines.len(), files.len());
    let ghost = lines.iter().find(|l| l["name"] == "dedupe refuses a ghost keeper").expect("case 02");
    assert_eq!(ghost["verdicts"][0]["kind"], "drop");
    assert_eq!(ghost["verdicts"][0]["itemId"], "m_2");
    assert_eq!(ghost["verdicts"][0]["accepted"], false);
    assert!(ghost["verdicts"][0]["reason"].as_str().is_some_and(|r| r.contains("m_99")));
}

#[test]
fn gate_names_a_malformed_file_and_exits_two() {
    let bad = temp("broken.json");
    std::fs::write(&bad, "{\"name\": \"x\", \"now\": 1, \"pass\": \"dedupe\"").expect("write");
    let out = nocturne(&["gate", bad.to_str().expect("utf8")]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("broken.json") && err.contains("not a gate case"), "{err}");
}

#[test]
fn gate_exits_one_when_a_verdict_disagrees_with_expect() {
    let text = std::fs::read_to_string(&cases()[0]).expect("case 01");
    let mut case: serde_json::Value = serde_json::from_str(&text).expect("json");
    case["expect"][0]["accepted"] = false.into();
    let file = temp("disagree.json");
    std::fs::write(&file, case.to_string()).expect("write");
    let out = nocturne(&["gate", file.to_str().expect("utf8")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected refused, got accepted"));
}

#[test]
fn text_measures_print_the_number_first() {
    let out = nocturne(&[
        "similarity",
        "I live in Lisbon and work best in the morning.",
        "I live in Porto and work best in the morning.",
    ]);
    assert!(stdout(&out).starts_with("0.800"), "{}", stdout(&out));
    let out = nocturne(&[
        "coverage",
        "The user migrated to Kubernetes on the backup box.",
        "I installed postgres 16 on the backup box.",
        "The kitchen leaks and the kettle is broken.",
    ]);
    assert_eq!(stdout(&out).trim(), "0.500\tmissing: migrated, kubernete");
    let out = nocturne(&["proper-nouns", "Marco moved to Lisbon in March, said Ana."]);
    assert_eq!(stdout(&out), "Ana\nLisbon\nMarch\n");
}

#[test]
fn verify_with_the_offline_provider_passes_every_check() {
    let out = nocturne(&["verify", "--provider", "offline", "--now", "1767225600"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.lines().last().is_some_and(|l| l.starts_with("16/16 checks")), "{text}");
    assert!(!text.contains("[FAIL]"));
}

#[test]
fn a_dry_run_leaves_the_store_file_byte_identical() {
    let store = temp("memory.json");
    let _ = std::fs::remove_file(&store);
    let s = store.to_str().expect("utf8");
    for (now, msg) in [
        ("1761177600", "The kitchen leaks and the kettle is broken."),
        ("1767139200", "I live in Lisbon. I live in Lisbon."),
    ] {
        assert!(nocturne(&["chat", "--store", s, "--now", now, msg]).status.success());
    }
    let before = std::fs::read(&store).expect("store file");
    let out = nocturne(&["sleep", "--store", s, "--dry-run", "--now", "1767225600"]);
    assert!(stdout(&out).contains("dry run (nothing written)"), "{}", stdout(&out));
    assert_eq!(std::fs::read(&store).expect("store file"), before);
    let out = nocturne(&["sleep", "--store", s, "--now", "1767225600"]);
    assert!(out.status.success());
    assert_ne!(std::fs::read(&store).expect("store file"), before, "a real Sleep writes");
    let versions = stdout(&nocturne(&["versions", "--store", s]));
    assert!(versions.contains("pass:forget:after"), "{versions}");
}

#[test]
fn a_corrupt_store_file_is_refused_with_its_name() {
    let store = temp("corrupt.json");
    std::fs::write(&store, "{\"format\": \"something-else\"}").expect("write");
    let out = nocturne(&["versions", "--store", store.to_str().expect("utf8")]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("corrupt.json") && err.contains("not a Nocturne memory export"), "{err}");
}
