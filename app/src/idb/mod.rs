//! `IdbStore`: the core Store trait over IndexedDB (rexie). Every commit is planned in
//! full first (core's `plan_rows`), then written in one readwrite transaction with
//! nothing but IndexedDB requests inside it, so a pass's edits and its versions land
//! together or not at all.

use js_sys::Array;
use nocturne_core::model::memory::{Item, Mutation, Turn, Version};
use nocturne_core::store::{plan_rows, Commit, Meta, Rows, Store, StoreError};
use nocturne_core::text::order;
use nocturne_core::RetentionPolicy;
use rexie::{Index, KeyRange, ObjectStore, Rexie, TransactionMode};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};

/// The IndexedDB schema version this build writes. Opening a database written by an
/// older build upgrades it in place (new object stores are added; rows are kept).
pub const DB_VERSION: u32 = 1;

const ITEMS: &str = "items";
const CHANGES: &str = "changes";
const VERSIONS: &str = "versions";
const MUTATIONS: &str = "mutations";
const TURNS: &str = "turns";
const META: &str = "meta";
const ALL: [&str; 6] = [ITEMS, CHANGES, VERSIONS, MUTATIONS, TURNS, META];

/// One change row as stored: the item's state as of version `seq`.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChangeRow {
    item_id: String,
    seq: u64,
    item: Item,
}

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

/// The length of a stored record's row (its JSON, in UTF-16 units), for the size of a
/// refused write.
fn row_bytes(value: &JsValue) -> f64 {
    let row = js_sys::Reflect::get(value, &JsValue::from_str("row")).unwrap_or(JsValue::UNDEFINED);
    row.dyn_ref::<js_sys::JsString>().map_or(0.0, |r| f64::from(r.length()))
}

/// One row ready for IndexedDB: (object store, value, out-of-line key).
type EncodedRow = (&'static str, JsValue, Option<JsValue>);

/// Rows encoded for IndexedDB one at a time, store by store (synchronous, so it can run
/// inside a transaction), so a large write encodes and puts a slice per task.
fn encode_rows(rows: &Rows) -> impl Iterator<Item = Result<EncodedRow, StoreError>> + '_ {
    let changes = rows.changes.iter().map(|(seq, item)| {
        Ok((
            CHANGES,
            to_js(&ChangeRow { item_id: item.item_id.clone(), seq: *seq, item: item.clone() }, &["itemId", "seq"])?,
            None,
        ))
    });
    let live = rows.live.iter().map(|item| Ok((ITEMS, to_js(item, &["itemId"])?, None)));
    let versions = rows.versions.iter().map(|v| Ok((VERSIONS, to_js(v, &["seq"])?, None)));
    let mutations = rows.mutations.iter().map(|m| Ok((MUTATIONS, to_js(m, &["id", "seq"])?, None)));
    let turns = rows.turns.iter().map(|t| Ok((TURNS, to_js(t, &["index"])?, None)));
    let meta = std::iter::once_with(|| Ok((META, to_js(&rows.meta, &[])?, Some(JsValue::from_str(META)))));
    changes.chain(live).chain(versions).chain(mutations).chain(turns).chain(meta)
}

/// Rows encoded and put between two returns to the page's event loop: a write of tens of
/// thousands of rows (a sync join, an import) stays one transaction but never one long task.
const ROWS_WRITTEN_PER_TASK: usize = 500;

