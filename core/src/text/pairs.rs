//! Candidate pairs: which facts of a memory restate one another, found through an
//! inverted index of content tokens with prefix filtering, and bounded per fact, so a
//! memory that repeats itself (one statement said 10,000 times, every fact built from a
//! handful of words) costs what its size does, never its size squared. What a bound
//! leaves unexamined is counted, never silently dropped.
//!
//! ```
//! use nocturne_core::text::pairs::{duplicate_pairs, PairInput};
//! let texts = ["I keep a cat.", "I keep a cat!", "I live in Ghent."];
//! let facts: Vec<PairInput> = texts.iter().map(|t| PairInput { text: t, rank: 0, created_at: 0 }).collect();
//! let pairs = duplicate_pairs(&facts, 0.9);
//! assert_eq!((pairs.len(), pairs[0].keeper, pairs[0].drop), (1, 0, 1));
//! ```

use super::textmath::content_tokens;
use crate::text::order;
use std::collections::HashMap;

/// A pair of facts similar enough to be one: `drop` restates `keeper`.
#[derive(Clone, Debug, PartialEq)]
pub struct DuplicatePair {
    pub drop: usize,
    pub keeper: usize,
    pub similarity: f64,
}

/// One fact as the pair finder sees it.
#[derive(Clone, Debug)]
pub struct PairInput<'a> {
    pub text: &'a str,
    /// Higher wins the keeper's place on equal token counts (block weight).
    pub rank: i64,
    /// Older (smaller) wins after rank.
    pub created_at: i64,
}

/// How much one fact may cost a search. Past either bound the search stops for that fact
/// and counts what it left ([`Work::left`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Index entries one fact scans at most, its rarest tokens' first.
    pub probes: usize,
    /// Pairs one fact finds at most. A group of facts with the very same content tokens
    /// larger than this pairs each member with the group's best keeper only.
    pub partners: usize,
}

impl Bounds {
    /// No bound: every qualifying pair, at whatever cost.
    pub const NONE: Bounds = Bounds { probes: usize::MAX, partners: usize::MAX };
}

impl Default for Bounds {
    /// Far above what a fact of a real memory meets (the benchmarks' memories never reach
    /// them), low enough that 100,000 facts saying one thing stay a matter of seconds.
    fn default() -> Self {
        Bounds { probes: 1024, partners: 32 }
    }
}

/// What a search did: index entries it scanned (`examined`), pairs it returns (`found`),
/// and pairs or entries its bounds left unexamined (`left`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Work {
    pub examined: u64,
    pub found: u64,
    pub left: u64,
}

impl Work {
    /// Adds another search's figures to these.
    pub fn add(&mut self, other: Work) {
        self.examined += other.examined;
        self.found += other.found;
        self.left += other.left;
    }
}

/// Facts as sorted sets of interned content tokens, with an inverted index: what every
/// bounded search in the engine runs over. Two facts with the same content tokens have
/// equal sets.
#[derive(Clone, Debug, Default)]
pub struct TokenSets {
    sets: Vec<Vec<u32>>,
    postings: Vec<Vec<u32>>,
}

