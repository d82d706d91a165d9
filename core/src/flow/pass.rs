//! A pass as a plain function: pre-pass state + proposals in, a [`Plan`] of judged edits
//! and the rows they change out. No IO; drive it from a test with any proposals.

use crate::flow::rules;
use crate::gate::{Edit, Ground, Judge, Verdict};
use crate::model::candidate::Candidates;
use crate::model::label::Label;
use crate::model::memory::{Item, Mutation, Proposer, Refs, Turn, Version};
use crate::model::pass::{PassKind, Stage};
use crate::model::policy::RetentionPolicy;
use crate::text::order;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};

/// One judged proposal.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub proposer: Proposer,
    pub proposal: Value,
    pub verdict: Verdict,
}

/// Everything one pass decided.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub pass: PassKind,
    pub outcomes: Vec<Outcome>,
    /// New rows of every item the accepted edits changed, in id order.
    pub changed: Vec<Item>,
}

impl Plan {
    /// Proposals the model made.
    pub fn proposed(&self) -> usize {
        self.outcomes.iter().filter(|o| o.proposer == Proposer::Model).count()
    }
    /// Accepted edits, the model's and the engine's.
    pub fn accepted(&self) -> usize {
        self.outcomes.iter().filter(|o| o.verdict.is_accepted()).count()
    }
    /// Refused proposals.
    pub fn rejected(&self) -> usize {
        self.outcomes.iter().filter(|o| !o.verdict.is_accepted()).count()
    }
    /// Accepted edits an engine rule proposed.
    pub fn enforced(&self) -> usize {
        self.outcomes.iter().filter(|o| o.proposer.is_rule() && o.verdict.is_accepted()).count()
    }

    /// The audit log entries of this plan, accepted and refused (ids and seqs are
    /// assigned by the store).
    pub fn mutations(&self, items: &BTreeMap<String, Item>, now: i64) -> Vec<Mutation> {
        self.outcomes
            .iter()
            .map(|o| {
                let field = self.pass.item_field();
                let proposed_id = o.proposal.get(field).and_then(Value::as_str).unwrap_or("").to_string();
                let reason = o.proposal.get("reason").and_then(Value::as_str).unwrap_or("").to_string();
                let (item_id, refs, policy, rejection) = match &o.verdict {
                    Verdict::Accept(edit) => {
                        let (id, refs, policy) = refs_of(edit, items);
                        (id, refs, policy, None)
                    }
                    Verdict::Refuse(why) => (
                        proposed_id,
                        Refs { proposal: Some(o.proposal.clone()), ..Default::default() },
                        None,
                        Some(why.clone()),
                    ),
                };
                Mutation {
                    id: 0,
                    seq: 0,
                    pass: self.pass.into(),
                    kind: self.pass.mutation_kind(),
                    item_id,
                    refs,
                    accepted: rejection.is_none(),
                    reason,
                    rejection_reason: rejection,
                    policy,
                    proposer: o.proposer,
                    at: now,
                }
            })
            .collect()
    }
}

fn refs_of(edit: &Edit, items: &BTreeMap<String, Item>) -> (String, Refs, Option<String>) {
    match edit {
        Edit::Add { .. } => (String::new(), Refs::default(), None),
        Edit::Drop { item_id, duplicate_of, similarity } => (
            item_id.clone(),
            Refs { duplicate_of: Some(duplicate_of.clone()), similarity: Some(*similarity), ..Default::default() },
            Some("duplicate".into()),
        ),
        Edit::Merge { into_id, from_ids, merged_text } => (
            into_id.clone(),
            Refs {
                from_ids: from_ids.clone(),
                merged_text: Some(merged_text.clone()),
                previous_text: items.get(into_id).map(|i| i.text.clone()),
                ..Default::default()
            },
            None,
        ),
        Edit::Promote { item_id, from, to } => (
            item_id.clone(),
            Refs { from_block: Some(*from), to_block: Some(to.as_str().into()), ..Default::default() },
            None,
        ),
        Edit::Forget { item_id, rule, age_days } => (
            item_id.clone(),
            Refs { age_days: Some((age_days * 10.0).round() / 10.0), ..Default::default() },
            Some(rule.as_str().into()),
        ),
        Edit::Supersede { old_id, new_id, basis, .. } => (
            old_id.clone(),
            Refs {
                superseded_by: Some(new_id.clone()),
                basis: Some(basis.clone()),
                previous_text: items.get(old_id).map(|i| i.text.clone()),
                ..Default::default()
            },
            Some("superseded".into()),
        ),
        Edit::Cite { item_id } => (item_id.clone(), Refs::default(), None),
    }
}

