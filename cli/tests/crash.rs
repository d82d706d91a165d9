//! Crash safety of the database memory: a `nocturne` write killed (SIGKILL, no chance to
//! clean up) at points spread over its run — during a deep Sleep's passes and during an
//! import's batches — leaves the memory at its last committed version, whole and readable;
//! the same command run again finishes the work, losing and doubling nothing.

use nocturne_core::model::memory::{Item, Role};
use nocturne_core::store::document::Document;
use std::collections::{BTreeMap, HashSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const NOW: &str = "1767400000";

fn nocturne<S: AsRef<OsStr>>(args: &[S]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_nocturne")).args(args).output().expect("nocturne runs")
}

fn ok<S: AsRef<OsStr> + std::fmt::Debug>(args: &[S]) -> String {
    let out = nocturne(args);
    assert!(out.status.success(), "nocturne {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("nocturne-crash-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf8")
}

/// The memory as `nocturne export` reads it — which fails when the file is unreadable.
fn exported(store: &Path) -> Document {
    Document::parse(&ok(&["export", "--store", s(store)])).expect("the export is a memory")
}

/// Whether `doc` is a memory at one committed version: the document's own checks, then
/// what a half-written commit would break — the live rows are exactly the state the
/// change rows give at the head, the counts agree with them, a pass's before-version
/// never stands without its after-version, and the transcript has no gap.
fn whole(doc: &Document) -> Result<(), String> {
    doc.check()?;
    let seqs: Vec<u64> = doc.versions.iter().map(|v| v.seq).collect();
    if seqs != (1..=doc.meta.head).collect::<Vec<_>>() {
        return Err(format!("versions are not 1..=v{}: {seqs:?}", doc.meta.head));
    }
    let mut at_head: BTreeMap<&str, &Item> = BTreeMap::new();
    for c in doc.changes.iter().filter(|c| c.seq <= doc.meta.head) {
        at_head.insert(&c.item.item_id, &c.item);
    }
    let live: BTreeMap<&str, &Item> = doc.items.iter().map(|i| (i.item_id.as_str(), i)).collect();
    if at_head != live {
        let differ = live.keys().chain(at_head.keys()).find(|k| live.get(*k) != at_head.get(*k));
        return Err(format!("the live rows differ from the head's state (first at {differ:?})"));
    }
    let active = doc.items.iter().filter(|i| i.active).count();
    let last = doc.versions.last().map_or(0, |v| v.active_count);
    if doc.meta.active_count != active || (doc.meta.head > 0 && last != active) {
        return Err(format!("{active} facts are active, the meta says {}, the head {last}", doc.meta.active_count));
    }
    for (n, v) in doc.versions.iter().enumerate() {
        if let Some(pass) = v.label.strip_prefix("pass:").and_then(|l| l.strip_suffix(":before")) {
            let next = doc.versions.get(n + 1).map(|v| v.label.as_str());
            if next != Some(&format!("pass:{pass}:after")) {
                return Err(format!("{} stands without its after-version (next: {next:?})", v.label));
            }
        }
    }
    let indexes: Vec<u32> = doc.transcript.iter().map(|t| t.index).collect();
    if indexes != (0..doc.transcript.len() as u32).collect::<Vec<_>>() {
        return Err("the transcript has a gap".into());
    }
    if doc.meta.encoded_through as usize > doc.transcript.len() {
        return Err("the encoder's cursor is past the transcript".into());
    }
    Ok(())
}

/// Starts `args` and kills it with SIGKILL after `after`; whether it was still running.
fn kill_after<S: AsRef<OsStr>>(args: &[S], after: Duration) -> bool {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nocturne"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("nocturne runs");
    let deadline = Instant::now() + after;
    while Instant::now() < deadline {
        if child.try_wait().expect("wait").is_some() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    true
}

/// Kill points spread over the first 70% of a run of `full`: the fractions of a fixed
/// scramble (not a clock or a seed from outside, so a failure is reproduced by running the
/// test again). The margin keeps a kill inside a run that goes faster than the timed one,
/// as runs do when the machine's load drops.
fn points(full: Duration, n: usize) -> Vec<Duration> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let jitter = (x % 1000) as f64 / 1000.0;
            full.mul_f64(0.7 * (i as f64 + jitter) / n as f64)
        })
        .collect()
}

/// Runs `args` to the end on a copy of the memory, for how long it takes.
fn timed<S: AsRef<OsStr> + std::fmt::Debug>(args: &[S]) -> Duration {
    let t = Instant::now();
    ok(args);
    t.elapsed()
}

/// A database file and the journal files SQLite keeps beside it.
fn db_files(db: &Path) -> [String; 3] {
    ["", "-wal", "-shm"].map(|suffix| format!("{}{suffix}", db.display()))
}

fn copy_db(from: &Path, to: &Path) {
    // Close every reader first (export runs in its own process, so nothing is open here).
    remove_db(to);
    std::fs::copy(from, to).expect("copy");
    for (a, b) in db_files(from).into_iter().zip(db_files(to)).skip(1) {
        if Path::new(&a).exists() {
            std::fs::copy(&a, &b).expect("copy");
        }
    }
}

/// Removes a database and its journal files (a journal left beside a new file would be
/// read as its own).
fn remove_db(db: &Path) {
    for file in db_files(db) {
        let _ = std::fs::remove_file(file);
    }
}

