//! Finding facts by their words: every item, active or not, whose text holds every content
//! token of the query — stemmed as the gates stem them, so `lives` finds `I live in Ghent`
//! — newest first, each with its lineage from the log.
//!
//! ```
//! use nocturne_core::store::search::search;
//! # use nocturne_core::model::memory::{Block, Item};
//! # let fact = |n: u64, text: &str| Item { item_id: format!("m_{n}"), block: Block::Human, text: text.into(),
//! #     category: "identity".into(), source_turn: None, created_at: n as i64, updated_at: 0, active: true,
//! #     valid_from: None, valid_to: None, superseded_by: None, pinned: false, speaker: None, sources: vec![] };
//! let items = [fact(1, "I live in Ghent."), fact(2, "My sister lives in Porto."), fact(3, "I keep bees.")];
//! let hits = search(&items, &[], "Who lives where?");
//! assert_eq!(hits.iter().map(|h| h.item.item_id.as_str()).collect::<Vec<_>>(), ["m_2", "m_1"]);
//! ```

use crate::model::memory::{Item, Mutation};
use crate::store::lineage::{self, Step};
use crate::store::{Store, StoreError};
use crate::text::order;
use crate::text::textmath::content_tokens;

/// Words that make a question without naming what it is about.
const ASKING: &[&str] = &["who", "what", "where", "when", "which", "how", "whi"];

/// One fact that matches, and how it came to be as it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit<'a> {
    pub item: &'a Item,
    pub lineage: Vec<Step>,
}

/// The items whose text holds every content token of `query`, newest first. A query with
/// no content words matches nothing.
pub fn search<'a>(items: &'a [Item], log: &[Mutation], query: &str) -> Vec<Hit<'a>> {
    let wanted = wanted(query);
    if wanted.is_empty() {
        return Vec::new();
    }
    let mut hits: Vec<&Item> = items.iter().filter(|i| holds(i, &wanted)).collect();
    order::sort_by_key(&mut hits, |i| std::cmp::Reverse((i.created_at, i.ordinal())));
    hits.into_iter().map(|item| Hit { item, lineage: lineage::lineage(&item.item_id, log) }).collect()
}

/// What a search reads from a store for `query`: the items that may match (through the
/// store's words index where it has one) and the log entries about them. [`search`] over
/// the pair gives exactly what it gives over every item and the whole log.
pub async fn gather<S: Store>(store: &S, query: &str) -> Result<(Vec<Item>, Vec<Mutation>), StoreError> {
    let wanted = wanted(query);
    if wanted.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let items = store.items_holding(&wanted).await?;
    let ids: Vec<String> = items.iter().map(|i| i.item_id.clone()).collect();
    let log = if ids.is_empty() { Vec::new() } else { store.mutations_about(&ids).await? };
    Ok((items, log))
}

/// The content tokens of `query` a search looks for.
pub fn wanted(query: &str) -> Vec<String> {
    content_tokens(query).into_iter().filter(|t| !ASKING.contains(&t.as_str())).collect()
}

/// Whether `item`'s text holds every one of `tokens`.
pub fn holds(item: &Item, tokens: &[String]) -> bool {
    let have = content_tokens(&item.text);
    tokens.iter().all(|t| have.contains(t))
}

/// `m_12 human/identity active, said 3 days ago: I live in Ghent. — encoded from turn 4;
/// promoted scratch → human`.
pub fn describe(hit: &Hit<'_>, now: i64) -> String {
    let i = hit.item;
    let state = if i.active {
        "active".to_string()
    } else if let Some(by) = &i.superseded_by {
        format!("superseded by {by}")
    } else {
        "inactive".to_string()
    };
    let history: Vec<&str> = hit.lineage.iter().map(|s| s.what.as_str()).collect();
    let history = if history.is_empty() { String::new() } else { format!(" — {}", history.join("; ")) };
    // Who said it, when it is not only the user speaking when it is dated.
    let from: Vec<String> = i.sources.iter().map(|s| s.to_string()).collect();
    let from = if from.is_empty() { String::new() } else { format!(" (from {})", from.join("; ")) };
    format!("{} {}/{} {state}, {}{from}: {}{history}", i.item_id, i.block, i.category, i.dated(now), i.said())
}
