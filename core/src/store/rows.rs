//! Row planning shared by every backend: which version, change, live, mutation and turn
//! rows one [`Commit`] writes, decided before any write so a backend can open one
//! transaction, write them all and close it with nothing else in between.

use super::{Commit, Meta, StoreError};
use crate::model::memory::{Item, Mutation, Turn, Version};
use std::collections::HashMap;

/// The longest fact a document may hold, in characters.
pub const MAX_FACT_CHARS: usize = 20_000;
/// The longest transcript turn a document may hold, in characters.
pub const MAX_TURN_CHARS: usize = 200_000;

/// Why a fact row is not one a memory may hold, or `None`. The reader of a document and
/// every commit ([`plan_rows`]) ask the same question, so nothing is written that
/// the memory could not read back.
pub fn item_problem(item: &Item) -> Option<String> {
    let chars = item.text.chars().count();
    (chars > MAX_FACT_CHARS)
        .then(|| format!("{} holds {chars} characters; a fact holds at most {MAX_FACT_CHARS}", item.item_id))
}

/// Why a transcript turn is not one a memory may hold, or `None` (see [`item_problem`]).
pub fn turn_problem(turn: &Turn) -> Option<String> {
    let chars = turn.text.chars().count();
    (chars > MAX_TURN_CHARS)
        .then(|| format!("turn {} holds {chars} characters; a turn holds at most {MAX_TURN_CHARS}", turn.index))
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

/// Refuses, as a conflict, a commit whose turns do not continue a transcript of `count`
/// turns: another writer added turns after this one was planned (a turn with no fact moves
/// no head, so the head alone would not tell), and writing these would take their places.
pub fn check_turns(count: u32, meta: &Meta, commit: &Commit) -> Result<(), StoreError> {
    let continues = commit.turns.iter().enumerate().all(|(i, t)| t.index as usize == count as usize + i);
    if continues {
        return Ok(());
    }
    Err(StoreError::Conflict { planned_at: commit.base.unwrap_or(meta.head), now_at: meta.head })
}

/// Plans the rows of `commit` given the current meta and the current rows of the items
/// it changes. Shared by every backend so they agree on seqs, ids and counts.
///
/// `previous` must hold the current row of every id in `commit.items` and
/// `commit.created` that exists. Refuses a commit planned against another head, and one
/// that would create an item whose id is taken.
pub fn plan_rows(meta: &Meta, previous: &HashMap<String, Item>, mut commit: Commit) -> Result<Rows, StoreError> {
    if let Some(base) = commit.base {
        if base != meta.head {
            return Err(StoreError::Conflict { planned_at: base, now_at: meta.head });
        }
    }
    if let Some(taken) = commit.created.iter().find(|i| previous.contains_key(&i.item_id)) {
        return Err(StoreError::Invalid(format!(
            "item {} already exists, so it cannot be created again (the memory's nextItem counter is {}); nothing was written",
            taken.item_id, meta.next_item
        )));
    }
    commit.items.append(&mut commit.created);
    // What the reader of a memory refuses, no commit writes.
    let problem = commit.items.iter().find_map(item_problem);
    if let Some(problem) = problem.or_else(|| commit.turns.iter().find_map(turn_problem)) {
        return Err(StoreError::Invalid(format!("{problem}; nothing was written")));
    }
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
