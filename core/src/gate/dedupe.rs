//! The Dedupe gate: a drop is accepted only between two live facts of one speaker and the
//! same polarity whose similarity reaches the policy's threshold, never into a chain, and
//! never of a simple fact into a compound that holds it among other statements, nor on a
//! single word in common that the longer fact only mentions.

use super::fields::{optional_str, require_reason, required_str, Ruling};
use super::{Edit, Scope};
use crate::model::memory::Item;
use crate::text::{polarity, statements, textmath};
use serde_json::Value;

/// Why `item` may not be dropped into `keeper`: it is one statement of a compound keeper
/// (`My locker code is 4417.` into `I live in Ghent and my locker code is 4417.`), which a
/// user could then only edit or erase together with the rest.
pub(crate) fn folds_into_a_compound(item: &Item, keeper: &Item, threshold: f64) -> Option<String> {
    let parts = statements::pieces(&keeper.text);
    if parts.len() < 2 {
        return None;
    }
    folds_into(item, &statements::pieces(&item.text), keeper, &parts, threshold)
}

/// [`folds_into_a_compound`] over each text's statements (`statements::pieces`), worked
/// out by the caller: the candidate search splits each fact once, not once per pair.
pub(crate) fn folds_into(
    item: &Item,
    item_parts: &[String],
    keeper: &Item,
    parts: &[String],
    threshold: f64,
) -> Option<String> {
    if parts.len() < 2 || item_parts.len() > 1 {
        return None;
    }
    let rest: Vec<&String> =
        parts.iter().filter(|p| !textmath::reaches(textmath::similarity(&item.text, p), threshold)).collect();
    (rest.len() < parts.len()).then(|| {
        format!(
            "{} is one statement of {}, which also says \"{}\": a fact a user may want to edit or erase alone is never folded into a compound",
            item.item_id,
            keeper.item_id,
            rest.iter().map(|s| s.trim_end_matches('.')).collect::<Vec<_>>().join("; ")
        )
    })
}

/// Why two facts whose similarity rests on one content word in common are not one fact:
/// containment of a one-word fact (`This is Max.` in `I took Max for a walk.`) shows a
/// mention, not a restatement, unless the longer fact holds every word of the shorter
/// (`I have a dog.` in `I have a dog named Max.`).
///
/// ```
/// # use nocturne_core::gate::dedupe::only_a_mention;
/// assert!(only_a_mention("This is Max.", "I took Max for a walk.").unwrap().contains("\"this\", \"is\""));
/// assert_eq!(only_a_mention("I have a dog.", "I have a dog named Max."), None);
/// ```
pub fn only_a_mention(a: &str, b: &str) -> Option<String> {
    let (ca, cb) = (textmath::content_tokens(a), textmath::content_tokens(b));
    let shared: Vec<&String> = ca.intersection(&cb).collect();
    if shared.len() != 1 || ca == cb {
        return None;
    }
    let (short, long) = if ca.len() <= cb.len() { (a, b) } else { (b, a) };
    let held: std::collections::BTreeSet<String> = textmath::tokens(long).into_iter().collect();
    let mut lacking: Vec<String> = Vec::new();
    for word in textmath::normalize(short).split_whitespace() {
        if !held.contains(&textmath::stem_token(word)) && !lacking.iter().any(|w| w == word) {
            lacking.push(word.to_string());
        }
    }
    (!lacking.is_empty()).then(|| {
        format!(
            "the two share one content word (\"{}\") and the longer one lacks {}: a fact that mentions a word does not restate a fact made of it",
            shared[0],
            lacking.iter().map(|t| format!("\"{t}\"")).collect::<Vec<_>>().join(", ")
        )
    })
}

pub(super) fn judge(scope: &Scope<'_, '_>, p: &Value) -> Ruling<Edit> {
    let item_id = required_str(p, "itemId")?;
    let keeper_id = required_str(p, "duplicateOf")?;
    let reason = optional_str(p, "reason")?;
    if item_id == keeper_id {
        return Err(format!("itemId {item_id} is paired with itself (a self-pair is not a duplicate)"));
    }
    let item = scope.unpinned("itemId", item_id)?;
    if scope.ledger.keepers.contains(item_id) {
        return Err(format!(
            "itemId {item_id} is the keeper of an earlier drop in this pass; dropping it would form a chain"
        ));
    }
    let keeper = match scope.live("duplicateOf", keeper_id) {
        Err(_) if scope.ledger.consumed.contains_key(keeper_id) => {
            return Err(format!(
                "duplicateOf {keeper_id} was already removed by an earlier mutation in this pass ({}); a drop into it would form a chain",
                scope.ledger.consumed[keeper_id]
            ))
        }
        other => other?,
    };
    super::one_speaker(item, keeper)?;
    super::trusted(item, keeper, "dropped as a duplicate")?;
    let sim = textmath::similarity(&item.text, &keeper.text);
    let threshold = scope.ground.policy.similarity_threshold;
    if !textmath::reaches(sim, threshold) {
        return Err(format!(
            "similarity {sim:.3} between {item_id} and {keeper_id} is below the threshold {threshold} (a different fact)"
        ));
    }
    if let Some(why) = folds_into_a_compound(item, keeper, scope.ground.policy.similarity_threshold) {
        return Err(why);
    }
    if let Some(why) = only_a_mention(&item.text, &keeper.text) {
        return Err(format!("similarity {sim:.3} between {item_id} and {keeper_id} rests on a mention: {why}"));
    }
    if polarity::opposite(&item.text, &keeper.text) {
        let (neg, id) =
            if polarity::is_negated(&item.text) { (&item.text, item_id) } else { (&keeper.text, keeper_id) };
        let cue = polarity::cue_in_context(neg).unwrap_or_default();
        return Err(format!(
            "{item_id} and {keeper_id} have opposite polarity (only {id} says \"{cue}\"): a contradiction, which is Supersede's job, not a duplicate"
        ));
    }
    require_reason(reason)?;
    Ok(Edit::Drop { item_id: item_id.into(), duplicate_of: keeper_id.into(), similarity: sim })
}
