//! The command line's and the MCP server's door to the one write path
//! (`nocturne_core::write`): a journal over the store, the sync state beside the store file
//! (`nocturne_sync::recorder::Syncing`: each command recorded for the next sync when it
//! syncs) and the space's Sleep lease over the command line's WebSocket, driven to
//! completion. The commands and the tools map their request to a `Command` and print what
//! it did.

use crate::error::CliError;
use crate::store::Memory;
use crate::sync::{Files, Os, Socket};
use nocturne_core::llm::provider::Provider;
use nocturne_core::store::Store;
use nocturne_core::write::{Done, Journal, Perform, StoreLocks, Watch, WriteError};
use nocturne_sync::procedure::ServerLease;
use nocturne_sync::recorder::Syncing;
use std::path::{Path, PathBuf};

/// Performs `command` on the store file at `path`, as `memory` opened it.
pub fn perform<C: Perform, P: Provider>(
    path: &Path,
    memory: &Memory,
    command: C,
    provider: &P,
    watch: &mut Watch<'_>,
) -> Result<Done<C::Output>, WriteError> {
    pollster::block_on(perform_on(path, memory, command, provider, watch))
}

/// [`perform`] on `store`, the memory of the store file at `path` (a JSON store file's
/// memory inside one save of the file).
pub async fn perform_on<S: Store, C: Perform, P: Provider>(
    path: &Path,
    store: &S,
    command: C,
    provider: &P,
    watch: &mut Watch<'_>,
) -> Result<Done<C::Output>, WriteError> {
    let files = Files(path);
    let lease = ServerLease { keeper: &files, exchange: &Socket, random: &Os };
    let sync = Syncing { keeper: &files, lease: &lease };
    Journal::new(store, &StoreLocks, &sync).perform(command, provider, watch).await
}

/// [`perform_on`], driven to completion, watched by nothing.
pub fn perform_on_blocking<S: Store, C: Perform, P: Provider>(
    path: &Path,
    store: &S,
    command: C,
    provider: &P,
) -> Result<Done<C::Output>, WriteError> {
    pollster::block_on(perform_on(path, store, command, provider, &mut Watch::quiet()))
}

/// Where the review plans of the memory at `store` are kept: `memory.db.plans/`, beside it.
pub fn plans_dir(store: &Path) -> PathBuf {
    let mut dir = store.as_os_str().to_owned();
    dir.push(".plans");
    PathBuf::from(dir)
}

/// After an erase: every review plan kept beside the memory at `store` removed (each was
/// planned on the memory before the erase, so any may hold the words, as a fact, a
/// proposal or a merged text); the files removed.
pub fn remove_plans(store: &Path) -> Result<Vec<PathBuf>, CliError> {
    let dir = plans_dir(store);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(
                format!("the fact is erased, but {} cannot be read to remove its plans: {e}", dir.display()).into()
            )
        }
    };
    let mut removed = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| format!("the fact is erased, but {} cannot be read: {e}", dir.display()))?.path();
        std::fs::remove_file(&path).map_err(|e| {
            format!("the fact is erased, but the plan {} that may hold it cannot be removed: {e}", path.display())
        })?;
        removed.push(path);
    }
    Ok(removed)
}
