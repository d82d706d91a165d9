//! The retention policy (user-editable, stored with the memory), salience and the
//! capacity overflow set. By default a memory forgets by value (`gate::forget`): passing states
//! after their while, commitments past their date, restatements and superseded values;
//! forgetting by age and a cap on active facts are options the user sets.

use crate::model::category::Category;
use crate::model::memory::Item;
use crate::text::order;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// How a memory decides what it keeps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RetentionPolicy {
    /// Two facts at or above this similarity are one (Dedupe).
    pub similarity_threshold: f64,
    /// Forgetting by age: a fact older than this many days may be forgotten, whatever it
    /// says. Off (`None`) by default: age alone never retires a durable fact (forget
    /// by value, `gate::forget`). A memory that sets it keeps the article's rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stale_after_days: Option<f64>,
    /// A cap on active facts: above it the lowest-salience unprotected ones may be
    /// forgotten. Off (`None`) by default: the chat prompt has its own budget and ranks by
    /// relevance, so a large memory costs a prompt nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_active_facts: Option<usize>,
    /// Categories that are never forgotten.
    pub protected_categories: Vec<String>,
    /// Predicates that hold one value at a time for one holder (`live in`, `work as`,
    /// `called` …): a newer fact supersedes an older one when both fill the same one, or
    /// when its source states a change. See `text::slots`.
    pub single_valued_slots: Vec<String>,
    /// Days after its resolved date that a commitment keeps its protection; then it is
    /// forgotten like an event. Absent in a policy written before commitments could fall
    /// due (and in the case files, `cases/`): then they are protected for good, as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commitment_grace_days: Option<f64>,
    /// Days after its while ends that a passing state (`I'm exhausted today`:
    /// `text::transient`) is kept; then it is forgotten. Absent: passing states are kept for
    /// good (a policy written before forget by value, and the case files in `cases/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transient_grace_days: Option<f64>,
    /// The persona block's size in tokens: Promote refuses a fact that would overflow it.
    /// Absent in a policy written before blocks had a size (and in the case files, `cases/`):
    /// then blocks have no size and human admits any category, as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persona_tokens: Option<u64>,
    /// The human block's size in tokens; with it, human admits only durable facts about a
    /// person (`Item::durable`). Absent: as for `persona_tokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub human_tokens: Option<u64>,
    /// The most words a merged text may have: a merge joins statements about one subject,
    /// never a paragraph. Absent: no bound, as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merge_max_words: Option<usize>,
}

/// Default sizes, about five and ten facts: the pinned blocks go into every chat prompt
/// whatever is asked, so each of their tokens is one less for what was asked. Measured on
/// long conversations (README): a human block of 200 tokens reached as much evidence as
/// one of 100, and more than 400 or 800.
pub const DEFAULT_PERSONA_TOKENS: u64 = 100;
pub const DEFAULT_HUMAN_TOKENS: u64 = 200;
/// Two statements of twenty words each.
pub const DEFAULT_MERGE_MAX_WORDS: usize = 40;

/// The horizon of salience's recency term when forgetting by age is off.
pub const RECENCY_DAYS: f64 = 30.0;

/// What the old default forgot by (the Forget rule before forget by value): a store still on it
/// moves to the new default at its next Sleep, with a logged note.
pub const OLD_STALE_AFTER_DAYS: f64 = 30.0;
pub const OLD_MAX_ACTIVE_FACTS: usize = 120;

impl Default for RetentionPolicy {
    fn default() -> Self {
        RetentionPolicy {
            similarity_threshold: 0.9,
            stale_after_days: None,
            max_active_facts: None,
            protected_categories: [Category::Identity, Category::Preferences, Category::Commitments]
                .map(String::from)
                .to_vec(),
            single_valued_slots: crate::text::slots::DEFAULT_SLOTS.iter().map(|s| s.to_string()).collect(),
            commitment_grace_days: Some(7.0),
            transient_grace_days: Some(1.0),
            persona_tokens: Some(DEFAULT_PERSONA_TOKENS),
            human_tokens: Some(DEFAULT_HUMAN_TOKENS),
            merge_max_words: Some(DEFAULT_MERGE_MAX_WORDS),
        }
    }
}

impl RetentionPolicy {
    /// The size of `block` in tokens, if it has one (persona and human only).
    pub fn capacity(&self, block: crate::model::memory::Block) -> Option<u64> {
        match block {
            crate::model::memory::Block::Persona => self.persona_tokens,
            crate::model::memory::Block::Human => self.human_tokens,
            crate::model::memory::Block::Episodes | crate::model::memory::Block::Scratch => None,
        }
    }

