//! The one write path: [`Journal::perform`] takes the memory's write lock, runs what must
//! come first (a reply, a check of the input), then either hands the command to the
//! device's [`Recorder`] — which, when the memory syncs, performs it as this device's next
//! record through the same core functions every other device replays — or performs it
//! directly. A Sleep's plan, guard and application are [`super::sleep`]'s.

use super::command::{
    Apply, Command, Done, Edit, Erase, Import, Imported, Outcome, Policy, Progress, Reply, Restore, Say, Watch, CUT,
};
use super::error::{BadInput, Refusal, WriteError};
use super::hooks::{Recorded, Recorder, WriteLock};
use crate::flow::chat::{self, ChatError, TurnOutcome};
use crate::flow::edit::{self, UserEdit};
use crate::flow::import;
use crate::flow::import_plan::{ImportOptions, SleepAfter};
use crate::flow::review;
use crate::flow::told;
use crate::llm::provider::{Provider, ProviderError};
use crate::model::memory::Version;
use crate::store::erase::Erased;
use crate::store::{replanning, Store};

/// A memory, the lock its writers share, and whoever records its writes: every write a
/// device makes goes through [`Journal::perform`]. The page, the command line and the MCP
/// server each hold one over their own store; none of them decides "synced or plain".
#[derive(Debug)]
pub struct Journal<'a, S, L, R> {
    pub store: &'a S,
    pub lock: &'a L,
    pub sync: &'a R,
}

impl<'a, S: Store, L: WriteLock, R: Recorder> Journal<'a, S, L, R> {
    pub fn new(store: &'a S, lock: &'a L, sync: &'a R) -> Self {
        Journal { store, lock, sync }
    }

    /// Performs `command`, asking `provider` when it needs a model and telling `watch` what
    /// happens as it goes: the command's own output (its type known when the command's is),
    /// or an [`Outcome`] for a [`Command`].
    pub async fn perform<C: Perform, P: Provider>(
        &self,
        command: C,
        provider: &P,
        watch: &mut Watch<'_>,
    ) -> Result<Done<C::Output>, WriteError> {
        command.perform_in(self, provider, watch).await
    }

    /// Hands `command` to the recorder: what its record did, or the error of a memory that
    /// stopped syncing since it was asked.
    pub(super) async fn record<P: Provider>(
        &self,
        provider: &P,
        command: Command,
        watch: &mut Watch<'_>,
    ) -> Result<Recorded, WriteError> {
        self.sync.record(self.store, provider, &command, watch).await
    }
}

/// A command the journal performs, and what performing it gives back.
#[allow(async_fn_in_trait)]
pub trait Perform {
    type Output;
    /// Performs it through `journal` (use [`Journal::perform`]).
    async fn perform_in<S: Store, L: WriteLock, R: Recorder, P: Provider>(
        self,
        journal: &Journal<'_, S, L, R>,
        provider: &P,
        watch: &mut Watch<'_>,
    ) -> Result<Done<Self::Output>, WriteError>;
}

/// The field of a record's result the command needed, or the record's own refusal.
fn kept<T>(field: Option<T>, note: String) -> Result<Done<T>, WriteError> {
    match field {
        Some(done) => Ok(Done { done, recorded: Some(note) }),
        None => Err(WriteError::Refused(Refusal::Record(note))),
    }
}

impl Perform for Say {
    type Output = TurnOutcome;
    async fn perform_in<S: Store, L: WriteLock, R: Recorder, P: Provider>(
        self,
        j: &Journal<'_, S, L, R>,
        provider: &P,
        watch: &mut Watch<'_>,
    ) -> Result<Done<TurnOutcome>, WriteError> {
        j.lock
            .hold(async {
                if j.sync.syncs().await? {
                    let r = j.record(provider, Command::Say(self), watch).await?;
                    return kept(r.turn, r.note);
                }
                let by =
                    chat::TurnOptions { origin: self.origin.clone(), ..chat::TurnOptions::by(self.speaker.as_deref()) };
                let turn = match &self.reply {
                    Some(reply) => chat::record(j.store, provider, self.text.trim(), reply, self.at, by).await,
                    None => chat::remember(j.store, provider, &self.text, self.at, by).await,
                };
                Ok(Done::plain(turn?))
            })
            .await
    }
}

