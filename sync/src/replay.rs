//! Doing an operation, and doing it again from its record: one function, [`perform`],
//! run by the device that did it (with its model, recorded) and by every other device
//! (with the recorded replies), so both end on the same rows.
//!
//! A record applied on the head it was planned on is performed as it was made. One that
//! another device's record now precedes is *replayed against the new head*: a turn is
//! appended (the transcript is the union of every device's turns, in this order), an edit
//! is made again through its gate on the fact with its words — refused, and logged with
//! the reason, when that fact is gone or changed — and a Sleep is refused as stale (it
//! runs again at the next Sleep): a Sleep's edits are only meaningful on the memory it
//! read.

use crate::record::{Call, EditRow, Op, Record, ReplyRow};
use nocturne_core::flow::chat::{self, Reply};
use nocturne_core::flow::edit;
use nocturne_core::flow::import;
use nocturne_core::flow::import_plan;
use nocturne_core::flow::report::{PassEvent, SleepReport};
use nocturne_core::flow::review;
use nocturne_core::flow::sleep::{self, SleepOptions};
use nocturne_core::flow::stop::StopToken;
use nocturne_core::llm::provider::{Completion, Layer, ProposalStyle, Provider, ProviderError, Request};
use nocturne_core::model::memory::{Mutation, Proposer, Refs, Version};
use nocturne_core::model::pass::{MutationKind, Stage};
use nocturne_core::store::{Commit, Store, StoreError};
use std::cell::RefCell;
use std::collections::VecDeque;

/// What performing a record did, for the device's report.
#[derive(Clone, Debug, PartialEq)]
pub enum Applied {
    /// Performed on the head it was planned on.
    AsMade,
    /// Performed on a head another device's record had moved; says what it did.
    Replayed(String),
    /// Refused on the new head, with the reason (also in the audit log).
    Refused(String),
}

/// What performing a record did, with the turn's or the Sleep's own report for the device
/// that did it (to show as without sync).
#[derive(Clone, Debug, PartialEq)]
pub struct Performed {
    pub applied: Applied,
    pub turn: Option<chat::TurnOutcome>,
    pub sleep: Option<SleepReport>,
    /// What applying a reviewed plan did (its Sleep is `sleep`).
    pub review: Option<review::Applied>,
    pub import: Option<Imported>,
    /// The version a restore wrote.
    pub restored: Option<Version>,
    /// What a policy change logged (`None`: it changed nothing).
    pub policy: Option<String>,
}

impl From<Applied> for Performed {
    fn from(applied: Applied) -> Self {
        Performed { applied, turn: None, sleep: None, review: None, import: None, restored: None, policy: None }
    }
}

/// What performing an import's record wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    pub report: import::Report,
    /// The batches written, from the first: fewer than the record's when the import was
    /// stopped or the model failed (and then the record keeps only these).
    pub batches: usize,
    /// Why the model could not go on, when it could not.
    pub failed: Option<String>,
}

/// How the device doing an operation watches it: the Stop of a Sleep, and its passes as
/// they go. A replay watches nothing.
pub struct Watch<'a> {
    pub stop: StopToken,
    pub on_event: &'a mut dyn FnMut(&PassEvent),
}

impl std::fmt::Debug for Watch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watch")
    }
}

impl std::fmt::Display for Applied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Applied::AsMade => f.write_str("done"),
            Applied::Replayed(s) => f.write_str(s),
            Applied::Refused(s) => write!(f, "refused: {s}"),
        }
    }
}

/// Performs a record's operation at its time on `store`, asking `provider` when it needs a
/// model. `stale`: the record's head is not the store's (another device's record came
/// first).
pub async fn perform<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    record: &Record,
    stale: bool,
) -> Result<Performed, StoreError> {
    perform_watched(store, provider, record, stale, &mut Watch { stop: StopToken::default(), on_event: &mut |_| {} })
        .await
}

