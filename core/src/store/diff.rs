//! Diff of two versions by item id — kept, changed (with the mutations that changed
//! them), forgotten (with pass, policy and reason), added — plus the refused mutations
//! in the range `lo < seq ≤ hi`. Reads only the change rows in the range.
//!
//! What a change was is said here once ([`Changed::what`]), so the command line's
//! `nocturne diff` and the page's diff say it in the same words: a fact whose words stayed
//! and whose block changed was `moved to human (from scratch)`, not changed into itself.

use crate::model::memory::{Item, Mutation};
use crate::store::{Store, StoreError};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// An item whose text or block differs between the two versions.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Changed {
    pub before: Item,
    pub after: Item,
    /// Accepted mutations in the range that touched it (merge sources are in their refs).
    pub sources: Vec<Mutation>,
}

impl Changed {
    /// What changed, in the words the command line and the page both show: `moved to human
    /// (from scratch): “I live in Ghent.”` when only the block changed (a Promote), `“I live
    /// in Lisbon.” → “I live in Porto.”` when only the words did, both when both did.
    pub fn what(&self) -> String {
        let (was, now) = (&self.before, &self.after);
        let words = if was.text == now.text {
            format!("“{}”", now.text)
        } else {
            format!("“{}” → “{}”", was.text, now.text)
        };
        if was.block == now.block {
            words
        } else {
            format!("moved to {} (from {}): {words}", now.block, was.block)
        }
    }
}

/// An item active in the older version and inactive in the newer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Forgotten {
    pub item: Item,
    /// The accepted mutation that retired it (drop, merge, forget), when one did.
    pub by: Option<Mutation>,
}

/// What changed between two versions.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diff {
    pub lo: u64,
    pub hi: u64,
    /// Active in both, same text and block.
    pub kept: usize,
    pub changed: Vec<Changed>,
    pub forgotten: Vec<Forgotten>,
    pub added: Vec<Item>,
    /// Refused mutations with `lo < seq ≤ hi`.
    pub refused: Vec<Mutation>,
}

/// Diffs version `lo` against version `hi` (either order is accepted; the older one is
/// the base).
pub async fn diff<S: Store>(store: &S, a: u64, b: u64) -> Result<Diff, StoreError> {
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    let versions = store.versions().await?;
    let active_at = |seq: u64| versions.iter().find(|v| v.seq == seq).map(|v| v.active_count);
    let lo_active = if lo == 0 { Some(0) } else { active_at(lo) };
    let (Some(lo_active), Some(_)) = (lo_active, active_at(hi)) else {
        return Err(StoreError::NoSuchVersion(if active_at(hi).is_none() { hi } else { lo }));
    };
    let mut after: BTreeMap<String, Item> = BTreeMap::new();
    for (_, item) in store.changes(lo, hi).await? {
        after.insert(item.item_id.clone(), item);
    }
    let ids: Vec<String> = after.keys().cloned().collect();
    let before: HashMap<String, Item> =
        store.item_states(&ids, lo).await?.into_iter().map(|i| (i.item_id.clone(), i)).collect();
    let mutations = store.mutations_between(lo, hi).await?;
    // Accepted mutations by the items they touched (merge sources included), in log order.
    let mut by_item: HashMap<&str, Vec<&Mutation>> = HashMap::new();
    for m in mutations.iter().filter(|m| m.accepted) {
        by_item.entry(m.item_id.as_str()).or_default().push(m);
        for f in &m.refs.from_ids {
            by_item.entry(f.as_str()).or_default().push(m);
        }
    }
    let touching = |id: &str| -> Vec<Mutation> {
        by_item.get(id).map_or(Vec::new(), |v| v.iter().map(|m| (*m).clone()).collect())
    };
    let mut diff = Diff { lo, hi, kept: 0, changed: vec![], forgotten: vec![], added: vec![], refused: vec![] };
    let mut touched_active = 0usize;
    for (id, now) in after {
        match before.get(&id) {
            Some(was) if was.active => {
                touched_active += 1;
                if !now.active {
                    let by = touching(&id).into_iter().next_back();
                    diff.forgotten.push(Forgotten { item: was.clone(), by });
                } else if was.text != now.text || was.block != now.block {
                    diff.changed.push(Changed { before: was.clone(), after: now.clone(), sources: touching(&id) });
                } else {
                    touched_active -= 1;
                }
            }
            _ if now.active => diff.added.push(now),
            _ => {}
        }
    }
    diff.kept = lo_active.saturating_sub(touched_active);
    diff.refused = mutations.into_iter().filter(|m| !m.accepted).collect();
    Ok(diff)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::memory::Block;
    use crate::store::{Commit, MemStore};

    fn commit(label: &str, items: Vec<Item>) -> Commit {
        Commit { label: Some(label.into()), items, ..Commit::default() }
    }

    /// The diff of one change of `was` into `now`, as `what` words it.
    fn worded(was: Item, now: Item) -> String {
        let store = MemStore::new();
        pollster::block_on(async {
            store.commit(commit("turn:1", vec![was])).await.unwrap();
            store.commit(commit("pass:promote:after", vec![now])).await.unwrap();
            let d = diff(&store, 1, 2).await.unwrap();
            assert_eq!((d.kept, d.changed.len()), (0, 1), "{d:?}");
            d.changed[0].what()
        })
    }

    #[test]
    fn a_fact_only_moved_says_where_to_not_that_its_words_changed() {
        let was = Item::new_fact(1, Block::Scratch, "identity", "I live in Ghent.", 100);
        let now = Item { block: Block::Human, ..was.clone() };
        assert_eq!(worded(was, now), "moved to human (from scratch): “I live in Ghent.”");
    }

    #[test]
    fn new_words_show_before_and_after_and_a_move_too_when_there_was_one() {
        let was = Item::new_fact(1, Block::Human, "identity", "I live in Lisbon.", 100);
        let reworded = Item { text: "I live in Porto.".into(), ..was.clone() };
        assert_eq!(worded(was.clone(), reworded.clone()), "“I live in Lisbon.” → “I live in Porto.”");
        let both = Item { block: Block::Episodes, ..reworded };
        assert_eq!(worded(was, both), "moved to episodes (from human): “I live in Lisbon.” → “I live in Porto.”");
    }
}
