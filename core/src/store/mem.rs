//! The in-memory store: native tests, the command line and benchmarks.

use super::document::Document;
use super::{plan_rows, Commit, Meta, Rows, Store, StoreError};
use crate::model::memory::{Item, Mutation, Turn, Version};
use crate::model::policy::RetentionPolicy;
use crate::text::order;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

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
    pub fn from_document(doc: Document) -> Result<Self, StoreError> {
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
    pub fn document(&self) -> Document {
        let s = self.inner.borrow();
        let changes = s.changes.iter().flat_map(|(seq, items)| items.iter().map(move |i| (*seq, i.clone()))).collect();
        Document::new(
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

    async fn turn_count(&self) -> Result<u32, StoreError> {
        Ok(self.inner.borrow().transcript.len() as u32)
    }

    async fn turns_from(&self, start: u32) -> Result<Vec<Turn>, StoreError> {
        Ok(self.inner.borrow().transcript.iter().filter(|t| t.index >= start).cloned().collect())
    }

    async fn items_at(&self, seq: u64) -> Result<Vec<Item>, StoreError> {
        let s = self.inner.borrow();
        if seq > s.meta.head {
            return Err(StoreError::NoSuchVersion(seq));
        }
        let mut out: Vec<Item> =
            s.history.values().filter_map(|h| h.range(..=seq).next_back().map(|(_, i)| i.clone())).collect();
        order::sort_by_key(&mut out, Item::ordinal);
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
            .chain(&commit.created)
            .filter_map(|i| s.live.get(&i.item_id).map(|p| (p.item_id.clone(), p.clone())))
            .collect();
        crate::store::rows::check_turns(s.transcript.len() as u32, &s.meta, &commit)?;
        let rows = plan_rows(&s.meta, &previous, commit)?;
        let versions = rows.versions.clone();
        s.apply(rows);
        Ok(versions)
    }

    async fn set_policy(&self, policy: RetentionPolicy) -> Result<(), StoreError> {
        policy.validate().map_err(|e| StoreError::Invalid(e.to_string()))?;
        let mut s = self.inner.borrow_mut();
        s.meta.policy = policy;
        s.rows_written += 1;
        Ok(())
    }

    fn rows_written(&self) -> u64 {
        self.inner.borrow().rows_written
    }

    async fn replace_all(&self, doc: Document, base: u64) -> Result<(), StoreError> {
        let now_at = self.inner.borrow().meta.head;
        if now_at != base {
            return Err(StoreError::Conflict { planned_at: base, now_at });
        }
        doc.check().map_err(|e| StoreError::Invalid(e.to_string()))?;
        let fresh = MemStore::from_document(doc)?;
        let written = self.inner.borrow().rows_written;
        let mut inner = fresh.inner.into_inner();
        inner.rows_written = written + 1;
        *self.inner.borrow_mut() = inner;
        Ok(())
    }
}
