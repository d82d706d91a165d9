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
use crate::flow::report::PassEvent;
use crate::flow::review::{self, ReviewError};
use crate::flow::sleep::SleepError;
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

/// What is particular to a command the journal performs whole under the lock (every
/// command but a reply, which asks its model first, and a Sleep, which is planned first):
/// what it checks, what of its record it gives back, and how it is done on a memory that
/// does not sync. [`Journal::write_locked`] does the rest, the same for each: the lock, then the
/// check, then recorded when the memory syncs, or done here.
#[allow(async_fn_in_trait)]
pub trait LockedWrite: Into<Command> {
    type Output;

    /// Whether it runs only when no other writer holds the lock (refused at once, not made
    /// to wait) and, when the memory syncs, under the space's Sleep lease: a plan applied.
    const AS_SLEEP: bool = false;

    /// Checked under the lock before anything is done or recorded: an error refuses it,
    /// `Some` is its whole answer (a write that would change nothing writes nothing).
    async fn check<S: Store>(&self, _store: &S) -> Result<Option<Self::Output>, WriteError> {
        Ok(None)
    }

    /// Checked before it is recorded, on a memory that syncs (a record is kept for every
    /// other device, so it must be one that does something).
    async fn check_record<S: Store>(&self, _store: &S) -> Result<(), WriteError> {
        Ok(())
    }

    /// Its result, taken from what its record did (`None`: the record refused it).
    fn kept(recorded: Recorded) -> Option<Self::Output>;

    /// Done here, on a memory that does not sync.
    async fn apply<S: Store, P: Provider>(
        self,
        store: &S,
        provider: &P,
        watch: &mut Watch<'_>,
    ) -> Result<Self::Output, WriteError>;
}

impl<'a, S: Store, L: WriteLock, R: Recorder> Journal<'a, S, L, R> {
    /// Performs a [`LockedWrite`]: under the lock, its check, then recorded or done here.
    async fn write_locked<C: LockedWrite, P: Provider>(
        &self,
        command: C,
        provider: &P,
        watch: &mut Watch<'_>,
    ) -> Result<Done<C::Output>, WriteError> {
        let work = async {
            if let Some(done) = command.check(self.store).await? {
                return Ok(Done::plain(done));
            }
            if !self.sync.syncs().await? {
                return Ok(Done::plain(command.apply(self.store, provider, watch).await?));
            }
            command.check_record(self.store).await?;
            let mut recorded = self.record_write(command, provider, watch).await?;
            let note = std::mem::take(&mut recorded.note);
            match C::kept(recorded) {
                Some(done) => Ok(Done { done, recorded: Some(note) }),
                None => Err(WriteError::Refused(Refusal::Record(note))),
            }
        };
        if C::AS_SLEEP {
            self.lock.hold_if_free(work).await
        } else {
            self.lock.hold(work).await
        }
    }

    /// `command` recorded, under the Sleep lease when it goes as a Sleep (the lease's note,
    /// when it could not be asked, said before the record's).
    async fn record_write<C: LockedWrite, P: Provider>(
        &self,
        command: C,
        provider: &P,
        watch: &mut Watch<'_>,
    ) -> Result<Recorded, WriteError> {
        let command: Command = command.into();
        if !C::AS_SLEEP {
            return self.record(provider, command, watch).await;
        }
        let at = command.at();
        let lease_note = self.sync.take_lease(at).await?;
        let recorded = self.record(provider, command, watch).await;
        self.sync.release_lease(at).await;
        let mut recorded = recorded?;
        recorded.note =
            lease_note.into_iter().chain([std::mem::take(&mut recorded.note)]).collect::<Vec<_>>().join("; ");
        Ok(recorded)
    }
}

impl<C: LockedWrite> Perform for C {
    type Output = C::Output;
    async fn perform_in<S: Store, L: WriteLock, R: Recorder, P: Provider>(
        self,
        journal: &Journal<'_, S, L, R>,
        provider: &P,
        watch: &mut Watch<'_>,
    ) -> Result<Done<C::Output>, WriteError> {
        journal.write_locked(self, provider, watch).await
    }
}

impl LockedWrite for Say {
    type Output = TurnOutcome;

    fn kept(r: Recorded) -> Option<TurnOutcome> {
        r.turn
    }

    async fn apply<S: Store, P: Provider>(
        self,
        store: &S,
        provider: &P,
        _: &mut Watch<'_>,
    ) -> Result<TurnOutcome, WriteError> {
        let by = chat::TurnOptions { origin: self.origin.clone(), ..chat::TurnOptions::by(self.speaker.as_deref()) };
        let turn = match &self.reply {
            Some(reply) => chat::record(store, provider, self.text.trim(), reply, self.at, by).await,
            None => chat::remember(store, provider, &self.text, self.at, by).await,
        };
        Ok(turn?)
    }
}

