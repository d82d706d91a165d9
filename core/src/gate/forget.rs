//! The Forget gate: forget by value. A fact may go when it can no longer answer
//! a question truthfully — a passing state whose while is over (`text::transient`), a
//! commitment whose date and grace have passed — or, where the policy sets them, when it
//! is older than `staleAfterDays` or unprotected over the `maxActiveFacts` cap. The rule the
//! code verified is recorded, not the one the model claimed; a claim the fact does not
//! bear out (a durable fact called passing) is refused with why.

use super::fields::{optional_str, require_reason, required_str, Ruling};
use super::{Edit, Scope};
use super::{ForgetRule, Ground};
use crate::model::policy::RetentionPolicy;
use crate::text::transient;
use crate::text::when::Day;
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
        let claimed = optional_str(p, "policy")?;
        let item = scope.unpinned("itemId", item_id)?;
        let policy = scope.ground.policy;
        let now = scope.ground.now;
        if let Some(due) = policy.fell_due(item, now) {
            require_reason(reason)?;
            let age_days = item.days_since(now);
            return Ok(Edit::Forget { item_id: item_id.into(), rule: ForgetRule::Due(due), age_days });
        }
        // A passing state whose while is over answers nothing, whatever its category.
        if let Some(until) = policy.passed(item, now) {
            require_reason(reason)?;
            let age_days = item.days_since(now);
            return Ok(Edit::Forget { item_id: item_id.into(), rule: ForgetRule::Transient(until), age_days });
        }
        if policy.is_protected(&item.category) {
            let due = match (item.is_commitment(), item.when(), policy.commitment_grace_days) {
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
        let over = policy.max_active_facts.is_some_and(|cap| self.active_now > cap);
        let rule = if policy.is_stale(item, now) {
            ForgetRule::Stale
        } else if over && self.overflow.contains(item_id) {
            ForgetRule::Capacity
        } else {
            let passing = transient::horizon(&item.text, item.created_at);
            return Err(self.why_kept(item_id, claimed, &passing, age, policy));
        };
        require_reason(reason)?;
        Ok(Edit::Forget { item_id: item_id.into(), rule, age_days: age })
    }

    /// Why no rule lets `item_id` go: the claimed rule first, in the terms of the fact.
    fn why_kept(
        &self,
        item_id: &str,
        claimed: Option<&str>,
        passing: &Result<Day, crate::text::transient::NoWhile>,
        age: f64,
        policy: &RetentionPolicy,
    ) -> String {
        let value = match (passing, policy.transient_grace_days) {
            (Ok(until), Some(grace)) => {
                format!("it is a passing state whose while ends {until}, kept {grace} day(s) after that (transientGraceDays)")
            }
            (Ok(until), None) => format!("it is a passing state (its while ends {until}), but this policy keeps those"),
            (Err(why), _) => why.to_string(),
        };
        let age_rule = match policy.stale_after_days {
            Some(days) => format!("it is {age:.1}d old (staleAfterDays={days})"),
            None => "forgetting by age is off in this policy".into(),
        };
        let capacity = match policy.max_active_facts {
            None => "there is no cap on active facts".into(),
            Some(cap) if self.active_now <= cap => {
                format!("not over capacity ({} active, maxActiveFacts={cap})", self.active_now)
            }
            Some(_) => format!("not among the {} lowest-salience unprotected facts over capacity", self.overflow.len()),
        };
        match claimed.map(str::trim) {
            Some("transient") => {
                format!("{item_id} was called a passing state, but {value}; {age_rule}; {capacity}: no retention rule authorises forgetting it")
            }
            Some("stale") if policy.stale_after_days.is_none() => {
                format!("{item_id} was called stale, but {age_rule}; {value}; {capacity}: no retention rule authorises forgetting it")
            }
            _ => format!("{item_id}: {value}; {age_rule}; {capacity}: no retention rule authorises forgetting it"),
        }
    }
}
