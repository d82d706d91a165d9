//! The Merge gate: sources in one block, said by one speaker, unconsumed, and merged text
//! fully traceable to them with no new names, each clause keeping its source's polarity.
//! Where the policy bounds a merge's words (`merge_max_words`), a merge stays atomic: every source
//! shares a subject with the fact it joins (two content tokens not common in the memory, a
//! name, or a one-value slot for the same holder), and the merged text stays within the bound.

use super::fields::{invented, optional_str, require_reason, required_str, required_str_list, Ruling};
use super::{identity, Edit, Ground, Scope};
use crate::model::memory::Item;
use crate::text::frame::{self, Frame};
use crate::text::when::Day;
use crate::text::{dated, polarity, slots, textmath};
use serde_json::Value;
use std::collections::{BTreeSet, HashSet};

/// The Merge gate's state: the content tokens common in the pre-pass memory
/// (`textmath::common_tokens` over its active facts), which do not make a subject.
#[derive(Debug)]
pub(super) struct MergeGate {
    common: Common,
}

/// Tokens held by more than `limit` active facts.
#[derive(Debug)]
struct Common {
    tokens: BTreeSet<String>,
    limit: usize,
}

impl MergeGate {
    pub(super) fn new(ground: &Ground<'_>) -> Self {
        let active: Vec<&str> = ground.items.values().filter(|i| i.active).map(|i| i.text.as_str()).collect();
        let limit = textmath::common_limit(active.len());
        MergeGate { common: Common { tokens: textmath::common_tokens(active), limit } }
    }

    pub(super) fn judge(&self, scope: &Scope<'_, '_>, p: &Value) -> Ruling<Edit> {
        judge(scope, p, &self.common)
    }
}

/// Whether `a` and `b` are about one subject: two content tokens in common that are not
/// common in the memory, a name in common, or the same one-value slot for the same holder.
fn shares_a_subject(a: &Item, b: &Item, scope: &Scope<'_, '_>, common: &Common) -> bool {
    let (ta, tb) = (textmath::content_tokens(&a.text), textmath::content_tokens(&b.text));
    if ta.intersection(&tb).filter(|t| !common.tokens.contains(*t)).count() >= 2 {
        return true;
    }
    let names = textmath::proper_nouns(&a.text);
    if textmath::proper_nouns(&b.text).iter().any(|n| names.contains(n)) {
        return true;
    }
    slots::shared_slot(&a.text, &b.text, &scope.ground.policy.single_valued_slots).is_some()
}

/// A merged fact is dated by `into`: a relative date (`yesterday`, `last week`) it keeps
/// from a source said on another day would name another day, so it must be written as the
/// day it names (the anchor the merge would lose).
fn keeps_absolute_time(merged: &str, into: &Item, sources: &[&Item]) -> Result<(), String> {
    let anchor = Day::from_unix(into.created_at);
    for (expression, _) in dated::relative(merged, into.created_at) {
        let elsewhere = |s: &&&Item| {
            Day::from_unix(s.created_at) != anchor
                && dated::relative(&s.text, s.created_at).iter().any(|(e, _)| *e == expression)
        };
        if let Some(source) = sources.iter().find(elsewhere) {
            let day = Day::from_unix(source.created_at);
            let named = dated::relative(&source.text, source.created_at)
                .into_iter()
                .find(|(e, _)| *e == expression)
                .map_or(String::new(), |(_, when)| dated::written(when));
            return Err(format!(
                "mergedText says \"{expression}\" as {} did on {day}, but the merged fact is dated by {} ({anchor}), where it would name another day: write the day it names ({named})",
                source.item_id, into.item_id
            ));
        }
    }
    Ok(())
}

