//! What of the memory a chat prompt carries. A memory lives for years; the prompt must
//! not grow with it. Under a token budget the pinned blocks (persona, human) come first
//! when they fit, then the episode and scratch facts most relevant to the message (BM25
//! over content tokens from an inverted index built once; newer, then more salient, break
//! ties). When the pinned blocks alone overflow, the facts most relevant to the message
//! (from any block) take up to half the budget first, then the pinned ones by salience —
//! so a large human block cannot crowd out the one fact the user asks about. The prompt
//! says how many facts were left out. The Wake quiz answers through the same selection,
//! so it measures recall *through* retrieval. Only active facts are ever offered, so a
//! superseded value never appears as current.

use crate::llm::provider::estimate_tokens;
use crate::model::memory::{Block, Item};
use crate::model::policy::RetentionPolicy;
use crate::text::textmath::content_tokens;
use std::collections::HashMap;

/// Tokens a chat prompt may carry by default — instructions, recent turns, the message
/// and as much memory as fits the rest: with a 200-token reply it fits a 4k-context model.
pub const DEFAULT_MEMORY_TOKENS: u64 = 2000;

/// The facts a prompt carries, in display order, and how many were left out.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection<'a> {
    pub facts: Vec<&'a Item>,
    pub left_out: usize,
    /// Estimated tokens of the memory lines chosen.
    pub tokens: u64,
    /// The clock the lines' ages and dates are given against (`None`: no dates shown).
    pub now: Option<i64>,
}

/// The prompt line of one fact, as `chat_request` writes it; with `now`, followed by when
/// it was said and the date it is about (`(said 90 days ago; due 2026-12-04, 88 days ago)`).
pub fn line(item: &Item, now: Option<i64>) -> String {
    match now {
        None => format!("- [{}] {}: {}\n", item.item_id, item.block, item.text),
        Some(now) => format!("- [{}] {}: {} ({})\n", item.item_id, item.block, item.text, item.dated(now)),
    }
}

/// Chooses the facts of `memory` (active facts) for a prompt about `query` within
/// `budget` tokens. When everything fits, everything is kept in its given order. Builds
/// a [`MemoryIndex`] each call; to ask many questions of one memory, build it once.
pub fn select<'a>(memory: &[&'a Item], query: &str, budget: u64, policy: &RetentionPolicy, now: i64) -> Selection<'a> {
    MemoryIndex::new(memory, policy, now).select(query, budget)
}

/// An inverted index over a memory's content tokens, with each fact's prompt cost and
/// the orders the selection falls back on, so one selection costs what the query's
/// terms match, not what the memory holds.
///
/// ```
/// use nocturne_core::llm::context::MemoryIndex;
/// use nocturne_core::model::policy::RetentionPolicy;
/// # use nocturne_core::model::memory::{Block, Item};
/// # let fact = |n: u64, text: &str| Item { item_id: format!("m_{n}"), block: Block::Scratch, text: text.into(),
/// #     category: "context".into(), source_turn: None, created_at: 0, updated_at: 0, active: true,
/// #     valid_from: None, valid_to: None, superseded_by: None, pinned: false };
/// let facts = vec![fact(1, "My dog is called Bolt."), fact(2, "The weekly groceries are on Friday.")];
/// let refs: Vec<&Item> = facts.iter().collect();
/// let index = MemoryIndex::new(&refs, &RetentionPolicy::default(), 0);
/// let chosen = index.select("What is my dog called?", 16);
/// assert_eq!(chosen.facts[0].item_id, "m_1");
/// assert_eq!(chosen.left_out, 1);
/// ```
pub struct MemoryIndex<'a> {
    facts: Vec<&'a Item>,
    now: i64,
    cost: Vec<u64>,
    total: u64,
    /// Content-token counts per fact (BM25's document length).
    len: Vec<u32>,
    avg_len: f64,
    postings: HashMap<String, Vec<u32>>,
    /// Persona and human facts, most salient first.
    pinned: Vec<u32>,
    pinned_cost: u64,
    /// Episode and scratch facts, newest first.
    rest: Vec<u32>,
    cheapest: u64,
}

