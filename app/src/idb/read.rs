//! Reading through the indexes ([`super::index`]): what a chat prompt ranks, a search, the
//! log about some facts, and the pages the page draws — each a few requests whose cost
//! is what they find, never the whole memory.

use super::index::{block_key, df_key, prefix_bounds, LEN_KEY, SPEAKERS};
use super::write::{turn_count_in, ChangeRow};
use super::{backend, decode_rows, from_js, key2, IdbStore, CHANGES, ITEMS, META, MUTATIONS, STATS, TURNS, VERSIONS};
use nocturne_core::model::memory::{Block, Item, Mutation, Turn, Version};
use nocturne_core::store::retrieval::context_turns;
use nocturne_core::store::{Corpus, Meta, Shortlist, StoreError};
use nocturne_core::text::order;
use rexie::{KeyRange, StoreIndex, TransactionMode};
use std::collections::{BTreeSet, HashMap, HashSet};
use wasm_bindgen::JsValue;

/// Below this many active facts a chat prompt reads every fact: the whole memory costs less
/// than the rest of the turn (the command line's database uses the same floor).
pub const CANDIDATE_FLOOR: usize = 1_000;

/// Facts each source of the prompt's shortlist gives: more than a prompt's budget has room
/// for (2,000 tokens hold about 150 facts), from each block, each protected category and
/// each asked root (as the command line's database).
const PER_SOURCE: u32 = 100;

fn range(lo: &JsValue, hi: &JsValue) -> Result<KeyRange, StoreError> {
    KeyRange::bound(lo, hi, Some(false), Some(false)).map_err(|e| StoreError::Backend(format!("bad key range: {e}")))
}

/// Every key `[first, …]` of an array-keyed index.
fn under(first: &str) -> Result<KeyRange, StoreError> {
    let lo = js_sys::Array::of1(&JsValue::from_str(first));
    let hi = js_sys::Array::of2(&JsValue::from_str(first), &js_sys::Array::new());
    range(&lo.into(), &hi.into())
}

/// Every string key starting with `prefix` and the separator.
fn prefixed(prefix: &str) -> Result<KeyRange, StoreError> {
    let (lo, hi) = prefix_bounds(prefix);
    range(&JsValue::from_str(&lo), &JsValue::from_str(&hi))
}

/// The numbers `indexes` as runs of consecutive ones, `(first, last)`.
fn runs(indexes: &BTreeSet<u32>) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &i in indexes {
        match out.last_mut() {
            Some((_, last)) if *last + 1 == i => *last = i,
            _ => out.push((i, i)),
        }
    }
    out
}

fn read_error(what: &str) -> impl Fn(rexie::Error) -> StoreError + '_ {
    move |e| backend(what, e)
}

/// The primary keys `index` files under each of `values`, all asked at once; `what` names
/// the read in an error.
async fn keys_under(index: &StoreIndex, values: &[String], what: &str) -> Vec<Result<Vec<JsValue>, StoreError>> {
    crate::task::all(values.iter().map(|value| async move {
        let only = KeyRange::only(&JsValue::from_str(value))
            .map_err(|e| StoreError::Backend(format!("bad key range: {e}")))?;
        index.get_all_keys(Some(only), None).await.map_err(|e| backend(what, e))
    }))
    .await
}

