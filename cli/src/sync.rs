//! `nocturne sync`: the store file as one device of a sync space on a y-sweet server —
//! the WebSocket, the files beside the store, the passphrase from the environment; the
//! records, their replay and the encryption are `nocturne-sync`'s.
//!
//! Beside `memory.json` live `memory.json.sync.json` (this device's id, name, the records
//! it applied and the ones not yet sealed: no key, no passphrase) and
//! `memory.json.sync.ydoc` (this replica of the space: sealed records only). A store file
//! with these files records every chat turn, edit, Sleep and erase made on it, and the
//! next `nocturne sync` seals and sends them.

use crate::error::CliError;
use crate::store::Memory;
use nocturne_core::write::StoreLocks;
use nocturne_sync::crypto::KdfParams;
use nocturne_sync::procedure::{self, Ask, Exchange, Random, ReplicaKeeper, StateKeeper};
use nocturne_sync::replica::Replica;
use nocturne_sync::session::Session;
use nocturne_sync::SyncError;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use nocturne_sync::procedure::Joined;

/// Copies the sync state beside the store `from` to beside `to` (a store moved into a
/// database keeps its place in its sync space); whether there was any.
pub fn copy_state(from: &Path, to: &Path) -> Result<bool, CliError> {
    let (from, to) = (Files(from), Files(to));
    let mut copied = false;
    for (a, b) in [(from.state_path(), to.state_path()), (from.replica_path(), to.replica_path())] {
        if a.exists() {
            std::fs::copy(&a, &b).map_err(|e| format!("cannot copy {} to {}: {e}", a.display(), b.display()))?;
            copied = true;
        }
    }
    Ok(copied)
}

/// How long one exchange with the server may take before it counts as dropped.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(30);

/// The two files beside a store that hold its sync state.
pub struct Files<'a>(pub &'a Path);

impl Files<'_> {
    fn state_path(&self) -> PathBuf {
        PathBuf::from(format!("{}.sync.json", self.0.display()))
    }

    fn replica_path(&self) -> PathBuf {
        PathBuf::from(format!("{}.sync.ydoc", self.0.display()))
    }

    /// This store's sync state, when it has joined a space.
    pub fn joined(&self) -> Result<Option<Joined>, SyncError> {
        let path = self.state_path();
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| {
                SyncError::State(format!("{} is not a sync state file ({e}); nothing was changed", path.display()))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(SyncError::State(format!("cannot read {}: {e}", path.display()))),
        }
    }
}

impl StateKeeper for Files<'_> {
    async fn state(&self) -> Result<Option<Joined>, SyncError> {
        self.joined()
    }

    async fn save_state(&self, joined: &Joined) -> Result<(), SyncError> {
        let json = serde_json::to_string_pretty(joined).map_err(|e| SyncError::State(e.to_string()))?;
        write_aside(&self.state_path(), json.as_bytes())
    }
}

impl ReplicaKeeper for Files<'_> {
    async fn load(&self) -> Result<Option<(Joined, Replica)>, SyncError> {
        let Some(joined) = self.joined()? else { return Ok(None) };
        let replica = match std::fs::read(self.replica_path()) {
            Ok(bytes) => Replica::load(joined.client_id, &bytes)?,
            Err(_) => Replica::new(joined.client_id),
        };
        Ok(Some((joined, replica)))
    }

    async fn save(&self, joined: &Joined, replica: &Replica) -> Result<(), SyncError> {
        // The replica first: a state that names records its replica lacks is never left.
        write_aside(&self.replica_path(), &replica.state())?;
        self.save_state(joined).await
    }
}

/// Writes `bytes` to a file beside `path`, then renames it over `path`.
fn write_aside(path: &Path, bytes: &[u8]) -> Result<(), SyncError> {
    let tmp = PathBuf::from(format!("{}.tmp", path.display()));
    std::fs::write(&tmp, bytes).map_err(|e| SyncError::State(format!("cannot write {}: {e}", tmp.display())))?;
    std::fs::rename(&tmp, path).map_err(|e| SyncError::State(format!("cannot replace {}: {e}", path.display())))
}

/// Random bytes from the operating system.
pub struct Os;

impl Random for Os {
    fn fill(&self, bytes: &mut [u8]) -> Result<(), SyncError> {
        getrandom::getrandom(bytes).map_err(|e| SyncError::Random(format!("no randomness from the system: {e}")))
    }
}

/// The y-sync exchange over a blocking WebSocket (`tungstenite`, ws:// only).
pub struct Socket;

impl Exchange for Socket {
    async fn exchange(&self, url: &str, replica: &Replica, nonce: [u8; 8]) -> Result<(), SyncError> {
        exchange(url, replica, nonce)
    }
}

/// How `nocturne sync` was asked to run.
#[derive(Debug)]
pub struct SyncRequest<'a> {
    pub store: &'a Path,
    pub server: Option<&'a str>,
    pub space: Option<&'a str>,
    pub passphrase_env: &'a str,
    pub device_name: Option<&'a str>,
    /// Argon2id's cost when this device creates the space (tests use a cheap one).
    pub kdf: KdfParams,
    pub now: i64,
}

/// `nocturne sync`: joins (the first time) and brings the store and the space up to date.
pub fn sync(req: &SyncRequest<'_>) -> Result<(), crate::error::CliError> {
    let passphrase = std::env::var(req.passphrase_env).map_err(|_| {
        format!("set the passphrase in the environment variable {} (it is never printed)", req.passphrase_env)
    })?;
    let memory = Memory::open(req.store)?;
    let ask = Ask {
        server: req.server,
        space: req.space,
        device_name: req.device_name,
        passphrase: &passphrase,
        kdf: req.kdf,
        kind: "command line",
        empty_hint: "sync an empty store into the space",
    };
    let synced =
        pollster::block_on(procedure::sync(&Files(req.store), &Socket, &Os, &StoreLocks, &memory, &ask, req.now))?;
    let turns = pollster::block_on(nocturne_core::store::Store::turn_count(&memory))?;
    for line in synced.lines(turns) {
        println!("{line}");
    }
    Ok(())
}

/// One y-sync exchange over a WebSocket: sends what the server lacks, applies what this
/// replica lacks, and returns when the server has acknowledged holding everything.
fn exchange(url: &str, replica: &Replica, nonce: [u8; 8]) -> Result<(), SyncError> {
    let server = SyncError::Server;
    let (mut socket, _) = tungstenite::connect(url).map_err(|e| server(format!("cannot connect to {url} ({e})")))?;
    if let tungstenite::stream::MaybeTlsStream::Plain(s) = socket.get_mut() {
        let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    }
    let (mut session, first) = Session::start(replica, nonce);
    socket.send(tungstenite::Message::binary(first)).map_err(|e| server(format!("the connection dropped ({e})")))?;
    let started = Instant::now();
    while !session.done() {
        if started.elapsed() > EXCHANGE_TIMEOUT {
            return Err(server(format!("no complete answer from {url} within {} s", EXCHANGE_TIMEOUT.as_secs())));
        }
        let message = match socket.read() {
            Ok(m) => m,
            Err(tungstenite::Error::Io(e))
                if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) =>
            {
                continue
            }
            Err(e) => return Err(server(format!("the connection dropped mid-exchange ({e})"))),
        };
        if let tungstenite::Message::Binary(bytes) = message {
            for reply in session.receive(replica, &bytes)? {
                socket
                    .send(tungstenite::Message::binary(reply))
                    .map_err(|e| server(format!("the connection dropped ({e})")))?;
            }
        }
    }
    let _ = socket.close(None);
    Ok(())
}
