//! The command line as a user runs it.

use nocturne_core::text::order;
mod common;

use common::exported;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn nocturne(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocturne")).args(args).output().expect("nocturne runs")
}

/// Runs nocturne with `input` on standard input.
fn nocturne_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nocturne"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nocturne runs");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write stdin");
    child.wait_with_output().expect("nocturne ends")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A store file with two turns in it, at a path of its own.
fn seeded_store(name: &str) -> PathBuf {
    let store = temp(name);
    let _ = std::fs::remove_file(&store);
    let s = store.to_str().expect("utf8");
    let out = nocturne(&[
        "chat",
        "--store",
        s,
        "--now",
        "1767139200",
        "I live in Ghent and teach chemistry at the university.",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    store
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
    order::sort(&mut files);
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
    assert!(text.lines().last().is_some_and(|l| l.starts_with("23/23 checks")), "{text}");
    assert!(!text.contains("[FAIL]"));
}

#[test]
fn a_dry_run_leaves_the_store_file_byte_identical() {
    let store = temp("memory.db");
    let _ = std::fs::remove_file(&store);
    let s = store.to_str().expect("utf8");
    for (now, msg) in [
        ("1761177600", "The kitchen leaks and the kettle is broken."),
        ("1767139200", "I live in Lisbon. I live in Lisbon."),
    ] {
        assert!(nocturne(&["chat", "--store", s, "--now", now, msg]).status.success());
    }
    let before = exported(&store);
    let out = nocturne(&["sleep", "--store", s, "--dry-run", "--now", "1767225600"]);
    assert!(stdout(&out).contains("dry run (nothing written)"), "{}", stdout(&out));
    assert_eq!(exported(&store), before);
    let out = nocturne(&["sleep", "--store", s, "--now", "1767225600"]);
    assert!(out.status.success());
    assert_ne!(exported(&store), before, "a real Sleep writes");
    let versions = stdout(&nocturne(&["versions", "--store", s]));
    assert!(versions.contains("pass:forget:after"), "{versions}");
}

/// A reviewed Sleep (`flow::review`) through the real commands: the plan leaves the store byte-identical, `--only`
/// applies exactly the chosen edits and logs the rest as not approved, a second apply
/// applies nothing, and a decision naming an edit the plan lacks writes nothing.
#[test]
fn a_reviewed_sleep_applies_exactly_what_was_approved_once() {
    let store = temp("reviewed.db");
    let plan = temp("reviewed-plan.json");
    let _ = std::fs::remove_file(&store);
    let (s, p) = (store.to_str().expect("utf8"), plan.to_str().expect("utf8"));
    for msg in [
        "I keep a bearded dragon.",
        "I keep a bearded dragon called Saffron.",
        "I live in Lisbon.",
        "I moved to Porto, I no longer live in Lisbon.",
        "This week I'm swamped at work.",
    ] {
        assert!(nocturne(&["chat", "--store", s, "--now", "1767000000", msg]).status.success());
    }
    let before = exported(&store);
    let out = nocturne(&["sleep", "--store", s, "--review", p, "--now", "1767900000"]);
    assert!(out.status.success() && stdout(&out).contains("the store file is unchanged"), "{}", stderr(&out));
    assert_eq!(exported(&store), before, "a plan writes nothing");
    let listed = stdout(&nocturne(&["review", p]));
    for id in ["r1 dedupe drop", "r2 supersede", "r6 forget"] {
        assert!(listed.contains(id), "{id}:\n{listed}");
    }
    assert!(listed.contains("\"I live in Lisbon.\" (scratch) -> \"I live in Lisbon.\" (scratch, retired)"), "{listed}");

    let out = nocturne(&["apply", p, "--store", s, "--only", "r99", "--now", "1767900060"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("has no edit r99"), "{}", stderr(&out));
    assert_eq!(exported(&store), before, "a bad decision writes nothing");

    let args = ["apply", p, "--store", s, "--only", "r1,r2", "--reject", "r3", "--reason", "not yet"];
    let out = nocturne(&[&args[..], &["--now", "1767900100"]].concat());
    assert!(
        stdout(&out).contains("2 applied, 0 refused by the gates now, 4 not approved by the user"),
        "{}",
        stdout(&out)
    );
    let doc: serde_json::Value = serde_json::from_str(&exported(&store)).expect("json");
    let reasons: Vec<&str> =
        doc["mutations"].as_array().expect("log").iter().filter_map(|m| m["rejectionReason"].as_str()).collect();
    assert!(reasons.contains(&"not approved by the user: not yet"), "{reasons:?}");
    let active: Vec<&str> = doc["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|i| i["active"] == true)
        .filter_map(|i| i["text"].as_str())
        .collect();
    assert!(!active.contains(&"I live in Lisbon.") && active.contains(&"This week I'm swamped at work."), "{active:?}");

    let after = exported(&store);
    let out = nocturne(&["apply", p, "--store", s, "--now", "1767900200"]);
    assert!(stdout(&out).contains("a plan applies at most once"), "{}", stdout(&out));
    assert_eq!(exported(&store), after, "a second apply writes nothing");
}

#[test]
fn a_corrupt_store_file_is_refused_with_its_name() {
    let store = temp("corrupt.json");
    std::fs::write(&store, "{\"format\": \"something-else\"}").expect("write");
    let out = nocturne(&["versions", "--store", store.to_str().expect("utf8")]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("corrupt.json") && err.contains("not a Nocturne memory export"), "{err}");
}

#[test]
fn help_lists_every_subcommand() {
    let out = nocturne(&["--help"]);
    assert!(out.status.success());
    let help = stdout(&out);
    for sub in [
        "similarity",
        "coverage",
        "proper-nouns",
        "gate",
        "chat",
        "sleep",
        "versions",
        "diff",
        "restore",
        "search",
        "mcp",
        "edit",
        "pin",
        "unpin",
        "forget",
        "erase",
        "quiz",
        "verify",
        "bench-models",
        "bench-gates",
        "bench-incremental",
        "bench-recall",
        "bench",
        "review",
        "apply",
    ] {
        assert!(help.lines().any(|l| l.trim_start().starts_with(sub)), "--help does not list {sub}:\n{help}");
    }
    assert!(stdout(&nocturne(&["sleep", "--help"])).contains("--dry-run"));
}

#[test]
fn regression_a_mistyped_flag_is_an_error_that_writes_nothing() {
    let store = seeded_store("typo.db");
    let before = exported(&store);
    let out = nocturne(&["sleep", "--store", store.to_str().expect("utf8"), "--dryrun"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("--dryrun"), "{}", stderr(&out));
    assert_eq!(exported(&store), before, "a typo ran a real Sleep");
    let fresh = temp("typo-new.db");
    let _ = std::fs::remove_file(&fresh);
    assert_eq!(nocturne(&["sleep", "--store", fresh.to_str().expect("utf8"), "--dryrun"]).status.code(), Some(2));
    assert!(!fresh.exists(), "a typo created a store file");
}

#[test]
fn regression_read_only_commands_fail_on_a_missing_file_and_create_none() {
    let missing = temp("no-such-memory.db");
    let _ = std::fs::remove_file(&missing);
    let m = missing.to_str().expect("utf8");
    for args in [vec!["versions", "--store", m], vec!["quiz", "--store", m], vec!["diff", "--store", m, "1", "2"]] {
        let out = nocturne(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?} exited {:?}", out.status.code());
        assert!(stderr(&out).contains("no memory at"), "{args:?}: {}", stderr(&out));
        assert!(!missing.exists(), "{args:?} created the file");
    }
}

#[test]
fn regression_chat_sleep_and_quiz_use_the_provider_they_are_given() {
    let store = seeded_store("provider.db");
    let s = store.to_str().expect("utf8");
    // A closed port: the offline rules would have answered; a real provider cannot.
    let remote = ["--provider", "openai", "--base-url", "http://127.0.0.1:9/v1", "--timeout", "2"];
    // A question: a small model answering by choosing is asked (a greeting needs no call).
    for sub in [vec!["chat", "--store", s, "Where do I live?"], vec!["sleep", "--store", s], vec!["quiz", "--store", s]]
    {
        let args: Vec<&str> = sub.iter().copied().chain(remote).collect();
        let before = exported(&store);
        let out = nocturne(&args);
        assert!(!out.status.success(), "{sub:?} succeeded without its model: {}", stdout(&out));
        assert!(stderr(&out).contains("could not be reached"), "{sub:?}: {}", stderr(&out));
        if sub[0] == "sleep" {
            // Passes that needed no model call completed and were saved; none after the
            // first that needed the model.
            let text = exported(&store);
            assert!(!text.contains("pass:promote:after"), "a pass that needed the model was written");
        } else {
            assert!(exported(&store) == before, "{sub:?} changed the store file");
        }
    }
}

#[test]
fn chat_reads_one_turn_per_line_of_standard_input() {
    let store = temp("stdin.db");
    let _ = std::fs::remove_file(&store);
    let s = store.to_str().expect("utf8");
    let out = nocturne_stdin(&["chat", "--store", s, "--now", "1767139200"], "I live in Ghent.\n\nI keep a cat.\n");
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&exported(&store)).expect("json");
    let turns = doc["transcript"].as_array().expect("transcript");
    assert_eq!(turns.len(), 4, "two user turns and two replies");
    assert_eq!(turns[2]["text"], "I keep a cat.");
}

#[test]
fn regression_a_stale_id_counter_in_a_store_file_is_refused_and_the_file_kept() {
    let store = seeded_store("stale-counter.json");
    let mut doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&store).expect("store")).expect("json");
    doc["meta"]["nextItem"] = serde_json::json!(1);
    let text = serde_json::to_string_pretty(&doc).expect("json");
    std::fs::write(&store, &text).expect("write");
    let out = nocturne(&["chat", "--store", store.to_str().expect("utf8"), "I moved to Porto."]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("meta.nextItem is 1"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&store).expect("store"), text, "the file was touched");
}

/// A model that proposes nothing to the first `answered` calls and then never answers,
/// and the count of the calls it got.
fn scripted_model(answered: usize) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = calls.clone();
    let url = common::model(move |n, _| {
        counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        (n < answered).then(|| r#"{"drop":[],"merge":[],"supersede":[],"promote":[],"forget":[]}"#.to_string())
    });
    (url, calls)
}

/// A Sleep is planned whole before it writes (the guard reads the plan), so Ctrl-C while
/// the model is asked for the third pass's proposals leaves the store file as it was.
#[test]
fn ctrl_c_while_the_sleep_is_planned_leaves_the_store_byte_identical_and_exits_130() {
    let store = temp("interrupted.db");
    let _ = std::fs::remove_file(&store);
    let s = store.to_str().expect("utf8");
    for msg in
        ["I live in Lisbon and work best in the morning. I keep a cat.", "I live in Porto. I keep a cat and a dog."]
    {
        assert!(nocturne(&["chat", "--store", s, "--now", "1767139200", msg]).status.success());
    }
    let before = exported(&store);
    // Dedupe and Merge are answered; the third pass (Supersede) waits on the model.
    let (url, calls) = scripted_model(2);
    let child = Command::new(env!("CARGO_BIN_EXE_nocturne"))
        .args(["sleep", "--store", s, "--now", "1767225600", "--provider", "openai", "--base-url", &url])
        .args(["--model", "fake", "--proposal-style", "free-text", "--timeout", "60"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nocturne runs");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while calls.load(std::sync::atomic::Ordering::SeqCst) < 3 {
        assert!(std::time::Instant::now() < deadline, "the Sleep never asked for its third pass");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill runs");
    assert!(killed.success());
    let out = child.wait_with_output().expect("nocturne ends");
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(stderr(&out).contains("stopped by the user while the Sleep was planned"), "{}", stderr(&out));
    assert_eq!(exported(&store), before, "a Sleep stopped while planned wrote something");
}

/// The store of issue 66: fourteen facts `I painted fence number N with a colour called
/// shadeN.`, where `nocturne sleep` printed `retire=0` and retired 7 of 14 with exit 0.
/// Now it keeps all fourteen, or is refused — the file byte-identical — naming what would
/// go, with `retire=` the plan's count either way.
#[test]
fn regression_the_fence_store_keeps_all_fourteen_or_refuses_byte_identical() {
    let store = temp("fence.db");
    let _ = std::fs::remove_file(&store);
    let s = store.to_str().expect("utf8");
    let lines: String =
        (1..=14).map(|n| format!("I painted fence number {n} with a colour called shade{n}.\n")).collect();
    assert!(nocturne_stdin(&["chat", "--store", s, "--now", "1767139200"], &lines).status.success());
    let bytes = std::fs::read(&store).expect("store");
    let out = nocturne(&["sleep", "--store", s, "--now", "1767225600"]);
    let retire: usize = figure(&stdout(&out), "estimate:", "retire").parse().expect("retire=");
    if out.status.success() {
        assert_eq!(retire, 0, "{}", stdout(&out));
        assert!(stdout(&out).contains("active 14 -> 14"), "{}", stdout(&out));
    } else {
        let why = stderr(&out);
        assert!(
            why.contains(&format!("would retire {retire} of 14 active facts")) && why.contains("--review"),
            "{why}"
        );
        assert!(why.contains("fence number"), "the refusal names what would go: {why}");
        assert_eq!(std::fs::read(&store).expect("store"), bytes, "a refused Sleep changed the store file");
    }
}

/// The figure after `key=` on the line starting with `prefix`.
fn figure(out: &str, prefix: &str, key: &str) -> String {
    let line = out.lines().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("no {prefix} line in:\n{out}"));
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("no {key}= in {line}"))
        .to_string()
}

#[test]
fn a_second_sleep_asks_only_about_what_the_day_added_and_deep_asks_about_everything() {
    let store = temp("incremental.db");
    let _ = std::fs::remove_file(&store);
    let s = store.to_str().expect("utf8");
    let day1 = "I live in Ghent. I teach chemistry at the college. The boiler makes a rattling noise. \
My sister Ana plays the cello. The garden shed needs a new roof. I keep bees behind the shed.";
    assert!(nocturne(&["chat", "--store", s, "--now", "1767139200", day1]).status.success());
    let first = stdout(&nocturne(&["sleep", "--store", s, "--now", "1767139300"]));
    assert_eq!(figure(&first, "estimate:", "scope"), "deep", "no Sleep has completed yet: {first}");
    assert!(nocturne(&["chat", "--store", s, "--now", "1767225600", "I live in Porto now."]).status.success());
    let inc = stdout(&nocturne(&["sleep", "--store", s, "--dry-run", "--now", "1767225700"]));
    let deep = stdout(&nocturne(&["sleep", "--store", s, "--dry-run", "--deep", "--now", "1767225700"]));
    assert_eq!(figure(&inc, "estimate:", "scope"), "incremental", "{inc}");
    // Fresh: the new fact, and what the first Sleep itself changed (a promoted fact is
    // compared again in its new block).
    let fresh: usize = figure(&inc, "estimate:", "fresh").parse().expect("fresh");
    let active: usize = figure(&inc, "estimate:", "active").parse().expect("active");
    assert!(fresh >= 1 && fresh * 2 < active, "{inc}");
    let calls = |out: &str| figure(out, "estimate:", "calls").parse::<usize>().expect("calls");
    let tokens = |out: &str| figure(out, "estimate:", "promptTokens").parse::<u64>().expect("tokens");
    assert!(calls(&inc) < calls(&deep) && tokens(&inc) * 2 < tokens(&deep), "incremental {inc}\ndeep {deep}");
    // The new fact sits in scratch and the old one in human: with sized blocks a newer fact
    // replaces an older one in another block (a full human block must still take an
    // update), so the next Sleep settles it, and the one after has nothing left to do.
    let second = stdout(&nocturne(&["sleep", "--store", s, "--now", "1767225700"]));
    assert_eq!(figure(&second, "pass:supersede:done", "accepted"), "1", "{second}");
    let third = stdout(&nocturne(&["sleep", "--store", s, "--now", "1767225800"]));
    assert_eq!(figure(&third, "estimate:", "scope"), "incremental", "{third}");
    assert_eq!(figure(&third, "pass:supersede:done", "accepted"), "0", "{third}");
    let versions = stdout(&nocturne(&["versions", "--store", s]));
    assert_eq!(versions.matches("pass:forget:after").count(), 3, "{versions}");
}

#[test]
fn bench_incremental_makes_the_deep_sleeps_edits_for_a_twentieth_of_its_calls() {
    let out = nocturne(&["bench-incremental", "--facts", "3000", "--new", "100"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = stdout(&out);
    let n = |k: &str| figure(&out, "incremental:", k).parse::<u64>().expect(k);
    assert_eq!(figure(&out, "incremental:", "sameResult"), "true", "{out}");
    assert!(n("calls") > 0 && n("calls") * 20 <= n("fullCalls"), "{out}");
    assert!(figure(&out, "day:", "newEdits").parse::<u64>().expect("newEdits") >= 30, "{out}");
}

#[test]
fn regression_the_day_after_a_deep_sleep_costs_the_day_not_the_deep_sleeps_edits_again() {
    // A deep Sleep that promoted most of a just-imported memory, then a day of 100 facts:
    // the incremental Sleep once counted every promoted fact as fresh (919 requests against
    // the deep Sleep's 2,291 at 10,000 facts).
    let out = nocturne(&["bench-incremental", "--facts", "3000", "--new", "100"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = stdout(&out);
    let n = |k: &str| figure(&out, "afterDeep:", k).parse::<u64>().expect(k);
    assert!(n("moved") >= 1000, "the deep Sleep must promote most of the memory: {out}");
    assert_eq!(n("fresh"), 100, "{out}");
    assert!(n("calls") > 0 && n("calls") * 20 <= n("deepCalls"), "{out}");
    assert!(n("newEdits") >= 30 && n("missed") == 0, "{out}");
}

#[test]
fn what_one_sleep_leaves_for_the_next_the_next_incremental_sleep_does() {
    // At 1,000 facts a Sleep leaves a few follow-up edits (one edit per fact per pass):
    // the pairs of a fact it promoted with its new block's facts. The next incremental
    // Sleep makes them, after a day and after a deep Sleep alike. Since a supersession needs
    // one referent (issue 66) a day of 100 new facts leaves none to follow up; 300 leave some.
    let out = nocturne(&["bench-incremental", "--facts", "1000", "--new", "300"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = stdout(&out);
    let n = |line: &str, k: &str| figure(&out, line, k).parse::<u64>().expect(k);
    assert!(n("day:", "afterEdits") > 0, "nothing left to follow up: {out}");
    assert_eq!(n("day:", "leftAfterNext"), 0, "{out}");
    assert_eq!(n("afterDeep:", "missed"), 0, "{out}");
}

#[test]
fn bench_recall_brings_every_planted_fact_into_a_prompt_within_its_budget() {
    let out = nocturne(&["bench-recall", "--facts", "3000"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = stdout(&out);
    let f = |k: &str| figure(&out, "recall:", k).parse::<f64>().expect(k);
    assert!(f("found") >= 0.95 && f("updates") >= 0.95 && f("abstained") >= 0.95 && f("temporal") >= 0.95, "{out}");
    assert!(f("maxPromptTokens") <= f("budget"), "{out}");
    for block in ["persona", "human", "episodes", "scratch"] {
        assert!(
            figure(&out, "recall detail:", &format!("found.{block}")).parse::<f64>().expect(block) >= 0.95,
            "{out}"
        );
    }
    let human: f64 = figure(&out, "recall detail:", "humanBlockTokens").parse().expect("human tokens");
    assert!(human > f("budget"), "the human block alone must overflow the budget: {out}");
}

#[test]
fn a_sleep_that_would_retire_most_of_the_memory_asks_for_yes_and_writes_nothing() {
    let store = temp("retire.db");
    let _ = std::fs::remove_file(&store);
    let s = store.to_str().expect("utf8");
    let lines: String = (0..12).map(|n| format!("The parcel number {n} was delivered to the wrong door.\n")).collect();
    assert!(nocturne_stdin(&["chat", "--store", s, "--now", "1767139200"], &lines).status.success());
    // By default a memory forgets by value and these events stay; the user turns forgetting
    // by age on, and is shown what the next Sleep would retire under it.
    let set = nocturne(&["policy", "--store", s, "--now", "1798675200", "--stale-after-days", "30"]);
    assert!(set.status.success(), "{}", stderr(&set));
    let said = stdout(&set);
    assert!(said.contains("changed: the user changed the retention policy: forget by age: off → 30 days"), "{said}");
    assert!(said.contains("the next Sleep would retire 12 of 12 active facts"), "{said}");
    let before = exported(&store);
    // A year later every one of those events is stale.
    let out = nocturne(&["sleep", "--store", s, "--now", "1798675200"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("would retire 12 of 12 active facts") && stderr(&out).contains("--yes"),
        "{}",
        stderr(&out)
    );
    assert_eq!(exported(&store), before, "nothing was written");
    let out = nocturne(&["sleep", "--store", s, "--now", "1798675200", "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("active 12 -> 0"), "{}", stdout(&out));
}

#[test]
fn search_finds_facts_by_their_words_with_block_age_and_lineage() {
    let store = temp("search.db");
    let _ = std::fs::remove_file(&store);
    let s = store.to_str().expect("utf8");
    assert!(nocturne(&["chat", "--store", s, "--now", "1767139200", "I live in Lisbon. I keep bees."])
        .status
        .success());
    assert!(nocturne(&["sleep", "--store", s, "--now", "1767139300"]).status.success());
    let out = nocturne(&["search", "--store", s, "--now", "1767398400", "Where", "do", "I", "live?"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let first = text.lines().next().unwrap_or_default();
    assert!(first.contains("human/") && first.contains("active") && first.contains("said 3 days ago"), "{text}");
    assert!(first.contains("I live in Lisbon.") && first.contains("encoded from turn 0"), "{text}");
    assert!(!text.contains("bees") && text.ends_with("1 fact(s) match\n"), "{text}");
    assert!(stdout(&nocturne(&["search", "--store", s, "saffron"])).ends_with("0 fact(s) match\n"));
    let missing = temp("no-search.db");
    let _ = std::fs::remove_file(&missing);
    assert_eq!(nocturne(&["search", "--store", missing.to_str().expect("utf8"), "x"]).status.code(), Some(1));
    assert!(!missing.exists(), "a read-only command created a file");
}

#[test]
fn edit_pin_unpin_and_forget_each_write_a_user_version_and_refuse_what_makes_no_sense() {
    let store = temp("edits.db");
    let _ = std::fs::remove_file(&store);
    let s = store.to_str().expect("utf8");
    assert!(nocturne(&["chat", "--store", s, "--now", "1767139200", "I live in Lisbon. I keep bees."])
        .status
        .success());
    let run = |args: &[&str]| {
        let mut all = vec![args[0], "--store", s, "--now", "1767225600"];
        all.extend_from_slice(&args[1..]);
        nocturne(&all)
    };
    let out = run(&["edit", "m_1", "I", "live", "in", "Porto."]);
    assert!(out.status.success() && stdout(&out).contains("user:correct"), "{}{}", stdout(&out), stderr(&out));
    let out = run(&["pin", "m_3"]);
    assert!(out.status.success() && stdout(&out).contains("user:pin"), "{}", stderr(&out));
    let out = run(&["pin", "m_3"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("m_3 is already pinned; nothing was changed"), "{}", stderr(&out));
    assert!(run(&["unpin", "m_3"]).status.success());
    let out = run(&["forget", "m_2", "--reason", "sold the hives"]);
    assert!(out.status.success() && stdout(&out).contains("user:forget"), "{}", stderr(&out));
    let before = exported(&store);
    let out = run(&["forget", "m_2"]);
    assert_eq!(out.status.code(), Some(1), "forgetting an inactive fact is refused");
    assert_eq!(exported(&store), before, "a refused edit leaves the file as it was");
    let found = stdout(&run(&["search", "Porto"]));
    assert!(found.contains("I live in Porto.") && found.contains("the user's correction of m_1"), "{found}");
    let versions = stdout(&nocturne(&["versions", "--store", s]));
    for label in ["user:correct", "user:pin", "user:unpin", "user:forget"] {
        assert!(versions.contains(label), "{label} missing from:\n{versions}");
    }
}

#[test]
fn counted_from_outside_an_incremental_sleep_calls_the_model_less_than_a_deep_one_and_as_estimated() {
    let store = temp("counted.db");
    let _ = std::fs::remove_file(&store);
    let s = store.to_str().expect("utf8");
    let day1 = "I live in Ghent. I teach chemistry at the college. The boiler makes a rattling noise. \
My sister Ana plays the cello. The garden shed needs a new roof. I keep bees behind the shed.";
    assert!(nocturne(&["chat", "--store", s, "--now", "1767139200", day1]).status.success());
    assert!(nocturne(&["sleep", "--store", s, "--now", "1767139300"]).status.success());
    assert!(nocturne(&["chat", "--store", s, "--now", "1767225600", "I keep a cat called Miso."]).status.success());
    let (url, calls) = scripted_model(usize::MAX);
    let mut counted = Vec::new();
    for deep in [false, true] {
        let before = calls.load(std::sync::atomic::Ordering::SeqCst);
        let mut args = vec!["sleep", "--store", s, "--now", "1767225700", "--dry-run", "--provider", "openai"];
        args.extend(["--base-url", url.as_str(), "--model", "counting"]);
        if deep {
            args.push("--deep");
        }
        let out = nocturne(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let made = calls.load(std::sync::atomic::Ordering::SeqCst) - before;
        let estimated: usize = figure(&stdout(&out), "estimate:", "calls").parse().expect("calls");
        assert_eq!(made, estimated, "the estimate before the run is what the model was asked (deep={deep})");
        counted.push(made);
    }
    assert!(counted[0] > 0 && counted[0] < counted[1], "incremental {} vs deep {}", counted[0], counted[1]);
}

#[test]
fn erase_leaves_no_trace_of_the_words_in_the_store_file_and_keeps_the_unrelated_fact() {
    let store = temp("erase.db");
    let _ = std::fs::remove_file(&store);
    let s = store.to_str().expect("utf8");
    for (now, msg) in [
        ("1767139200", "My door code is 4417. I keep bees."),
        ("1767139300", "Remember that my door code is 4417."),
        ("1767139400", "What is my door code?"),
    ] {
        assert!(nocturne(&["chat", "--store", s, "--now", now, msg]).status.success());
    }
    assert!(nocturne(&["sleep", "--store", s, "--now", "1767139500"]).status.success());
    let text = exported(&store);
    assert!(text.contains("4417"), "the setup: the code is stored");
    let id = stdout(&nocturne(&["search", "--store", s, "door", "code"]))
        .lines()
        .next()
        .and_then(|l| l.split_whitespace().next())
        .expect("a fact about the door code")
        .to_string();
    let out = nocturne(&["erase", "--store", s, "--now", "1767139600", &id]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stdout(&out);
    assert!(said.starts_with("erased ") && said.contains("tombstone") && !said.contains("4417"), "{said}");
    let text = exported(&store);
    for word in ["4417", "door", "Door"] {
        assert!(!text.contains(word), "the memory still holds {word}");
    }
    // Not in the database's bytes either: no free page, no log of recent writes keeps them.
    for file in [store.clone(), PathBuf::from(format!("{}-wal", store.display()))] {
        let bytes = std::fs::read(&file).unwrap_or_default();
        for word in ["4417", "door", "Door"] {
            let held = bytes.windows(word.len()).any(|w| w == word.as_bytes());
            assert!(!held, "{} still holds {word} in its bytes", file.display());
        }
    }
    assert!(text.contains("I keep bees."), "the unrelated fact and its sentence stay");
    let bees = stdout(&nocturne(&["search", "--store", s, "bees"]));
    assert!(bees.contains("active") && bees.ends_with("1 fact(s) match\n"), "{bees}");
    let verify = stdout(&nocturne(&["versions", "--store", s]));
    assert!(verify.contains("user:erase"), "{verify}");
    let again = nocturne(&["erase", "--store", s, &id]);
    assert_eq!(again.status.code(), Some(1), "erasing twice is refused");
}

#[test]
fn chat_show_memory_lists_the_facts_the_reply_drew_on() {
    let store = seeded_store("show-memory.db");
    let s = store.to_str().expect("utf8");
    let out = nocturne(&["chat", "--store", s, "--now", "1767139300", "--show-memory", "Where do I live?"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    // "I live in Ghent and teach chemistry at the university." is two facts, both carried.
    assert!(text.contains("memory used (2; 0 more stored, left out; free text):"), "{text}");
    assert!(text.contains("m_2     scratch  said 2025-12-31 turn 0: I teach chemistry at the university."), "{text}");
    // The cited fact is marked, with its block, the day it was said and its source turn.
    let cited = text.lines().find(|l| l.trim_start().starts_with("cited ")).expect("a cited line");
    assert!(
        cited.contains("scratch") && cited.contains("said 2025-12-31 turn 0") && cited.contains("I live in Ghent"),
        "{cited}"
    );
    // Without the flag only the citation follows the reply.
    let out = nocturne(&["chat", "--store", s, "--now", "1767139400", "Where do I live?"]);
    let text = stdout(&out);
    assert!(!text.contains("memory used") && text.lines().any(|l| l.trim() == "cited m_1"), "{text}");
}

#[test]
fn regression_a_first_turn_that_stores_no_fact_leaves_a_readable_store_file() {
    // A greeting as the very first turn wrote `nextItem: 0` beside no items, and the file
    // was then refused as if a fact m_0 existed: every later command failed on it.
    let store = temp("first-turn-no-fact.db");
    let _ = std::fs::remove_file(&store);
    let s = store.to_str().expect("utf8");
    let first = nocturne(&["chat", "--store", s, "--now", "1767139200", "Wow, that sounds amazing, I love it."]);
    assert!(first.status.success(), "{}", stderr(&first));
    let second = nocturne(&["chat", "--store", s, "--now", "1767139260", "I live in Ghent."]);
    assert!(second.status.success(), "the store file of a turn with no fact must stay readable: {}", stderr(&second));
    assert!(stdout(&second).contains("encoded m_1"), "{}", stdout(&second));
}

/// Issue 42: `nocturne versions | head` panicked ("failed printing to stdout: Broken
/// pipe"). A reader that goes away ends any command quietly, with the shell's code for it.
#[test]
fn regression_a_closed_stdout_ends_a_command_quietly_not_with_a_panic() {
    // Far more output than a pipe holds, so the command is still writing when its reader is gone.
    let names: Vec<String> = (0..18_000u32)
        .map(|i| format!("Q{}", (0..4).map(|k| char::from(b'a' + ((i / 26u32.pow(k)) % 26) as u8)).collect::<String>()))
        .collect();
    let text = format!("met {}", names.join(" "));
    let mut child = Command::new(env!("CARGO_BIN_EXE_nocturne"))
        .args(["proper-nouns", &text])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nocturne runs");
    let mut out = child.stdout.take().expect("stdout");
    let mut first = [0u8; 16];
    std::io::Read::read_exact(&mut out, &mut first).expect("the command starts printing");
    drop(out);
    let done = child.wait_with_output().expect("it ends");
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(!err.contains("panicked") && err.is_empty(), "{err}");
    assert_eq!(done.status.code(), Some(141), "{:?}", done.status);
}

#[test]
fn regression_a_correction_longer_than_a_fact_may_be_is_refused_and_the_file_stays_readable() {
    // The writer once stored a 24,021-character correction that the reader then refused:
    // every later command on the file failed.
    let store = temp("long-correction.db");
    let _ = std::fs::remove_file(&store);
    let s = store.to_str().expect("utf8");
    assert!(nocturne(&["chat", "--store", s, "I live in Ghent."]).status.success());
    let before = exported(&store);
    let long = "I live in Ghent and ".repeat(1_200);
    let out = nocturne(&["edit", "--store", s, "m_1", &long]);
    assert!(!out.status.success(), "{}", stdout(&out));
    let why = stderr(&out);
    assert!(why.contains("a fact holds at most 20000") && why.contains("nothing was written"), "{why}");
    assert_eq!(exported(&store), before, "the file changed");
    let search = nocturne(&["search", "--store", s, "Ghent"]);
    assert!(search.status.success() && stdout(&search).contains("I live in Ghent."), "{}", stderr(&search));
}

/// The store benchmark's short run: both backends measured on one memory, each finding the
/// same facts (the run fails when they differ), and the piped conversation on each.
#[test]
fn bench_store_measures_a_json_file_and_a_database_on_one_memory() {
    let dir = temp("bench-store");
    let out = nocturne(&["bench-store", "--facts", "1500", "--pipe-turns", "5", "--dir", dir.to_str().expect("utf8")]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    for backend in ["json", "database"] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("bench-store: facts=1500 backend={backend} ")))
            .unwrap_or_else(|| panic!("no {backend} line: {text}"));
        assert!(line.contains("searchHits=3"), "the three turns the benchmark said are found: {line}");
        let turn: f64 = figure(line, "bench-store:", "turnMs").parse().expect("turnMs");
        assert!(turn > 0.0, "{line}");
        assert!(text.contains(&format!("bench-store: pipe turns=5 backend={backend} seconds=")), "{text}");
    }
    assert!(text.contains("databaseFaster turn="), "{text}");
}

/// Issue 67, in the command line: "forget that I'm vegan" retires that fact as the user's
/// edit and prints the command that undoes it; "remind me to call the vet tomorrow" keeps a
/// commitment due tomorrow; an ambiguous command asks and changes nothing. The printed undo
/// is run and brings the fact back.
#[test]
fn memory_commands_in_chat_are_the_users_edits_shown_with_their_undo() {
    let store = temp("told.db");
    let _ = std::fs::remove_file(&store);
    let s = store.to_str().expect("utf8");
    let chat = |at: &str, said: &str| {
        let out = nocturne(&["chat", "--store", s, "--now", at, said]);
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    chat("1767225600", "I'm vegan. I have a cat called Miso. My sister has a cat called Tiger.");
    let forgot = chat("1767225660", "Please forget that I'm vegan.");
    assert!(forgot.contains("memory command “Please forget that I'm vegan.”: forgot m_1 “I'm vegan.”"), "{forgot}");
    let undo = forgot.lines().find_map(|l| l.trim().strip_prefix("undo: nocturne ")).expect(&forgot).to_string();
    // An active fact holding `word` (search lists the forgotten too, saying so).
    let found = |word: &str| stdout(&nocturne(&["search", "--store", s, word])).lines().any(|l| l.contains(" active,"));
    assert!(!found("vegan"), "forgotten");
    let args: Vec<&str> = undo.split(' ').collect();
    let out = nocturne(&args);
    assert!(out.status.success(), "{undo}: {}", stderr(&out));
    assert!(found("vegan"), "undone");
    let asked = chat("1767225720", "Forget about the cat.");
    assert!(asked.contains("2 facts match; which should I forget?") && !asked.contains("undo:"), "{asked}");
    let reminded = chat("1767225780", "Remind me to call the vet tomorrow.");
    assert!(reminded.contains("as a reminder, due 2026-01-02 (your edit)"), "{reminded}");
    assert!(reminded.contains("undo: nocturne forget --store"), "{reminded}");
    assert!(found("vegan") && found("Miso") && found("Tiger") && found("vet"), "nothing else changed");
}
