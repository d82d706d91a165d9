//! Nocturne's sync: one memory on every device, end-to-end encrypted, through an existing
//! sync library (Yjs, via `yrs`) and server (y-sweet).
//!
//! Sans-IO like the core: randomness and time come in as arguments, the WebSocket is the
//! caller's (the app's `web_sys::WebSocket`, the command line's `tungstenite`). Layers:
//! `crypto` (Argon2id key, AES-256-GCM records), `replica` (the Yjs document: the only file
//! that names `yrs`'s types besides `session`), `session` (the y-sync exchange with
//! the server), `record` (what a device did, and the one order every device replays
//! records in), `replay` (doing an operation, and doing it again from its record), `device`
//! (record, merge, checkpoint), `procedure` (one sync, the Sleep lease and a synced write,
//! the steps once over the device's own IO), `recorder` (the sync's side of the core's one
//! write path, `nocturne_core::write`: every command performed as this device's next record
//! when the memory syncs).

pub mod crypto;
pub mod device;
pub mod procedure;
pub mod record;
pub mod recorder;
pub mod replay;
pub mod replica;
pub mod session;

pub use device::{
    act, act_plain, act_watched, adopt_outside_writes, checkpoint, erase, flush, head_digest, merge, open_space,
    Device, Merged,
};

use nocturne_core::store::StoreError;
use nocturne_core::write::{LockError, Refusal, WriteError};

/// Sync failing (not a refusal of one record, which is data in [`Merged`]). Worded for a
/// person; never carries the passphrase or the key.
#[derive(Debug)]
pub enum SyncError {
    /// The passphrase does not open the space.
    WrongPassphrase(String),
    /// The space's header is unusable.
    Space(String),
    /// A record or space of a newer schema than this build reads.
    NewerSchema(u32),
    /// The local memory could not be read or written.
    Store(StoreError),
    /// The server could not be reached, or the connection broke (nothing was lost: the
    /// next sync sends and fetches what this one did not).
    Server(String),
    /// The sync document could not be read.
    Engine(String),
    /// The operation itself was refused on this device (its own check, in its words).
    Refused(String),
    /// Another device holds the space's Sleep lease: who, until when, and what to do.
    LeaseHeld(String),
    /// This device's sync state, kept beside its memory, could not be read or written:
    /// where, and what failed.
    State(String),
    /// No randomness from the system or the browser.
    Random(String),
    /// What the sync was asked is not enough (no server address, no passphrase, another
    /// space): what is missing or wrong, and what to do.
    Ask(String),
    /// The memory's write lock did not let the merge run.
    Lock(LockError),
}

impl std::fmt::Display for SyncError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SyncError::WrongPassphrase(m) => write!(f, "wrong passphrase: {m}"),
            SyncError::Space(m) => write!(f, "the sync space is unusable: {m}"),
            SyncError::NewerSchema(v) => write!(
                f,
                "the space holds a record of schema {v}, newer than this build reads ({}); update Nocturne on this device — nothing was applied",
                record::SCHEMA
            ),
            SyncError::Store(e) => write!(f, "{e}"),
            SyncError::Server(m) => write!(f, "the sync server: {m}; nothing was lost, sync again when it is back"),
            SyncError::Lock(e) => write!(f, "{e}"),
            SyncError::Engine(m)
            | SyncError::Refused(m)
            | SyncError::LeaseHeld(m)
            | SyncError::State(m)
            | SyncError::Random(m)
            | SyncError::Ask(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for SyncError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SyncError::Store(e) => Some(e),
            SyncError::Lock(e) => Some(e),
            _ => None,
        }
    }
}

impl From<StoreError> for SyncError {
    fn from(e: StoreError) -> Self {
        SyncError::Store(e)
    }
}

impl From<LockError> for SyncError {
    fn from(e: LockError) -> Self {
        SyncError::Lock(e)
    }
}

impl From<replica::ReplicaError> for SyncError {
    fn from(e: replica::ReplicaError) -> Self {
        SyncError::Engine(e.to_string())
    }
}

/// Sync failing under a write: the store's error as the store's, another device's lease or
/// this device's own refusal as a refusal, anything else as the sync's, kept as the source.
impl From<SyncError> for WriteError {
    fn from(e: SyncError) -> Self {
        match e {
            SyncError::Store(e) => e.into(),
            SyncError::Refused(why) => WriteError::Refused(Refusal::Record(why)),
            SyncError::LeaseHeld(why) => WriteError::Refused(Refusal::Lease(why)),
            SyncError::Lock(e) => e.into(),
            e => WriteError::sync("the memory's sync", e),
        }
    }
}
