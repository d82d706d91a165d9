//! The sync's side of the one write path (`nocturne_core::write`): [`Syncing`], the
//! `Recorder` of a memory kept in sync. When the memory has joined a space, each command
//! the journal performs is performed here as this device's next record — mapped to its
//! operation in one place (`record::Op::of`), done through the same core functions every
//! other device replays it with (`replay`), and kept for the next sync; the space's Sleep
//! lease is asked around a Sleep. When it has not, the journal performs the command itself.

use crate::procedure::{self, Lease, StateKeeper};
use crate::record::Op;
use crate::replay::{Applied, Performed, Watch as Watching};
use crate::{Device, SyncError};
use nocturne_core::flow::import::{self, Progress, Report};
use nocturne_core::flow::import_plan::SleepAfter;
use nocturne_core::flow::report::PassEvent;
use nocturne_core::flow::stop::StopToken;
use nocturne_core::llm::provider::Provider;
use nocturne_core::store::Store;
use nocturne_core::text::when::Day;
use nocturne_core::write::{Command, Import, Kind, Progress as Said, Recorded, Recorder, Refusal, Watch, WriteError};

/// A memory that syncs (or may): where this device's sync state is kept, and how the space's
/// Sleep lease is asked.
pub struct Syncing<'a, K, L> {
    pub keeper: &'a K,
    pub lease: &'a L,
}

/// The error of a memory that left its space between the journal's question and its record.
fn stopped_syncing() -> WriteError {
    WriteError::Refused(Refusal::Record("the memory stopped syncing; nothing was changed".into()))
}

/// The Stop a command's record watches: a Sleep's or an import's.
fn stop_of(command: &Command) -> StopToken {
    match command {
        Command::Sleep(s) => s.options.stop.clone(),
        Command::Import(i) => i.options.stop.clone(),
        _ => StopToken::default(),
    }
}

impl<K: StateKeeper, L: Lease> Recorder for Syncing<'_, K, L> {
    async fn syncs(&self) -> Result<bool, WriteError> {
        Ok(self.keeper.state().await?.is_some())
    }

    async fn record<S: Store, P: Provider>(
        &self,
        store: &S,
        provider: &P,
        command: &Command,
        watch: &mut Watch<'_>,
    ) -> Result<Recorded, WriteError> {
        let at = command.at();
        if let Command::Erase(erase) = command {
            let erased = procedure::erase(self.keeper, store, &erase.item_id, at).await?.ok_or_else(stopped_syncing)?;
            return Ok(Recorded { note: "done".into(), erased: Some(erased), ..Default::default() });
        }
        if let Command::Import(import) = command {
            return self.import(store, provider, import, watch).await;
        }
        let op = Op::of(command, store)
            .await?
            .ok_or_else(|| WriteError::from(SyncError::Engine(format!("a {:?} is not one record", command.kind()))))?;
        let mut on_event = |e: &PassEvent| watch.say(Said::Pass(e));
        let mut watching = Watching { stop: stop_of(command), on_event: &mut on_event };
        let done = match op {
            Op::Say { .. } => procedure::act(self.keeper, store, provider, op, at, &mut watching).await?,
            op => procedure::act_plain(self.keeper, store, op, at, &mut watching).await?,
        };
        recorded(store, command.kind(), done.ok_or_else(stopped_syncing)?).await
    }

    async fn take_lease(&self, at: i64) -> Result<Option<String>, WriteError> {
        if !self.syncs().await? {
            return Ok(None);
        }
        Ok(self.lease.take(at).await?)
    }

    async fn release_lease(&self, at: i64) {
        if matches!(self.keeper.state().await, Ok(Some(_))) {
            self.lease.release(at).await
        }
    }
}

