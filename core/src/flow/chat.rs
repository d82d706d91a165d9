//! A chat turn: reply from memory (citing the facts it used, each citation gated), store
//! both turns with the memory the reply drew on, encode the new user turns into scratch
//! through the encode gate (incrementally, with a cursor).

mod encoder;

pub use encoder::{encode, judge_facts, Unusable};

use crate::flow::{kept, told};
use crate::gate::Verdict;
use crate::llm::answer::{self, AnswerStream};
use crate::llm::context::PromptIndex;
use crate::llm::prompt;
use crate::llm::provider::{self, ProposalStyle, Provider, ProviderError};
use crate::model::memory::{AnswerStyle, Item, MemoryUse, Mutation, Proposer, Refs, Role, Turn, Version};
use crate::model::pass::{MutationKind, Stage};
use crate::model::provenance::{By, Source};
use crate::store::{Commit, Store, StoreError};
use crate::text::order;
use serde::Serialize;

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
    /// The memory the reply drew on: the facts its prompt carried and those it cited.
    pub memory: MemoryUse,
    /// Citations the gate refused: (the id cited, why).
    pub refused_citations: Vec<(String, String)>,
    /// What `auto` said when an unusable reply moved the model to choosing in this turn.
    pub switched: Vec<String>,
    /// What each memory command of a chat turn did as the user's edit, or asks back
    /// (`flow::told`): filled by the write layer's `Reply`, which carries them out.
    pub told: Vec<told::Carried>,
}

/// A reply and the memory it drew on; nothing is stored yet.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Reply {
    pub text: String,
    pub memory: MemoryUse,
    /// Citations the gate refused: (the id cited, why). Logged when the turn is recorded.
    pub refused: Vec<(String, String)>,
    /// What `auto` said when an unusable free-text reply moved the model to choosing.
    pub switched: Option<String>,
}

impl Reply {
    /// A reply written by the code with no model call.
    fn plain(text: &str, left_out: usize) -> Reply {
        Reply {
            text: text.to_string(),
            memory: MemoryUse { used: Vec::new(), left_out, cited: Vec::new(), style: AnswerStyle::Plain },
            ..Default::default()
        }
    }
}

/// A chat turn could not happen.
#[derive(Clone, Debug, PartialEq)]
pub enum ChatError {
    Store(StoreError),
    /// The model could not answer; nothing was stored.
    Provider(ProviderError),
    EmptyMessage,
    /// A message longer than a memory's turn may be (`store::document::MAX_TURN_CHARS`).
    TooLong {
        chars: usize,
        max: usize,
    },
    /// A claimed time the memory cannot take (after the turn arrived, before 1970).
    SaidAt(String),
}

impl std::fmt::Display for ChatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChatError::Store(e) => write!(f, "{e}"),
            ChatError::Provider(e) => write!(f, "{e} (nothing was stored)"),
            ChatError::EmptyMessage => write!(f, "the message is empty"),
            ChatError::SaidAt(why) => write!(f, "{why}; nothing was stored"),
            ChatError::TooLong { chars, max } => write!(
                f,
                "the message is {chars} characters long; a turn holds at most {max}: nothing was stored, send it in parts"
            ),
        }
    }
}

impl std::error::Error for ChatError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ChatError::Store(e) => Some(e),
            ChatError::Provider(e) => Some(e),
            ChatError::EmptyMessage | ChatError::TooLong { .. } | ChatError::SaidAt(_) => None,
        }
    }
}

impl From<StoreError> for ChatError {
    fn from(e: StoreError) -> Self {
        ChatError::Store(e)
    }
}

/// What varies between a chat turn's callers: who said it, and who hears the reply as it
/// streams.
#[derive(Default)]
pub struct TurnOptions<'a> {
    /// The speaker's name (a conversation that names its speakers): the turn and every fact
    /// encoded from it keep it. `None`: the user of a plain chat.
    pub speaker: Option<&'a str>,
    /// Handed each piece of the reply as it streams in (a chat turn's only: the reply
    /// [`record`] and [`remember`] are given, or lack, has no stream).
    pub on_delta: Option<&'a mut dyn FnMut(&str)>,
    /// Where the words come from and when they were said, when that is not the user in
    /// this chat, now: the turn keeps it and every fact encoded from it inherits it.
    pub origin: Origin,
}

