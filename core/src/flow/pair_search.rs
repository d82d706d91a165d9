//! The engine's candidate search: the pairs a pass adjudicates — Dedupe's duplicates,
//! Supersede's conflicts, Merge's neighbours — found with work that follows the pairs
//! that can qualify, never all pairs. Duplicates come from the token index with prefix
//! filtering (`text::pairs`); conflicts from one index per basis the Supersede gate
//! accepts (near-identical facts of opposite polarity; a one-value slot, by slot and
//! holder; a change the user stated); merge neighbours from the tokens few facts share.
//! Each fact's share of the work is bounded ([`Bounds`]), and what a bound left
//! unexamined is counted ([`Work::left`]) and reported with the pass.
//!
//! An incremental Sleep asks only for pairs touching a fresh fact (the only ones its
//! model is shown); Dedupe's pairs always cover the whole memory, for the engine's
//! duplicate rule.

use crate::gate::meaning;
use crate::model::candidate::{ConflictCandidate, DuplicateCandidate, MergeCandidate};
use crate::model::memory::{Block, Item, Turn};
use crate::model::policy::RetentionPolicy;
use crate::text::order;
use crate::text::pairs::{self, PairInput, TokenSets};
use crate::text::polarity;
use crate::text::textmath::{self, content_tokens};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

pub use crate::text::pairs::Work;

/// How much of the search one fact may cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The pair finder's bounds (index entries scanned, pairs found per fact).
    pub pairs: pairs::Bounds,
    /// Conflict partners one fact is given per basis: the nearest in time for a slot,
    /// the most similar for a stated change.
    pub conflict_partners: usize,
    /// Facts one fact looks at for conflicts, per basis.
    pub conflict_probes: usize,
    /// Index entries one fact scans for merge neighbours.
    pub merge_probes: usize,
}

impl Bounds {
    /// No bound at all: every pair, at whatever cost (the reference in tests).
    pub const NONE: Bounds = Bounds {
        pairs: pairs::Bounds::NONE,
        conflict_partners: usize::MAX,
        conflict_probes: usize::MAX,
        merge_probes: usize::MAX,
    };
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds { pairs: pairs::Bounds::default(), conflict_partners: 8, conflict_probes: 256, merge_probes: 4096 }
    }
}

/// Merge neighbours kept per new fact, the most similar first: enough for a model to
/// find the one it belongs with, without sending a whole block that shares a common word.
pub const MERGE_NEIGHBOURS: usize = 8;

/// Dedupe's candidate pairs over the active items, measured by the engine; a pair of
/// opposite polarity is a contradiction (Supersede's), never a duplicate.
pub fn duplicates(items: &[&Item], threshold: f64, bounds: &Bounds) -> (Vec<DuplicateCandidate>, Work) {
    let inputs: Vec<PairInput<'_>> = items
        .iter()
        .map(|i| PairInput { text: &i.text, rank: i.block.weight() as i64, created_at: i.created_at })
        .collect();
    let (found, work) = pairs::duplicate_pairs_bounded(&inputs, threshold, bounds.pairs);
    // Each fact's statements and polarity, worked out once however many pairs it is in.
    let mut read: Vec<Option<(Vec<String>, bool)>> = vec![None; items.len()];
    for p in &found {
        for i in [p.drop, p.keeper] {
            read[i].get_or_insert_with(|| {
                (crate::text::statements::pieces(&items[i].text), polarity::is_negated(&items[i].text))
            });
        }
    }
    let read = |i: usize| read[i].as_ref().map_or((&[][..], false), |(parts, negated)| (&parts[..], *negated));
    let out = found
        .into_iter()
        // Two speakers' words are never one fact; a statement is not folded into a compound.
        .filter(|p| items[p.drop].speaker == items[p.keeper].speaker)
        .filter(|p| {
            let ((drop, _), (keeper, _)) = (read(p.drop), read(p.keeper));
            crate::gate::dedupe::folds_into(items[p.drop], drop, items[p.keeper], keeper, threshold).is_none()
        })
        .filter(|p| read(p.drop).1 == read(p.keeper).1)
        .filter(|p| crate::gate::dedupe::only_a_mention(&items[p.drop].text, &items[p.keeper].text).is_none())
        // A pinned fact is never the one dropped: it keeps, or the pair is left alone.
        .filter_map(|p| match (items[p.drop].pinned, items[p.keeper].pinned) {
            (false, _) => Some((p.drop, p.keeper, p.similarity)),
            (true, false) => Some((p.keeper, p.drop, p.similarity)),
            (true, true) => None,
        })
        .map(|(drop, keeper, similarity)| DuplicateCandidate {
            drop_id: items[drop].item_id.clone(),
            keeper_id: items[keeper].item_id.clone(),
            similarity,
        })
        .collect();
    (out, work)
}

