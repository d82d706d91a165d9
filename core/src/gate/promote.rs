//! The Promote gate: a live fact moves to persona, human or episodes, never to where it
//! already is.

use super::fields::{optional_str, require_reason, required_str, Ruling};
use super::{Edit, Scope};
use crate::model::memory::Block;
use serde_json::Value;

pub(super) fn judge(scope: &Scope<'_, '_>, p: &Value) -> Ruling<Edit> {
    let item_id = required_str(p, "itemId")?;
    let to_name = required_str(p, "toBlock")?;
    let reason = optional_str(p, "reason")?;
    let to = match Block::parse(to_name) {
        Some(b) if Block::PROMOTION_TARGETS.contains(&b) => b,
        _ => return Err(format!("toBlock '{to_name}' is not one of persona, human, episodes")),
    };
    let item = scope.live("itemId", item_id)?;
    if item.block == to {
        return Err(format!("itemId {item_id} is already in {to}"));
    }
    require_reason(reason)?;
    Ok(Edit::Promote { item_id: item_id.into(), from: item.block, to })
}