/// What a record just made did, as the journal reads it: the command's own result, or its
/// refusal (logged, and kept in the record so the other devices log the same).
async fn recorded<S: Store>(store: &S, kind: Kind, done: Performed) -> Result<Recorded, WriteError> {
    if let Applied::Refused(why) = &done.applied {
        return Err(WriteError::Refused(Refusal::Record(why.clone())));
    }
    let version = match kind {
        Kind::Edit => {
            let last = store.versions().await?.last().cloned();
            Some(last.ok_or_else(|| WriteError::Refused(Refusal::Record("the edit wrote no version".into())))?)
        }
        _ => done.restored,
    };
    Ok(Recorded {
        note: done.applied.to_string(),
        turn: done.turn,
        version,
        policy: done.policy,
        applied: done.review,
        ..Default::default()
    })
}

impl<K: StateKeeper, L: Lease> Syncing<'_, K, L> {
    /// One piece of an import as records: a record per day of history holding its messages
    /// and the encoder's replies (cut to the batches written when it is stopped), and one
    /// per Sleep after a day when `options.sleep` asks, under the space's Sleep lease; the
    /// device's state is read and saved once for the piece, however many records.
    async fn import<S: Store, P: Provider>(
        &self,
        store: &S,
        provider: &P,
        import: &Import,
        watch: &mut Watch<'_>,
    ) -> Result<Recorded, WriteError> {
        let each_day = import.options.sleep == SleepAfter::EachDay;
        let notes = if each_day { self.lease.take(import.at).await? } else { None };
        let done = match self.keeper.state().await {
            Ok(Some(mut joined)) => {
                let done = days(&mut joined.device, store, provider, import, watch).await;
                let saved = self.keeper.save_state(&joined).await;
                saved.map_err(WriteError::from).and(done)
            }
            Ok(None) => Err(stopped_syncing()),
            Err(e) => Err(e.into()),
        };
        if each_day {
            self.lease.release(import.at).await;
        }
        let (report, records) = done?;
        let note = notes.into_iter().chain([format!("{records} import record(s)")]).collect::<Vec<_>>().join("; ");
        Ok(Recorded { note, import: Some(report), ..Default::default() })
    }
}

/// [`Syncing::import`]'s records, on `device`: the report, and how many records.
async fn days<S: Store, P: Provider>(
    device: &mut Device,
    store: &S,
    provider: &P,
    import: &Import,
    watch: &mut Watch<'_>,
) -> Result<(Report, usize), WriteError> {
    let (piece, options) = (&import.piece, &import.options);
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
        let op =
            Op::Import { messages: day.messages.clone(), batches: day.batches.clone(), file: options.file.clone() };
        let done = act(device, store, provider, op, import.at, &options.stop).await?;
        records += 1;
        let imported = done.import.ok_or_else(|| WriteError::Refused(Refusal::Record(done.applied.to_string())))?;
        if let Some(why) = imported.failed {
            return Err(import::ImportError::Provider(why).into());
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
        watch.say(Said::Import(&progress));
        if report.stopped {
            break;
        }
        if options.sleep == SleepAfter::EachDay && facts > 0 {
            let end_of_day = Day::from_unix(day.messages[0].at).start() + 86_399;
            let sleep = Op::Sleep { deep: false, plan: None };
            let done = act(device, store, provider, sleep, end_of_day, &options.stop).await?;
            records += 1;
            match done.sleep {
                Some(_) => report.sleeps += 1,
                None if options.stop.is_stopped() => report.stopped = true,
                None => report.sleep_errors.push(format!("{}: {}", Day::from_unix(end_of_day), done.applied)),
            }
            progress.sleeps = report.sleeps;
            watch.say(Said::Import(&progress));
        }
    }
    Ok((report, records))
}

/// Performs `op` as `device`'s next record, watched by `stop`.
async fn act<S: Store, P: Provider>(
    device: &mut Device,
    store: &S,
    provider: &P,
    op: Op,
    at: i64,
    stop: &StopToken,
) -> Result<Performed, WriteError> {
    let mut watch = Watching { stop: stop.clone(), on_event: &mut |_| {} };
    Ok(crate::act_watched(device, store, provider, op, at, &mut watch).await?)
}
