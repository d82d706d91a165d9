//! The meaning rule Supersede adds to the word measures (SPEC §11), as a pure function the
//! engine also uses to choose its candidates: on what basis a newer fact may replace an
//! older one. (Polarity itself is a text measure: `text::polarity`.)

use crate::model::memory::{Item, SupersedeBasis, Turn};
use crate::model::policy::RetentionPolicy;
use crate::text::polarity;
use crate::text::{slots, textmath};

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
    let threshold = policy.similarity_threshold;
    let sim = textmath::similarity(&old.text, &new.text);
    if textmath::reaches(sim, threshold) {
        if polarity::opposite(&old.text, &new.text) {
            return Ok(SupersedeBasis::Polarity);
        }
        return Err(format!(
            "similarity {sim:.3} reaches the threshold {threshold}: a duplicate, which is Dedupe's job"
        ));
    }
    let (a, b) = (textmath::content_tokens(&old.text), textmath::content_tokens(&new.text));
    let (subject, _, _) = textmath::subject_and_values(&old.text, &new.text);
    if !textmath::conflicts(&a, &b, threshold) {
        return Err(format!(
            "{} and {} are not about the same thing: they share {} of {} content tokens ({}), not half of the smaller fact with a value each",
            old.item_id,
            new.item_id,
            subject.len(),
            a.len().min(b.len()),
            if subject.is_empty() { "none".to_string() } else { subject.join(", ") }
        ));
    }
    if let Some(slot) = slots::shared_slot(&old.text, &new.text, &policy.single_valued_slots) {
        return Ok(SupersedeBasis::Slot { slot: slot.to_string() });
    }
    // A slot names its holder: a change stated about someone else replaces nothing here.
    if let Some((slot, h_old, h_new)) =
        slots::slot_with_other_holders(&old.text, &new.text, &policy.single_valued_slots)
    {
        return Err(format!(
            "both fill \"{slot}\", but for different holders ({h_old}; {h_new}): a change for one is not a change for the other"
        ));
    }
    if let Some(cue) = stated_change(new, &subject, turns) {
        return Ok(SupersedeBasis::Change { cue });
    }
    let predicate = textmath::tokens(&new.text).into_iter().find(|t| subject.contains(t)).unwrap_or_default();
    Err(format!("\"{predicate}\" can hold several values at once and the newer fact states no change"))
}

/// A change cue (`now`, `moved`, `no longer` …) in a clause of `new`'s text or of its
/// source turn that shares the subject; a cue in an unrelated clause does not count.
pub fn stated_change(new: &Item, subject: &[String], turns: &[Turn]) -> Option<String> {
    let source = new.source_turn.and_then(|i| turns.iter().find(|t| t.index == i)).map(|t| t.text.as_str());
    let texts = std::iter::once(new.text.as_str()).chain(source);
    texts.flat_map(polarity::clauses).find_map(|clause| {
        let tokens = textmath::tokens(clause);
        if !tokens.iter().any(|t| subject.contains(t)) {
            return None;
        }
        polarity::change_cues(clause).into_iter().next()
    })
}
