//! What a turn kept, and what it did not and why: every statement of the user's that
//! stored no fact has a logged reason — the gate's refusal of the fact proposed from it,
//! or else a `skip` naming the rule that decided (chatter, a message too long to encode,
//! nothing proposed) — and every sentence that is no statement (a question, a request to
//! the assistant, a command about the memory: `text::act`) a `skip` with the rule `act`
//! saying what it is, so nothing said is lost without a word, and a reply the code writes
//! says what was kept instead of a blanket "noted".
//!
//! ```
//! use nocturne_core::flow::kept::{unkept, note};
//! use nocturne_core::model::memory::{Role, Turn};
//! let turn = Turn { index: 0, role: Role::User, text: "Thanks! I'm vegan. Tell me about Miso.".into(), at: 0,
//!     speaker: None, memory: None, source: None, provenance: None };
//! let skipped = unkept(&[turn], &[], &[], &[], 0);
//! assert_eq!(skipped.len(), 3);
//! assert!(skipped[0].rejection_reason.as_deref().unwrap().contains("thanks"));
//! assert_eq!(skipped[2].policy.as_deref(), Some("act"));
//! assert!(skipped[2].rejection_reason.as_deref().unwrap().contains("a request to the assistant"));
//! assert!(note(&[], &skipped).starts_with("Nothing kept"));
//! ```

use crate::model::memory::{Item, Mutation, Proposer, Refs, Role, Turn};
use crate::model::pass::{MutationKind, PassKind};
use crate::text::{act, split, textmath, worth};

/// A message longer than this (characters) is kept in the conversation but not encoded:
/// a pasted page is no statement about anyone, and no model reads it whole in one call.
pub const ENCODE_MAX_CHARS: usize = 2_000;

/// Why a statement stored nothing: the rule's name as logged (`policy`), and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unkept {
    pub rule: &'static str,
    pub reason: String,
    pub proposer: Proposer,
}

/// The `skip` records for the user's statements in `turns` (and the whole of each turn in
/// `too_long`) that none of `kept` came from and no refusal in `verdicts` already explains:
/// chatter and greetings (`text::worth`), or a statement the encoder proposed nothing for;
/// and one for each sentence that is no statement, saying what it is (`text::act`).
pub fn unkept(turns: &[Turn], too_long: &[Turn], kept: &[Item], verdicts: &[Mutation], now: i64) -> Vec<Mutation> {
    let mut out = Vec::new();
    for t in too_long.iter().filter(|t| t.role == Role::User) {
        let chars = t.text.chars().count();
        let why = Unkept {
            rule: "too-long",
            reason: format!(
                "the message is {chars} characters long, past the {ENCODE_MAX_CHARS} the encoder reads at once: it stays in the conversation, no fact was stored (send it as shorter messages)"
            ),
            proposer: Proposer::EncodeRule,
        };
        out.push(record(t.index, &why, now));
    }
    for t in turns.iter().filter(|t| t.role == Role::User) {
        let from_turn: Vec<&Item> = kept.iter().filter(|i| i.source_turn == Some(t.index)).collect();
        for said in act::turn(&t.text) {
            // A chat turn's `remind me to …` kept as the user's own fact says so itself.
            let kept_as_asked =
                matches!(said.reading.act, act::Act::Command(act::CommandKind::Remind | act::CommandKind::Remember))
                    && from_turn.iter().any(|i| crate::text::textmath::coverage(&i.text, [said.sentence]).is_full());
            if !said.reading.is_statement() && !kept_as_asked {
                out.push(record(t.index, &not_a_statement(&said), now));
            }
            for piece in said.stated.iter().flat_map(|s| split::split(s)) {
                if !piece.span.chars().any(char::is_alphanumeric)
                    || from_turn.iter().any(|i| covers(&i.text, &piece.text))
                {
                    continue;
                }
                let why = why_unkept(&piece.text, verdicts);
                if why.rule != "gate" {
                    out.push(record(t.index, &why, now));
                }
            }
        }
    }
    out
}