/// Supersede's candidates: pairs in one block and category, older first, that the gate's
/// meaning rule (`gate::meaning::supersede_basis`) accepts — the opposite statement, a
/// shared one-value slot, or a change the user stated — among those touching `fresh`
/// (every pair when `None`). Ordered as the pair finder orders pairs, group by group.
pub fn conflicts(
    items: &[&Item],
    policy: &RetentionPolicy,
    turns: &[Turn],
    fresh: Option<&HashSet<String>>,
    bounds: &Bounds,
) -> (Vec<ConflictCandidate>, Work) {
    // One speaker's change is never another's: groups by category and speaker, and by
    // block unless a supersession may cross blocks (sized blocks: see the gate).
    let across = policy.human_tokens.is_some();
    let mut groups: BTreeMap<GroupKey<'_>, Vec<&Item>> = BTreeMap::new();
    for i in items {
        let block = (!across).then_some(i.block);
        groups.entry((block, i.category.as_str(), i.speaker.as_deref())).or_default().push(i);
    }
    let said: HashMap<u32, &str> = turns.iter().map(|t| (t.index, t.text.as_str())).collect();
    let mut out = Vec::new();
    let mut work = Work::default();
    for group in groups.values() {
        let scope: Vec<bool> = group.iter().map(|i| fresh.is_none_or(|f| f.contains(&i.item_id))).collect();
        if !scope.contains(&true) {
            continue;
        }
        let g = Group::new(group, policy, &said, scope);
        let mut pairs = BTreeSet::new();
        g.opposites(policy, bounds, &mut pairs, &mut work);
        g.slot_mates(policy, bounds, &mut pairs, &mut work);
        g.changes(policy, bounds, &mut pairs, &mut work);
        // The pair finder's order (similarity, keeper, drop), among pairs sharing half.
        let mut measured: Vec<pairs::DuplicatePair> = pairs
            .into_iter()
            .map(|(a, b)| pairs::measure(&g.inputs, &g.index, a, b))
            .filter(|p| textmath::reaches(p.similarity, 0.5))
            .collect();
        pairs::sort_pairs(&mut measured);
        for p in measured {
            let (a, b) = (group[p.drop], group[p.keeper]);
            let (old, new) = if (a.created_at, a.ordinal()) <= (b.created_at, b.ordinal()) { (a, b) } else { (b, a) };
            let (ro, rn) = if old.item_id == a.item_id { (p.drop, p.keeper) } else { (p.keeper, p.drop) };
            if !old.pinned && meaning::basis(&g.readings[ro], &g.readings[rn], policy).is_ok() {
                work.found += 1;
                out.push(ConflictCandidate {
                    old_id: old.item_id.clone(),
                    new_id: new.item_id.clone(),
                    similarity: p.similarity,
                });
            }
        }
    }
    (out, work)
}

/// Where a fact's conflicts are looked for: its block (unless blocks have a size),
/// category and speaker.
type GroupKey<'a> = (Option<Block>, &'a str, Option<&'a str>);

/// One block-and-category group of facts as the conflict search reads them.
struct Group<'a> {
    items: &'a [&'a Item],
    inputs: Vec<PairInput<'a>>,
    index: TokenSets,
    readings: Vec<meaning::Reading<'a>>,
    negated: Vec<bool>,
    /// Whether each fact's pairs are wanted (it is fresh, or the Sleep is deep).
    scope: Vec<bool>,
    /// Whether a clause of the fact or of its source turn states a change.
    cue: Vec<bool>,
}

