//! The jobs off the page: every flow of the core that reads or writes the memory — a
//! chat turn, a Sleep and its dry run, a review's plan and its approved edits, the Sleep's
//! estimate, the Wake quiz, the user's edits, erase, restore and the retention policy, an
//! import of a history, Verify and Compare — runs in a Web Worker of its own wasm module
//! (`nocturne-jobs`, built by Trunk from `src/bin/jobs.rs`). The page's bundle holds
//! none of the gates, passes, prompts, candidate search, encoder, offline provider or write
//! path, and its thread runs none of them: it draws, and it answers the model.
//!
//! The model stays where it is. The offline provider runs in the worker. Any other (an
//! endpoint, with its key, or the in-page model) stays on the page: the worker's
//! `Remote` posts each request it makes to the page, which asks its own provider (streamed
//! when the worker streams) and posts the answer back. The worker keeps the provider's
//! proposal style as the job moves it and hands it back at the end. Stop reaches the
//! worker through the job's [`StopHandle`] (an abort posts `stop`).
//!
//! The worker is kept warm between jobs: one that ended as it should is kept for the next
//! (the module fetched, compiled and started once, its code made fast by the jobs before),
//! the newest at a time; a second job while one runs starts another. A job whose caller
//! drops it ends its worker, as does one that failed or a worker that broke: the next job
//! starts a fresh one. The Sleep's estimate, background work that a write or a chat turn
//! gives up (`task::abortable`), runs in a worker of its own and never takes the warm one.
//!
//! The worker opens the memory's IndexedDB itself and writes through the one write path: each job that writes is one
//! command of `nocturne_core::write`, performed by the journal `crate::sync::Writer`
//! builds (under the same Web Lock as every writer, recorded and under the sync worker's
//! lease when the memory syncs), and its outcome rendered for the page.
//!
//! Each job is a type of its own ([`Job`]) whose result type is known where it is run:
//! [`run`] of a [`Turn`] is a [`TurnSummary`], of a [`SleepJob`] a [`SleepDone`]. Both
//! halves of the exchange are in this folder: [`run`] on the page, [`serve`] in the worker
//! (`work`, with its model in `remote`). Messages are JSON text ([`crate::worker`]).

mod remote;
mod work;

use crate::error::AppError;
use crate::providers::AnyProvider;
use crate::stop::{StopHandle, Stoppable};
use crate::worker::Started;
use nocturne_core::flow::edit::UserEdit;
use nocturne_core::flow::import;
use nocturne_core::flow::import_plan;
use nocturne_core::flow::import_plan::SleepAfter;
use nocturne_core::flow::report::PassEvent;
use nocturne_core::flow::review::{Decisions, Review};
use nocturne_core::llm::provider::{Completion, ProposalStyle, Provider, ProviderError, Request, StyleState};
use nocturne_core::model::policy::RetentionPolicy;
use nocturne_core::proof::check::Check;
use nocturne_core::proof::compare::Row;
use nocturne_core::proof::quiz::QuizReport;
use nocturne_core::write::Kind;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub use work::{memory_bytes, perform_here, serve};

/// The worker's loader, next to the page (Trunk's loader shim for the worker module).
pub const WORKER_URL: &str = "./nocturne-jobs_loader.js";

/// The version of these messages (see `crate::worker`).
const PROTOCOL: u32 = 4;

/// What the job module is called in messages.
const WHAT: &str = "the job module";

/// A worker whose wasm memory grew past this in a job (a large import, a deep Sleep of a
/// lifetime) is ended rather than kept: a wasm memory never gives back what it grew by.
const KEEP_BELOW_BYTES: f64 = 256.0 * 1024.0 * 1024.0;

thread_local! {
    /// The job worker kept between jobs (see the module's words), idle.
    static WARM: RefCell<Option<Engine>> = const { RefCell::new(None) };
}

/// A job worker on the page's side, and whether it said it is ready.
struct Engine {
    worker: Started,
    ready: bool,
}

impl Engine {
    /// The warm worker, or a new one.
    fn take() -> Result<Engine, AppError> {
        match WARM.with(|w| w.borrow_mut().take()) {
            Some(engine) => Ok(engine),
            None => Engine::start(),
        }
    }

    /// A new worker.
    fn start() -> Result<Engine, AppError> {
        Ok(Engine { worker: Started::new(WORKER_URL, WHAT, "with the page")?, ready: false })
    }