/// Why a sentence that is no statement stored nothing: what it is, by the rule `act`.
fn not_a_statement(said: &act::Said<'_>) -> Unkept {
    let quoted = said.sentence.trim_end_matches('.');
    let done = match said.reading.act {
        act::Act::Question => "it is answered from memory, not stored",
        act::Act::Request => "it is answered, not stored",
        act::Act::Command(_) => {
            "not encoded as a fact: in the chat, what it does to the memory is shown under the turn"
        }
        act::Act::Statement => "it is stored",
    };
    Unkept {
        rule: "act", reason: format!("“{quoted}” is {}: {done}", said.reading), proposer: Proposer::EncodeRule
    }
}

/// Whether a stored fact says `statement` (the user's words, or a model's restatement of
/// them: most of the shorter side's words in common).
fn covers(fact: &str, statement: &str) -> bool {
    textmath::similarity(fact, statement) >= 0.5
}

/// Why `statement` stored no fact.
pub fn why_unkept(statement: &str, verdicts: &[Mutation]) -> Unkept {
    let quoted = statement.trim_end_matches('.');
    if textmath::content_tokens(statement).is_empty() {
        return Unkept {
            rule: "worth", reason: format!("“{quoted}” states nothing"), proposer: Proposer::EncodeRule
        };
    }
    if let Err(chatter) = worth::informative(statement) {
        return Unkept { rule: "worth", reason: format!("“{quoted}” {chatter}"), proposer: Proposer::EncodeRule };
    }
    let refused = verdicts.iter().filter(|m| !m.accepted).find(|m| {
        let text = m.refs.proposal.as_ref().and_then(|p| p.get("text")).and_then(|t| t.as_str()).unwrap_or("");
        !text.is_empty() && covers(text, statement)
    });
    match refused.and_then(|m| m.rejection_reason.as_deref()) {
        Some(gate) => Unkept {
            rule: "gate",
            reason: format!("the fact proposed from “{quoted}” was refused: {gate}"),
            proposer: Proposer::Model,
        },
        None => Unkept {
            rule: "not-proposed",
            reason: format!("the encoder proposed no fact from “{quoted}”"),
            proposer: Proposer::Model,
        },
    }
}

fn record(turn: u32, why: &Unkept, now: i64) -> Mutation {
    Mutation {
        id: 0,
        seq: 0,
        pass: PassKind::Encode.into(),
        kind: MutationKind::Skip,
        item_id: String::new(),
        refs: Refs { source_turn: Some(turn), ..Default::default() },
        accepted: false,
        reason: "not kept".into(),
        rejection_reason: Some(why.reason.clone()),
        policy: Some(why.rule.into()),
        proposer: why.proposer,
        at: now,
    }
}

/// What a turn kept and did not, in a sentence or two: the reply the code writes where a
/// model would only have said "noted". `verdicts`: the turn's refusals and skips.
pub fn note(kept: &[Item], verdicts: &[Mutation]) -> String {
    let mut out = match kept.len() {
        0 => "Nothing kept.".to_string(),
        n => {
            let facts: Vec<String> = kept.iter().map(|i| format!("“{}”", i.text.trim_end_matches('.'))).collect();
            format!("Kept {n} fact{}: {}.", if n == 1 { "" } else { "s" }, facts.join(", "))
        }
    };
    // A copy of a kept fact the model proposed again is in the log, not in the reply: what
    // it says was kept.
    let repeats = |m: &Mutation| {
        let text = m.refs.proposal.as_ref().and_then(|p| p.get("text")).and_then(|t| t.as_str());
        text.is_some_and(|t| kept.iter().any(|i| textmath::wording(&i.text) == textmath::wording(t)))
    };
    let reasons: Vec<&str> =
        verdicts.iter().filter(|m| !m.accepted && !repeats(m)).filter_map(|m| m.rejection_reason.as_deref()).collect();
    if !reasons.is_empty() {
        out.push_str(&format!(" Not kept: {}.", reasons.join("; ")));
    }
    out
}
