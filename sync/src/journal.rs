//! The one write path: every write a device makes — a turn, an edit, an erase, a Sleep,
//! a restore, a retention policy, an import — goes through [`Journal`], which records it
//! for the next sync when the memory syncs (a record other devices replay, never a copy of
//! the whole memory) and makes it directly, through the same core function, when it does
//! not. The page, the command line and the MCP server hold a journal over their own store
//! and keeper and only do IO; none of them decides "synced or plain".

use crate::procedure::{self, Exchange, Random, ReplicaKeeper, StateKeeper, WriteLock};
use crate::record::{EditRow, Op, ReplyRow};
use crate::replay::{Applied, Performed, Watch};
use crate::Device;
use nocturne_core::flow::chat::{self, Reply, TurnOutcome};
use nocturne_core::flow::edit::{self, UserEdit};
use nocturne_core::flow::estimate::{self, Estimate};
use nocturne_core::flow::focus::Scope;
use nocturne_core::flow::import::{self, Progress, Report, TranscriptCache};
use nocturne_core::flow::import_plan::{ImportOptions, Plan, SleepAfter};
use nocturne_core::flow::report::{PassEvent, SleepReport};
use nocturne_core::flow::review::{self, Decisions, Review};
use nocturne_core::flow::sleep::{self, SleepOptions};
use nocturne_core::flow::stop::StopToken;
use nocturne_core::llm::provider::Provider;
use nocturne_core::model::memory::Version;
use nocturne_core::model::policy::RetentionPolicy;
use nocturne_core::store::erase::Erased;
use nocturne_core::store::{replanning, Store, StoreError};
use nocturne_core::text::when::Day;

/// How a Sleep through the journal meets a heavy retirement — more than a quarter of the
/// active facts (`Estimate::retires_a_lot`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heavy {
    /// Refuse it, writing nothing: the user has not seen what it retires.
    Refuse,
    /// The user said go ahead (`--yes`, a confirmation).
    GoAhead,
}

/// A Sleep asked of the journal: how it runs, and what the caller sees as it goes.
pub struct SleepCall<'a> {
    pub options: &'a SleepOptions,
    pub heavy: Heavy,
    /// The estimate, before anything runs (also before a heavy Sleep is refused).
    pub on_estimate: Box<dyn FnMut(&Estimate) + 'a>,
    /// Each pass as it starts and ends.
    pub on_event: Box<dyn FnMut(&PassEvent) + 'a>,
    /// Why the space's Sleep lease could not be asked, when it could not.
    pub notes: Vec<String>,
}

impl<'a> SleepCall<'a> {
    /// A Sleep with `options` that refuses a heavy retirement and shows nothing as it goes.
    pub fn quiet(options: &'a SleepOptions) -> Self {
        SleepCall {
            options,
            heavy: Heavy::Refuse,
            on_estimate: Box::new(|_| {}),
            on_event: Box::new(|_| {}),
            notes: Vec::new(),
        }
    }
}

/// Why a Sleep through the journal did not run to its end.
#[derive(Clone, Debug, PartialEq)]
pub enum SleepFailure {
    /// It would retire more than a quarter of the memory and the user has not said go
    /// ahead: nothing was written.
    Heavy(Estimate),
    /// The store, the model or the sync failed, in words a user can act on; the passes
    /// that completed are kept.
    Failed(String),
}

impl std::fmt::Display for SleepFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SleepFailure::Heavy(e) => write!(
                f,
                "this Sleep would retire {} of {} active facts (more than a quarter); nothing was written",
                e.retire, e.active
            ),
            SleepFailure::Failed(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for SleepFailure {}

/// The space's Sleep lease, taken around a Sleep (or a reviewed plan's application) of a
/// memory that syncs, so one device sleeps at a time.
#[allow(async_fn_in_trait)]
pub trait Lease {
    /// Takes it: `Err` when another device holds it (nothing may be written);
    /// `Ok(Some(note))` when the server could not be asked (the Sleep goes ahead);
    /// `Ok(None)` when taken.
    async fn take(&self, now: i64) -> Result<Option<String>, String>;
    /// Gives it back (best effort: it expires by itself).
    async fn release(&self, now: i64);
}

/// The lease asked of the space's server through this device's replica
/// ([`procedure::take_lease`]): the command line's, and the page's sync worker's.
pub struct ServerLease<'a, K, E, R> {
    pub keeper: &'a K,
    pub exchange: &'a E,
    pub random: &'a R,
}

