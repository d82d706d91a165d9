//! The job worker's side: each job the page posts, run on the memory's IndexedDB
//! through the one write path, with the job's model ([`super::remote`]).

use super::remote::{Answered, WorkerModel, ANSWERS};
use super::{
    Done, EstimateSummary, FromWorker, HistorySummary, Job, Model, Progress, Refused, SleepSummary, ToWorker,
    TurnSummary, PROTOCOL, WHAT,
};
use crate::idb::IdbStore;
use crate::stop::StopHandle;
use crate::worker as module;
use nocturne_core::flow::chat;
use nocturne_core::flow::focus::Scope;
use nocturne_core::flow::import::{self, Report, TranscriptCache};
use nocturne_core::flow::import_plan;
use nocturne_core::flow::import_plan::{ImportOptions, Plan, SleepAfter};
use nocturne_core::flow::report::{PassEvent, SleepReport};
use nocturne_core::flow::review;
use nocturne_core::flow::sleep::{self, SleepOptions};
use nocturne_core::history::History;
use nocturne_core::llm::provider::{ProposalStyle, Provider, ProviderError};
use nocturne_core::proof::compare;
use nocturne_core::proof::quiz;
use nocturne_core::proof::verify;
use nocturne_core::store::Store;
use nocturne_sync::journal::{Heavy, SleepCall, SleepFailure};
use std::collections::HashSet;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// How a reply the user stopped ends in the transcript.
pub const CUT: &str = "[stopped by the user]";

/// The scratch database Verify runs in (deleted before each run; never the memory).
const VERIFY_DB: &str = "nocturne-verify";

/// Batches an import writes under one hold of the write lock: a chat turn in this or
/// another tab waits at most this many encoder calls to be stored.
const PIECE_BATCHES: usize = 16;

/// Milliseconds between two of an import's progress messages.
const PROGRESS_MS: f64 = 100.0;

/// The worker's side: answers what the page posts. Called once, by the worker module's
/// `main`.
pub fn serve() {
    module::serve(PROTOCOL, WHAT, answer);
}

thread_local! {
    /// Stopped when the page posts `stop`.
    static STOP: StopHandle = StopHandle::default();
}

async fn answer(data: JsValue) -> Result<(), String> {
    // A job that reads a history comes as `{message, file}`; everything else as text.
    let (text, file) = match data.as_string() {
        Some(text) => (text, None),
        None => {
            let field = |name: &str| js_sys::Reflect::get(&data, &name.into()).unwrap_or(JsValue::UNDEFINED);
            let file = field("file").dyn_into::<web_sys::File>().ok();
            (field("message").as_string().ok_or("the page sent no request")?, file)
        }
    };
    let message: ToWorker =
        serde_json::from_str(&text).map_err(|e| format!("the page's request is unreadable ({e})"))?;
    match message {
        ToWorker::Delta { text } => ANSWERS.with(|a| a.push(Answered::Delta(text))),
        ToWorker::Answer { result } => ANSWERS.with(|a| a.push(Answered::Done(result))),
        ToWorker::Stop => STOP.with(StopHandle::stop),
        ToWorker::Run { job } => {
            let (done, style) = perform(job, file).await?;
            module::post(&FromWorker::Done { done: Box::new(done), style });
        }
    }
    Ok(())
}

fn progress(progress: Progress) {
    module::post(&FromWorker::Progress { progress: Box::new(progress) });
}

/// Unix seconds now, for what is dated when it happens (a turn is recorded after its reply).
fn now() -> i64 {
    (js_sys::Date::now() / 1000.0) as i64
}

async fn open(memory: &str) -> Result<IdbStore, String> {
    IdbStore::open(memory).await.map_err(|e| e.to_string())
}

fn scope(deep: bool) -> Scope {
    if deep {
        Scope::Deep
    } else {
        Scope::Incremental
    }
}

fn on_pass() -> impl FnMut(&PassEvent) {
    |ev: &PassEvent| progress(Progress::Pass { event: ev.clone() })
}