/// Who said a turn's words and when, when it is not the user of this chat speaking now.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    /// `None`: the user of this chat.
    pub by: Option<By>,
    /// When the words were said, as the sender claims (checked first with
    /// `model::provenance::said_at`); `None`: when they arrive.
    pub said_at: Option<i64>,
}

impl Origin {
    /// The source a turn said this way keeps, received at `now`: `None` for the user of
    /// this chat speaking now (what a turn with no source is).
    pub fn source(&self, now: i64) -> Option<Source> {
        let plain = self.by.is_none() && self.said_at.is_none_or(|at| at == now);
        (!plain).then(|| Source { by: self.by.clone().unwrap_or(By::User), received_at: now })
    }
}

impl<'a> TurnOptions<'a> {
    /// A turn said by `speaker`.
    pub fn by(speaker: Option<&'a str>) -> Self {
        TurnOptions { speaker, ..Default::default() }
    }

    /// A turn whose reply streams to `on_delta`.
    pub fn streaming(on_delta: &'a mut dyn FnMut(&str)) -> Self {
        TurnOptions { on_delta: Some(on_delta), ..Default::default() }
    }
}

/// Replies to `text` from the active memory (streamed to `options.on_delta`), then stores
/// the turn, said by `options.speaker`, and its encoded facts.
pub async fn chat_turn<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    text: &str,
    now: i64,
    options: TurnOptions<'_>,
) -> Result<TurnOutcome, ChatError> {
    let TurnOptions { speaker, on_delta, origin } = options;
    let reply = match on_delta {
        Some(on_delta) => reply(store, provider, text, now, on_delta).await?,
        None => reply(store, provider, text, now, &mut |_| {}).await?,
    };
    record(store, provider, text.trim(), &reply, now, TurnOptions { origin, ..TurnOptions::by(speaker) }).await
}

/// Answers `text` from the memory in `index`, in the provider's style, citing what it
/// used. Free text: the model writes the answer and names the lines it used (streamed to
/// `on_delta` as its words arrive). Choose: the model picks the offered line that answers,
/// or none, and the code writes the reply from that fact's words and date; a message that
/// asks nothing gets a plain note with no call. Every cited id goes through the citation
/// gate: one the prompt did not carry is refused (and logged when the turn is recorded).
/// A free-text reply cut off at the token limit or not in the asked shape counts against
/// free text: on `auto` the model is asked again at once, by choosing.
pub async fn answer<P: Provider>(
    provider: &P,
    index: &PromptIndex<'_>,
    history: &[Turn],
    text: &str,
    on_delta: &mut dyn FnMut(&str),
) -> Result<Reply, ProviderError> {
    let mut switched = None;
    if provider.proposal_style() == ProposalStyle::FreeText {
        let selection = answer::chat_selection(index, history, text, provider.memory_tokens());
        let shown: Vec<String> = selection.facts.iter().map(|i| i.item_id.clone()).collect();
        let request = answer::free_request(&selection, history, text);
        let mut stream = AnswerStream::default();
        let completion = provider
            .complete_streaming(&request, &mut |delta| {
                let words = stream.push(delta);
                if !words.is_empty() {
                    on_delta(&words);
                }
            })
            .await?;
        let parsed = if completion.truncated {
            Err("cut off at the token limit".to_string())
        } else {
            answer::parse_free(&completion.text).map_err(|e| e.to_string())
        };
        let memory = |cited| MemoryUse {
            used: shown.clone(),
            left_out: selection.left_out,
            cited,
            style: AnswerStyle::FreeText,
        };
        match parsed {
            Ok(free) => {
                let (cited, refused) = gate_citations(&free.cited, &shown);
                return Ok(Reply { text: free.text, memory: memory(cited), refused, switched });
            }
            Err(why) => match provider.observe_unusable(&why) {
                Some(line) => switched = Some(line),
                None => {
                    // Free text by the user's choice: keep what the model said, citing nothing.
                    let partial = stream.answer_so_far();
                    let said = if partial.trim().is_empty() && provider::extract_json(&completion.text).is_err() {
                        completion.text.trim().to_string()
                    } else {
                        partial.trim().to_string()
                    };
                    if said.is_empty() {
                        return Err(ProviderError::BadResponse(format!("the reply could not be used ({why})")));
                    }
                    return Ok(Reply { text: said, memory: memory(Vec::new()), refused: Vec::new(), switched });
                }
            },
        }
    }
    let mut reply = choose(provider, index, text).await?;
    reply.switched = switched;
    on_delta(&reply.text);
    Ok(reply)
}

