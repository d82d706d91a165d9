//! One sync, the Sleep lease and a synced write, as every device runs them: the steps are
//! written here once, over small traits for what differs between the page and the command
//! line — where the device's state is kept ([`ReplicaKeeper`]), how one y-sync exchange reaches
//! the server ([`Exchange`]), where random bytes come from ([`Random`]) and how the
//! memory's writers are held off while records are merged (the core's
//! `nocturne_core::write::WriteLock`, which every write holds too); and the Sleep lease
//! ([`Lease`], asked of the server by [`ServerLease`]).
//!
//! The order of a sync: load (or join) → exchange (fetch the header and records) → open
//! the space with the passphrase → under the write lock: take up what this device recorded
//! meanwhile, check in the memory it joined with, adopt writes made outside sync, seal what
//! waits, merge → save → exchange (send) → save. A failure at any step loses nothing: what
//! was sealed and merged is saved before it is sent, and the next sync sends it again.

use crate::crypto::KdfParams;
use crate::record::Op;
use crate::replay::{Performed, Watch};
use crate::replica::Replica;
use crate::{device, Device, Merged, SyncError};
use nocturne_core::llm::provider::Provider;
use nocturne_core::store::Store;
use nocturne_core::write::WriteLock;
use serde::{Deserialize, Serialize};

/// What a device keeps about its space, beside its memory: no key, no passphrase.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    /// When the last sync completed (Unix seconds), and what it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_sync: Option<(i64, String)>,
}

fn default_kdf() -> KdfParams {
    KdfParams::DEFAULT
}

/// Where a device's sync state is kept: all a write needs to be recorded for the next sync
/// ([`act`], [`erase`], the journal). It never reads the replica, so a writer that does
/// not sync itself (the page, whose sync runs in a worker) carries no Yjs.
#[allow(async_fn_in_trait)]
pub trait StateKeeper {
    /// The state, when this memory has joined a space.
    async fn state(&self) -> Result<Option<Joined>, SyncError>;
    /// Saves the state, leaving the replica as it is.
    async fn save_state(&self, joined: &Joined) -> Result<(), SyncError>;
}

/// Where a device's sync state and its replica of the space are kept: what a sync and the
/// Sleep lease need.
#[allow(async_fn_in_trait)]
pub trait ReplicaKeeper: StateKeeper {
    /// The state and replica, when this memory has joined a space.
    async fn load(&self) -> Result<Option<(Joined, Replica)>, SyncError>;
    /// Saves the state and the replica, so that neither is ever half written.
    async fn save(&self, joined: &Joined, replica: &Replica) -> Result<(), SyncError>;
}

/// One y-sync exchange with the server at `url`: sends what it lacks, applies to
/// `replica` what it has, and returns once the server has acknowledged everything.
#[allow(async_fn_in_trait)]
pub trait Exchange {
    async fn exchange(&self, url: &str, replica: &Replica, nonce: [u8; 8]) -> Result<(), SyncError>;
}

/// Random bytes: the operating system's, WebCrypto's.
pub trait Random {
    fn fill(&self, bytes: &mut [u8]) -> Result<(), SyncError>;
}

/// The space's Sleep lease, taken around a Sleep (or a reviewed plan's application) of a
/// memory that syncs, so one device sleeps at a time.
#[allow(async_fn_in_trait)]
pub trait Lease {
    /// Takes it: [`SyncError::LeaseHeld`] when another device holds it (nothing may be
    /// written); `Ok(Some(note))` when the server could not be asked (the Sleep goes ahead);
    /// `Ok(None)` when taken.
    async fn take(&self, now: i64) -> Result<Option<String>, SyncError>;
    /// Gives it back (best effort: it expires by itself).
    async fn release(&self, now: i64);
}

/// The lease asked of the space's server through this device's replica ([`take_lease`]):
/// the command line's, and the page's sync worker's.
pub struct ServerLease<'a, K, E, R> {
    pub keeper: &'a K,
    pub exchange: &'a E,
    pub random: &'a R,
}

impl<K: ReplicaKeeper, E: Exchange, R: Random> Lease for ServerLease<'_, K, E, R> {
    async fn take(&self, now: i64) -> Result<Option<String>, SyncError> {
        take_lease(self.keeper, self.exchange, self.random, now).await
    }
    async fn release(&self, now: i64) {
        release_lease(self.keeper, self.exchange, self.random, now).await
    }
}

/// How a device asks to sync.
#[derive(Clone, Debug)]
pub struct Ask<'a> {
    /// Required the first time; given later, it replaces the one kept.
    pub server: Option<&'a str>,
    /// The space to join the first time (`None`: make a new one); later it must match.
    pub space: Option<&'a str>,
    pub device_name: Option<&'a str>,
    pub passphrase: &'a str,
    /// Argon2id's cost for a space this device creates (tests use a cheap one).
    pub kdf: KdfParams,
    /// What this device is, for its default name: `browser`, `command line`.
    pub kind: &'a str,
    /// How to start over with an empty memory here, for the refusal to join with a memory
    /// a space that holds one.
    pub empty_hint: &'a str,
}

