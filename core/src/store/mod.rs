//! The Store trait — one contract for every backend — with the in-memory [`MemStore`],
//! the row planning every backend shares, and the spec's verbs (list blocks, get a block,
//! append, replace, snapshot, restore) built on top.
//!
//! Versions are exact but stored as changes: a version writes one row for itself plus
//! one change row per item it changed, so a Sleep that changes 50 of 10,000 facts writes
//! about 50 × 3 rows (live row, change row, mutation), not 80,000.

use crate::model::memory::{Block, Item, Mutation, Turn, Version};
use crate::model::policy::RetentionPolicy;
use crate::text::order;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

pub mod diff;
pub mod document;
pub mod erase;
pub mod lineage;
mod mem;
pub mod retrieval;
mod rows;
pub mod search;

pub use mem::MemStore;
pub use rows::{check_turns, plan_rows, Rows};

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
    /// The memory changed after the commit was planned (another tab, or a chat turn
    /// during a Sleep): nothing was written; plan again from the new state.
    Conflict { planned_at: u64, now_at: u64 },
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
            StoreError::Conflict { planned_at, now_at } => write!(
                f,
                "the memory changed while this was planned (planned at v{planned_at}, now at v{now_at}); nothing was written, run it again"
            ),
        }
    }
}

impl std::error::Error for StoreError {}

impl StoreError {
    /// Another writer committed between this write's read and its commit.
    pub fn is_conflict(&self) -> bool {
        matches!(self, StoreError::Conflict { .. })
    }
}

/// How often a write is planned again when another writer moved the memory between its
/// read and its commit (two processes adding turns to one store file as fast as they can
/// met three conflicts in a row; an MCP server's add beside a piped chat of 25 turns, on a
/// loaded 2-core machine, met twelve: each replan is immediate, so the bound must outlast a
/// burst of the other writer's commits).
pub const REPLAN_ATTEMPTS: usize = 48;

/// Runs `write` — read, plan, commit against the head it read — again while it fails with
/// an error `conflicted` calls a conflict, at most [`REPLAN_ATTEMPTS`] times in all; any
/// other outcome is returned as it is. Each attempt plans afresh, so a write that no
/// longer makes sense on the new memory is refused by its own checks, not forced through.
pub async fn replanning<T, E>(
    conflicted: impl Fn(&E) -> bool,
    mut write: impl AsyncFnMut() -> Result<T, E>,
) -> Result<T, E> {
    let mut attempt = 1;
    loop {
        match write().await {
            Err(e) if conflicted(&e) && attempt < REPLAN_ATTEMPTS => attempt += 1,
            other => return other,
        }
    }
}

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
    /// Full new rows of changed items (or of new ones, for bulk loads and tests).
    pub items: Vec<Item>,
    /// Rows of items that must not exist yet (a chat turn's new facts): a commit whose
    /// created id is already taken is refused, so a stale id counter never overwrites.
    pub created: Vec<Item>,
    /// The head version this commit was planned against; when set and the store has moved
    /// on, the commit is refused with [`StoreError::Conflict`].
    pub base: Option<u64>,
    /// Accepted and refused mutations; the store assigns `id` and `seq`.
    pub mutations: Vec<Mutation>,
    pub turns: Vec<Turn>,
    pub encoded_through: Option<u32>,
}

/// What a store with an index of its facts' words hands a chat prompt of a large memory
/// instead of every fact ([`Store::prompt_shortlist`]): the facts the prompt may choose
/// from, the turns around them, and the whole memory's statistics, so the facts are
/// ranked as among all of them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shortlist {
    /// The pinned blocks' most salient and newest facts, the facts that share a root with
    /// the message (the shortest first: BM25 ranks them highest), and the newest of the rest.
    pub items: Vec<Item>,
    /// The turns around those facts (`store::retrieval::context_turns` of each) and the
    /// newest turns of the conversation.
    pub turns: Vec<Turn>,
    pub corpus: Corpus,
}

/// The whole active memory's statistics a ranking over some of its facts needs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Corpus {
    /// Active facts.
    pub facts: usize,
    /// Their mean number of roots (BM25's mean document length).
    pub avg_len: f64,
    /// Facts holding each asked root, in their own words or around them.
    pub df: HashMap<String, usize>,
    /// Every speaker of an active fact, each once, sorted.
    pub speakers: Vec<String>,
}

