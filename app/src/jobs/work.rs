//! The job worker's side: each job the page posts, run on the memory's IndexedDB — each
//! write one command of the one write path (`nocturne_core::write`, through
//! `crate::sync::Writer`) — with the job's model ([`super::remote`]), its result posted
//! as the job's own type.

use super::remote::{Answered, WorkerModel, ANSWERS};
use super::{
    AnyJob, Apply, Compare, Edit, Erase, Estimate, EstimateSummary, FromWorker, HeavySleep, HistorySummary, Import,
    Imported, Model, OpenExport, Plan, Policy, Progress, Read, Refused, Restore, SleepDone, SleepJob, SleepSummary,
    ToWorker, Turn, TurnSummary, Verify, PROTOCOL, WHAT,
};
use crate::idb::IdbStore;
use crate::inbox::Inbox;
use crate::stop::StopHandle;
use crate::sync::Writer;
use crate::worker as module;
use nocturne_core::flow::focus::Scope;
use nocturne_core::flow::import::{self, Report, TranscriptCache};
use nocturne_core::flow::import_plan;
use nocturne_core::flow::import_plan::{ImportOptions, Plan as ImportPlan, SleepAfter};
use nocturne_core::flow::report::SleepReport;
use nocturne_core::flow::sleep::SleepOptions;
use nocturne_core::history::History;
use nocturne_core::llm::provider::{ProposalStyle, Provider, StyleState};
use nocturne_core::proof::compare;
use nocturne_core::proof::quiz;
use nocturne_core::proof::verify;
use nocturne_core::store::Store;
use nocturne_core::write::{self, NoModel, Refusal, Watch, WriteError};
use serde::Serialize;
use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

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
    /// The running job's, stopped when the page posts `stop`; each job starts with a new
    /// one (the worker is kept warm between jobs).
    static STOP: RefCell<StopHandle> = RefCell::default();
    /// Jobs run here by [`perform_here`], with no page to post their progress to.
    static HERE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The history file the last job read (a `Read`), kept for the `Import` of it that
    /// follows in this warm worker, which then does not read the file again; any other job
    /// lets it go.
    static LAST_READ: RefCell<Option<(String, Rc<History>)>> = const { RefCell::new(None) };
}

/// This module's wasm memory in bytes (it only grows).
pub fn memory_bytes() -> f64 {
    let memory = wasm_bindgen::memory().unchecked_into::<js_sys::WebAssembly::Memory>().buffer();
    f64::from(memory.unchecked_into::<js_sys::ArrayBuffer>().byte_length())
}

async fn answer(data: JsValue) -> Result<(), crate::error::AppError> {
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
        ToWorker::Stop => STOP.with(|s| s.borrow().stop()),
        ToWorker::Run { job } => {
            // A job the page ran here before left nothing for this one: a stop, an answer.
            STOP.with(|s| *s.borrow_mut() = StopHandle::default());
            ANSWERS.with(Inbox::clear);
            let (done, style) = perform(job, file).await.map_err(|e| e.to_string())?;
            module::post(&FromWorker::Done { done, style, memory: memory_bytes() });
        }
    }
    Ok(())
}

fn progress(progress: Progress) {
    if HERE.with(std::cell::Cell::get) {
        return;
    }
    module::post(&FromWorker::Progress { progress: Box::new(progress) });
}

async fn open(memory: &str) -> Result<IdbStore, JobError> {
    Ok(IdbStore::open(memory).await?)
}

fn scope(deep: bool) -> Scope {
    if deep {
        Scope::Deep
    } else {
        Scope::Incremental
    }
}

/// Why a job failed in the worker: a write's own error, or what went wrong around it (the
/// memory's database, the file, the import reader), in words the page shows.
#[derive(Debug)]
enum JobError {
    Write(WriteError),
    Other(String),
}

impl std::fmt::Display for JobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobError::Write(e) => e.fmt(f),
            JobError::Other(why) => f.write_str(why),
        }
    }
}

impl From<WriteError> for JobError {
    fn from(e: WriteError) -> Self {
        JobError::Write(e)
    }
}

impl From<nocturne_core::store::StoreError> for JobError {
    fn from(e: nocturne_core::store::StoreError) -> Self {
        JobError::Write(e.into())
    }
}