/// What one sync did.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Synced {
    pub joined: Joined,
    /// Records sealed and sent.
    pub sealed: usize,
    pub merged: Merged,
    /// Records in the space.
    pub records: usize,
    /// The memory's head digest, the same on every device that has the same records.
    pub head: String,
    /// Writes made outside sync (an import, a restore, another program) went out as a
    /// checkpoint of this memory.
    pub outside_writes: bool,
}

impl Synced {
    /// The lines a device shows for it.
    pub fn lines(&self, turns: u32) -> Vec<String> {
        let mut out = vec![format!(
            "sync: device {} ({}) space {}; sealed {} record(s); applied {} from other devices{}; {} record(s) in the space; {turns} turns; head {}",
            self.joined.device.name,
            self.joined.device.id,
            self.joined.space,
            self.sealed,
            self.merged.applied,
            if self.merged.rebuilt { ", rebuilt in the one order" } else { "" },
            self.records,
            self.head
        )];
        if self.outside_writes {
            out.push(
                "  writes made outside sync (an import, a restore, another program) went out as a checkpoint of this memory"
                    .into(),
            );
        }
        out.extend(self.merged.notes.iter().map(|n| format!("  {n}")));
        out.extend(self.merged.unauthentic.iter().map(|id| {
            format!("  refused record {id}: it does not authenticate under the space's key (tampered or corrupt); nothing of it was applied")
        }));
        out
    }
}