    /// Waits for a new worker's first message (a warm one said it long ago).
    async fn ready(&mut self) -> Result<(), AppError> {
        if !self.ready {
            self.worker.ready(PROTOCOL).await?;
            self.ready = true;
        }
        Ok(())
    }

    /// Keeps this worker, idle, for the next job, unless its memory grew past
    /// [`KEEP_BELOW_BYTES`]; one kept before ends. The newest is kept: it holds what its last
    /// job left for the next (a history file read for its import).
    fn keep(self, memory: f64) {
        if memory < KEEP_BELOW_BYTES {
            let older = WARM.with(|w| w.borrow_mut().replace(self));
            drop(older);
        }
    }
}

/// A job the page runs in the job worker: what it is sent as, and what it comes to — its
/// result's type is the job's own ([`Job::Done`]), so a page never matches on another
/// job's answer.
pub trait Job: Into<AnyJob> {
    type Done: Serialize + DeserializeOwned;
}

/// A chat turn: the reply (streamed), then the turn recorded and encoded.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Turn {
    pub memory: String,
    pub text: String,
    pub now: i64,
    pub model: Model,
}

/// A Sleep through the one write path, or a dry run (writes nothing). One that would
/// retire more than a Sleep retires without asking comes back as [`SleepDone::Heavy`], its
/// plan with it; `planned` and `confirmed` send that plan back to be applied.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SleepJob {
    pub memory: String,
    pub now: i64,
    pub deep: bool,
    pub dry_run: bool,
    pub confirmed: bool,
    pub planned: Option<Box<Review>>,
    pub model: Model,
}

/// A Sleep planned for the user's review (writes nothing).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    pub memory: String,
    pub now: i64,
    pub deep: bool,
    pub model: Model,
}

/// A reviewed plan's approved edits, judged again and applied as one Sleep.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Apply {
    pub memory: String,
    pub plan: Box<Review>,
    pub decisions: Decisions,
    pub now: i64,
}

/// What the next Sleep would ask the model.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Estimate {
    pub memory: String,
    pub now: i64,
    pub deep: bool,
    pub style: ProposalStyle,
}

/// The Wake quiz.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Quiz {
    pub memory: String,
    pub now: i64,
    pub model: Model,
}

/// The user's correction, pin, unpin or forget.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Edit {
    pub memory: String,
    pub edit: UserEdit,
    pub now: i64,
}

/// The user's erase of a fact's words.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Erase {
    pub memory: String,
    pub item_id: String,
    pub now: i64,
}

/// A version restored as a new one.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Restore {
    pub memory: String,
    pub seq: u64,
    pub now: i64,
}

/// The user's retention policy.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Policy {
    pub memory: String,
    pub policy: RetentionPolicy,
    pub now: i64,
}

/// The history file posted beside this job, read (in the import reader's worker) and
/// planned against the memory.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Read {
    pub memory: String,
    pub now: i64,
    pub style: ProposalStyle,
}

/// The history file posted beside this job, read again (dated as when it was first read,
/// `read_at`) and imported: what is new.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Import {
    pub memory: String,
    pub read_at: i64,
    pub now: i64,
    pub sleep: SleepAfter,
    pub model: Model,
}

/// The verifier, in a scratch database.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Verify {
    pub now: i64,
    pub require_skill: bool,
    pub model: Model,
}

/// The memory export posted beside this job, filled into a new memory called `name` (the
/// one in use is never touched): in the job worker, so the page's own wasm memory never
/// holds a lifetime's document (it would never give that back).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenExport {
    pub name: String,
}

/// The offline provider's row, then the endpoint's, if one is given.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Compare {
    pub now: i64,
    pub endpoint: Option<Model>,
}

/// Every job, as the page posts it.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum AnyJob {
    Turn(Turn),
    Sleep(SleepJob),
    Plan(Plan),
    Apply(Apply),
    Estimate(Estimate),
    Quiz(Quiz),
    Edit(Edit),
    Erase(Erase),
    Restore(Restore),
    Policy(Policy),
    Read(Read),
    Import(Import),
    OpenExport(OpenExport),
    Verify(Verify),
    Compare(Compare),
}

macro_rules! jobs {
    ($($job:ident => $variant:ident: $done:ty),* $(,)?) => {$(
        impl Job for $job {
            type Done = $done;
        }
        impl From<$job> for AnyJob {
            fn from(job: $job) -> AnyJob {
                AnyJob::$variant(job)
            }
        }
    )*};
}