impl<'a> MemoryIndex<'a> {
    /// Indexes `memory` (active facts, in display order) as of `now`.
    pub fn new(memory: &[&'a Item], policy: &RetentionPolicy, now: i64) -> Self {
        let facts = memory.to_vec();
        let cost: Vec<u64> = facts.iter().map(|i| estimate_tokens(&line(i, Some(now)))).collect();
        let mut postings: HashMap<String, Vec<u32>> = HashMap::new();
        let mut len = Vec::with_capacity(facts.len());
        for (n, item) in facts.iter().enumerate() {
            let tokens = content_tokens(&item.text);
            len.push(tokens.len() as u32);
            for t in tokens {
                postings.entry(t).or_default().push(n as u32);
            }
        }
        let avg_len = len.iter().map(|l| *l as f64).sum::<f64>() / facts.len().max(1) as f64;
        let is_pinned = |i: &Item| matches!(i.block, Block::Persona | Block::Human);
        let salience: Vec<f64> = facts.iter().map(|i| policy.salience(i, now)).collect();
        let (mut pinned, mut rest): (Vec<u32>, Vec<u32>) =
            (0..facts.len() as u32).partition(|n| is_pinned(facts[*n as usize]));
        pinned.sort_by(|a, b| {
            let (a, b) = (*a as usize, *b as usize);
            facts[a].block.cmp(&facts[b].block).then(salience[b].total_cmp(&salience[a]))
        });
        rest.sort_by(|a, b| {
            let (a, b) = (facts[*a as usize], facts[*b as usize]);
            (b.created_at, b.ordinal()).cmp(&(a.created_at, a.ordinal()))
        });
        let pinned_cost = pinned.iter().map(|n| cost[*n as usize]).sum();
        MemoryIndex {
            total: cost.iter().sum(),
            cheapest: cost.iter().copied().min().unwrap_or(0),
            facts,
            now,
            cost,
            len,
            avg_len,
            postings,
            pinned,
            pinned_cost,
            rest,
        }
    }

    /// How many facts the index holds.
    pub fn len(&self) -> usize {
        self.facts.len()
    }

    /// The indexed facts, in display order.
    pub fn facts(&self) -> &[&'a Item] {
        &self.facts
    }

    /// Whether the index holds no fact.
    pub fn is_empty(&self) -> bool {
        self.facts.is_empty()
    }

    /// The clock the index was built at.
    pub fn now(&self) -> i64 {
        self.now
    }

    /// The facts for a prompt about `query` within `budget` tokens.
    pub fn select(&self, query: &str, budget: u64) -> Selection<'a> {
        if self.total <= budget {
            return Selection { facts: self.facts.clone(), left_out: 0, tokens: self.total, now: Some(self.now) };
        }
        let relevant = self.ranked(query);
        let mut fill = Fill { index: self, chosen: vec![false; self.facts.len()], picked: Vec::new(), used: 0, budget };
        let pinned_fit = self.pinned_cost <= budget;
        if pinned_fit {
            fill.take(self.pinned.iter().copied());
            fill.take(relevant.iter().copied());
        } else {
            fill.budget = budget / 2;
            fill.take(relevant.iter().copied());
            fill.budget = budget;
            fill.take(self.pinned.iter().copied());
            fill.take(relevant.iter().copied());
        }
        fill.take(self.rest.iter().copied());
        let mut facts: Vec<&'a Item> = fill.picked.iter().map(|n| self.facts[*n as usize]).collect();
        facts.sort_by_key(|i| (i.block, i.ordinal()));
        Selection { left_out: self.facts.len() - facts.len(), facts, tokens: fill.used, now: Some(self.now) }
    }

    /// Facts sharing a content token with `query`, best BM25 score (k1 = 1.2, b = 0.75)
    /// first; newer, then lower id, break ties.
    fn ranked(&self, query: &str) -> Vec<u32> {
        let n = self.facts.len() as f64;
        let mut scores: HashMap<u32, f64> = HashMap::new();
        for term in content_tokens(query) {
            let Some(docs) = self.postings.get(&term) else { continue };
            let df = docs.len() as f64;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            for d in docs {
                let len = self.len[*d as usize] as f64;
                *scores.entry(*d).or_default() += idf * 2.2 / (1.0 + 1.2 * (0.25 + 0.75 * len / self.avg_len.max(1.0)));
            }
        }
        let mut ranked: Vec<(f64, u32)> = scores.into_iter().map(|(d, s)| (s, d)).collect();
        ranked.sort_by(|(sa, a), (sb, b)| {
            let (fa, fb) = (self.facts[*a as usize], self.facts[*b as usize]);
            sb.total_cmp(sa).then(fb.created_at.cmp(&fa.created_at)).then(fa.ordinal().cmp(&fb.ordinal()))
        });
        ranked.into_iter().map(|(_, d)| d).collect()
    }
}

/// A selection being filled: facts are taken in the order offered while they fit.
struct Fill<'i, 'a> {
    index: &'i MemoryIndex<'a>,
    chosen: Vec<bool>,
    picked: Vec<u32>,
    used: u64,
    budget: u64,
}