impl TokenSets {
    /// The content-token sets of `texts`, in order.
    pub fn new<'a>(texts: impl IntoIterator<Item = &'a str>) -> Self {
        let mut ids: HashMap<String, u32> = HashMap::new();
        let mut postings: Vec<Vec<u32>> = Vec::new();
        let mut sets = Vec::new();
        for (n, text) in texts.into_iter().enumerate() {
            let mut set: Vec<u32> = content_tokens(text)
                .into_iter()
                .map(|t| {
                    let next = ids.len() as u32;
                    *ids.entry(t).or_insert(next)
                })
                .collect();
            set.sort_unstable();
            for &t in &set {
                if t as usize == postings.len() {
                    postings.push(Vec::new());
                }
                postings[t as usize].push(n as u32);
            }
            sets.push(set);
        }
        TokenSets { sets, postings }
    }

    /// How many facts there are.
    pub fn len(&self) -> usize {
        self.sets.len()
    }

    /// Whether there is no fact.
    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }

    /// Fact `n`'s content tokens (interned ids, ascending).
    pub fn set(&self, n: usize) -> &[u32] {
        &self.sets[n]
    }

    /// The facts holding `token`, ascending.
    pub fn postings(&self, token: u32) -> &[u32] {
        &self.postings[token as usize]
    }

    /// Content tokens facts `a` and `b` share.
    pub fn shared(&self, a: usize, b: usize) -> usize {
        let (x, y) = (&self.sets[a], &self.sets[b]);
        let (mut i, mut j, mut n) = (0, 0, 0);
        while i < x.len() && j < y.len() {
            match x[i].cmp(&y[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    n += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        n
    }

    /// The similarity of facts `a` and `b`, as the gates measure it: containment of the smaller set.
    pub fn similarity(&self, a: usize, b: usize) -> f64 {
        let smaller = self.sets[a].len().min(self.sets[b].len());
        if smaller == 0 {
            return 0.0;
        }
        self.shared(a, b) as f64 / smaller as f64
    }

    /// `n`'s tokens, rarest first (ties by id): the order prefix filtering probes them in.
    pub fn rarest_first(&self, n: usize) -> Vec<u32> {
        let mut v = self.sets[n].clone();
        order::sort_by_key(&mut v, |t| (self.postings[*t as usize].len(), *t));
        v
    }
}

/// All pairs with similarity ≥ `threshold`, sorted by similarity (highest first), then
/// keeper and drop index. Exactly the pairs of [`duplicate_pairs_brute_force`].
pub fn duplicate_pairs(facts: &[PairInput<'_>], threshold: f64) -> Vec<DuplicatePair> {
    duplicate_pairs_bounded(facts, threshold, Bounds::NONE).0
}

/// [`duplicate_pairs`] within `bounds`, and the work it took. An inverted index with
/// prefix filtering: a pair can reach the threshold only if the smaller set's rarest
/// `|X| − ⌈t·|X|⌉ + 1` tokens meet the other set, so only those postings are scanned, each
/// pair from its smaller side. When no bound binds (`left == 0`) the pairs are exactly the
/// unbounded ones; when one does, every pair returned still qualifies.
pub fn duplicate_pairs_bounded(facts: &[PairInput<'_>], threshold: f64, bounds: Bounds) -> (Vec<DuplicatePair>, Work) {
    similar_pairs(facts, &TokenSets::new(facts.iter().map(|f| f.text)), threshold, bounds)
}

/// [`duplicate_pairs_bounded`] over `index`, the [`TokenSets`] of `facts`' texts.
pub fn similar_pairs(
    facts: &[PairInput<'_>],
    index: &TokenSets,
    threshold: f64,
    bounds: Bounds,
) -> (Vec<DuplicatePair>, Work) {
    let key = |i: usize| (i, index.set(i).len(), facts[i].rank, facts[i].created_at);
    let mut pairs = Vec::new();
    let mut work = Work::default();
    // A group of identical facts larger than the partner bound: one keeper, a star of drops.
    let mut folded = vec![false; facts.len()];
    let mut fold_size = vec![0u64; facts.len()];
    if bounds.partners < usize::MAX {
        let mut groups: HashMap<&[u32], Vec<usize>> = HashMap::new();
        for n in 0..facts.len() {
            if !index.set(n).is_empty() {
                groups.entry(index.set(n)).or_default().push(n);
            }
        }
        for members in groups.values_mut().filter(|m| m.len() > bounds.partners + 1) {
            order::sort_by(members, |a, b| keeper_order(key(*a), key(*b)));
            let keeper = members[0];
            for &m in &members[1..] {
                folded[m] = true;
                pairs.push(DuplicatePair { drop: m, keeper, similarity: 1.0 });
            }
            let g = members.len() as u64;
            fold_size[keeper] = g - 1;
            work.found += g - 1;
            work.left += g * (g - 1) / 2 - (g - 1);
        }
    }
    let mut seen: Vec<u32> = vec![u32::MAX; facts.len()];
    for i in (0..facts.len()).filter(|i| !folded[*i]) {
        let n = index.set(i).len();
        if n == 0 {
            continue;
        }
        let need = required_overlap(n, threshold);
        let prefix = index.rarest_first(i);
        let prefix = &prefix[..(n + 1 - need.min(n)).min(n)];
        let (mut probes, mut found) = (0usize, 0usize);
        for (p, &t) in prefix.iter().enumerate() {
            let list = index.postings(t);
            let mut stop = None;
            for (k, &j) in list.iter().enumerate() {
                if probes >= bounds.probes || found >= bounds.partners {
                    stop = Some(k);
                    break;
                }
                probes += 1;
                let j = j as usize;
                let m = index.set(j).len();
                // Each pair is probed from its smaller side (ties: lower index).
                if j == i || folded[j] || seen[j] == i as u32 || m < n || (m == n && j < i) {
                    continue;
                }
                seen[j] = i as u32;
                let sim = index.similarity(i, j);
                if sim + 1e-12 < threshold {
                    continue;
                }
                let (keeper, drop) = if keeper_order(key(i), key(j)).is_le() { (i, j) } else { (j, i) };
                pairs.push(DuplicatePair { drop, keeper, similarity: sim });
                found += 1;
                work.found += 1;
                // A folded group's other members would each have paired too.
                work.left += fold_size[i] + fold_size[j];
            }
            if let Some(k) = stop {
                let rest: usize = prefix[p + 1..].iter().map(|t| index.postings(*t).len()).sum();
                work.left += (list.len() - k + rest) as u64;
                break;
            }
        }
        work.examined += probes as u64;
    }
    sort_pairs(&mut pairs);
    (pairs, work)
}

/// The O(n²) reference for [`duplicate_pairs`]: every pair compared.
pub fn duplicate_pairs_brute_force(facts: &[PairInput<'_>], threshold: f64) -> Vec<DuplicatePair> {
    let index = TokenSets::new(facts.iter().map(|f| f.text));
    let key = |i: usize| (i, index.set(i).len(), facts[i].rank, facts[i].created_at);
    let mut pairs = Vec::new();
    for i in 0..facts.len() {
        for j in i + 1..facts.len() {
            let sim = index.similarity(i, j);
            if index.set(i).is_empty() || index.set(j).is_empty() || sim + 1e-12 < threshold {
                continue;
            }
            let (keeper, drop) = if keeper_order(key(i), key(j)).is_le() { (i, j) } else { (j, i) };
            pairs.push(DuplicatePair { drop, keeper, similarity: sim });
        }
    }
    sort_pairs(&mut pairs);
    pairs
}

/// Which side of a similar pair is kept: more content tokens, then higher rank, then
/// older, then the earlier index.
fn keeper_order(a: (usize, usize, i64, i64), b: (usize, usize, i64, i64)) -> std::cmp::Ordering {
    // (index, token count, rank, created_at); Less means `a` is the better keeper.
    b.1.cmp(&a.1).then(b.2.cmp(&a.2)).then(a.3.cmp(&b.3)).then(a.0.cmp(&b.0))
}

/// The least overlap two sets whose smaller one has `n` tokens need to reach `threshold`.
pub fn required_overlap(n: usize, threshold: f64) -> usize {
    // Guard against float noise: 0.9 * 10 must need 9, not 10.
    let raw = threshold * n as f64;
    let need = (raw - 1e-9).ceil();
    (need.max(1.0) as usize).min(n)
}

/// Orders pairs by similarity (highest first), then keeper and drop index.
pub fn sort_pairs(pairs: &mut [DuplicatePair]) {
    order::sort_by(pairs, |a, b| {
        b.similarity.total_cmp(&a.similarity).then(a.keeper.cmp(&b.keeper)).then(a.drop.cmp(&b.drop))
    });
}

/// The pair `(a, b)` as the finder would report it at any threshold it reaches: the
/// better keeper kept, with their similarity.
pub fn measure(facts: &[PairInput<'_>], index: &TokenSets, a: usize, b: usize) -> DuplicatePair {
    let key = |i: usize| (i, index.set(i).len(), facts[i].rank, facts[i].created_at);
    let (keeper, drop) = if keeper_order(key(a), key(b)).is_le() { (a, b) } else { (b, a) };
    DuplicatePair { drop, keeper, similarity: index.similarity(a, b) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs<'a>(texts: &[&'a str]) -> Vec<PairInput<'a>> {
        texts.iter().map(|t| PairInput { text: t, rank: 0, created_at: 0 }).collect()
    }

    #[test]
    fn indexed_pairs_match_brute_force_on_a_small_store() {
        let texts = [
            "I live in Lisbon and work best in the morning.",
            "User lives in Lisbon and works best in the morning.",
            "I live in Porto and work best in the morning.",
            "The user keeps a bearded dragon.",
            "The user keeps a bearded dragon called Saffron.",
            "",
        ];
        let facts = inputs(&texts);
        let fast = duplicate_pairs(&facts, 0.9);
        assert_eq!(fast, duplicate_pairs_brute_force(&facts, 0.9));
        assert_eq!(fast.len(), 2);
        assert!(fast.contains(&DuplicatePair { drop: 3, keeper: 4, similarity: 1.0 }));
    }

    #[test]
    fn one_statement_said_many_times_pairs_each_copy_with_one_keeper() {
        let texts: Vec<&str> = std::iter::repeat_n("I live in Ghent.", 200).collect();
        let facts = inputs(&texts);
        let (pairs, work) = duplicate_pairs_bounded(&facts, 0.9, Bounds::default());
        assert_eq!(pairs.len(), 199, "a star around the best keeper, not 19,900 pairs");
        assert!(pairs.iter().all(|p| p.keeper == 0));
        assert_eq!(work.left, 200 * 199 / 2 - 199, "what the bound left is counted");
    }

    #[test]
    fn the_probe_bound_stops_a_fact_and_counts_the_rest() {
        // Ten tokens each, nine shared: every pair reaches 0.9, and the shared tokens are
        // as rare as the own one, so each fact's prefix meets every other fact.
        let texts: Vec<String> =
            (0..300).map(|n| format!("alpha beta gamma delta omega kappa sigma theta zeta w{n}")).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let facts = inputs(&refs);
        let bounds = Bounds { probes: 50, partners: 10 };
        let (pairs, work) = duplicate_pairs_bounded(&facts, 0.9, bounds);
        let all = duplicate_pairs(&facts, 0.9);
        assert_eq!(all.len(), 300 * 299 / 2);
        assert!(pairs.len() <= 300 * 10, "{} pairs", pairs.len());
        assert!(work.left > 0);
        assert!(pairs.iter().all(|p| all.contains(p)), "every pair returned qualifies");
    }

    #[test]
    fn without_a_binding_bound_the_bounded_search_is_exact() {
        let texts = [
            "I keep a cat.",
            "I keep a cat!",
            "I keep a cat named Miso.",
            "I live in Ghent.",
            "Ghent is where I live.",
        ];
        let facts = inputs(&texts);
        let (pairs, work) = duplicate_pairs_bounded(&facts, 0.9, Bounds::default());
        assert_eq!(work.left, 0);
        assert_eq!(pairs, duplicate_pairs_brute_force(&facts, 0.9));
    }
}