jobs!(
    Turn => Turn: TurnSummary,
    SleepJob => Sleep: SleepDone,
    Plan => Plan: Review,
    Apply => Apply: String,
    Estimate => Estimate: EstimateSummary,
    Quiz => Quiz: QuizReport,
    Edit => Edit: String,
    Erase => Erase: String,
    Restore => Restore: String,
    Policy => Policy: String,
    Read => Read: HistorySummary,
    Import => Import: Imported,
    OpenExport => OpenExport: usize,
    Verify => Verify: String,
    Compare => Compare: Vec<Row>,
);

impl AnyJob {
    /// The commands of the one write path (`nocturne_core::write::Command`) this job
    /// performs, by kind: what the page offers of each (none: the job only reads).
    pub fn performs(&self) -> &'static [Kind] {
        match self {
            AnyJob::Turn(_) => &[Kind::Reply],
            AnyJob::Sleep(s) if s.dry_run => &[],
            AnyJob::Sleep(_) => &[Kind::Sleep],
            AnyJob::Apply(_) => &[Kind::Apply],
            AnyJob::Edit(_) => &[Kind::Edit],
            AnyJob::Erase(_) => &[Kind::Erase],
            AnyJob::Restore(_) => &[Kind::Restore],
            AnyJob::Policy(_) => &[Kind::Policy],
            AnyJob::Import(_) => &[Kind::Import, Kind::ImportSleep],
            AnyJob::Plan(_)
            | AnyJob::Estimate(_)
            | AnyJob::Quiz(_)
            | AnyJob::Read(_)
            // A new memory, filled whole, not the memory in use.
            | AnyJob::OpenExport(_)
            | AnyJob::Verify(_)
            | AnyJob::Compare(_) => &[],
        }
    }

    /// Whether the job writes to the memory (the first one asks the browser to keep it).
    fn writes(&self) -> bool {
        !self.performs().is_empty()
    }
}

/// What a Sleep job came to: the Sleep (or dry run), or — when it would retire more than a
/// Sleep retires without asking and the user had not confirmed — what would go, with the
/// plan to apply once they do. Nothing was written then.
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SleepDone {
    Slept(SleepSummary),
    Heavy(HeavySleep),
}

/// A Sleep that asks first: what the guard counted, and its plan.
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeavySleep {
    /// What would go, in words: `this Sleep would retire 7 of 14 active facts (…)`.
    pub why: String,
    pub retire: usize,
    pub active: usize,
    pub plan: Box<Review>,
}

/// An import's report, and what of the file is still new (for a resume).
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Imported {
    pub report: import::Report,
    pub left: HistorySummary,
}

/// What a job says as it goes.
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Progress {
    /// More of the chat reply's words.
    Delta {
        text: String,
    },
    /// A Sleep pass starting or ending.
    Pass {
        event: PassEvent,
    },
    /// A verifier check, as it is made.
    Check {
        check: Check,
    },
    /// Conversations of a history file read so far.
    Reading {
        conversations: usize,
    },
    Import {
        progress: import::Progress,
    },
}

/// What a chat turn stored, as the page shows it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnSummary {
    /// Facts the Encode gate accepted into scratch.
    pub accepted: usize,
    /// Why each refused statement was refused.
    pub refused: Vec<String>,
    /// What `auto` said when an unusable reply moved the model to choosing.
    pub switched: Vec<String>,
    /// Why each refused citation was refused.
    pub refused_citations: Vec<String>,
    /// The encoder failed: the turn is kept and encoded with the next one.
    pub encode_error: Option<String>,
    /// What each memory command of the turn did as the user's edit, or asks back
    /// (`flow::told`), with its undo.
    #[serde(default)]
    pub told: Vec<nocturne_core::flow::told::Carried>,
}

/// A Sleep's report, as the page shows it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SleepSummary {
    pub dry_run: bool,
    pub active_before: usize,
    pub active_after: usize,
    pub proposed: usize,
    pub accepted: usize,
    pub rejected: usize,
    pub enforced: usize,
    /// Why the space's Sleep lease could not be asked, when it could not (the Sleep went on).
    pub lease_note: Option<String>,
    /// What changed in how the model was asked.
    pub notes: Vec<String>,
    /// Passes that ended on an unusable reply (they changed nothing; the Sleep went on).
    pub failed: Vec<String>,
    pub refused: Vec<Refused>,
}