/// The choose style of [`answer`].
async fn choose<P: Provider>(provider: &P, index: &PromptIndex<'_>, text: &str) -> Result<Reply, ProviderError> {
    if !answer::asks(text) {
        return Ok(Reply::plain(answer::NOTED, index.len()));
    }
    let options = index.best(text, answer::CHOOSE_OPTIONS);
    if options.is_empty() {
        // Nothing in memory shares a word with the question: nothing to choose from.
        return Ok(Reply::plain(prompt::NOT_IN_MEMORY, index.len()));
    }
    let shown: Vec<String> = options.iter().map(|i| i.item_id.clone()).collect();
    let completion = provider.complete(&answer::choose_request(&options, text, index.now())).await?;
    let choice = if completion.truncated {
        Err("cut off at the token limit".to_string())
    } else {
        answer::parse_choice(&completion.text).map_err(|e| e.to_string())
    };
    let choice =
        choice.map_err(|why| ProviderError::BadResponse(format!("the model's choice could not be read ({why})")))?;
    // Line n is the n-th fact offered; a number past the last offered is refused.
    let chosen = choice.map(|n| match n.checked_sub(1).and_then(|k| options.get(k)) {
        Some(fact) => fact.item_id.clone(),
        None => format!("line {n}"),
    });
    let (cited, refused) = gate_citations(chosen.as_slice(), &shown);
    let text = match cited.first().and_then(|id| options.iter().find(|i| &i.item_id == id)) {
        Some(fact) => answer::from_fact(fact, index.now()),
        None => answer::not_in_memory(),
    };
    let memory = MemoryUse { used: shown, left_out: index.len() - options.len(), cited, style: AnswerStyle::Choose };
    Ok(Reply { text, memory, refused, switched: None })
}

/// Splits cited ids into those the prompt carried and refusals with their reasons.
fn gate_citations(cited: &[String], shown: &[String]) -> (Vec<String>, Vec<(String, String)>) {
    let (mut kept, mut refused) = (Vec::new(), Vec::new());
    for id in cited {
        match crate::gate::cite::judge(id, shown) {
            Verdict::Accept(_) => kept.push(id.clone()),
            Verdict::Refuse(why) => refused.push((id.clone(), why)),
        }
    }
    (kept, refused)
}

/// The first half of a turn, which writes nothing: the model's reply to `text` from the
/// active memory and recent turns. The app runs it outside the write lock, then
/// [`record`]s the turn under it.
pub async fn reply<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    text: &str,
    now: i64,
    on_delta: &mut dyn FnMut(&str),
) -> Result<Reply, ChatError> {
    let text = checked(text)?;
    let facts = PromptFacts::read(store, text).await?;
    let mut memory: Vec<&Item> = facts.items.iter().filter(|i| i.active).collect();
    order::sort_by_key(&mut memory, |i| (i.block, i.ordinal()));
    let history: Vec<Turn> = match facts.corpus {
        Some(_) => {
            let count = store.turn_count().await?;
            store.turns_from(count.saturating_sub(HISTORY_TURNS as u32)).await?
        }
        None => facts.transcript[facts.transcript.len().saturating_sub(HISTORY_TURNS)..].to_vec(),
    };
    let index = facts.index(&memory, now);
    answer(provider, &index, &history, text, on_delta).await.map_err(ChatError::Provider)
}

/// What a prompt about a message ranks its facts among: for a large memory in a store that
/// indexes its facts ([`Store::prompt_shortlist`]), the facts the store finds for the
/// message and the turns around them, with the whole memory's statistics; else every fact
/// and the whole conversation. A chat turn and the MCP server's search and context read
/// through it alike.
pub struct PromptFacts {
    /// Facts, active or not (a shortlist's are all active).
    pub items: Vec<Item>,
    pub transcript: Vec<Turn>,
    pub policy: crate::model::policy::RetentionPolicy,
    /// The whole memory's statistics when `items` is part of it.
    pub corpus: Option<crate::store::Corpus>,
}

impl PromptFacts {
    /// Reads what a prompt about `message` ranks.
    pub async fn read<S: Store>(store: &S, message: &str) -> Result<PromptFacts, StoreError> {
        let policy = store.meta().await?.policy;
        let asked: Vec<String> = crate::store::retrieval::asked(message).into_iter().map(|(t, _)| t).collect();
        Ok(match store.prompt_shortlist(&asked).await? {
            Some(c) => PromptFacts { items: c.items, transcript: c.turns, policy, corpus: Some(c.corpus) },
            None => {
                PromptFacts { items: store.items().await?, transcript: store.transcript().await?, policy, corpus: None }
            }
        })
    }

