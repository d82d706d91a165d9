//! The Forget gate: only unprotected facts that are stale or in the capacity overflow set
//! may go — and commitments whose date and grace have passed — and the rule the code
//! verified is recorded, not the one the model claimed.

use super::fields::{optional_str, require_reason, required_str, Ruling};
use super::{Edit, Scope};
use super::{ForgetRule, Ground};
use serde_json::Value;
use std::collections::BTreeSet;

/// Forget's own state: the overflow set and the active count, which falls as earlier
/// forgettings of the pass are accepted.
#[derive(Debug)]
pub(super) struct ForgetGate {
    overflow: BTreeSet<String>,
    pub(super) active_now: usize,
}

impl ForgetGate {
    pub(super) fn new(ground: &Ground<'_>) -> Self {
        ForgetGate {
            overflow: ground.policy.overflow(ground.items.values(), ground.now),
            active_now: ground.items.values().filter(|i| i.active).count(),
        }
    }

    pub(super) fn judge(&self, scope: &Scope<'_, '_>, p: &Value) -> Ruling<Edit> {
        let item_id = required_str(p, "itemId")?;
        let reason = optional_str(p, "reason")?;
        optional_str(p, "policy")?;
        let item = scope.unpinned("itemId", item_id)?;
        let policy = scope.ground.policy;
        let now = scope.ground.now;
        if let Some(due) = policy.fell_due(item, now) {
            require_reason(reason)?;
            let age_days = item.days_since(now);
            return Ok(Edit::Forget { item_id: item_id.into(), rule: ForgetRule::Due(due), age_days });
        }
        if policy.is_protected(&item.category) {
            let due = match (item.category == "commitments", item.when(), policy.commitment_grace_days) {
                (true, Some(when), Some(grace)) => {
                    format!("; it is due {}, and keeps its protection until {grace} days after", when.last())
                }
                _ => String::new(),
            };
            return Err(format!(
                "category '{}' is protected by the retention policy ({}){due}",
                item.category,
                policy.protected_categories.join(", ")
            ));
        }
        // Counted from when what the fact is about happened (an event held last year is a
        // year old however recently it was mentioned).
        let age = item.days_since(now);
        let rule = if policy.is_stale(item, now) {
            ForgetRule::Stale
        } else if self.overflow.contains(item_id) && self.active_now > policy.max_active_facts {
            ForgetRule::Capacity
        } else {
            let capacity = if self.active_now > policy.max_active_facts {
                format!("not among the {} lowest-salience unprotected facts over capacity", self.overflow.len())
            } else {
                format!("not over capacity ({} active, maxActiveFacts={})", self.active_now, policy.max_active_facts)
            };
            return Err(format!(
                "item is {age:.1}d old (staleAfterDays={}) and {capacity}, so no retention rule authorises forgetting it",
                policy.stale_after_days
            ));
        };
        require_reason(reason)?;
        Ok(Edit::Forget { item_id: item_id.into(), rule, age_days: age })
    }
}
