//! What an incremental Sleep sends the model: the facts added or changed since the last
//! completed Sleep ([`Fresh`]), with their partners found by the engine anywhere in
//! memory — the other side of a duplicate or conflict candidate, and merge neighbours
//! (same block and category, unprotected, sharing at least two content tokens). A deep
//! Sleep sends everything. Engine rules (duplicates, promotion, capacity) always cover
//! the whole memory; they need no model call.
//!
//! ```
//! use nocturne_core::flow::focus::last_completed_sleep;
//! use nocturne_core::model::memory::Version;
//! let v = |seq: u64, label: &str| Version { seq, label: label.into(), at: 0, active_count: 0, changed: 0 };
//! let versions = [v(1, "consolidation:start"), v(2, "pass:forget:after"), v(3, "chat"),
//!     v(4, "consolidation:start"), v(5, "pass:dedupe:after")];
//! assert_eq!(last_completed_sleep(&versions), Some((1, 2)), "v4 began a Sleep that did not finish");
//! ```

use crate::model::candidate::Candidates;
use crate::model::label::Label;
use crate::model::memory::{Block, Item, Version};
use crate::model::pass::PassKind;
use crate::text::order;
use std::collections::{HashMap, HashSet};

/// How much of the memory a Sleep asks the model about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scope {
    /// Only what changed since the last completed Sleep, with its partners.
    #[default]
    Incremental,
    /// Every pass over every active fact.
    Deep,
}

/// Where the last completed Sleep began and ended: the seqs of its `consolidation:start`
/// marker and of its last pass's version.
pub fn last_completed_sleep(versions: &[Version]) -> Option<(u64, u64)> {
    let last = Label::PassAfter(PassKind::SLEEP[PassKind::SLEEP.len() - 1]);
    let end = versions.iter().rposition(|v| v.kind() == last)?;
    let start = versions[..end].iter().rev().find(|v| v.kind() == Label::SleepStart)?;
    Some((start.seq, versions[end].seq))
}

/// What is new to an incremental Sleep since the last completed one. Not that Sleep's own
/// edits — it judged them — but what every other writer did, before or while it ran, and
/// the two kinds of its edits it could not judge: the text its merges wrote, and the facts
/// its Promote moved into a block whose facts they have not met.
///
/// ```
/// use nocturne_core::flow::focus::Fresh;
/// use nocturne_core::model::memory::{Block, Item};
/// let fact = |n, block| Item::new_fact(n, block, "identity", "I live in Ghent.", 0);
/// let (kept, promoted, met) = (fact(1, Block::Human), fact(2, Block::Human), fact(3, Block::Human));
/// let fresh = Fresh { ids: Default::default(), moved: [("m_2".into(), Block::Scratch), ("m_3".into(), Block::Scratch)].into() };
/// assert!(fresh.is_new_pair(&kept, &promoted), "m_2 was in scratch when m_1 was judged");
/// assert!(!fresh.is_new_pair(&promoted, &met), "both were compared in scratch");
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fresh {
    /// Facts added or changed by a turn, an edit, an import or another device, and the
    /// facts whose words the last Sleep wrote.
    pub ids: HashSet<String>,
    /// Facts the last Sleep moved to another block, with the block they were judged in.
    pub moved: HashMap<String, Block>,
}

impl Fresh {
    /// Where the candidate search starts: every fact with something new to meet.
    pub fn seeds(&self) -> HashSet<String> {
        self.ids.iter().chain(self.moved.keys()).cloned().collect()
    }

    /// Whether a candidate pair has not been judged: one of them is fresh, or they sat in
    /// different blocks when the last Sleep judged them.
    pub fn is_new_pair(&self, a: &Item, b: &Item) -> bool {
        let was = |i: &Item| self.moved.get(&i.item_id).copied().unwrap_or(i.block);
        self.ids.contains(&a.item_id) || self.ids.contains(&b.item_id) || was(a) != was(b)
    }

    /// How many facts are fresh (moved ones are counted apart).
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

/// What one pass sends the model: `items`, ordered so that facts the engine linked (a
/// duplicate or conflict candidate, merge neighbours) sit side by side and so share a
/// call, and the candidate pairs among them.
#[derive(Debug)]
pub struct Focus<'a> {
    pub items: Vec<&'a Item>,
    pub candidates: Candidates,
}

