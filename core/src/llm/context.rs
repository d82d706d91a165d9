//! What of the memory a chat prompt carries. A memory lives for years; the prompt must
//! not grow with it. Under a token budget the pinned blocks (persona, human) come first —
//! by salience if they alone overflow — then the episode and scratch facts most relevant
//! to the message (BM25 over content tokens; newer, then more salient, break ties). The
//! prompt says how many facts were left out. The Wake quiz answers through the same
//! selection, so it measures recall *through* retrieval. Only active facts are ever
//! offered, so a superseded value never appears as current.

use crate::llm::provider::estimate_tokens;
use crate::model::memory::{Block, Item};
use crate::model::policy::RetentionPolicy;
use crate::text::textmath::content_tokens;
use std::collections::{BTreeSet, HashMap};

/// Tokens of memory a chat prompt may carry by default: with the instructions, a few
/// recent turns and a 200-token reply, it fits a 4k-context model.
pub const DEFAULT_MEMORY_TOKENS: u64 = 2000;

/// The facts a prompt carries, in display order, and how many were left out.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection<'a> {
    pub facts: Vec<&'a Item>,
    pub left_out: usize,
    /// Estimated tokens of the memory lines chosen.
    pub tokens: u64,
}

/// The prompt line of one fact, as `chat_request` writes it.
pub fn line(item: &Item) -> String {
    format!("- [{}] {}: {}\n", item.item_id, item.block, item.text)
}

/// Chooses the facts of `memory` (active facts) for a prompt about `query` within
/// `budget` tokens. When everything fits, everything is kept in its given order.
pub fn select<'a>(memory: &[&'a Item], query: &str, budget: u64, policy: &RetentionPolicy, now: i64) -> Selection<'a> {
    let cost = |i: &Item| estimate_tokens(&line(i));
    let total: u64 = memory.iter().map(|i| cost(i)).sum();
    if total <= budget {
        return Selection { facts: memory.to_vec(), left_out: 0, tokens: total };
    }
    let pinned = |i: &&&Item| matches!(i.block, Block::Persona | Block::Human);
    let mut first: Vec<&Item> = memory.iter().filter(pinned).copied().collect();
    first.sort_by(|a, b| policy.salience(b, now).total_cmp(&policy.salience(a, now)));
    let rest: Vec<&Item> = memory.iter().filter(|i| !pinned(i)).copied().collect();
    let scores = bm25(&rest, query);
    let mut ranked: Vec<(f64, &Item)> = rest.iter().copied().zip(scores).map(|(i, s)| (s, i)).collect();
    ranked.sort_by(|(sa, a), (sb, b)| {
        sb.total_cmp(sa)
            .then(b.created_at.cmp(&a.created_at))
            .then(policy.salience(b, now).total_cmp(&policy.salience(a, now)))
    });
    let mut chosen: Vec<&Item> = Vec::new();
    let mut used = 0;
    for item in first.into_iter().chain(ranked.into_iter().map(|(_, i)| i)) {
        let c = cost(item);
        if used + c <= budget {
            used += c;
            chosen.push(item);
        }
    }
    chosen.sort_by_key(|i| (i.block, i.ordinal()));
    Selection { left_out: memory.len() - chosen.len(), facts: chosen, tokens: used }
}

/// Okapi BM25 (k1 = 1.2, b = 0.75) of each fact against the query's content tokens.
fn bm25(facts: &[&Item], query: &str) -> Vec<f64> {
    let terms: BTreeSet<String> = content_tokens(query);
    let docs: Vec<Vec<String>> = facts.iter().map(|i| content_tokens(&i.text).into_iter().collect()).collect();
    if terms.is_empty() || docs.is_empty() {
        return vec![0.0; facts.len()];
    }
    let n = docs.len() as f64;
    let avg = docs.iter().map(Vec::len).sum::<usize>() as f64 / n;
    let mut df: HashMap<&str, f64> = HashMap::new();
    for doc in &docs {
        for t in doc.iter().filter(|t| terms.contains(*t)) {
            *df.entry(t.as_str()).or_default() += 1.0;
        }
    }
    docs.iter()
        .map(|doc| {
            let len = doc.len() as f64;
            doc.iter()
                .filter_map(|t| df.get(t.as_str()).map(|d| (t, d)))
                .map(|(_, d)| {
                    let idf = ((n - d + 0.5) / (d + 0.5) + 1.0).ln();
                    idf * 2.2 / (1.0 + 1.2 * (0.25 + 0.75 * len / avg.max(1.0)))
                })
                .sum()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(n: u64, block: Block, text: &str) -> Item {
        Item {
            item_id: format!("m_{n}"),
            block,
            text: text.into(),
            category: "context".into(),
            source_turn: None,
            created_at: n as i64,
            updated_at: 0,
            active: true,
            valid_from: None,
            valid_to: None,
            superseded_by: None,
        }
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
}
