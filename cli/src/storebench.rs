//! `nocturne bench-store`: what one write and one read cost on a memory kept as a JSON file
//! and kept in a database, side by side on the same memory — a chat turn, a search and an
//! MCP `add_memory`, each as a command runs it (the store opened afresh), and a long
//! conversation piped into one `nocturne chat` on a new memory. Figures, not targets.

use crate::error::CliError;
use crate::store::Memory;
use crate::write;
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::model::memory::{Mutation, Proposer, Refs};
use nocturne_core::model::pass::{MutationKind, PassKind};
use nocturne_core::store::{search, Commit, MemStore, Store};
use nocturne_core::testkit::{lifetime, synth};
use nocturne_core::text::order;
use nocturne_core::write::{Reply, Watch};
use std::path::{Path, PathBuf};
use std::time::Instant;

const NOW: i64 = 1_767_225_600;

/// What `bench-store` measures.
pub struct Options {
    /// Memory sizes, in facts.
    pub facts: Vec<usize>,
    /// Turns piped into one chat on a new memory (0: skip).
    pub pipe_turns: usize,
    /// Where the memories are written (kept, to look at).
    pub dir: PathBuf,
}

/// One backend's figures on one memory.
struct Figures {
    open_ms: f64,
    turn_ms: f64,
    search_ms: f64,
    add_ms: f64,
    hits: usize,
    bytes: u64,
}

