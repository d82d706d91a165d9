//! A chat turn: reply from memory, store both turns, encode the new user turns into
//! scratch through the encode gate (incrementally, with a cursor).

use crate::gate::{Edit, Ground, Judge, Verdict};
use crate::llm::context::MemoryIndex;
use crate::llm::prompt;
use crate::llm::provider::{self, ProposalStyle, Provider, ProviderError};
use crate::model::memory::{Item, Mutation, Proposer, Refs, Role, Turn, Version};
use crate::model::pass::{MutationKind, PassKind};
use crate::store::{Commit, Store, StoreError};
use crate::text::candidates;
use serde::Serialize;
use serde_json::Value;

/// How many earlier turns the chat prompt carries.
pub const HISTORY_TURNS: usize = 6;

/// What one chat turn did.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnOutcome {
    pub reply: String,
    /// Encoder verdicts for this turn, accepted and refused, as logged.
    pub encoded: Vec<Mutation>,
    /// The version the new facts were written in, if any were accepted.
    pub version: Option<Version>,
    /// The encoder failed (bad reply); the turns are kept and encoded with the next turn.
    pub encode_error: Option<String>,
    /// Candidate statements offered to a model that chooses (0 in free-text style).
    pub offered: usize,
}

/// A chat turn could not happen.
#[derive(Clone, Debug, PartialEq)]
pub enum ChatError {
    Store(StoreError),
    /// The model could not answer; nothing was stored.
    Provider(ProviderError),
    EmptyMessage,
}

impl std::fmt::Display for ChatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChatError::Store(e) => write!(f, "{e}"),
            ChatError::Provider(e) => write!(f, "{e} (nothing was stored)"),
            ChatError::EmptyMessage => write!(f, "the message is empty"),
        }
    }
}

impl std::error::Error for ChatError {}

impl From<StoreError> for ChatError {
    fn from(e: StoreError) -> Self {
        ChatError::Store(e)
    }
}

/// Replies to `text` from the active memory, then stores the turn and its encoded facts.
pub async fn chat_turn<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    text: &str,
    now: i64,
) -> Result<TurnOutcome, ChatError> {
    chat_turn_streaming(store, provider, text, now, &mut |_| {}).await
}

/// [`chat_turn`] for a turn said by `speaker` (a conversation that names its speakers):
/// the turn and every fact encoded from it keep the name.
pub async fn chat_turn_by<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    speaker: Option<&str>,
    text: &str,
    now: i64,
) -> Result<TurnOutcome, ChatError> {
    let reply = reply_streaming(store, provider, text, now, &mut |_| {}).await?;
    record_by(store, provider, speaker, text.trim(), &reply, now).await
}

/// [`chat_turn`], handing each piece of the reply to `on_delta` as it streams in.
pub async fn chat_turn_streaming<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    text: &str,
    now: i64,
    on_delta: &mut dyn FnMut(&str),
) -> Result<TurnOutcome, ChatError> {
    let reply = reply_streaming(store, provider, text, now, on_delta).await?;
    record(store, provider, text.trim(), &reply, now).await
}

/// The first half of a turn, which writes nothing: the model's reply to `text` from the
/// active memory and recent turns. The app runs it outside the write lock, then
/// [`record`]s the turn under it.
pub async fn reply_streaming<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    text: &str,
    now: i64,
    on_delta: &mut dyn FnMut(&str),
) -> Result<String, ChatError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(ChatError::EmptyMessage);
    }
    let transcript = store.transcript().await?;
    let mut memory: Vec<Item> = store.items().await?.into_iter().filter(|i| i.active).collect();
    memory.sort_by_key(|i| (i.block, i.ordinal()));
    let refs: Vec<&Item> = memory.iter().collect();
    let history = &transcript[transcript.len().saturating_sub(HISTORY_TURNS)..];
    // Each fact is also found by the words of the conversation it was said in.
    let index = MemoryIndex::new(&refs, &store.meta().await?.policy, now).with_context(&transcript);
    Ok(provider
        .complete_streaming(&prompt::chat_request_indexed(&index, history, text, provider.memory_tokens()), on_delta)
        .await
        .map_err(ChatError::Provider)?
        .text
        .trim()
        .to_string())
}

/// How often a turn is re-recorded when another writer moved the memory meanwhile.
const RECORD_ATTEMPTS: usize = 3;

/// Stores both turns and the facts encoded from the pending user turns, planned against
/// the memory as it is now (ids and turn indices read fresh). If another writer commits
/// in between, the commit is refused as a conflict and the turn is recorded again, so it
/// is neither lost nor written over another.
pub async fn record<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    text: &str,
    reply: &str,
    now: i64,
) -> Result<TurnOutcome, ChatError> {
    record_by(store, provider, None, text, reply, now).await
}