    /// The index over `active` (this read's active facts, in the caller's order), each
    /// fact also found by the words of the conversation it was said in.
    pub fn index<'a>(&self, active: &[&'a Item], now: i64) -> PromptIndex<'a> {
        let index = PromptIndex::new(active, &self.policy, now).with_context(&self.transcript);
        match &self.corpus {
            Some(c) => index.with_corpus(c.clone()),
            None => index,
        }
    }

    /// How many active facts the memory holds.
    pub fn stored(&self) -> usize {
        self.corpus.as_ref().map_or_else(|| self.items.iter().filter(|i| i.active).count(), |c| c.facts)
    }
}

/// Stores both turns — the user's, said by `options.speaker`, and `reply` — and the facts
/// encoded from the pending user turns, planned against the memory as it is now (ids and
/// turn indices read fresh). If another writer commits in between, the commit is refused
/// as a conflict and the turn is recorded again, so it is neither lost nor written over
/// another.
pub async fn record<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    text: &str,
    reply: &Reply,
    now: i64,
    options: TurnOptions<'_>,
) -> Result<TurnOutcome, ChatError> {
    record_retrying(store, provider, &options, text, Some(reply), now).await
}

/// Stores a user turn, said by `options.speaker`, with no reply (words the user gave to
/// remember: an assistant that attached the memory, an imported history) and encodes it
/// through the same gate as a chat turn. Retried like [`record`] when another writer moved
/// the memory meanwhile.
pub async fn remember<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    text: &str,
    now: i64,
    options: TurnOptions<'_>,
) -> Result<TurnOutcome, ChatError> {
    record_retrying(store, provider, &options, checked(text)?, None, now).await
}

/// `text` trimmed, if a turn may hold it: not empty, and within what a valid memory holds.
fn checked(text: &str) -> Result<&str, ChatError> {
    let text = text.trim();
    let chars = text.chars().count();
    if text.is_empty() {
        Err(ChatError::EmptyMessage)
    } else if chars > crate::store::document::MAX_TURN_CHARS {
        Err(ChatError::TooLong { chars, max: crate::store::document::MAX_TURN_CHARS })
    } else {
        Ok(text)
    }
}

async fn record_retrying<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    options: &TurnOptions<'_>,
    text: &str,
    reply: Option<&Reply>,
    now: i64,
) -> Result<TurnOutcome, ChatError> {
    // The door checks a claimed time first (`provenance::said_at`); the core refuses one
    // past that check too, so no caller dates a turn after it arrived.
    if let Some(at) = options.origin.said_at {
        if at > now + crate::model::provenance::CLOCK_SKEW || at < 0 {
            let day = crate::text::when::Day::from_unix(at);
            return Err(ChatError::SaidAt(format!("the turn is dated {day}, after it arrived or before 1970")));
        }
    }
    crate::store::replanning(
        |e| matches!(e, ChatError::Store(e) if e.is_conflict()),
        async || record_once(store, provider, options, text, reply, now).await,
    )
    .await
}