impl From<String> for JobError {
    fn from(why: String) -> Self {
        JobError::Other(why)
    }
}

impl From<crate::error::AppError> for JobError {
    fn from(e: crate::error::AppError) -> Self {
        JobError::Other(e.to_string())
    }
}

impl From<&str> for JobError {
    fn from(why: &str) -> Self {
        JobError::Other(why.into())
    }
}

/// A job's result as posted: its own type, as JSON, and the page provider's style.
type Posted = (serde_json::Value, Option<StyleState>);

fn posted(done: impl Serialize, style: Option<StyleState>) -> Result<Posted, JobError> {
    let done = serde_json::to_value(done).map_err(|e| JobError::Other(format!("the job's result ({e})")))?;
    Ok((done, style))
}

/// The page's progress from a write's watch.
fn watching(said: write::Progress<'_>) {
    match said {
        write::Progress::Delta(d) => progress(Progress::Delta { text: d.to_string() }),
        write::Progress::Pass(event) => progress(Progress::Pass { event: event.clone() }),
        write::Progress::Import(p) => progress(Progress::Import { progress: p.clone() }),
        write::Progress::Replied | write::Progress::Planned(_) => {}
    }
}

/// Runs `job` here, in this thread, as the job worker does (the browser suite drives the
/// worker's side with it): its result as the page receives it. A job that reads a file
/// needs the import reader's worker, and is refused here.
pub async fn perform_here(job: AnyJob) -> Result<serde_json::Value, crate::error::AppError> {
    HERE.with(|here| here.set(true));
    perform(job, None).await.map(|(done, _)| done).map_err(|e| e.to_string().into())
}

/// Runs `job`; every branch is one job type and posts that job's result.
async fn perform(job: AnyJob, file: Option<web_sys::File>) -> Result<Posted, JobError> {
    let stop = STOP.with(|s| s.borrow().clone());
    let last_read = LAST_READ.with(RefCell::take);
    match job {
        AnyJob::Turn(j) => turn(j, &stop).await,
        AnyJob::Sleep(j) => sleep(j, &stop).await,
        AnyJob::Plan(j) => plan(j, &stop).await,
        AnyJob::Apply(j) => apply(j).await,
        AnyJob::Estimate(j) => estimate(j).await,
        AnyJob::Quiz(j) => {
            let store = open(&j.memory).await?;
            let asking = WorkerModel::new(j.model, &stop);
            let report = quiz::wake(&store, &asking, j.now).await.map_err(|e| JobError::Other(e.to_string()));
            store.close();
            posted(report?, asking.style())
        }
        AnyJob::Edit(j) => edit(j).await,
        AnyJob::Erase(j) => erase(j).await,
        AnyJob::Restore(j) => restore(j).await,
        AnyJob::Policy(j) => policy(j).await,
        AnyJob::OpenExport(j) => open_export(j, file).await,
        AnyJob::Read(j) => read_file(j, file).await,
        AnyJob::Import(j) => import_file(j, file, last_read, &stop).await,
        AnyJob::Verify(j) => verify_here(j, &stop).await,
        AnyJob::Compare(j) => compare_here(j, &stop).await,
    }
}

/// A chat turn: one `Reply` command. The reply's words go to the page as they come; once it
/// is made, the model records with calls the Stop does not reach (a stopped reply's turn is
/// still encoded).
async fn turn(j: Turn, stop: &StopHandle) -> Result<Posted, JobError> {
    let store = open(&j.memory).await?;
    let asking = WorkerModel::new(j.model, stop);
    let reply = write::Reply { text: j.text, speaker: None, at: j.now };
    let mut on = |said: write::Progress<'_>| match said {
        write::Progress::Replied => asking.recording(),
        other => watching(other),
    };
    let said = Writer::new(&store).perform(reply, &asking, &mut Watch::new(&mut on)).await;
    store.close();
    let out = said?.done;
    let turned = TurnSummary {
        accepted: out.encoded.iter().filter(|m| m.accepted).count(),
        refused: out.encoded.iter().filter_map(|m| m.rejection_reason.clone()).collect(),
        switched: out.switched,
        refused_citations: out.refused_citations.into_iter().map(|(_, why)| why).collect(),
        encode_error: out.encode_error,
        told: out.told,
    };
    posted(turned, asking.style())
}

