//! What IndexedDB keeps beside the rows so a read costs what it finds, not the memory's
//! lifetime — the same indexes as the command line's database (`cli/src/db.rs`), as
//! fields of the stored records that IndexedDB indexes itself, in the transaction that
//! writes the row:
//!
//! - every fact: `words` (its content tokens, for `Store::items_holding`: a search);
//! - an active fact: `roots` (one key per root it is found by, as
//!   `store::retrieval::fact_terms` makes them — its own and the conversation's around it —
//!   ordered as the prompt's shortlist reads them: its own first, the fewest roots first),
//!   `recent` and `kind` (its block's and its category's newest first), `shown` (its block
//!   in display order, for the Memory panel's pages);
//! - a log entry: `names` (every fact it names, for `Store::mutations_about`);
//!
//! and the whole memory's statistics in the `stats` store, kept as facts change: the
//! summed number of roots of the active facts, how many active facts hold each root, each
//! speaker's and each block's active facts.

use nocturne_core::model::memory::{Block, Item, Mutation, Turn};
use nocturne_core::store::retrieval::{context_turns, fact_terms_from, roots};
use nocturne_core::store::StoreError;
use nocturne_core::text::textmath::content_tokens;
use std::collections::{BTreeSet, HashMap};
use wasm_bindgen::{JsCast, JsValue};

/// Separates the parts of an index or statistics key (below every character a word holds).
pub const SEP: char = '\u{1}';
/// The character after [`SEP`]: the end of a key range of one prefix.
const AFTER: char = '\u{2}';

/// The statistics key of the layout this build writes (absent: rows of an older build,
/// indexed again when the memory is opened).
pub const LAYOUT_KEY: &str = "layout";
/// The layout the fields and statistics below follow.
pub const LAYOUT: f64 = 2.0;
/// The statistics key of the active facts' summed number of own roots.
pub const LEN_KEY: &str = "len";

/// A fact's key under one root: the root, whether it is the fact's own word (`0`) or of the
/// conversation around it (`1`), and how many own roots the fact has (BM25 ranks the
/// shorter higher) — the order the prompt's shortlist takes them in.
pub fn root_key(root: &str, own: bool, len: usize) -> String {
    format!("{root}{SEP}{}{len:05}", u8::from(!own))
}

/// The root a [`root_key`] is under.
pub fn root_of(key: &str) -> &str {
    key.split(SEP).next().unwrap_or(key)
}

/// The number of own roots a [`root_key`] carries.
fn len_of(key: &str) -> f64 {
    key.rsplit(SEP).next().and_then(|k| k.get(1..)).and_then(|n| n.parse().ok()).unwrap_or(0.0)
}

/// The bounds of the keys starting with `prefix` and [`SEP`].
pub fn prefix_bounds(prefix: &str) -> (String, String) {
    (format!("{prefix}{SEP}"), format!("{prefix}{AFTER}"))
}

/// How many active facts hold `root`, own or around them (BM25's document frequency).
pub fn df_key(root: &str) -> String {
    format!("df{SEP}{root}")
}

/// How many active facts `name` said.
pub fn speaker_key(name: &str) -> String {
    format!("sp{SEP}{name}")
}

/// The prefix of every speaker's key.
pub const SPEAKERS: &str = "sp";

/// How many active facts `block` holds.
pub fn block_key(block: Block) -> String {
    format!("bl{SEP}{}", block.as_str())
}

/// The turns around the facts being written, each turn's roots worked out once (and
/// forgotten when many were: a whole memory is written in fact order, so the turns a fact
/// needs are the last few).
pub struct Around<'t> {
    turns: HashMap<u32, &'t Turn>,
    roots: HashMap<u32, BTreeSet<String>>,
}

/// Turn roots kept at most, for a write of a whole memory.
const KEPT_ROOTS: usize = 4_096;

impl<'t> Around<'t> {
    pub fn new(turns: impl IntoIterator<Item = &'t Turn>) -> Self {
        Around { turns: turns.into_iter().map(|t| (t.index, t)).collect(), roots: HashMap::new() }
    }

    /// Adds turns (read from the store: those a commit's facts were said after).
    pub fn add(&mut self, turns: impl IntoIterator<Item = &'t Turn>) {
        for t in turns {
            self.turns.entry(t.index).or_insert(t);
        }
    }

    /// The turns the active facts of `items` are found by that this does not hold.
    pub fn missing<'i>(&self, items: impl IntoIterator<Item = &'i Item>) -> BTreeSet<u32> {
        items
            .into_iter()
            .filter(|i| i.active)
            .filter_map(|i| i.source_turn)
            .flat_map(context_turns)
            .filter(|t| !self.turns.contains_key(t))
            .collect()
    }

    /// `item`'s keys under `by_root` (empty for a fact no longer active).
    pub fn root_keys(&mut self, item: &Item) -> Vec<String> {
        if !item.active {
            return Vec::new();
        }
        if self.roots.len() > KEPT_ROOTS {
            self.roots.clear();
        }
        let near: Vec<u32> = item.source_turn.map(context_turns).into_iter().flatten().collect();
        for t in &near {
            if let (false, Some(turn)) = (self.roots.contains_key(t), self.turns.get(t)) {
                self.roots.insert(*t, roots(&turn.said()));
            }
        }
        let (own, context) = fact_terms_from(item, near.iter().filter_map(|t| self.roots.get(t)));
        let len = own.len();
        let own_keys = own.iter().map(|r| root_key(r, true, len));
        own_keys.chain(context.iter().map(|r| root_key(r, false, len))).collect()
    }
}

