//! `nocturne bench-incremental` and `nocturne bench-recall`: what a day costs a memory
//! that has lived for years, and whether the saving loses a fact. Figures are printed,
//! one `key=value` line each, never asserted on time (machines are noisy); the recall
//! targets are checked by the caller (`--check`).

use crate::error::CliError;
use nocturne_core::flow::report::SleepReport;
use nocturne_core::flow::sleep::{self, SleepOptions};
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::model::memory::Mutation;
use nocturne_core::model::DAY;
use nocturne_core::store::{Commit, MemStore, Store};
use nocturne_core::testkit::{lifetime, synth};
use nocturne_core::text::order;
use std::collections::{BTreeSet, HashSet};

/// The clock of the lifetime memory; the new day is said one day later.
const NOW: i64 = 1_767_225_600;

fn block<T>(f: impl std::future::Future<Output = T>) -> T {
    pollster::block_on(f)
}

/// A lifetime memory of `facts`, slept deeply until a Sleep changes nothing (at most
/// six times), as a memory that has slept every night would be.
fn slept_memory(facts: usize) -> Result<(MemStore, usize), CliError> {
    let store = MemStore::new();
    let items = lifetime::memory(facts, NOW, 21);
    block(store.commit(Commit { at: NOW, label: Some("bench:seed".into()), items, ..Default::default() }))
        .map_err(|e| e.to_string())?;
    block(store.set_policy(synth::bench_policy(facts))).map_err(|e| e.to_string())?;
    let mut rounds = 0;
    while rounds < 6 {
        rounds += 1;
        let report = run(&store, SleepOptions::new(NOW).deep())?;
        if report.total(|e| e.accepted) == 0 {
            break;
        }
    }
    Ok((store, rounds))
}

fn run(store: &MemStore, options: SleepOptions) -> Result<SleepReport, CliError> {
    Ok(block(sleep::sleep(store, &OfflineProvider, &options, &mut |_| {}))?)
}

/// Stores `facts` as new facts said at `at`, as version `label`.
fn say(store: &MemStore, at: i64, label: &str, facts: Vec<nocturne_core::model::memory::Item>) -> Result<(), CliError> {
    block(store.commit(Commit { at, label: Some(label.into()), created: facts, ..Default::default() }))?;
    Ok(())
}

/// Adds a day of `new` facts said at `now`; returns their ids and the day's make-up.
fn add_day(store: &MemStore, new: usize, now: i64) -> Result<(HashSet<String>, lifetime::Day), CliError> {
    let items = block(store.items()).map_err(|e| e.to_string())?;
    let next = block(store.meta()).map_err(|e| e.to_string())?.next_item;
    let day = lifetime::day(&items, new, now, next, 22);
    let ids = day.facts.iter().map(|i| i.item_id.clone()).collect();
    say(store, now, "bench:day", day.facts.clone())?;
    Ok((ids, day))
}

/// An accepted edit, by what it did rather than who proposed it (a stale fact the
/// model saw in a deep Sleep is forgotten by the staleness rule in an incremental one).
fn edit(m: &Mutation) -> String {
    let r = &m.refs;
    format!(
        "{} {} dup={:?} from={:?} text={:?} by={:?} to={:?}",
        m.pass.name(),
        m.item_id,
        r.duplicate_of,
        r.from_ids,
        r.merged_text,
        r.superseded_by,
        r.to_block
    )
}

fn edits(report: &SleepReport) -> BTreeSet<String> {
    report.passes.iter().flat_map(|p| &p.mutations).filter(|m| m.accepted).map(edit).collect()
}

/// Whether an accepted edit names one of `ids`.
fn touches(m: &Mutation, ids: &HashSet<String>) -> bool {
    let r = &m.refs;
    ids.contains(&m.item_id)
        || r.duplicate_of.as_ref().is_some_and(|d| ids.contains(d))
        || r.superseded_by.as_ref().is_some_and(|d| ids.contains(d))
        || r.from_ids.iter().any(|d| ids.contains(d))
}