/// A Sleep (or its dry run): one `Sleep` command. When the memory is free, it is planned
/// (the passes go to the page as they run), guarded by its plan — one that retires more
/// than a Sleep may without asking comes back as [`SleepDone::Heavy`] unless confirmed —
/// and applied; the sync worker's lease and a record when the memory syncs.
async fn sleep(j: SleepJob, stop: &StopHandle) -> Result<Posted, JobError> {
    let store = open(&j.memory).await?;
    let asking = WorkerModel::new(j.model, stop);
    let options = SleepOptions { stop: stop.token.clone(), scope: scope(j.deep), ..SleepOptions::new(j.now) };
    let mut command = write::Sleep::new(options).go_ahead(j.confirmed);
    command.plan_only = j.dry_run;
    command.planned = j.planned;
    let done = Writer::new(&store).perform(command, &asking, &mut Watch::new(&mut watching)).await;
    store.close();
    let slept = match done {
        Ok(done) => SleepDone::Slept(slept(&done.done.report(), done.done.lease_note)),
        Err(e @ WriteError::Refused(Refusal::Heavy(_))) => {
            let WriteError::Refused(Refusal::Heavy(h)) = &e else { return Err(e.into()) };
            let (retire, active) = (h.retiring.count(), h.estimate.active);
            SleepDone::Heavy(HeavySleep { why: e.to_string(), retire, active, plan: Box::new(h.plan.clone()) })
        }
        Err(e) => return Err(e.into()),
    };
    posted(slept, asking.style())
}

/// A Sleep planned for the user's review: the `Sleep` command, only planned.
async fn plan(j: Plan, stop: &StopHandle) -> Result<Posted, JobError> {
    let store = open(&j.memory).await?;
    let asking = WorkerModel::new(j.model, stop);
    let options = SleepOptions { stop: stop.token.clone(), scope: scope(j.deep), ..SleepOptions::new(j.now) };
    let command = write::Sleep::new(options).plan_only();
    let done = Writer::new(&store).perform(command, &asking, &mut Watch::new(&mut watching)).await;
    store.close();
    posted(done?.done.plan, asking.style())
}

/// A reviewed plan applied: one `Apply` command.
async fn apply(j: Apply) -> Result<Posted, JobError> {
    let store = open(&j.memory).await?;
    let plan = j.plan.clone();
    let command = write::Apply { plan: j.plan, decisions: j.decisions, at: j.now };
    let applied = Writer::new(&store).perform(command, &NoModel, &mut Watch::quiet()).await;
    store.close();
    posted(applied?.done.summary(&plan), None)
}

/// What the next Sleep would ask: worked out whole, off the page's thread; a stale one is
/// stopped by its worker ending.
async fn estimate(j: Estimate) -> Result<Posted, JobError> {
    let store = open(&j.memory).await?;
    let options = if j.deep { SleepOptions::new(j.now).deep() } else { SleepOptions::new(j.now) };
    let e = nocturne_core::flow::estimate::estimate(&store, j.style, &options).await;
    store.close();
    let e = e?;
    let what = match e.fresh {
        Some(f) => format!("Incremental: {f} fact(s) new or changed since the last Sleep, of {} active", e.active),
        None => format!("Deep: all {} active facts", e.active),
    };
    let retire =
        if e.retire > 0 { format!(" The retention rules alone retire {} fact(s).", e.retire) } else { String::new() };
    let line = format!("{what} — about {} model call(s), {} prompt tokens.{retire}", e.calls, e.prompt_tokens);
    posted(EstimateSummary { line }, None)
}

/// The user's edit: one `Edit` command.
async fn edit(j: Edit) -> Result<Posted, JobError> {
    let store = open(&j.memory).await?;
    let command = write::Edit { edit: j.edit, at: j.now };
    let done = Writer::new(&store).perform(command, &NoModel, &mut Watch::quiet()).await;
    store.close();
    let done = done?;
    let line = match done.recorded {
        Some(what) => format!("Edit made and kept for the next sync ({what})."),
        None => format!("{} written ({}).", done.done.id(), done.done.label),
    };
    posted(line, None)
}

