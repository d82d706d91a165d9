//! `nocturne bench-candidates`: the engine's candidate search on memories built to break
//! it (every fact from a handful of words; one slot said over and over; one person in
//! every fact), at 10,000 and 100,000 facts — time, index entries examined, pairs found,
//! pairs the per-fact bounds left — and an incremental Sleep of a day of 100 new facts on
//! each 10,000-fact memory against a model that proposes nothing (a stub endpoint), so
//! the time is the engine's own. Printed, never asserted on time.

use crate::error::CliError;
use nocturne_core::flow::pair_search::{self, Bounds, Work};
use nocturne_core::flow::sleep::{self, SleepOptions};
use nocturne_core::model::memory::Item;
use nocturne_core::model::DAY;
use nocturne_core::store::{Commit, MemStore, Store};
use nocturne_core::testkit::adversarial::{self, Shape, Silent};
use nocturne_core::testkit::synth;
use std::collections::HashSet;
use std::time::Instant;

const NOW: i64 = 1_767_225_600;

fn line(shape: Shape, facts: usize, search: &str, secs: f64, work: Work) -> String {
    format!(
        "candidates: shape={} facts={facts} search={search} seconds={secs:.3} examined={} found={} left={}",
        shape.name(),
        work.examined,
        work.found,
        work.left
    )
}

/// Every candidate search of a deep Sleep over `items`, timed.
fn searches(shape: Shape, items: &[Item]) {
    let active: Vec<&Item> = items.iter().collect();
    let policy = synth::bench_policy(items.len());
    let bounds = Bounds::default();
    let t = Instant::now();
    let (_, work) = pair_search::duplicates(&active, policy.similarity_threshold, &bounds);
    println!("{}", line(shape, items.len(), "duplicates", t.elapsed().as_secs_f64(), work));
    let t = Instant::now();
    let (_, work) = pair_search::conflicts(&active, &policy, &[], None, &bounds);
    println!("{}", line(shape, items.len(), "conflicts", t.elapsed().as_secs_f64(), work));
    let t = Instant::now();
    let (_, work) = pair_search::merges(&active, &policy, None, &bounds);
    println!("{}", line(shape, items.len(), "merges", t.elapsed().as_secs_f64(), work));
}

fn block<T>(f: impl std::future::Future<Output = T>) -> T {
    pollster::block_on(f)
}

/// A memory of `facts` slept once (deep, against the silent model), then a day of `new`
/// facts and an incremental dry-run Sleep of it: what `sleep --dry-run` does that day.
fn day_after(shape: Shape, facts: usize, new: usize) -> Result<(), CliError> {
    let store = MemStore::new();
    let items = adversarial::facts(shape, facts, 1, NOW, 5);
    block(store.commit(Commit { at: NOW, label: Some("bench:seed".into()), items, ..Default::default() }))
        .map_err(|e| e.to_string())?;
    block(store.set_policy(synth::bench_policy(facts + new))).map_err(|e| e.to_string())?;
    let t = Instant::now();
    block(sleep::sleep(&store, &Silent, &SleepOptions::new(NOW).deep(), &mut |_| {})).map_err(|e| e.to_string())?;
    let deep = t.elapsed().as_secs_f64();
    let next = block(store.meta()).map_err(|e| e.to_string())?.next_item as usize;
    let day = adversarial::facts(shape, new, next, NOW + DAY, 6);
    let ids: HashSet<String> = day.iter().map(|i| i.item_id.clone()).collect();
    block(store.commit(Commit { at: NOW + DAY, label: Some("bench:day".into()), created: day, ..Default::default() }))
        .map_err(|e| e.to_string())?;
    let t = Instant::now();
    let report = block(sleep::sleep(&store, &Silent, &SleepOptions::new(NOW + DAY).dry(), &mut |_| {}))
        .map_err(|e| e.to_string())?;
    let secs = t.elapsed().as_secs_f64();
    let mut work = Work::default();
    for p in &report.passes {
        work.add(p.search);
    }
    println!(
        "incremental: shape={} facts={facts} new={} fresh={} seconds={secs:.3} deepSleepSeconds={deep:.3} calls={} examined={} left={}",
        shape.name(),
        ids.len(),
        report.fresh.unwrap_or(0),
        report.calls(),
        work.examined,
        work.left
    );
    Ok(())
}

pub fn run(max: usize, new: usize) -> Result<(), CliError> {
    for shape in Shape::ALL {
        for facts in [10_000, 100_000].into_iter().filter(|n| *n <= max) {
            searches(shape, &adversarial::facts(shape, facts, 1, NOW, 5));
        }
    }
    for shape in Shape::ALL {
        day_after(shape, max.min(10_000), new)?;
    }
    Ok(())
}
