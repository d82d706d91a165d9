//! Sync in the browser, the page's half: this device's sync state in IndexedDB (all a write
//! needs to be recorded for the next sync), the one write path over it, and the sync itself
//! and the Sleep lease asked of the sync worker ([`worker`]: a wasm module of its own,
//! `nocturne-sync-worker`, fetched the first time the memory syncs or takes the lease). The
//! sync library (Yjs), the key derivation, the sealing, the replay of other devices' records and
//! the record reader (the page keeps the records it makes as their JSON,
//! `nocturne_sync::device::Pending`) are in that module only: the page's bundle carries
//! none of them and its thread runs none of them.
//!
//! The passphrase lives only in the Settings panel's field for the session and in the one
//! message that hands it to the worker: it is never stored, logged or exported. The
//! device's state (its id, name, the records it applied and the ones waiting), its replica
//! of the space (sealed records only) and a summary of that replica are kept in their own
//! database, `nocturne-sync:<memory>`, so an erase or a rebuild of the memory's rows never
//! touches them.

pub mod worker;

use crate::idb::IdbStore;
use crate::lock::Tabs;
use nocturne_core::llm::provider::Provider;
use nocturne_core::write::{Done, Journal, Perform, Watch, WriteError};
use nocturne_sync::procedure::StateKeeper;
use nocturne_sync::recorder::Syncing;
use nocturne_sync::replica::Lease;
use nocturne_sync::SyncError;
use rexie::{ObjectStore, Rexie, TransactionMode};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

pub use nocturne_sync::procedure::{Joined, Synced};

const STATE: &str = "state";
/// The keys of the sync state's rows.
const JOINED: &str = "joined";
const REPLICA: &str = "replica";
const SUMMARY: &str = "summary";

fn db_name(memory: &str) -> String {
    format!("nocturne-sync:{memory}")
}

async fn db(memory: &str) -> Result<Rexie, SyncError> {
    Rexie::builder(&db_name(memory))
        .version(1)
        .add_object_store(ObjectStore::new(STATE))
        .build()
        .await
        .map_err(|e| SyncError::State(format!("cannot open the sync state ({e:?})")))
}

/// What the replica held when it was last saved (by a sync or the lease), kept beside it so
/// the page can show it without the sync library (Yjs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Records in this copy of the space.
    pub records: usize,
    /// The space's Sleep lease, when one was held.
    pub lease: Option<Lease>,
}

/// What the user typed to sync.
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct Ask {
    pub server: String,
    /// Empty: make a new space.
    pub space: String,
    pub device_name: String,
    /// Never stored, logged or exported (and so no `Debug`).
    pub passphrase: String,
}

/// The rows of this memory's sync state named by `keys`, read in one transaction.
async fn read<const N: usize>(db: &Rexie, keys: [&str; N]) -> Result<[Option<JsValue>; N], SyncError> {
    let failed = |e: rexie::Error| SyncError::State(format!("cannot read the sync state ({e:?})"));
    let tx = db.transaction(&[STATE], TransactionMode::ReadOnly).map_err(failed)?;
    let s = tx.store(STATE).map_err(failed)?;
    let mut out = [const { None }; N];
    for (slot, key) in out.iter_mut().zip(keys) {
        *slot = s.get(JsValue::from_str(key)).await.map_err(failed)?.filter(|v| !v.is_undefined());
    }
    Ok(out)
}

/// The device's state from its row, when this memory has joined a space.
fn joined_of(row: Option<JsValue>) -> Result<Option<Joined>, SyncError> {
    let Some(text) = row.and_then(|v| v.as_string()) else { return Ok(None) };
    serde_json::from_str(&text).map(Some).map_err(|e| SyncError::State(format!("the sync state is unreadable ({e})")))
}

/// This memory's sync state, when it has joined a space, and what its replica held at the
/// last sync (`None` when no sync has saved a summary yet).
pub async fn load(memory: &str) -> Result<Option<(Joined, Option<Summary>)>, SyncError> {
    let db = db(memory).await?;
    let [joined, summary] = read(&db, [JOINED, SUMMARY]).await?;
    db.close();
    let Some(joined) = joined_of(joined)? else { return Ok(None) };
    let summary = summary.and_then(|v| v.as_string()).and_then(|t| serde_json::from_str(&t).ok());
    Ok(Some((joined, summary)))
}

