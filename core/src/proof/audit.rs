//! The independent re-audit: every accepted mutation is re-checked from the stored log
//! and the stored versions, sharing no code with the passes or gates beyond `textmath`.
//! "The model said it merged" is never evidence. Also the no-invention sweep.

use crate::model::memory::{Item, Mutation, Role, SupersedeBasis, Turn};
use crate::model::pass::{MutationKind, PassKind, Stage};
use crate::store::{Store, StoreError};
use crate::text::order;
use crate::text::{frame, polarity, slots, textmath};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// One accepted mutation the audit could not justify.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Problem {
    pub mutation_id: u64,
    pub pass: Stage,
    pub item_id: String,
    pub problem: String,
}

/// The audit's result.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditReport {
    /// Accepted mutations re-checked.
    pub checked: usize,
    pub refused_logged: usize,
    /// Entries naming a fact the user erased: redacted, so not re-checked.
    pub redacted: usize,
    pub problems: Vec<Problem>,
}

const PROMOTION_BLOCKS: [&str; 3] = ["persona", "human", "episodes"];

/// Salience, recomputed here on purpose rather than borrowed from `policy`.
fn salience(item: &Item, protected: &[String], stale_after_days: Option<f64>, now: i64) -> f64 {
    let stale_after_days = stale_after_days.unwrap_or(crate::model::policy::RECENCY_DAYS);
    let weight = match item.block.as_str() {
        "persona" => 60.0,
        "human" => 50.0,
        "episodes" => 30.0,
        _ => 10.0,
    };
    let age = (now - item.created_at) as f64 / 86_400.0;
    let bonus = if protected.iter().any(|c| c == item.category.as_str()) { 40.0 } else { 0.0 };
    weight + bonus + (30.0 - 30.0 * age / stale_after_days).max(0.0)
}

/// Re-checks every accepted mutation in the store's log against the versions on either
/// side of it.
pub async fn audit<S: Store>(store: &S) -> Result<AuditReport, StoreError> {
    let meta = store.meta().await?;
    let log = store.mutations().await?;
    // The policy in force at each entry: the one the first recorded policy change started
    // from, switched at each change (a store that moved off the old default was judged by
    // the old rules until then).
    let recorded = |m: &Mutation, side: &str| {
        m.refs
            .proposal
            .as_ref()
            .and_then(|p| serde_json::from_value::<crate::model::policy::RetentionPolicy>(p[side].clone()).ok())
    };
    let mut policy = log
        .iter()
        .find(|m| m.kind == MutationKind::Policy)
        .and_then(|m| recorded(m, "from"))
        .unwrap_or(meta.policy.clone());
    let transcript = store.transcript().await?;
    let mut states: HashMap<u64, BTreeMap<String, Item>> = HashMap::new();
    let mut report = AuditReport::default();
    // What the user erased is redacted in every row: entries naming it are not re-checked
    // (their evidence is gone by design); the tombstone itself is.
    let erased: std::collections::HashSet<&str> = log
        .iter()
        .filter(|m| m.accepted && m.kind == MutationKind::Erase)
        .flat_map(|m| m.refs.from_ids.iter().map(String::as_str))
        .collect();
    let names_erased = |m: &Mutation| {
        m.kind != MutationKind::Erase
            && (erased.contains(m.item_id.as_str())
                || m.refs
                    .from_ids
                    .iter()
                    .chain(&m.refs.duplicate_of)
                    .chain(&m.refs.superseded_by)
                    .any(|id| erased.contains(id.as_str())))
    };
    for m in &log {
        if m.kind == MutationKind::Policy {
            match recorded(m, "to") {
                Some(next) => policy = next,
                None => report.problems.push(problem(m, "a policy change that does not record the new policy".into())),
            }
            continue;
        }
        if names_erased(m) {
            report.redacted += 1;
            continue;
        }
        if !m.accepted {
            report.refused_logged += 1;
            if m.rejection_reason.as_deref().is_none_or(|r| r.trim().is_empty()) {
                report.problems.push(problem(m, "refused without a rejection reason".into()));
            }
            continue;
        }
        report.checked += 1;
        if m.seq == 0 || m.seq > meta.head {
            report.problems.push(problem(m, format!("belongs to version v{}, which does not exist", m.seq)));
            continue;
        }
        for seq in [m.seq - 1, m.seq] {
            if let std::collections::hash_map::Entry::Vacant(slot) = states.entry(seq) {
                let items = if seq == 0 { Vec::new() } else { store.items_at(seq).await? };
                slot.insert(items.into_iter().map(|i| (i.item_id.clone(), i)).collect());
            }
        }
        let before = &states[&(m.seq - 1)];
        let after = &states[&m.seq];
        if let Err(p) = check(m, before, after, &policy, &transcript) {
            report.problems.push(problem(m, p));
        }
    }
    Ok(report)
}