/// Why the browser aborted a write whose every request it had accepted. Per the
/// IndexedDB spec that happens at commit when the site's storage quota cannot hold the
/// write (rexie does not hand over the transaction's error, so the size of the write and
/// the browser's own estimate are reported instead).
async fn aborted_write(rows: &Rows) -> StoreError {
    // Sized only here, on the rare refusal: every row encoded again.
    let bytes: f64 = encode_rows(rows).filter_map(Result::ok).map(|(_, v, _)| row_bytes(&v)).sum();
    let status = crate::storage::status().await;
    let used = match (status.usage, status.quota) {
        (Some(u), Some(q)) => format!("; the browser reports {:.0} KB of {:.0} KB in use", u / 1e3, q / 1e3),
        _ => String::new(),
    };
    StoreError::QuotaExceeded(format!(
        "the browser refused to commit a {:.0} KB write after accepting every row, which it does when this site's storage quota cannot hold it{used}",
        bytes / 1e3
    ))
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
    /// Every object store of the schema, at `version`. An upgrade (a higher version)
    /// creates the stores that are missing and keeps their rows — and *deletes* any store
    /// not declared here, so a later release adds stores to this list and never removes one.
    pub fn schema(name: &str, version: u32) -> rexie::RexieBuilder {
        Rexie::builder(name)
            .version(version)
            .add_object_store(ObjectStore::new(ITEMS).key_path("itemId"))
            .add_object_store(
                ObjectStore::new(CHANGES).key_path_array(["itemId", "seq"]).add_index(Index::new("by_seq", "seq")),
            )
            .add_object_store(ObjectStore::new(VERSIONS).key_path("seq"))
            .add_object_store(ObjectStore::new(MUTATIONS).key_path("id").add_index(Index::new("by_seq", "seq")))
            .add_object_store(ObjectStore::new(TURNS).key_path("index"))
            .add_object_store(ObjectStore::new(META))
    }

    /// Opens (creating or upgrading) the database called `name`.
    pub async fn open(name: &str) -> Result<IdbStore, StoreError> {
        let db = Self::schema(name, DB_VERSION)
            .build()
            .await
            .map_err(|e| backend(&format!("cannot open the database '{name}'"), e))?;
        Ok(IdbStore {
            db: Rc::new(db),
            rows_written: Rc::new(Cell::new(0)),
            abort_after_rows: Rc::new(Cell::new(None)),
        })
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

    async fn read_all<T: DeserializeOwned>(&self, store: &str, range: Option<KeyRange>) -> Result<Vec<T>, StoreError> {
        let tx = self.db.transaction(&[store], TransactionMode::ReadOnly).map_err(|e| backend("read", e))?;
        let s = tx.store(store).map_err(|e| backend("read", e))?;
        let values = s.get_all(range, None).await.map_err(|e| backend(&format!("cannot read {store}"), e))?;
        decode_rows(values).await
    }

    async fn read_meta(&self) -> Result<Meta, StoreError> {
        let tx = self.db.transaction(&[META], TransactionMode::ReadOnly).map_err(|e| backend("read", e))?;
        meta_in(&tx).await
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

    /// Writes planned rows in one readwrite transaction.
    async fn write(&self, rows: &Rows) -> Result<(), StoreError> {
        let tx =
            self.db.transaction(&ALL, TransactionMode::ReadWrite).map_err(|e| backend("cannot start a write", e))?;
        self.put_rows(tx, rows).await
    }

    /// Encodes `rows` and puts them into `tx`, a slice per task, and waits for it to commit.
    /// Only encoding and IndexedDB requests happen here, and each slice is put as soon as
    /// the last one's requests succeed, so the transaction stays alive until the last put;
    /// a row that cannot be encoded aborts it, writing nothing.
    async fn put_rows(&self, tx: rexie::Transaction, rows: &Rows) -> Result<(), StoreError> {
        let mut encoded = encode_rows(rows);
        if let Some(limit) = self.abort_after_rows.take() {
            for row in encoded.by_ref().take(limit as usize) {
                let (store, value, key) = match row {
                    Ok(row) => row,
                    Err(e) => {
                        let _ = tx.abort().await;
                        return Err(e);
                    }
                };
                let s = tx.store(store).map_err(|e| backend("write", e))?;
                s.put(&value, key.as_ref()).await.map_err(|e| backend(&format!("cannot write to {store}"), e))?;
            }
            tx.abort().await.map_err(|e| backend("abort", e))?;
            return Err(StoreError::Backend(format!("the write was aborted after {limit} rows; nothing was changed")));
        }
        loop {
            let slice: Result<Vec<EncodedRow>, StoreError> = encoded.by_ref().take(ROWS_WRITTEN_PER_TASK).collect();
            let slice = match slice {
                Ok(slice) if slice.is_empty() => break,
                Ok(slice) => slice,
                Err(e) => {
                    let _ = tx.abort().await;
                    return Err(e);
                }
            };
            // The rows come store by store: one put_all per run of one store.
            for run in slice.chunk_by(|a, b| a.0 == b.0) {
                let store = run[0].0;
                let s = tx.store(store).map_err(|e| backend("write", e))?;
                let puts = run.iter().map(|(_, v, k)| (v.clone(), k.clone()));
                s.put_all(puts).await.map_err(|e| backend(&format!("cannot write to {store}"), e))?;
            }
        }
        let result = tx.done().await.map_err(|e| backend("the write did not complete", e))?;
        if !result.is_committed() {
            return Err(aborted_write(rows).await);
        }
        self.rows_written.set(self.rows_written.get() + rows.count());
        Ok(())
    }

    /// Loads an export into this (empty) database. Refuses a non-empty one, so an import
    /// never overwrites memory.
    pub async fn import(&self, doc: nocturne_core::store::document::Document) -> Result<(), StoreError> {
        if self.read_meta().await?.head != 0 || !self.items().await?.is_empty() {
            return Err(StoreError::Invalid("this memory is not empty; import goes into a new memory".into()));
        }
        let rows = doc.into_rows()?;
        self.write(&rows).await
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
        let changes: Vec<ChangeRow> = self.read_all(CHANGES, None).await?;
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
        self.read_all(ITEMS, None).await
    }

    async fn meta(&self) -> Result<Meta, StoreError> {
        self.read_meta().await
    }

    async fn versions(&self) -> Result<Vec<Version>, StoreError> {
        self.read_all(VERSIONS, None).await
    }

    async fn mutations(&self) -> Result<Vec<Mutation>, StoreError> {
        self.read_all(MUTATIONS, None).await
    }

    async fn transcript(&self) -> Result<Vec<Turn>, StoreError> {
        self.read_all(TURNS, None).await
    }

    async fn turn_count(&self) -> Result<u32, StoreError> {
        let tx = self.db.transaction(&[TURNS], TransactionMode::ReadOnly).map_err(|e| backend("read", e))?;
        let s = tx.store(TURNS).map_err(|e| backend("read", e))?;
        s.count(None).await.map_err(|e| backend("cannot count the turns", e))
    }

    async fn items_at(&self, seq: u64) -> Result<Vec<Item>, StoreError> {
        if seq > self.read_meta().await?.head {
            return Err(StoreError::NoSuchVersion(seq));
        }
        // Keys are [itemId, seq] in order, so the last row per item at or before `seq` wins.
        let rows: Vec<ChangeRow> = self.read_all(CHANGES, None).await?;
        let mut latest: HashMap<String, Item> = HashMap::new();
        for row in rows.into_iter().filter(|r| r.seq <= seq) {
            latest.insert(row.item_id, row.item);
        }
        let mut out: Vec<Item> = latest.into_values().collect();
        order::sort_by_key(&mut out, Item::ordinal);
        Ok(out)
    }

    async fn item_states(&self, ids: &[String], seq: u64) -> Result<Vec<Item>, StoreError> {
        let tx = self.db.transaction(&[CHANGES], TransactionMode::ReadOnly).map_err(|e| backend("read", e))?;
        let s = tx.store(CHANGES).map_err(|e| backend("read", e))?;
        let mut out = Vec::new();
        for id in ids {
            let range = KeyRange::bound(&key2(id, 0), &key2(id, seq), Some(false), Some(false))
                .map_err(|e| StoreError::Backend(format!("bad key range: {e}")))?;
            let rows = s.get_all(Some(range), None).await.map_err(|e| backend("cannot read changes", e))?;
            if let Some(last) = rows.into_iter().last() {
                out.push(from_js::<ChangeRow>(last)?.item);
            }
        }
        Ok(out)
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

    /// Reads meta and the affected rows, plans, and writes — all in one readwrite
    /// transaction, so no other writer (another tab) can slip in between the read and the
    /// write; a plan made against an older head is refused by `plan_rows`.
    async fn commit(&self, commit: Commit) -> Result<Vec<Version>, StoreError> {
        let tx =
            self.db.transaction(&ALL, TransactionMode::ReadWrite).map_err(|e| backend("cannot start a write", e))?;
        let meta = meta_in(&tx).await?;
        let wanted: Vec<&str> = commit.items.iter().chain(&commit.created).map(|i| i.item_id.as_str()).collect();
        let mut previous = HashMap::new();
        let items = tx.store(ITEMS).map_err(|e| backend("read", e))?;
        if wanted.len() > 32 {
            // One bulk read beats thousands of sequential point reads.
            let set: std::collections::HashSet<&str> = wanted.iter().copied().collect();
            for v in items.get_all(None, None).await.map_err(|e| backend("cannot read items", e))? {
                let old: Item = from_js(v)?;
                if set.contains(old.item_id.as_str()) {
                    previous.insert(old.item_id.clone(), old);
                }
            }
        } else {
            for id in wanted {
                if let Some(v) = items.get(JsValue::from_str(id)).await.map_err(|e| backend("read", e))? {
                    if !v.is_undefined() {
                        let old: Item = from_js(v)?;
                        previous.insert(old.item_id.clone(), old);
                    }
                }
            }
        }
        if !commit.turns.is_empty() {
            let count = tx.store(TURNS).map_err(|e| backend("read", e))?.count(None).await;
            let count = count.map_err(|e| backend("cannot count the turns", e))?;
            if let Err(e) = nocturne_core::store::check_turns(count, &meta, &commit) {
                let _ = tx.abort().await;
                return Err(e);
            }
        }
        // Planning and encoding are synchronous: the transaction stays open.
        let rows = match plan_rows(&meta, &previous, commit) {
            Ok(rows) => rows,
            Err(e) => {
                let _ = tx.abort().await;
                return Err(e);
            }
        };
        self.put_rows(tx, &rows).await?;
        Ok(rows.versions)
    }

    /// Erase's rewrite: every object store cleared and refilled from `doc` in one
    /// transaction, after checking in it that no other writer moved the head.
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
        self.put_rows(tx, &rows).await
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
