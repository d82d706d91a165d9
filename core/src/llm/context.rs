//! What of the memory a chat prompt carries. A memory lives for years; the prompt must
//! not grow with it. Under a token budget the pinned blocks (persona, human) come first,
//! most salient first, but never past half the budget; then the facts of any block most
//! relevant to the message (BM25 over the roots of each fact's words and its speaker's
//! name, from an inverted index built once; a kind the message names, `pets`, also found
//! by its members' words, `turtle`, at half weight; newer, then lower id, break ties); then the
//! newest of the rest. So a large human block cannot crowd out the one fact the user asks
//! about. The prompt says how many facts were left out. The Wake quiz answers through the same selection,
//! so it measures recall *through* retrieval. Only active facts are ever offered, so a
//! superseded value never appears as current.

use crate::llm::provider::estimate_tokens;
use crate::model::memory::{Block, Item, Turn};
use crate::model::policy::RetentionPolicy;
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
/// use nocturne_core::llm::context::context_turns;
/// assert_eq!(context_turns(10), 6..=10);
/// assert_eq!(context_turns(1), 0..=1);
/// ```
pub fn context_turns(at: u32) -> std::ops::RangeInclusive<u32> {
    at.saturating_sub(CONTEXT_TURNS)..=at
}

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

/// The prompt line of one fact, as `chat_request` writes it under its block's heading and
/// its group's (who said it, and when): its id and words and, with `now`, the date they
/// name (`[9] I promised Ana I would review her thesis by Friday. (due 2026-12-04,
/// tomorrow)`).
pub fn line(item: &Item, now: Option<i64>) -> String {
    let id = shown_id(&item.item_id);
    match now.and_then(|now| item.about(now)) {
        None => format!("[{id}] {}\n", item.text),
        Some(about) => format!("[{id}] {} ({about})\n", item.text),
    }
}

/// A fact's id as a prompt shows it: `m_17` as `17` (a token or two less on every line).
pub fn shown_id(id: &str) -> &str {
    id.strip_prefix("m_").filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).unwrap_or(id)
}