/// [`record`] for a turn said by `speaker`.
pub async fn record_by<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    speaker: Option<&str>,
    text: &str,
    reply: &str,
    now: i64,
) -> Result<TurnOutcome, ChatError> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        match record_once(store, provider, speaker, text, reply, now).await {
            Err(ChatError::Store(StoreError::Conflict { .. })) if attempt < RECORD_ATTEMPTS => continue,
            other => return other,
        }
    }
}

async fn record_once<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    speaker: Option<&str>,
    text: &str,
    reply: &str,
    now: i64,
) -> Result<TurnOutcome, ChatError> {
    let meta = store.meta().await?;
    let transcript = store.transcript().await?;
    let base = Some(meta.head);
    let next = transcript.len() as u32;
    let turns = vec![
        Turn { index: next, role: Role::User, text: text.to_string(), at: now, speaker: speaker.map(String::from) },
        Turn { index: next + 1, role: Role::Assistant, text: reply.to_string(), at: now, speaker: None },
    ];
    let reply = reply.to_string();
    let pending: Vec<Turn> = transcript
        .iter()
        .chain(turns.iter())
        .filter(|t| t.index >= meta.encoded_through && t.role == Role::User)
        .cloned()
        .collect();
    match encode(provider, &pending, meta.next_item.max(1), now).await {
        Ok((items, mutations, offered)) => {
            let label = if items.is_empty() { None } else { Some(format!("turn:{next}")) };
            let encoded = mutations.clone();
            let written = store
                .commit(Commit {
                    at: now,
                    label,
                    created: items,
                    mutations,
                    turns,
                    encoded_through: Some(next + 2),
                    base,
                    ..Default::default()
                })
                .await?;
            let version = written.last().cloned();
            Ok(TurnOutcome { reply, encoded, version, encode_error: None, offered })
        }
        Err(message) => {
            // Keep the conversation; the cursor stays so these turns are encoded next time.
            store.commit(Commit { at: now, turns, base, ..Default::default() }).await?;
            Ok(TurnOutcome { reply, encoded: Vec::new(), version: None, encode_error: Some(message), offered: 0 })
        }
    }
}

/// Asks the model to encode `turns` and gates every proposed fact against them. Returns
/// the accepted items (ids from `first_id`), a mutation for every verdict, and how many
/// candidate statements a choosing model was offered. A model that chooses none stores
/// none: the code never falls back to storing every candidate.
pub async fn encode<P: Provider>(
    provider: &P,
    turns: &[Turn],
    first_id: u64,
    now: i64,
) -> Result<(Vec<Item>, Vec<Mutation>, usize), String> {
    if turns.is_empty() {
        return Ok((Vec::new(), Vec::new(), 0));
    }
    let mut offered_count = 0;
    let request = match provider.proposal_style() {
        ProposalStyle::FreeText => prompt::encode_request(turns),
        ProposalStyle::Candidates => {
            let texts: Vec<&str> = turns.iter().filter(|t| t.role == Role::User).map(|t| t.text.as_str()).collect();
            let offered = candidates::statements(&texts);
            if offered.is_empty() {
                // Questions and greetings only: nothing to remember, no call.
                return Ok((Vec::new(), Vec::new(), 0));
            }
            offered_count = offered.len();
            prompt::encode_choice_request(&offered)
        }
    };
    let completion = provider.complete(&request).await.map_err(|e| e.to_string())?;
    if completion.truncated {
        return Err("the encoder's reply was cut off at the token limit".into());
    }
    let json = provider::extract_json(&completion.text)?;
    let proposals = provider::proposals(&json, PassKind::Encode.proposal_key())?;
    let (items, mutations) = judge_facts(turns, &proposals, first_id, now);
    provider.observe_refusals(mutations.len(), mutations.iter().filter(|m| !m.accepted).count());
    Ok((items, mutations, offered_count))
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
    let proposals: Vec<Value> = proposals.iter().flat_map(one_statement_each).collect();
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
                let speaker = turns.iter().find(|t| Some(t.index) == turn).and_then(|t| t.speaker.clone());
                let item = Item {
                    item_id: format!("m_{next}"),
                    block,
                    text,
                    category,
                    source_turn: turn,
                    created_at: now,
                    updated_at: now,
                    active: true,
                    valid_from: Some(now),
                    valid_to: None,
                    superseded_by: None,
                    pinned: false,
                    speaker,
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
    let pieces = candidates::pieces(text);
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

/// The turn that covers most of `text`'s content tokens.
fn best_source(turns: &[Turn], text: &str) -> Option<u32> {
    turns
        .iter()
        .map(|t| (crate::text::textmath::coverage(text, [t.said().as_str()]).score, t.index))
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
        .map(|(_, i)| i)
}
