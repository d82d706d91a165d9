//! Lineage: the ancestry of an item — the turn it came from, what was merged into it or it
//! into, where it was promoted, what it duplicated, when it was forgotten — read from the
//! mutation log.

use crate::model::memory::{Item, Mutation};
use crate::model::pass::{MutationKind, PassKind, Stage};
use crate::text::order;
use serde::Serialize;

/// One step in an item's history.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub at: i64,
    pub seq: u64,
    pub pass: Stage,
    /// One sentence: "encoded from turn 4", "merged m_9 into it", …
    pub what: String,
    /// Items this step links to (sources, keeper, target).
    pub links: Vec<String>,
}

/// The accepted history of `item_id`, oldest first.
pub fn lineage(item_id: &str, log: &[Mutation]) -> Vec<Step> {
    let mut steps = Vec::new();
    for m in log.iter().filter(|m| m.accepted) {
        let step = |what: String, links: Vec<String>| Step { at: m.at, seq: m.seq, pass: m.pass, what, links };
        let is_self = m.item_id == item_id;
        match m.pass {
            Stage::Pass(PassKind::Encode) if is_self => {
                let turn = m.refs.source_turn.map_or("the conversation".to_string(), |t| format!("turn {t}"));
                steps.push(step(format!("encoded from {turn}"), vec![]));
            }
            Stage::Pass(PassKind::Dedupe) if is_self => {
                let keeper = m.refs.duplicate_of.clone().unwrap_or_default();
                steps.push(step(format!("dropped as a duplicate of {keeper}"), vec![keeper]));
            }
            Stage::Pass(PassKind::Dedupe) if m.refs.duplicate_of.as_deref() == Some(item_id) => {
                steps.push(step(format!("kept; {} was dropped as its duplicate", m.item_id), vec![m.item_id.clone()]));
            }
            Stage::Pass(PassKind::Merge) if is_self => {
                steps.push(step(
                    format!(
                        "merged {} into it: “{}”",
                        m.refs.from_ids.join(", "),
                        m.refs.merged_text.clone().unwrap_or_default()
                    ),
                    m.refs.from_ids.clone(),
                ));
            }
            Stage::Pass(PassKind::Merge) if m.refs.from_ids.iter().any(|f| f == item_id) => {
                steps.push(step(format!("merged into {}", m.item_id), vec![m.item_id.clone()]));
            }
            Stage::Pass(PassKind::Promote) if is_self => {
                let from = m.refs.from_block.map_or("?".to_string(), |b| b.to_string());
                steps.push(step(
                    format!(
                        "promoted {from} → {} ({})",
                        m.refs.to_block.clone().unwrap_or_default(),
                        m.proposer.as_str()
                    ),
                    vec![],
                ));
            }
            Stage::Pass(PassKind::Supersede) if is_self => {
                let new = m.refs.superseded_by.clone().unwrap_or_default();
                let basis = m.refs.basis.as_ref().map_or(String::new(), |b| format!(" ({})", b.describe()));
                steps.push(step(format!("superseded by {new}: no longer current from {}{basis}", m.at), vec![new]));
            }
            Stage::Pass(PassKind::Supersede) if m.refs.superseded_by.as_deref() == Some(item_id) => {
                steps.push(step(format!("supersedes {} (its newer value)", m.item_id), vec![m.item_id.clone()]));
            }
            Stage::Pass(PassKind::Forget) if is_self => {
                steps.push(step(
                    format!("forgotten under the {} rule: {}", m.policy.clone().unwrap_or_default(), m.reason),
                    vec![],
                ));
            }
            Stage::User if is_self => {
                let what = match m.kind {
                    MutationKind::Correct => {
                        format!("corrected by the user into {}", m.refs.superseded_by.clone().unwrap_or_default())
                    }
                    MutationKind::Pin => "pinned by the user".to_string(),
                    MutationKind::Unpin => "unpinned by the user".to_string(),
                    MutationKind::Forget => format!(
                        "forgotten by the user{}",
                        if m.reason.is_empty() { String::new() } else { format!(": {}", m.reason) }
                    ),
                    other => format!("{other} by the user"),
                };
                steps.push(step(what, m.refs.superseded_by.iter().cloned().collect()));
            }
            Stage::User if m.refs.superseded_by.as_deref() == Some(item_id) => {
                steps.push(step(format!("the user's correction of {}", m.item_id), vec![m.item_id.clone()]));
            }
            _ => {}
        }
    }
    steps
}