impl<'a> Group<'a> {
    fn new(items: &'a [&'a Item], policy: &RetentionPolicy, said: &HashMap<u32, &str>, scope: Vec<bool>) -> Self {
        let inputs: Vec<PairInput<'a>> =
            items.iter().map(|i| PairInput { text: &i.text, rank: 0, created_at: i.created_at }).collect();
        let index = TokenSets::new(items.iter().map(|i| i.text.as_str()));
        let readings: Vec<meaning::Reading<'a>> = items
            .iter()
            .map(|i| meaning::Reading::with_source(i, policy, i.source_turn.and_then(|t| said.get(&t).copied())))
            .collect();
        let negated = readings.iter().map(meaning::Reading::negated).collect();
        let cue = readings.iter().map(meaning::Reading::states_a_change).collect();
        Group { items, inputs, index, readings, negated, scope, cue }
    }

    fn wanted(&self, a: usize, b: usize) -> bool {
        self.scope[a] || self.scope[b]
    }

    /// The opposite statement: near-identical facts (similarity at or above the
    /// threshold, and at least half) of opposite polarity.
    fn opposites(
        &self,
        policy: &RetentionPolicy,
        bounds: &Bounds,
        out: &mut BTreeSet<(usize, usize)>,
        work: &mut Work,
    ) {
        if !self.negated.contains(&true) || !self.negated.contains(&false) {
            return;
        }
        let threshold = policy.similarity_threshold.max(0.5);
        let (near, w) = pairs::similar_pairs(&self.inputs, &self.index, threshold, bounds.pairs);
        work.examined += w.examined;
        work.left += w.left;
        for p in near.iter().filter(|p| self.negated[p.drop] != self.negated[p.keeper]) {
            if self.wanted(p.drop, p.keeper) {
                out.insert((p.drop.min(p.keeper), p.drop.max(p.keeper)));
            }
        }
    }

    /// A one-value slot: affirmative facts filling one slot for one holder, each paired
    /// with its nearest slot-mates in time (either side) that are not its duplicates.
    fn slot_mates(
        &self,
        policy: &RetentionPolicy,
        bounds: &Bounds,
        out: &mut BTreeSet<(usize, usize)>,
        work: &mut Work,
    ) {
        let mut by_slot: HashMap<(usize, Vec<String>), Vec<usize>> = HashMap::new();
        for (n, reading) in self.readings.iter().enumerate().filter(|(n, _)| !self.negated[*n]) {
            for (slot, fill) in reading.fills() {
                by_slot.entry((*slot, fill.holder.clone())).or_default().push(n);
            }
        }
        let threshold = policy.similarity_threshold;
        for members in by_slot.values_mut().filter(|m| m.len() > 1) {
            order::sort_by_key(members, |n| (self.items[*n].created_at, self.items[*n].ordinal()));
            for (at, &n) in members.iter().enumerate().filter(|(_, n)| self.scope[**n]) {
                let before: &mut dyn Iterator<Item = &usize> = &mut members[..at].iter().rev();
                let after: &mut dyn Iterator<Item = &usize> = &mut members[at + 1..].iter();
                for (side, len) in [(before, at), (after, members.len() - at - 1)] {
                    let (mut taken, mut steps) = (0, 0);
                    for &m in side {
                        if taken >= bounds.conflict_partners || steps >= bounds.conflict_probes {
                            work.left += (len - steps) as u64;
                            break;
                        }
                        steps += 1;
                        // Same-value restatements are Dedupe's: never a slot conflict.
                        if textmath::reaches(self.index.similarity(n, m), threshold) {
                            continue;
                        }
                        out.insert((n.min(m), n.max(m)));
                        taken += 1;
                    }
                    work.examined += steps as u64;
                }
            }
        }
    }

    /// A stated change: a fact whose clause (or its source turn's) holds a change cue,
    /// with the facts sharing at least half of the smaller one's tokens and conflicting
    /// with it — the most similar first.
    fn changes(&self, policy: &RetentionPolicy, bounds: &Bounds, out: &mut BTreeSet<(usize, usize)>, work: &mut Work) {
        if !self.cue.contains(&true) {
            return;
        }
        // Facts without a cue need only look among those with one.
        let mut cue_postings: HashMap<u32, Vec<u32>> = HashMap::new();
        for n in (0..self.items.len()).filter(|n| self.cue[*n]) {
            for &t in self.index.set(n) {
                cue_postings.entry(t).or_default().push(n as u32);
            }
        }
        let threshold = policy.similarity_threshold;
        let mut seen = vec![usize::MAX; self.items.len()];
        for n in (0..self.items.len()).filter(|n| self.scope[*n]) {
            let mut near: Vec<(usize, i64, usize)> = Vec::new();
            let mut steps = 0usize;
            'probe: for t in self.index.rarest_first(n) {
                let list: &[u32] =
                    if self.cue[n] { self.index.postings(t) } else { cue_postings.get(&t).map_or(&[], Vec::as_slice) };
                for (k, &m) in list.iter().enumerate() {
                    if steps >= bounds.conflict_probes {
                        work.left += (list.len() - k) as u64;
                        break 'probe;
                    }
                    steps += 1;
                    let m = m as usize;
                    if m == n || seen[m] == n {
                        continue;
                    }
                    seen[m] = n;
                    let shared = self.index.shared(n, m);
                    let (a, b) = (self.index.set(n).len(), self.index.set(m).len());
                    let smaller = a.min(b);
                    let conflicting = shared >= 1
                        && 2 * shared >= smaller
                        && a > shared
                        && b > shared
                        && !textmath::reaches(shared as f64 / smaller as f64, threshold);
                    if conflicting {
                        near.push((shared, self.items[m].created_at, m));
                    }
                }
            }
            work.examined += steps as u64;
            order::sort_by(&mut near, |x, y| y.0.cmp(&x.0).then(y.1.cmp(&x.1)).then(x.2.cmp(&y.2)));
            if near.len() > bounds.conflict_partners {
                work.left += (near.len() - bounds.conflict_partners) as u64;
                near.truncate(bounds.conflict_partners);
            }
            for (_, _, m) in near {
                out.insert((n.min(m), n.max(m)));
            }
        }
    }
}