/// One memory's storage. Async without a `Send` bound so IndexedDB can implement it;
/// every backend passes the conformance suite (`testkit::conformance`) unchanged.
#[allow(async_fn_in_trait)]
pub trait Store {
    /// The live state: every item row, active or not.
    async fn items(&self) -> Result<Vec<Item>, StoreError>;
    async fn meta(&self) -> Result<Meta, StoreError>;
    async fn versions(&self) -> Result<Vec<Version>, StoreError>;
    /// The whole audit log, accepted and refused, oldest first.
    async fn mutations(&self) -> Result<Vec<Mutation>, StoreError>;
    async fn transcript(&self) -> Result<Vec<Turn>, StoreError>;
    /// How many turns the transcript holds (a backend that can count without reading
    /// them all should: an import asks before every batch).
    async fn turn_count(&self) -> Result<u32, StoreError> {
        Ok(self.transcript().await?.len() as u32)
    }
    /// The turns from index `start` on, oldest first (a chat turn reads the ones not yet
    /// encoded, not the whole conversation).
    async fn turns_from(&self, start: u32) -> Result<Vec<Turn>, StoreError> {
        Ok(self.transcript().await?.into_iter().filter(|t| t.index >= start).collect())
    }
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

    /// Replaces every row with `doc`'s in one atomic write, refused as a conflict when the
    /// head is no longer `base`. Only erase and sync use it (sync writes the memory its
    /// records replay to): nothing else may rewrite history.
    async fn replace_all(&self, doc: document::Document, base: u64) -> Result<(), StoreError>;

    /// The whole memory as one export document.
    async fn document(&self) -> Result<document::Document, StoreError> {
        let meta = self.meta().await?;
        Ok(document::Document::new(
            meta.clone(),
            self.items().await?,
            self.changes(0, meta.head).await?,
            self.versions().await?,
            self.mutations().await?,
            self.transcript().await?,
        ))
    }

    /// The rows of `ids` as of version `seq` (ids not yet born are left out).
    async fn item_states(&self, ids: &[String], seq: u64) -> Result<Vec<Item>, StoreError> {
        let wanted: std::collections::HashSet<&str> = ids.iter().map(String::as_str).collect();
        Ok(self.items_at(seq).await?.into_iter().filter(|i| wanted.contains(i.item_id.as_str())).collect())
    }

    /// Mutations with `lo < seq ≤ hi`, oldest first.
    async fn mutations_between(&self, lo: u64, hi: u64) -> Result<Vec<Mutation>, StoreError> {
        Ok(self.mutations().await?.into_iter().filter(|m| m.seq > lo && m.seq <= hi).collect())
    }

    /// Every item, active or not, whose text holds each of `tokens` (content tokens as
    /// `text::textmath::content_tokens` makes them), in the order of [`Store::items`]. A
    /// backend with a words index answers from it; the default reads every item.
    async fn items_holding(&self, tokens: &[String]) -> Result<Vec<Item>, StoreError> {
        Ok(self.items().await?.into_iter().filter(|i| search::holds(i, tokens)).collect())
    }

    /// Every mutation that names one of `ids` as its item, the duplicate it was dropped
    /// for, a merge source or the fact that superseded it — all a lineage reads — oldest
    /// first. A backend that indexes the log by the ids it names answers from the index.
    async fn mutations_about(&self, ids: &[String]) -> Result<Vec<Mutation>, StoreError> {
        let wanted: std::collections::HashSet<&str> = ids.iter().map(String::as_str).collect();
        Ok(self.mutations().await?.into_iter().filter(|m| m.names().any(|id| wanted.contains(id))).collect())
    }

    /// The facts a chat prompt about a message with the roots `asked` chooses from, when
    /// the memory is large enough that reading every fact costs more than the turn should;
    /// `None`: read every fact (the default, and what a small memory does).
    async fn prompt_shortlist(&self, asked: &[String]) -> Result<Option<Shortlist>, StoreError> {
        let _ = asked;
        Ok(None)
    }

    /// Every block with its active count.
    async fn list_blocks(&self) -> Result<Vec<(Block, usize)>, StoreError> {
        let items = self.items().await?;
        Ok(Block::ALL.iter().map(|b| (*b, items.iter().filter(|i| i.active && i.block == *b).count())).collect())
    }

    /// The active items of one block, oldest first.
    async fn get_block(&self, block: Block) -> Result<Vec<Item>, StoreError> {
        let mut items: Vec<Item> = self.items().await?.into_iter().filter(|i| i.active && i.block == block).collect();
        order::sort_by_key(&mut items, |i| (i.created_at, i.ordinal()));
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
        order::sort_by_key(&mut changed, Item::ordinal);
        let label = crate::model::label::Label::Restore(seq).to_string();
        let base = Some(meta.head);
        let mut written =
            self.commit(Commit { at, label: Some(label), items: changed, base, ..Default::default() }).await?;
        written.pop().ok_or_else(|| StoreError::Invalid("restore wrote no version".into()))
    }
}
