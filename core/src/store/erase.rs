//! Erase: the one way anything is deleted. The user's words that must not be kept are
//! removed from every row that holds them, in every version — items, change rows,
//! mutations and their raw proposals, the transcript (only the sentences, or the
//! statements of a sentence, that hold them become `[erased]`, so other facts said in the
//! same turn stay traceable) — and a
//! tombstone (when, which ids, by the user) is all that remains.
//!
//! What is erased is the fact's *secret*: its content words that no unrelated active fact
//! holds. Every text holding one is a copy — the same words said twice, an assistant reply
//! quoting them, a duplicate Dedupe dropped, a merge or correction built on them — and goes
//! too. Planned here as a pure function over the export document; a store writes the
//! result in one atomic replace.

use crate::model::memory::{Item, Mutation, Proposer, Refs, Version};
use crate::model::pass::{MutationKind, Stage};
use crate::store::document::{Change, Document};
use crate::text::textmath::{content_tokens, similarity};
use serde_json::Value;
use std::collections::BTreeSet;

/// What erasing put in place of the words.
pub const ERASED: &str = "[erased]";

/// What an erase did, for the person who asked (never the text itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Erased {
    /// Every fact that held the words, now `[erased]` and inactive in every version.
    pub item_ids: Vec<String>,
    /// Rows rewritten: item rows, change rows, mutations and turns.
    pub rows: usize,
    /// How many distinct words were erased.
    pub words: usize,
}

/// `doc` with `item_id`'s words erased everywhere and a tombstone version at `now`; or why
/// not (no such fact; or every word of it is also held by unrelated facts).
pub fn erase(doc: &Document, item_id: &str, now: i64) -> Result<(Document, Erased), EraseError> {
    let target = doc.items.iter().find(|i| i.item_id == item_id);
    let target = target.ok_or_else(|| EraseError::NoFact(item_id.to_string()))?;
    if target.text == ERASED {
        return Err(EraseError::Erased(item_id.to_string()));
    }
    let secret = secret_words(doc, target);
    if secret.is_empty() {
        return Err(EraseError::Shared(item_id.to_string()));
    }
    let holds = |text: &str| content_tokens(text).iter().any(|t| secret.contains(t));
    let mut out = doc.clone();
    let mut rows = 0;
    let mut ids = BTreeSet::new();
    let erase_item = |item: &mut Item| -> bool {
        if !holds(&item.text) {
            return false;
        }
        item.text = ERASED.into();
        item.active = false;
        item.pinned = false;
        true
    };
    let mut changed_live = Vec::new();
    for item in &mut out.items {
        if erase_item(item) {
            item.updated_at = now;
            ids.insert(item.item_id.clone());
            changed_live.push(item.clone());
            rows += 1;
        }
    }
    for change in &mut out.changes {
        if erase_item(&mut change.item) {
            ids.insert(change.item.item_id.clone());
            rows += 1;
        }
    }
    for m in &mut out.mutations {
        if redact_mutation(m, &holds) {
            rows += 1;
        }
    }
    for turn in &mut out.transcript {
        if holds(&turn.text) {
            turn.text = redact_sentences(&turn.text, &holds);
            rows += 1;
        }
    }
    let ids: Vec<String> = ids.into_iter().collect();
    tombstone(&mut out, item_id, &ids, changed_live, now);
    out.check().map_err(EraseError::Check)?;
    Ok((out, Erased { item_ids: ids, rows, words: secret.len() }))
}

/// Why a fact cannot be erased (nothing was): the fact's id, or the check the erased memory
/// failed (its error as the source).
#[derive(Debug)]
pub enum EraseError {
    NoFact(String),
    Erased(String),
    /// Every word of it is in other facts: erasing it would erase them.
    Shared(String),
    Check(super::document::DocumentError),
}

impl std::fmt::Display for EraseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EraseError::NoFact(id) => write!(f, "there is no fact {id}"),
            EraseError::Erased(id) => write!(f, "{id} is already erased"),
            EraseError::Shared(id) => write!(
                f,
                "every word of {id} is also in other facts, so erasing it would erase them too; edit or erase those first"
            ),
            EraseError::Check(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for EraseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EraseError::Check(e) => Some(e),
            _ => None,
        }
    }
}