/// The user's erase: one `Erase` command.
async fn erase(j: Erase) -> Result<Posted, JobError> {
    let store = open(&j.memory).await?;
    let command = write::Erase { item_id: j.item_id, at: j.now };
    let done = Writer::new(&store).perform(command, &NoModel, &mut Watch::quiet()).await;
    store.close();
    let x = done?.done;
    let line = format!(
        "Erased {} fact(s) ({}) from every version; {} row(s) rewritten; a tombstone remains.",
        x.item_ids.len(),
        x.item_ids.join(", "),
        x.rows
    );
    posted(line, None)
}

/// A restore: one `Restore` command.
async fn restore(j: Restore) -> Result<Posted, JobError> {
    let store = open(&j.memory).await?;
    let command = write::Restore { seq: j.seq, at: j.now };
    let done = Writer::new(&store).perform(command, &NoModel, &mut Watch::quiet()).await;
    store.close();
    posted(done?.done.id(), None)
}

/// A memory export filled into the new memory `j.name`, under the write lock: how many
/// active facts it holds. A refused or failed import leaves no new memory behind.
async fn open_export(j: OpenExport, file: Option<web_sys::File>) -> Result<Posted, JobError> {
    let file = file.ok_or("choose a file first")?;
    let text = wasm_bindgen_futures::JsFuture::from(file.text())
        .await
        .map_err(|_| format!("the file {} could not be read", file.name()))?;
    let text = text.as_string().unwrap_or_default();
    let (store, facts) =
        crate::lock::write(IdbStore::import_new(&j.name, &text)).await.map_err(|e| e.to_string())??;
    store.close();
    posted(facts, None)
}

/// The retention policy: one `Policy` command.
async fn policy(j: Policy) -> Result<Posted, JobError> {
    let store = open(&j.memory).await?;
    let command = write::Policy { policy: j.policy, at: j.now };
    let done = Writer::new(&store).perform(command, &NoModel, &mut Watch::quiet()).await;
    store.close();
    done?;
    posted(String::new(), None)
}

/// A history file read and planned (writes nothing).
async fn read_file(j: Read, file: Option<web_sys::File>) -> Result<Posted, JobError> {
    let file = file.ok_or("choose a file first")?;
    let store = open(&j.memory).await?;
    let history = read(&file, j.now).await?;
    let plan = plan_of(&store, &history).await;
    store.close();
    let done = posted(summary(&file.name(), &history, &plan?, j.style), None);
    LAST_READ.with(|r| *r.borrow_mut() = Some((read_key(&file, j.now), Rc::new(history))));
    done
}

/// What tells a file read at `now` from another: its name, size and date, and `now` (which
/// dates messages the file gives no time).
fn read_key(file: &web_sys::File, now: i64) -> String {
    format!("{}\u{1f}{}\u{1f}{}\u{1f}{now}", file.name(), file.size(), file.last_modified())
}

/// A history file imported: `Import` commands a piece at a time, then the `ImportSleep`.
async fn import_file(
    j: Import,
    file: Option<web_sys::File>,
    last_read: Option<(String, Rc<History>)>,
    stop: &StopHandle,
) -> Result<Posted, JobError> {
    let file = file.ok_or("choose a file first")?;
    let store = open(&j.memory).await?;
    let asking = WorkerModel::new(j.model, stop);
    // Read by the job before, in this worker, unless another ran here between.
    let history = match last_read {
        Some((key, history)) if key == read_key(&file, j.read_at) => history,
        _ => Rc::new(read(&file, j.read_at).await?),
    };
    // Planned again: the memory may have changed since the estimate (a resume).
    let plan = plan_of(&store, &history).await?;
    let options =
        ImportOptions { sleep: j.sleep, stop: stop.token.clone(), file: Some(file.name()), ..Default::default() };
    progress(Progress::Import { progress: import::Progress { batches: plan.batches.len(), ..Default::default() } });
    let report = import_pieces(&store, &asking, &plan, &options, j.now).await;
    // What is left to import, for a resume.
    let left = plan_of(&store, &history).await;
    store.close();
    let left = summary(&file.name(), &history, &left?, asking.proposal_style());
    posted(Imported { report: report?, left }, asking.style())
}

