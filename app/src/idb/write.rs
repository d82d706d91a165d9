//! Writing: a commit's rows and their indexes, planned and encoded with nothing but
//! IndexedDB requests inside the transaction, a slice of rows a task.

use super::index::{self, Around, Stats, LAYOUT, LAYOUT_KEY};
use super::{backend, from_js, meta_in, to_js, IdbStore, ALL, CHANGES, ITEMS, META, MUTATIONS, STATS, TURNS, VERSIONS};
use nocturne_core::model::memory::{Item, Turn};
use nocturne_core::store::{plan_rows, Commit, Meta, Rows, StoreError};
use nocturne_core::text::order;
use serde::Serialize;
use std::collections::HashMap;
use wasm_bindgen::JsValue;

/// One change row as stored: the item's state as of version `seq`.
#[derive(Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ChangeRow {
    pub item_id: String,
    pub seq: u64,
    pub item: Item,
}

/// One row ready for IndexedDB: (object store, value, out-of-line key).
type EncodedRow = (&'static str, JsValue, Option<JsValue>);

/// Rows encoded and put between two returns to the event loop: a write of tens of
/// thousands of rows (a sync join, an import) stays one transaction but never one long task.
const ROWS_WRITTEN_PER_TASK: usize = 500;

/// Where the live rows' `by_root` keys come from.
pub(super) enum Keys<'r> {
    /// Worked out before the transaction's writes (a commit: its statistics need them).
    Worked(HashMap<String, Vec<String>>),
    /// Worked out as each row is encoded, and the statistics counted from them (a whole
    /// memory written at once).
    AsWritten(Around<'r>),
}

/// The statistics a write leaves.
pub(super) enum Totals {
    /// Their new values (a commit: read and changed in its transaction).
    Values(Vec<(String, f64)>),
    /// Counted as the live rows are encoded; the store was emptied first.
    Counted(Stats),
}

/// A write's rows encoded for IndexedDB a slice at a time, store by store (synchronous,
/// so it runs inside the transaction).
pub(super) struct Encoder<'r> {
    rows: &'r Rows,
    keys: Keys<'r>,
    totals: Totals,
    /// Which store's rows come next (an index into [`Encoder::STAGES`]), and which of them.
    stage: usize,
    at: usize,
}

