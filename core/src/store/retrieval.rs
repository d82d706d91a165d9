//! Retrieval: which facts of a memory a question is about. BM25 over the roots of each
//! fact's words and its speaker's name, from an inverted index built once
//! ([`MemoryIndex`]); a kind the question names, `pets`, also found by its members' words,
//! `turtle`, at half weight; the conversation around a fact and the month and year it was
//! said at a lower weight; the speaker a question names weighed up; the best matches'
//! shared words joining the question; each further fact of one turn counting half; newer,
//! then lower id, break ties. A chat prompt fills its budget from this ranking
//! (`llm::context`); a store that indexes its facts keeps [`fact_terms`] of each.

use crate::model::memory::{Item, Turn};
use crate::store::Corpus;
use crate::text::kinds;
use crate::text::order;
use crate::text::textmath::content_tokens;
use std::collections::{BTreeSet, HashMap};

/// How much more a fact counts when its speaker is the one a question names.
pub const SPEAKER_BOOST: f64 = 2.5;

/// What each further fact from one turn counts for, against the one before it.
pub const SAME_TURN: f64 = 0.5;

/// Pseudo-relevance feedback: how many of the best matches lend their words, how many of
/// those words join the question, and what each weighs against one of the question's.
pub const FEEDBACK_FACTS: usize = 16;
pub const FEEDBACK_TERMS: usize = 8;
pub const FEEDBACK_WEIGHT: f64 = 0.3;

/// What a word naming a member of a kind the question names (`turtle` for "pets",
/// [`kinds`]) weighs against one of the question's own.
pub const KIND_WEIGHT: f64 = 0.5;

/// What a word of the conversation around a fact weighs against one of its own.
pub const CONTEXT_WEIGHT: f64 = 0.45;

/// How many turns before a fact's own are the conversation around it ([`context_turns`]).
pub const CONTEXT_TURNS: u32 = 4;

/// The turns whose words a fact from turn `at` is also found by: its own and the
/// [`CONTEXT_TURNS`] before it. Four, not one: in a conversation carried through the chat
/// path every turn is followed by the assistant's reply, so the turn before a speaker's is
/// that reply and the other speaker's question is two back, the topic it answers further
/// still; in a plain chat the turn before is the assistant's question. Only turns before:
/// they exist when the fact is written, so an index kept as facts are written stays
/// exact.
///
/// ```
/// use nocturne_core::store::retrieval::context_turns;
/// assert_eq!(context_turns(10), 6..=10);
/// assert_eq!(context_turns(1), 0..=1);
/// ```
pub fn context_turns(at: u32) -> std::ops::RangeInclusive<u32> {
    at.saturating_sub(CONTEXT_TURNS)..=at
}

/// The roots a fact or a question is matched by: content tokens with the endings of
/// inflection cut (`painted`, `painting`, `paints` → `paint`), so a question finds the
/// fact whatever tense either is in. For retrieval only; the gates keep `text::textmath`'s tokens.
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

/// The roots a [`MemoryIndex`] finds `item` by: its own (its words and its speaker's name),
/// and those matched at [`CONTEXT_WEIGHT`] — the month and year it was said and that it
/// names, and the words of `around` (its source turn and those before it,
/// [`context_turns`]) its own lack.
/// A store that indexes its facts keeps these, so its statistics are the index's.
pub fn fact_terms(item: &Item, around: &[&Turn]) -> (BTreeSet<String>, BTreeSet<String>) {
    let near: Vec<BTreeSet<String>> = match item.source_turn {
        Some(at) => around.iter().filter(|t| context_turns(at).contains(&t.index)).map(|t| roots(&t.said())).collect(),
        None => Vec::new(),
    };
    fact_terms_from(item, near.iter())
}

/// [`fact_terms`] from the roots of the turns around `item` ([`context_turns`] of its
/// source turn), each turn's [`roots`] of what it said: a store indexing many facts of one
/// conversation works out each turn's roots once.
///
/// ```
/// use nocturne_core::store::retrieval::{fact_terms, fact_terms_from, roots};
/// # use nocturne_core::model::memory::{Block, Item, Role, Turn};
/// # let turn = Turn { index: 0, role: Role::User, text: "Do you keep turtles?".into(), at: 0, speaker: None,
/// #     memory: None, source: None, provenance: None };
/// # let mut fact = Item::new_fact(1, Block::Scratch, "context", "I have had them for years.", 0);
/// # fact.source_turn = Some(1);
/// let around = [roots(&turn.said())];
/// assert_eq!(fact_terms_from(&fact, around.iter()), fact_terms(&fact, &[&turn]));
/// ```
pub fn fact_terms_from<'r>(
    item: &Item,
    around: impl Iterator<Item = &'r BTreeSet<String>>,
) -> (BTreeSet<String>, BTreeSet<String>) {
    let own = roots(&item.said());
    let mut context = date_words(item);
    if item.source_turn.is_some() {
        context.extend(around.flatten().filter(|w| !own.contains(*w)).cloned());
    }
    (own, context)
}