/// The target's content words that no unrelated active fact holds. Unrelated: sharing
/// less than half the target's words (a copy or a restatement is not unrelated).
fn secret_words(doc: &Document, target: &Item) -> BTreeSet<String> {
    let mut secret = content_tokens(&target.text);
    for other in doc.items.iter().filter(|i| i.active && i.item_id != target.item_id) {
        if similarity(&target.text, &other.text) < 0.5 {
            for t in content_tokens(&other.text) {
                secret.remove(&t);
            }
        }
    }
    secret
}

/// Redacts every text of a log entry that holds the words; whether anything changed.
fn redact_mutation(m: &mut Mutation, holds: &dyn Fn(&str) -> bool) -> bool {
    let mut changed = false;
    let mut fix = |s: &mut String| {
        if holds(s) {
            *s = ERASED.into();
            changed = true;
        }
    };
    fix(&mut m.reason);
    if let Some(r) = m.rejection_reason.as_mut() {
        fix(r);
    }
    if let Some(t) = m.refs.merged_text.as_mut() {
        fix(t);
    }
    if let Some(t) = m.refs.previous_text.as_mut() {
        fix(t);
    }
    if let Some(p) = m.refs.proposal.as_mut() {
        changed |= redact_json(p, holds);
    }
    changed
}

fn redact_json(v: &mut Value, holds: &dyn Fn(&str) -> bool) -> bool {
    match v {
        Value::String(s) if holds(s) => {
            *s = ERASED.into();
            true
        }
        Value::Array(a) => a.iter_mut().fold(false, |acc, x| redact_json(x, holds) | acc),
        Value::Object(o) => o.values_mut().fold(false, |acc, x| redact_json(x, holds) | acc),
        _ => false,
    }
}

/// The turn with only the sentences that hold the words replaced.
fn redact_sentences(text: &str, holds: &dyn Fn(&str) -> bool) -> String {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        current.push(c);
        if matches!(c, '.' | '!' | '?' | ';' | '\n') {
            out.push(std::mem::take(&mut current));
        }
    }
    out.push(current);
    out.into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .map(|s| if holds(&s) { redact_statements(&s, holds) } else { s })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A sentence holding the words: only the statements of it that hold them become
/// `[erased]` (`I live in Ghent and [erased].`), so another fact said in the same sentence
/// stays traceable; a sentence that is one statement is erased whole.
fn redact_statements(sentence: &str, holds: &dyn Fn(&str) -> bool) -> String {
    let Some(spans) = crate::text::statements::standalone_spans(sentence) else { return ERASED.to_string() };
    let mut out = String::new();
    let mut at = 0;
    for span in spans {
        let start = span.as_ptr() as usize - sentence.as_ptr() as usize;
        out.push_str(&sentence[at..start]);
        out.push_str(if holds(span) { ERASED } else { span });
        at = start + span.len();
    }
    out.push_str(&sentence[at..]);
    out
}

/// Appends the tombstone: a version `user:erase` holding the erased live rows, and a
/// mutation by the user naming the ids — no text.
fn tombstone(doc: &mut Document, target: &str, ids: &[String], changed_live: Vec<Item>, now: i64) {
    let seq = doc.meta.head + 1;
    let active = doc.items.iter().filter(|i| i.active).count();
    doc.versions.push(Version {
        seq,
        label: crate::model::label::Label::User("erase".into()).to_string(),
        at: now,
        active_count: active,
        changed: changed_live.len(),
    });
    for item in changed_live {
        doc.changes.push(Change { seq, item });
    }
    // The counter holds the last id given (as `plan_rows` counts).
    let id = doc.meta.next_mutation + 1;
    doc.mutations.push(Mutation {
        id,
        seq,
        pass: Stage::User,
        kind: MutationKind::Erase,
        item_id: target.to_string(),
        refs: Refs { from_ids: ids.to_vec(), ..Default::default() },
        accepted: true,
        reason: String::new(),
        rejection_reason: None,
        policy: None,
        proposer: Proposer::User,
        at: now,
    });
    doc.meta.next_mutation = id;
    doc.meta.head = seq;
    doc.meta.active_count = active;
}