fn set(record: &js_sys::Object, key: &str, value: &JsValue) -> Result<(), StoreError> {
    js_sys::Reflect::set(record, &JsValue::from_str(key), value)
        .map(|_| ())
        .map_err(|_| StoreError::Backend("cannot build a record".into()))
}

fn strings<'s>(values: impl IntoIterator<Item = &'s str>) -> JsValue {
    values.into_iter().map(JsValue::from_str).collect::<js_sys::Array>().into()
}

fn pair(a: &str, b: f64) -> JsValue {
    js_sys::Array::of2(&JsValue::from_str(a), &JsValue::from_f64(b)).into()
}

/// The stored record of `item`: its id, its row as JSON, and its index fields (`keys`: its
/// [`Around::root_keys`]).
pub fn item_record(item: &Item, keys: &[String]) -> Result<JsValue, StoreError> {
    let row = serde_json::to_string(item).map_err(|e| StoreError::Backend(format!("cannot encode a record: {e}")))?;
    let record = js_sys::Object::new();
    set(&record, "itemId", &JsValue::from_str(&item.item_id))?;
    set(&record, "row", &JsValue::from_str(&row))?;
    let words = content_tokens(&item.text);
    set(&record, "words", &strings(words.iter().map(String::as_str)))?;
    if item.active {
        let (block, newest) = (item.block.as_str(), -(item.created_at as f64));
        set(&record, "shown", &pair(block, item.ordinal() as f64))?;
        set(&record, "recent", &pair(block, newest))?;
        set(&record, "kind", &pair(item.category.as_str(), newest))?;
        set(&record, "roots", &strings(keys.iter().map(String::as_str)))?;
    }
    Ok(record.into())
}

/// The stored record of a log entry: its id, version, row, and every fact it names.
pub fn mutation_record(m: &Mutation) -> Result<JsValue, StoreError> {
    let row = serde_json::to_string(m).map_err(|e| StoreError::Backend(format!("cannot encode a record: {e}")))?;
    let record = js_sys::Object::new();
    set(&record, "id", &JsValue::from_f64(m.id as f64))?;
    set(&record, "seq", &JsValue::from_f64(m.seq as f64))?;
    set(&record, "row", &JsValue::from_str(&row))?;
    set(&record, "names", &strings(m.names()))?;
    Ok(record.into())
}

/// The `by_root` keys a stored fact record holds (none for an inactive fact, or a record of
/// an older layout).
pub fn stored_keys(record: &JsValue) -> Vec<String> {
    let roots = js_sys::Reflect::get(record, &JsValue::from_str("roots")).unwrap_or(JsValue::UNDEFINED);
    match roots.dyn_into::<js_sys::Array>() {
        Ok(a) => a.iter().filter_map(|v| v.as_string()).collect(),
        Err(_) => Vec::new(),
    }
}

/// Changes to the memory's statistics, by key.
#[derive(Debug, Default)]
pub struct Stats {
    pub by_key: HashMap<String, f64>,
}

impl Stats {
    fn bump(&mut self, key: String, by: f64) {
        *self.by_key.entry(key).or_default() += by;
    }

    /// Counts `item`, whose `by_root` keys are `keys`, in (`sign` 1) or out (-1).
    pub fn count(&mut self, item: &Item, keys: &[String], sign: f64) {
        if !item.active {
            return;
        }
        self.bump(LEN_KEY.into(), sign * keys.first().map_or(0.0, |k| len_of(k)));
        self.bump(block_key(item.block), sign);
        if let Some(name) = &item.speaker {
            self.bump(speaker_key(name), sign);
        }
        for key in keys {
            self.bump(df_key(root_of(key)), sign);
        }
    }

    /// The keys whose count changed.
    pub fn changed(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.by_key.iter().filter(|(_, v)| **v != 0.0).map(|(k, _)| k.clone()).collect();
        nocturne_core::text::order::sort(&mut keys);
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_root_key_sorts_own_words_first_then_the_fewest_roots() {
        let mut keys = [root_key("dog", false, 3), root_key("dog", true, 12), root_key("dog", true, 4)];
        nocturne_core::text::order::sort(&mut keys);
        assert_eq!(keys, [root_key("dog", true, 4), root_key("dog", true, 12), root_key("dog", false, 3)]);
        assert_eq!(root_of(&keys[1]), "dog");
        assert_eq!(len_of(&keys[1]), 12.0);
        let (lo, hi) = prefix_bounds("dog");
        assert!(keys.iter().all(|k| *k > lo && *k < hi));
        assert!(root_key("dogs", true, 1) > hi, "another root is outside the range");
    }
}