/// Runs the benchmark and prints one line per size and backend, then the ratios.
pub fn run(options: &Options) -> Result<(), CliError> {
    std::fs::create_dir_all(&options.dir).map_err(|e| format!("cannot make {}: {e}", options.dir.display()))?;
    for &facts in &options.facts {
        let doc = seeded(facts)?;
        let json = fresh(&options.dir.join(format!("memory-{facts}.json")));
        let db = fresh(&options.dir.join(format!("memory-{facts}.db")));
        crate::file::write_atomically(&json, doc.to_json().as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", json.display()))?;
        let Memory::Db(store) = Memory::open(&db)? else {
            return Err(format!("{} is not a database", db.display()).into());
        };
        pollster::block_on(store.replace_all(doc, 0)).map_err(|e| e.to_string())?;
        drop(store);
        let mut seen = Vec::new();
        for (name, path) in [("json", &json), ("database", &db)] {
            let f = measure(path)?;
            println!(
                "bench-store: facts={facts} backend={name} fileMB={:.1} openMs={:.1} turnMs={:.1} searchMs={:.1} mcpAddMs={:.1} searchHits={}",
                f.bytes as f64 / 1e6,
                f.open_ms,
                f.turn_ms,
                f.search_ms,
                f.add_ms,
                f.hits
            );
            seen.push(f);
        }
        let (j, d) = (&seen[0], &seen[1]);
        if j.hits != d.hits {
            return Err(format!("the two backends found different facts: {} against {}", j.hits, d.hits).into());
        }
        println!(
            "bench-store: facts={facts} databaseFaster turn={:.0}x search={:.0}x mcpAdd={:.0}x",
            j.turn_ms / d.turn_ms,
            j.search_ms / d.search_ms,
            j.add_ms / d.add_ms
        );
    }
    if options.pipe_turns > 0 {
        for (name, ext) in [("json", "json"), ("database", "db")] {
            let path = fresh(&options.dir.join(format!("pipe.{ext}")));
            let seconds = pipe(&path, options.pipe_turns)?;
            println!("bench-store: pipe turns={} backend={name} seconds={seconds:.1}", options.pipe_turns);
        }
    }
    Ok(())
}

/// `path` with no memory at it (nor the files a database or a JSON store keeps beside).
fn fresh(path: &Path) -> PathBuf {
    crate::db::remove_files(path);
    let _ = std::fs::remove_file(format!("{}.lock", path.display()));
    path.to_path_buf()
}

/// A memory of `facts` facts with the conversation they came from and an encode entry in
/// the log for each, as a memory that has lived that long holds.
fn seeded(facts: usize) -> Result<nocturne_core::store::document::Document, CliError> {
    let store = MemStore::new();
    let items = lifetime::memory(facts, NOW, 31);
    let (turns, encoded_through) = crate::scale::transcript(&items);
    let mutations = items
        .iter()
        .map(|i| Mutation {
            id: 0,
            seq: 0,
            pass: PassKind::Encode.into(),
            kind: MutationKind::Add,
            item_id: i.item_id.clone(),
            refs: Refs { source_turn: i.source_turn, ..Refs::default() },
            accepted: true,
            reason: "stated by the user".into(),
            rejection_reason: None,
            policy: None,
            proposer: Proposer::Model,
            at: i.created_at,
        })
        .collect();
    let seed = Commit {
        at: NOW,
        label: Some("bench:seed".into()),
        items,
        turns,
        encoded_through,
        mutations,
        ..Default::default()
    };
    pollster::block_on(store.commit(seed)).map_err(|e| e.to_string())?;
    pollster::block_on(store.set_policy(synth::bench_policy(facts))).map_err(|e| e.to_string())?;
    Ok(store.document())
}

/// The median of `n` runs of `f`, in milliseconds.
fn median_ms(n: usize, mut f: impl FnMut(usize) -> Result<(), CliError>) -> Result<f64, CliError> {
    let mut times = Vec::with_capacity(n);
    for i in 0..n {
        let t = Instant::now();
        f(i)?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    order::sort_by(&mut times, f64::total_cmp);
    Ok(times[n / 2])
}

fn measure(path: &Path) -> Result<Figures, CliError> {
    const RUNS: usize = 3;
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let open_ms = median_ms(RUNS, |_| {
        let memory = Memory::open(path)?;
        pollster::block_on(memory.meta())?;
        Ok(())
    })?;
    let provider = OfflineProvider;
    let turn_ms = median_ms(RUNS, |i| {
        let memory = Memory::open(path)?;
        let text = format!("My neighbour number {i} keeps bees behind the old mill.");
        let turn = Reply { text, speaker: None, at: NOW + 60 + i as i64 };
        write::perform(path, &memory, turn, &provider, &mut Watch::quiet())?;
        Ok(())
    })?;
    let mut hits = 0;
    let search_ms = median_ms(RUNS, |_| {
        let memory = Memory::open(path)?;
        let (items, log) = pollster::block_on(search::gather(&memory, "bees mill")).map_err(|e| e.to_string())?;
        hits = search::search(&items, &log, "bees mill").len();
        Ok(())
    })?;
    let config = crate::mcp::Config {
        store: path.to_path_buf(),
        provider: crate::args::ProviderArgs::offline(),
        budget: nocturne_core::llm::provider::DEFAULT_MEMORY_TOKENS,
        now: Some(NOW + 600),
        client: None,
        allow: crate::mcp::Allow::Add,
    };
    let add_ms = median_ms(RUNS, |i| {
        let args = crate::mcp::AddMemory { text: format!("My cousin number {i} moved to Tartu."), said_at: None };
        crate::mcp::add_memory(&config, args)?;
        Ok(())
    })?;
    Ok(Figures { open_ms, turn_ms, search_ms, add_ms, hits, bytes })
}

/// Seconds to pipe `turns` one-sentence turns into one chat on a new memory at `path`.
fn pipe(path: &Path, turns: usize) -> Result<f64, CliError> {
    let t = Instant::now();
    let memory = Memory::open(path)?;
    let provider = OfflineProvider;
    for i in 0..turns {
        let text = format!("My friend number {i} lives in town {} and plays the cello.", i % 97);
        let turn = Reply { text, speaker: None, at: NOW + i as i64 };
        write::perform(path, &memory, turn, &provider, &mut Watch::quiet()).map_err(|e| e.to_string())?;
    }
    Ok(t.elapsed().as_secs_f64())
}