fn problem(m: &Mutation, problem: String) -> Problem {
    Problem { mutation_id: m.id, pass: m.pass, item_id: m.item_id.clone(), problem }
}

fn active<'a>(state: &'a BTreeMap<String, Item>, id: &str, when: &str) -> Result<&'a Item, String> {
    match state.get(id) {
        Some(i) if i.active => Ok(i),
        Some(_) => Err(format!("{id} was not active {when}")),
        None => Err(format!("{id} did not exist {when}")),
    }
}

/// What one mutation is re-checked against: the state before and after its version.
struct Evidence<'a> {
    m: &'a Mutation,
    before: &'a BTreeMap<String, Item>,
    after: &'a BTreeMap<String, Item>,
    policy: &'a crate::model::policy::RetentionPolicy,
    transcript: &'a [Turn],
}

impl Evidence<'_> {
    /// The user's lines up to `through` (every one when `None`), each led by its speaker's
    /// name when it has one: the name is the source's own word.
    fn user_lines(&self, through: Option<u32>) -> Vec<String> {
        self.transcript
            .iter()
            .filter(|t| t.role == Role::User && through.is_none_or(|n| t.index <= n))
            .map(Turn::said)
            .collect()
    }
}

fn check(
    m: &Mutation,
    before: &BTreeMap<String, Item>,
    after: &BTreeMap<String, Item>,
    policy: &crate::model::policy::RetentionPolicy,
    transcript: &[Turn],
) -> Result<(), String> {
    let e = Evidence { m, before, after, policy, transcript };
    match m.pass {
        Stage::Pass(PassKind::Encode) => encoded(&e),
        Stage::Pass(PassKind::Dedupe) => dropped(&e),
        Stage::Pass(PassKind::Merge) => merged(&e),
        Stage::Pass(PassKind::Promote) => promoted(&e),
        Stage::Pass(PassKind::Forget) => forgotten(&e),
        Stage::Pass(PassKind::Supersede) => superseded(&e),
        Stage::User => user_edit(&e),
        // Accepted citations live on the reply's turn; only refusals are logged.
        Stage::Reply => Err("an accepted citation in the log: a reply never edits the memory".into()),
        // A replayed record's own rows are judged by their own stages; sync logs refusals only.
        Stage::Sync => Err("an accepted sync entry in the log: sync only logs refusals".into()),
    }
}