/// The part of `active` that pass `kind` sends the model. With `fresh: None` (a deep
/// Sleep) that is every fact; else it is the fresh facts that have something to decide
/// and their partners: for Dedupe and Supersede and Merge the candidate pairs not yet
/// judged ([`Fresh::is_new_pair`]; a fresh fact in no pair has nothing to adjudicate), for
/// Promote and Forget the fresh facts themselves. Either way a linked group is in memory
/// order, so the two scopes put the same group in front of the model.
pub fn focus<'a>(kind: PassKind, active: &[&'a Item], fresh: Option<&Fresh>, candidates: &Candidates) -> Focus<'a> {
    let is_fresh = |id: &str| fresh.is_none_or(|f| f.ids.contains(id));
    let position: HashMap<&str, usize> = active.iter().enumerate().map(|(n, i)| (i.item_id.as_str(), n)).collect();
    let touches = |a: &str, b: &str| match (fresh, position.get(a), position.get(b)) {
        (None, ..) => true,
        (Some(f), Some(a), Some(b)) => f.is_new_pair(active[*a], active[*b]),
        (Some(_), ..) => is_fresh(a) || is_fresh(b),
    };
    let candidates = match candidates {
        Candidates::None => Candidates::None,
        Candidates::Duplicates(pairs) => {
            Candidates::Duplicates(pairs.iter().filter(|p| touches(&p.drop_id, &p.keeper_id)).cloned().collect())
        }
        Candidates::Conflicts(pairs) => {
            Candidates::Conflicts(pairs.iter().filter(|p| touches(&p.old_id, &p.new_id)).cloned().collect())
        }
        Candidates::Merges(pairs) => {
            Candidates::Merges(pairs.iter().filter(|p| touches(&p.into_id, &p.from_id)).cloned().collect())
        }
    };
    let mut links: Vec<(usize, usize)> = Vec::new();
    let mut link = |a: &str, b: &str| {
        if let (Some(a), Some(b)) = (position.get(a), position.get(b)) {
            links.push((*a, *b));
        }
    };
    for p in candidates.duplicates() {
        link(&p.drop_id, &p.keeper_id);
    }
    for p in candidates.conflicts() {
        link(&p.old_id, &p.new_id);
    }
    for p in candidates.merges() {
        link(&p.into_id, &p.from_id);
    }
    // Which facts go: everything in a deep Sleep; else fresh facts (alone, for the
    // passes that judge facts one by one) and whatever a link reaches.
    let every = fresh.is_none() || matches!(kind, PassKind::Encode | PassKind::Promote | PassKind::Forget);
    let mut groups = Groups::new(active.len());
    for (a, b) in &links {
        groups.join(*a, *b);
    }
    // Every link left is a pair not yet judged, so its whole group goes.
    let roots: HashSet<usize> = links.iter().map(|(a, _)| groups.root(*a)).collect();
    let mut placed: Vec<(usize, usize)> = Vec::new();
    for (n, item) in active.iter().enumerate() {
        let root = groups.root(n);
        let fresh_alone = every && is_fresh(&item.item_id);
        if roots.contains(&root) || fresh_alone || fresh.is_none() {
            placed.push((root, n));
        }
    }
    // A group sits where its first fact would; inside it, memory order.
    let mut first: HashMap<usize, usize> = HashMap::new();
    for (root, n) in &placed {
        first.entry(*root).or_insert(*n);
    }
    order::sort_by_key(&mut placed, |(root, n)| (first[root], *n));
    Focus { items: placed.into_iter().map(|(_, n)| active[n]).collect(), candidates }
}

/// Union–find over positions, to group linked facts.
struct Groups(Vec<usize>);