/// Edits the user refused before, by what they do to which facts: rejected in a reviewed
/// plan (`flow::review`), or undone by a restore of a version before them. A later Sleep
/// proposing the same edit of the same facts — a model or an engine rule — is refused with
/// the user's reason, never applied again.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Refused {
    /// Edit key ([`edit_key`]) → why the user refused it.
    edits: BTreeMap<String, String>,
}

impl Refused {
    /// Reads what the log and the timeline say the user refused: each entry a reviewed plan
    /// logged as not approved by the user (with the user's reason), and each accepted Sleep
    /// edit a later `restore:vN` went back before.
    pub async fn read<S: crate::store::Store>(store: &S) -> Result<Refused, crate::store::StoreError> {
        Ok(Refused::from_log(&store.versions().await?, &store.mutations().await?))
    }

    /// [`Refused::read`] over a timeline and a log already read.
    pub fn from_log(versions: &[Version], log: &[Mutation]) -> Refused {
        let mut edits = BTreeMap::new();
        let restores: Vec<(u64, u64)> = versions
            .iter()
            .filter_map(|v| match v.kind() {
                Label::Restore(to) => Some((to, v.seq)),
                _ => None,
            })
            .collect();
        for m in log {
            let Stage::Pass(pass) = m.pass else { continue };
            if !m.accepted {
                // Rejected by name (`reject r2 "keep both"`); an edit left out of `only`
                // was not chosen this time, which is no refusal for good.
                let rejected = m.rejection_reason.as_deref().and_then(|r| r.strip_prefix(NOT_APPROVED));
                let Some(reason) = rejected.filter(|r| r.starts_with(": ") || r.starts_with(" (rejected")) else {
                    continue;
                };
                let Some(key) = m.refs.proposal.as_ref().and_then(|p| edit_key(pass, p)) else { continue };
                let plan = m.refs.review.as_deref().unwrap_or("a reviewed plan");
                edits.insert(key, format!("the user rejected it in {plan}{reason}"));
                continue;
            }
            let Some((to, at)) = restores.iter().find(|(to, at)| m.seq > *to && m.seq < *at) else { continue };
            if let Some(key) = accepted_key(pass, m) {
                edits
                    .entry(key)
                    .or_insert_with(|| format!("the user undid it: restore:v{to} (v{at}) went back before it"));
            }
        }
        Refused { edits }
    }

    /// Why the user refused `proposal` of `pass` before, if they did.
    pub fn of(&self, pass: PassKind, proposal: &Value) -> Option<&str> {
        self.edits.get(&edit_key(pass, proposal)?).map(String::as_str)
    }

    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }
}

/// How a reviewed plan logs an edit the user did not approve (`flow::review`).
pub const NOT_APPROVED: &str = "not approved by the user";

/// What an edit does to which facts, whatever its wording: `supersede m_1 m_2`, `merge
/// m_3 m_4,m_7`, `promote m_5 human`, `forget m_6`, `dedupe m_8 m_2`.
pub fn edit_key(pass: PassKind, proposal: &Value) -> Option<String> {
    let s = |k: &str| proposal.get(k).and_then(Value::as_str);
    Some(match pass {
        PassKind::Dedupe => format!("dedupe {} {}", s("itemId")?, s("duplicateOf")?),
        PassKind::Merge => {
            let mut from: Vec<&str> = proposal.get("fromIds")?.as_array()?.iter().filter_map(Value::as_str).collect();
            order::sort(&mut from);
            format!("merge {} {}", s("intoId")?, from.join(","))
        }
        PassKind::Supersede => format!("supersede {} {}", s("oldId")?, s("newId")?),
        PassKind::Promote => format!("promote {} {}", s("itemId")?, s("toBlock")?),
        PassKind::Forget => format!("forget {}", s("itemId")?),
        PassKind::Encode => return None,
    })
}

