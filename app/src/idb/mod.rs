//! `IdbStore`: the core Store trait over IndexedDB (rexie). Every commit is planned in
//! full first (core's `plan_rows`), then written in one readwrite transaction with
//! nothing but IndexedDB requests inside it, so a pass's edits and its versions land
//! together or not at all — with the indexes a read of a large memory needs
//! ([`index`]), kept in the same transaction, so a chat turn, a search and the page's
//! drawing read what they show ([`read`]), never the memory's lifetime.

mod index;
mod read;
mod write;

use js_sys::Array;
use nocturne_core::model::memory::{Block, Item, Mutation, Turn, Version};
use nocturne_core::store::{Commit, Meta, Shortlist, Store, StoreError};
use nocturne_core::text::order;
use nocturne_core::RetentionPolicy;
use rexie::{Index, KeyRange, ObjectStore, Rexie, TransactionMode};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::cell::Cell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::JsValue;
use write::{ChangeRow, Keys, Totals};

pub use read::CANDIDATE_FLOOR;

/// The IndexedDB schema version this build writes. Opening a database written by an
/// older build upgrades it in place (new object stores and indexes are added; rows are
/// kept, and written again with their index fields: [`IdbStore::open`]).
pub const DB_VERSION: u32 = 2;

const ITEMS: &str = "items";
const CHANGES: &str = "changes";
const VERSIONS: &str = "versions";
const MUTATIONS: &str = "mutations";
const TURNS: &str = "turns";
const META: &str = "meta";
/// The memory's statistics ([`index`]): numbers under string keys.
const STATS: &str = "stats";
const ALL: [&str; 7] = [ITEMS, CHANGES, VERSIONS, MUTATIONS, TURNS, META, STATS];

/// Memory in IndexedDB.
#[derive(Clone)]
pub struct IdbStore {
    db: Rc<Rexie>,
    rows_written: Rc<Cell<u64>>,
    /// Test seam: abort the next commit's transaction after writing this many rows.
    abort_after_rows: Rc<Cell<Option<u64>>>,
}

impl std::fmt::Debug for IdbStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdbStore").field("name", &self.db.name()).finish()
    }
}

/// Turns a rexie error into a StoreError a person can act on.
fn backend(what: &str, e: rexie::Error) -> StoreError {
    let detail = match &e {
        rexie::Error::IdbError(inner) => inner.to_string(),
        other => other.to_string(),
    };
    if detail.contains("QuotaExceeded") {
        StoreError::QuotaExceeded(format!("{what}: {detail}"))
    } else {
        StoreError::Backend(format!("{what}: {detail}"))
    }
}

/// A stored record: the key fields as plain JS values (for key paths and indexes) and the
/// row itself as one JSON string, which IndexedDB stores and returns far faster than an
/// object built field by field.
fn to_js<T: Serialize>(value: &T, keys: &[&str]) -> Result<JsValue, StoreError> {
    let encode = |e: serde_json::Error| StoreError::Backend(format!("cannot encode a record: {e}"));
    let json = serde_json::to_value(value).map_err(encode)?;
    let record = js_sys::Object::new();
    for key in keys {
        let field = match &json[*key] {
            serde_json::Value::String(s) => JsValue::from_str(s),
            serde_json::Value::Number(n) => JsValue::from_f64(n.as_f64().unwrap_or_default()),
            other => return Err(StoreError::Backend(format!("key field {key} is not a string or number: {other}"))),
        };
        js_sys::Reflect::set(&record, &JsValue::from_str(key), &field)
            .map_err(|_| StoreError::Backend("cannot build a record".into()))?;
    }
    let row = serde_json::to_string(&json).map_err(encode)?;
    js_sys::Reflect::set(&record, &JsValue::from_str("row"), &JsValue::from_str(&row))
        .map_err(|_| StoreError::Backend("cannot build a record".into()))?;
    Ok(record.into())
}

fn from_js<T: DeserializeOwned>(value: JsValue) -> Result<T, StoreError> {
    let row = js_sys::Reflect::get(&value, &JsValue::from_str("row")).ok().and_then(|r| r.as_string());
    let row = row.ok_or_else(|| {
        StoreError::Backend("a stored record has no row; the database may be from another program".into())
    })?;
    serde_json::from_str(&row).map_err(|e| StoreError::Backend(format!("a stored record is damaged: {e}")))
}

/// Rows decoded between two returns to the event loop: a read of ten thousand facts
/// decodes in slices of a few milliseconds instead of holding the page for one long task.
const ROWS_READ_PER_TASK: usize = 1000;

