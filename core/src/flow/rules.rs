//! The engine's deterministic backstops. Each returns proposals labelled with its rule;
//! they go through the same gates as the model's and only move or retire text already in
//! the store — they never write new text.

use crate::gate::Judge;
use crate::model::candidate::DuplicateCandidate;
use crate::model::memory::{promotion_priority, promotion_target, Block, Item, Proposer};
use crate::model::policy::RetentionPolicy;
use crate::text::order;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashSet};

/// engine-duplicate-rule: every candidate pair (similarity ≥ threshold) the model did not
/// adjudicate — neither proposed as a pair nor touched by an earlier edit of the pass.
pub fn duplicate_rule(
    judge: &Judge<'_>,
    pairs: &[DuplicateCandidate],
    adjudicated: &HashSet<(String, String)>,
) -> Vec<(Proposer, Value)> {
    let (mut dropped, mut kept): (HashSet<&str>, HashSet<&str>) = (HashSet::new(), HashSet::new());
    let mut out = Vec::new();
    for p in pairs {
        let key = unordered(&p.drop_id, &p.keeper_id);
        if adjudicated.contains(&key) || judge.is_consumed(&p.drop_id) || judge.is_consumed(&p.keeper_id) {
            continue;
        }
        // Never a chain: a fact this rule drops keeps nothing, and a keeper is never
        // dropped; a keeper may keep many (a statement said a hundred times goes in one Sleep).
        let (drop, keeper) = (p.drop_id.as_str(), p.keeper_id.as_str());
        if dropped.contains(drop) || dropped.contains(keeper) || kept.contains(drop) {
            continue;
        }
        dropped.insert(drop);
        kept.insert(keeper);
        out.push((
            Proposer::DuplicateRule,
            json!({
                "itemId": p.drop_id,
                "duplicateOf": p.keeper_id,
                "reason": format!("similarity {:.3} reaches the threshold and the model left the pair unadjudicated", p.similarity),
            }),
        ));
    }
    out
}

/// The unordered key of a pair, for "did the model adjudicate it".
pub fn unordered(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

/// engine-promotion-rule: identities and preferences still in scratch go to human (only
/// durable ones where blocks have a size, and while it has room: a full block is left as
/// it is, not asked about), events and plans to episodes.
pub fn promotion_rule(
    judge: &Judge<'_>,
    items: &BTreeMap<String, Item>,
    policy: &RetentionPolicy,
) -> Vec<(Proposer, Value)> {
    let mut candidates: Vec<&Item> = items
        .values()
        .filter(|i| i.active && i.block == Block::Scratch && !judge.is_consumed(&i.item_id))
        .filter(|i| promotion_target(&i.category).is_some())
        .collect();
    order::sort_by_key(&mut candidates, |i| (promotion_priority(&i.category), i.ordinal()));
    let mut room: BTreeMap<Block, u64> = BTreeMap::new();
    for block in Block::PROMOTION_TARGETS {
        if let (Some(size), Some(held)) = (policy.capacity(block), judge.held(block)) {
            room.insert(block, size.saturating_sub(held));
        }
    }
    candidates
        .into_iter()
        .filter_map(|i| {
            let to = policy.promotion_of(i)?;
            if let Some(left) = room.get_mut(&to) {
                if i.tokens() > *left {
                    return None;
                }
                *left -= i.tokens();
            }
            Some((
                Proposer::PromotionRule,
                json!({"itemId": i.item_id, "toBlock": to, "reason": format!("{} facts belong in {to}", i.category)}),
            ))
        })
        .collect()
}

/// policy-engine: stale unprotected facts the model was not shown this pass (an
/// incremental Sleep shows it only what is new) are forgotten by the rule itself, so
/// staleness still covers the whole memory without a model call. `shown: None` means the
/// model saw everything and proposed what it would.
pub fn staleness_rule(
    judge: &Judge<'_>,
    items: &BTreeMap<String, Item>,
    policy: &RetentionPolicy,
    now: i64,
    shown: Option<&std::collections::HashSet<String>>,
) -> Vec<(Proposer, Value)> {
    let Some(shown) = shown else { return Vec::new() };
    items
        .values()
        .filter(|i| i.active && !shown.contains(&i.item_id) && !judge.is_consumed(&i.item_id))
        .filter(|i| !policy.protects(i, now) && policy.is_stale(i, now))
        .map(|i| {
            (
                Proposer::PolicyEngine,
                json!({"itemId": i.item_id, "policy": "stale", "reason": format!("older than staleAfterDays={}", policy.stale_after_days.unwrap_or_default())}),
            )
        })
        .collect()
}

/// policy-engine: commitments whose date and `commitmentGraceDays` have passed lose
/// their protection and are forgotten, with the date in the reason
/// (`due 2026-12-04, 88 days ago`); never one a day before.
pub fn due_rule(
    judge: &Judge<'_>,
    items: &BTreeMap<String, Item>,
    policy: &RetentionPolicy,
    now: i64,
) -> Vec<(Proposer, Value)> {
    retire_each(judge, items, "due", |i| {
        let due = policy.fell_due(i, now)?;
        Some(format!("due {due}, {:.0} days ago", i.days_since(now).floor() + 1.0))
    })
}

/// policy-engine: passing states whose while is over (`text::transient`: `I'm exhausted
/// today`, said last week) can no longer answer a question truthfully and are forgotten,
/// with the day their while ended in the reason. Pinned facts stay.
pub fn transient_rule(
    judge: &Judge<'_>,
    items: &BTreeMap<String, Item>,
    policy: &RetentionPolicy,
    now: i64,
) -> Vec<(Proposer, Value)> {
    retire_each(judge, items, "transient", |i| {
        policy.passed(i, now).map(|until| format!("a passing state whose while ended {until}"))
    })
}

/// A policy-engine forgetting under `rule` for each active fact not yet consumed that
/// `why` gives a reason for.
fn retire_each(
    judge: &Judge<'_>,
    items: &BTreeMap<String, Item>,
    rule: &str,
    why: impl Fn(&Item) -> Option<String>,
) -> Vec<(Proposer, Value)> {
    items
        .values()
        .filter(|i| i.active && !judge.is_consumed(&i.item_id))
        .filter_map(|i| {
            let reason = why(i)?;
            Some((Proposer::PolicyEngine, json!({"itemId": i.item_id, "policy": rule, "reason": reason})))
        })
        .collect()
}

/// policy-engine: while more than `maxActiveFacts` remain active after the model's
/// forgettings, forget the lowest-salience unprotected facts.
pub fn capacity_rule(
    judge: &Judge<'_>,
    items: &BTreeMap<String, Item>,
    policy: &RetentionPolicy,
    now: i64,
) -> Vec<(Proposer, Value)> {
    let remaining: Vec<&Item> = items.values().filter(|i| i.active && !judge.is_consumed(&i.item_id)).collect();
    policy
        .overflow(remaining, now)
        .into_iter()
        .map(|id| {
            (
                Proposer::PolicyEngine,
                json!({"itemId": id, "policy": "capacity", "reason": format!("active facts exceed maxActiveFacts={}; lowest salience", policy.max_active_facts.unwrap_or_default())}),
            )
        })
        .collect()
}