/// When `item` was said, and the date its words name, as words a question may use (`What
/// did Nate do in April 2022?`): the month and the year.
fn date_words(item: &Item) -> BTreeSet<String> {
    let said = crate::text::when::Day::from_unix(item.created_at);
    let about = item.when().map(|w| w.first());
    [Some(said), about].into_iter().flatten().flat_map(|d| d.month_and_year()).collect()
}

/// The roots of the turns `around` a fact ([`context_turns`]) that are
/// not its own (`own`).
fn conversation_words<'t>(around: impl Iterator<Item = &'t Turn>, own: impl Fn(&str) -> bool) -> BTreeSet<String> {
    around.flat_map(|t| roots(&t.said())).filter(|w| !own(w)).collect()
}

fn root(token: &str) -> String {
    let mut stem = token.to_string();
    for (ending, keep) in [("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("ly", ""), ("s", "")] {
        if let Some(base) = token.strip_suffix(ending) {
            if base.chars().count() >= 3 && base.chars().all(char::is_alphabetic) {
                // `running` → `run`, not `runn`.
                let base = match base.as_bytes() {
                    [.., a, b] if a == b && !matches!(a, b'l' | b's' | b'z') && keep.is_empty() => {
                        &base[..base.len() - 1]
                    }
                    _ => base,
                };
                stem = format!("{base}{keep}");
                break;
            }
        }
    }
    // `explore`, `explored`, `exploring` → `explor`.
    if stem.len() > 4 && stem.ends_with('e') {
        stem.pop();
    }
    stem
}

/// The roots a question is matched by, each weighted: its own at 1, and the members of
/// every kind it names ("pets": `dog`, `turtle`, …) at [`KIND_WEIGHT`].
///
/// ```
/// use nocturne_core::store::retrieval::asked;
/// let terms = asked("What pets does Nate have?");
/// assert!(terms.contains(&("pet".to_string(), 1.0)));
/// assert!(terms.iter().any(|(t, w)| t == "turtl" && *w < 1.0));
/// ```
pub fn asked(question: &str) -> Vec<(String, f64)> {
    let own = roots(question);
    let mut terms: Vec<(String, f64)> = own.iter().map(|t| (t.clone(), 1.0)).collect();
    for word in kinds::members(question) {
        for t in roots(word) {
            if !terms.iter().any(|(have, _)| *have == t) {
                terms.push((t, KIND_WEIGHT));
            }
        }
    }
    terms
}

/// An inverted index over a memory's content tokens — each fact's roots, its speaker's
/// name and (at a lower weight) the words around it — that ranks the facts for a question
/// by BM25, so one ranking costs what the question's terms match, not what the memory
/// holds. A prompt's selection within a budget is [`crate::llm::context::PromptIndex`].
///
/// ```
/// use nocturne_core::store::retrieval::MemoryIndex;
/// # use nocturne_core::model::memory::{Block, Item};
/// # let fact = |n: u64, text: &str| Item { item_id: format!("m_{n}"), block: Block::Scratch, text: text.into(),
/// #     category: "context".into(), source_turn: None, created_at: 0, updated_at: 0, active: true,
/// #     valid_from: None, valid_to: None, superseded_by: None, pinned: false, speaker: None, sources: vec![] };
/// let facts = vec![fact(1, "My dog is called Bolt."), fact(2, "The weekly groceries are on Friday.")];
/// let refs: Vec<&Item> = facts.iter().collect();
/// let index = MemoryIndex::new(&refs, 0);
/// assert_eq!(index.best("What is my dog called?", 5)[0].item_id, "m_1");
/// ```
pub struct MemoryIndex<'a> {
    facts: Vec<&'a Item>,
    now: i64,
    /// Content-token counts per fact (BM25's document length).
    len: Vec<u32>,
    avg_len: f64,
    postings: HashMap<String, Vec<u32>>,
    /// Each fact's roots (its words and its speaker's name).
    roots: Vec<Vec<String>>,
    /// Roots of the context of each fact that its own words lack, matched at a lower
    /// weight: the month and year it was said and that it names, and (`with_context`) the
    /// conversation around it — its source turn and those before it, often the question
    /// it answers.
    context: HashMap<String, Vec<u32>>,
    /// The whole memory's statistics when the index holds only some of its facts
    /// ([`MemoryIndex::with_corpus`]).
    corpus: Option<Corpus>,
}

