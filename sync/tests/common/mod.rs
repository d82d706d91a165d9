//! What the sync tests share: a device's sync state kept in memory, the in-memory server
//! as the procedure's exchange, and counted randomness.

use nocturne_sync::procedure::{Exchange, Joined, Random, ReplicaKeeper, StateKeeper};
use nocturne_sync::replica::Replica;
use nocturne_sync::session::LoopbackServer;
use std::cell::{Cell, RefCell};

/// A device's sync state as the one sync procedure keeps it: in memory (`None`: the
/// memory does not sync).
pub struct Kept(pub RefCell<Option<(Joined, Vec<u8>)>>);

impl StateKeeper for Kept {
    async fn state(&self) -> Result<Option<Joined>, String> {
        Ok(self.0.borrow().as_ref().map(|(j, _)| j.clone()))
    }
    async fn save_state(&self, joined: &Joined) -> Result<(), String> {
        let mut kept = self.0.borrow_mut();
        let state = kept.take().map(|(_, state)| state).unwrap_or_default();
        *kept = Some((joined.clone(), state));
        Ok(())
    }
}

impl ReplicaKeeper for Kept {
    async fn load(&self) -> Result<Option<(Joined, Replica)>, String> {
        let kept = self.0.borrow().clone();
        kept.map(|(j, state)| Ok((j.clone(), Replica::load(j.client_id, &state).map_err(|e| e.to_string())?)))
            .transpose()
    }
    async fn save(&self, joined: &Joined, replica: &Replica) -> Result<(), String> {
        *self.0.borrow_mut() = Some((joined.clone(), replica.state()));
        Ok(())
    }
}

/// The in-memory server, as the procedure's exchange.
pub struct Loop<'a>(pub &'a LoopbackServer);

impl Exchange for Loop<'_> {
    async fn exchange(&self, _url: &str, replica: &Replica, nonce: [u8; 8]) -> Result<(), String> {
        self.0.exchange(replica, nonce).map_err(|e| e.to_string())
    }
}

/// Counted bytes: unique per device, the same on every run.
pub struct Counter(pub Cell<u64>);

impl Random for Counter {
    fn fill(&self, bytes: &mut [u8]) -> Result<(), String> {
        for chunk in bytes.chunks_mut(8) {
            self.0.set(self.0.get() + 1);
            chunk.copy_from_slice(&self.0.get().to_le_bytes()[..chunk.len()]);
        }
        Ok(())
    }
}
