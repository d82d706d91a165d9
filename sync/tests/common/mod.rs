//! What the sync tests share: a device's sync state kept in memory, the in-memory server
//! as the procedure's exchange, and counted randomness.

use nocturne_sync::procedure::{Exchange, Joined, Random, ReplicaKeeper, StateKeeper};
use nocturne_sync::replica::Replica;
use nocturne_sync::session::LoopbackServer;
use nocturne_sync::SyncError;
use std::cell::{Cell, RefCell};

/// A device's sync state as the one sync procedure keeps it: in memory (`None`: the
/// memory does not sync).
pub struct Kept(pub RefCell<Option<(Joined, Vec<u8>)>>);

impl StateKeeper for Kept {
    async fn state(&self) -> Result<Option<Joined>, SyncError> {
        Ok(self.0.borrow().as_ref().map(|(j, _)| j.clone()))
    }
    async fn save_state(&self, joined: &Joined) -> Result<(), SyncError> {
        let mut kept = self.0.borrow_mut();
        let state = kept.take().map(|(_, state)| state).unwrap_or_default();
        *kept = Some((joined.clone(), state));
        Ok(())
    }
}

impl ReplicaKeeper for Kept {
    async fn load(&self) -> Result<Option<(Joined, Replica)>, SyncError> {
        let kept = self.0.borrow().clone();
        kept.map(|(j, state)| Ok((j.clone(), Replica::load(j.client_id, &state)?))).transpose()
    }
    async fn save(&self, joined: &Joined, replica: &Replica) -> Result<(), SyncError> {
        *self.0.borrow_mut() = Some((joined.clone(), replica.state()));
        Ok(())
    }
}

/// The in-memory server, as the procedure's exchange.
pub struct Loop<'a>(pub &'a LoopbackServer);

impl Exchange for Loop<'_> {
    async fn exchange(&self, _url: &str, replica: &Replica, nonce: [u8; 8]) -> Result<(), SyncError> {
        Ok(self.0.exchange(replica, nonce)?)
    }
}

/// Counted bytes: unique per device, the same on every run.
pub struct Counter(pub Cell<u64>);

impl Random for Counter {
    fn fill(&self, bytes: &mut [u8]) -> Result<(), SyncError> {
        for chunk in bytes.chunks_mut(8) {
            self.0.set(self.0.get() + 1);
            chunk.copy_from_slice(&self.0.get().to_le_bytes()[..chunk.len()]);
        }
        Ok(())
    }
}

/// No Sleep lease (a memory that does not sync, or a test that never sleeps).
pub struct NoLease;

impl nocturne_sync::procedure::Lease for NoLease {
    async fn take(&self, _now: i64) -> Result<Option<String>, SyncError> {
        Ok(None)
    }
    async fn release(&self, _now: i64) {}
}

/// Performs `command` through the one write path (`nocturne_core::write::Journal`) over
/// `store`, its sync state in `keeper` and the write lock `lock`, the space's lease asked
/// through `lease`.
#[allow(dead_code)]
pub async fn perform<S, W, L, C, P>(
    store: &S,
    keeper: &Kept,
    lock: &W,
    lease: &L,
    command: C,
    provider: &P,
) -> Result<nocturne_core::write::Done<C::Output>, nocturne_core::write::WriteError>
where
    S: nocturne_core::store::Store,
    W: nocturne_core::write::WriteLock,
    L: nocturne_sync::procedure::Lease,
    C: nocturne_core::write::Perform,
    P: nocturne_core::llm::provider::Provider,
{
    let sync = nocturne_sync::recorder::Syncing { keeper, lease };
    let journal = nocturne_core::write::Journal::new(store, lock, &sync);
    journal.perform(command, provider, &mut nocturne_core::write::Watch::quiet()).await
}