impl<'a> MemoryIndex<'a> {
    /// Indexes `memory` (active facts, in display order) as of `now`.
    pub fn new(memory: &[&'a Item], now: i64) -> Self {
        let facts = memory.to_vec();
        let mut postings: HashMap<String, Vec<u32>> = HashMap::new();
        let mut len = Vec::with_capacity(facts.len());
        let mut fact_roots = Vec::with_capacity(facts.len());
        for (n, item) in facts.iter().enumerate() {
            // The speaker's name is matched too: a question about Melanie finds what she said.
            let tokens = roots(&item.said());
            len.push(tokens.len() as u32);
            for t in &tokens {
                postings.entry(t.clone()).or_default().push(n as u32);
            }
            fact_roots.push(tokens.into_iter().collect());
        }
        let avg_len = len.iter().map(|l| *l as f64).sum::<f64>() / facts.len().max(1) as f64;
        let mut dates: HashMap<String, Vec<u32>> = HashMap::new();
        for (n, item) in facts.iter().enumerate() {
            for w in date_words(item) {
                dates.entry(w).or_default().push(n as u32);
            }
        }
        MemoryIndex { facts, now, len, avg_len, postings, roots: fact_roots, context: dates, corpus: None }
    }

    /// The same index over some of a larger memory's facts (a store's
    /// [`crate::store::Store::prompt_shortlist`]), ranking them with the whole memory's
    /// statistics: its size, mean fact length, each asked root's document frequency and
    /// speakers; the selection counts every fact it did not hold as left out.
    pub fn with_corpus(mut self, corpus: Corpus) -> Self {
        self.avg_len = corpus.avg_len;
        self.corpus = Some(corpus);
        self
    }

    /// The facts ranked among: the whole memory's when the index holds part of it.
    pub fn size(&self) -> usize {
        self.corpus.as_ref().map_or(self.facts.len(), |c| c.facts.max(self.facts.len()))
    }

    /// Facts holding `term` (own words or around them), the whole memory's when known.
    fn df(&self, term: &str, held: usize) -> usize {
        self.corpus.as_ref().and_then(|c| c.df.get(term).copied()).map_or(held, |df| df.max(held))
    }

    /// The same index, each fact also found by the words of the conversation it was said in
    /// (`transcript`): `I've had them for 3 years` is found by a question about turtles
    /// when the turn before asked about them. Those words weigh [`CONTEXT_WEIGHT`] of its own.
    pub fn with_context(mut self, transcript: &[Turn]) -> Self {
        let by_index: HashMap<u32, &Turn> = transcript.iter().map(|t| (t.index, t)).collect();
        let mut context = std::mem::take(&mut self.context);
        for (n, item) in self.facts.iter().enumerate() {
            let Some(at) = item.source_turn else { continue };
            // Its own roots, as `new` found them (sorted).
            let own = &self.roots[n];
            let around = context_turns(at).filter_map(|i| by_index.get(&i).copied());
            for w in conversation_words(around, |w| own.binary_search_by(|o| o.as_str().cmp(w)).is_ok()) {
                let docs = context.entry(w).or_default();
                if docs.last() != Some(&(n as u32)) {
                    docs.push(n as u32);
                }
            }
        }
        self.context = context;
        self
    }

    /// The speakers of the indexed facts (of the whole memory, with a corpus), each once.
    pub fn speakers(&self) -> Vec<&str> {
        if let Some(c) = &self.corpus {
            return c.speakers.iter().map(String::as_str).collect();
        }
        let mut out: Vec<&str> = self.facts.iter().filter_map(|i| i.speaker.as_deref()).collect();
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

    /// The `n` facts most relevant to `query`, best first (only facts sharing a root with it).
    pub fn best(&self, query: &str, n: usize) -> Vec<&'a Item> {
        self.ranked(query).into_iter().take(n).map(|d| self.facts[d as usize]).collect()
    }

    /// BM25 scores (k1 = 1.2, b = 0.75) of the facts sharing a root with `terms`, each term
    /// weighted; words of the conversation around a fact count [`CONTEXT_WEIGHT`] of its own.
    fn score(&self, terms: &[(String, f64)]) -> HashMap<u32, f64> {
        let n = self.size() as f64;
        let mut scores: HashMap<u32, f64> = HashMap::new();
        for (term, w) in terms {
            let own = self.postings.get(term).map_or(&[][..], Vec::as_slice);
            let around = self.context.get(term).map_or(&[][..], Vec::as_slice);
            let df = self.df(term, own.len() + around.len()) as f64;
            if df == 0.0 {
                continue;
            }
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            for (docs, weight) in [(own, 1.0), (around, CONTEXT_WEIGHT)] {
                for d in docs {
                    let len = self.len[*d as usize] as f64;
                    *scores.entry(*d).or_default() +=
                        w * weight * idf * 2.2 / (1.0 + 1.2 * (0.25 + 0.75 * len / self.avg_len.max(1.0)));
                }
            }
        }
        scores
    }

    /// Facts sharing a content token with `query`, best BM25 score (k1 = 1.2, b = 0.75)
    /// first; newer, then lower id, break ties.
    pub fn ranked(&self, query: &str) -> Vec<u32> {
        let asked = asked(query);
        let mut scores = self.score(&asked);
        // Words the best matches share, that the question lacks, count a little too: a
        // question about "destressing" also finds the facts that talk like the best ones.
        let mut best: Vec<(f64, u32)> = scores.iter().map(|(d, s)| (*s, *d)).collect();
        order::sort_by(&mut best, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut counts: HashMap<&str, f64> = HashMap::new();
        let top = best.iter().take(FEEDBACK_FACTS).collect::<Vec<_>>();
        for (_, d) in &top {
            for t in &self.roots[*d as usize] {
                *counts.entry(t.as_str()).or_default() += 1.0;
            }
        }
        let n = self.size() as f64;
        let mut extra: Vec<(String, f64)> = counts
            .into_iter()
            .filter(|(t, c)| {
                *c >= 2.0
                    && !asked.iter().any(|(a, _)| a == t)
                    && self.postings.get(*t).is_some_and(|d| (d.len() as f64) < n / 20.0)
            })
            .map(|(t, c)| (t.to_string(), FEEDBACK_WEIGHT * c / top.len().max(1) as f64))
            .collect();
        order::sort_by(&mut extra, |a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        extra.truncate(FEEDBACK_TERMS);
        for (d, s) in self.score(&extra) {
            *scores.entry(d).or_default() += s;
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
            order::sort_by(ranked, |(sa, a), (sb, b)| {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::memory::Block;

    fn fact(n: u64, block: Block, text: &str) -> Item {
        Item::new_fact(n, block, "context", text, n as i64)
    }

    #[test]
    fn fact_terms_are_the_roots_the_index_finds_each_fact_by() {
        use crate::model::memory::Role;
        let mut facts =
            [fact(1, Block::Human, "I paint in April."), fact(2, Block::Scratch, "I have had them for 3 years.")];
        facts[1].source_turn = Some(1);
        facts[0].source_turn = Some(0);
        let turn = |index: u32, text: &str| Turn {
            index,
            role: Role::User,
            text: text.into(),
            at: 0,
            speaker: None,
            memory: None,
            source: None,
            provenance: None,
        };
        let transcript = [turn(0, "Do you still keep turtles?"), turn(1, "I have had them for 3 years.")];
        let refs: Vec<&Item> = facts.iter().collect();
        let index = MemoryIndex::new(&refs, 0).with_context(&transcript);
        let around: Vec<&Turn> = transcript.iter().collect();
        let mut own: HashMap<String, Vec<u32>> = HashMap::new();
        let mut context: HashMap<String, Vec<u32>> = HashMap::new();
        for (n, item) in facts.iter().enumerate() {
            let (o, c) = fact_terms(item, &around);
            o.into_iter().for_each(|t| own.entry(t).or_default().push(n as u32));
            c.into_iter().for_each(|t| context.entry(t).or_default().push(n as u32));
        }
        assert_eq!(own, index.postings);
        assert_eq!(context, index.context);
        assert!(context.contains_key("turtl"), "the turn before is context: {context:?}");
    }
}