impl Perform for Reply {
    type Output = TurnOutcome;
    async fn perform_in<S: Store, L: WriteLock, R: Recorder, P: Provider>(
        self,
        j: &Journal<'_, S, L, R>,
        provider: &P,
        watch: &mut Watch<'_>,
    ) -> Result<Done<TurnOutcome>, WriteError> {
        // The reply writes nothing: it is asked outside the lock, and the turn is stored
        // under it, so a reply never waits behind a Sleep.
        let mut streamed = String::new();
        let replied = {
            let mut on_delta = |d: &str| {
                streamed.push_str(d);
                watch.say(Progress::Delta(d));
            };
            chat::reply(j.store, provider, &self.text, self.at, &mut on_delta).await
        };
        let reply = match replied {
            Ok(reply) => reply,
            // Stopped: what was streamed is kept, marked as cut. Only the user's turn is
            // ever encoded, so nothing of the cut reply becomes a fact.
            Err(ChatError::Provider(ProviderError::Stopped)) => {
                chat::Reply { text: format!("{} {CUT}", streamed.trim_end()), ..Default::default() }
            }
            Err(e) => return Err(e.into()),
        };
        watch.say(Progress::Replied);
        let (text, at) = (self.text.clone(), self.at);
        let say =
            Say { text: self.text, speaker: self.speaker, reply: Some(reply), at: self.at, origin: Default::default() };
        let mut done = say.perform_in(j, provider, watch).await?;
        // The turn's memory commands, each the user's `Edit` through this journal (recorded
        // when the memory syncs), or a question back that changes nothing.
        let edit = async |e: &UserEdit| {
            let edit = Edit { edit: e.clone(), at };
            edit.perform_in(j, provider, &mut Watch::quiet()).await.map(|d| d.done).map_err(|e| e.to_string())
        };
        done.done.told = told::carry_out(j.store, &text, &done.done.encoded, edit).await?;
        Ok(done)
    }
}

impl Perform for Edit {
    type Output = Version;
    async fn perform_in<S: Store, L: WriteLock, R: Recorder, P: Provider>(
        self,
        j: &Journal<'_, S, L, R>,
        provider: &P,
        watch: &mut Watch<'_>,
    ) -> Result<Done<Version>, WriteError> {
        j.lock
            .hold(async {
                if j.sync.syncs().await? {
                    let id = self.edit.item_id().to_string();
                    let items = j.store.items().await?;
                    if !items.iter().any(|i| i.item_id == id && i.active) {
                        return Err(WriteError::BadInput(BadInput::Fact(format!("there is no active fact {id}"))));
                    }
                    let r = j.record(provider, Command::Edit(self), watch).await?;
                    return kept(r.version, r.note);
                }
                Ok(Done::plain(edit::apply(j.store, &self.edit, self.at).await?))
            })
            .await
    }
}

impl Perform for Erase {
    type Output = Erased;
    async fn perform_in<S: Store, L: WriteLock, R: Recorder, P: Provider>(
        self,
        j: &Journal<'_, S, L, R>,
        provider: &P,
        watch: &mut Watch<'_>,
    ) -> Result<Done<Erased>, WriteError> {
        j.lock
            .hold(async {
                if j.sync.syncs().await? {
                    let r = j.record(provider, Command::Erase(self), watch).await?;
                    return kept(r.erased, r.note);
                }
                Ok(Done::plain(edit::erase(j.store, &self.item_id, self.at).await?))
            })
            .await
    }
}

impl Perform for Restore {
    type Output = Version;
    async fn perform_in<S: Store, L: WriteLock, R: Recorder, P: Provider>(
        self,
        j: &Journal<'_, S, L, R>,
        provider: &P,
        watch: &mut Watch<'_>,
    ) -> Result<Done<Version>, WriteError> {
        j.lock
            .hold(async {
                // Checked first, so a version this memory lacks is no record at all.
                let head = j.store.meta().await?.head;
                if self.seq == 0 || self.seq > head {
                    return Err(WriteError::BadInput(BadInput::NoVersion(self.seq)));
                }
                if j.sync.syncs().await? {
                    let r = j.record(provider, Command::Restore(self), watch).await?;
                    return kept(r.version, r.note);
                }
                Ok(Done::plain(j.store.restore(self.seq, self.at).await?))
            })
            .await
    }
}