/// Verify, in a scratch database (never the memory).
async fn verify_here(j: Verify, stop: &StopHandle) -> Result<Posted, JobError> {
    let provider = WorkerModel::new(j.model, stop);
    let cases = crate::cases::load().await?;
    IdbStore::delete(VERIFY_DB).await?;
    let store = IdbStore::open(VERIFY_DB).await?;
    let options = verify::VerifyOptions { now: j.now, require_skill: j.require_skill, cases };
    let report =
        verify::verify(&store, &provider, &options, &mut |check| progress(Progress::Check { check: check.clone() }))
            .await;
    store.close();
    posted(report.summary(j.require_skill), provider.style())
}

/// Compare: the offline provider's row, then the endpoint's.
async fn compare_here(j: Compare, stop: &StopHandle) -> Result<Posted, JobError> {
    let clock = || js_sys::Date::now();
    // One provider type for both rows: the benchmark is compiled once.
    let mut rows = vec![compare::run(WorkerModel::new(Model::Offline, stop), j.now, &clock).await];
    let mut style = None;
    if let Some(endpoint) = j.endpoint {
        let provider = WorkerModel::new(endpoint, stop);
        // A clone shares the style the run moves.
        let chosen = provider.clone();
        rows.push(compare::run(provider, j.now, &clock).await);
        style = chosen.style();
    }
    posted(rows, style)
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
async fn read(file: &web_sys::File, now: i64) -> Result<History, JobError> {
    Ok(crate::reader::read(file, now, &mut |n| progress(Progress::Reading { conversations: n })).await?)
}

/// Plans `history` against the sources the memory's transcript already holds.
async fn plan_of(store: &IdbStore, history: &History) -> Result<ImportPlan, JobError> {
    let known: HashSet<String> = store.transcript().await?.into_iter().filter_map(|t| t.source).collect();
    Ok(import_plan::plan(history, &known, &ImportOptions::default()))
}

/// What the page shows of file `name`, read as `h` and planned as `plan`, and what the
/// plan will cost with a model proposing in `style`.
fn summary(name: &str, h: &History, plan: &ImportPlan, style: ProposalStyle) -> HistorySummary {
    let s = h.skipped;
    let future = match s.future {
        0 => String::new(),
        n => format!(", {n} dated after it was read (a statement cannot be dated after it reaches the memory)"),
    };
    let line = format!(
        "{name}: {} — {} conversation(s), {} message(s) you wrote; left out: {} hidden, {} system or tool, {} on abandoned branches, {} without text{future}.",
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

/// Writes `plan` through the one write path, a piece at a time (each piece one `Import`
/// command, under the write lock: recorded for the next sync when the memory syncs), then
/// the Sleep at the end when one was asked for (`ImportSleep`). Progress at most every
/// [`PROGRESS_MS`]: each message is a task of the page's thread.
async fn import_pieces<P: Provider>(
    store: &IdbStore,
    provider: &P,
    plan: &ImportPlan,
    options: &ImportOptions,
    at: i64,
) -> Result<Report, JobError> {
    let writer = Writer::new(store);
    let mut report = Report::default();
    let mut seen = TranscriptCache::default();
    let mut shown = import::Progress { batches: plan.batches.len(), ..Default::default() };
    let mut last = 0.0;
    for piece in plan.pieces(PIECE_BATCHES) {
        let before = shown.clone();
        let mut within = |said: write::Progress<'_>| {
            let write::Progress::Import(p) = said else { return };
            shown = import::Progress {
                batches_done: before.batches_done + p.batches_done,
                turns: before.turns + p.turns,
                facts: before.facts + p.facts,
                refused: before.refused + p.refused,
                sleeps: before.sleeps + p.sleeps,
                day: p.day.or(before.day),
                ..before
            };
            let t = js_sys::Date::now();
            if t - last >= PROGRESS_MS || shown.batches_done == shown.batches {
                last = t;
                progress(Progress::Import { progress: shown.clone() })
            }
        };
        let command = write::Import { piece, options: options.clone(), at, seen: std::mem::take(&mut seen) };
        let written = writer.perform(command, provider, &mut Watch::new(&mut within)).await?;
        seen = written.done.seen;
        report.absorb(written.done.report);
        if report.stopped {
            return Ok(report);
        }
    }
    let command = write::ImportSleep { options: options.clone(), at, report };
    let report = writer.perform(command, provider, &mut Watch::quiet()).await?.done;
    progress(Progress::Import { progress: import::Progress { sleeps: report.sleeps, ..shown } });
    Ok(report)
}