impl LockedWrite for Edit {
    type Output = Version;

    async fn check_record<S: Store>(&self, store: &S) -> Result<(), WriteError> {
        let id = self.edit.item_id();
        if !store.items().await?.iter().any(|i| i.item_id == id && i.active) {
            return Err(WriteError::BadInput(BadInput::Fact(format!("there is no active fact {id}"))));
        }
        Ok(())
    }

    fn kept(r: Recorded) -> Option<Version> {
        r.version
    }

    async fn apply<S: Store, P: Provider>(self, store: &S, _: &P, _: &mut Watch<'_>) -> Result<Version, WriteError> {
        Ok(edit::apply(store, &self.edit, self.at).await?)
    }
}

impl LockedWrite for Erase {
    type Output = Erased;

    fn kept(r: Recorded) -> Option<Erased> {
        r.erased
    }

    async fn apply<S: Store, P: Provider>(self, store: &S, _: &P, _: &mut Watch<'_>) -> Result<Erased, WriteError> {
        Ok(edit::erase(store, &self.item_id, self.at).await?)
    }
}

impl LockedWrite for Restore {
    type Output = Version;

    /// A version this memory lacks is no record at all.
    async fn check<S: Store>(&self, store: &S) -> Result<Option<Version>, WriteError> {
        let head = store.meta().await?.head;
        if self.seq == 0 || self.seq > head {
            return Err(WriteError::BadInput(BadInput::NoVersion(self.seq)));
        }
        Ok(None)
    }

    fn kept(r: Recorded) -> Option<Version> {
        r.version
    }

    async fn apply<S: Store, P: Provider>(self, store: &S, _: &P, _: &mut Watch<'_>) -> Result<Version, WriteError> {
        Ok(store.restore(self.seq, self.at).await?)
    }
}

impl LockedWrite for Policy {
    /// What the change logged (`None`: the policy was already this one).
    type Output = Option<String>;

    /// A policy that changes nothing writes nothing, and is no record either.
    async fn check<S: Store>(&self, store: &S) -> Result<Option<Option<String>>, WriteError> {
        if store.meta().await?.policy == self.policy {
            return Ok(Some(None));
        }
        self.policy.validate().map_err(|why| WriteError::BadInput(BadInput::Policy(why)))?;
        Ok(None)
    }

    fn kept(r: Recorded) -> Option<Option<String>> {
        Some(r.policy)
    }

    async fn apply<S: Store, P: Provider>(
        self,
        store: &S,
        _: &P,
        _: &mut Watch<'_>,
    ) -> Result<Option<String>, WriteError> {
        Ok(edit::set_policy(store, self.policy, self.at).await?)
    }
}

impl LockedWrite for Apply {
    type Output = review::Applied;
    const AS_SLEEP: bool = true;

    async fn check<S: Store>(&self, _: &S) -> Result<Option<review::Applied>, WriteError> {
        self.plan.check(&self.decisions).map_err(|e| WriteError::BadInput(BadInput::Plan(e)))?;
        Ok(None)
    }

    fn kept(r: Recorded) -> Option<review::Applied> {
        r.applied
    }

    async fn apply<S: Store, P: Provider>(
        self,
        store: &S,
        _: &P,
        watch: &mut Watch<'_>,
    ) -> Result<review::Applied, WriteError> {
        let mut on_event = |e: &PassEvent| watch.say(Progress::Pass(e));
        let conflict = |e: &ReviewError| matches!(e, ReviewError::Sleep(SleepError::Store(e)) if e.is_conflict());
        let apply = async || review::apply(store, &self.plan, &self.decisions, self.at, &mut on_event).await;
        Ok(replanning(conflict, apply).await?)
    }
}

impl LockedWrite for Import {
    type Output = Imported;

    fn kept(r: Recorded) -> Option<Imported> {
        r.import.map(|report| Imported { report, seen: Default::default() })
    }

    async fn apply<S: Store, P: Provider>(
        self,
        store: &S,
        provider: &P,
        watch: &mut Watch<'_>,
    ) -> Result<Imported, WriteError> {
        // The Sleep at the end is the journal's own command (`ImportSleep`).
        let each_day = self.options.sleep == SleepAfter::EachDay;
        let sleep = if each_day { SleepAfter::EachDay } else { SleepAfter::Never };
        let options = ImportOptions { sleep, ..self.options };
        let mut seen = self.seen;
        let mut on_progress = |p: &import::Progress| watch.say(Progress::Import(p));
        let report =
            import::run_piece(store, provider, &self.piece, &options, self.at, &mut seen, &mut on_progress).await?;
        Ok(Imported { report, seen })
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
            edit.perform_in(j, provider, &mut Watch::quiet()).await.map(|d| d.done)
        };
        done.done.told = told::carry_out(j.store, &text, &done.done.encoded, edit).await?;
        Ok(done)
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