async fn perform(job: Job, file: Option<web_sys::File>) -> Result<(Done, Option<super::StyleState>), String> {
    let stop = STOP.with(StopHandle::clone);
    let plain = |done: Done| Ok((done, None));
    match job {
        Job::Turn { memory, text, now: at, model } => {
            let store = open(&memory).await?;
            let asking = WorkerModel::new(model, &stop);
            let mut streamed = String::new();
            let replied = {
                let mut on_delta = |d: &str| {
                    streamed.push_str(d);
                    progress(Progress::Delta { text: d.to_string() })
                };
                chat::reply(&store, &asking, &text, at, &mut on_delta).await
            };
            let reply = match replied {
                Ok(reply) => reply,
                // Stopped: keep what was streamed, marked as cut. Only the user's turn is
                // ever encoded, so nothing of the cut reply becomes a fact.
                Err(chat::ChatError::Provider(ProviderError::Stopped)) => {
                    chat::Reply { text: format!("{} {CUT}", streamed.trim_end()), ..Default::default() }
                }
                Err(e) => return Err(e.to_string()),
            };
            // The turn is recorded by a model the Stop does not reach, through the one
            // write path: it waits for the one writer, so a turn sent during a Sleep is
            // recorded after it, never over it.
            let recorder = asking.recorder();
            let keeper = crate::sync::keeper(&store);
            let said = crate::sync::journal(&store, &keeper).say(&recorder, None, &text, Some(&reply), now()).await;
            store.close();
            let out = said?.done;
            let turned = TurnSummary {
                accepted: out.encoded.iter().filter(|m| m.accepted).count(),
                refused: out.encoded.iter().filter_map(|m| m.rejection_reason.clone()).collect(),
                switched: out.switched,
                refused_citations: out.refused_citations.into_iter().map(|(_, why)| why).collect(),
                encode_error: out.encode_error,
            };
            Ok((Done::Turn(turned), asking.style()))
        }
        Job::Sleep { memory, now, deep, dry_run, confirmed, model } => {
            let store = open(&memory).await?;
            let asking = WorkerModel::new(model, &stop);
            let options =
                SleepOptions { dry_run, stop: stop.token.clone(), scope: scope(deep), ..SleepOptions::new(now) };
            let (report, lease_note) = if dry_run {
                // Writes nothing: no lock.
                (sleep::sleep(&store, &asking, &options, &mut on_pass()).await.map_err(|e| e.to_string())?, None)
            } else {
                // Through the one write path, when no other writer holds the memory: the
                // estimate and the guard against a heavy retirement (the user confirmed, or
                // it is refused), then, when the memory syncs, the space's Sleep lease
                // (saying so when the server cannot be asked) and a record for the next sync.
                let heavy = if confirmed { Heavy::GoAhead } else { Heavy::Refuse };
                let mut call = SleepCall { heavy, on_event: Box::new(on_pass()), ..SleepCall::quiet(&options) };
                let report = crate::sync::sleep(&store, &asking, &mut call).await.map_err(|e| match e {
                    SleepFailure::Heavy(_) => format!("{e}. Run a dry run to see which, then Sleep again and confirm."),
                    SleepFailure::Failed(why) => why,
                })?;
                (report, call.notes.into_iter().next())
            };
            store.close();
            Ok((Done::Slept(slept(&report, lease_note)), asking.style()))
        }
        Job::Plan { memory, now, deep, model } => {
            let store = open(&memory).await?;
            let asking = WorkerModel::new(model, &stop);
            let options = SleepOptions { stop: stop.token.clone(), scope: scope(deep), ..SleepOptions::new(now) };
            // Writes nothing to the memory: no lock.
            let review = review::plan(&store, &asking, &options, &mut on_pass()).await.map_err(|e| e.to_string())?;
            store.close();
            Ok((Done::Planned { review }, asking.style()))
        }
        Job::Apply { memory, plan, decisions, now } => {
            let store = open(&memory).await?;
            let applied = crate::sync::apply(&store, &plan, &decisions, now).await;
            store.close();
            plain(Done::Applied { summary: applied?.summary(&plan) })
        }
        Job::Estimate { memory, now, deep, style } => {
            let store = open(&memory).await?;
            let options = if deep { SleepOptions::new(now).deep() } else { SleepOptions::new(now) };
            // Whole, off the page's thread; a stale one is stopped by its worker ending.
            let e = nocturne_core::flow::estimate::estimate(&store, style, &options).await;
            store.close();
            let e = e.map_err(|e| e.to_string())?;
            let what = match e.fresh {
                Some(f) => {
                    format!("Incremental: {f} fact(s) new or changed since the last Sleep, of {} active", e.active)
                }
                None => format!("Deep: all {} active facts", e.active),
            };
            let retire = if e.retire > 0 {
                format!(" The retention rules alone retire {} fact(s).", e.retire)
            } else {
                String::new()
            };
            let line = format!("{what} — about {} model call(s), {} prompt tokens.{retire}", e.calls, e.prompt_tokens);
            plain(Done::Estimated(EstimateSummary { line, heavy: e.retires_a_lot().then_some((e.retire, e.active)) }))
        }
        Job::Quiz { memory, now, model } => {
            let store = open(&memory).await?;
            let asking = WorkerModel::new(model, &stop);
            let report = quiz::wake(&store, &asking, now).await.map_err(|e| e.to_string())?;
            store.close();
            Ok((Done::Quizzed { report }, asking.style()))
        }
        Job::Edit { memory, edit, now } => {
            let store = open(&memory).await?;
            let keeper = crate::sync::keeper(&store);
            let j = crate::sync::journal(&store, &keeper).edit(&edit, now).await;
            store.close();
            let j = j?;
            plain(Done::Written {
                line: match j.recorded {
                    Some(what) => format!("Edit made and kept for the next sync ({what})."),
                    None => format!("{} written ({}).", j.done.id(), j.done.label),
                },
            })
        }
        Job::Erase { memory, item_id, now } => {
            let store = open(&memory).await?;
            let keeper = crate::sync::keeper(&store);
            let x = crate::sync::journal(&store, &keeper).erase(&item_id, now).await;
            store.close();
            let x = x?.done;
            plain(Done::Written {
                line: format!(
                    "Erased {} fact(s) ({}) from every version; {} row(s) rewritten; a tombstone remains.",
                    x.item_ids.len(),
                    x.item_ids.join(", "),
                    x.rows
                ),
            })
        }
        Job::Restore { memory, seq, now } => {
            let store = open(&memory).await?;
            let keeper = crate::sync::keeper(&store);
            let v = crate::sync::journal(&store, &keeper).restore(seq, now).await;
            store.close();
            plain(Done::Written { line: v?.done.id() })
        }
        Job::Policy { memory, policy, now } => {
            let store = open(&memory).await?;
            let keeper = crate::sync::keeper(&store);
            let r = crate::sync::journal(&store, &keeper).set_policy(&policy, now).await;
            store.close();
            r?;
            plain(Done::Written { line: String::new() })
        }
        Job::Read { memory, now, style } => {
            let file = file.ok_or("choose a file first")?;
            let store = open(&memory).await?;
            let history = read(&file, now).await?;
            let plan = plan_of(&store, &history).await;
            store.close();
            plain(Done::Read(summary(&file.name(), &history, &plan?, style)))
        }
        Job::Import { memory, read_at, now, sleep, model } => {
            let file = file.ok_or("choose a file first")?;
            let store = open(&memory).await?;
            let asking = WorkerModel::new(model, &stop);
            let history = read(&file, read_at).await?;
            // Planned again: the memory may have changed since the estimate (a resume).
            let plan = plan_of(&store, &history).await?;
            let options = ImportOptions { sleep, stop: stop.token.clone(), ..Default::default() };
            progress(Progress::Import {
                progress: import::Progress { batches: plan.batches.len(), ..Default::default() },
            });
            // At most every PROGRESS_MS: each message is a task of the page's thread.
            let mut last = 0.0;
            let mut on_progress = |p: &import::Progress| {
                let t = js_sys::Date::now();
                if t - last >= PROGRESS_MS || p.batches_done == p.batches {
                    last = t;
                    progress(Progress::Import { progress: p.clone() })
                }
            };
            let report = import_pieces(&store, &asking, &plan, &options, now, &mut on_progress).await;
            // What is left to import, for a resume.
            let left = plan_of(&store, &history).await;
            store.close();
            let left = summary(&file.name(), &history, &left?, asking.proposal_style());
            Ok((Done::Imported { report: report?, left }, asking.style()))
        }
        Job::Verify { now, require_skill, model } => {
            let provider = WorkerModel::new(model, &stop);
            let cases = crate::cases::load().await?;
            IdbStore::delete(VERIFY_DB).await.map_err(|e| e.to_string())?;
            let store = IdbStore::open(VERIFY_DB).await.map_err(|e| e.to_string())?;
            let options = verify::VerifyOptions { now, require_skill, cases };
            let report = verify::verify(&store, &provider, &options, &mut |check| {
                progress(Progress::Check { check: check.clone() })
            })
            .await;
            store.close();
            let summary = report.summary(require_skill);
            Ok((Done::Verified { summary }, provider.style()))
        }
        Job::Compare { now, endpoint } => {
            let clock = || js_sys::Date::now();
            // One provider type for both rows: the benchmark is compiled once.
            let mut rows = vec![compare::run(WorkerModel::new(Model::Offline, &stop), now, &clock).await];
            let mut style = None;
            if let Some(endpoint) = endpoint {
                let provider = WorkerModel::new(endpoint, &stop);
                // A clone shares the style the run moves.
                let chosen = provider.clone();
                rows.push(compare::run(provider, now, &clock).await);
                style = chosen.style();
            }
            Ok((Done::Compared { rows }, style))
        }
    }
}