/// Leaves the space: the sync state goes, the memory stays as it is.
pub async fn leave(memory: &str) -> Result<(), SyncError> {
    Rexie::delete(&db_name(memory)).await.map_err(|e| SyncError::State(format!("cannot remove the sync state ({e:?})")))
}

/// This memory's sync state in IndexedDB: the state alone on the page, the replica too in
/// the sync worker ([`worker`]). Its database is opened at the first use and closed with
/// the keeper (an import asks once per piece: opening it each time cost a fifth of a
/// 5,000-conversation import).
pub struct Idb {
    memory: String,
    opened: RefCell<Option<Rc<Rexie>>>,
}

impl Idb {
    pub fn new(memory: String) -> Idb {
        Idb { memory, opened: RefCell::new(None) }
    }

    async fn db(&self) -> Result<Rc<Rexie>, SyncError> {
        if let Some(db) = self.opened.borrow().clone() {
            return Ok(db);
        }
        let db = Rc::new(db(&self.memory).await?);
        *self.opened.borrow_mut() = Some(db.clone());
        Ok(db)
    }
}

impl Drop for Idb {
    fn drop(&mut self) {
        if let Some(db) = self.opened.take().and_then(|db| Rc::try_unwrap(db).ok()) {
            db.close();
        }
    }
}

impl StateKeeper for Idb {
    async fn state(&self) -> Result<Option<Joined>, SyncError> {
        let [joined] = read(&*self.db().await?, [JOINED]).await?;
        joined_of(joined)
    }
    async fn save_state(&self, joined: &Joined) -> Result<(), SyncError> {
        let failed =
            |e: rexie::Error| SyncError::State(format!("cannot save the sync state ({e:?}); the memory is as it was"));
        let db = self.db().await?;
        let tx = db.transaction(&[STATE], TransactionMode::ReadWrite).map_err(failed)?;
        let s = tx.store(STATE).map_err(failed)?;
        let json = serde_json::to_string(joined).map_err(|e| SyncError::State(e.to_string()))?;
        s.put(&JsValue::from_str(&json), Some(&JsValue::from_str(JOINED))).await.map_err(failed)?;
        tx.done().await.map_err(failed)?;
        Ok(())
    }
}

/// One sync, in the sync worker: join (the first time), fetch, seal what waits, merge
/// under the write lock, send. Fails with a message a person can act on; a failure loses
/// nothing.
pub async fn sync_now(store: &IdbStore, ask: &Ask, now: i64) -> Result<Synced, SyncError> {
    if ask.passphrase.is_empty() {
        return Err(SyncError::Ask("type the space's passphrase (it is never stored)".into()));
    }
    worker::sync(&store.name(), ask, now).await
}

/// The one write path over this memory (`nocturne_core::write`): every write of the page's
/// job worker is a command performed by it, under the Web Lock every tab takes, recorded
/// for the next sync (and under the space's Sleep lease, asked of the sync worker) when
/// the memory syncs. One per job: its sync state is opened once, however many commands.
pub struct Writer<'a> {
    store: &'a IdbStore,
    keeper: Idb,
    lease: worker::Leasing,
}

impl<'a> Writer<'a> {
    pub fn new(store: &'a IdbStore) -> Writer<'a> {
        Writer { store, keeper: Idb::new(store.name()), lease: worker::Leasing(store.name()) }
    }

    /// Performs `command`, asking `provider` when it needs a model.
    pub async fn perform<C: Perform, P: Provider>(
        &self,
        command: C,
        provider: &P,
        watch: &mut Watch<'_>,
    ) -> Result<Done<C::Output>, WriteError> {
        let sync = Syncing { keeper: &self.keeper, lease: &self.lease };
        Journal::new(self.store, &Tabs, &sync).perform(command, provider, watch).await
    }
}
