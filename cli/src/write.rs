//! The command line's and the MCP server's door to the one write path
//! (`nocturne_core::write`): a journal over the store, the sync state beside the store file
//! (`nocturne_sync::recorder::Syncing`: each command recorded for the next sync when it
//! syncs) and the space's Sleep lease over the command line's WebSocket, driven to
//! completion. The commands and the tools map their request to a `Command` and print what
//! it did.

use crate::store::Memory;
use crate::sync::{Files, Os, Socket};
use nocturne_core::llm::provider::Provider;
use nocturne_core::store::Store;
use nocturne_core::write::{Done, Journal, Perform, StoreLocks, Watch, WriteError};
use nocturne_sync::procedure::ServerLease;
use nocturne_sync::recorder::Syncing;
use std::path::Path;

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