impl IdbStore {
    /// The prompt's shortlist (see `Store::prompt_shortlist`), read in one transaction: the
    /// newest of each block and of each protected category, each asked root's facts with it
    /// in their own words first and the shortest first, the turns around them, and the
    /// whole memory's statistics as they are kept.
    pub(super) async fn shortlist(&self, asked: &[String], meta: &Meta) -> Result<Shortlist, StoreError> {
        let fail = read_error("cannot read the prompt's candidates");
        let tx = self.db.transaction(&[ITEMS, STATS, TURNS], TransactionMode::ReadOnly).map_err(&fail)?;
        let items = tx.store(ITEMS).map_err(&fail)?;
        let (recent, kind, roots) = (
            items.index("by_recent").map_err(&fail)?,
            items.index("by_kind").map_err(&fail)?,
            items.index("by_root").map_err(&fail)?,
        );
        let mut reads = Vec::new();
        for block in Block::ALL {
            reads.push((&recent, under(block.as_str())?));
        }
        for category in &meta.policy.protected_categories {
            reads.push((&kind, under(category)?));
        }
        for root in asked {
            reads.push((&roots, prefixed(root)?));
        }
        let found = crate::task::all(reads.into_iter().map(|(ix, r)| ix.get_all(Some(r), Some(PER_SOURCE)))).await;
        let stats = tx.store(STATS).map_err(&fail)?;
        let df = crate::task::all(asked.iter().map(|r| stats.get(JsValue::from_str(&df_key(r))))).await;
        let len = stats.get(JsValue::from_str(LEN_KEY)).await.map_err(&fail)?.and_then(|v| v.as_f64()).unwrap_or(0.0);
        let names = stats.get_all_keys(Some(prefixed(SPEAKERS)?), None).await.map_err(&fail)?;
        let counts = stats.get_all(Some(prefixed(SPEAKERS)?), None).await.map_err(&fail)?;
        let mut seen = HashSet::new();
        let mut picked = Vec::new();
        for values in found {
            for value in values.map_err(&fail)? {
                let item: Item = from_js(value)?;
                if seen.insert(item.item_id.clone()) {
                    picked.push(item);
                }
            }
        }
        order::sort_by(&mut picked, |a, b| a.item_id.cmp(&b.item_id));
        let wanted: BTreeSet<u32> = picked.iter().filter_map(|i| i.source_turn).flat_map(context_turns).collect();
        let turns_store = tx.store(TURNS).map_err(&fail)?;
        let spans: Vec<KeyRange> = runs(&wanted)
            .into_iter()
            .map(|(a, b)| range(&JsValue::from_f64(f64::from(a)), &JsValue::from_f64(f64::from(b))))
            .collect::<Result<_, _>>()?;
        let read = crate::task::all(spans.into_iter().map(|r| turns_store.get_all(Some(r), None))).await;
        let mut turns: Vec<Turn> = Vec::new();
        for values in read {
            for value in values.map_err(&fail)? {
                turns.push(from_js(value)?);
            }
        }
        let mut counted = HashMap::new();
        for (root, value) in asked.iter().zip(df) {
            let n = value.map_err(&fail)?.and_then(|v| v.as_f64()).unwrap_or(0.0);
            counted.insert(root.clone(), n.max(0.0) as usize);
        }
        let mut speakers: Vec<String> = names
            .iter()
            .zip(&counts)
            .filter(|(_, n)| n.as_f64().unwrap_or(0.0) > 0.0)
            .filter_map(|(k, _)| k.as_string())
            .filter_map(|k| k.split_once(super::index::SEP).map(|(_, name)| name.to_string()))
            .collect();
        order::sort(&mut speakers);
        let facts = meta.active_count;
        let corpus = Corpus { facts, avg_len: len / facts.max(1) as f64, df: counted, speakers };
        Ok(Shortlist { items: picked, turns, corpus })
    }

    /// Every item, active or not, whose words hold each of `tokens`, in the order of
    /// `items` (by id), through the `by_word` index.
    pub(super) async fn holding(&self, tokens: &[String]) -> Result<Vec<Item>, StoreError> {
        let fail = read_error("cannot search");
        let tx = self.db.transaction(&[ITEMS], TransactionMode::ReadOnly).map_err(&fail)?;
        let items = tx.store(ITEMS).map_err(&fail)?;
        let words = items.index("by_word").map_err(&fail)?;
        let keys = keys_under(&words, tokens, "cannot search").await;
        let mut common: Option<Vec<String>> = None;
        for found in keys {
            let ids: Vec<String> = found?.into_iter().filter_map(|k| k.as_string()).collect();
            common = Some(match common {
                None => ids,
                Some(before) => {
                    let these: HashSet<&String> = ids.iter().collect();
                    before.into_iter().filter(|id| these.contains(id)).collect()
                }
            });
        }
        let ids = common.unwrap_or_default();
        let values = crate::task::all(ids.iter().map(|id| items.get(JsValue::from_str(id)))).await;
        let mut out = Vec::with_capacity(ids.len());
        for value in values {
            if let Some(v) = value.map_err(&fail)? {
                out.push(from_js(v)?);
            }
        }
        order::sort_by(&mut out, |a: &Item, b: &Item| a.item_id.cmp(&b.item_id));
        Ok(out)
    }

