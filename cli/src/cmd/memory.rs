//! The memory's commands: the user's edits, versions, diff, restore, erase, search, export
//! and moving a JSON store file into a database.

use crate::args::StoreArgs;
use crate::error::CliError;
use crate::store::Memory;
use crate::write;
use nocturne_core::flow::edit::UserEdit;
use nocturne_core::store::{diff, Store};
use nocturne_core::write::{Edit, Erase, NoModel, Restore, Watch};
use std::path::Path;

/// `nocturne versions`: every version, oldest first.
pub(crate) fn versions(store: &StoreArgs) -> Result<(), CliError> {
    let memory = Memory::open_existing(&store.store)?;
    for v in pollster::block_on(memory.versions())? {
        println!("{:>5} {:<24} active={:<4} changed={}", v.id(), v.label, v.active_count, v.changed);
    }
    Ok(())
}

/// `nocturne diff LO HI`.
pub(crate) fn diff(store: &StoreArgs, lo: &str, hi: &str) -> Result<(), CliError> {
    let memory = Memory::open_existing(&store.store)?;
    let d = pollster::block_on(diff::diff(&memory, seq(lo)?, seq(hi)?))?;
    print_diff(&d);
    Ok(())
}

/// `nocturne restore VERSION`: the version's state as a new version, through the one
/// write path.
pub(crate) fn restore(store: &StoreArgs, version: &str) -> Result<(), CliError> {
    let memory = Memory::open_existing(&store.store)?;
    let restore = Restore { seq: seq(version)?, at: store.now() };
    let restored = write::perform(&store.store, &memory, restore, &NoModel, &mut Watch::quiet())?;
    let v = restored.done;
    println!("{} {} active={}", v.id(), v.label, v.active_count);
    if let Some(recorded) = restored.recorded {
        println!("restore recorded for the next sync: {recorded}");
    }
    Ok(())
}

/// `nocturne erase ID`, through the one write path.
pub(crate) fn erase(store: &StoreArgs, id: &str) -> Result<(), CliError> {
    let memory = Memory::open_existing(&store.store)?;
    let erase = Erase { item_id: id.to_string(), at: store.now() };
    let erased = write::perform(&store.store, &memory, erase, &NoModel, &mut Watch::quiet())?.done;
    // Then every other file of the memory that may hold the words.
    let removed = write::remove_plans(&store.store)?;
    println!(
        "erased {} fact(s): {}; {} row(s) rewritten; {} word(s) removed; a tombstone remains",
        erased.item_ids.len(),
        erased.item_ids.join(", "),
        erased.rows,
        erased.words
    );
    for path in &removed {
        println!("removed {}: a review plan made before the erase, which may hold the words", path.display());
    }
    Ok(())
}

/// `nocturne search WORDS…`: the facts with those words, each with its history.
pub(crate) fn search(store: &StoreArgs, query: &str) -> Result<(), CliError> {
    let memory = Memory::open_existing(&store.store)?;
    // Only the facts that may match and their history are read (a database answers from
    // its words index); the search itself is the core's, over those.
    let (items, log) = pollster::block_on(nocturne_core::store::search::gather(&memory, query))?;
    let hits = nocturne_core::store::search::search(&items, &log, query);
    for hit in &hits {
        println!("{}", nocturne_core::store::search::describe(hit, store.now()));
    }
    println!("{} fact(s) match", hits.len());
    Ok(())
}