/// [`perform`], watched.
pub async fn perform_watched<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    record: &Record,
    stale: bool,
    watch: &mut Watch<'_>,
) -> Result<Performed, StoreError> {
    let at = record.at;
    match &record.op {
        Op::Say { text, speaker, reply, by, said_at } => {
            let origin = chat::Origin { by: by.clone(), said_at: *said_at };
            let options = || chat::TurnOptions { origin: origin.clone(), ..chat::TurnOptions::by(speaker.as_deref()) };
            let outcome = match reply {
                Some(r) => chat::record(store, provider, text, &reply_of(r), at, options()).await,
                None => chat::remember(store, provider, text, at, options()).await,
            };
            let outcome = outcome.map_err(|e| match e {
                chat::ChatError::Store(s) => s,
                other => StoreError::Invalid(other.to_string()),
            })?;
            let facts = outcome.encoded.iter().filter(|m| m.accepted).count();
            let applied = if stale {
                Applied::Replayed(format!("a turn from {} appended ({facts} facts)", record.device_name))
            } else {
                Applied::AsMade
            };
            Ok(Performed { turn: Some(outcome), ..applied.into() })
        }
        Op::Sleep { deep, plan: None } => {
            if stale {
                return stale_sleep(store, record, *deep).await;
            }
            let mut options = SleepOptions { stop: watch.stop.clone(), ..SleepOptions::new(at) };
            if *deep {
                options = options.deep();
            }
            match sleep::sleep(store, provider, &options, watch.on_event).await {
                Ok(report) => Ok(Performed { sleep: Some(report), ..Applied::AsMade.into() }),
                Err(sleep::SleepError::Store(s)) => Err(s),
                // Stopped, or the model failed: the passes before stay. Worded without the
                // cause so the device that stopped and the devices replaying (whose replies
                // simply end there) log the same words.
                Err(_) => {
                    let why = format!(
                        "a Sleep on {} ended before its last pass (stopped, or the model failed); the passes before it are kept",
                        record.device_name
                    );
                    log_refusal(store, record, MutationKind::Sleep, "", &why).await?;
                    Ok(Applied::Refused(why).into())
                }
            }
        }
        Op::Import { .. } => perform_import(store, provider, record, stale, watch).await,
        _ => perform_plain(store, record, stale, watch).await,
    }
}

/// [`perform_watched`] for a record that asks no model — a user's edit, a reviewed plan
/// applied, a policy, a restore, a checkpoint — compiled once, whatever the provider.
/// A record that asks one is refused as an error.
pub async fn perform_plain<S: Store>(
    store: &S,
    record: &Record,
    stale: bool,
    watch: &mut Watch<'_>,
) -> Result<Performed, StoreError> {
    let at = record.at;
    match &record.op {
        Op::Say { .. } | Op::Sleep { plan: None, .. } | Op::Import { .. } => {
            Err(StoreError::Invalid(format!("record {} asks a model; it is performed with one", record.id)))
        }
        Op::Sleep { deep, plan: Some(plan) } => {
            if stale {
                return stale_sleep(store, record, *deep).await;
            }
            match review::apply_sleep(store, plan, at, watch.on_event).await {
                Ok(done) => Ok(Performed { sleep: done.report.clone(), review: Some(done), ..Applied::AsMade.into() }),
                Err(review::ReviewError::Sleep(sleep::SleepError::Store(s))) => Err(s),
                Err(other) => Err(StoreError::Invalid(other.to_string())),
            }
        }
        Op::Edit { edit: row } => perform_edit(store, record, row, stale).await.map(Performed::from),
        Op::Apply { plan, decisions } => {
            if stale {
                let why = format!(
                    "the reviewed Sleep (plan {}) applied on {} was planned on a memory that has since changed (another device's record came first); refused as stale: review a new plan",
                    plan.id, record.device_name
                );
                log_refusal(store, record, MutationKind::Sleep, "", &why).await?;
                return Ok(Applied::Refused(why).into());
            }
            match review::apply(store, plan, decisions, at, watch.on_event).await {
                Ok(done) => Ok(Performed { sleep: done.report.clone(), review: Some(done), ..Applied::AsMade.into() }),
                Err(review::ReviewError::Sleep(sleep::SleepError::Store(s))) => Err(s),
                Err(other) => Err(StoreError::Invalid(other.to_string())),
            }
        }
        Op::Policy { policy } => match edit::set_policy(store, policy.clone(), at).await {
            Ok(changed) => {
                let applied = if stale {
                    Applied::Replayed(format!("{}'s retention policy set again on the new head", record.device_name))
                } else {
                    Applied::AsMade
                };
                Ok(Performed { policy: changed, ..applied.into() })
            }
            Err(edit::EditError::Store(e)) => Err(e),
            Err(refused) => {
                let why = format!("{}'s retention policy refused: {refused}", record.device_name);
                log_refusal(store, record, MutationKind::Policy, "", &why).await?;
                Ok(Applied::Refused(why).into())
            }
        },
        Op::Restore { seq } => {
            if stale {
                let why = format!(
                    "{}'s restore of v{seq} was made on a memory that has since changed (another device's record came first); refused as stale: restore it again if it is still wanted",
                    record.device_name
                );
                log_refusal(store, record, MutationKind::Restore, "", &why).await?;
                return Ok(Applied::Refused(why).into());
            }
            match store.restore(*seq, at).await {
                Ok(version) => Ok(Performed { restored: Some(version), ..Applied::AsMade.into() }),
                Err(StoreError::NoSuchVersion(_)) => {
                    let why = format!("{}'s restore refused: this memory has no v{seq}", record.device_name);
                    log_refusal(store, record, MutationKind::Restore, "", &why).await?;
                    Ok(Applied::Refused(why).into())
                }
                Err(e) => Err(e),
            }
        }
        Op::Checkpoint { document, .. } => {
            let head = store.meta().await?.head;
            store.replace_all((**document).clone(), head).await?;
            Ok(Applied::AsMade.into())
        }
    }
}

