//! The Store trait — one contract for every backend — with the in-memory [`MemStore`],
//! the row planning every backend shares, and the spec's verbs (list blocks, get a block,
//! append, replace, snapshot, restore) built on top.
//!
//! Versions are exact but stored as changes: a version writes one row for itself plus
//! one change row per item it changed, so a Sleep that changes 50 of 10,000 facts writes
//! about 50 × 3 rows (live row, change row, mutation), not 80,000.

use crate::memory::{Block, Item, Mutation, Turn, Version};
use crate::policy::RetentionPolicy;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

pub mod conformance;

/// A store failing (not a refusal). Carries what failed, worded for a person.
#[derive(Clone, Debug, PartialEq)]
pub enum StoreError {
    /// A version that does not exist.
    NoSuchVersion(u64),
    /// The backend could not read or write (IndexedDB error, quota, I/O).
    Backend(String),
    /// The browser's storage quota is exhausted.
    QuotaExceeded(String),
    /// A commit that contradicts the store (e.g. items without a version label).
    Invalid(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::NoSuchVersion(seq) => write!(f, "version v{seq} does not exist"),
            StoreError::Backend(m) => write!(f, "storage failed: {m}"),
            StoreError::QuotaExceeded(m) => {
                write!(f, "storage is full ({m}); export your memory and free some space, nothing was changed")
            }
            StoreError::Invalid(m) => write!(f, "refused to write an inconsistent change: {m}"),
        }
    }
}

impl std::error::Error for StoreError {}

/// Bookkeeping stored beside the items.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Meta {
    pub policy: RetentionPolicy,
    /// Turns `0..encoded_through` have been encoded (the encoder's cursor).
    pub encoded_through: u32,
    /// The newest version's seq (0 before the first version).
    pub head: u64,
    pub active_count: usize,
    pub next_item: u64,
    pub next_mutation: u64,
}

/// One atomic write: the store applies all of it or none of it.
#[derive(Clone, Debug, Default)]
pub struct Commit {
    pub at: i64,
    /// Unchanged versions written first (`consolidation:start`, `pass:dedupe:before`).
    pub markers: Vec<String>,
    /// The version that carries `items`; `None` writes no version (then `items` must be empty).
    pub label: Option<String>,
    /// Full new rows of created or changed items.
    pub items: Vec<Item>,
    /// Accepted and refused mutations; the store assigns `id` and `seq`.
    pub mutations: Vec<Mutation>,
    pub turns: Vec<Turn>,
    pub encoded_through: Option<u32>,
}

/// The rows one commit writes, planned before any write so a backend can open its
/// transaction, write them all and close it with nothing else in between.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rows {
    pub versions: Vec<Version>,
    pub changes: Vec<(u64, Item)>,
    pub live: Vec<Item>,
    pub mutations: Vec<Mutation>,
    pub turns: Vec<Turn>,
    pub meta: Meta,
}

impl Rows {
    /// How many records this plan writes (meta counts as one).
    pub fn count(&self) -> u64 {
        (self.versions.len() + self.changes.len() + self.live.len() + self.mutations.len() + self.turns.len() + 1)
            as u64
    }
}

/// Plans the rows of `commit` given the current meta and the current rows of the items
/// it changes. Shared by every backend so they agree on seqs, ids and counts.
pub fn plan_rows(meta: &Meta, previous: &HashMap<String, Item>, commit: Commit) -> Result<Rows, StoreError> {
    if commit.label.is_none() && !commit.items.is_empty() {
        return Err(StoreError::Invalid(format!("{} changed item(s) without a version label", commit.items.len())));
    }
    let mut meta = meta.clone();
    let mut versions = Vec::new();
    for label in commit.markers {
        meta.head += 1;
        versions.push(Version { seq: meta.head, label, at: commit.at, active_count: meta.active_count, changed: 0 });
    }
    let mut changes = Vec::new();
    if let Some(label) = commit.label {
        meta.head += 1;
        let mut delta: i64 = 0;
        for item in &commit.items {
            let was = previous.get(&item.item_id).is_some_and(|p| p.active);
            delta += i64::from(item.active) - i64::from(was);
            if item.ordinal() != u64::MAX {
                meta.next_item = meta.next_item.max(item.ordinal() + 1);
            }
            changes.push((meta.head, item.clone()));
        }
        meta.active_count = (meta.active_count as i64 + delta).max(0) as usize;
        versions.push(Version {
            seq: meta.head,
            label,
            at: commit.at,
            active_count: meta.active_count,
            changed: commit.items.len(),
        });
    }
    let mutations = commit
        .mutations
        .into_iter()
        .map(|mut m| {
            meta.next_mutation += 1;
            m.id = meta.next_mutation;
            m.seq = meta.head;
            m
        })
        .collect();
    if let Some(c) = commit.encoded_through {
        meta.encoded_through = c;
    }
    Ok(Rows { versions, changes, live: commit.items, mutations, turns: commit.turns, meta })
}

