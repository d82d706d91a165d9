//! The encoder: the model asked for the facts of a turn's pending user turns (in free text,
//! or by choosing among the statements they offer), and every proposed fact, one statement
//! each and with its referent kept, gated against those turns before it is stored.

use crate::gate::{Edit, Ground, Judge, Verdict};
use crate::llm::prompt;
use crate::llm::provider::{self, ProposalStyle, Provider};
use crate::model::memory::{Block, Item, Mutation, Proposer, Refs, Role, Turn};
use crate::model::pass::{MutationKind, PassKind};
use crate::model::provenance::{Source, Trust};
use crate::text::statements;
use serde_json::Value;

/// Asks the model to encode `turns` and gates every proposed fact against them. Returns
/// the accepted items (ids from `first_id`), a mutation for every verdict, and how many
/// candidate statements a choosing model was offered. A model that chooses none stores
/// none: the code never falls back to storing every candidate.
pub async fn encode<P: Provider>(
    provider: &P,
    turns: &[Turn],
    first_id: u64,
    now: i64,
) -> Result<(Vec<Item>, Vec<Mutation>, usize), Unusable> {
    let style = provider.proposal_style();
    let unusable = |why: String| Unusable { why, in_free_text: style == ProposalStyle::FreeText };
    if turns.is_empty() {
        return Ok((Vec::new(), Vec::new(), 0));
    }
    let mut offered_count = 0;
    let request = match style {
        ProposalStyle::FreeText => prompt::encode_request(turns),
        ProposalStyle::Candidates => {
            let texts: Vec<&str> = turns.iter().filter(|t| t.role == Role::User).map(|t| t.text.as_str()).collect();
            let offered = statements::statements(&texts);
            if offered.is_empty() {
                // Questions and greetings only: nothing to remember, no call.
                return Ok((Vec::new(), Vec::new(), 0));
            }
            offered_count = offered.len();
            prompt::encode_choice_request(&offered)
        }
    };
    // A transport failure is no verdict on the style: it is reported, not retried.
    let completion =
        provider.complete(&request).await.map_err(|e| Unusable { why: e.to_string(), in_free_text: false })?;
    if completion.truncated {
        return Err(unusable("the encoder's reply was cut off at the token limit".into()));
    }
    let json = provider::extract_json(&completion.text).map_err(|e| unusable(e.into()))?;
    let proposals = provider::proposals(&json, PassKind::Encode.proposal_key()).map_err(|e| unusable(e.into()))?;
    let (items, mutations) = judge_facts(turns, &proposals, first_id, now);
    provider.observe_refusals(mutations.len(), mutations.iter().filter(|m| !m.accepted).count());
    Ok((items, mutations, offered_count))
}

/// Why the encoder could not be used.
#[derive(Clone, Debug, PartialEq)]
pub struct Unusable {
    pub why: String,
    /// A free-text reply cut off or not in the asked shape (it counts against free text);
    /// `false` for a transport failure, which says nothing about the style.
    pub in_free_text: bool,
}