/// A Sleep refused as stale: it was planned on a memory another device's record has since
/// changed, so its edits mean nothing here; it runs again at the next Sleep.
async fn stale_sleep<S: Store>(store: &S, record: &Record, deep: bool) -> Result<Performed, StoreError> {
    let why = format!(
        "the {}Sleep run on {} was planned on a memory that has since changed (another device's record came first); refused as stale, it runs again at the next Sleep",
        if deep { "deep " } else { "" },
        record.device_name
    );
    log_refusal(store, record, MutationKind::Sleep, "", &why).await?;
    Ok(Applied::Refused(why).into())
}

/// An import's record: its batches written as `flow::import` writes them (a message whose
/// source the memory holds already is skipped), a Stop checked before each batch.
async fn perform_import<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    record: &Record,
    stale: bool,
    watch: &mut Watch<'_>,
) -> Result<Performed, StoreError> {
    let Op::Import { messages, batches, file } = &record.op else {
        return Err(StoreError::Invalid(format!("record {} is not an import", record.id)));
    };
    let Some(plan) = import_plan::Plan::of(messages.to_vec(), batches.to_vec()) else {
        let why = format!(
            "an import from {} refused: its batches do not cover its {} messages in order",
            record.device_name,
            messages.len()
        );
        log_refusal(store, record, MutationKind::Add, "", &why).await?;
        return Ok(Applied::Refused(why).into());
    };
    let options = import_plan::ImportOptions {
        sleep: import_plan::SleepAfter::Never,
        stop: watch.stop.clone(),
        file: file.clone(),
        ..Default::default()
    };
    let mut written = 0;
    let run = import::run(store, provider, &plan, &options, record.at, &mut |p| written = p.batches_done).await;
    let (report, failed) = match run {
        Ok(report) => (report, None),
        Err(import::ImportError::Store(e)) => return Err(e),
        Err(import::ImportError::Provider(why)) => (import::Report::default(), Some(why)),
    };
    let applied = if stale {
        Applied::Replayed(format!(
            "an import from {} appended ({} turns, {} facts)",
            record.device_name,
            report.user_turns + report.assistant_turns,
            report.facts
        ))
    } else {
        Applied::AsMade
    };
    Ok(Performed { import: Some(Imported { report, batches: written, failed }), ..applied.into() })
}

async fn perform_edit<S: Store>(store: &S, record: &Record, row: &EditRow, stale: bool) -> Result<Applied, StoreError> {
    let items = store.items().await?;
    let target = items.iter().filter(|i| i.active && i.text == row.fact()).min_by_key(|i| i.ordinal());
    let Some(target) = target else {
        let why = format!(
            "{}'s edit of \"{}\" refused: that fact is no longer in the memory as it was (another device changed or retired it first)",
            record.device_name,
            row.fact()
        );
        log_refusal(store, record, kind_of(row), "", &why).await?;
        return Ok(Applied::Refused(why));
    };
    match edit::apply(store, &row.to_edit(&target.item_id), record.at).await {
        Ok(_) if stale => Ok(Applied::Replayed(format!(
            "{}'s edit of {} made again on the new head",
            record.device_name, target.item_id
        ))),
        Ok(_) => Ok(Applied::AsMade),
        Err(edit::EditError::Store(e)) => Err(e),
        Err(refused) => {
            let why = format!("{}'s edit refused on the new head: {refused}", record.device_name);
            log_refusal(store, record, kind_of(row), &target.item_id, &why).await?;
            Ok(Applied::Refused(why))
        }
    }
}