/// A user's edit needs no source — the user's word is its source — but its version must
/// show exactly what it says it did.
fn user_edit(e: &Evidence<'_>) -> Result<(), String> {
    let Evidence { m, before, after, .. } = *e;
    if m.kind == MutationKind::Erase {
        let all_gone = m
            .refs
            .from_ids
            .iter()
            .all(|id| after.get(id).is_none_or(|i| !i.active && i.text == crate::store::erase::ERASED));
        return if all_gone { Ok(()) } else { Err("an erase whose version still shows an erased fact".into()) };
    }
    let was = active(before, &m.item_id, "before the edit")?;
    let now = after.get(&m.item_id).ok_or_else(|| format!("{} is not in its version", m.item_id))?;
    match m.kind {
        MutationKind::Pin if now.pinned && now.active => Ok(()),
        MutationKind::Unpin if !now.pinned && now.active => Ok(()),
        MutationKind::Forget if !now.active => Ok(()),
        MutationKind::Erase if !now.active && now.text == crate::store::erase::ERASED => Ok(()),
        MutationKind::Correct => {
            let new_id = m.refs.superseded_by.as_deref().ok_or("a correction names no new fact")?;
            let new = after
                .get(new_id)
                .filter(|i| i.active)
                .ok_or_else(|| format!("{new_id} is not active after the correction"))?;
            if now.active || now.superseded_by.as_deref() != Some(new_id) {
                return Err(format!("{} was not closed by {new_id}", was.item_id));
            }
            if m.refs.merged_text.as_deref() != Some(new.text.as_str()) {
                return Err(format!("{new_id}'s text is not the correction the log records"));
            }
            Ok(())
        }
        kind => Err(format!("a user {kind} that its version does not show")),
    }
}

fn encoded(e: &Evidence<'_>) -> Result<(), String> {
    let Evidence { m, after, .. } = *e;
    let user_lines = e.user_lines(None);
    let item = after.get(&m.item_id).ok_or_else(|| format!("{} is not in its version", m.item_id))?;
    let cov = textmath::coverage(&item.text, user_lines.iter().map(String::as_str));
    if !cov.missing.is_empty() {
        return Err(format!("stored text has tokens in no user turn: {}", cov.missing.join(", ")));
    }
    let names = textmath::new_proper_nouns(&item.text, user_lines.iter().map(String::as_str));
    if !names.is_empty() {
        return Err(format!("stored text names {} absent from the transcript", names.join(", ")));
    }
    let said = e.user_lines(m.refs.source_turn.or(item.source_turn));
    let said: Vec<&str> = said.iter().map(String::as_str).collect();
    polarity::keeps_polarity(&item.text, &said, "the user said", "the stored fact").map_err(String::from)
}

fn dropped(e: &Evidence<'_>) -> Result<(), String> {
    let Evidence { m, before, after, policy, .. } = *e;
    let keeper_id = m.refs.duplicate_of.as_deref().ok_or("a drop without duplicateOf")?;
    if keeper_id == m.item_id {
        return Err("dropped as a duplicate of itself".into());
    }
    let item = active(before, &m.item_id, "before the pass")?;
    let keeper = active(before, keeper_id, "before the pass")?;
    let sim = textmath::similarity(&item.text, &keeper.text);
    if !textmath::reaches(sim, policy.similarity_threshold) {
        return Err(format!(
            "re-measured similarity {sim:.3} with {keeper_id} is below {}",
            policy.similarity_threshold
        ));
    }
    if after.get(&m.item_id).is_some_and(|i| i.active) {
        return Err("still active after being dropped".into());
    }
    if !after.get(keeper_id).is_some_and(|i| i.active) {
        return Err(format!("its keeper {keeper_id} is not active after the pass (a chain)"));
    }
    Ok(())
}