impl<K: ReplicaKeeper, E: Exchange, R: Random> Lease for ServerLease<'_, K, E, R> {
    async fn take(&self, now: i64) -> Result<Option<String>, String> {
        procedure::take_lease(self.keeper, self.exchange, self.random, now).await
    }
    async fn release(&self, now: i64) {
        procedure::release_lease(self.keeper, self.exchange, self.random, now).await
    }
}

/// A memory, where its sync state is kept, and the lock its writers share: every write
/// holds it (a Sleep and a reviewed plan's application only when it is free, so they never
/// wait behind another writer), so no two writes interleave.
pub struct Journal<'a, K, S, L> {
    pub keeper: &'a K,
    pub store: &'a S,
    pub lock: &'a L,
}

/// What a write did, and, when the memory syncs, what its record did (kept for the next
/// sync).
#[derive(Clone, Debug, PartialEq)]
pub struct Journaled<T> {
    pub done: T,
    pub recorded: Option<String>,
}

impl<T> Journaled<T> {
    fn plain(done: T) -> Self {
        Journaled { done, recorded: None }
    }
}

impl<K: StateKeeper, S: Store, L: WriteLock> Journal<'_, K, S, L> {
    /// Stores a turn of the user's, encoded: with the reply it got (a chat turn), or none
    /// (an MCP host's `add_memory`).
    pub async fn say<P: Provider>(
        &self,
        provider: &P,
        speaker: Option<&str>,
        text: &str,
        reply: Option<&Reply>,
        at: i64,
    ) -> Result<Journaled<TurnOutcome>, String> {
        self.lock
            .hold(async {
                let row = reply.map(|r| ReplyRow {
                    text: r.text.clone(),
                    memory: r.memory.clone(),
                    refused: r.refused.clone(),
                });
                let op = Op::Say { text: text.trim().to_string(), speaker: speaker.map(String::from), reply: row };
                let mut watch = Watch { stop: Default::default(), on_event: &mut |_| {} };
                if let Some(done) = procedure::act(self.keeper, self.store, provider, op, at, &mut watch).await? {
                    let turn = done.turn.ok_or_else(|| format!("the turn was not stored: {}", done.applied))?;
                    return Ok(Journaled { done: turn, recorded: Some(done.applied.to_string()) });
                }
                let turn = match reply {
                    Some(r) => {
                        chat::record(self.store, provider, text.trim(), r, at, chat::TurnOptions::by(speaker)).await
                    }
                    None => chat::remember(self.store, provider, text, at, chat::TurnOptions::by(speaker)).await,
                };
                turn.map(Journaled::plain).map_err(|e| format!("{e}; nothing was stored"))
            })
            .await
    }

    /// The user's correction, pin, unpin or forget of one active fact; the version it wrote.
    pub async fn edit(&self, edit: &UserEdit, at: i64) -> Result<Journaled<Version>, String> {
        self.lock
            .hold(async {
                if self.keeper.state().await?.is_some() {
                    let items = self.store.items().await.map_err(|e| e.to_string())?;
                    let fact = items
                        .iter()
                        .find(|i| i.item_id == edit.item_id() && i.active)
                        .ok_or_else(|| format!("there is no active fact {}; nothing was changed", edit.item_id()))?;
                    let done = self.act_for_user(Op::Edit { edit: EditRow::from_edit(edit, &fact.text) }, at).await?;
                    let versions = self.store.versions().await.map_err(|e| e.to_string())?;
                    let version = versions.last().cloned().ok_or("the edit wrote no version")?;
                    return Ok(Journaled { done: version, recorded: Some(done.applied.to_string()) });
                }
                edit::apply(self.store, edit, at).await.map(Journaled::plain).map_err(|e| e.to_string())
            })
            .await
    }

    /// The user's retention policy (`flow::edit::set_policy`): what it logged, `None` when
    /// it changed nothing (and then nothing is recorded either).
    pub async fn set_policy(&self, policy: &RetentionPolicy, at: i64) -> Result<Journaled<Option<String>>, String> {
        self.lock
            .hold(async {
                let unchanged = self.store.meta().await.map_err(|e| e.to_string())?.policy == *policy;
                if self.keeper.state().await?.is_some() && !unchanged {
                    policy.validate().map_err(|why| {
                        edit::EditError::NotEditable(format!("the retention policy is not usable: {why}")).to_string()
                    })?;
                    let done = self.act_for_user(Op::Policy { policy: policy.clone() }, at).await?;
                    return Ok(Journaled { done: done.policy, recorded: Some(done.applied.to_string()) });
                }
                edit::set_policy(self.store, policy.clone(), at).await.map(Journaled::plain).map_err(|e| e.to_string())
            })
            .await
    }

    /// Restores version `seq` as a new version (`Store::restore`); recorded when the
    /// memory syncs, and refused as stale on a device whose head another record moved.
    pub async fn restore(&self, seq: u64, at: i64) -> Result<Journaled<Version>, String> {
        self.lock
            .hold(async {
                if self.keeper.state().await?.is_some() {
                    // Checked first, so a version this memory lacks is no record at all.
                    let head = self.store.meta().await.map_err(|e| e.to_string())?.head;
                    if seq == 0 || seq > head {
                        return Err(StoreError::NoSuchVersion(seq).to_string());
                    }
                    let done = self.act_for_user(Op::Restore { seq }, at).await?;
                    let version = done.restored.ok_or_else(|| done.applied.to_string())?;
                    return Ok(Journaled { done: version, recorded: Some(done.applied.to_string()) });
                }
                self.store.restore(seq, at).await.map(Journaled::plain).map_err(|e| e.to_string())
            })
            .await
    }

    /// Erases a fact's words from every version (and, when the memory syncs, from every
    /// copy at the next sync).
    pub async fn erase(&self, item_id: &str, at: i64) -> Result<Journaled<Erased>, String> {
        self.lock
            .hold(async {
                if let Some(erased) = procedure::erase(self.keeper, self.store, item_id, at).await? {
                    return Ok(Journaled { done: erased, recorded: Some("done".into()) });
                }
                edit::erase(self.store, item_id, at).await.map(Journaled::plain).map_err(|e| e.to_string())
            })
            .await
    }

    /// A Sleep that is not a dry run. The estimate comes first (`call.on_estimate`), synced
    /// or not, and a Sleep that would retire more than a quarter of the memory is refused,
    /// writing nothing, unless the user said go ahead (`call.heavy`). When the memory
    /// syncs it then takes the space's Sleep lease (`call.notes` gets why the server could
    /// not be asked, when it could not), is recorded, and gives the lease back; otherwise
    /// a pass planned on a head another writer moved makes the Sleep run again on the new
    /// memory.
    pub async fn sleep<P: Provider>(
        &self,
        provider: &P,
        lease: &impl Lease,
        call: &mut SleepCall<'_>,
    ) -> Result<Journaled<SleepReport>, SleepFailure> {
        let held = self.lock.hold_if_free(async { Ok(self.sleep_held(provider, lease, call).await) }).await;
        held.map_err(SleepFailure::Failed)?
    }

    async fn sleep_held<P: Provider>(
        &self,
        provider: &P,
        lease: &impl Lease,
        call: &mut SleepCall<'_>,
    ) -> Result<Journaled<SleepReport>, SleepFailure> {
        let style = provider.proposal_style();
        let estimate = estimate::estimate(self.store, style, call.options)
            .await
            .map_err(|e| SleepFailure::Failed(e.to_string()))?;
        (call.on_estimate)(&estimate);
        if estimate.retires_a_lot() && call.heavy == Heavy::Refuse {
            return Err(SleepFailure::Heavy(estimate));
        }
        self.sleep_now(provider, lease, call).await.map_err(SleepFailure::Failed)
    }

    async fn sleep_now<P: Provider>(
        &self,
        provider: &P,
        lease: &impl Lease,
        call: &mut SleepCall<'_>,
    ) -> Result<Journaled<SleepReport>, String> {
        let options = call.options;
        if self.keeper.state().await?.is_some() {
            call.notes.extend(lease.take(options.now).await?);
            let op = Op::Sleep { deep: options.scope == Scope::Deep };
            let mut watch = Watch { stop: options.stop.clone(), on_event: &mut *call.on_event };
            let done = procedure::act(self.keeper, self.store, provider, op, options.now, &mut watch).await;
            lease.release(options.now).await;
            let done = done?.ok_or("the memory stopped syncing; nothing was changed")?;
            let report = done.sleep.ok_or_else(|| done.applied.to_string())?;
            return Ok(Journaled { done: report, recorded: Some(done.applied.to_string()) });
        }
        replanning(
            |e| matches!(e, sleep::SleepError::Store(e) if e.is_conflict()),
            async || sleep::sleep(self.store, provider, options, &mut *call.on_event).await,
        )
        .await
        .map(Journaled::plain)
        .map_err(|e| e.to_string())
    }

    /// Performs a write of the user's own (no model) as this device's next record, on a
    /// memory that syncs. A refusal (the edit's gate said no) is the error: it is logged,
    /// and its record stays so the other devices log the same refusal.
    async fn act_for_user(&self, op: Op, at: i64) -> Result<Performed, String> {
        let mut watch = Watch { stop: Default::default(), on_event: &mut |_| {} };
        let done = procedure::act_plain(self.keeper, self.store, op, at, &mut watch)
            .await?
            .ok_or("the memory stopped syncing; nothing was changed")?;
        match done.applied {
            Applied::Refused(why) => Err(why),
            _ => Ok(done),
        }
    }

    /// Writes one piece of an import (`flow::import_plan::Plan::pieces`) as `flow::import`
    /// writes it, sleeping after each day of history when `options.sleep` asks (the Sleep
    /// at the end is [`Journal::import_sleep`]). `seen` is carried from piece to piece.
    ///
    /// When the memory syncs, each day of the piece is a record holding its messages and
    /// the encoder's replies (cut to the batches written, when the import is stopped) and
    /// each Sleep is a record of its own, under the space's Sleep lease: other devices
    /// replay them, and nothing is sent as a copy of the whole memory.
    #[allow(clippy::too_many_arguments)]
    pub async fn import<P: Provider>(
        &self,
        provider: &P,
        lease: &impl Lease,
        piece: &Plan,
        options: &ImportOptions,
        seen: &mut TranscriptCache,
        now: i64,
        on_progress: &mut dyn FnMut(&Progress),
    ) -> Result<Journaled<Report>, String> {
        self.lock
            .hold(async {
                let each_day = options.sleep == SleepAfter::EachDay;
                if self.keeper.state().await?.is_none() {
                    let sleep = if each_day { SleepAfter::EachDay } else { SleepAfter::Never };
                    let options = ImportOptions { sleep, ..options.clone() };
                    return import::run_piece(self.store, provider, piece, &options, now, seen, on_progress)
                        .await
                        .map(Journaled::plain)
                        .map_err(|e| e.to_string());
                }
                let notes = if each_day { lease.take(now).await? } else { None };
                // The device's state is read and saved once for the piece, however many records.
                let done = match self.keeper.state().await {
                    Ok(Some(mut joined)) => {
                        let done =
                            self.import_recorded(&mut joined.device, provider, piece, options, now, on_progress).await;
                        let saved = self.keeper.save_state(&joined).await;
                        saved.and(done)
                    }
                    Ok(None) => Err("the memory stopped syncing; nothing was imported".into()),
                    Err(e) => Err(e),
                };
                if each_day {
                    lease.release(now).await;
                }
                let (report, records) = done?;
                let recorded =
                    notes.into_iter().chain([format!("{records} import record(s)")]).collect::<Vec<_>>().join("; ");
                Ok(Journaled { done: report, recorded: Some(recorded) })
            })
            .await
    }

    /// [`Journal::import`] on a memory that syncs: a record per day, and per Sleep.
    async fn import_recorded<P: Provider>(
        &self,
        device: &mut Device,
        provider: &P,
        piece: &Plan,
        options: &ImportOptions,
        now: i64,
        on_progress: &mut dyn FnMut(&Progress),
    ) -> Result<(Report, usize), String> {
        let mut report = Report {
            conversations: piece.conversations,
            duplicates: piece.duplicates,
            too_long: piece.too_long,
            ..Default::default()
        };
        let mut progress = Progress { batches: piece.batches.len(), ..Default::default() };
        let mut records = 0;
        for day in piece.pieces(1).into_iter().filter(|d| !d.messages.is_empty()) {
            if options.stop.is_stopped() {
                report.stopped = true;
                break;
            }
            let op = Op::Import { messages: day.messages.clone(), batches: day.batches.clone() };
            let done = act(device, self.store, provider, op, now, &options.stop).await?;
            records += 1;
            let imported = done.import.ok_or_else(|| done.applied.to_string())?;
            if let Some(why) = imported.failed {
                return Err(import::ImportError::Provider(why).to_string());
            }
            progress.batches_done += imported.batches;
            let facts = imported.report.facts;
            report.absorb(imported.report);
            progress = Progress {
                turns: report.user_turns + report.assistant_turns,
                facts: report.facts,
                refused: report.refused,
                day: Some(Day::from_unix(day.messages[0].at)),
                ..progress
            };
            on_progress(&progress);
            if report.stopped {
                break;
            }
            if options.sleep == SleepAfter::EachDay && facts > 0 {
                let end_of_day = Day::from_unix(day.messages[0].at).start() + 86_399;
                let done =
                    act(device, self.store, provider, Op::Sleep { deep: false }, end_of_day, &options.stop).await?;
                records += 1;
                match done.sleep {
                    Some(_) => report.sleeps += 1,
                    None if options.stop.is_stopped() => report.stopped = true,
                    None => report.sleep_errors.push(format!("{}: {}", Day::from_unix(end_of_day), done.applied)),
                }
                progress.sleeps = report.sleeps;
                on_progress(&progress);
            }
        }
        Ok((report, records))
    }

    /// The deep Sleep at the end of an import that asked for one (`SleepAfter::End`) and
    /// wrote a turn of the user's — held, with `report.held` saying why, when it would
    /// retire more than a quarter of the memory and `options.retire_a_lot` is not set.
    /// When the memory syncs it is a record, under the space's Sleep lease.
    pub async fn import_sleep<P: Provider>(
        &self,
        provider: &P,
        lease: &impl Lease,
        options: &ImportOptions,
        now: i64,
        report: &mut Report,
    ) -> Result<(), String> {
        self.lock
            .hold(async {
                if options.sleep != SleepAfter::End || report.stopped || report.user_turns == 0 {
                    return Ok(());
                }
                if self.keeper.state().await?.is_none() {
                    return import::final_sleep(self.store, provider, options, now, report)
                        .await
                        .map_err(|e| e.to_string());
                }
                let held = import::holds_final_sleep(self.store, provider.proposal_style(), options, now, report).await;
                if held.map_err(|e| e.to_string())? {
                    return Ok(());
                }
                let sleep_options =
                    SleepOptions { budget: options.budget, stop: options.stop.clone(), ..SleepOptions::new(now) }
                        .deep();
                let mut call = SleepCall { heavy: Heavy::GoAhead, ..SleepCall::quiet(&sleep_options) };
                match self.sleep_now(provider, lease, &mut call).await {
                    Ok(_) => report.sleeps += 1,
                    Err(_) if options.stop.is_stopped() => report.stopped = true,
                    Err(why) => report.sleep_errors.push(format!("{}: {why}", Day::from_unix(now))),
                }
                Ok(())
            })
            .await
    }

    /// Applies a reviewed Sleep's `plan` with the user's `decisions` (`flow::review::apply`):
    /// under the Sleep lease and as a record when the memory syncs. Decisions naming an
    /// edit the plan lacks change nothing.
    pub async fn apply(
        &self,
        plan: &Review,
        decisions: &Decisions,
        lease: &impl Lease,
        at: i64,
        on_event: &mut dyn FnMut(&PassEvent),
    ) -> Result<Journaled<review::Applied>, String> {
        self.lock
            .hold_if_free(async {
                plan.check(decisions).map_err(|e| e.to_string())?;
                if self.keeper.state().await?.is_some() {
                    let note = lease.take(at).await?;
                    let op = Op::Apply { plan: Box::new(plan.clone()), decisions: decisions.clone() };
                    let mut watch = Watch { stop: Default::default(), on_event };
                    let done = procedure::act_plain(self.keeper, self.store, op, at, &mut watch).await;
                    lease.release(at).await;
                    let done = done?.ok_or("the memory stopped syncing; nothing was changed")?;
                    let applied = done.review.ok_or_else(|| done.applied.to_string())?;
                    let recorded = note.into_iter().chain([done.applied.to_string()]).collect::<Vec<_>>().join("; ");
                    return Ok(Journaled { done: applied, recorded: Some(recorded) });
                }
                replanning(
                    |e| matches!(e, review::ReviewError::Sleep(sleep::SleepError::Store(e)) if e.is_conflict()),
                    async || review::apply(self.store, plan, decisions, at, on_event).await,
                )
                .await
                .map(Journaled::plain)
                .map_err(|e| e.to_string())
            })
            .await
    }
}

/// Performs `op` as `device`'s next record, watched by `stop`.
async fn act<S: Store, P: Provider>(
    device: &mut Device,
    store: &S,
    provider: &P,
    op: Op,
    at: i64,
    stop: &StopToken,
) -> Result<Performed, String> {
    let mut watch = Watch { stop: stop.clone(), on_event: &mut |_| {} };
    crate::act_watched(device, store, provider, op, at, &mut watch).await.map_err(|e| e.to_string())
}