    /// Where the promotion rule sends a scratch fact: identities and preferences to human
    /// — when the blocks have a size, only durable ones (`Item::durable`); one naming a
    /// time is an event for episodes, chatter stays — and events and plans to episodes.
    pub fn promotion_of(&self, item: &Item) -> Option<crate::model::memory::Block> {
        use crate::model::memory::Block;
        let to = crate::model::memory::promotion_target(&item.category)?;
        if to != Block::Human || self.human_tokens.is_none() || item.durable(&self.single_valued_slots).is_ok() {
            return Some(to);
        }
        let names_a_time = crate::text::when::resolve(&item.text, item.created_at).expression().is_some();
        names_a_time.then_some(Block::Episodes)
    }

    /// Whether `category` is protected from forgetting.
    pub fn is_protected(&self, category: &Category) -> bool {
        self.protected_categories.iter().any(|c| c == category.as_str())
    }

    /// Whether forgetting by age is on and `item` is older than `staleAfterDays` at `now`,
    /// counted from when what it is about happened ([`Item::days_since`]).
    pub fn is_stale(&self, item: &Item, now: i64) -> bool {
        self.stale_after_days.is_some_and(|days| item.days_since(now) > days)
    }

    /// A store on the old default (forget what is older than 30 days, at most 120 active
    /// facts, written before passing states could be forgotten) moves to forgetting by
    /// value: the new policy, and the note that says so. An explicit setting is kept.
    pub fn migrated(&self) -> Option<(RetentionPolicy, String)> {
        // Written before forget by value (no `transientGraceDays`) with the old figures: a
        // user who sets them since keeps them.
        let old = self.stale_after_days == Some(OLD_STALE_AFTER_DAYS)
            && self.max_active_facts == Some(OLD_MAX_ACTIVE_FACTS)
            && self.transient_grace_days.is_none();
        old.then(|| {
            let new = RetentionPolicy {
                stale_after_days: None,
                max_active_facts: None,
                transient_grace_days: RetentionPolicy::default().transient_grace_days,
                ..self.clone()
            };
            let note = format!(
                "the retention policy was on the old default (forget what is older than {OLD_STALE_AFTER_DAYS} days, keep at most {OLD_MAX_ACTIVE_FACTS} active facts), which forgets the answers to later questions; it now forgets by value — passing states after their while, commitments past their date, restatements and superseded values — and keeps the rest (set staleAfterDays or maxActiveFacts to bring either rule back)"
            );
            (new, note)
        })
    }

    /// The day a commitment ([`Item::is_commitment`]: by category or by its words) fell due,
    /// when that day plus `commitmentGraceDays` has passed at `now`: from then on it has
    /// lost its protection.
    pub fn fell_due(&self, item: &Item, now: i64) -> Option<crate::text::when::Day> {
        let grace = self.commitment_grace_days?;
        if !item.is_commitment() || item.pinned {
            return None;
        }
        // `days_since` would resolve the date a second time.
        let due = item.when()?.last();
        let days = (now - due.plus_days(1).start()) as f64 / crate::model::DAY as f64;
        (days > grace).then_some(due)
    }

    /// The day a passing state's while ended (`text::transient`), when that day plus
    /// `transientGraceDays` has passed at `now`: from then on it answers nothing truthfully.
    pub fn passed(&self, item: &Item, now: i64) -> Option<crate::text::when::Day> {
        let grace = self.transient_grace_days?;
        if item.pinned {
            return None;
        }
        let until = crate::text::transient::horizon(&item.text, item.created_at).ok()?;
        let days = (now - until.plus_days(1).start()) as f64 / crate::model::DAY as f64;
        (days >= grace).then_some(until)
    }

    /// Whether `item` may not be forgotten at `now`: pinned by the user, or a protected
    /// category — except a commitment past its date and grace, or a passing state past its
    /// while and grace.
    pub fn protects(&self, item: &Item, now: i64) -> bool {
        item.pinned
            || (self.is_protected(&item.category)
                && self.fell_due(item, now).is_none()
                && self.passed(item, now).is_none())
    }

    /// block weight + 40 if protected + max(0, 30 − 30 · ageDays / staleAfterDays)
    /// (`RECENCY_DAYS` when forgetting by age is off).
    pub fn salience(&self, item: &Item, now: i64) -> f64 {
        let protected = if self.is_protected(&item.category) { 40.0 } else { 0.0 };
        let horizon = self.stale_after_days.unwrap_or(RECENCY_DAYS);
        let recency =
            if horizon > 0.0 { (30.0 - 30.0 * item.days_since(now).max(0.0) / horizon).clamp(0.0, 30.0) } else { 0.0 };
        item.block.weight() + protected + recency
    }