fn merged(e: &Evidence<'_>) -> Result<(), String> {
    let Evidence { m, before, after, .. } = *e;
    let merged = m.refs.merged_text.as_deref().ok_or("a merge without mergedText")?;
    let into = active(before, &m.item_id, "before the merge")?;
    let mut sources = vec![into];
    for id in &m.refs.from_ids {
        sources.push(active(before, id, "before the merge")?);
    }
    if m.refs.from_ids.is_empty() {
        return Err("a merge without sources".into());
    }
    if let Some(s) = sources.iter().find(|s| s.block != into.block) {
        return Err(format!("sources span blocks ({} is in {})", s.item_id, s.block));
    }
    let texts: Vec<&str> = sources.iter().map(|s| s.text.as_str()).collect();
    // A day a source names, written out, is the source's own words (`text::dated`).
    let written: Vec<String> = sources.iter().map(|s| crate::text::dated::absolute(&s.text, s.created_at)).collect();
    let vocabulary: Vec<&str> = texts.iter().copied().chain(written.iter().map(String::as_str)).collect();
    let cov = textmath::coverage(merged, vocabulary.iter().copied());
    if !cov.missing.is_empty() {
        return Err(format!("merged text has tokens in no source: {}", cov.missing.join(", ")));
    }
    let names = textmath::new_proper_nouns(merged, vocabulary.iter().copied());
    if !names.is_empty() {
        return Err(format!("merged text names {} absent from its sources", names.join(", ")));
    }
    polarity::keeps_polarity(merged, &texts, "a source says", "the merged text")?;
    if after.get(&m.item_id).map(|i| i.text.as_str()) != Some(merged) {
        return Err("the stored text is not the merged text".into());
    }
    Ok(())
}

fn promoted(e: &Evidence<'_>) -> Result<(), String> {
    let Evidence { m, before, after, .. } = *e;
    let to = m.refs.to_block.as_deref().ok_or("a promotion without toBlock")?;
    if !PROMOTION_BLOCKS.contains(&to) {
        return Err(format!("promoted to '{to}', which is not a promotion block"));
    }
    let item = active(before, &m.item_id, "before the promotion")?;
    if item.block.as_str() == to {
        return Err(format!("was already in {to}"));
    }
    if after.get(&m.item_id).map(|i| i.block.as_str()) != Some(to) {
        return Err(format!("is not in {to} after the pass"));
    }
    Ok(())
}

fn forgotten(e: &Evidence<'_>) -> Result<(), String> {
    let Evidence { m, before, after, policy, .. } = *e;
    let item = active(before, &m.item_id, "before it was forgotten")?;
    // A commitment past its date and grace lost its protection; nothing else protected may go.
    let due = item.is_commitment()
        && policy.commitment_grace_days.is_some_and(|grace| {
            item.when().is_some_and(|w| (m.at - w.last().plus_days(1).start()) as f64 / 86_400.0 > grace)
        });
    let passing = policy.transient_grace_days.is_some_and(|grace| {
        crate::text::transient::horizon(&item.text, item.created_at)
            .is_ok_and(|until| (m.at - until.plus_days(1).start()) as f64 / 86_400.0 >= grace)
    });
    if policy.is_protected(&item.category) && !due && !passing {
        return Err(format!("forgot a protected '{}' fact", item.category));
    }
    let age = (m.at - item.created_at) as f64 / 86_400.0;
    let stale = policy.stale_after_days.is_some_and(|days| age > days);
    let capacity = {
        let live: Vec<&Item> = before.values().filter(|i| i.active).collect();
        let excess = live.len().saturating_sub(policy.max_active_facts.unwrap_or(usize::MAX));
        let mut ranked: Vec<(f64, &Item)> = live
            .into_iter()
            .filter(|i| !policy.is_protected(&i.category))
            .map(|i| (salience(i, &policy.protected_categories, policy.stale_after_days, m.at), i))
            .collect();
        order::sort_by(&mut ranked, |a, b| {
            a.0.total_cmp(&b.0).then(a.1.created_at.cmp(&b.1.created_at)).then(a.1.ordinal().cmp(&b.1.ordinal()))
        });
        ranked.iter().take(excess).any(|(_, i)| i.item_id == m.item_id)
    };
    match m.policy.as_deref() {
        Some("stale") if stale => {}
        Some("capacity") if capacity => {}
        Some("due") if due => {}
        Some("transient") if passing => {}
        Some(p) => {
            return Err(format!(
                "recorded under '{p}' but the item is {age:.1}d old and {}in the overflow set",
                if capacity { "" } else { "not " }
            ))
        }
        None => return Err("no verified policy recorded".into()),
    }
    if after.get(&m.item_id).is_some_and(|i| i.active) {
        return Err("still active after being forgotten".into());
    }
    Ok(())
}

