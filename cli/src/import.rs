//! `nocturne import FILE`: a ChatGPT or Claude export (the `.zip` as downloaded or its
//! `conversations.json`), a JSON Lines log or a LoCoMo file into a store file, through the
//! core's one import path, through the one write path (`write::perform`). The file is saved
//! after every piece of the plan (whole days, under the store's lock), so Ctrl-C keeps what
//! was imported and the same command resumes.

use crate::error::CliError;
use crate::store::Memory;
use nocturne_core::flow::import::{Report, TranscriptCache};
use nocturne_core::flow::import_plan;
use nocturne_core::flow::import_plan::{ImportOptions, Plan, SleepAfter};
use nocturne_core::history::{self as readers, Format, History};
use nocturne_core::llm::provider::Provider;
use nocturne_core::store::Store;
use nocturne_core::write::{Done, Import, ImportSleep, Imported, Watch, WriteError};
use std::collections::HashSet;
use std::path::Path;
use std::time::Instant;

/// What `nocturne import` was asked.
pub struct Request<'a> {
    pub file: &'a Path,
    pub store: &'a Path,
    pub format: Option<Format>,
    pub dry_run: bool,
    pub sleep: SleepAfter,
    /// Let the Sleep at the end retire more than a quarter of the memory.
    pub yes: bool,
    pub now: i64,
    /// Seconds one encoder call is expected to take and prompt tokens read per second,
    /// for the estimate.
    pub pace: (f64, f64),
}

/// Reads, estimates and (unless a dry run) imports; prints what it does.
pub fn run<P: Provider>(request: Request<'_>, provider: &P) -> Result<Option<Report>, CliError> {
    let started = Instant::now();
    let bytes = std::fs::read(request.file).map_err(|e| format!("cannot read {}: {e}", request.file.display()))?;
    let name =
        request.file.file_name().map_or_else(|| request.file.display().to_string(), |n| n.to_string_lossy().into());
    let history = readers::read(&name, &bytes, request.format, request.now).map_err(|e| e.to_string())?;
    drop(bytes);
    print_read(&history);
    let memory = Memory::open(request.store)?;
    let known: HashSet<String> = pollster::block_on(memory.transcript())
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter_map(|t| t.source)
        .collect();
    let options = ImportOptions {
        sleep: request.sleep,
        retire_a_lot: request.yes,
        file: Some(name.clone()),
        ..Default::default()
    };
    let plan = import_plan::plan(&history, &known, &options);
    drop(history);
    let estimate = import_plan::estimate(&plan, provider.proposal_style(), &options);
    println!("{} expectedS={:.0}", estimate.line(), estimate.seconds(request.pace.0, request.pace.1));
    if request.dry_run {
        println!("dry run: nothing was written");
        return Ok(None);
    }
    if plan.messages.is_empty() {
        println!("nothing new to import: every message is already in {}", request.store.display());
        return Ok(Some(Report {
            duplicates: plan.duplicates,
            conversations: plan.conversations,
            ..Default::default()
        }));
    }
    let report = import_pieces(request.store, &memory, provider, &plan, &options, request.now)?;
    print_report(&report);
    let peak = peak_mib().map_or(String::new(), |m| format!(" peakMiB={m:.0}"));
    println!("import-cost: seconds={:.1}{peak} (reading, planning and importing)", started.elapsed().as_secs_f64());
    Ok(Some(report))
}

