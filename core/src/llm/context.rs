//! What of the memory a chat prompt carries. A memory lives for years; the prompt must
//! not grow with it. Under a token budget the pinned blocks (persona, human) come first,
//! most salient first, but never past half the budget; then the facts of any block most
//! relevant to the message (BM25 over the roots of each fact's words and its speaker's
//! name, from an inverted index built once; newer, then lower id, break ties); then the
//! newest of the rest. So a large human block cannot crowd out the one fact the user asks
//! about. The prompt says how many facts were left out. The Wake quiz answers through the same selection,
//! so it measures recall *through* retrieval. Only active facts are ever offered, so a
//! superseded value never appears as current.

use crate::llm::provider::estimate_tokens;
use crate::model::memory::{Block, Item, Turn};
use crate::model::policy::RetentionPolicy;
use crate::text::textmath::content_tokens;
use std::collections::HashMap;

/// How much more a fact counts when its speaker is the one a question names.
pub const SPEAKER_BOOST: f64 = 1.5;

/// What each further fact from one turn counts for, against the one before it.
pub const SAME_TURN: f64 = 0.5;

/// What a word of the conversation around a fact weighs against one of its own.
pub const CONTEXT_WEIGHT: f64 = 0.3;

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

/// The prompt line of one fact, as `chat_request` writes it under its block's heading
/// (and its speaker's, when it has one): its id and words; with `now`, the day it was
/// said and the date it is about (`(2026-12-02; due 2026-12-04, tomorrow)`).
pub fn line(item: &Item, now: Option<i64>) -> String {
    match now {
        None => format!("- [{}] {}\n", item.item_id, item.text),
        Some(now) => format!("- [{}] {} ({})\n", item.item_id, item.text, item.dated_briefly(now)),
    }
}

/// How the heading over one speaker's facts ends (`Melanie said:`).
pub const SAID_BY: &str = " said:";

/// The heading over `speaker`'s facts in a block.
pub fn said_by(speaker: &str) -> String {
    format!("{speaker}{SAID_BY}\n")
}

/// The heading the lines of `block` sit under in a chat prompt.
pub fn heading(block: Block) -> &'static str {
    match block {
        Block::Persona => "persona (about the assistant, pinned):\n",
        Block::Human => "human (about the user, pinned):\n",
        Block::Episodes => "episodes:\n",
        Block::Scratch => "scratch (recent notes):\n",
    }
}

/// The roots a fact or a question is matched by: content tokens with the endings of
/// inflection cut (`painted`, `painting`, `paints` → `paint`), so a question finds the
/// fact whatever tense either is in. For retrieval only; the gates keep SPEC §3's tokens.
pub fn roots(text: &str) -> std::collections::BTreeSet<String> {
    let mut out: std::collections::BTreeSet<String> = content_tokens(text).into_iter().map(|t| root(&t)).collect();
    // `de-stress` is also `destress`, `e-mail` also `email`.
    for word in text.split_whitespace().filter(|w| w.contains('-')) {
        let joined: String = word.chars().filter(|c| c.is_alphanumeric()).collect();
        if joined.chars().count() > 3 {
            out.extend(content_tokens(&joined).into_iter().map(|t| root(&t)));
        }
    }
    out
}