/// One memory's storage. Async without a `Send` bound so IndexedDB can implement it;
/// every backend passes [`conformance`] unchanged.
#[allow(async_fn_in_trait)]
pub trait Store {
    /// The live state: every item row, active or not.
    async fn items(&self) -> Result<Vec<Item>, StoreError>;
    async fn meta(&self) -> Result<Meta, StoreError>;
    async fn versions(&self) -> Result<Vec<Version>, StoreError>;
    /// The whole audit log, accepted and refused, oldest first.
    async fn mutations(&self) -> Result<Vec<Mutation>, StoreError>;
    async fn transcript(&self) -> Result<Vec<Turn>, StoreError>;
    /// The exact state of version `seq`: every item that existed then, as it was.
    async fn items_at(&self, seq: u64) -> Result<Vec<Item>, StoreError>;
    /// Change rows with `lo < seq ≤ hi`, in seq order.
    async fn changes(&self, lo: u64, hi: u64) -> Result<Vec<(u64, Item)>, StoreError>;
    /// Writes `commit` atomically and returns the versions it wrote.
    async fn commit(&self, commit: Commit) -> Result<Vec<Version>, StoreError>;
    /// Stores a new retention policy (not a version: it changes no item).
    async fn set_policy(&self, policy: RetentionPolicy) -> Result<(), StoreError>;
    /// Records written since this store was opened.
    fn rows_written(&self) -> u64;

    /// The rows of `ids` as of version `seq` (ids not yet born are left out).
    async fn item_states(&self, ids: &[String], seq: u64) -> Result<Vec<Item>, StoreError> {
        let wanted: std::collections::HashSet<&str> = ids.iter().map(String::as_str).collect();
        Ok(self.items_at(seq).await?.into_iter().filter(|i| wanted.contains(i.item_id.as_str())).collect())
    }

    /// Mutations with `lo < seq ≤ hi`, oldest first.
    async fn mutations_between(&self, lo: u64, hi: u64) -> Result<Vec<Mutation>, StoreError> {
        Ok(self.mutations().await?.into_iter().filter(|m| m.seq > lo && m.seq <= hi).collect())
    }

    /// Every block with its active count.
    async fn list_blocks(&self) -> Result<Vec<(Block, usize)>, StoreError> {
        let items = self.items().await?;
        Ok(Block::ALL.iter().map(|b| (*b, items.iter().filter(|i| i.active && i.block == *b).count())).collect())
    }

    /// The active items of one block, oldest first.
    async fn get_block(&self, block: Block) -> Result<Vec<Item>, StoreError> {
        let mut items: Vec<Item> = self.items().await?.into_iter().filter(|i| i.active && i.block == block).collect();
        items.sort_by_key(|i| (i.created_at, i.ordinal()));
        Ok(items)
    }

    /// Writes an unchanged version (a marker on the timeline).
    async fn snapshot(&self, label: &str, at: i64) -> Result<Version, StoreError> {
        let mut written = self.commit(Commit { at, label: Some(label.into()), ..Default::default() }).await?;
        written.pop().ok_or_else(|| StoreError::Invalid("snapshot wrote no version".into()))
    }

    /// Restores version `seq` exactly, as a new version labelled `restore:v<seq>` (so an
    /// undo can itself be undone). Items born after `seq` are retired (inactive), never
    /// deleted.
    async fn restore(&self, seq: u64, at: i64) -> Result<Version, StoreError> {
        let meta = self.meta().await?;
        if seq == 0 || seq > meta.head {
            return Err(StoreError::NoSuchVersion(seq));
        }
        let target: HashMap<String, Item> =
            self.items_at(seq).await?.into_iter().map(|i| (i.item_id.clone(), i)).collect();
        let mut changed = Vec::new();
        for live in self.items().await? {
            match target.get(&live.item_id) {
                Some(then) if *then != live => changed.push(then.clone()),
                Some(_) => {}
                None if live.active => changed.push(Item { active: false, updated_at: at, ..live }),
                None => {}
            }
        }
        changed.sort_by_key(Item::ordinal);
        let label = format!("restore:v{seq}");
        let mut written = self.commit(Commit { at, label: Some(label), items: changed, ..Default::default() }).await?;
        written.pop().ok_or_else(|| StoreError::Invalid("restore wrote no version".into()))
    }
}

/// The in-memory store: native tests, the command line and benchmarks.
#[derive(Debug, Default)]
pub struct MemStore {
    inner: RefCell<MemInner>,
}

#[derive(Debug, Default, Clone)]
struct MemInner {
    meta: Meta,
    live: BTreeMap<String, Item>,
    /// item id → seq → the item's row as of that version.
    history: HashMap<String, BTreeMap<u64, Item>>,
    changes: BTreeMap<u64, Vec<Item>>,
    versions: Vec<Version>,
    mutations: Vec<Mutation>,
    transcript: Vec<Turn>,
    rows_written: u64,
}

impl MemStore {
    pub fn new() -> Self {
        MemStore::default()
    }