impl Fill<'_, '_> {
    fn take(&mut self, order: impl Iterator<Item = u32>) {
        for n in order {
            if self.used + self.index.cheapest > self.budget {
                return;
            }
            let (i, c) = (n as usize, self.index.cost[n as usize]);
            if !self.chosen[i] && self.used + c <= self.budget {
                self.chosen[i] = true;
                self.picked.push(n);
                self.used += c;
            }
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn fact(n: u64, block: Block, text: &str) -> Item {
        Item::new_fact(n, block, "context", text, n as i64)
    }

    #[test]
    fn a_line_says_when_it_was_said_and_the_date_it_is_about() {
        let wednesday = crate::text::when::Day::from_ymd(2026, 12, 2).map_or(0, |d| d.start()) + 43_200;
        let mut promise = fact(1, Block::Human, "I promised Ana I would review her thesis by Friday.");
        promise.category = "commitments".into();
        promise.created_at = wednesday;
        assert_eq!(promise.dated(wednesday + 90 * 86_400), "said 90 days ago; due 2026-12-04, 88 days ago");
        assert_eq!(promise.dated(wednesday), "said today; due 2026-12-04, in 2 days");
        let vague = Item { text: "We should meet next Friday.".into(), category: "context".into(), ..promise.clone() };
        assert_eq!(vague.dated(wednesday), "said today; \"next friday\" names no single date");
        let plain = Item { text: "I keep bees.".into(), ..promise };
        assert_eq!(plain.dated(wednesday + 86_400), "said yesterday");
    }

    #[test]
    fn everything_is_kept_when_it_fits() {
        let items = [fact(1, Block::Human, "I live in Ghent."), fact(2, Block::Scratch, "I keep a cat.")];
        let refs: Vec<&Item> = items.iter().collect();
        let s = select(&refs, "anything", 500, &RetentionPolicy::default(), 10);
        assert_eq!((s.facts.len(), s.left_out), (2, 0));
    }

    #[test]
    fn over_budget_the_pinned_and_the_relevant_are_kept() {
        let mut items = vec![fact(1, Block::Human, "I live in Ghent.")];
        for n in 2..2000 {
            items.push(fact(n, Block::Scratch, &format!("Note {n} about the weekly groceries and errands.")));
        }
        items.push(fact(2000, Block::Scratch, "My dog is called Bolt."));
        let refs: Vec<&Item> = items.iter().collect();
        let s = select(&refs, "What is my dog called?", 300, &RetentionPolicy::default(), 3000);
        assert!(s.tokens <= 300, "{} tokens", s.tokens);
        assert!(s.left_out > 1900);
        let ids: Vec<&str> = s.facts.iter().map(|i| i.item_id.as_str()).collect();
        assert!(ids.contains(&"m_1"), "the pinned human fact");
        assert!(ids.contains(&"m_2000"), "the relevant fact: {ids:?}");
    }

    #[test]
    fn a_human_block_larger_than_the_budget_does_not_crowd_out_the_asked_fact() {
        let mut items = Vec::new();
        for n in 1..3000 {
            items.push(fact(n, Block::Human, &format!("Fact {n} about the weekly errands and chores.")));
        }
        items.push(fact(3000, Block::Human, "My dentist is called Kovalik."));
        items.push(fact(3001, Block::Episodes, "I repainted the garden shed green."));
        let refs: Vec<&Item> = items.iter().collect();
        let index = MemoryIndex::new(&refs, &RetentionPolicy::default(), 4000);
        for (question, id) in [("Who is my dentist?", "m_3000"), ("What did I do to the garden shed?", "m_3001")] {
            let s = index.select(question, 400);
            assert!(s.tokens <= 400, "{} tokens", s.tokens);
            assert!(
                s.facts.iter().any(|i| i.item_id == id),
                "{question} -> {id}: {:?}",
                s.facts.iter().map(|i| &i.text).take(3).collect::<Vec<_>>()
            );
            assert!(s.facts.len() > 5, "the rest of the budget holds pinned facts too");
        }
    }

    #[test]
    fn the_indexed_selection_equals_a_fresh_one() {
        let items: Vec<Item> =
            (1..500).map(|n| fact(n, Block::Scratch, &format!("Note {n} on topic {}.", n % 7))).collect();
        let refs: Vec<&Item> = items.iter().collect();
        let index = MemoryIndex::new(&refs, &RetentionPolicy::default(), 600);
        assert_eq!(index.select("topic 3", 200), select(&refs, "topic 3", 200, &RetentionPolicy::default(), 600));
        assert_eq!(index.len(), 499);
    }
}