fn superseded(e: &Evidence<'_>) -> Result<(), String> {
    let Evidence { m, before, after, .. } = *e;
    let new_id = m.refs.superseded_by.as_deref().ok_or("a supersession without supersededBy")?;
    let old = active(before, &m.item_id, "before it was superseded")?;
    let new = active(before, new_id, "before it superseded another")?;
    if old.block != new.block {
        return Err(format!("superseded across blocks ({} and {})", old.block, new.block));
    }
    if (new.created_at, new.ordinal()) <= (old.created_at, old.ordinal()) {
        return Err(format!("{new_id} is not newer than {}", m.item_id));
    }
    supersede_basis_holds(e, old, new)?;
    match after.get(&m.item_id) {
        Some(i) if !i.active && i.valid_to.is_some() && i.superseded_by.as_deref() == Some(new_id) => {}
        _ => return Err("the old fact is not closed (inactive, validTo, supersededBy) after the pass".into()),
    }
    Ok(())
}

/// Re-checks the recorded basis of a supersession (not today's slot list, so editing the
/// policy later never turns a past acceptance into a problem).
fn supersede_basis_holds(e: &Evidence<'_>, old: &Item, new: &Item) -> Result<(), String> {
    let threshold = e.policy.similarity_threshold;
    let (a, b) = (textmath::content_tokens(&old.text), textmath::content_tokens(&new.text));
    let conflict = || {
        if textmath::conflicts(&a, &b, threshold) {
            Ok(())
        } else {
            Err(format!("re-measured, {} and {} are not a conflict", old.item_id, new.item_id))
        }
    };
    match &e.m.refs.basis {
        // Logged before the basis was recorded: the conflict rule of its time.
        None => conflict(),
        Some(SupersedeBasis::Polarity) => {
            let sim = textmath::similarity(&old.text, &new.text);
            if !textmath::reaches(sim, threshold) || !polarity::opposite(&old.text, &new.text) {
                return Err(format!(
                    "recorded as the opposite statement, but similarity is {sim:.3} and polarity {}",
                    if polarity::opposite(&old.text, &new.text) { "differs" } else { "is the same" }
                ));
            }
            Ok(())
        }
        Some(SupersedeBasis::Slot { slot }) => {
            conflict()?;
            let (was, is) = (frame::frames(&old.text), frame::frames(&new.text));
            let one = was
                .first()
                .is_some_and(|o| is.iter().any(|n| o.subject.same(&n.subject) || n.subject.member_of(&o.subject)));
            let words = |t: &str| textmath::tokens(slot).iter().all(|w| textmath::tokens(t).contains(w));
            match (slots::slot_fill(&old.text, slot), slots::slot_fill(&new.text, slot)) {
                (Some(x), Some(y)) if x.holder == y.holder => Ok(()),
                _ if one && words(&old.text) && words(&new.text) => Ok(()),
                _ => Err(format!(
                    "recorded under the slot \"{slot}\", which the two facts do not both fill for one holder"
                )),
            }
        }
        Some(SupersedeBasis::Role { referent, role }) => {
            let (was, is) = (frame::frames(&old.text), frame::frames(&new.text));
            let one = was
                .first()
                .is_some_and(|o| is.iter().any(|n| o.subject.same(&n.subject) || n.subject.member_of(&o.subject)));
            if one {
                Ok(())
            } else {
                Err(format!(
                    "recorded as a new value of {referent}'s {role}, but the two facts are not about one referent"
                ))
            }
        }
        Some(SupersedeBasis::Ended { thing, verb }) => {
            if frame::frames(&new.text).iter().any(|n| frame::ending(n).as_deref() == Some(verb.as_str())) {
                Ok(())
            } else {
                Err(format!("recorded as ending {thing} (\"{verb}\"), but no clause of the newer fact says \"{verb}\""))
            }
        }
        Some(SupersedeBasis::While { phrase }) => {
            let bounded = frame::frames(&old.text).first().and_then(|o| o.bounded.clone());
            if bounded.as_deref() == Some(phrase.as_str()) {
                Ok(())
            } else {
                Err(format!("recorded as said for a while (\"{phrase}\"), but the older fact does not say so"))
            }
        }
        Some(SupersedeBasis::Change { cue }) => {
            // Said in a clause of the newer fact about the older one's referent.
            let was = frame::frames(&old.text);
            let said = frame::frames(&new.text).into_iter().any(|n| {
                n.change.contains(cue)
                    && was.first().is_some_and(|o| o.subject.same(&n.subject) || n.subject.member_of(&o.subject))
            });
            if said {
                return Ok(());
            }
            conflict()?;
            let source = new.source_turn.and_then(|i| e.transcript.iter().find(|t| t.index == i));
            let subject: Vec<String> = a.intersection(&b).cloned().collect();
            let stated = std::iter::once(new.text.as_str())
                .chain(source.map(|t| t.text.as_str()))
                .flat_map(polarity::clauses)
                .filter(|c| textmath::tokens(c).iter().any(|t| subject.contains(t)))
                .any(|c| polarity::change_cues(c).contains(cue));
            if stated {
                Ok(())
            } else {
                Err(format!("recorded as a stated change (\"{cue}\"), but no clause sharing the subject says it"))
            }
        }
    }
}