/// [`edit_key`] of an accepted log entry, read from what it recorded.
fn accepted_key(pass: PassKind, m: &Mutation) -> Option<String> {
    let id = m.item_id.as_str();
    let proposal = match pass {
        PassKind::Dedupe => serde_json::json!({"itemId": id, "duplicateOf": m.refs.duplicate_of.as_deref()?}),
        PassKind::Merge => serde_json::json!({"intoId": id, "fromIds": m.refs.from_ids}),
        PassKind::Supersede => serde_json::json!({"oldId": id, "newId": m.refs.superseded_by.as_deref()?}),
        PassKind::Promote => serde_json::json!({"itemId": id, "toBlock": m.refs.to_block.as_deref()?}),
        PassKind::Forget => serde_json::json!({"itemId": id}),
        PassKind::Encode => return None,
    };
    edit_key(pass, &proposal)
}

/// Inputs every pass shares.
#[derive(Clone, Copy, Debug)]
pub struct PassInput<'a> {
    /// The pre-pass store, every item by id.
    pub items: &'a BTreeMap<String, Item>,
    pub policy: &'a RetentionPolicy,
    pub now: i64,
    /// The engine's candidates: Dedupe's duplicate pairs, Supersede's conflicts.
    pub candidates: &'a Candidates,
    /// The stored conversation (Supersede looks for a change the user stated).
    pub turns: &'a [Turn],
    /// The ids the model was shown this pass, when it was not shown everything (an
    /// incremental Sleep); engine rules cover the rest.
    pub shown: Option<&'a HashSet<String>>,
    /// Edits the user refused before ([`Refused`]): refused again, with their reason.
    pub refused: Option<&'a Refused>,
}

impl PassInput<'_> {
    /// The verdict on `proposal`: refused with the user's reason when they refused the same
    /// edit before, else the gate's.
    fn verdict(&self, judge: &mut Judge<'_>, pass: PassKind, proposal: &Value) -> Verdict {
        match self.refused.and_then(|r| r.of(pass, proposal)) {
            Some(why) => Verdict::Refuse(format!("refused before by the user, not applied again: {why}")),
            None => judge.judge(proposal),
        }
    }
}

impl<'a> PassInput<'a> {
    /// The judge of pass `pass` over this input's memory, policy and clock.
    fn judge(&self, pass: PassKind) -> Judge<'a> {
        let ground =
            Ground { items: self.items, policy: self.policy, now: self.now, transcript: &[], turns: self.turns };
        Judge::new(pass, ground)
    }
}

/// Judges the model's proposals, then the engine rules, and applies what was accepted
/// to copies of the affected rows.
pub fn plan(pass: PassKind, input: PassInput<'_>, model: Vec<Value>) -> Plan {
    let mut judge = input.judge(pass);
    let mut model = model;
    if pass == PassKind::Promote {
        // Identity, preference and commitment facts are applied first.
        order::sort_by_key(&mut model, |p| {
            p.get("itemId")
                .and_then(Value::as_str)
                .and_then(|id| input.items.get(id))
                .map_or(2, |i| crate::model::memory::promotion_priority(&i.category))
        });
    }
    let mut outcomes = Vec::new();
    let mut adjudicated = HashSet::new();
    for proposal in model {
        if pass == PassKind::Dedupe {
            if let (Some(a), Some(b)) =
                (proposal.get("itemId").and_then(Value::as_str), proposal.get("duplicateOf").and_then(Value::as_str))
            {
                adjudicated.insert(rules::unordered(a, b));
            }
        }
        let verdict = input.verdict(&mut judge, pass, &proposal);
        outcomes.push(Outcome { proposer: Proposer::Model, proposal, verdict });
    }
    let enforced = match pass {
        PassKind::Dedupe => rules::duplicate_rule(&judge, input.candidates.duplicates(), &adjudicated),
        PassKind::Promote => rules::promotion_rule(&judge, input.items, input.policy),
        PassKind::Forget => {
            let mut first = rules::due_rule(&judge, input.items, input.policy, input.now);
            first.extend(rules::transient_rule(&judge, input.items, input.policy, input.now));
            first.extend(rules::staleness_rule(&judge, input.items, input.policy, input.now, input.shown));
            let mut out = Vec::new();
            for (proposer, proposal) in first {
                let verdict = input.verdict(&mut judge, pass, &proposal);
                outcomes.push(Outcome { proposer, proposal, verdict });
            }
            out.extend(rules::capacity_rule(&judge, input.items, input.policy, input.now));
            out
        }
        PassKind::Merge | PassKind::Encode | PassKind::Supersede => Vec::new(),
    };
    for (proposer, proposal) in enforced {
        let verdict = input.verdict(&mut judge, pass, &proposal);
        outcomes.push(Outcome { proposer, proposal, verdict });
    }
    let changed = apply(input.items, &outcomes, input.now);
    Plan { pass, outcomes, changed }
}

