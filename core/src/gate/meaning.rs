//! The meaning rule Supersede adds to the word measures (SPEC §11), as a pure function the
//! engine also uses to choose its candidates: on what basis a newer fact may replace an
//! older one. (Polarity itself is a text measure: `text::polarity`.)
//!
//! Everything the rule reads of one fact is a [`Reading`], made once: the gate reads two
//! facts per proposal, the engine's candidate search reads each fact once for a whole
//! memory and then judges many pairs of them.

use crate::model::memory::{Item, SupersedeBasis, Turn};
use crate::model::policy::RetentionPolicy;
use crate::text::polarity;
use crate::text::slots::{self, SlotFill};
use crate::text::textmath;
use std::collections::BTreeSet;

/// What the meaning rule reads of one fact.
#[derive(Clone, Debug)]
pub struct Reading<'a> {
    item: &'a Item,
    content: BTreeSet<String>,
    /// The content tokens that say what the fact is about: without the change and
    /// negation cues (`now`, `new`, `no longer`), which say how, not what.
    topic: BTreeSet<String>,
    negated: bool,
    /// The one-value slots the text fills, by their index in the policy's list.
    fills: Vec<(usize, SlotFill)>,
    /// Clauses of the text and of its source turn that state a change: their tokens and
    /// the first cue.
    changes: Vec<(BTreeSet<String>, String)>,
}

impl<'a> Reading<'a> {
    /// Reads `item` under `policy`; `turns` holds its source turn, if it is still there.
    pub fn new(item: &'a Item, policy: &RetentionPolicy, turns: &[Turn]) -> Self {
        let source = item.source_turn.and_then(|i| turns.iter().find(|t| t.index == i)).map(|t| t.text.as_str());
        Reading::with_source(item, policy, source)
    }

    /// [`Reading::new`] with the source turn's text already found.
    pub fn with_source(item: &'a Item, policy: &RetentionPolicy, source: Option<&str>) -> Self {
        let changes = std::iter::once(item.text.as_str())
            .chain(source)
            .flat_map(polarity::clauses)
            .filter_map(|clause| {
                let cue = polarity::change_cues(clause).into_iter().next()?;
                Some((textmath::tokens(clause).into_iter().collect(), cue))
            })
            .collect();
        let content = textmath::content_tokens(&item.text);
        Reading {
            item,
            topic: content.iter().filter(|t| !polarity::is_cue_token(t)).cloned().collect(),
            content,
            negated: polarity::is_negated(&item.text),
            fills: slots::fills(&item.text, &policy.single_valued_slots),
            changes,
        }
    }

    /// Whether the fact is a negated statement (`text::polarity`).
    pub fn negated(&self) -> bool {
        self.negated
    }

    /// The one-value slots the text fills: `(index in the policy's list, fill)`.
    pub fn fills(&self) -> &[(usize, SlotFill)] {
        &self.fills
    }

    /// Whether a clause of the fact or of its source turn states a change at all.
    pub fn states_a_change(&self) -> bool {
        !self.changes.is_empty()
    }
}

/// On what basis `new` may supersede `old` (both already checked to be live, in one block,
/// `new` the later): the same statement with opposite polarity; or, for two facts that
/// conflict (`textmath::conflicts`), a one-value slot they share or a change the user
/// stated. `Err` is the refusal, in words a user understands.
pub fn supersede_basis(
    old: &Item,
    new: &Item,
    policy: &RetentionPolicy,
    turns: &[Turn],
) -> Result<SupersedeBasis, String> {
    basis(&Reading::new(old, policy, turns), &Reading::new(new, policy, turns), policy)
}

/// [`supersede_basis`] over two readings.
pub fn basis(old: &Reading<'_>, new: &Reading<'_>, policy: &RetentionPolicy) -> Result<SupersedeBasis, String> {
    let threshold = policy.similarity_threshold;
    let (a, b) = (&old.content, &new.content);
    let sim = textmath::set_similarity(a, b);
    if textmath::reaches(sim, threshold) {
        if old.negated != new.negated {
            return Ok(SupersedeBasis::Polarity);
        }
        return Err(format!(
            "similarity {sim:.3} reaches the threshold {threshold}: a duplicate, which is Dedupe's job"
        ));
    }
    // What the two are about, and whether they differ in value, counts the topic words:
    // `I'm always up for new books` and `I love this new script` share only a cue.
    let (a, b) = (&old.topic, &new.topic);
    let subject: Vec<&String> = a.intersection(b).collect();
    if !textmath::conflicts(a, b, threshold) {
        return Err(format!(
            "{} and {} are not about the same thing: they share {} of {} content tokens ({}), not half of the smaller fact with a value each",
            old.item.item_id,
            new.item.item_id,
            subject.len(),
            a.len().min(b.len()),
            if subject.is_empty() {
                "none".to_string()
            } else {
                subject.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            }
        ));
    }
    let slot_name = |n: usize| policy.single_valued_slots[n].clone();
    let both = |same: bool| {
        old.fills.iter().find_map(|(n, x)| {
            let (_, y) = new.fills.iter().find(|(m, y)| m == n && (x.holder == y.holder) == same)?;
            Some((*n, x, y))
        })
    };
    // Only affirmative facts fill a slot: `I no longer live in Lisbon` and `I live in Porto` can both hold.
    if !old.negated && !new.negated {
        if let Some((n, _, _)) = both(true) {
            return Ok(SupersedeBasis::Slot { slot: slot_name(n) });
        }
    }
    // A slot names its holder: a change stated about someone else replaces nothing here.
    if let Some((n, x, y)) = both(false) {
        return Err(format!(
            "both fill \"{}\", but for different holders ({}; {}): a change for one is not a change for the other",
            slot_name(n),
            slots::holder_name(&x.holder),
            slots::holder_name(&y.holder)
        ));
    }
    // A cue counts only in a clause that shares the subject.
    if let Some((_, cue)) = new.changes.iter().find(|(tokens, _)| subject.iter().any(|s| tokens.contains(*s))) {
        return Ok(SupersedeBasis::Change { cue: cue.clone() });
    }
    let predicate = textmath::tokens(&new.item.text).into_iter().find(|t| subject.contains(&t)).unwrap_or_default();
    Err(format!("\"{predicate}\" can hold several values at once and the newer fact states no change"))
}
