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
use nocturne_core::store::Store;
use nocturne_sync::crypto::KdfParams;
use nocturne_sync::engine::Replica;
use nocturne_sync::record::Op;
use nocturne_sync::session::Session;
use nocturne_sync::{Device, Merged, SyncError};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long one exchange with the server may take before it counts as dropped.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(30);

/// What this device keeps about its space, saved beside the store.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Joined {
    pub server: String,
    pub space: String,
    /// This replica's Yjs client id.
    pub client_id: u64,
    /// Argon2id's cost for a space this device creates.
    #[serde(default = "default_kdf")]
    pub kdf: KdfParams,
    pub device: Device,
}

fn default_kdf() -> KdfParams {
    KdfParams::DEFAULT
}

fn state_path(store: &Path) -> PathBuf {
    PathBuf::from(format!("{}.sync.json", store.display()))
}

fn replica_path(store: &Path) -> PathBuf {
    PathBuf::from(format!("{}.sync.ydoc", store.display()))
}

impl Joined {
    /// This store's sync state, when it has joined a space.
    pub fn load(store: &Path) -> Result<Option<Joined>, String> {
        let path = state_path(store);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| format!("{} is not a sync state file ({e}); nothing was changed", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        }
    }

    fn save(&self, store: &Path, replica: Option<&Replica>) -> Result<(), String> {
        let json = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        write_aside(&state_path(store), json.as_bytes())?;
        if let Some(r) = replica {
            write_aside(&replica_path(store), &r.state())?;
        }
        Ok(())
    }
}

/// Writes `bytes` to a file beside `path`, then renames it over `path`.
fn write_aside(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = PathBuf::from(format!("{}.tmp", path.display()));
    std::fs::write(&tmp, bytes).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot replace {}: {e}", path.display()))
}

/// Random bytes from the operating system.
fn random<const N: usize>() -> Result<[u8; N], String> {
    let mut b = [0u8; N];
    getrandom::getrandom(&mut b).map_err(|e| format!("no randomness from the system: {e}"))?;
    Ok(b)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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
    let mut joined = match Joined::load(req.store)? {
        Some(j) => {
            if let Some(space) = req.space.filter(|s| *s != j.space) {
                return Err(format!(
                    "this store already syncs with space {}; it cannot join {space} (leave first: remove {})",
                    j.space,
                    state_path(req.store).display()
                ));
            }
            j
        }
        None => {
            let server = req.server.ok_or("the first sync needs --server ws://HOST:PORT")?;
            let space = match req.space {
                Some(s) => s.to_string(),
                None => hex(&random::<8>()?),
            };
            let id = hex(&random::<4>()?);
            let name = req.device_name.map_or_else(|| format!("command line {id}"), String::from);
            let client_id = u64::from_le_bytes(random::<8>()?);
            Joined { server: server.into(), space, client_id, kdf: req.kdf, device: Device::new(&id, &name) }
        }
    };
    if let Some(server) = req.server {
        joined.server = server.to_string();
    }
    let replica = match std::fs::read(replica_path(req.store)) {
        Ok(bytes) => Replica::load(joined.client_id, &bytes).map_err(|e| e.to_string())?,
        Err(_) => Replica::new(joined.client_id),
    };
    let url = nocturne_sync::session::url(&joined.server, &joined.space);
    // Fetch what the space holds (its header first of all).
    exchange(&url, &replica)?;
    let salt = random::<16>()?;
    let check_nonce = random::<12>()?;
    let key =
        nocturne_sync::open_space(&replica, &passphrase, (joined.kdf, salt, check_nonce)).map_err(|e| e.to_string())?;
    // What another process recorded on this store meanwhile (a chat turn) is in the saved
    // state, not in the one read before the exchange.
    if let Some(fresh) = Joined::load(req.store)? {
        joined.device = fresh.device;
    }
    let memory = FileStore::open(req.store)?;
    let store_empty = pollster::block_on(memory.meta()).map_err(|e| e.to_string())?.head == 0
        && pollster::block_on(memory.turn_count()).map_err(|e| e.to_string())? == 0;
    if joined.device.applied.is_empty() && !store_empty {
        if !replica.is_empty() {
            return Err(format!(
                "{} already holds a memory and space {} holds one too; sync an empty store into the space (nothing was changed)",
                req.store.display(),
                joined.space
            ));
        }
        pollster::block_on(nocturne_sync::checkpoint(&mut joined.device, &memory, req.now, "joined with this memory"))
            .map_err(|e| e.to_string())?;
    }
    if pollster::block_on(nocturne_sync::adopt_outside_writes(&mut joined.device, &memory, req.now))
        .map_err(|e| e.to_string())?
    {
        println!(
            "  writes made outside sync (an import, a restore, another program) go out as a checkpoint of this memory"
        );
    }
    let mut nonce_err = None;
    let sealed = nocturne_sync::flush(&mut joined.device, &replica, &key, || {
        random::<12>().unwrap_or_else(|e| {
            nonce_err = Some(e);
            [0; 12]
        })
    });
    if let Some(e) = nonce_err {
        return Err(e);
    }
    let merged = pollster::block_on(nocturne_sync::merge(&mut joined.device, &replica, &key, &memory))
        .map_err(|e| e.to_string())?;
    // What was sealed and merged is saved before it is sent: a dropped connection loses nothing.
    joined.save(req.store, Some(&replica))?;
    exchange(&url, &replica)?;
    joined.save(req.store, Some(&replica))?;
    report(&joined, &memory, &replica, sealed, &merged)
}

