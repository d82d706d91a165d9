//! Diff of two versions by item id — kept, changed (with the mutations that changed
//! them), forgotten (with pass, policy and reason), added — plus the refused mutations
//! in the range `lo < seq ≤ hi`. Reads only the change rows in the range.

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
