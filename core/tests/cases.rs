//! Every gate case file in `cases/` judged natively; each must agree with its `expect`.

use nocturne_core::gate::case;
use nocturne_core::text::order;
use std::path::Path;

#[test]
fn every_case_file_agrees_with_its_expectations() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    let mut files: Vec<_> =
        std::fs::read_dir(&dir).expect("cases/ exists").map(|e| e.expect("readable").path()).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "json"));
    order::sort(&mut files);
    assert!(files.len() >= 60, "only {} case files", files.len());
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable case");
        match case::parse(&text).and_then(|c| c.judge()) {
            Ok(result) if result.disagreements.is_empty() => {}
            Ok(result) => failures.push(format!("{}: {}", path.display(), result.disagreements.join("; "))),
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{} case(s) failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn malformed_case_files_are_named_not_panicked_on() {
    assert!(case::parse("{").unwrap_err().0.contains("not a gate case"));
    let unknown = r#"{"name":"x","now":0,"pass":"sideways","proposal":{}}"#;
    assert!(case::parse(unknown).unwrap_err().0.contains("sideways"));
    let no_list = r#"{"name":"x","now":0,"pass":"dedupe","proposal":{"merge":[]}}"#;
    assert!(case::parse(no_list).and_then(|c| c.judge()).unwrap_err().0.contains("drop"));
}
