//! The Supersede gate: a newer fact closes an older one only on a basis the code can show
//! (`meaning::supersede_basis`): the opposite statement, a one-value slot both fill for
//! the same holder, or a change the user stated — within one block, or across blocks
//! where the policy gives blocks a size (a full human block must still take an update). A
//! statement dated back — received more than a day after the date it claims — replaces a
//! fact the memory already held only on a change its own words state, never on its date.

use super::fields::{optional_str, require_reason, required_str, Ruling};
use super::{meaning, Edit, Scope};
use crate::model::memory::{Item, SupersedeBasis};
use serde_json::Value;

pub(super) fn judge(scope: &Scope<'_, '_>, p: &Value) -> Ruling<Edit> {
    let old_id = required_str(p, "oldId")?;
    let new_id = required_str(p, "newId")?;
    let reason = optional_str(p, "reason")?;
    if old_id == new_id {
        return Err(format!("oldId {old_id} is paired with itself"));
    }
    let old = scope.unpinned("oldId", old_id)?;
    let new = scope.live("newId", new_id)?;
    // Where blocks have a size, a full human block must still take an update: a newer fact
    // may then replace one in another block. Else a supersession stays within one.
    if old.block != new.block && scope.ground.policy.human_tokens.is_none() {
        return Err(format!(
            "{old_id} is in {} and {new_id} in {}: a supersession stays within one block",
            old.block, new.block
        ));
    }
    super::one_speaker(old, new)?;
    super::trusted(old, new, "superseded")?;
    if (new.created_at, new.ordinal()) <= (old.created_at, old.ordinal()) {
        return Err(format!(
            "newId {new_id} is not newer than oldId {old_id}: only a later fact can supersede an earlier one"
        ));
    }
    let basis = meaning::supersede_basis(old, new, scope.ground.policy, scope.ground.turns)?;
    backdated(old, new, &basis)?;
    require_reason(reason)?;
    Ok(Edit::Supersede { old_id: old_id.into(), new_id: new_id.into(), valid_to: new.created_at, basis })
}

/// `Err` when `new` is dated back (`Item::backdated`) and `old` was in the memory before
/// `new` arrived, and the basis is only that both fill one slot, which rests on which is
/// newer: a claimed date alone never replaces what the memory already held.
fn backdated(old: &Item, new: &Item, basis: &SupersedeBasis) -> Ruling<()> {
    let held_before = old.received_at() + crate::model::provenance::BACKDATED_AFTER <= new.received_at();
    if new.backdated() && held_before && matches!(basis, SupersedeBasis::Slot { .. }) {
        return Err(format!(
            "{} is dated {} but reached the memory {}, after {} was held: a statement dated back replaces nothing on \
its date alone, only on a change its words state",
            new.item_id,
            crate::text::when::Day::from_unix(new.created_at),
            crate::text::when::Day::from_unix(new.received_at()),
            old.item_id
        ));
    }
    Ok(())
}