/// Decodes read records, [`ROWS_READ_PER_TASK`] a task. Only for records whose transaction is
/// over: one still open would commit at the first return to the event loop.
async fn decode_rows<T: DeserializeOwned>(values: Vec<JsValue>) -> Result<Vec<T>, StoreError> {
    let mut out = Vec::with_capacity(values.len());
    for (n, value) in values.into_iter().enumerate() {
        if n > 0 && n % ROWS_READ_PER_TASK == 0 {
            crate::task::next().await;
        }
        out.push(from_js(value)?);
    }
    Ok(out)
}

/// The memory's meta as `tx` sees it (the default before the first write). Read inside a
/// write's own transaction, so what is planned from it cannot go stale before it lands.
async fn meta_in(tx: &rexie::Transaction) -> Result<Meta, StoreError> {
    let s = tx.store(META).map_err(|e| backend("read", e))?;
    match s.get(JsValue::from_str(META)).await.map_err(|e| backend("cannot read meta", e))? {
        Some(v) if !v.is_undefined() => from_js(v),
        _ => Ok(Meta::default()),
    }
}

fn key2(a: &str, b: u64) -> JsValue {
    let arr = Array::new();
    arr.push(&JsValue::from_str(a));
    arr.push(&JsValue::from_f64(b as f64));
    arr.into()
}

impl IdbStore {
    /// Every object store of the schema, at `version`, with its indexes. An upgrade (a
    /// higher version) creates the stores and indexes that are missing and keeps their rows —
    /// and *deletes* any store or index not declared here, so a later release adds to this
    /// list and never removes from it.
    pub fn schema(name: &str, version: u32) -> rexie::RexieBuilder {
        // Flags given, so an upgrade finds each index as it is and keeps it.
        let index = |name: &str, path: &str, multi: bool| Index::new(name, path).unique(false).multi_entry(multi);
        Rexie::builder(name)
            .version(version)
            .add_object_store(
                ObjectStore::new(ITEMS)
                    .key_path("itemId")
                    .add_index(index("by_word", "words", true))
                    .add_index(index("by_root", "roots", true))
                    .add_index(index("by_recent", "recent", false))
                    .add_index(index("by_kind", "kind", false))
                    .add_index(index("by_block", "shown", false)),
            )
            .add_object_store(
                ObjectStore::new(CHANGES).key_path_array(["itemId", "seq"]).add_index(index("by_seq", "seq", false)),
            )
            .add_object_store(ObjectStore::new(VERSIONS).key_path("seq"))
            .add_object_store(
                ObjectStore::new(MUTATIONS)
                    .key_path("id")
                    .add_index(index("by_seq", "seq", false))
                    .add_index(index("by_name", "names", true)),
            )
            .add_object_store(ObjectStore::new(TURNS).key_path("index"))
            .add_object_store(ObjectStore::new(META))
            .add_object_store(ObjectStore::new(STATS))
    }

    /// Opens (creating or upgrading) the database called `name`. A memory an older build
    /// wrote has its facts and log written again with their index fields, and its
    /// statistics counted, before anything reads it.
    pub async fn open(name: &str) -> Result<IdbStore, StoreError> {
        let db = Self::schema(name, DB_VERSION)
            .build()
            .await
            .map_err(|e| backend(&format!("cannot open the database '{name}'"), e))?;
        let store = IdbStore {
            db: Rc::new(db),
            rows_written: Rc::new(Cell::new(0)),
            abort_after_rows: Rc::new(Cell::new(None)),
        };
        store.index_if_older().await?;
        Ok(store)
    }

    /// Deletes the database called `name` (tests only; the app never deletes memory).
    pub async fn delete(name: &str) -> Result<(), StoreError> {
        Rexie::delete(name).await.map_err(|e| backend("cannot delete the database", e))
    }

    /// Closes the connection (so the database can be deleted or upgraded) when this is
    /// the last handle to it; other handles keep it open.
    pub fn close(self) {
        if let Ok(db) = Rc::try_unwrap(self.db) {
            db.close();
        }
    }

    /// The database's name.
    pub fn name(&self) -> String {
        self.db.name()
    }

    /// Test seam: make the next commit write `rows` records, then abort its transaction —
    /// as if the tab died mid-pass.
    pub fn abort_next_commit_after(&self, rows: u64) {
        self.abort_after_rows.set(Some(rows));
    }