/// The items whose lineage reaches `item`'s (merge sources and duplicates), by id.
pub fn ancestors(item: &Item, log: &[Mutation]) -> Vec<String> {
    let mut out: Vec<String> = lineage(&item.item_id, log).into_iter().flat_map(|s| s.links).collect();
    order::sort(&mut out);
    out.dedup();
    out
}

/// The transcript turns `item_id` derives from: its own source turn and, through every
/// accepted merge into it, duplicate dropped into it and correction of it, those of the
/// facts it absorbed — so a merged, deduplicated or corrected fact counts for each turn in
/// its lineage.
pub fn derived_turns(item_id: &str, items: &std::collections::HashMap<&str, &Item>, log: &[Mutation]) -> Vec<u32> {
    let mut sources: std::collections::HashMap<&str, Vec<&str>> = std::collections::HashMap::new();
    for m in log.iter().filter(|m| m.accepted) {
        match (m.pass, m.kind) {
            (Stage::Pass(PassKind::Merge), _) => {
                sources.entry(m.item_id.as_str()).or_default().extend(m.refs.from_ids.iter().map(String::as_str));
            }
            (Stage::Pass(PassKind::Dedupe), _) => {
                if let Some(keeper) = m.refs.duplicate_of.as_deref() {
                    sources.entry(keeper).or_default().push(m.item_id.as_str());
                }
            }
            (Stage::User, MutationKind::Correct) => {
                if let Some(new) = m.refs.superseded_by.as_deref() {
                    sources.entry(new).or_default().push(m.item_id.as_str());
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut todo = vec![item_id];
    while let Some(id) = todo.pop() {
        if !seen.insert(id) {
            continue;
        }
        out.extend(items.get(id).and_then(|i| i.source_turn));
        todo.extend(sources.get(id).into_iter().flatten());
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::memory::{Block, Proposer, Refs};

    fn m(pass: PassKind, item: &str, refs: Refs) -> Mutation {
        Mutation {
            id: 1,
            seq: 2,
            pass: pass.into(),
            kind: pass.mutation_kind(),
            item_id: item.into(),
            refs,
            accepted: true,
            reason: "r".into(),
            rejection_reason: None,
            policy: Some("stale".into()),
            proposer: Proposer::Model,
            at: 5,
        }
    }

    #[test]
    fn lineage_follows_encode_merge_promote_and_forget() {
        let log = vec![
            m(PassKind::Encode, "m_1", Refs { source_turn: Some(0), ..Default::default() }),
            m(
                PassKind::Merge,
                "m_1",
                Refs { from_ids: vec!["m_2".into()], merged_text: Some("a; b".into()), ..Default::default() },
            ),
            m(
                PassKind::Promote,
                "m_1",
                Refs { from_block: Some(Block::Scratch), to_block: Some("human".into()), ..Default::default() },
            ),
            m(PassKind::Forget, "m_1", Refs::default()),
        ];
        let steps: Vec<String> = lineage("m_1", &log).into_iter().map(|s| s.what).collect();
        assert_eq!(steps.len(), 4);
        assert_eq!(steps[0], "encoded from turn 0");
        assert!(steps[1].starts_with("merged m_2 into it"));
        assert!(steps[2].starts_with("promoted scratch → human"));
        assert!(steps[3].contains("stale rule"));
        assert_eq!(lineage("m_2", &log)[0].what, "merged into m_1");
    }
}