fn judge(scope: &Scope<'_, '_>, p: &Value, common: &Common) -> Ruling<Edit> {
    let into_id = required_str(p, "intoId")?;
    let from_ids = required_str_list(p, "fromIds")?;
    let merged_text = required_str(p, "mergedText")?;
    let reason = optional_str(p, "reason")?;
    if from_ids.is_empty() {
        return Err("fromIds is empty: a merge needs at least one source besides intoId".into());
    }
    let mut seen = HashSet::new();
    for id in &from_ids {
        if *id == into_id {
            return Err(format!("intoId {into_id} is also listed in fromIds"));
        }
        if !seen.insert(*id) {
            return Err(format!("fromIds lists {id} twice"));
        }
    }
    let into = scope.unpinned("intoId", into_id)?;
    let mut sources = vec![into];
    for id in &from_ids {
        sources.push(scope.unpinned("fromIds", id)?);
    }
    if let Some(other) = sources.iter().find(|s| s.block != into.block) {
        return Err(format!(
            "sources span two blocks: {} is in {}, {} is in {}",
            into.item_id, into.block, other.item_id, other.block
        ));
    }
    for other in &sources[1..] {
        super::one_speaker(into, other)?;
    }
    // The merged text replaces each source's: no user fact is merged with another source's.
    super::trusted_together(&sources, "merged")?;
    if merged_text.trim().is_empty() {
        return Err("mergedText is empty".into());
    }
    let texts: Vec<&str> = sources.iter().map(|s| s.text.as_str()).collect();
    keeps_absolute_time(merged_text, into, &sources)?;
    // A date a source names, written out (`yesterday` said on 29 Nov → `on 29 Nov 2026`), is
    // the source's own words too.
    let written: Vec<String> = sources.iter().map(|s| dated::absolute(&s.text, s.created_at)).collect();
    let vocabulary: Vec<&str> = texts.iter().copied().chain(written.iter().map(String::as_str)).collect();
    let cov = textmath::coverage(merged_text, vocabulary.iter().copied());
    if !cov.is_full() {
        return Err(format!(
            "mergedText is not traceable to its sources: {}",
            invented(&cov.missing, "appear in none of them")
        ));
    }
    let names = textmath::new_proper_nouns(merged_text, vocabulary.iter().copied());
    if !names.is_empty() {
        return Err(format!("mergedText introduces proper nouns absent from every source: {}", names.join(", ")));
    }
    polarity::keeps_polarity(merged_text, &texts, "a source says", "mergedText")?;
    // Each source's clauses, read once for the rules of meaning below.
    let read: Vec<(&str, Vec<Frame>, i64)> =
        sources.iter().map(|s| (s.item_id.as_str(), frame::frames(&s.text), s.created_at)).collect();
    if let Some(bound) = scope.ground.policy.merge_max_words {
        within_bound(scope, common, (into_id, into), &sources[1..], &read, merged_text, bound)?;
    }
    // Under every policy: an indefinite brings in a new thing, so two described apart stay two.
    let (first, others) = (&read[0], &read[1..]);
    for (id, frames, _) in others {
        identity::two_of_a_kind((first.0, &first.1), (id, frames))?;
    }
    require_reason(reason)?;
    Ok(Edit::Merge {
        into_id: into_id.into(),
        from_ids: from_ids.into_iter().map(String::from).collect(),
        merged_text: merged_text.trim().to_string(),
    })
}

/// The rules of a policy that bounds merges (`mergeMaxWords`): every source shares a subject
/// with `into`, the facts are of one thing (`read`: each source's id, clauses and day, `into`
/// first), and the merged text is within `bound` words.
fn within_bound(
    scope: &Scope<'_, '_>,
    common: &Common,
    (into_id, into): (&str, &Item),
    others: &[&Item],
    read: &[(&str, Vec<Frame>, i64)],
    merged_text: &str,
    bound: usize,
) -> Ruling<()> {
    let unrelated: Vec<&Item> = others.iter().copied().filter(|s| !shares_a_subject(into, s, scope, common)).collect();
    if !unrelated.is_empty() {
        let into_tokens = textmath::content_tokens(&into.text);
        let frame: BTreeSet<String> = unrelated
            .iter()
            .flat_map(|s| textmath::content_tokens(&s.text))
            .filter(|t| into_tokens.contains(t) && common.tokens.contains(t))
            .collect();
        let besides = if frame.is_empty() {
            String::new()
        } else {
            let words: Vec<&str> = frame.iter().map(String::as_str).collect();
            format!(
                "; \"{}\" count for nothing, held by more than {} facts of this memory",
                words.join("\", \""),
                common.limit
            )
        };
        return Err(format!(
            "mergedText joins {} statement(s) that share no subject with {into_id} ({}): no two content words, name or one-value slot in common{besides}",
            unrelated.len(),
            unrelated.iter().map(|s| s.item_id.as_str()).collect::<Vec<_>>().join(", ")
        ));
    }
    // One fact of one thing: what each source is about, read from its grammar.
    let (first, rest) = (&read[0], &read[1..]);
    for (id, frames, day) in rest {
        identity::one_thing((first.0, &first.1, first.2), (id, frames, *day))?;
    }
    let words = textmath::words(merged_text).count();
    if words > bound {
        return Err(format!("mergedText has {words} words, more than the {bound} a merge may have (mergeMaxWords)"));
    }
    Ok(())
}