/// Gates proposed facts against `turns` (the pure half of [`encode`]).
pub fn judge_facts(turns: &[Turn], proposals: &[Value], first_id: u64, now: i64) -> (Vec<Item>, Vec<Mutation>) {
    // A speaker's name is the source's own word (`Melanie: I painted a sunrise.`).
    let lines: Vec<String> = turns.iter().map(Turn::said).collect();
    let empty = Default::default();
    let policy = Default::default();
    let mut judge =
        Judge::new(PassKind::Encode, Ground { items: &empty, policy: &policy, now, transcript: &lines, turns });
    let source_turn = turns.last().map(|t| t.index);
    let mut next = first_id;
    let mut items = Vec::new();
    let mut mutations = Vec::new();
    // One fact, one statement: a proposed fact whose clauses each stand alone (`I live in
    // Ghent and my locker code is 4417`) is judged and stored as one fact per clause, so
    // each can be edited, erased or replaced alone.
    let proposals: Vec<Value> =
        proposals.iter().flat_map(one_statement_each).map(|p| keeps_referent(p, turns)).collect();
    for proposal in &proposals {
        let verdict = judge.judge(proposal);
        let mut m = Mutation {
            id: 0,
            seq: 0,
            pass: PassKind::Encode.into(),
            kind: MutationKind::Add,
            item_id: String::new(),
            refs: Refs { source_turn, ..Default::default() },
            accepted: verdict.is_accepted(),
            reason: "encoded from the conversation".into(),
            rejection_reason: verdict.refusal().map(String::from),
            policy: None,
            proposer: Proposer::Model,
            at: now,
        };
        match verdict {
            Verdict::Accept(Edit::Add { text, category, block }) => {
                let turn = best_source(turns, &text).or(source_turn);
                let said = turns.iter().find(|t| Some(t.index) == turn);
                let speaker = said.and_then(|t| t.speaker.clone());
                // A turn with a source was said when it claims (checked on arrival) and keeps who.
                let sources: Vec<Source> = said.and_then(|t| t.provenance.clone()).into_iter().collect();
                let at = said.filter(|t| t.provenance.is_some()).map_or(now, |t| t.at);
                // The trust policy: another source's fact is kept in scratch, never pinned.
                let outside = sources.iter().any(|s| !s.by.is_user()) && !Trust::OUTSIDE.enter_pinned;
                let block =
                    if outside && matches!(block, Block::Persona | Block::Human) { Block::Scratch } else { block };
                let item = Item {
                    item_id: format!("m_{next}"),
                    block,
                    text,
                    category,
                    source_turn: turn,
                    created_at: at,
                    updated_at: now,
                    active: true,
                    valid_from: Some(at),
                    valid_to: None,
                    superseded_by: None,
                    pinned: false,
                    speaker,
                    sources,
                };
                next += 1;
                m.item_id = item.item_id.clone();
                m.refs.source_turn = item.source_turn;
                items.push(item);
            }
            _ => m.refs.proposal = Some(proposal.clone()),
        }
        mutations.push(m);
    }
    (items, mutations)
}

/// `proposal` as one proposal per statement its text holds (itself when it holds one).
fn one_statement_each(proposal: &Value) -> Vec<Value> {
    let Some(text) = proposal.get("text").and_then(Value::as_str) else { return vec![proposal.clone()] };
    let pieces = statements::facts(text);
    if pieces.len() < 2 {
        return vec![proposal.clone()];
    }
    pieces
        .into_iter()
        .map(|piece| {
            let mut p = proposal.clone();
            p["text"] = Value::String(piece);
            p
        })
        .collect()
}

/// A proposed fact whose pronoun's antecedent is in its source turn, before the statement
/// it comes from, with the pronoun replaced by it (`I prefer it over coffee.` of `I drink
/// green tea in the afternoon; I prefer it over coffee.` → `I prefer green tea over
/// coffee.`): no stored fact says `it` of what it never names, unless the turn never did.
fn keeps_referent(mut proposal: Value, turns: &[Turn]) -> Value {
    let Some(text) = proposal.get("text").and_then(Value::as_str).map(str::to_string) else { return proposal };
    let Some(turn) = best_source(turns, &text).and_then(|i| turns.iter().find(|t| t.index == i)) else {
        return proposal;
    };
    let pieces: Vec<String> = crate::text::split::statements(&turn.text).into_iter().map(|p| p.text).collect();
    let cover = |p: &String| crate::text::textmath::coverage(&text, [p.as_str()]).score;
    let Some(at) = (0..pieces.len()).max_by(|a, b| cover(&pieces[*a]).total_cmp(&cover(&pieces[*b])).then(b.cmp(a)))
    else {
        return proposal;
    };
    let resolved = crate::text::antecedent::resolve_in(&text, &pieces[..at]);
    if resolved != text {
        proposal["text"] = Value::String(resolved);
    }
    proposal
}

/// The turn that covers most of `text`'s content tokens.
fn best_source(turns: &[Turn], text: &str) -> Option<u32> {
    turns
        .iter()
        .map(|t| (crate::text::textmath::coverage(text, [t.said().as_str()]).score, t.index))
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
        .map(|(_, i)| i)
}
