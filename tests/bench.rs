//! Browser benchmark: the offline Sleep over synthetic facts in IndexedDB, printing its time
//! and rows written (bounded by what it changed, logged and versioned), and chat-memory
//! selection. 10,000 facts by default (`scripts/bench.sh`, release); the test command runs it
//! at 2,000 (`NOCTURNE_BENCH_FACTS`, read when the crate compiles).
#![cfg(target_arch = "wasm32")]

use nocturne_app::idb::IdbStore;
use nocturne_core::flow::sleep::{self, SleepOptions};
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::store::{Commit, Store};
use nocturne_core::testkit::synth;
use nocturne_core::text::order;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const NOW: i64 = 1_767_225_600;

#[wasm_bindgen_test]
async fn bench_offline_sleep_over_10000_facts_in_indexeddb() {
    for profile in [synth::Profile::Consolidated, synth::Profile::Fresh] {
        run(profile).await;
    }
}

async fn run(profile: synth::Profile) {
    let n: usize = option_env!("NOCTURNE_BENCH_FACTS").and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let name = format!("nocturne-bench-{profile:?}");
    let name = name.as_str();
    IdbStore::delete(name).await.expect("delete");
    let store = IdbStore::open(name).await.expect("open");
    let t0 = js_sys::Date::now();
    store
        .commit(Commit {
            at: NOW,
            label: Some("bench:seed".into()),
            items: synth::memory(n, NOW, 11, profile),
            ..Default::default()
        })
        .await
        .expect("seed");
    let seeded = js_sys::Date::now() - t0;
    store.set_policy(synth::bench_policy(n)).await.expect("policy");
    let rows_before = store.rows_written();
    let (logged_before, versions_before) =
        (store.mutations().await.expect("log").len(), store.versions().await.expect("versions").len());
    let t1 = js_sys::Date::now();
    let report = sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(NOW), &mut |_| {}).await.expect("sleep");
    let took = js_sys::Date::now() - t1;
    let rows = store.rows_written() - rows_before;
    let changed: usize = store.versions().await.expect("versions").iter().skip(1).map(|v| v.changed).sum();
    let logged = store.mutations().await.expect("log").len() - logged_before;
    let versions = store.versions().await.expect("versions").len() - versions_before;
    console_log!("browser bench ({profile:?} memory): {changed} changes, {logged} log entries, {versions} versions");
    console_log!(
        "browser bench ({profile:?} memory): {n} facts seeded in {:.2}s; offline Sleep with IndexedDB {:.2}s, {} model calls, {changed} items changed, {rows} rows written ({:.2} per change)",
        seeded / 1000.0,
        took / 1000.0,
        report.calls(),
        rows as f64 / changed.max(1) as f64
    );
    // What a Sleep may write: each fact it changed twice (its change row and its live row),
    // each log entry once (refused proposals are logged too, so there are more entries than
    // changes), and each version with the meta row its commit rewrites — nothing of the facts
    // it left alone.
    let bound = 2 * changed + logged + 2 * versions;
    assert!(rows as usize <= bound, "{rows} rows for {changed} changes, {logged} log entries and {versions} versions");
    store.close();
    // The same Sleep over MemStore in the same browser: the engine's share of the time.
    let mem = nocturne_core::store::MemStore::new();
    mem.commit(Commit {
        at: NOW,
        label: Some("bench:seed".into()),
        items: synth::memory(n, NOW, 11, profile),
        ..Default::default()
    })
    .await
    .expect("seed");
    mem.set_policy(synth::bench_policy(n)).await.expect("policy");
    let t2 = js_sys::Date::now();
    sleep::sleep(&mem, &OfflineProvider, &SleepOptions::new(NOW), &mut |_| {}).await.expect("sleep");
    console_log!("browser bench ({profile:?} memory): the same Sleep over MemStore in wasm {:.2}s (engine and offline provider alone)", (js_sys::Date::now() - t2) / 1000.0);
}

/// Chat-memory selection in wasm at 10,000 facts: the index built once, then one
/// selection per question (the recall benchmark's planted questions).
#[wasm_bindgen_test]
async fn bench_chat_selection_over_10000_facts_in_wasm() {
    use nocturne_core::llm::context::PromptIndex;
    use nocturne_core::llm::provider::DEFAULT_MEMORY_TOKENS;
    use nocturne_core::testkit::lifetime;
    let n = 10_000;
    let planted = lifetime::plant(25, n as u64 + 1, NOW);
    let mut items = lifetime::memory(n, NOW, 31);
    items.extend(planted.facts.clone());
    let refs: Vec<&nocturne_core::model::memory::Item> = items.iter().collect();
    let policy = nocturne_core::model::policy::RetentionPolicy::default();
    let t0 = js_sys::Date::now();
    let index = PromptIndex::new(&refs, &policy, NOW);
    let build = js_sys::Date::now() - t0;
    let mut times = Vec::new();
    let mut found = 0;
    // No Sleep runs here, so the updates are not said: only facts said once are asked.
    for probe in planted.probes.iter().filter(|p| p.kind == lifetime::ProbeKind::Single) {
        // Date.now() counts whole milliseconds: time 200 selections and divide.
        let t = js_sys::Date::now();
        let mut s = index.select(&probe.question, DEFAULT_MEMORY_TOKENS);
        for _ in 1..200 {
            s = index.select(&probe.question, DEFAULT_MEMORY_TOKENS);
        }
        times.push((js_sys::Date::now() - t) / 200.0);
        found += usize::from(s.facts.iter().any(|i| i.text.contains(probe.value.as_str())));
    }
    order::sort_by(&mut times, f64::total_cmp);
    console_log!(
        "browser bench: chat selection over {n} facts in wasm: index built in {build:.0} ms, p50 {:.3} ms, max {:.3} ms; planted facts found {found}/{}",
        times[times.len() / 2],
        times[times.len() - 1],
        times.len()
    );
}