    /// Every record of `store` in key order, in one transaction, read a page of
    /// [`ROWS_READ_PER_TASK`] at a time: each page is decoded in the task that receives it
    /// (the next page asked for before that task ends keeps the transaction open), so no
    /// one answer, and no one task, is the whole memory.
    async fn read_all<T: DeserializeOwned>(&self, store: &str) -> Result<Vec<T>, StoreError> {
        let fail = |e| backend(&format!("cannot read {store}"), e);
        let tx = self.db.transaction(&[store], TransactionMode::ReadOnly).map_err(|e| backend("read", e))?;
        let s = tx.store(store).map_err(|e| backend("read", e))?;
        let mut out = Vec::new();
        let mut after: Option<JsValue> = None;
        loop {
            let range = match &after {
                None => None,
                Some(key) => Some(
                    KeyRange::lower_bound(key, Some(true))
                        .map_err(|e| StoreError::Backend(format!("bad key range: {e}")))?,
                ),
            };
            let page = ROWS_READ_PER_TASK as u32;
            let keys = s.get_all_keys(range.clone(), Some(page)).await.map_err(fail)?;
            let values = s.get_all(range, Some(page)).await.map_err(fail)?;
            let full = values.len() == ROWS_READ_PER_TASK;
            after = keys.last().cloned();
            for value in values {
                out.push(from_js(value)?);
            }
            if !full || after.is_none() {
                return Ok(out);
            }
        }
    }

    /// Records of `store` whose `seq` lies in `lo < seq <= hi`, through its `by_seq` index.
    async fn by_seq(&self, store: &str, lo: u64, hi: u64) -> Result<Vec<JsValue>, StoreError> {
        if hi <= lo {
            return Ok(Vec::new());
        }
        let tx = self.db.transaction(&[store], TransactionMode::ReadOnly).map_err(|e| backend("read", e))?;
        let s = tx.store(store).map_err(|e| backend("read", e))?;
        let index = s.index("by_seq").map_err(|e| backend("read", e))?;
        let range =
            KeyRange::bound(&JsValue::from_f64(lo as f64), &JsValue::from_f64(hi as f64), Some(true), Some(false))
                .map_err(|e| StoreError::Backend(format!("bad key range: {e}")))?;
        index.get_all(Some(range), None).await.map_err(|e| backend(&format!("cannot read {store}"), e))
    }

    /// Writes a memory an older build wrote again with its index fields and statistics,
    /// unless it has them: its facts and log as they are, read first (a page at a time),
    /// then written in one transaction that checks no other writer moved the memory
    /// meanwhile (and reads it again when one did).
    async fn index_if_older(&self) -> Result<(), StoreError> {
        for _ in 0..nocturne_core::store::REPLAN_ATTEMPTS {
            let layout = {
                let tx = self.db.transaction(&[STATS], TransactionMode::ReadOnly).map_err(|e| backend("read", e))?;
                let s = tx.store(STATS).map_err(|e| backend("read", e))?;
                s.get(JsValue::from_str(index::LAYOUT_KEY)).await.map_err(|e| backend("read", e))?
            };
            if layout.and_then(|v| v.as_f64()) == Some(index::LAYOUT) {
                return Ok(());
            }
            let meta = self.read_meta().await?;
            let turn_count = self.count_turns().await?;
            let items: Vec<Item> = self.read_all(ITEMS).await?;
            let mutations: Vec<Mutation> = self.read_all(MUTATIONS).await?;
            let turns: Vec<Turn> = self.read_all(TURNS).await?;
            let rows = write::reindexed(meta.clone(), items, mutations);
            let tx = self
                .db
                .transaction(&ALL, TransactionMode::ReadWrite)
                .map_err(|e| backend("cannot start a write", e))?;
            let now = meta_in(&tx).await?;
            let moved = (now.head, now.next_item, now.next_mutation) != (meta.head, meta.next_item, meta.next_mutation)
                || write::turn_count_in(&tx).await? != turn_count;
            if moved {
                let _ = tx.abort().await;
                continue;
            }
            tx.store(STATS)
                .map_err(|e| backend("write", e))?
                .clear()
                .await
                .map_err(|e| backend("cannot clear stats", e))?;
            let encoder = write::Encoder::new(
                &rows,
                Keys::AsWritten(index::Around::new(&turns)),
                Totals::Counted(index::Stats::default()),
            );
            self.put_rows(tx, encoder).await?;
            return Ok(());
        }
        Err(StoreError::Backend("the memory kept changing while it was indexed; reload the page".into()))
    }