    /// Every log entry naming one of `ids`, oldest first, through the `by_name` index.
    pub(super) async fn about(&self, ids: &[String]) -> Result<Vec<Mutation>, StoreError> {
        let fail = read_error("cannot read the log");
        let tx = self.db.transaction(&[MUTATIONS], TransactionMode::ReadOnly).map_err(&fail)?;
        let log = tx.store(MUTATIONS).map_err(&fail)?;
        let names = log.index("by_name").map_err(&fail)?;
        let found = keys_under(&names, ids, "cannot read the log").await;
        let mut wanted = BTreeSet::new();
        for keys in found {
            wanted.extend(keys?.into_iter().filter_map(|k| k.as_f64()).map(|k| k as u64));
        }
        let values = crate::task::all(wanted.iter().map(|id| log.get(JsValue::from_f64(*id as f64)))).await;
        let mut out = Vec::with_capacity(wanted.len());
        for value in values {
            if let Some(v) = value.map_err(&fail)? {
                out.push(from_js(v)?);
            }
        }
        Ok(out)
    }

    /// The turns from index `start` on, oldest first.
    pub(super) async fn turns_after(&self, start: u32) -> Result<Vec<Turn>, StoreError> {
        let fail = read_error("cannot read the conversation");
        let tx = self.db.transaction(&[TURNS], TransactionMode::ReadOnly).map_err(&fail)?;
        let from = KeyRange::lower_bound(&JsValue::from_f64(f64::from(start)), Some(false))
            .map_err(|e| StoreError::Backend(format!("bad key range: {e}")))?;
        let values = tx.store(TURNS).map_err(&fail)?.get_all(Some(from), None).await.map_err(&fail)?;
        decode_rows(values).await
    }

    /// How many turns the transcript holds.
    pub(super) async fn count_turns(&self) -> Result<u32, StoreError> {
        let tx = self.db.transaction(&[TURNS], TransactionMode::ReadOnly).map_err(read_error("read"))?;
        turn_count_in(&tx).await
    }

    /// Each block's active facts, from the kept statistics.
    pub async fn block_counts(&self) -> Result<Vec<(Block, usize)>, StoreError> {
        let fail = read_error("cannot read the statistics");
        let tx = self.db.transaction(&[STATS], TransactionMode::ReadOnly).map_err(&fail)?;
        let stats = tx.store(STATS).map_err(&fail)?;
        let counts = crate::task::all(Block::ALL.iter().map(|b| stats.get(JsValue::from_str(&block_key(*b))))).await;
        let mut out = Vec::new();
        for (block, n) in Block::ALL.into_iter().zip(counts) {
            let n = n.map_err(&fail)?.and_then(|v| v.as_f64()).unwrap_or(0.0);
            out.push((block, n.max(0.0) as usize));
        }
        Ok(out)
    }

    /// `block`'s active facts, from the kept statistics: one key read.
    pub async fn block_count(&self, block: Block) -> Result<usize, StoreError> {
        let fail = read_error("cannot read the statistics");
        let tx = self.db.transaction(&[STATS], TransactionMode::ReadOnly).map_err(&fail)?;
        let n = tx.store(STATS).map_err(&fail)?.get(JsValue::from_str(&block_key(block))).await.map_err(&fail)?;
        Ok(n.and_then(|v| v.as_f64()).unwrap_or(0.0).max(0.0) as usize)
    }

    /// The first `limit` active facts of `block` in display order (by id), through the
    /// `by_block` index.
    pub async fn block_page(&self, block: Block, limit: usize) -> Result<Vec<Item>, StoreError> {
        let fail = read_error("cannot read the memory");
        let tx = self.db.transaction(&[ITEMS], TransactionMode::ReadOnly).map_err(&fail)?;
        let index = tx.store(ITEMS).map_err(&fail)?.index("by_block").map_err(&fail)?;
        let limit = u32::try_from(limit).unwrap_or(u32::MAX);
        let values = index.get_all(Some(under(block.as_str())?), Some(limit)).await.map_err(&fail)?;
        decode_rows(values).await
    }

    /// The rows of `ids` that exist, in the order asked.
    pub async fn items_by_id(&self, ids: &[String]) -> Result<Vec<Item>, StoreError> {
        let fail = read_error("cannot read the memory");
        let tx = self.db.transaction(&[ITEMS], TransactionMode::ReadOnly).map_err(&fail)?;
        let items = tx.store(ITEMS).map_err(&fail)?;
        let values = crate::task::all(ids.iter().map(|id| items.get(JsValue::from_str(id)))).await;
        let mut out = Vec::new();
        for value in values {
            if let Some(v) = value.map_err(&fail)?.filter(|v| !v.is_undefined()) {
                out.push(from_js(v)?);
            }
        }
        Ok(out)
    }

    /// The turns from index `start` on, and how many the transcript holds: what a turn appended
    /// to a transcript already read up to `start`.
    pub async fn turns_since(&self, start: u32) -> Result<(u32, Vec<Turn>), StoreError> {
        let count = self.count_turns().await?;
        Ok((count, self.turns_after(start).await?))
    }