fn report(
    joined: &Joined,
    memory: &FileStore,
    replica: &Replica,
    sealed: usize,
    merged: &Merged,
) -> Result<(), String> {
    let digest = pollster::block_on(nocturne_sync::head_digest(memory)).map_err(|e| e.to_string())?;
    let turns = pollster::block_on(memory.turn_count()).map_err(|e| e.to_string())?;
    println!(
        "sync: device {} ({}) space {}; sealed {sealed} record(s); applied {} from other devices{}; {} record(s) in the space; {turns} turns; head {digest}",
        joined.device.name,
        joined.device.id,
        joined.space,
        merged.applied,
        if merged.rebuilt { ", rebuilt in the one order" } else { "" },
        replica.len(),
    );
    for n in &merged.notes {
        println!("  {n}");
    }
    for id in &merged.unauthentic {
        println!("  refused record {id}: it does not authenticate under the space's key (tampered or corrupt); nothing of it was applied");
    }
    Ok(())
}

/// One y-sync exchange over a WebSocket: sends what the server lacks, applies what this
/// replica lacks, and returns when the server has acknowledged holding everything.
fn exchange(url: &str, replica: &Replica) -> Result<(), String> {
    let server = |m: String| SyncError::Server(m).to_string();
    let (mut socket, _) = tungstenite::connect(url).map_err(|e| server(format!("cannot connect to {url} ({e})")))?;
    if let tungstenite::stream::MaybeTlsStream::Plain(s) = socket.get_mut() {
        let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    }
    let (mut session, first) = Session::start(replica, random::<8>()?);
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

/// Before a Sleep on a store that syncs: takes the space's Sleep lease, so only one device
/// sleeps at a time. `Err` when another device holds it (nothing was written); `Ok(Some)`
/// with a note when the server could not be asked (the Sleep goes ahead: one planned on a
/// head another device moved is refused as stale at the next sync); `Ok(None)` when taken,
/// or when the store does not sync.
pub fn take_lease(store: &Path, now: i64) -> Result<Option<String>, String> {
    let Some(joined) = Joined::load(store)? else { return Ok(None) };
    let replica = match std::fs::read(replica_path(store)) {
        Ok(bytes) => Replica::load(joined.client_id, &bytes).map_err(|e| e.to_string())?,
        Err(_) => Replica::new(joined.client_id),
    };
    let url = nocturne_sync::session::url(&joined.server, &joined.space);
    if let Err(e) = exchange(&url, &replica) {
        return Ok(Some(format!("the Sleep lease could not be checked ({e}); sleeping anyway")));
    }
    if let Err(held) = nocturne_sync::device::take_lease(&replica, &joined.device, now) {
        return Err(nocturne_sync::device::lease_refusal(&joined.device, &held));
    }
    joined.save(store, Some(&replica))?;
    exchange(&url, &replica)
        .map(|_| None)
        .or_else(|e| Ok(Some(format!("the Sleep lease was taken here but not sent ({e})"))))
}

/// After a Sleep: gives the lease back (best effort: it expires by itself).
pub fn release_lease(store: &Path, now: i64) {
    let Ok(Some(joined)) = Joined::load(store) else { return };
    let Ok(bytes) = std::fs::read(replica_path(store)) else { return };
    let Ok(replica) = Replica::load(joined.client_id, &bytes) else { return };
    nocturne_sync::device::release_lease(&replica, &joined.device, now);
    let url = nocturne_sync::session::url(&joined.server, &joined.space);
    if joined.save(store, Some(&replica)).is_ok() {
        let _ = exchange(&url, &replica);
    }
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
    let Some(mut joined) = Joined::load(store)? else { return Ok(None) };
    let applied = pollster::block_on(nocturne_sync::act(&mut joined.device, memory, provider, op, now))
        .map_err(|e| e.to_string())?;
    joined.save(store, None)?;
    Ok(Some(applied))
}

/// Erases on a store file that syncs: the words leave this store now and every copy at the
/// next sync. `None` when the store does not sync.
pub fn erase(
    store: &Path,
    memory: &FileStore,
    item_id: &str,
    now: i64,
) -> Result<Option<nocturne_core::store::erase::Erased>, String> {
    let Some(mut joined) = Joined::load(store)? else { return Ok(None) };
    let erased = pollster::block_on(nocturne_sync::erase(&mut joined.device, memory, item_id, now))
        .map_err(|e| e.to_string())?;
    joined.save(store, None)?;
    Ok(Some(erased))
}