    /// Loads an export into this (empty) database. Refuses a non-empty one, so an import
    /// never overwrites memory.
    pub async fn import(&self, doc: nocturne_core::store::document::Document) -> Result<(), StoreError> {
        if self.read_meta().await?.head != 0
            || self.count_turns().await? != 0
            || !self.items_by_id(&[]).await?.is_empty()
        {
            return Err(StoreError::Invalid("this memory is not empty; import goes into a new memory".into()));
        }
        let rows = doc.into_rows()?;
        let tx =
            self.db.transaction(&ALL, TransactionMode::ReadWrite).map_err(|e| backend("cannot start a write", e))?;
        let items =
            tx.store(ITEMS).map_err(|e| backend("read", e))?.count(None).await.map_err(|e| backend("read", e))?;
        if items > 0 {
            let _ = tx.abort().await;
            return Err(StoreError::Invalid("this memory is not empty; import goes into a new memory".into()));
        }
        tx.store(STATS)
            .map_err(|e| backend("write", e))?
            .clear()
            .await
            .map_err(|e| backend("cannot clear stats", e))?;
        self.put_whole(tx, &rows).await
    }

    /// Parses `text` as an export and loads it into a new database `name`, returning the
    /// store and its active fact count. A file that is not a sound export is refused before
    /// anything is created; a failed load deletes the half-made database. Either way the
    /// memory in use is never touched.
    pub async fn import_new(name: &str, text: &str) -> Result<(IdbStore, usize), crate::error::AppError> {
        use crate::error::AppError;
        let doc = nocturne_core::store::document::Document::parse(text)
            .map_err(|e| AppError::caused(format!("Import refused: {e}. Nothing was changed."), e))?;
        let facts = doc.items.iter().filter(|i| i.active).count();
        let store = IdbStore::open(name).await?;
        if let Err(e) = store.import(doc).await {
            store.close();
            let _ = IdbStore::delete(name).await;
            return Err(AppError::caused(format!("Import failed: {e}. Your current memory was not touched."), e));
        }
        Ok((store, facts))
    }

    /// The whole memory as one export document (never holds an API key).
    pub async fn export(&self) -> Result<nocturne_core::store::document::Document, StoreError> {
        let changes: Vec<ChangeRow> = self.read_all(CHANGES).await?;
        let mut changes: Vec<(u64, Item)> = changes.into_iter().map(|c| (c.seq, c.item)).collect();
        order::sort_by(&mut changes, |a, b| a.0.cmp(&b.0).then(a.1.ordinal().cmp(&b.1.ordinal())));
        let mut items = self.items().await?;
        order::sort_by_key(&mut items, Item::ordinal);
        Ok(nocturne_core::store::document::Document::new(
            self.read_meta().await?,
            items,
            changes,
            self.versions().await?,
            self.mutations().await?,
            self.transcript().await?,
        ))
    }
}

impl Store for IdbStore {
    async fn items(&self) -> Result<Vec<Item>, StoreError> {
        self.read_all(ITEMS).await
    }

    async fn meta(&self) -> Result<Meta, StoreError> {
        self.read_meta().await
    }

    async fn versions(&self) -> Result<Vec<Version>, StoreError> {
        self.read_all(VERSIONS).await
    }

    async fn mutations(&self) -> Result<Vec<Mutation>, StoreError> {
        self.read_all(MUTATIONS).await
    }

    async fn transcript(&self) -> Result<Vec<Turn>, StoreError> {
        self.read_all(TURNS).await
    }

    async fn turn_count(&self) -> Result<u32, StoreError> {
        self.count_turns().await
    }

    async fn turns_from(&self, start: u32) -> Result<Vec<Turn>, StoreError> {
        self.turns_after(start).await
    }

    async fn items_at(&self, seq: u64) -> Result<Vec<Item>, StoreError> {
        if seq > self.read_meta().await?.head {
            return Err(StoreError::NoSuchVersion(seq));
        }
        // Keys are [itemId, seq] in order, so the last row per item at or before `seq` wins.
        let rows: Vec<ChangeRow> = self.read_all(CHANGES).await?;
        let mut latest: HashMap<String, Item> = HashMap::new();
        for row in rows.into_iter().filter(|r| r.seq <= seq) {
            latest.insert(row.item_id, row.item);
        }
        let mut out: Vec<Item> = latest.into_values().collect();
        order::sort_by_key(&mut out, Item::ordinal);
        Ok(out)
    }

