//! The memory's commands: the user's edits, versions, diff, restore, erase and search.

use crate::args::StoreArgs;
use crate::error::CliError;
use crate::file::FileStore;
use crate::write;
use nocturne_core::flow::edit::UserEdit;
use nocturne_core::store::{diff, Store};

/// `nocturne versions`: every version, oldest first.
pub(crate) fn versions(store: &StoreArgs) -> Result<(), CliError> {
    let memory = FileStore::open_existing(&store.store)?;
    for v in pollster::block_on(memory.versions())? {
        println!("{:>5} {:<24} active={:<4} changed={}", v.id(), v.label, v.active_count, v.changed);
    }
    Ok(())
}

/// `nocturne diff LO HI`.
pub(crate) fn diff(store: &StoreArgs, lo: &str, hi: &str) -> Result<(), CliError> {
    let memory = FileStore::open_existing(&store.store)?;
    let d = pollster::block_on(diff::diff(&memory, seq(lo)?, seq(hi)?))?;
    print_diff(&d);
    Ok(())
}

/// `nocturne restore VERSION`: the version's state as a new version.
pub(crate) fn restore(store: &StoreArgs, version: &str) -> Result<(), CliError> {
    let memory = FileStore::open_existing(&store.store)?;
    let v = pollster::block_on(memory.restore(seq(version)?, store.now()))?;
    println!("{} {} active={}", v.id(), v.label, v.active_count);
    Ok(())
}

/// `nocturne erase ID`, through the one write path.
pub(crate) fn erase(store: &StoreArgs, id: &str) -> Result<(), CliError> {
    let memory = FileStore::open_existing(&store.store)?;
    let erased = write::Writer::new(&store.store, &memory).erase(id, store.now())?.done;
    println!(
        "erased {} fact(s): {}; {} row(s) rewritten; {} word(s) removed; a tombstone remains",
        erased.item_ids.len(),
        erased.item_ids.join(", "),
        erased.rows,
        erased.words
    );
    Ok(())
}

/// `nocturne search WORDS…`: the facts with those words, each with its history.
pub(crate) fn search(store: &StoreArgs, query: &str) -> Result<(), CliError> {
    let memory = FileStore::open_existing(&store.store)?;
    let items = pollster::block_on(memory.items())?;
    let log = pollster::block_on(memory.mutations())?;
    let hits = nocturne_core::store::search::search(&items, &log, query);
    for hit in &hits {
        println!("{}", nocturne_core::store::search::describe(hit, store.now()));
    }
    println!("{} fact(s) match", hits.len());
    Ok(())
}

/// Makes one user edit in the store file and saves it; prints the version it wrote.
pub(crate) fn user_edit(store: &StoreArgs, edit: UserEdit) -> Result<(), CliError> {
    let memory = FileStore::open_existing(&store.store)?;
    let written = write::Writer::new(&store.store, &memory).edit(&edit, store.now())?;
    let v = &written.done;
    println!("{} {} active={}", v.id(), v.label, v.active_count);
    if let Some(what) = written.recorded {
        println!("edit made and recorded for the next sync ({what})");
    }
    Ok(())
}

fn print_diff(d: &diff::Diff) {
    println!("kept {}", d.kept);
    for c in &d.changed {
        println!(
            "changed   {} [{} -> {}] \"{}\" -> \"{}\"",
            c.after.item_id, c.before.block, c.after.block, c.before.text, c.after.text
        );
    }
    for g in &d.forgotten {
        let by = g.by.as_ref().map_or("no mutation".to_string(), |m| {
            format!("{} {} ({})", m.pass, m.policy.as_deref().unwrap_or("-"), m.reason)
        });
        println!("forgotten {} \"{}\" by {by}", g.item.item_id, g.item.text);
    }
    for a in &d.added {
        println!("added     {} \"{}\"", a.item_id, a.text);
    }
    for m in &d.refused {
        println!("refused   {} {} {}: {}", m.pass, m.kind, m.item_id, m.rejection_reason.as_deref().unwrap_or(""));
    }
}

fn seq(text: &str) -> Result<u64, CliError> {
    let version = text.trim_start_matches('v').parse();
    version.map_err(|e| CliError::caused(format!("'{text}' is not a version number (like 12 or v12)"), e))
}