    /// The capacity overflow set: when a cap is set and more than `maxActiveFacts` items
    /// are active, the lowest-salience unprotected active items, as many as the excess (or
    /// as many as are unprotected). Ties go to the older item, then the lower id.
    pub fn overflow<'a>(&self, items: impl IntoIterator<Item = &'a Item>, now: i64) -> BTreeSet<String> {
        let Some(cap) = self.max_active_facts else { return BTreeSet::new() };
        let active: Vec<&Item> = items.into_iter().filter(|i| i.active).collect();
        let excess = active.len().saturating_sub(cap);
        if excess == 0 {
            return BTreeSet::new();
        }
        let mut candidates: Vec<(f64, &Item)> =
            active.into_iter().filter(|i| !self.protects(i, now)).map(|i| (self.salience(i, now), i)).collect();
        order::sort_by(&mut candidates, |(sa, a), (sb, b)| {
            sa.total_cmp(sb).then(a.created_at.cmp(&b.created_at)).then(a.ordinal().cmp(&b.ordinal()))
        });
        candidates.into_iter().take(excess).map(|(_, i)| i.item_id.clone()).collect()
    }

    /// Checks the policy is usable; the error names the field and value at fault.
    pub fn validate(&self) -> Result<(), PolicyError> {
        let bad = |field: &'static str, value: String, must: &'static str| Err(PolicyError { field, value, must });
        if !(self.similarity_threshold > 0.0 && self.similarity_threshold <= 1.0) {
            return bad("similarityThreshold", self.similarity_threshold.to_string(), "in (0, 1]");
        }
        if let Some(days) = self.stale_after_days.filter(|d| !(d.is_finite() && *d > 0.0)) {
            return bad("staleAfterDays", days.to_string(), "a positive number of days (or absent: off)");
        }
        if let Some(grace) = self.commitment_grace_days.filter(|g| !(g.is_finite() && *g >= 0.0)) {
            return bad("commitmentGraceDays", grace.to_string(), "zero or more days");
        }
        if let Some(grace) = self.transient_grace_days.filter(|g| !(g.is_finite() && *g >= 0.0)) {
            return bad("transientGraceDays", grace.to_string(), "zero or more days");
        }
        if self.max_active_facts == Some(0) {
            return bad("maxActiveFacts", "0".into(), "at least 1 (or absent: no cap)");
        }
        for (name, size) in [("personaTokens", self.persona_tokens), ("humanTokens", self.human_tokens)] {
            if size == Some(0) {
                return bad(name, "0".into(), "at least 1 token");
            }
        }
        if let Some(words) = self.merge_max_words.filter(|w| *w < 2) {
            return bad("mergeMaxWords", words.to_string(), "at least 2 words");
        }
        if let Some(slot) = self.single_valued_slots.iter().find(|s| crate::text::textmath::tokens(s).is_empty()) {
            return bad("singleValuedSlots", format!("'{slot}'"), "slots of one word or more");
        }
        Ok(())
    }
}

/// A retention policy that cannot be used: the field at fault, the value it holds, and what
/// it must be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyError {
    pub field: &'static str,
    pub value: String,
    pub must: &'static str,
}

impl std::fmt::Display for PolicyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} must be {}, got {}", self.field, self.must, self.value)
    }
}

impl std::error::Error for PolicyError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::memory::Block;

    fn item(id: &str, block: Block, category: &str, age_days: i64) -> Item {
        Item {
            item_id: id.into(),
            block,
            text: id.into(),
            category: category.into(),
            source_turn: None,
            created_at: 100 * crate::model::DAY - age_days * crate::model::DAY,
            updated_at: 0,
            active: true,
            valid_from: None,
            valid_to: None,
            superseded_by: None,
            pinned: false,
            speaker: None,
            sources: Vec::new(),
        }
    }

    #[test]
    fn salience_follows_the_formula() {
        let p = RetentionPolicy { stale_after_days: Some(30.0), ..Default::default() };
        let now = 100 * crate::model::DAY;
        assert_eq!(p.salience(&item("m_1", Block::Human, "identity", 0), now), 50.0 + 40.0 + 30.0);
        assert_eq!(p.salience(&item("m_2", Block::Scratch, "context", 15), now), 10.0 + 15.0);
        assert_eq!(p.salience(&item("m_3", Block::Episodes, "event", 70), now), 30.0);
    }

    #[test]
    fn overflow_takes_lowest_salience_unprotected() {
        let p = RetentionPolicy { max_active_facts: Some(2), ..Default::default() };
        let now = 100 * crate::model::DAY;
        let items = [
            item("m_1", Block::Human, "identity", 80),
            item("m_2", Block::Scratch, "context", 1),
            item("m_3", Block::Scratch, "context", 20),
            item("m_4", Block::Episodes, "event", 1),
        ];
        let o: Vec<_> = p.overflow(&items, now).into_iter().collect();
        assert_eq!(o, ["m_2", "m_3"]);
    }
}