fn kind_of(row: &EditRow) -> MutationKind {
    match row {
        EditRow::Correct { .. } => MutationKind::Correct,
        EditRow::Pin { .. } => MutationKind::Pin,
        EditRow::Unpin { .. } => MutationKind::Unpin,
        EditRow::Forget { .. } => MutationKind::Forget,
    }
}

/// Logs a refused record: a mutation of stage `sync`, written with no version.
async fn log_refusal<S: Store>(
    store: &S,
    record: &Record,
    kind: MutationKind,
    item_id: &str,
    why: &str,
) -> Result<(), StoreError> {
    let mutation = Mutation {
        id: 0,
        seq: 0,
        pass: Stage::Sync,
        kind,
        item_id: item_id.to_string(),
        refs: Refs::default(),
        accepted: false,
        reason: format!("record {} from {}", record.id, record.device_name),
        rejection_reason: Some(why.to_string()),
        policy: None,
        proposer: Proposer::User,
        at: record.at,
    };
    store.commit(Commit { at: record.at, mutations: vec![mutation], ..Default::default() }).await?;
    Ok(())
}

fn reply_of(row: &ReplyRow) -> Reply {
    Reply { text: row.text.clone(), memory: row.memory.clone(), refused: row.refused.clone(), switched: None }
}

/// A provider that keeps every reply of the one it wraps, for the record.
#[derive(Debug)]
pub struct Recording<'a, P> {
    inner: &'a P,
    calls: RefCell<Vec<Call>>,
}

impl<'a, P: Provider> Recording<'a, P> {
    pub fn new(inner: &'a P) -> Self {
        Recording { inner, calls: RefCell::new(Vec::new()) }
    }

    /// The replies received so far.
    pub fn calls(&self) -> Vec<Call> {
        self.calls.borrow().clone()
    }

    fn keep(&self, c: &Completion) {
        self.calls.borrow_mut().push(Call {
            text: c.text.clone(),
            truncated: c.truncated,
            choose: self.inner.proposal_style() == ProposalStyle::Candidates,
        });
    }
}

impl<P: Provider> Layer for Recording<'_, P> {
    type Inner = P;
    fn inner(&self) -> &P {
        self.inner
    }
    fn after_call(&self, c: &Completion) {
        self.keep(c);
    }
}

/// A provider that answers with a record's replies, in order, in the style each was asked
/// in; past the last, it answers that the record holds no more (the operation then
/// takes the path it takes when a model fails, the same on every device).
#[derive(Debug)]
pub struct Replaying {
    calls: RefCell<VecDeque<Call>>,
}

impl Replaying {
    pub fn new(calls: &[Call]) -> Self {
        Replaying { calls: RefCell::new(calls.iter().cloned().collect()) }
    }
}

impl Provider for Replaying {
    fn label(&self) -> String {
        "replay of a record".into()
    }
    fn proposal_style(&self) -> ProposalStyle {
        match self.calls.borrow().front() {
            Some(c) if c.choose => ProposalStyle::Candidates,
            _ => ProposalStyle::FreeText,
        }
    }
    fn observe_unusable(&self, _why: &str) -> Option<String> {
        // The device asked again by choosing exactly when its next recorded reply was.
        match self.calls.borrow().front() {
            Some(c) if c.choose => Some("asked again by choosing".into()),
            _ => None,
        }
    }
    async fn complete(&self, _request: &Request) -> Result<Completion, ProviderError> {
        let call = self.calls.borrow_mut().pop_front();
        match call {
            Some(c) => Ok(Completion { text: c.text, prompt_tokens: 0, completion_tokens: 0, truncated: c.truncated }),
            None => Err(ProviderError::BadResponse("the record holds no further model reply".into())),
        }
    }
}