/// A refused proposal, with its reason.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Refused {
    pub pass: String,
    pub kind: String,
    pub item_id: String,
    pub reason: String,
}

/// The next Sleep's estimate, as the page shows it (whether it retires too much to go
/// without asking is the Sleep's own plan's to say: [`SleepDone::Heavy`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EstimateSummary {
    pub line: String,
}

/// A history file read and planned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistorySummary {
    /// What was read, in a line: the format, conversations, messages and what was left out.
    pub line: String,
    /// The encoding's cost (`sleeps` for a deep Sleep at the end).
    pub estimate: import_plan::Estimate,
    /// The Sleeps each choice runs.
    pub sleeps: Vec<(SleepAfter, usize)>,
    /// Messages not yet in the memory.
    pub new: usize,
}

/// The model a job uses, as the worker sees it.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Model {
    /// The offline provider, run in the worker.
    Offline,
    /// The page's provider, asked through the page.
    Page { label: String, model: String, style: StyleState, memory_tokens: u64 },
}

impl Model {
    pub fn of(provider: &Stoppable<AnyProvider>) -> Model {
        match provider.inner.style() {
            None => Model::Offline,
            Some(slot) => Model::Page {
                label: provider.label(),
                model: slot.model().to_string(),
                style: slot.state(),
                memory_tokens: provider.memory_tokens,
            },
        }
    }
}

/// Everything the page posts: a job (with a file beside it for a history), then the
/// answers to the worker's model calls (streamed ones piece by piece), and a stop when
/// the user presses Stop.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum ToWorker {
    Run { job: AnyJob },
    Delta { text: String },
    Answer { result: Result<Completion, ProviderError> },
    Stop,
}

/// Everything the worker posts.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum FromWorker {
    /// A model call for the page's provider to answer; `stream`: send the pieces as they
    /// come; `after_stop`: a call the job's Stop does not reach (recording a stopped turn).
    Call {
        request: Request,
        stream: bool,
        after_stop: bool,
    },
    Progress {
        progress: Box<Progress>,
    },
    /// The job's end — its own [`Job::Done`] — with the page provider's proposal style as
    /// the job left it.
    Done {
        done: serde_json::Value,
        style: Option<StyleState>,
        /// The worker's wasm memory as the job left it, in bytes (it never shrinks).
        memory: f64,
    },
    /// The job or the worker failed, in words a user can act on.
    Failed {
        message: String,
    },
}

/// What a job is given from the page.
#[derive(Default)]
pub struct Given<'a> {
    /// The model Settings chose, stopped by the job's Stop.
    pub provider: Option<&'a Stoppable<AnyProvider>>,
    /// The same model, for calls Stop does not reach (recording a stopped chat turn).
    pub recorder: Option<&'a Stoppable<AnyProvider>>,
    /// The file a `Read` or `Import` reads (a history), or an `OpenExport` (a memory export).
    pub file: Option<&'a web_sys::File>,
}

/// Runs `job` in the job worker (the warm one, or a new one), answering its model calls
/// with the providers in `given` and handing `on_progress` what it says as it goes; what it
/// came to, of the job's own type. Dropping the future ends the worker. The error is the
/// words the page shows (a worker of another build answering with another job's result
/// included): `String`, because a Leptos action's or resource's value must be `Clone`.
pub async fn run<J: Job>(job: J, given: Given<'_>, on_progress: &mut dyn FnMut(Progress)) -> Result<J::Done, String> {
    let job: AnyJob = job.into();
    if job.writes() {
        // Only a page may ask (`navigator.storage.persist` is not a worker's).
        crate::storage::persist_once().await;
    }
    // The Sleep's estimate is background work a chat turn gives up: it never takes the warm
    // worker a turn would (nor is its worker kept: it holds the whole memory it read).
    let background = matches!(job, AnyJob::Estimate(_));
    // Dropped before its end (this future dropped, an error), the engine ends its worker.
    let mut engine = if background { Engine::start()? } else { Engine::take()? };
    engine.ready().await?;
    let (done, memory) = exchange(job, &engine.worker, &given, on_progress).await?;
    let done = serde_json::from_value(done)
        .map_err(|e| format!("{WHAT} answered with another job's result ({e}); reload the page"))?;
    // Only a job that ended as it should leaves its worker fit for the next.
    if !background {
        engine.keep(memory);
    }
    Ok(done)
}