/// A Sleep's report as the page shows it.
fn slept(r: &SleepReport, lease_note: Option<String>) -> SleepSummary {
    SleepSummary {
        dry_run: r.dry_run,
        active_before: r.active_before,
        active_after: r.active_after,
        proposed: r.total(|p| p.proposed),
        accepted: r.total(|p| p.accepted),
        rejected: r.total(|p| p.rejected),
        enforced: r.total(|p| p.enforced),
        lease_note,
        notes: r.passes.iter().flat_map(|p| p.notes.clone()).collect(),
        failed: r
            .failed()
            .map(|e| {
                format!(
                    "The {} pass ended on an unusable model reply and changed nothing ({}); the Sleep went on.",
                    e.pass.name(),
                    e.error.clone().unwrap_or_default()
                )
            })
            .collect(),
        refused: r
            .passes
            .iter()
            .flat_map(|p| p.mutations.iter().filter(|m| !m.accepted))
            .map(|m| Refused {
                pass: m.pass.name().to_string(),
                kind: m.kind.as_str().to_string(),
                item_id: m.item_id.clone(),
                reason: m.rejection_reason.clone().unwrap_or_default(),
            })
            .collect(),
    }
}

/// Reads `file` in the import reader's worker, saying how far it got.
async fn read(file: &web_sys::File, now: i64) -> Result<History, String> {
    crate::reader::read(file, now, &mut |n| progress(Progress::Reading { conversations: n })).await
}