/// The stored id of one a prompt shows: `17` is `m_17`.
pub fn stored_id(shown: &str) -> String {
    if !shown.is_empty() && shown.bytes().all(|b| b.is_ascii_digit()) {
        format!("m_{shown}")
    } else {
        shown.to_string()
    }
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

/// The heading over the facts of one group in a block: who said them on which day
/// (`Caroline said on 8 May 2022:`; `said on 30 Nov:` for the user of a plain chat, in the
/// year of `now`, which the prompt's first line names), the year left out in `now`'s year.
pub fn group_heading(item: &Item, now: Option<i64>) -> String {
    let day = crate::text::when::Day::from_unix(item.created_at);
    let day = match now {
        Some(now) => day.written_from(crate::text::when::Day::from_unix(now)),
        None => day.written(),
    };
    match &item.speaker {
        Some(name) => format!("{name}{SAID_ON}{day}:\n"),
        None => format!("{}{day}:\n", SAID_ON.trim_start()),
    }
}

/// The order facts are shown in: by block, then speaker, then the day they were said, then id.
pub fn display_order(a: &Item, b: &Item) -> std::cmp::Ordering {
    group(a).cmp(&group(b)).then(a.ordinal().cmp(&b.ordinal()))
}

/// What a group heading says between the speaker and the day.
pub const SAID_ON: &str = " said on ";

/// The group a fact's line sits in: its block, its speaker and the day it was said.
pub fn group(item: &Item) -> (Block, Option<&str>, i64) {
    (item.block, item.speaker.as_deref(), crate::text::when::Day::from_unix(item.created_at).0)
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

/// The roots a [`MemoryIndex`] finds `item` by: its own (its words and its speaker's name),
/// and those matched at [`CONTEXT_WEIGHT`] — the month and year it was said and that it
/// names, and the words of `around` (its source turn and those before it,
/// [`context_turns`]) its own lack.
/// A store that indexes its facts keeps these, so its statistics are the index's.
pub fn fact_terms(item: &Item, around: &[&Turn]) -> (BTreeSet<String>, BTreeSet<String>) {
    let own = roots(&item.said());
    let mut context = date_words(item);
    if let Some(at) = item.source_turn {
        let near = around.iter().copied().filter(|t| context_turns(at).contains(&t.index));
        context.extend(conversation_words(near, |w| own.contains(w)));
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
/// use nocturne_core::llm::context::asked;
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
/// let chosen = index.select("What is my dog called?", 40);
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
    /// Each fact's roots (its words and its speaker's name).
    roots: Vec<Vec<String>>,
    /// Roots of the context of each fact that its own words lack, matched at a lower
    /// weight: the month and year it was said and that it names, and (`with_context`) the
    /// conversation around it — its source turn and those before it, often the question
    /// it answers.
    context: HashMap<String, Vec<u32>>,
    /// Persona and human facts, most salient first.
    pinned: Vec<u32>,
    /// Episode and scratch facts, newest first.
    rest: Vec<u32>,
    cheapest: u64,
    /// Each fact's group (block, speaker, day), numbered, and what each group's headings
    /// cost: the group's own, and its block's when it is the block's first.
    group: Vec<u32>,
    group_cost: Vec<u64>,
    block_cost: HashMap<Block, u64>,
    /// The whole memory's statistics when the index holds only some of its facts
    /// ([`MemoryIndex::with_corpus`]).
    corpus: Option<Corpus>,
}

impl<'a> MemoryIndex<'a> {
    /// Indexes `memory` (active facts, in display order) as of `now`.
    pub fn new(memory: &[&'a Item], policy: &RetentionPolicy, now: i64) -> Self {
        let facts = memory.to_vec();
        // A fact's cost is its line; the headings it sits under are counted once, by the
        // selection, when the first fact under them is chosen.
        let cost: Vec<u64> = facts.iter().map(|i| estimate_tokens(&line(i, Some(now)))).collect();
        let mut groups: HashMap<(Block, Option<&str>, i64), u32> = HashMap::new();
        let mut group_cost = Vec::new();
        let group: Vec<u32> = facts
            .iter()
            .map(|i| {
                *groups.entry(group(i)).or_insert_with(|| {
                    group_cost.push(estimate_tokens(&group_heading(i, Some(now))));
                    group_cost.len() as u32 - 1
                })
            })
            .collect();
        let block_cost: HashMap<Block, u64> = Block::ALL.iter().map(|b| (*b, estimate_tokens(heading(*b)))).collect();
        let headings: u64 = group_cost.iter().sum::<u64>()
            + block_cost.iter().filter(|(b, _)| facts.iter().any(|i| i.block == **b)).map(|(_, c)| c).sum::<u64>();
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
        let is_pinned = |i: &Item| matches!(i.block, Block::Persona | Block::Human);
        let salience: Vec<f64> = facts.iter().map(|i| policy.salience(i, now)).collect();
        let (mut pinned, mut rest): (Vec<u32>, Vec<u32>) =
            (0..facts.len() as u32).partition(|n| is_pinned(facts[*n as usize]));
        order::sort_by(&mut pinned, |a, b| {
            let (a, b) = (*a as usize, *b as usize);
            facts[a].block.cmp(&facts[b].block).then(salience[b].total_cmp(&salience[a]))
        });
        order::sort_by(&mut rest, |a, b| {
            let (a, b) = (facts[*a as usize], facts[*b as usize]);
            (b.created_at, b.ordinal()).cmp(&(a.created_at, a.ordinal()))
        });
        MemoryIndex {
            total: cost.iter().sum::<u64>() + headings,
            cheapest: cost.iter().copied().min().unwrap_or(0),
            group,
            group_cost,
            block_cost,
            facts,
            now,
            cost,
            len,
            avg_len,
            postings,
            roots: fact_roots,
            context: dates,
            pinned,
            rest,
            corpus: None,
        }
    }

    /// The same index over some of a larger memory's facts (a store's
    /// [`crate::store::Store::prompt_candidates`]), ranking them with the whole memory's
    /// statistics: its size, mean fact length, each asked root's document frequency and
    /// speakers; the selection counts every fact it did not hold as left out.
    pub fn with_corpus(mut self, corpus: Corpus) -> Self {
        self.avg_len = corpus.avg_len;
        self.corpus = Some(corpus);
        self
    }

    /// The facts ranked among: the whole memory's when the index holds part of it.
    fn size(&self) -> usize {
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

    /// The facts for a prompt about `query` within `budget` tokens.
    pub fn select(&self, query: &str, budget: u64) -> Selection<'a> {
        if self.total <= budget && self.size() == self.facts.len() {
            return Selection { facts: self.facts.clone(), left_out: 0, tokens: self.total, now: Some(self.now) };
        }
        let relevant = self.ranked(query);
        let mut fill = Fill {
            index: self,
            chosen: vec![false; self.facts.len()],
            picked: Vec::new(),
            used: 0,
            budget,
            groups: vec![false; self.group_cost.len()],
            blocks: Vec::new(),
        };
        // The pinned blocks, most salient first, take at most half; the facts most relevant
        // to the message (from any block) the rest.
        fill.budget = budget / 2;
        fill.take(self.pinned.iter().copied());
        fill.budget = budget;
        fill.take(relevant.iter().copied());
        fill.take(self.rest.iter().copied());
        let mut facts: Vec<&'a Item> = fill.picked.iter().map(|n| self.facts[*n as usize]).collect();
        order::sort_by(&mut facts, |a, b| display_order(a, b));
        Selection { left_out: self.size() - facts.len(), facts, tokens: fill.used, now: Some(self.now) }
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

/// A selection being filled: facts are taken in the order offered while they fit, each
/// with the headings it is the first under.
struct Fill<'i, 'a> {
    index: &'i MemoryIndex<'a>,
    chosen: Vec<bool>,
    picked: Vec<u32>,
    used: u64,
    budget: u64,
    /// Which groups and blocks already have a fact, so their headings are paid for.
    groups: Vec<bool>,
    blocks: Vec<Block>,
}

impl Fill<'_, '_> {
    fn take(&mut self, order: impl Iterator<Item = u32>) {
        for n in order {
            if self.used + self.index.cheapest > self.budget {
                return;
            }
            let i = n as usize;
            let (group, block) = (self.index.group[i] as usize, self.index.facts[i].block);
            let headings = if self.groups[group] { 0 } else { self.index.group_cost[group] }
                + if self.blocks.contains(&block) { 0 } else { self.index.block_cost[&block] };
            let c = self.index.cost[i] + headings;
            if !self.chosen[i] && self.used + c <= self.budget {
                self.chosen[i] = true;
                self.groups[group] = true;
                if !self.blocks.contains(&block) {
                    self.blocks.push(block);
                }
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
        };
        let transcript = [turn(0, "Do you still keep turtles?"), turn(1, "I have had them for 3 years.")];
        let refs: Vec<&Item> = facts.iter().collect();
        let index = MemoryIndex::new(&refs, &RetentionPolicy::default(), 0).with_context(&transcript);
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

    #[test]
    fn regression_a_speakers_fact_is_found_by_the_question_two_turns_back() {
        use crate::model::memory::Role;
        // Through the chat path every turn is followed by the assistant's reply: the other
        // speaker's question is two turns back, not one.
        let turn = |index: u32, role: Role, speaker: Option<&str>, text: &str| Turn {
            index,
            role,
            text: text.into(),
            at: 0,
            speaker: speaker.map(String::from),
            memory: None,
            source: None,
        };
        let transcript = [
            turn(0, Role::User, Some("Caroline"), "Do you still keep turtles?"),
            turn(1, Role::Assistant, None, "Noted."),
            turn(2, Role::User, Some("Melanie"), "I've had them for 3 years now."),
            turn(3, Role::Assistant, None, "Noted."),
        ];
        let mut facts = vec![fact(1, Block::Scratch, "I've had them for 3 years now.")];
        facts[0].source_turn = Some(2);
        facts[0].speaker = Some("Melanie".into());
        for n in 2..40 {
            facts.push(fact(n, Block::Scratch, &format!("Note {n} about the weekly errands.")));
        }
        let refs: Vec<&Item> = facts.iter().collect();
        let index = MemoryIndex::new(&refs, &RetentionPolicy::default(), 0).with_context(&transcript);
        assert_eq!(index.best("How long has she had her turtles?", 1).first().map(|i| i.item_id.as_str()), Some("m_1"));
    }

    #[test]
    fn a_group_heading_leaves_out_todays_year_and_keeps_another() {
        let day = |y, m, d| crate::text::when::Day::from_ymd(y, m, d).map_or(0, |d| d.start()) + 43_200;
        let mut item = fact(1, Block::Scratch, "I keep bees.");
        item.speaker = Some("Melanie".into());
        item.created_at = day(2023, 5, 8);
        assert_eq!(group_heading(&item, Some(day(2023, 7, 23))), "Melanie said on 8 May:\n");
        assert_eq!(group_heading(&item, Some(day(2024, 1, 2))), "Melanie said on 8 May 2023:\n");
        assert_eq!(group_heading(&item, None), "Melanie said on 8 May 2023:\n");
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
    /// A question that names a kind ("pets", "European countries") finds the facts that
    /// name its members and share no word with it; words of its own still count most.
    #[test]
    fn a_question_naming_a_kind_finds_the_facts_naming_its_members() {
        let mut items: Vec<Item> = (1..400)
            .map(|n| fact(n, Block::Scratch, &format!("Note {n}: Nate and Maria share the weekly chores.")))
            .collect();
        items.push(fact(400, Block::Scratch, "I have had my two turtles for three years."));
        items.push(fact(401, Block::Scratch, "We adopted a puppy from the shelter."));
        items.push(fact(402, Block::Scratch, "We spent a week in Portugal and then flew to Croatia."));
        items.push(fact(403, Block::Scratch, "My pet peeve is loud music."));
        let refs: Vec<&Item> = items.iter().collect();
        let index = MemoryIndex::new(&refs, &RetentionPolicy::default(), 500);
        let best =
            |q: &str, n: usize| -> Vec<String> { index.best(q, n).into_iter().map(|i| i.item_id.clone()).collect() };
        let pets = best("What pets does Nate have?", 3);
        assert!(pets.contains(&"m_400".to_string()) && pets.contains(&"m_401".to_string()), "{pets:?}");
        assert_eq!(pets.first().map(String::as_str), Some("m_403"), "a word of the question's own outranks a member's");
        assert_eq!(best("Which European countries has Maria been to?", 1), ["m_402"]);
        assert!(!best("What did Nate eat?", 3).contains(&"m_400".to_string()), "no kind named, no member found");
    }
}