/// One job's exchange with `worker`: the job posted, the worker's model calls answered and
/// its progress handed on, until it is done (its result, as posted, and the worker's memory
/// in bytes) or failed (`String`: [`run`]'s error, as it is).
async fn exchange(
    job: AnyJob,
    worker: &Started,
    given: &Given<'_>,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<(serde_json::Value, f64), String> {
    let _stop = given.provider.and_then(|p| forward_stop(&p.stop, worker));
    let run = text(&ToWorker::Run { job }).map_err(|e| e.to_string())?;
    match given.file {
        None => worker.post(&JsValue::from_str(&run))?,
        Some(file) => {
            let message = js_sys::Object::new();
            js_sys::Reflect::set(&message, &"message".into(), &run.into()).map_err(|e| format!("{e:?}"))?;
            js_sys::Reflect::set(&message, &"file".into(), file).map_err(|e| format!("{e:?}"))?;
            worker.post(&message)?;
        }
    }
    loop {
        match worker.next::<FromWorker>().await? {
            FromWorker::Call { request, stream, after_stop } => {
                let provider = if after_stop { given.recorder.or(given.provider) } else { given.provider };
                let provider = provider.cloned();
                let post = worker.poster();
                // Asked beside the exchange, so what the worker says meanwhile (a streamed
                // reply's words) reaches the page as it comes.
                wasm_bindgen_futures::spawn_local(async move {
                    let result = answer(provider.as_ref(), &request, stream, &post).await;
                    if let Ok(answer) = text(&ToWorker::Answer { result }) {
                        post(&JsValue::from_str(&answer));
                    }
                });
            }
            FromWorker::Progress { progress } => on_progress(*progress),
            FromWorker::Done { done, style, memory } => {
                if let (Some(slot), Some(style)) = (given.provider.and_then(|p| p.inner.style()), style) {
                    slot.set(style);
                }
                return Ok((done, memory));
            }
            FromWorker::Failed { message } => return Err(message),
        }
    }
}

/// Runs a write the user asked for (an edit, erase, restore or the policy), which needs no
/// model; the line saying what was done (`String` error: as [`run`]'s).
pub async fn write<J: Job<Done = String>>(job: J) -> Result<String, String> {
    run(job, Given::default(), &mut |_| {}).await
}

/// Asks the page's provider (an endpoint or the in-page model; the offline provider runs
/// in the worker, so its code is not in the page's bundle).
async fn answer(
    provider: Option<&Stoppable<AnyProvider>>,
    request: &Request,
    stream: bool,
    post: &impl Fn(&JsValue),
) -> Result<Completion, ProviderError> {
    let provider = provider.ok_or_else(|| ProviderError::Unreachable("this job has no model on the page".into()))?;
    if provider.stop.is_stopped() {
        return Err(ProviderError::Stopped);
    }
    let mut on_delta = |d: &str| {
        if let Ok(delta) = text(&ToWorker::Delta { text: d.to_string() }) {
            post(&JsValue::from_str(&delta));
        }
    };
    match (&provider.inner, stream) {
        (AnyProvider::Http(p), true) => p.complete_streaming(request, &mut on_delta).await,
        (AnyProvider::Http(p), false) => p.complete(request).await,
        (AnyProvider::InPage(p), true) => p.complete_streaming(request, &mut on_delta).await,
        (AnyProvider::InPage(p), false) => p.complete(request).await,
        (AnyProvider::Offline(_), _) => {
            Err(ProviderError::Unreachable("the offline provider runs in the job worker, not on the page".into()))
        }
    }
}

fn text(message: &impl Serialize) -> Result<String, serde_json::Error> {
    serde_json::to_string(message)
}

/// Posts `stop` to the worker when `stop` is pressed, through an abort the handle
/// triggers; the returned closure must live as long as the job.
fn forward_stop(stop: &StopHandle, worker: &Started) -> Option<Closure<dyn FnMut()>> {
    let controller = web_sys::AbortController::new().ok()?;
    let text = text(&ToWorker::Stop).ok()?;
    let post = worker.poster();
    let on_abort = Closure::<dyn FnMut()>::new(move || post(&JsValue::from_str(&text)));
    controller.signal().set_onabort(Some(on_abort.as_ref().unchecked_ref()));
    stop.register(controller);
    Some(on_abort)
}