/// Merge's candidates over `active`: every pair [`merge_neighbours`] finds, once, the
/// earlier fact receiving the later, in memory order — among pairs touching `fresh`
/// (every pair when `None`).
pub fn merges(
    active: &[&Item],
    policy: &RetentionPolicy,
    fresh: Option<&HashSet<String>>,
    bounds: &Bounds,
) -> (Vec<MergeCandidate>, Work) {
    let position: HashMap<&str, usize> = active.iter().enumerate().map(|(n, i)| (i.item_id.as_str(), n)).collect();
    // A pair touching a fresh fact is found from the fresh side or from a fact that
    // shares an uncommon token with it: those are the facts whose neighbours are needed.
    let scope: Option<HashSet<String>> = fresh.map(|f| sharing_uncommon_tokens(active, f));
    let (near, work) = merge_neighbours_bounded(active, scope.as_ref(), policy, bounds);
    let is_fresh = |id: &str| fresh.is_none_or(|f| f.contains(id));
    let mut pairs: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    let tokens = |n: usize| content_tokens(&active[n].text);
    for (a, near) in near {
        for b in near.into_iter().filter(|b| is_fresh(a) || is_fresh(b)) {
            let (a, b) = (position[a], position[b]);
            let key = (a.min(b), a.max(b));
            pairs.entry(key).or_insert_with(|| tokens(a).intersection(&tokens(b)).count());
        }
    }
    let out: Vec<MergeCandidate> = pairs
        .into_iter()
        .map(|((a, b), shared)| MergeCandidate {
            into_id: active[a].item_id.clone(),
            from_id: active[b].item_id.clone(),
            shared,
        })
        .collect();
    let work = Work { found: out.len() as u64, ..work };
    (out, work)
}

/// `fresh` and every fact sharing a token with a fresh fact that is not common.
fn sharing_uncommon_tokens(active: &[&Item], fresh: &HashSet<String>) -> HashSet<String> {
    let limit = common_token_limit(active.len());
    let tokens: Vec<BTreeSet<String>> = active.iter().map(|i| content_tokens(&i.text)).collect();
    let wanted: HashSet<&String> =
        active.iter().zip(&tokens).filter(|(i, _)| fresh.contains(&i.item_id)).flat_map(|(_, t)| t.iter()).collect();
    let mut postings: HashMap<&String, Vec<usize>> = HashMap::new();
    for (n, set) in tokens.iter().enumerate() {
        for t in set.iter().filter(|t| wanted.contains(t)) {
            postings.entry(t).or_default().push(n);
        }
    }
    let mut out: HashSet<String> = fresh.clone();
    for docs in postings.values().filter(|d| d.len() <= limit) {
        out.extend(docs.iter().map(|n| active[*n].item_id.clone()));
    }
    out
}

/// A token held by more facts than this says nothing about which two belong together
/// (`keeps`, `user`): it does not count toward a merge neighbourhood.
pub fn common_token_limit(facts: usize) -> usize {
    (facts / 200).max(64)
}

/// Merge neighbours: for each fresh (or, with `None`, every) unprotected fact, up to
/// [`MERGE_NEIGHBOURS`] facts of its block, category and speaker sharing at least two of
/// its content tokens that are not common, yet neither a duplicate nor a conflict of it
/// (those are Dedupe's and Supersede's), and short enough that the two joined stay within
/// the policy's word bound — most shared first, then newest.
pub fn merge_neighbours<'a>(
    active: &[&'a Item],
    fresh: Option<&HashSet<String>>,
    policy: &RetentionPolicy,
) -> BTreeMap<&'a str, Vec<&'a str>> {
    merge_neighbours_bounded(active, fresh, policy, &Bounds::NONE).0
}