fn root(token: &str) -> String {
    for (ending, keep) in [("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("ly", ""), ("s", "")] {
        if let Some(stem) = token.strip_suffix(ending) {
            if stem.chars().count() >= 3 && stem.chars().all(char::is_alphabetic) {
                // `running` → `run`, not `runn`.
                let stem = match stem.as_bytes() {
                    [.., a, b] if a == b && !matches!(a, b'l' | b's' | b'z') && keep.is_empty() => {
                        &stem[..stem.len() - 1]
                    }
                    _ => stem,
                };
                return format!("{stem}{keep}");
            }
        }
    }
    token.to_string()
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
/// #     valid_from: None, valid_to: None, superseded_by: None, pinned: false, speaker: None };
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
    /// Roots of the conversation around each fact (its source turn and the turn before,
    /// often the question it answers) that its own words lack, matched at a lower weight.
    context: HashMap<String, Vec<u32>>,
    /// Persona and human facts, most salient first.
    pinned: Vec<u32>,
    /// Episode and scratch facts, newest first.
    rest: Vec<u32>,
    cheapest: u64,
}

impl<'a> MemoryIndex<'a> {
    /// Indexes `memory` (active facts, in display order) as of `now`.
    pub fn new(memory: &[&'a Item], policy: &RetentionPolicy, now: i64) -> Self {
        let facts = memory.to_vec();
        // A fact's cost is its line; a block's heading is small and shared, counted once
        // per block in the prompt's fixed part.
        let cost: Vec<u64> = facts.iter().map(|i| estimate_tokens(&line(i, Some(now)))).collect();
        let mut postings: HashMap<String, Vec<u32>> = HashMap::new();
        let mut len = Vec::with_capacity(facts.len());
        for (n, item) in facts.iter().enumerate() {
            // The speaker's name is matched too: a question about Melanie finds what she said.
            let tokens = roots(&item.said());
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
        MemoryIndex {
            total: cost.iter().sum(),
            cheapest: cost.iter().copied().min().unwrap_or(0),
            facts,
            now,
            cost,
            len,
            avg_len,
            postings,
            context: HashMap::new(),
            pinned,
            rest,
        }
    }

    /// The same index, each fact also found by the words of the conversation it was said in
    /// (`transcript`): `I've had them for 3 years` is found by a question about turtles
    /// when the turn before asked about them. Those words weigh [`CONTEXT_WEIGHT`] of its own.
    pub fn with_context(mut self, transcript: &[Turn]) -> Self {
        let by_index: HashMap<u32, &Turn> = transcript.iter().map(|t| (t.index, t)).collect();
        let mut context: HashMap<String, Vec<u32>> = HashMap::new();
        for (n, item) in self.facts.iter().enumerate() {
            let Some(at) = item.source_turn else { continue };
            let own = roots(&item.said());
            let around = [at.checked_sub(1), Some(at)].into_iter().flatten().filter_map(|i| by_index.get(&i));
            let words: std::collections::BTreeSet<String> = around.flat_map(|t| roots(&t.said())).collect();
            for w in words.into_iter().filter(|w| !own.contains(w)) {
                context.entry(w).or_default().push(n as u32);
            }
        }
        self.context = context;
        self
    }

    /// The speakers of the indexed facts, each once.
    pub fn speakers(&self) -> Vec<&'a str> {
        let mut out: Vec<&'a str> = self.facts.iter().filter_map(|i| i.speaker.as_deref()).collect();
        out.sort_unstable();
        out.dedup();
        out
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
        // The pinned blocks, most salient first, take at most half; the facts most relevant
        // to the message (from any block) the rest.
        fill.budget = budget / 2;
        fill.take(self.pinned.iter().copied());
        fill.budget = budget;
        fill.take(relevant.iter().copied());
        fill.take(self.rest.iter().copied());
        let mut facts: Vec<&'a Item> = fill.picked.iter().map(|n| self.facts[*n as usize]).collect();
        facts.sort_by_key(|i| (i.block, i.ordinal()));
        Selection { left_out: self.facts.len() - facts.len(), facts, tokens: fill.used, now: Some(self.now) }
    }

    /// Facts sharing a content token with `query`, best BM25 score (k1 = 1.2, b = 0.75)
    /// first; newer, then lower id, break ties.
    pub fn ranked(&self, query: &str) -> Vec<u32> {
        let n = self.facts.len() as f64;
        let mut scores: HashMap<u32, f64> = HashMap::new();
        for term in roots(query) {
            let own = self.postings.get(&term).map_or(&[][..], Vec::as_slice);
            let around = self.context.get(&term).map_or(&[][..], Vec::as_slice);
            let df = (own.len() + around.len()) as f64;
            if df == 0.0 {
                continue;
            }
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            for (docs, weight) in [(own, 1.0), (around, CONTEXT_WEIGHT)] {
                for d in docs {
                    let len = self.len[*d as usize] as f64;
                    *scores.entry(*d).or_default() +=
                        weight * idf * 2.2 / (1.0 + 1.2 * (0.25 + 0.75 * len / self.avg_len.max(1.0)));
                }
            }
        }
        // A question naming some of the speakers (not all) is about what they said.
        let asked = roots(query);
        let named: Vec<&str> =
            self.speakers().into_iter().filter(|s| roots(s).iter().all(|r| asked.contains(r))).collect();
        if !named.is_empty() && named.len() < self.speakers().len() {
            for (d, score) in scores.iter_mut() {
                if self.facts[*d as usize].speaker.as_deref().is_some_and(|s| named.contains(&s)) {
                    *score *= SPEAKER_BOOST;
                }
            }
        }
        let order = |ranked: &mut Vec<(f64, u32)>| {
            ranked.sort_by(|(sa, a), (sb, b)| {
                let (fa, fb) = (self.facts[*a as usize], self.facts[*b as usize]);
                sb.total_cmp(sa).then(fb.created_at.cmp(&fa.created_at)).then(fa.ordinal().cmp(&fb.ordinal()))
            })
        };
        let mut ranked: Vec<(f64, u32)> = scores.into_iter().map(|(d, s)| (s, d)).collect();
        order(&mut ranked);
        // Variety: each further fact from a turn already represented counts half as much,
        // so the room goes to more of the conversation rather than one turn's every clause.
        let mut seen: HashMap<u32, i32> = HashMap::new();
        for (score, d) in ranked.iter_mut() {
            if let Some(turn) = self.facts[*d as usize].source_turn {
                let k = seen.entry(turn).or_default();
                *score *= SAME_TURN.powi(*k);
                *k += 1;
            }
        }
        order(&mut ranked);
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
