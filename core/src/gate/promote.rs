//! The Promote gate: a live fact moves to persona, human or episodes, never to where it
//! already is. Where the policy gives the pinned blocks a size (`persona_tokens`), a fact enters
//! one only if it fits, and human admits only durable facts about a person
//! (`Item::durable`): never an event, a plan or a reaction.

use super::fields::{optional_str, require_reason, required_str, Ruling};
use super::{Edit, Ground, Scope};
use crate::model::memory::Block;
use crate::model::provenance::Trust;
use serde_json::Value;
use std::collections::BTreeMap;

/// Promote's own state: the tokens each sized block holds, pre-pass and promoted since.
#[derive(Debug)]
pub(super) struct PromoteGate {
    pub(super) used: BTreeMap<Block, u64>,
}

impl PromoteGate {
    pub(super) fn new(ground: &Ground<'_>) -> Self {
        let mut used = BTreeMap::new();
        for item in ground.items.values().filter(|i| i.active) {
            *used.entry(item.block).or_default() += item.tokens();
        }
        PromoteGate { used }
    }

    pub(super) fn judge(&self, scope: &Scope<'_, '_>, p: &Value) -> Ruling<Edit> {
        let item_id = required_str(p, "itemId")?;
        let to_name = required_str(p, "toBlock")?;
        let reason = optional_str(p, "reason")?;
        let to = match Block::parse(to_name) {
            Some(b) if Block::PROMOTION_TARGETS.contains(&b) => b,
            _ => return Err(format!("toBlock '{to_name}' is not one of persona, human, episodes")),
        };
        let item = scope.live("itemId", item_id)?;
        if let Some(who) = item.outsider().filter(|_| !Trust::OUTSIDE.be_promoted) {
            return Err(format!(
                "itemId {item_id} was said by {who}, not the user: a Sleep never promotes another source's fact (the trust policy)"
            ));
        }
        if item.block == to {
            return Err(format!("itemId {item_id} is already in {to}"));
        }
        let policy = scope.ground.policy;
        if to == Block::Human && policy.human_tokens.is_some() {
            item.durable(&policy.single_valued_slots).map_err(|why| format!("{why}, so it is not pinned in human"))?;
        }
        if let Some(size) = policy.capacity(to) {
            let held = self.used.get(&to).copied().unwrap_or(0);
            if held + item.tokens() > size {
                return Err(format!("{to} is full: {} of {size} tokens with {item_id}", held + item.tokens()));
            }
        }
        require_reason(reason)?;
        Ok(Edit::Promote { item_id: item_id.into(), from: item.block, to })
    }
}