impl Groups {
    fn new(n: usize) -> Self {
        Groups((0..n).collect())
    }
    fn root(&mut self, mut n: usize) -> usize {
        while self.0[n] != n {
            self.0[n] = self.0[self.0[n]];
            n = self.0[n];
        }
        n
    }
    fn join(&mut self, a: usize, b: usize) {
        let (a, b) = (self.root(a), self.root(b));
        self.0[a.max(b)] = a.min(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::candidate::{ConflictCandidate, DuplicateCandidate};
    use crate::model::memory::Block;
    use crate::model::policy::RetentionPolicy;

    fn fact(n: u64, block: Block, category: &str, text: &str) -> Item {
        Item::new_fact(n, block, category, text, n as i64)
    }

    fn ids(items: &[&Item]) -> Vec<String> {
        items.iter().map(|i| i.item_id.clone()).collect()
    }

    fn fresh_ids(ids: &[&str]) -> Fresh {
        Fresh { ids: ids.iter().map(|s| s.to_string()).collect(), moved: HashMap::new() }
    }

    #[test]
    fn dedupe_sends_only_pairs_that_touch_a_fresh_fact() {
        let items = [
            fact(1, Block::Human, "identity", "I live in Ghent."),
            fact(2, Block::Human, "identity", "I live in Ghent!"),
            fact(3, Block::Human, "identity", "My dog is Bolt."),
            fact(4, Block::Scratch, "identity", "My dog is Bolt"),
            fact(5, Block::Scratch, "context", "The boiler was serviced."),
        ];
        let active: Vec<&Item> = items.iter().collect();
        let pair = |d: &str, k: &str| DuplicateCandidate { drop_id: d.into(), keeper_id: k.into(), similarity: 1.0 };
        let all = Candidates::Duplicates(vec![pair("m_2", "m_1"), pair("m_4", "m_3")]);
        let fresh = fresh_ids(&["m_4", "m_5"]);
        let f = focus(PassKind::Dedupe, &active, Some(&fresh), &all);
        assert_eq!(ids(&f.items), ["m_3", "m_4"], "the old pair m_1/m_2 already slept; m_5 has no pair");
        assert_eq!(f.candidates.len(), 1);
        let f = focus(PassKind::Promote, &active, Some(&fresh), &Candidates::None);
        assert_eq!(ids(&f.items), ["m_4", "m_5"]);
    }

    #[test]
    fn supersede_sends_the_old_value_anywhere_in_memory() {
        let items = [fact(1, Block::Human, "identity", "I live in Ghent."), fact(9, Block::Scratch, "identity", "x")];
        let active: Vec<&Item> = items.iter().collect();
        let all = Candidates::Conflicts(vec![ConflictCandidate {
            old_id: "m_1".into(),
            new_id: "m_9".into(),
            similarity: 0.6,
        }]);
        let fresh = fresh_ids(&["m_9"]);
        let f = focus(PassKind::Supersede, &active, Some(&fresh), &all);
        assert_eq!(ids(&f.items), ["m_1", "m_9"]);
    }

    #[test]
    fn merge_neighbours_share_block_category_and_two_tokens() {
        let items = [
            fact(1, Block::Episodes, "event", "The kitchen tap leaks again under the old sink."),
            fact(2, Block::Episodes, "event", "The kitchen tap was replaced by a plumber in early March."),
            fact(3, Block::Scratch, "event", "The kitchen tap drips."),
            fact(4, Block::Episodes, "context", "The kitchen tap is chrome."),
            fact(5, Block::Episodes, "event", "The kitchen floor is wet."),
            fact(6, Block::Human, "identity", "My kitchen tap is mine."),
        ];
        let active: Vec<&Item> = items.iter().collect();
        let fresh: HashSet<String> = ["m_2".to_string(), "m_6".to_string()].into();
        let near = crate::flow::pair_search::merge_neighbours(&active, Some(&fresh), &RetentionPolicy::default());
        assert_eq!(near.get("m_2").cloned(), Some(vec!["m_1"]), "other block, other category, one shared token");
        assert!(!near.contains_key("m_6"), "protected facts are never merged");
    }

    #[test]
    fn facts_promoted_together_are_not_compared_again_but_meet_their_new_block() {
        let items = [
            fact(1, Block::Human, "identity", "I live in Ghent."),
            fact(2, Block::Human, "identity", "I live in Antwerp."),
            fact(3, Block::Human, "identity", "I live in Bruges."),
            fact(4, Block::Human, "identity", "I live in Leuven."),
        ];
        let active: Vec<&Item> = items.iter().collect();
        let pair = |old: &str, new: &str| ConflictCandidate { old_id: old.into(), new_id: new.into(), similarity: 0.6 };
        let all = Candidates::Conflicts(vec![pair("m_1", "m_2"), pair("m_2", "m_3"), pair("m_3", "m_4")]);
        // The last Sleep promoted m_2 and m_3 out of scratch, where they had met; m_1 and
        // m_4 were in the human block all along and met there.
        let moved = [("m_2".to_string(), Block::Scratch), ("m_3".to_string(), Block::Scratch)].into();
        let fresh = Fresh { ids: HashSet::new(), moved };
        let f = focus(PassKind::Supersede, &active, Some(&fresh), &all);
        let pairs: Vec<_> = f.candidates.conflicts().iter().map(|p| (p.old_id.as_str(), p.new_id.as_str())).collect();
        assert_eq!(pairs, [("m_1", "m_2"), ("m_3", "m_4")], "m_2/m_3 were judged in scratch");
        let f = focus(PassKind::Forget, &active, Some(&fresh), &Candidates::None);
        assert!(f.items.is_empty(), "a moved fact was judged by the Forget pass that ran after its Promote");
    }

    #[test]
    fn a_deep_focus_puts_linked_facts_side_by_side() {
        let items: Vec<Item> = (1..=6).map(|n| fact(n, Block::Scratch, "context", &format!("Fact {n}."))).collect();
        let active: Vec<&Item> = items.iter().collect();
        let pair = |d: &str, k: &str| DuplicateCandidate { drop_id: d.into(), keeper_id: k.into(), similarity: 1.0 };
        let all = Candidates::Duplicates(vec![pair("m_6", "m_2")]);
        let f = focus(PassKind::Dedupe, &active, None, &all);
        assert_eq!(ids(&f.items), ["m_1", "m_2", "m_6", "m_3", "m_4", "m_5"]);
    }
}