fn bytes<const N: usize>(random: &impl Random) -> Result<[u8; N], SyncError> {
    let mut b = [0u8; N];
    random.fill(&mut b)?;
    Ok(b)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The state of a device joining now, as `ask` says.
fn join(ask: &Ask<'_>, random: &impl Random) -> Result<(Joined, Replica), SyncError> {
    let server = ask.server.map(str::trim).filter(|s| !s.is_empty());
    let server =
        server.ok_or_else(|| SyncError::Ask("the first sync needs the server's address (ws://HOST:PORT)".into()))?;
    let id = hex(&bytes::<4>(random)?);
    let name = ask.device_name.map(str::trim).filter(|n| !n.is_empty());
    let name = name.map_or_else(|| format!("{} {id}", ask.kind), String::from);
    let space = ask.space.map(str::trim).filter(|s| !s.is_empty());
    let space = match space {
        Some(s) => s.to_string(),
        None => hex(&bytes::<8>(random)?),
    };
    // A Yjs client id a JavaScript peer can hold exactly.
    let client_id = u64::from(u32::from_le_bytes(bytes::<4>(random)?));
    let joined = Joined {
        server: server.into(),
        space,
        client_id,
        kdf: ask.kdf,
        device: Device::new(&id, &name),
        last_sync: None,
    };
    Ok((joined, Replica::new(client_id)))
}

/// One sync: join (the first time), fetch, seal what waits, merge under the write lock,
/// send. Fails with a message a person can act on; a failure loses nothing.
pub async fn sync<S: Store>(
    keeper: &impl ReplicaKeeper,
    exchange: &impl Exchange,
    random: &impl Random,
    lock: &impl WriteLock,
    store: &S,
    ask: &Ask<'_>,
    now: i64,
) -> Result<Synced, SyncError> {
    if ask.passphrase.is_empty() {
        return Err(SyncError::Ask("the space's passphrase is empty (it is never stored: give it each time)".into()));
    }
    let (mut joined, replica) = match keeper.load().await? {
        Some((joined, replica)) => {
            if let Some(space) = ask.space.map(str::trim).filter(|s| !s.is_empty() && *s != joined.space) {
                return Err(SyncError::Ask(format!(
                    "this memory already syncs with space {}; it cannot join {space} (leave that space first); nothing was changed",
                    joined.space
                )));
            }
            (joined, replica)
        }
        None => join(ask, random)?,
    };
    if let Some(server) = ask.server.map(str::trim).filter(|s| !s.is_empty()) {
        joined.server = server.to_string();
    }
    let url = crate::session::url(&joined.server, &joined.space);
    // Fetch what the space holds, its header first of all.
    exchange.exchange(&url, &replica, bytes(random)?).await?;
    let key = crate::open_space(&replica, ask.passphrase, (joined.kdf, bytes(random)?, bytes(random)?))?;
    let (sealed, merged, outside_writes) = lock
        .hold(async {
            // What this device recorded while the exchange ran (a chat turn) is in the saved
            // state, not in the one read before it.
            if let Some(fresh) = keeper.state().await? {
                joined.device = fresh.device;
            }
            let empty = store.meta().await?.head == 0 && store.turn_count().await? == 0;
            if joined.device.applied.is_empty() && !empty {
                if !replica.is_empty() {
                    return Err(SyncError::Ask(format!(
                        "this device already holds a memory and space {} holds one too; {}; nothing was changed",
                        joined.space, ask.empty_hint
                    )));
                }
                crate::checkpoint(&mut joined.device, store, now, "joined with this memory").await?;
            }
            let outside = crate::adopt_outside_writes(&mut joined.device, store, now).await?;
            let mut failed = None;
            let sealed = crate::flush(&mut joined.device, &replica, &key, || {
                bytes(random).unwrap_or_else(|e| {
                    failed = Some(e);
                    [0; 12]
                })
            });
            if let Some(e) = failed {
                return Err(e);
            }
            let sealed = sealed?;
            let merged = crate::merge(&mut joined.device, &replica, &key, store).await?;
            // What was sealed and merged is saved before it is sent: a dropped connection
            // loses nothing.
            keeper.save(&joined, &replica).await?;
            Ok((sealed, merged, outside))
        })
        .await?;
    exchange.exchange(&url, &replica, bytes(random)?).await?;
    let head = crate::head_digest(store).await?;
    lock.hold(async {
        // A write recorded while the records were sent (a chat turn) is in the saved state:
        // this save keeps it waiting for the next sync instead of writing over it.
        if let Some(fresh) = keeper.state().await? {
            joined.device = fresh.device;
        }
        joined.last_sync = Some((now, format!("sealed {sealed}, applied {} from other devices", merged.applied)));
        keeper.save(&joined, &replica).await
    })
    .await?;
    Ok(Synced { records: replica.len(), joined, sealed, merged, head, outside_writes })
}

/// Before a Sleep of a memory that syncs: takes the space's Sleep lease, so one device
/// sleeps at a time. [`SyncError::LeaseHeld`] when another device holds it (nothing was written);
/// `Ok(Some(note))` when the server could not be asked (the Sleep goes ahead: one planned
/// on a head another device moved is refused as stale at the next sync); `Ok(None)` when
/// taken, or when the memory does not sync.
pub async fn take_lease(
    keeper: &impl ReplicaKeeper,
    exchange: &impl Exchange,
    random: &impl Random,
    now: i64,
) -> Result<Option<String>, SyncError> {
    let Some((joined, replica)) = keeper.load().await? else { return Ok(None) };
    let url = crate::session::url(&joined.server, &joined.space);
    if let Err(e) = exchange.exchange(&url, &replica, bytes(random)?).await {
        return Ok(Some(format!("the Sleep lease could not be checked ({e}); sleeping anyway")));
    }
    if let Err(held) = device::take_lease(&replica, &joined.device, now) {
        return Err(SyncError::LeaseHeld(device::lease_refusal(&joined.device, &held)));
    }
    keeper.save(&joined, &replica).await?;
    let sent = exchange.exchange(&url, &replica, bytes(random)?).await;
    Ok(sent.err().map(|e| format!("the Sleep lease was taken here but not sent ({e})")))
}

/// After a Sleep: gives the lease back (best effort: it expires by itself).
pub async fn release_lease(keeper: &impl ReplicaKeeper, exchange: &impl Exchange, random: &impl Random, now: i64) {
    let Ok(Some((joined, replica))) = keeper.load().await else { return };
    device::release_lease(&replica, &joined.device, now);
    if keeper.save(&joined, &replica).await.is_ok() {
        if let Ok(nonce) = bytes(random) {
            let url = crate::session::url(&joined.server, &joined.space);
            let _ = exchange.exchange(&url, &replica, nonce).await;
        }
    }
}

/// Does `op` as this device when the memory syncs, kept for the next sync; `None` when it
/// does not, and the caller writes as usual.
pub async fn act<S: Store, P: Provider>(
    keeper: &impl StateKeeper,
    store: &S,
    provider: &P,
    op: Op,
    at: i64,
    watch: &mut Watch<'_>,
) -> Result<Option<Performed>, SyncError> {
    let Some(mut joined) = keeper.state().await? else { return Ok(None) };
    let done = crate::act_watched(&mut joined.device, store, provider, op, at, watch).await?;
    keeper.save_state(&joined).await?;
    Ok(Some(done))
}

/// [`act`] for an operation that asks no model (`device::act_plain`).
pub async fn act_plain<S: Store>(
    keeper: &impl StateKeeper,
    store: &S,
    op: Op,
    at: i64,
    watch: &mut Watch<'_>,
) -> Result<Option<Performed>, SyncError> {
    let Some(mut joined) = keeper.state().await? else { return Ok(None) };
    let done = crate::act_plain(&mut joined.device, store, op, at, watch).await?;
    keeper.save_state(&joined).await?;
    Ok(Some(done))
}

/// Erases as this device when the memory syncs: the words leave this memory now and every
/// copy at the next sync. `None` when it does not sync.
pub async fn erase<S: Store>(
    keeper: &impl StateKeeper,
    store: &S,
    item_id: &str,
    at: i64,
) -> Result<Option<nocturne_core::store::erase::Erased>, SyncError> {
    let Some(mut joined) = keeper.state().await? else { return Ok(None) };
    let erased = crate::erase(&mut joined.device, store, item_id, at).await?;
    keeper.save_state(&joined).await?;
    Ok(Some(erased))
}