pub fn incremental(facts: usize, new: usize) -> Result<(), CliError> {
    let (store, rounds) = slept_memory(facts)?;
    let day_at = NOW + DAY;
    let (fresh, day) = add_day(&store, new, day_at)?;
    let deep_copy = store.fork();
    let inc = run(&store, SleepOptions::new(day_at))?;
    let deep = run(&deep_copy, SleepOptions::new(day_at).deep())?;
    let after = run(&store.fork(), SleepOptions::new(day_at).deep())?;
    // What a deep Sleep right after would still do, the next incremental Sleep does.
    let next = run(&store, SleepOptions::new(day_at + 3600))?;
    let left = run(&store, SleepOptions::new(day_at + 7200).deep())?;
    let (inc_edits, deep_edits) = (edits(&inc), edits(&deep));
    let more: Vec<&Mutation> =
        after.passes.iter().flat_map(|p| &p.mutations).filter(|m| m.accepted && touches(m, &fresh)).collect();
    let same = !inc_edits.is_empty() && inc_edits == deep_edits && more.is_empty();
    for m in more.iter().take(5) {
        println!("missed by the incremental Sleep: {}", edit(m));
    }
    for e in inc_edits.symmetric_difference(&deep_edits).take(5) {
        println!("differs: {e} (incremental: {})", inc_edits.contains(e));
    }
    let by_pass = |r: &SleepReport| {
        r.passes.iter().map(|p| format!("{}={}", p.event.pass.name(), p.calls)).collect::<Vec<_>>().join(",")
    };
    println!(
        "day: settleSleeps={rounds} duplicates={} contradictions={} partners={} fresh={} edits={} newEdits={} deepEdits={} afterEdits={} nextEdits={} leftAfterNext={} callsByPass={} fullCallsByPass={}",
        day.duplicates,
        day.contradictions,
        day.partners,
        inc.fresh.unwrap_or(0),
        inc_edits.len(),
        inc.passes.iter().flat_map(|p| &p.mutations).filter(|m| m.accepted && touches(m, &fresh)).count(),
        deep_edits.len(),
        more.len(),
        edits(&next).len(),
        left.passes.iter().flat_map(|p| &p.mutations).filter(|m| m.accepted && touches(m, &fresh)).count(),
        by_pass(&inc),
        by_pass(&deep)
    );
    println!(
        "incremental: facts={facts} new={new} calls={} fullCalls={} promptTokens={} fullPromptTokens={} sameResult={same}",
        inc.calls(),
        deep.calls(),
        inc.prompt_tokens(),
        deep.prompt_tokens()
    );
    after_deep(facts, new)
}

/// The day after a deep Sleep that moved most of the memory (a history just imported, all
/// of it in scratch, slept once): the incremental Sleep asks about the new facts and their
/// partners, not about the facts that deep Sleep promoted — they met in scratch, and meet
/// only their new block's older facts again. `missed`: edits touching a new fact that a
/// deep Sleep right after still makes.
fn after_deep(facts: usize, new: usize) -> Result<(), CliError> {
    let store = MemStore::new();
    let mut items = lifetime::memory(facts, NOW, 21);
    for item in &mut items {
        item.block = nocturne_core::model::memory::Block::Scratch;
    }
    block(store.commit(Commit { at: NOW, label: Some("bench:import".into()), items, ..Default::default() }))
        .map_err(|e| e.to_string())?;
    block(store.set_policy(synth::bench_policy(facts))).map_err(|e| e.to_string())?;
    let deep = run(&store, SleepOptions::new(NOW).deep())?;
    let moved =
        deep.passes.iter().flat_map(|p| &p.mutations).filter(|m| m.accepted && m.refs.to_block.is_some()).count();
    let day_at = NOW + DAY;
    let (fresh, _) = add_day(&store, new, day_at)?;
    let inc = run(&store, SleepOptions::new(day_at))?;
    let next = run(&store, SleepOptions::new(day_at + 3600))?;
    let after = run(&store, SleepOptions::new(day_at + 7200).deep())?;
    let touching = |r: &SleepReport| {
        r.passes.iter().flat_map(|p| &p.mutations).filter(|m| m.accepted && touches(m, &fresh)).count()
    };
    println!(
        "afterDeep: facts={facts} moved={moved} new={new} fresh={} calls={} deepCalls={} promptTokens={} deepPromptTokens={} newEdits={} nextFresh={} nextCalls={} nextEdits={} missed={}",
        inc.fresh.unwrap_or(0),
        inc.calls(),
        deep.calls(),
        inc.prompt_tokens(),
        deep.prompt_tokens(),
        touching(&inc),
        next.fresh.unwrap_or(0),
        next.calls(),
        touching(&next),
        touching(&after),
    );
    Ok(())
}

/// A user turn saying each fact and the assistant's acknowledgement, already encoded.
pub(crate) fn transcript(
    items: &[nocturne_core::model::memory::Item],
) -> (Vec<nocturne_core::model::memory::Turn>, Option<u32>) {
    lifetime::transcript(items)
}

/// The prompt budget the recall benchmark measures (the default for every provider).
const BUDGET: u64 = nocturne_core::llm::provider::DEFAULT_MEMORY_TOKENS;

