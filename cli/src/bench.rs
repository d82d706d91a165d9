//! `nocturne bench`: performance figures, printed and never asserted (machines are
//! noisy). Candidate pairs indexed against brute force, a full offline Sleep, rows
//! written against items changed, diff time, prompt tokens and peak memory.

use nocturne_core::flow::sleep::{self, SleepOptions};
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::model::memory::Item;
use nocturne_core::store::diff;
use nocturne_core::store::{Commit, MemStore, Store};
use nocturne_core::testkit::synth;
use nocturne_core::text::pairs::{self, PairInput};
use std::time::{Duration, Instant};

const NOW: i64 = 1_767_225_600;

fn inputs(items: &[Item]) -> Vec<PairInput<'_>> {
    items.iter().map(|i| PairInput { text: &i.text, rank: i.block.weight() as i64, created_at: i.created_at }).collect()
}

fn secs(d: Duration) -> String {
    format!("{:.3}s", d.as_secs_f64())
}

/// Peak resident memory of this process, from /proc (Linux), in MiB.
fn peak_mib() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l.split_whitespace().nth(1).unwrap_or("0").to_string())
        })
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or("n/a".into(), |kb| format!("{:.0} MiB", kb / 1024.0))
}

pub fn run(max: usize) {
    let sizes: Vec<usize> = [1_000, 10_000, 50_000, 100_000].into_iter().filter(|n| *n <= max).collect();
    println!(
        "nocturne bench — {} core(s); figures from one run, release build",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!();
    println!("candidate duplicate pairs (threshold 0.9; indexed: best of 3 runs)");
    println!("{:>8} {:>10} {:>12} {:>12} {:>8}", "facts", "pairs", "indexed", "brute force", "ratio");
    let mut brute_last: Option<(usize, f64)> = None;
    let mut indexed_times = Vec::new();
    for &n in &sizes {
        let items = synth::facts(n, NOW, 7);
        let facts = inputs(&items);
        // Best of three runs: the figure least disturbed by whatever else the machine does.
        let mut pairs = Vec::new();
        let mut fast = Duration::MAX;
        for _ in 0..3 {
            let t = Instant::now();
            pairs = pairs::duplicate_pairs(&facts, 0.9);
            fast = fast.min(t.elapsed());
        }
        indexed_times.push((n, fast.as_secs_f64()));
        // Brute force grows with n²: run it only where the estimate stays under a minute.
        let estimate = brute_last.map(|(m, s)| s * (n as f64 / m as f64).powi(2));
        let (brute, ratio) = if estimate.is_none_or(|e| e < 60.0) {
            let t = Instant::now();
            let slow_pairs = pairs::duplicate_pairs_brute_force(&facts, 0.9);
            let slow = t.elapsed();
            assert_eq!(slow_pairs.len(), pairs.len(), "indexed and brute force disagree");
            brute_last = Some((n, slow.as_secs_f64()));
            (secs(slow), format!("{:.0}x", slow.as_secs_f64() / fast.as_secs_f64().max(1e-9)))
        } else {
            (format!("~{:.0}s est.", estimate.unwrap_or(0.0)), "skipped".into())
        };
        println!("{n:>8} {:>10} {:>12} {:>12} {:>8}", pairs.len(), secs(fast), brute, ratio);
    }
    if let (Some(a), Some(b)) =
        (indexed_times.iter().find(|(n, _)| *n == 50_000), indexed_times.iter().find(|(n, _)| *n == 100_000))
    {
        println!("growth 50,000 -> 100,000 facts: indexed {:.2}x (brute force would be 4x)", b.1 / a.1);
    }
    println!();
    for profile in [synth::Profile::Consolidated, synth::Profile::Fresh] {
        sleep_table(&sizes, profile);
    }
    println!("peak memory: {}", peak_mib());
}

fn sleep_table(sizes: &[usize], profile: synth::Profile) {
    println!("full Sleep with the offline provider (MemStore), {profile:?} memory, maxActiveFacts = 2 x facts");
    println!(
        "{:>8} {:>10} {:>8} {:>9} {:>11} {:>9} {:>10} {:>12} {:>10}",
        "facts", "sleep", "calls", "changed", "rows", "rows/chg", "diff", "prompt tok", "tok/fact"
    );
    for &n in sizes {
        let store = MemStore::new();
        let items = synth::memory(n, NOW, 11, profile);
        pollster::block_on(store.commit(Commit {
            at: NOW,
            label: Some("bench:seed".into()),
            items,
            ..Default::default()
        }))
        .expect("seed");
        pollster::block_on(store.set_policy(synth::bench_policy(n))).expect("policy");
        let rows_before = store.rows_written();
        let t = Instant::now();
        let report = pollster::block_on(sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(NOW), &mut |_| {}))
            .expect("sleep");
        let took = t.elapsed();
        let rows = store.rows_written() - rows_before;
        let versions = pollster::block_on(store.versions()).expect("versions");
        let (start, end) = (versions[1].seq, versions.last().map_or(0, |v| v.seq));
        let changed: usize = versions.iter().skip(1).map(|v| v.changed).sum();
        let t = Instant::now();
        let d = pollster::block_on(diff::diff(&store, start, end)).expect("diff");
        let diff_time = t.elapsed();
        let _ = d.kept;
        println!(
            "{n:>8} {:>10} {:>8} {:>9} {:>11} {:>9.2} {:>10} {:>12} {:>10.1}",
            secs(took),
            report.calls(),
            changed,
            rows,
            rows as f64 / changed.max(1) as f64,
            secs(diff_time),
            report.prompt_tokens(),
            report.prompt_tokens() as f64 / n as f64
        );
    }
    println!();
}