async fn record_once<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    options: &TurnOptions<'_>,
    text: &str,
    reply: Option<&Reply>,
    now: i64,
) -> Result<TurnOutcome, ChatError> {
    let meta = store.meta().await?;
    // Only the turns not yet encoded are read: the encoder's cursor on.
    let next = store.turn_count().await?;
    let unencoded = store.turns_from(meta.encoded_through).await?;
    let base = Some(meta.head);
    let (turns, cite_refusals) = rows(next, options, text, reply, now);
    let turns_written = turns.len() as u32;
    let outcome = |encoded, version, encode_error, offered| TurnOutcome {
        reply: reply.map(|r| r.text.clone()).unwrap_or_default(),
        encoded,
        version,
        encode_error,
        offered,
        memory: reply.map(|r| r.memory.clone()).unwrap_or_default(),
        refused_citations: reply.map(|r| r.refused.clone()).unwrap_or_default(),
        switched: reply.and_then(|r| r.switched.clone()).into_iter().collect(),
        told: Vec::new(),
    };
    // A pasted page is kept in the conversation but never sent to the encoder whole.
    let (pending, too_long): (Vec<Turn>, Vec<Turn>) = unencoded
        .iter()
        .chain(turns.iter())
        .filter(|t| t.index >= meta.encoded_through && t.role == Role::User)
        .cloned()
        .partition(|t| t.text.chars().count() <= kept::ENCODE_MAX_CHARS);
    let mut switched: Vec<String> = reply.and_then(|r| r.switched.clone()).into_iter().collect();
    let encoded = encode(provider, &pending, meta.next_item.max(1), now).await;
    let encoded = match encoded {
        Err(e) if e.in_free_text => match provider.observe_unusable(&e.why) {
            // Asked again at once, by choosing.
            Some(line) => {
                switched.push(line);
                encode(provider, &pending, meta.next_item.max(1), now).await
            }
            None => Err(e),
        },
        other => other,
    };
    let outcome = |encoded, version, encode_error, offered| TurnOutcome {
        switched: switched.clone(),
        ..outcome(encoded, version, encode_error, offered)
    };
    match encoded.map_err(|u| u.why) {
        Ok((mut items, mut mutations, offered)) => {
            // A chat turn's `remind me to …`, `remember that …`: the user's own facts.
            if reply.is_some() {
                let (asked, log) = told::kept_by_command(&turns[0], meta.next_item.max(1) + items.len() as u64, now);
                items.extend(asked);
                mutations.extend(log);
            }
            let label = if items.is_empty() { None } else { Some(crate::model::label::Label::Turn(next).to_string()) };
            // Every statement that stored nothing is logged with the rule that decided, and
            // a reply that only acknowledged says what was kept.
            let skipped = kept::unkept(&pending, &too_long, &items, &mutations, now);
            let encoded: Vec<Mutation> = mutations.iter().cloned().chain(skipped.iter().cloned()).collect();
            let mut turns = turns;
            if let Some(reply) = turns.get_mut(1).filter(|r| r.text == answer::NOTED) {
                reply.text = kept::note(&items, &encoded);
            }
            let reply_text = turns.get(1).map(|r| r.text.clone());
            let written = store
                .commit(Commit {
                    at: now,
                    label,
                    created: items,
                    mutations: cite_refusals.into_iter().chain(mutations).chain(skipped).collect(),
                    turns,
                    encoded_through: Some(next + turns_written),
                    base,
                    ..Default::default()
                })
                .await?;
            let version = written.last().cloned();
            let mut out = outcome(encoded, version, None, offered);
            out.reply = reply_text.unwrap_or(out.reply);
            Ok(out)
        }
        Err(message) => {
            // Keep the conversation; the cursor stays so these turns are encoded next time.
            store.commit(Commit { at: now, turns, base, mutations: cite_refusals, ..Default::default() }).await?;
            Ok(outcome(Vec::new(), None, Some(message), 0))
        }
    }
}

/// The rows a turn writes: the user's turn, the reply's if there is one (with the memory
/// it drew on), and a logged refusal for each citation the gate refused.
fn rows(
    next: u32,
    options: &TurnOptions<'_>,
    text: &str,
    reply: Option<&Reply>,
    now: i64,
) -> (Vec<Turn>, Vec<Mutation>) {
    let mut turns = vec![Turn {
        index: next,
        role: Role::User,
        text: text.to_string(),
        at: options.origin.said_at.unwrap_or(now),
        speaker: options.speaker.map(String::from),
        memory: None,
        source: None,
        provenance: options.origin.source(now),
    }];
    let Some(reply) = reply else { return (turns, Vec::new()) };
    turns.push(Turn {
        index: next + 1,
        role: Role::Assistant,
        text: reply.text.clone(),
        at: now,
        speaker: None,
        memory: Some(reply.memory.clone()),
        source: None,
        provenance: None,
    });
    // A citation the gate refused is logged like any refusal, against the reply's turn.
    let cite_refusals: Vec<Mutation> = reply
        .refused
        .iter()
        .map(|(id, why)| Mutation {
            id: 0,
            seq: 0,
            pass: Stage::Reply,
            kind: MutationKind::Cite,
            item_id: id.clone(),
            refs: Refs { source_turn: Some(next + 1), ..Default::default() },
            accepted: false,
            reason: "cited by the reply".into(),
            rejection_reason: Some(why.clone()),
            policy: None,
            proposer: Proposer::Model,
            at: now,
        })
        .collect();
    (turns, cite_refusals)
}