/// One proposal of a reviewed plan, applied again (`flow::review`): judged afresh, or
/// refused with `refusal` unjudged (an edit the user did not approve).
#[derive(Clone, Debug, PartialEq)]
pub struct Replay {
    pub proposer: Proposer,
    pub proposal: Value,
    pub refusal: Option<String>,
}

/// Judges `edits` in order against the memory as it is now — the proposals of a reviewed
/// plan, no engine rule run again — and applies what was accepted, like [`plan`].
pub fn replay(pass: PassKind, input: PassInput<'_>, edits: Vec<Replay>) -> Plan {
    let mut judge = input.judge(pass);
    let outcomes: Vec<Outcome> = edits
        .into_iter()
        .map(|e| {
            let verdict = match e.refusal {
                Some(why) => Verdict::Refuse(why),
                None => input.verdict(&mut judge, pass, &e.proposal),
            };
            Outcome { proposer: e.proposer, proposal: e.proposal, verdict }
        })
        .collect();
    let changed = apply(input.items, &outcomes, input.now);
    Plan { pass, outcomes, changed }
}

/// New rows for every item the accepted edits change.
pub fn apply(items: &BTreeMap<String, Item>, outcomes: &[Outcome], now: i64) -> Vec<Item> {
    let mut changed: BTreeMap<String, Item> = BTreeMap::new();
    let mut edit_row = |id: &str, f: &dyn Fn(&mut Item)| {
        if let Some(mut row) = changed.get(id).cloned().or_else(|| items.get(id).cloned()) {
            f(&mut row);
            row.updated_at = now;
            changed.insert(id.to_string(), row);
        }
    };
    for o in outcomes {
        let Verdict::Accept(edit) = &o.verdict else { continue };
        match edit {
            Edit::Add { .. } | Edit::Cite { .. } => {}
            Edit::Drop { item_id, .. } | Edit::Forget { item_id, .. } => edit_row(item_id, &|i| i.active = false),
            Edit::Merge { into_id, from_ids, merged_text } => {
                // The merged fact keeps who said each part (every source, once).
                let parts = std::iter::once(into_id).chain(from_ids).filter_map(|id| items.get(id));
                let sources = crate::model::provenance::union(parts.map(|i| (i.sources.as_slice(), i.created_at)));
                edit_row(into_id, &|i| {
                    i.text = merged_text.clone();
                    i.sources = sources.clone();
                });
                for id in from_ids {
                    edit_row(id, &|i| i.active = false);
                }
            }
            Edit::Promote { item_id, to, .. } => edit_row(item_id, &|i| i.block = *to),
            Edit::Supersede { old_id, new_id, valid_to, .. } => edit_row(old_id, &|i| {
                i.active = false;
                i.valid_to = Some(*valid_to);
                i.superseded_by = Some(new_id.clone());
            }),
        }
    }
    let mut out: Vec<Item> = changed.into_values().collect();
    order::sort_by_key(&mut out, Item::ordinal);
    out
}