/// Imports `plan` a piece at a time through the one write path, saving the file after
/// each (and recording each day for the next sync when the store syncs).
fn import_pieces<P: Provider>(
    path: &Path,
    memory: &Memory,
    provider: &P,
    plan: &Plan,
    options: &ImportOptions,
    now: i64,
) -> Result<Report, CliError> {
    let started = Instant::now();
    let total = plan.batches.len();
    let mut done = 0;
    let mut report = Report::default();
    let mut seen = TranscriptCache::default();
    crate::progress("before the first batch; nothing was written");
    for piece in plan.pieces(PIECE_BATCHES) {
        let batches = piece.batches.len();
        let import = Import { piece, options: options.clone(), at: now, seen: std::mem::take(&mut seen) };
        let outcome = piece_of(path, memory, provider, import)
            .map_err(|e| format!("{e}; the store holds what was imported before"))?;
        seen = outcome.done.seen;
        report.absorb(outcome.done.report);
        done += batches;
        let line = format!(
            "imported {done}/{total} batches: {} turns, {} facts ({:.1} s)",
            report.user_turns + report.assistant_turns,
            report.facts,
            started.elapsed().as_secs_f64()
        );
        eprintln!("{line}");
        crate::progress(format!("after {line}; import again to resume"));
        if let Some(recorded) = outcome.recorded {
            eprintln!("recorded for the next sync: {recorded}");
        }
    }
    if options.sleep == SleepAfter::End && report.user_turns > 0 {
        eprintln!("sleeping (one deep Sleep over the imported memory)");
        let sleep = ImportSleep { options: options.clone(), at: now, report };
        report = crate::write::perform(path, memory, sleep, provider, &mut Watch::quiet())
            .map_err(|e| format!("the import is saved, but its Sleep failed: {e}"))?
            .done;
    }
    Ok(report)
}

/// One piece through the one write path: a database commits each batch as it goes; a JSON
/// file is rewritten once for the piece, under its lock.
fn piece_of<P: Provider>(
    path: &Path,
    memory: &Memory,
    provider: &P,
    import: Import,
) -> Result<Done<Imported>, WriteError> {
    match memory {
        Memory::Db(db) => crate::write::perform_on_blocking(path, db, import, provider),
        Memory::File(file) => pollster::block_on(file.write(|mem| async move {
            Ok(crate::write::perform_on(path, &*mem, import, provider, &mut Watch::quiet()).await)
        }))?,
    }
}

/// Batches written between two saves of the file.
const PIECE_BATCHES: usize = 400;

fn print_read(h: &History) {
    let messages: usize = h.conversations.iter().map(|c| c.messages.len()).sum();
    println!(
        "read: format={} conversations={} userMessages={} assistantMessages={} skippedHidden={} skippedNotATurn={} skippedOtherBranches={} skippedEmpty={} skippedFuture={}",
        h.format,
        h.conversations.len(),
        h.user_messages(),
        messages - h.user_messages(),
        h.skipped.hidden,
        h.skipped.not_a_turn,
        h.skipped.other_branches,
        h.skipped.empty,
        h.skipped.future
    );
}

fn print_report(r: &Report) {
    println!("{}", r.line());
    for (why, n) in r.refusals.iter().take(5) {
        println!("refused {n}×: {why}");
    }
    if let Some(why) = &r.unencoded_why {
        println!(
            "note: {} user turns were stored but not encoded: the encoder's reply was unusable ({why})",
            r.unencoded
        );
    }
    if r.too_long > 0 {
        println!(
            "note: {} user messages were stored as turns but not encoded: longer than 2,000 characters",
            r.too_long
        );
    }
    if let Some(why) = &r.held {
        println!("note: {why} (`nocturne sleep --yes`)");
    }
    for e in &r.sleep_errors {
        println!("note: a Sleep failed and the import went on: {e}");
    }
}

/// Writes a scripted export (see `nocturne sample-export`).
pub fn sample(kind: &str, out: &Path, conversations: usize, turns: usize) -> Result<(), CliError> {
    use nocturne_core::testkit::exports;
    let json = match kind {
        "chatgpt" => serde_json::to_vec(&exports::chatgpt_conversations()),
        "claude" => serde_json::to_vec(&exports::claude_conversations()),
        "synthetic" => Ok(exports::synthetic_chatgpt(conversations, turns)),
        other => return Err(format!("the sample is chatgpt, claude or synthetic, got {other:?}").into()),
    }
    .map_err(|e| e.to_string())?;
    let bytes = if out.extension().is_some_and(|e| e == "zip") {
        exports::zip(&[("chat.html", b"<html></html>".as_slice()), ("conversations.json", &json)])
    } else {
        json
    };
    std::fs::write(out, &bytes).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    println!("sample-export: kind={kind} bytes={} file={}", bytes.len(), out.display());
    Ok(())
}

/// The process's peak resident memory in MiB (Linux: `VmHWM` in /proc/self/status).
fn peak_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 =
        status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb / 1024.0)
}