    /// A store holding `doc` (an export, or the command line's store file).
    pub fn from_document(doc: crate::document::Document) -> Result<Self, StoreError> {
        let store = MemStore::new();
        {
            let mut s = store.inner.borrow_mut();
            let rows = doc.into_rows()?;
            s.apply(rows);
            s.rows_written = 0;
        }
        Ok(store)
    }

    /// An independent copy (for what-if runs such as the policy comparison).
    pub fn fork(&self) -> MemStore {
        let inner = self.inner.borrow().clone();
        MemStore { inner: RefCell::new(MemInner { rows_written: 0, ..inner }) }
    }

    /// The whole memory as one document.
    pub fn document(&self) -> crate::document::Document {
        let s = self.inner.borrow();
        let changes = s.changes.iter().flat_map(|(seq, items)| items.iter().map(move |i| (*seq, i.clone()))).collect();
        crate::document::Document::new(
            s.meta.clone(),
            s.live.values().cloned().collect(),
            changes,
            s.versions.clone(),
            s.mutations.clone(),
            s.transcript.clone(),
        )
    }

    /// Appends a mutation exactly as given, bypassing every gate. Only for tests that
    /// prove the verifier catches a forged log entry.
    pub fn plant_mutation_for_test(&self, mutation: Mutation) {
        self.inner.borrow_mut().mutations.push(mutation);
    }
}

impl MemInner {
    fn apply(&mut self, rows: Rows) {
        self.rows_written += rows.count();
        for (seq, item) in rows.changes {
            self.history.entry(item.item_id.clone()).or_default().insert(seq, item.clone());
            self.changes.entry(seq).or_default().push(item);
        }
        for item in rows.live {
            self.live.insert(item.item_id.clone(), item);
        }
        self.versions.extend(rows.versions);
        self.mutations.extend(rows.mutations);
        self.transcript.extend(rows.turns);
        self.meta = rows.meta;
    }
}

impl Store for MemStore {
    async fn items(&self) -> Result<Vec<Item>, StoreError> {
        Ok(self.inner.borrow().live.values().cloned().collect())
    }

    async fn meta(&self) -> Result<Meta, StoreError> {
        Ok(self.inner.borrow().meta.clone())
    }

    async fn versions(&self) -> Result<Vec<Version>, StoreError> {
        Ok(self.inner.borrow().versions.clone())
    }

    async fn mutations(&self) -> Result<Vec<Mutation>, StoreError> {
        Ok(self.inner.borrow().mutations.clone())
    }

    async fn transcript(&self) -> Result<Vec<Turn>, StoreError> {
        Ok(self.inner.borrow().transcript.clone())
    }

    async fn items_at(&self, seq: u64) -> Result<Vec<Item>, StoreError> {
        let s = self.inner.borrow();
        if seq > s.meta.head {
            return Err(StoreError::NoSuchVersion(seq));
        }
        let mut out: Vec<Item> =
            s.history.values().filter_map(|h| h.range(..=seq).next_back().map(|(_, i)| i.clone())).collect();
        out.sort_by_key(Item::ordinal);
        Ok(out)
    }

    async fn changes(&self, lo: u64, hi: u64) -> Result<Vec<(u64, Item)>, StoreError> {
        let s = self.inner.borrow();
        if hi <= lo {
            return Ok(Vec::new());
        }
        Ok(s.changes.range(lo + 1..=hi).flat_map(|(seq, items)| items.iter().map(move |i| (*seq, i.clone()))).collect())
    }

    async fn item_states(&self, ids: &[String], seq: u64) -> Result<Vec<Item>, StoreError> {
        let s = self.inner.borrow();
        Ok(ids.iter().filter_map(|id| s.history.get(id)?.range(..=seq).next_back().map(|(_, i)| i.clone())).collect())
    }

    async fn mutations_between(&self, lo: u64, hi: u64) -> Result<Vec<Mutation>, StoreError> {
        let s = self.inner.borrow();
        // Mutations are appended in seq order, so the range is found by bisection.
        let start = s.mutations.partition_point(|m| m.seq <= lo);
        let end = s.mutations.partition_point(|m| m.seq <= hi);
        Ok(s.mutations[start..end.max(start)].to_vec())
    }

    async fn commit(&self, commit: Commit) -> Result<Vec<Version>, StoreError> {
        let mut s = self.inner.borrow_mut();
        let previous: HashMap<String, Item> = commit
            .items
            .iter()
            .filter_map(|i| s.live.get(&i.item_id).map(|p| (p.item_id.clone(), p.clone())))
            .collect();
        let rows = plan_rows(&s.meta, &previous, commit)?;
        let versions = rows.versions.clone();
        s.apply(rows);
        Ok(versions)
    }

    async fn set_policy(&self, policy: RetentionPolicy) -> Result<(), StoreError> {
        policy.validate().map_err(StoreError::Invalid)?;
        let mut s = self.inner.borrow_mut();
        s.meta.policy = policy;
        s.rows_written += 1;
        Ok(())
    }

    fn rows_written(&self) -> u64 {
        self.inner.borrow().rows_written
    }
}
