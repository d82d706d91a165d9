//! `nocturne sync`: the store file as one device of a sync space on a y-sweet server —
//! the WebSocket, the files beside the store, the passphrase from the environment; the
//! records, their replay and the encryption are `nocturne-sync`'s.
//!
//! Beside `memory.json` live `memory.json.sync.json` (this device's id, name, the records
//! it applied and the ones not yet sealed: no key, no passphrase) and
//! `memory.json.sync.ydoc` (this replica of the space: sealed records only). A store file
//! with these files records every chat turn, edit, Sleep and erase made on it, and the
//! next `nocturne sync` seals and sends them.

use crate::file::FileStore;
use nocturne_core::llm::provider::Provider;
use nocturne_sync::crypto::KdfParams;
use nocturne_sync::engine::Replica;
use nocturne_sync::procedure::{self, Ask, Exchange, Keeper, Random, StoreLocks};
use nocturne_sync::record::Op;
use nocturne_sync::replay::Watch;
use nocturne_sync::session::Session;
use nocturne_sync::SyncError;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use nocturne_sync::procedure::Joined;

/// How long one exchange with the server may take before it counts as dropped.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(30);

/// The two files beside a store that hold its sync state.
pub struct Files<'a>(pub &'a Path);

impl Files<'_> {
    fn state(&self) -> PathBuf {
        PathBuf::from(format!("{}.sync.json", self.0.display()))
    }

    fn replica(&self) -> PathBuf {
        PathBuf::from(format!("{}.sync.ydoc", self.0.display()))
    }

    /// This store's sync state, when it has joined a space.
    pub fn joined(&self) -> Result<Option<Joined>, String> {
        let path = self.state();
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| format!("{} is not a sync state file ({e}); nothing was changed", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        }
    }
}

impl Keeper for Files<'_> {
    async fn load(&self) -> Result<Option<(Joined, Replica)>, String> {
        let Some(joined) = self.joined()? else { return Ok(None) };
        let replica = match std::fs::read(self.replica()) {
            Ok(bytes) => Replica::load(joined.client_id, &bytes).map_err(|e| e.to_string())?,
            Err(_) => Replica::new(joined.client_id),
        };
        Ok(Some((joined, replica)))
    }

    async fn save(&self, joined: &Joined, replica: Option<&Replica>) -> Result<(), String> {
        let json = serde_json::to_string_pretty(joined).map_err(|e| e.to_string())?;
        write_aside(&self.state(), json.as_bytes())?;
        if let Some(r) = replica {
            write_aside(&self.replica(), &r.state())?;
        }
        Ok(())
    }
}

/// Whether the store at `store` syncs.
pub fn syncs(store: &Path) -> Result<bool, String> {
    Ok(Files(store).joined()?.is_some())
}

/// Writes `bytes` to a file beside `path`, then renames it over `path`.
fn write_aside(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = PathBuf::from(format!("{}.tmp", path.display()));
    std::fs::write(&tmp, bytes).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot replace {}: {e}", path.display()))
}

/// Random bytes from the operating system.
struct Os;

impl Random for Os {
    fn fill(&self, bytes: &mut [u8]) -> Result<(), String> {
        getrandom::getrandom(bytes).map_err(|e| format!("no randomness from the system: {e}"))
    }
}

/// The y-sync exchange over a blocking WebSocket (`tungstenite`, ws:// only).
struct Socket;

impl Exchange for Socket {
    async fn exchange(&self, url: &str, replica: &Replica, nonce: [u8; 8]) -> Result<(), String> {
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
pub fn sync(req: &SyncRequest<'_>) -> Result<(), String> {
    let passphrase = std::env::var(req.passphrase_env).map_err(|_| {
        format!("set the passphrase in the environment variable {} (it is never printed)", req.passphrase_env)
    })?;
    let memory = FileStore::open(req.store)?;
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
    let turns = pollster::block_on(nocturne_core::store::Store::turn_count(&memory)).map_err(|e| e.to_string())?;
    for line in synced.lines(turns) {
        println!("{line}");
    }
    Ok(())
}

/// One y-sync exchange over a WebSocket: sends what the server lacks, applies what this
/// replica lacks, and returns when the server has acknowledged holding everything.
fn exchange(url: &str, replica: &Replica, nonce: [u8; 8]) -> Result<(), String> {
    let server = |m: String| SyncError::Server(m).to_string();
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
            for reply in session.receive(replica, &bytes).map_err(|e| e.to_string())? {
                socket
                    .send(tungstenite::Message::binary(reply))
                    .map_err(|e| server(format!("the connection dropped ({e})")))?;
            }
        }
    }
    let _ = socket.close(None);
    Ok(())
}

/// Before a Sleep on a store that syncs: takes the space's Sleep lease
/// ([`procedure::take_lease`]).
pub fn take_lease(store: &Path, now: i64) -> Result<Option<String>, String> {
    pollster::block_on(procedure::take_lease(&Files(store), &Socket, &Os, now))
}

/// After a Sleep: gives the lease back (best effort: it expires by itself).
pub fn release_lease(store: &Path, now: i64) {
    pollster::block_on(procedure::release_lease(&Files(store), &Socket, &Os, now))
}

/// Does `op` on a store file that syncs, as this device, and keeps it for the next sync.
/// Returns `None` when the store does not sync (the caller writes as usual).
pub fn act<P: Provider>(
    store: &Path,
    memory: &FileStore,
    provider: &P,
    op: Op,
    now: i64,
) -> Result<Option<nocturne_sync::replay::Performed>, String> {
    let mut watch = Watch { stop: Default::default(), on_event: &mut |_| {} };
    pollster::block_on(procedure::act(&Files(store), memory, provider, op, now, &mut watch))
}

/// [`act`] for a Sleep, its passes shown to `on_event` and its Stop read from `options`.
pub fn act_watched<P: Provider>(
    store: &Path,
    memory: &FileStore,
    provider: &P,
    op: Op,
    options: &nocturne_core::flow::sleep::SleepOptions,
    on_event: &mut dyn FnMut(&nocturne_core::flow::sleep::PassEvent),
) -> Result<Option<nocturne_sync::replay::Performed>, String> {
    let mut watch = Watch { stop: options.stop.clone(), on_event };
    pollster::block_on(procedure::act(&Files(store), memory, provider, op, options.now, &mut watch))
}

/// Erases on a store file that syncs: the words leave this store now and every copy at the
/// next sync. `None` when the store does not sync.
pub fn erase(
    store: &Path,
    memory: &FileStore,
    item_id: &str,
    now: i64,
) -> Result<Option<nocturne_core::store::erase::Erased>, String> {
    pollster::block_on(procedure::erase(&Files(store), memory, item_id, now))
}