    /// The newest `limit` turns and how many the transcript holds.
    pub async fn last_turns(&self, limit: usize) -> Result<(u32, Vec<Turn>), StoreError> {
        let count = self.count_turns().await?;
        let turns = self.turns_after(count.saturating_sub(u32::try_from(limit).unwrap_or(u32::MAX))).await?;
        Ok((count, turns))
    }

    /// The newest `limit` versions, oldest first.
    pub async fn last_versions(&self, limit: usize) -> Result<Vec<Version>, StoreError> {
        let head = self.read_meta().await?.head;
        let fail = read_error("cannot read the versions");
        let tx = self.db.transaction(&[VERSIONS], TransactionMode::ReadOnly).map_err(&fail)?;
        let from = head.saturating_sub(limit as u64) + 1;
        let lower = KeyRange::lower_bound(&JsValue::from_f64(from as f64), Some(false))
            .map_err(|e| StoreError::Backend(format!("bad key range: {e}")))?;
        let values = tx.store(VERSIONS).map_err(&fail)?.get_all(Some(lower), None).await.map_err(&fail)?;
        decode_rows(values).await
    }

    /// The newest `limit` log entries, oldest first, and how many the log holds.
    pub async fn last_mutations(&self, limit: usize) -> Result<(u64, Vec<Mutation>), StoreError> {
        let next = self.read_meta().await?.next_mutation;
        let fail = read_error("cannot read the log");
        let tx = self.db.transaction(&[MUTATIONS], TransactionMode::ReadOnly).map_err(&fail)?;
        let from = next.saturating_sub(limit as u64).max(1);
        let lower = KeyRange::lower_bound(&JsValue::from_f64(from as f64), Some(false))
            .map_err(|e| StoreError::Backend(format!("bad key range: {e}")))?;
        let values = tx.store(MUTATIONS).map_err(&fail)?.get_all(Some(lower), None).await.map_err(&fail)?;
        Ok((next.saturating_sub(1), decode_rows(values).await?))
    }

    /// The versions that changed one of `ids`, from the keys of their change rows alone.
    pub async fn versions_changing(&self, ids: &[String]) -> Result<BTreeSet<u64>, StoreError> {
        let fail = read_error("cannot read the changes");
        let tx = self.db.transaction(&[CHANGES], TransactionMode::ReadOnly).map_err(&fail)?;
        let changes = tx.store(CHANGES).map_err(&fail)?;
        let found =
            crate::task::all(ids.iter().map(|id| {
                let changes = &changes;
                let span = range(&key2(id, 0), &key2(id, u64::MAX >> 11));
                async move {
                    changes.get_all_keys(Some(span?), None).await.map_err(|e| backend("cannot read the changes", e))
                }
            }))
            .await;
        let mut seqs = BTreeSet::new();
        for keys in found {
            for key in keys? {
                let seq = js_sys::Reflect::get(&key, &JsValue::from_f64(1.0)).ok().and_then(|s| s.as_f64());
                seqs.extend(seq.map(|s| s as u64));
            }
        }
        Ok(seqs)
    }

    /// The states of `ids` as of version `seq`, through each item's change rows.
    pub(super) async fn states_at(&self, ids: &[String], seq: u64) -> Result<Vec<Item>, StoreError> {
        let fail = read_error("cannot read changes");
        let tx = self.db.transaction(&[CHANGES], TransactionMode::ReadOnly).map_err(&fail)?;
        let s = tx.store(CHANGES).map_err(&fail)?;
        let found = crate::task::all(ids.iter().map(|id| {
            let s = &s;
            let span = range(&key2(id, 0), &key2(id, seq));
            async move { s.get_all(Some(span?), None).await.map_err(|e| backend("cannot read changes", e)) }
        }))
        .await;
        let mut out = Vec::new();
        for rows in found {
            if let Some(last) = rows?.into_iter().last() {
                out.push(from_js::<ChangeRow>(last)?.item);
            }
        }
        Ok(out)
    }

    /// The meta, read on its own.
    pub(super) async fn read_meta(&self) -> Result<Meta, StoreError> {
        let tx = self.db.transaction(&[META], TransactionMode::ReadOnly).map_err(|e| backend("read", e))?;
        super::meta_in(&tx).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_join_consecutive_turns() {
        let set: BTreeSet<u32> = [1, 2, 3, 7, 9, 10].into_iter().collect();
        assert_eq!(runs(&set), [(1, 3), (7, 7), (9, 10)]);
    }
}