impl Perform for Policy {
    type Output = Option<String>;
    async fn perform_in<S: Store, L: WriteLock, R: Recorder, P: Provider>(
        self,
        j: &Journal<'_, S, L, R>,
        provider: &P,
        watch: &mut Watch<'_>,
    ) -> Result<Done<Option<String>>, WriteError> {
        j.lock
            .hold(async {
                // A policy that changes nothing writes nothing, and is no record either.
                if j.store.meta().await?.policy == self.policy {
                    return Ok(Done::plain(None));
                }
                if let Err(why) = self.policy.validate() {
                    return Err(WriteError::BadInput(BadInput::Policy(why)));
                }
                if j.sync.syncs().await? {
                    let r = j.record(provider, Command::Policy(self), watch).await?;
                    return Ok(Done { done: r.policy, recorded: Some(r.note) });
                }
                Ok(Done::plain(edit::set_policy(j.store, self.policy, self.at).await?))
            })
            .await
    }
}

impl Perform for Apply {
    type Output = review::Applied;
    async fn perform_in<S: Store, L: WriteLock, R: Recorder, P: Provider>(
        self,
        j: &Journal<'_, S, L, R>,
        provider: &P,
        watch: &mut Watch<'_>,
    ) -> Result<Done<review::Applied>, WriteError> {
        j.lock
            .hold_if_free(async {
                self.plan.check(&self.decisions).map_err(|e| WriteError::BadInput(BadInput::Plan(e)))?;
                if j.sync.syncs().await? {
                    let at = self.at;
                    let note = j.sync.take_lease(at).await?;
                    let r = j.record(provider, Command::Apply(self), watch).await;
                    j.sync.release_lease(at).await;
                    let r = r?;
                    let recorded = note.into_iter().chain([r.note]).collect::<Vec<_>>().join("; ");
                    return kept(r.applied, recorded);
                }
                let mut on_event = |e: &crate::flow::report::PassEvent| watch.say(Progress::Pass(e));
                let applied = replanning(
                    |e: &review::ReviewError| matches!(e, review::ReviewError::Sleep(crate::flow::sleep::SleepError::Store(e)) if e.is_conflict()),
                    async || review::apply(j.store, &self.plan, &self.decisions, self.at, &mut on_event).await,
                )
                .await?;
                Ok(Done::plain(applied))
            })
            .await
    }
}

impl Perform for Import {
    type Output = Imported;
    async fn perform_in<S: Store, L: WriteLock, R: Recorder, P: Provider>(
        self,
        j: &Journal<'_, S, L, R>,
        provider: &P,
        watch: &mut Watch<'_>,
    ) -> Result<Done<Imported>, WriteError> {
        j.lock
            .hold(async {
                if j.sync.syncs().await? {
                    let r = j.record(provider, Command::Import(self), watch).await?;
                    let done = kept(r.import, r.note)?;
                    return Ok(done.map(|report| Imported { report, seen: Default::default() }));
                }
                // The Sleep at the end is the journal's own command (`ImportSleep`).
                let each_day = self.options.sleep == SleepAfter::EachDay;
                let sleep = if each_day { SleepAfter::EachDay } else { SleepAfter::Never };
                let options = ImportOptions { sleep, ..self.options };
                let mut seen = self.seen;
                let mut on_progress = |p: &import::Progress| watch.say(Progress::Import(p));
                let report =
                    import::run_piece(j.store, provider, &self.piece, &options, self.at, &mut seen, &mut on_progress)
                        .await?;
                Ok(Done::plain(Imported { report, seen }))
            })
            .await
    }
}

impl Perform for Command {
    type Output = Outcome;
    async fn perform_in<S: Store, L: WriteLock, R: Recorder, P: Provider>(
        self,
        j: &Journal<'_, S, L, R>,
        provider: &P,
        watch: &mut Watch<'_>,
    ) -> Result<Done<Outcome>, WriteError> {
        Ok(match self {
            Command::Say(c) => c.perform_in(j, provider, watch).await?.map(Outcome::Turn),
            Command::Reply(c) => c.perform_in(j, provider, watch).await?.map(Outcome::Turn),
            Command::Edit(c) => c.perform_in(j, provider, watch).await?.map(Outcome::Edited),
            Command::Erase(c) => c.perform_in(j, provider, watch).await?.map(Outcome::Erased),
            Command::Restore(c) => c.perform_in(j, provider, watch).await?.map(Outcome::Restored),
            Command::Policy(c) => c.perform_in(j, provider, watch).await?.map(Outcome::Policy),
            Command::Sleep(c) => c.perform_in(j, provider, watch).await?.map(|s| Outcome::Slept(Box::new(s))),
            Command::Apply(c) => c.perform_in(j, provider, watch).await?.map(Outcome::Applied),
            Command::Import(c) => c.perform_in(j, provider, watch).await?.map(Outcome::Imported),
            Command::ImportSleep(c) => c.perform_in(j, provider, watch).await?.map(Outcome::ImportSlept),
        })
    }
}