    async fn item_states(&self, ids: &[String], seq: u64) -> Result<Vec<Item>, StoreError> {
        self.states_at(ids, seq).await
    }

    async fn changes(&self, lo: u64, hi: u64) -> Result<Vec<(u64, Item)>, StoreError> {
        let rows = self.by_seq(CHANGES, lo, hi).await?;
        let rows: Vec<ChangeRow> = decode_rows(rows).await?;
        let mut out: Vec<(u64, Item)> = rows.into_iter().map(|r| (r.seq, r.item)).collect();
        order::sort_by(&mut out, |a, b| a.0.cmp(&b.0).then(a.1.ordinal().cmp(&b.1.ordinal())));
        Ok(out)
    }

    async fn mutations_between(&self, lo: u64, hi: u64) -> Result<Vec<Mutation>, StoreError> {
        let rows = self.by_seq(MUTATIONS, lo, hi).await?;
        let mut out: Vec<Mutation> = decode_rows(rows).await?;
        order::sort_by_key(&mut out, |m| m.id);
        Ok(out)
    }

    async fn items_holding(&self, tokens: &[String]) -> Result<Vec<Item>, StoreError> {
        if tokens.is_empty() {
            return self.items().await;
        }
        self.holding(tokens).await
    }

    async fn mutations_about(&self, ids: &[String]) -> Result<Vec<Mutation>, StoreError> {
        self.about(ids).await
    }

    async fn prompt_shortlist(&self, asked: &[String]) -> Result<Option<Shortlist>, StoreError> {
        let meta = self.read_meta().await?;
        if meta.active_count <= CANDIDATE_FLOOR {
            return Ok(None);
        }
        self.shortlist(asked, &meta).await.map(Some)
    }

    async fn list_blocks(&self) -> Result<Vec<(Block, usize)>, StoreError> {
        self.block_counts().await
    }

    async fn get_block(&self, block: Block) -> Result<Vec<Item>, StoreError> {
        let mut items = self.block_page(block, usize::MAX).await?;
        order::sort_by_key(&mut items, |i| (i.created_at, i.ordinal()));
        Ok(items)
    }

    async fn commit(&self, commit: Commit) -> Result<Vec<Version>, StoreError> {
        self.write_commit(commit).await
    }

    /// Erase's rewrite (and sync's): every object store cleared and refilled from `doc`,
    /// its indexes and statistics counted again, in one transaction, after checking in it
    /// that no other writer moved the head.
    async fn replace_all(&self, doc: nocturne_core::store::document::Document, base: u64) -> Result<(), StoreError> {
        doc.check().map_err(|e| StoreError::Invalid(e.to_string()))?;
        let rows = doc.into_rows()?;
        let tx =
            self.db.transaction(&ALL, TransactionMode::ReadWrite).map_err(|e| backend("cannot start a write", e))?;
        let meta = meta_in(&tx).await?;
        if meta.head != base {
            let _ = tx.abort().await;
            return Err(StoreError::Conflict { planned_at: base, now_at: meta.head });
        }
        for store in ALL {
            tx.store(store)
                .map_err(|e| backend("write", e))?
                .clear()
                .await
                .map_err(|e| backend(&format!("cannot clear {store}"), e))?;
        }
        self.put_whole(tx, &rows).await
    }

    /// Reads meta and writes it back with the new policy in one transaction, so a commit
    /// from another tab is never overwritten by a stale copy of meta.
    async fn set_policy(&self, policy: RetentionPolicy) -> Result<(), StoreError> {
        policy.validate().map_err(|e| StoreError::Invalid(e.to_string()))?;
        let tx =
            self.db.transaction(&[META], TransactionMode::ReadWrite).map_err(|e| backend("cannot start a write", e))?;
        let mut meta = meta_in(&tx).await?;
        meta.policy = policy;
        let s = tx.store(META).map_err(|e| backend("write", e))?;
        let value = to_js(&meta, &[])?;
        s.put(&value, Some(&JsValue::from_str(META))).await.map_err(|e| backend("cannot write meta", e))?;
        let done = tx.done().await.map_err(|e| backend("the write did not complete", e))?;
        if !done.is_committed() {
            return Err(StoreError::Backend("the policy write was aborted; nothing was changed".into()));
        }
        self.rows_written.set(self.rows_written.get() + 1);
        Ok(())
    }

    fn rows_written(&self) -> u64 {
        self.rows_written.get()
    }
}