pub fn recall(facts: usize, export: Option<&std::path::Path>) -> Result<(), CliError> {
    use nocturne_core::llm::context::PromptIndex;
    use nocturne_core::llm::prompt;
    use nocturne_core::model::memory::Block;
    use nocturne_core::testkit::lifetime::ProbeKind;
    use std::time::Instant;
    let store = MemStore::new();
    let per_block = 25;
    let planted = lifetime::plant(per_block, facts as u64 + 1, NOW);
    let mut items = lifetime::memory(facts, NOW, 31);
    items.extend(planted.facts.clone());
    // An exported memory also carries the conversation its facts came from (two turns a
    // fact, all encoded), as a memory that has lived for years does.
    let (turns, encoded_through) = if export.is_some() { transcript(&items) } else { (Vec::new(), None) };
    let seed =
        Commit { at: NOW, label: Some("bench:seed".into()), items, turns, encoded_through, ..Default::default() };
    block(store.commit(seed)).map_err(|e| e.to_string())?;
    block(store.set_policy(synth::bench_policy(facts))).map_err(|e| e.to_string())?;
    run(&store, SleepOptions::new(NOW).deep())?;
    // A day later the updates are said; the memory sleeps twice (the second settles what
    // the first promoted into the block of the fact it changes).
    let day_at = NOW + DAY;
    say(&store, day_at, "bench:updates", planted.updates.clone())?;
    run(&store, SleepOptions::new(day_at))?;
    run(&store, SleepOptions::new(day_at))?;
    if let Some(path) = export {
        std::fs::write(path, store.document().to_json())
            .map_err(|e| format!("could not write {}: {e}", path.display()))?;
    }
    let all = block(store.items()).map_err(|e| e.to_string())?;
    let policy = block(store.meta()).map_err(|e| e.to_string())?.policy;
    let mut active: Vec<&nocturne_core::model::memory::Item> = all.iter().filter(|i| i.active).collect();
    order::sort_by_key(&mut active, |i| (i.block, i.ordinal()));
    let t = Instant::now();
    let index = PromptIndex::new(&active, &policy, day_at);
    let build_ms = t.elapsed().as_secs_f64() * 1000.0;
    let human_tokens: u64 = active
        .iter()
        .filter(|i| i.block == Block::Human)
        .map(|i| nocturne_core::llm::provider::estimate_tokens(&nocturne_core::llm::context::line(i, Some(day_at))))
        .sum();
    let mut found: std::collections::BTreeMap<Block, (usize, usize)> = Default::default();
    let (mut updates, mut update_n, mut abstained, mut absent_n, mut max_tokens) = (0, 0, 0, 0, 0);
    let (mut temporal, mut temporal_n) = (0, 0);
    let mut times = Vec::new();
    for probe in &planted.probes {
        let t = Instant::now();
        let request = nocturne_core::llm::answer::chat_request_indexed(&index, &[], &probe.question, BUDGET);
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        max_tokens = max_tokens.max(prompt::prompt_tokens(&request));
        let system = &request.messages[0].content;
        let holds = |word: &str| {
            prompt::memory_lines(system)
                .iter()
                .any(|(_, text)| text.split(|c: char| !c.is_alphanumeric()).any(|w| w == word))
        };
        match probe.kind {
            ProbeKind::Temporal => {
                // The exact date must come back in the answer (the offline provider reads
                // it from the dated memory line).
                temporal_n += 1;
                if nocturne_core::llm::offline::respond(&request).contains(&probe.value) {
                    temporal += 1;
                }
            }
            ProbeKind::Absent => {
                absent_n += 1;
                let reply = nocturne_core::llm::offline::respond(&request);
                if reply == prompt::NOT_IN_MEMORY {
                    abstained += 1;
                }
            }
            ProbeKind::Single | ProbeKind::Update => {
                let entry = found.entry(probe.block).or_default();
                entry.1 += 1;
                if holds(&probe.value) {
                    entry.0 += 1;
                }
                if let Some(old) = &probe.old_value {
                    update_n += 1;
                    if holds(&probe.value) && !holds(old) {
                        updates += 1;
                    }
                }
            }
        }
    }
    order::sort_by(&mut times, f64::total_cmp);
    let p50 = times.get(times.len() / 2).copied().unwrap_or(0.0);
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let (hit, all_n) = found.values().fold((0, 0), |(a, b), (x, y)| (a + x, b + y));
    let per_block: Vec<String> =
        found.iter().map(|(b, (x, y))| format!("found.{}={:.3}", b.as_str(), ratio(*x, *y))).collect();
    println!(
        "recall detail: active={} humanBlockTokens={human_tokens} indexBuildMs={build_ms:.1} {}",
        active.len(),
        per_block.join(" ")
    );
    println!(
        "recall: facts={facts} questions={} found={:.3} updates={:.3} abstained={:.3} temporal={:.3} maxPromptTokens={max_tokens} budget={BUDGET} p50Ms={p50:.3}",
        planted.probes.len(),
        ratio(hit, all_n),
        ratio(updates, update_n),
        ratio(abstained, absent_n),
        ratio(temporal, temporal_n)
    );
    Ok(())
}