/// Plans `history` against the sources the memory's transcript already holds.
async fn plan_of(store: &IdbStore, history: &History) -> Result<Plan, String> {
    let known: HashSet<String> =
        store.transcript().await.map_err(|e| e.to_string())?.into_iter().filter_map(|t| t.source).collect();
    Ok(import_plan::plan(history, &known, &ImportOptions::default()))
}

/// What the page shows of file `name`, read as `h` and planned as `plan`, and what the
/// plan will cost with a model proposing in `style`.
fn summary(name: &str, h: &History, plan: &Plan, style: ProposalStyle) -> HistorySummary {
    let s = h.skipped;
    let line = format!(
        "{name}: {} — {} conversation(s), {} message(s) you wrote; left out: {} hidden, {} system or tool, {} on abandoned branches, {} without text.",
        h.format.title(),
        h.conversations.len(),
        h.user_messages(),
        s.hidden,
        s.not_a_turn,
        s.other_branches,
        s.empty
    );
    let estimate = import_plan::estimate(plan, style, &ImportOptions::default());
    let sleeps = [SleepAfter::End, SleepAfter::EachDay, SleepAfter::Never].map(|a| (a, plan.sleeps(a))).to_vec();
    HistorySummary { line, estimate, sleeps, new: plan.messages.len() }
}

/// Writes `plan` through the one write path (`sync::journal`: recorded for the next sync
/// when the memory syncs), a piece at a time under the write lock, then the Sleep at the
/// end when one was asked for.
async fn import_pieces<P: Provider>(
    store: &IdbStore,
    provider: &P,
    plan: &Plan,
    options: &ImportOptions,
    at: i64,
    on_progress: &mut dyn FnMut(&import::Progress),
) -> Result<Report, String> {
    let keeper = crate::sync::keeper(store);
    let lease = crate::sync::lease(store);
    let journal = crate::sync::journal(store, &keeper);
    let mut report = Report::default();
    let mut seen = TranscriptCache::default();
    let mut shown = import::Progress { batches: plan.batches.len(), ..Default::default() };
    for piece in plan.pieces(PIECE_BATCHES) {
        let before = shown.clone();
        let mut within = |p: &import::Progress| {
            shown = import::Progress {
                batches_done: before.batches_done + p.batches_done,
                turns: before.turns + p.turns,
                facts: before.facts + p.facts,
                refused: before.refused + p.refused,
                sleeps: before.sleeps + p.sleeps,
                day: p.day.or(before.day),
                ..before
            };
            on_progress(&shown);
        };
        let written = journal.import(provider, &lease, &piece, options, &mut seen, at, &mut within).await?;
        report.absorb(written.done);
        if report.stopped {
            return Ok(report);
        }
    }
    journal.import_sleep(provider, &lease, options, at, &mut report).await?;
    on_progress(&import::Progress { sleeps: report.sleeps, ..shown });
    Ok(report)
}