impl<'r> Encoder<'r> {
    const STAGES: [&'static str; 7] = [CHANGES, TURNS, ITEMS, VERSIONS, MUTATIONS, STATS, META];

    pub fn new(rows: &'r Rows, keys: Keys<'r>, totals: Totals) -> Self {
        Encoder { rows, keys, totals, stage: 0, at: 0 }
    }

    /// The next `n` rows or fewer (none once all are encoded).
    pub fn slice(&mut self, n: usize) -> Result<Vec<EncodedRow>, StoreError> {
        let mut out = Vec::with_capacity(n);
        while out.len() < n && self.stage < Self::STAGES.len() {
            match self.row()? {
                Some(row) => {
                    out.push(row);
                    self.at += 1;
                }
                None => {
                    self.stage += 1;
                    self.at = 0;
                }
            }
        }
        Ok(out)
    }

    /// The row at (`stage`, `at`), or `None` past the stage's last.
    fn row(&mut self) -> Result<Option<EncodedRow>, StoreError> {
        let (rows, at) = (self.rows, self.at);
        Ok(match Self::STAGES[self.stage] {
            CHANGES => match rows.changes.get(at) {
                Some((seq, item)) => {
                    let row = ChangeRow { item_id: item.item_id.clone(), seq: *seq, item: item.clone() };
                    Some((CHANGES, to_js(&row, &["itemId", "seq"])?, None))
                }
                None => None,
            },
            TURNS => match rows.turns.get(at) {
                Some(t) => Some((TURNS, to_js(t, &["index"])?, None)),
                None => None,
            },
            ITEMS => match rows.live.get(at) {
                Some(item) => {
                    let keys = match &mut self.keys {
                        Keys::Worked(keys) => keys.get(&item.item_id).cloned().unwrap_or_default(),
                        Keys::AsWritten(around) => {
                            let keys = around.root_keys(item);
                            if let Totals::Counted(stats) = &mut self.totals {
                                stats.count(item, &keys, 1.0);
                            }
                            keys
                        }
                    };
                    Some((ITEMS, index::item_record(item, &keys)?, None))
                }
                None => None,
            },
            VERSIONS => match rows.versions.get(at) {
                Some(v) => Some((VERSIONS, to_js(v, &["seq"])?, None)),
                None => None,
            },
            MUTATIONS => match rows.mutations.get(at) {
                Some(m) => Some((MUTATIONS, index::mutation_record(m)?, None)),
                None => None,
            },
            STATS => {
                if let Totals::Counted(stats) = &mut self.totals {
                    // Counted while the facts were encoded: the values, in key order, once.
                    let mut values: Vec<(String, f64)> = std::mem::take(&mut stats.by_key).into_iter().collect();
                    order::sort_by(&mut values, |a, b| a.0.cmp(&b.0));
                    self.totals = Totals::Values(values);
                }
                let Totals::Values(values) = &self.totals else { return Ok(None) };
                let (key, value) = match values.get(at) {
                    Some((k, v)) => (k.clone(), *v),
                    None if at == values.len() => (LAYOUT_KEY.to_string(), LAYOUT),
                    None => return Ok(None),
                };
                Some((STATS, JsValue::from_f64(value), Some(JsValue::from_str(&key))))
            }
            _ => match at {
                0 => Some((META, to_js(&rows.meta, &[])?, Some(JsValue::from_str(META)))),
                _ => None,
            },
        })
    }
}

/// Why the browser aborted a write whose every request it had accepted. Per the
/// IndexedDB spec that happens at commit when the site's storage quota cannot hold the
/// write (rexie does not hand over the transaction's error, so the size of the write and
/// the browser's own estimate are reported instead).
async fn aborted_write(rows: &Rows) -> StoreError {
    // Sized only here, on the rare refusal: the rows' JSON, without their indexes.
    fn size<T: Serialize>(rows: &[T]) -> usize {
        rows.iter().map(|r| serde_json::to_string(r).map_or(0, |s| s.len())).sum()
    }
    let bytes =
        size(&rows.changes) + size(&rows.live) + size(&rows.turns) + size(&rows.mutations) + size(&rows.versions);
    let status = crate::storage::status().await;
    let used = match (status.usage, status.quota) {
        (Some(u), Some(q)) => format!("; the browser reports {:.0} KB of {:.0} KB in use", u / 1e3, q / 1e3),
        _ => String::new(),
    };
    StoreError::QuotaExceeded(format!(
        "the browser refused to commit a {:.0} KB write after accepting every row, which it does when this site's storage quota cannot hold it{used}",
        bytes as f64 / 1e3
    ))
}

impl IdbStore {
    /// Encodes the rows of `encoder` and puts them into `tx`, a slice per task, and waits for
    /// it to commit. Only encoding and IndexedDB requests happen here, and each slice is put
    /// as soon as the last one's requests succeed, so the transaction stays alive until the
    /// last put; a row that cannot be encoded aborts it, writing nothing.
    pub(super) async fn put_rows(&self, tx: rexie::Transaction, mut encoder: Encoder<'_>) -> Result<(), StoreError> {
        let rows = encoder.rows;
        if let Some(limit) = self.abort_after_rows.take() {
            let slice = match encoder.slice(limit as usize) {
                Ok(slice) => slice,
                Err(e) => {
                    let _ = tx.abort().await;
                    return Err(e);
                }
            };
            for (store, value, key) in slice {
                let s = tx.store(store).map_err(|e| backend("write", e))?;
                s.put(&value, key.as_ref()).await.map_err(|e| backend(&format!("cannot write to {store}"), e))?;
            }
            tx.abort().await.map_err(|e| backend("abort", e))?;
            return Err(StoreError::Backend(format!("the write was aborted after {limit} rows; nothing was changed")));
        }
        loop {
            let slice = match encoder.slice(ROWS_WRITTEN_PER_TASK) {
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

    /// Writes a whole memory's `rows` into a transaction whose stores were emptied, its
    /// indexes and statistics counted as they are written.
    pub(super) async fn put_whole(&self, tx: rexie::Transaction, rows: &Rows) -> Result<(), StoreError> {
        let encoder = Encoder::new(rows, Keys::AsWritten(Around::new(&rows.turns)), Totals::Counted(Stats::default()));
        self.put_rows(tx, encoder).await
    }

    /// Reads meta and the affected rows, plans, and writes — all in one readwrite
    /// transaction, so no other writer (another tab) can slip in between the read and the
    /// write; a plan made against an older head is refused by `plan_rows`. The facts'
    /// indexes and the memory's statistics change in the same transaction.
    pub(super) async fn write_commit(
        &self,
        commit: Commit,
    ) -> Result<Vec<nocturne_core::model::memory::Version>, StoreError> {
        let tx =
            self.db.transaction(&ALL, TransactionMode::ReadWrite).map_err(|e| backend("cannot start a write", e))?;
        let meta = meta_in(&tx).await?;
        let wanted: Vec<&str> = commit.items.iter().chain(&commit.created).map(|i| i.item_id.as_str()).collect();
        let previous = match previous_in(&tx, &wanted).await {
            Ok(previous) => previous,
            Err(e) => {
                let _ = tx.abort().await;
                return Err(e);
            }
        };
        if !commit.turns.is_empty() {
            let count = turn_count_in(&tx).await?;
            if let Err(e) = nocturne_core::store::check_turns(count, &meta, &commit) {
                let _ = tx.abort().await;
                return Err(e);
            }
        }
        // Planning is synchronous: the transaction stays open.
        let items: HashMap<String, Item> = previous.iter().map(|(id, (item, _))| (id.clone(), item.clone())).collect();
        let rows = match plan_rows(&meta, &items, commit) {
            Ok(rows) => rows,
            Err(e) => {
                let _ = tx.abort().await;
                return Err(e);
            }
        };
        let (keys, totals) = match indexes_in(&tx, &rows, &previous).await {
            Ok(worked) => worked,
            Err(e) => {
                let _ = tx.abort().await;
                return Err(e);
            }
        };
        self.put_rows(tx, Encoder::new(&rows, Keys::Worked(keys), Totals::Values(totals))).await?;
        Ok(rows.versions)
    }
}

use rexie::TransactionMode;

/// The stored rows of `ids` that exist, with their `by_root` keys, read in `tx`.
async fn previous_in(
    tx: &rexie::Transaction,
    ids: &[&str],
) -> Result<HashMap<String, (Item, Vec<String>)>, StoreError> {
    let items = tx.store(ITEMS).map_err(|e| backend("read", e))?;
    let found = crate::task::all(ids.iter().map(|id| items.get(JsValue::from_str(id)))).await;
    let mut out = HashMap::new();
    for value in found {
        if let Some(v) = value.map_err(|e| backend("read", e))?.filter(|v| !v.is_undefined()) {
            let keys = index::stored_keys(&v);
            let item: Item = from_js(v)?;
            out.insert(item.item_id.clone(), (item, keys));
        }
    }
    Ok(out)
}

/// How many turns the transcript holds, read in `tx`: the last index plus one (turns are
/// numbered from 0 without a gap), one step of a cursor where a count would read them all.
pub(super) async fn turn_count_in(tx: &rexie::Transaction) -> Result<u32, StoreError> {
    let turns = tx.store(TURNS).map_err(|e| backend("read", e))?;
    let last = turns
        .scan(None, Some(1), None, Some(rexie::Direction::Prev))
        .await
        .map_err(|e| backend("cannot count the turns", e))?;
    Ok(last.first().and_then(|(k, _)| k.as_f64()).map_or(0, |k| k as u32 + 1))
}

/// The live rows' `by_root` keys and the statistics' new values after `rows`, which
/// replace `previous`: the turns the new facts were said after read in `tx`, the
/// statistics each changed key had read in it too.
async fn indexes_in(
    tx: &rexie::Transaction,
    rows: &Rows,
    previous: &HashMap<String, (Item, Vec<String>)>,
) -> Result<(HashMap<String, Vec<String>>, Vec<(String, f64)>), StoreError> {
    let mut around = Around::new(&rows.turns);
    let missing = around.missing(&rows.live);
    let stored = turns_in(tx, &missing).await?;
    around.add(&stored);
    let mut stats = Stats::default();
    let mut keys = HashMap::new();
    for item in &rows.live {
        if let Some((before, was)) = previous.get(&item.item_id) {
            stats.count(before, was, -1.0);
        }
        let now = around.root_keys(item);
        stats.count(item, &now, 1.0);
        keys.insert(item.item_id.clone(), now);
    }
    let changed = stats.changed();
    let store = tx.store(STATS).map_err(|e| backend("read", e))?;
    let values = crate::task::all(changed.iter().map(|k| store.get(JsValue::from_str(k)))).await;
    let mut totals = Vec::with_capacity(changed.len());
    for (key, value) in changed.into_iter().zip(values) {
        let had = value.map_err(|e| backend("cannot read the statistics", e))?.and_then(|v| v.as_f64()).unwrap_or(0.0);
        totals.push((key.clone(), had + stats.by_key[&key]));
    }
    Ok((keys, totals))
}

/// The turns at `indexes` that exist, read in `tx`.
pub(super) async fn turns_in(
    tx: &rexie::Transaction,
    indexes: &std::collections::BTreeSet<u32>,
) -> Result<Vec<Turn>, StoreError> {
    let store = tx.store(TURNS).map_err(|e| backend("read", e))?;
    let found = crate::task::all(indexes.iter().map(|i| store.get(JsValue::from_f64(f64::from(*i))))).await;
    let mut out = Vec::new();
    for value in found {
        if let Some(v) = value.map_err(|e| backend("cannot read a turn", e))?.filter(|v| !v.is_undefined()) {
            out.push(from_js(v)?);
        }
    }
    Ok(out)
}

/// What a memory of an older layout is written again with: its facts and log as they are,
/// with their indexes and the statistics counted from scratch.
pub(super) fn reindexed(meta: Meta, live: Vec<Item>, mutations: Vec<nocturne_core::model::memory::Mutation>) -> Rows {
    Rows { live, mutations, meta, ..Rows::default() }
}
