//! The checks: the gate case files, the verifier, the Wake quiz and the models compared.

use crate::args::{ProviderArgs, ProviderKind, StoreArgs};
use crate::error::CliError;
use crate::provider::{remote, AnyProvider};
use crate::store::Memory;
use nocturne_core::gate::case;
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::llm::provider::{Provider, StyleSetting};
use nocturne_core::proof::{compare, quiz, verify};
use nocturne_core::store::MemStore;
use nocturne_core::testkit::corpora::Half;
use std::path::PathBuf;
use std::process::ExitCode;

/// `nocturne quiz`: the Wake quiz on the store.
pub(crate) fn quiz(store: &StoreArgs, provider: &ProviderArgs) -> Result<(), CliError> {
    let memory = Memory::open_existing(&store.store)?;
    let report = pollster::block_on(quiz::wake(&memory, &provider.build()?, store.now()))?;
    print_quiz(&report);
    Ok(())
}

/// `nocturne verify`: the verifier with the provider given; a skill check only for the
/// offline rules.
pub(crate) fn verify_command(provider: &ProviderArgs, now: Option<i64>) -> Result<ExitCode, CliError> {
    let p = provider.build()?;
    let require_skill = provider.provider == ProviderKind::Offline;
    let code = verify(now.unwrap_or_else(crate::wall_clock), &p, require_skill);
    if let AnyProvider::Remote(r) = &p {
        println!("json mode used: {}", r.mode().label());
        println!("proposal style used: {}", r.style().label());
    }
    Ok(code)
}

/// `nocturne bench-gates`: the meaning corpus through the gates, then the held-out
/// supersede pairs by half and shape (the tuning and dev halves' misses printed, the test
/// half's only counted); fails when the meaning corpus misses a target or the supersede pairs fall
/// below their floor (their per-shape targets, not yet met, are printed).
pub(crate) fn bench_gates() -> Result<ExitCode, CliError> {
    let corpus = nocturne_core::testkit::meaning::corpus();
    let score = nocturne_core::testkit::meaning::score(&corpus)?;
    println!("{}", score.line());
    for miss in &score.misses {
        println!("  miss: {miss}");
    }
    let pairs = nocturne_core::testkit::supersede::score()?;
    for line in pairs.lines() {
        println!("{line}");
    }
    for (half, miss) in pairs.misses.iter().filter(|(h, _)| *h != Half::Test) {
        println!("  miss ({}): {miss}", half.name());
    }
    let off = pairs.off_target();
    if !off.is_empty() {
        println!("supersede short of its per-shape targets on the test half (not yet met): {}", off.join("; "));
    }
    let below = pairs.below_floor();
    if !below.is_empty() {
        println!("supersede fell below its floor on the test half: {}", below.join("; "));
    }
    Ok(if score.meets_targets() && below.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn print_quiz(report: &quiz::QuizReport) {
    let mark = |ok: bool| if ok { "OK" } else { "MISS" };
    for q in &report.questions {
        println!(
            "[words {} · citation {}] {} -> {} (score {:.2}, cited {}, attempts {})",
            mark(q.correct),
            mark(q.cited_correct),
            q.question,
            q.answer,
            q.score,
            if q.cited.is_empty() { "nothing".to_string() } else { q.cited.join(", ") },
            q.attempts
        );
    }
    println!(
        "recall: {}/{} by words, {}/{} by citations; {} citation(s) outside their prompt refused",
        report.correct(),
        report.questions.len(),
        report.cited_correct(),
        report.questions.len(),
        report.refused_citations()
    );
    if let Some(p) = &report.probe {
        println!(
            "forgotten probe [words {} · citation {}]: {} -> {} absentFromStore={} saidAbsent={} leaked={} cited={}",
            if p.passed { "OK" } else { "FAIL" },
            if p.passed_by_citation { "OK" } else { "FAIL" },
            p.question,
            p.answer,
            p.absent_from_store,
            p.said_absent,
            p.leaked_forgotten_content,
            if p.cited.is_empty() { "nothing".to_string() } else { p.cited.join(", ") }
        );
    }
}

pub(crate) fn bench_models(providers: &[String], timeout: u64, now: Option<i64>) -> Result<(), CliError> {
    let now = now.unwrap_or_else(crate::wall_clock);
    let clock =
        || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64() * 1000.0);
    let mut rows = vec![pollster::block_on(compare::run(OfflineProvider, now, &clock))];
    for spec in providers.iter().filter(|p| p.as_str() != "offline") {
        let parts: Vec<&str> = spec.split(',').collect();
        let (url, model) = match parts.as_slice() {
            [url, model, ..] => (*url, *model),
            _ => return Err(format!("--provider '{spec}': give offline, or BASE_URL,MODEL[,API_KEY_ENV]").into()),
        };
        eprintln!("bench-models: running {model} @ {url} …");
        let provider = remote(timeout, url, model, parts.get(2).copied(), StyleSetting::Auto)?;
        rows.push(pollster::block_on(compare::run(provider, now, &clock)));
    }
    print!("{}", compare::table(&rows));
    Ok(())
}

/// `nocturne verify`: every check, one line each, then `N/N checks`. With a real model the
/// model-dependent figures are reported, not required.
fn verify<P: Provider>(now: i64, provider: &P, require_skill: bool) -> ExitCode {
    let store = MemStore::new();
    let options = verify::VerifyOptions { now, require_skill, cases: case::bundled() };
    println!("verify with {}", provider.label());
    let report = pollster::block_on(verify::verify(&store, provider, &options, &mut |c| println!("{}", c.line())));
    println!("{}", report.summary(require_skill));
    if report.ok(require_skill) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `nocturne gate FILE…`: one JSON line per file; exit 2 on a malformed file, 1 when a
/// verdict disagrees with the file's `expect`.
pub(crate) fn gate(files: &[PathBuf]) -> ExitCode {
    let (mut malformed, mut disagree) = (false, false);
    for file in files {
        let file = file.display();
        let judged = std::fs::read_to_string(file.to_string())
            .map_err(|e| format!("cannot read it: {e}"))
            .and_then(|text| case::parse(&text).and_then(|c| c.judge()).map_err(|e| e.to_string()));
        match judged {
            Ok(result) => {
                println!("{}", serde_json::to_string(&result).unwrap_or_default());
                for d in &result.disagreements {
                    eprintln!("nocturne: {file}: {d}");
                    disagree = true;
                }
            }
            Err(e) => {
                eprintln!("nocturne: {file}: {e}");
                malformed = true;
            }
        }
    }
    if malformed {
        ExitCode::from(2)
    } else if disagree {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