/// Makes one user edit in the store file and saves it; prints the version it wrote.
pub(crate) fn user_edit(store: &StoreArgs, edit: UserEdit) -> Result<(), CliError> {
    let memory = Memory::open_existing(&store.store)?;
    let edit = Edit { edit, at: store.now() };
    let written = write::perform(&store.store, &memory, edit, &NoModel, &mut Watch::quiet())?;
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
        // The core's words, as the page shows them (`moved to human (from scratch): …`).
        println!("changed   {} {}", c.after.item_id, c.what());
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

/// `nocturne export [OUT]`: the memory as one export document.
pub(crate) fn export(store: &StoreArgs, out: Option<&Path>) -> Result<(), CliError> {
    let memory = Memory::open_existing(&store.store)?;
    let json = pollster::block_on(memory.document())?.to_json();
    match out {
        Some(path) => {
            write_out(path, json.as_bytes())?;
            eprintln!("wrote {} ({} bytes)", path.display(), json.len());
        }
        None => println!("{json}"),
    }
    Ok(())
}

/// Writes `bytes` to `path`: a file whole or not at all (beside it, then renamed over it);
/// anything else that exists there — a device, a pipe — written in place, never replaced,
/// and every error said.
fn write_out(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let special = std::fs::metadata(path).is_ok_and(|m| !m.is_file());
    let written = if special {
        use std::io::Write;
        std::fs::OpenOptions::new().write(true).open(path).and_then(|mut f| f.write_all(bytes).and_then(|()| f.flush()))
    } else {
        crate::file::write_atomically(path, bytes)
    };
    written.map_err(|e| CliError::caused(format!("cannot write {}: {e}; the export is not there", path.display()), e))
}

/// `nocturne move-store [--to DB]`: a JSON store file copied into a new database, read
/// back and compared row for row before it is reported moved. The JSON file stays.
pub(crate) fn move_store(store: &StoreArgs, to: Option<&Path>) -> Result<(), CliError> {
    let from = &store.store;
    let memory = Memory::open_existing(from)?;
    let Memory::File(_) = &memory else {
        return Err(format!("{} is already a database; nothing to move", from.display()).into());
    };
    let to = to.map_or_else(|| from.with_extension("db"), Path::to_path_buf);
    if to.exists() {
        return Err(format!("{} exists; move into a new file (nothing was changed)", to.display()).into());
    }
    let doc = pollster::block_on(memory.document())?;
    let moved = crate::db::DbStore::open(&to).and_then(|db| {
        pollster::block_on(db.replace_all(doc.clone(), 0))?;
        pollster::block_on(db.document())
    });
    let arrived = match moved {
        Ok(copy) if copy == doc => Ok(()),
        Ok(copy) => Err(format!("the database reads back differently from the file ({})", difference(&doc, &copy))),
        Err(e) => Err(e.to_string()),
    };
    if let Err(why) = arrived {
        crate::db::remove_files(&to);
        return Err(format!("{why}; the database was removed and {} is unchanged", from.display()).into());
    }
    let synced = crate::sync::copy_state(from, &to)?;
    println!(
        "moved {} into {}: {} facts, {} versions, {} change rows, {} log entries, {} turns, all read back equal",
        from.display(),
        to.display(),
        doc.items.len(),
        doc.versions.len(),
        doc.changes.len(),
        doc.mutations.len(),
        doc.transcript.len()
    );
    if synced {
        println!("its sync state was copied beside the database");
    }
    println!("{} is kept as it was, as a backup; use --store {} from now on", from.display(), to.display());
    Ok(())
}

/// Which part of two documents differs first, for the message of a failed move.
fn difference(a: &nocturne_core::store::document::Document, b: &nocturne_core::store::document::Document) -> String {
    let parts = [
        ("facts", a.items.len(), b.items.len(), a.items == b.items),
        ("versions", a.versions.len(), b.versions.len(), a.versions == b.versions),
        ("change rows", a.changes.len(), b.changes.len(), a.changes == b.changes),
        ("log entries", a.mutations.len(), b.mutations.len(), a.mutations == b.mutations),
        ("turns", a.transcript.len(), b.transcript.len(), a.transcript == b.transcript),
    ];
    parts
        .iter()
        .find(|p| !p.3)
        .map_or("its meta".to_string(), |(what, x, y, _)| format!("{what}: {x} in the file, {y} read back"))
}
