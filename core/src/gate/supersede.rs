//! The Supersede gate: a newer fact in the same block closes an older one it conflicts
//! with (a shared subject, a different value, not a duplicate).

use super::fields::{optional_str, require_reason, required_str, Ruling};
use super::{Edit, Scope};
use crate::text::textmath;
use serde_json::Value;

pub(super) fn judge(scope: &Scope<'_, '_>, p: &Value) -> Ruling<Edit> {
    let old_id = required_str(p, "oldId")?;
    let new_id = required_str(p, "newId")?;
    let reason = optional_str(p, "reason")?;
    if old_id == new_id {
        return Err(format!("oldId {old_id} is paired with itself"));
    }
    let old = scope.live("oldId", old_id)?;
    let new = scope.live("newId", new_id)?;
    if old.block != new.block {
        return Err(format!(
            "{old_id} is in {} and {new_id} in {}: a supersession stays within one block",
            old.block, new.block
        ));
    }
    if (new.created_at, new.ordinal()) <= (old.created_at, old.ordinal()) {
        return Err(format!(
            "newId {new_id} is not newer than oldId {old_id}: only a later fact can supersede an earlier one"
        ));
    }
    let threshold = scope.ground.policy.similarity_threshold;
    let sim = textmath::similarity(&old.text, &new.text);
    if textmath::reaches(sim, threshold) {
        return Err(format!(
            "similarity {sim:.3} reaches the threshold {threshold}: a duplicate, which is Dedupe's job"
        ));
    }
    let (a, b) = (textmath::content_tokens(&old.text), textmath::content_tokens(&new.text));
    if !textmath::conflicts(&a, &b, threshold) {
        let (subject, _, _) = textmath::subject_and_values(&old.text, &new.text);
        return Err(format!(
            "{old_id} and {new_id} are not about the same thing: they share {} of {} content tokens ({}), not half of the smaller fact with a value each",
            subject.len(),
            a.len().min(b.len()),
            if subject.is_empty() { "none".to_string() } else { subject.join(", ") }
        ));
    }
    require_reason(reason)?;
    Ok(Edit::Supersede { old_id: old_id.into(), new_id: new_id.into(), valid_to: new.created_at })
}