#[test]
fn a_sleep_killed_at_any_point_leaves_the_last_committed_version_and_runs_again() {
    let d = dir("sleep");
    let (json, db, probe) = (d.join("m.json"), d.join("m.db"), d.join("probe.db"));
    ok(&["bench-recall", "--facts", "1500", "--export", s(&json)]);
    ok(&["move-store", "--store", s(&json), "--to", s(&db)]);
    // New facts, so the deep Sleep has work in every pass.
    for (n, msg) in ["I live in Porto now.", "I keep two cats.", "I keep two cats and a dog."].iter().enumerate() {
        ok(&["chat", "--store", s(&db), "--now", &(1767300000 + n as i64).to_string(), msg]);
    }
    copy_db(&db, &probe);
    let sleep = |store: &Path| ["sleep", "--deep", "--yes", "--store", s(store), "--now", NOW].map(String::from);
    let full = timed(&sleep(&probe));
    let before = exported(&db);
    // Each kill starts from the memory before the Sleep: a Sleep run again after a kill
    // keeps the passes it committed, so a chain of kills would leave the later ones
    // nothing to land in.
    let (base, last) = (d.join("base.db"), d.join("killed.db"));
    copy_db(&db, &base);
    let mut killed = 0;
    for at in points(full, 8) {
        copy_db(&base, &db);
        killed += usize::from(kill_after(&sleep(&db), at));
        let doc = exported(&db);
        if let Err(why) = whole(&doc) {
            panic!("killed {at:?} into a Sleep of {full:?}: {why}");
        }
        assert!(doc.meta.head >= before.meta.head, "a version was lost");
        if at < full / 2 {
            copy_db(&db, &last);
        }
    }
    assert!(killed >= 4, "only {killed} of 8 kills landed inside the Sleep (it takes {full:?})");
    ok(&sleep(&last));
    whole(&exported(&last)).expect("the Sleep run again leaves a whole memory");
}

#[test]
fn an_import_killed_at_any_point_keeps_whole_batches_and_resumes_without_doubling() {
    let d = dir("import");
    let (zip, db, probe) = (d.join("history.zip"), d.join("m.db"), d.join("probe.db"));
    let resumed = d.join("resumed.db");
    ok(&["sample-export", "synthetic", s(&zip), "--conversations", "200", "--turns", "3"]);
    let import =
        |store: &Path| ["import", s(&zip), "--sleep", "none", "--store", s(store), "--now", NOW].map(String::from);
    let full = timed(&import(&probe));
    let complete = exported(&probe);
    // Each kill starts from no memory at all: a resumed import skips the batches already
    // kept, so a chain of kills would leave the later ones nothing to land in. The
    // resumption is checked from a kill before the middle, killed once more on resuming.
    let mut killed = 0;
    for (n, at) in points(full, 8).into_iter().enumerate() {
        remove_db(&db);
        killed += usize::from(kill_after(&import(&db), at));
        if !db.exists() {
            continue; // killed before its first batch: nothing to check yet
        }
        let doc = exported(&db);
        if let Err(why) = whole(&doc) {
            panic!("killed {at:?} into an import of {full:?}: {why}");
        }
        if n < 4 {
            copy_db(&db, &resumed);
        }
    }
    assert!(killed >= 4, "only {killed} of 8 kills landed inside the import (it takes {full:?})");
    assert!(resumed.exists(), "no kill before the middle left a memory to resume");
    kill_after(&import(&resumed), full / 4);
    whole(&exported(&resumed)).expect("an import killed while resuming leaves a whole memory");
    ok(&import(&resumed));
    let done = exported(&resumed);
    whole(&done).expect("the resumed import leaves a whole memory");
    let said = |doc: &Document| -> Vec<String> {
        doc.transcript.iter().filter(|t| t.role == Role::User).map(|t| t.text.clone()).collect()
    };
    let (got, want) = (said(&done), said(&complete));
    let unique: HashSet<&String> = got.iter().collect();
    assert_eq!(unique.len(), got.len(), "a message was imported twice");
    assert_eq!(got.len(), want.len(), "the resumed import lost messages");
    assert_eq!(done.items.len(), complete.items.len(), "the resumed import stored a different number of facts");
}

/// The check above fails on what a torn commit leaves: a version whose rows are missing,
/// a pass's before-version alone, a live row ahead of its change rows.
#[test]
fn the_whole_memory_check_catches_a_half_written_commit() {
    let d = dir("torn");
    let db = d.join("m.db");
    for msg in ["I live in Ghent.", "I keep bees.", "I live in Porto now."] {
        ok(&["chat", "--store", s(&db), "--now", NOW, msg]);
    }
    ok(&["sleep", "--store", s(&db), "--deep", "--now", "1767500000"]);
    let doc = exported(&db);
    whole(&doc).expect("an untouched memory is whole");

    let mut lost_rows = doc.clone();
    let last = lost_rows.changes.pop().expect("a change row");
    lost_rows.items.retain(|i| i.item_id != last.item.item_id);
    assert!(whole(&lost_rows).is_err(), "a live row without its change rows passed");

    let mut live_ahead = doc.clone();
    live_ahead.items[0].text.push_str(" (written after the commit)");
    assert!(whole(&live_ahead).is_err(), "a live row ahead of the head passed");

    let mut alone = doc.clone();
    let at = alone.versions.iter().position(|v| v.label.ends_with(":after") && v.label.starts_with("pass:"));
    let at = at.expect("a pass after-version");
    alone.versions[at].label = "turn:99".into();
    assert!(whole(&alone).is_err(), "a pass's before-version without its after passed");

    let mut counts = doc;
    counts.meta.active_count += 1;
    assert!(whole(&counts).is_err(), "a wrong active count passed");
}