/// The no-invention sweep: every active fact must be fully traceable to the user's
/// turns, name no one absent from them, and keep the polarity of what the user said. Returns (traceable, active, offenders).
pub async fn sweep<S: Store>(store: &S) -> Result<(usize, usize, Vec<String>), StoreError> {
    let transcript = store.transcript().await?;
    // The user's words: what they said in chat, and the corrections they typed.
    let log = store.mutations().await?;
    let corrections: Vec<&str> = log
        .iter()
        .filter(|m| m.accepted && m.pass == Stage::User && m.kind == MutationKind::Correct)
        .filter_map(|m| m.refs.merged_text.as_deref())
        .collect();
    let said: Vec<String> = transcript.iter().filter(|t| t.role == Role::User).map(Turn::said).collect();
    // A day a turn names, written out (`yesterday` said on 29 Nov → `29 Nov 2026`), is its
    // words too: a merge of facts said on different days writes such days out.
    let dated: Vec<String> = transcript
        .iter()
        .filter(|t| t.role == Role::User)
        .map(|t| crate::text::dated::absolute(&t.said(), t.at))
        .filter(|d| !said.contains(d))
        .collect();
    let lines: Vec<&str> = said.iter().chain(&dated).map(String::as_str).chain(corrections.iter().copied()).collect();
    let vocab = textmath::vocabulary(lines.iter().copied());
    let names = textmath::capitalised_words(lines.iter().copied());
    let items = store.items().await?;
    let live: Vec<&Item> = items.iter().filter(|i| i.active).collect();
    let mut offenders = Vec::new();
    for item in &live {
        let cov = textmath::coverage_in(&item.text, &vocab);
        let new: Vec<String> = textmath::proper_nouns(&item.text).into_iter().filter(|n| !names.contains(n)).collect();
        if !cov.missing.is_empty() || !new.is_empty() {
            offenders.push(format!(
                "{} ({})",
                item.item_id,
                cov.missing.iter().chain(new.iter()).cloned().collect::<Vec<_>>().join(", ")
            ));
        } else if let Err(why) = polarity::keeps_polarity(&item.text, &lines, "the user said", "it") {
            offenders.push(format!("{} (inverts what was said: {why})", item.item_id));
        }
    }
    Ok((live.len() - offenders.len(), live.len(), offenders))
}