/// [`merge_neighbours`] with each fact scanning at most `bounds.merge_probes` index
/// entries (its rarest tokens first), and the work it took.
pub fn merge_neighbours_bounded<'a>(
    active: &[&'a Item],
    fresh: Option<&HashSet<String>>,
    policy: &RetentionPolicy,
    bounds: &Bounds,
) -> (BTreeMap<&'a str, Vec<&'a str>>, Work) {
    let mergeable = |i: &Item| !policy.is_protected(&i.category) && !i.pinned;
    let tokens: Vec<Option<BTreeSet<String>>> =
        active.iter().map(|i| mergeable(i).then(|| content_tokens(&i.text))).collect();
    let is_fresh = |i: &Item| fresh.is_none_or(|f| f.contains(&i.item_id));
    let wanted: HashSet<&String> =
        active.iter().zip(&tokens).filter(|(i, _)| is_fresh(i)).flat_map(|(_, t)| t.iter().flatten()).collect();
    // Postings of only the tokens a fresh fact holds: the cost follows what is new.
    let mut postings: HashMap<&String, Vec<usize>> = HashMap::new();
    for (n, t) in tokens.iter().enumerate() {
        for t in t.iter().flatten().filter(|t| wanted.contains(t)) {
            postings.entry(t).or_default().push(n);
        }
    }
    // Common tokens say nothing of a shared subject (the Merge gate counts the same).
    let limit = common_token_limit(active.len());
    let common = textmath::common_tokens(active.iter().map(|i| i.text.as_str()));
    postings.retain(|t, docs| docs.len() <= limit && !common.contains(*t));
    let mut out = BTreeMap::new();
    let mut work = Work::default();
    for (n, item) in active.iter().enumerate() {
        let Some(own) = tokens[n].as_ref().filter(|_| is_fresh(item)) else { continue };
        let mut lists: Vec<&Vec<usize>> = own.iter().filter_map(|t| postings.get(t)).collect();
        order::sort_by_key(&mut lists, |l| l.len());
        let mut shared: HashMap<usize, usize> = HashMap::new();
        let mut steps = 0usize;
        for (k, list) in lists.iter().enumerate() {
            if steps + list.len() > bounds.merge_probes {
                work.left += lists[k..].iter().map(|l| l.len() as u64).sum::<u64>();
                break;
            }
            steps += list.len();
            for m in list.iter() {
                *shared.entry(*m).or_default() += 1;
            }
        }
        work.examined += steps as u64;
        let mut near: Vec<(usize, &Item)> = shared
            .into_iter()
            .filter(|(m, s)| *s >= 2 && *m != n)
            .filter(|(m, _)| {
                let other = active[*m];
                other.block == item.block && other.category == item.category && other.speaker == item.speaker
            })
            // Joined, the two must stay within the policy's word bound.
            .filter(|(m, _)| {
                policy.merge_max_words.is_none_or(|bound| {
                    textmath::words(&item.text).count() + textmath::words(&active[*m].text).count() <= bound
                })
            })
            // Only mergeable facts are in the postings, so their tokens are at hand.
            .filter(|(m, _)| {
                tokens[*m].as_ref().is_some_and(|theirs| {
                    !textmath::reaches(textmath::set_similarity(own, theirs), policy.similarity_threshold)
                        && !textmath::conflicts(own, theirs, policy.similarity_threshold)
                })
            })
            // One thing, where merges are bounded (`gate::meaning::one_thing`, as the gate).
            .filter(|(m, _)| {
                policy.merge_max_words.is_none() || crate::gate::meaning::one_thing(item, active[*m]).is_ok()
            })
            .map(|(m, s)| (s, active[m]))
            .collect();
        if near.is_empty() {
            continue;
        }
        order::sort_by(&mut near, |(sa, a), (sb, b)| {
            sb.cmp(sa).then(b.created_at.cmp(&a.created_at)).then(a.item_id.cmp(&b.item_id))
        });
        near.truncate(MERGE_NEIGHBOURS);
        out.insert(item.item_id.as_str(), near.into_iter().map(|(_, o)| o.item_id.as_str()).collect());
    }
    (out, work)
}
