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
//! A job is one worker: started when the job starts, ended when it ends or its caller
//! drops it (a Sleep estimate made stale by a write). The worker opens the memory's
//! IndexedDB itself and writes through the one write path (`sync::journal`, under the
//! same Web Lock as every writer, and the sync worker's lease when the memory syncs).
//!
//! Both halves of the exchange are in this folder: [`run`] on the page, [`serve`] in the
//! worker (`work`, with its model in `remote`). Messages are JSON text ([`crate::worker`]).

mod remote;
mod work;

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
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub use work::serve;

/// The worker's loader, next to the page (Trunk's loader shim for the worker module).
pub const WORKER_URL: &str = "./nocturne-jobs_loader.js";

/// The version of these messages (see `crate::worker`).
const PROTOCOL: u32 = 2;

/// What the job module is called in messages.
const WHAT: &str = "the job module";

/// What the page asks the job worker to run; `memory` names the IndexedDB database.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Job {
    /// A chat turn: the reply (streamed), then the turn recorded and encoded.
    Turn {
        memory: String,
        text: String,
        now: i64,
        model: Model,
    },
    /// A Sleep through the one write path, or a dry run (writes nothing).
    Sleep {
        memory: String,
        now: i64,
        deep: bool,
        dry_run: bool,
        confirmed: bool,
        model: Model,
    },
    /// A Sleep planned for the user's review (writes nothing).
    Plan {
        memory: String,
        now: i64,
        deep: bool,
        model: Model,
    },
    /// A reviewed plan's approved edits, judged again and applied as one Sleep.
    Apply {
        memory: String,
        plan: Review,
        decisions: Decisions,
        now: i64,
    },
    /// What the next Sleep would ask the model.
    Estimate {
        memory: String,
        now: i64,
        deep: bool,
        style: ProposalStyle,
    },
    Quiz {
        memory: String,
        now: i64,
        model: Model,
    },
    Edit {
        memory: String,
        edit: UserEdit,
        now: i64,
    },
    Erase {
        memory: String,
        item_id: String,
        now: i64,
    },
    Restore {
        memory: String,
        seq: u64,
        now: i64,
    },
    Policy {
        memory: String,
        policy: RetentionPolicy,
        now: i64,
    },
    /// The history file posted beside this job, read (in the import reader's worker) and
    /// planned against the memory.
    Read {
        memory: String,
        now: i64,
        style: ProposalStyle,
    },
    /// The history file posted beside this job, read again (dated as when it was first
    /// read, `read_at`) and imported: what is new.
    Import {
        memory: String,
        read_at: i64,
        now: i64,
        sleep: SleepAfter,
        model: Model,
    },
    Verify {
        now: i64,
        require_skill: bool,
        model: Model,
    },
    /// The offline provider's row, then the endpoint's, if one is given.
    Compare {
        now: i64,
        endpoint: Option<Model>,
    },
}

impl Job {
    /// Whether the job writes to the memory (the first one asks the browser to keep it).
    fn writes(&self) -> bool {
        match self {
            Job::Sleep { dry_run, .. } => !dry_run,
            Job::Turn { .. }
            | Job::Apply { .. }
            | Job::Edit { .. }
            | Job::Erase { .. }
            | Job::Restore { .. }
            | Job::Policy { .. }
            | Job::Import { .. } => true,
            Job::Plan { .. }
            | Job::Estimate { .. }
            | Job::Quiz { .. }
            | Job::Read { .. }
            | Job::Verify { .. }
            | Job::Compare { .. } => false,
        }
    }
}

/// What a job came to.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Done {
    /// The turn is stored.
    Turn(TurnSummary),
    Slept(SleepSummary),
    Planned {
        review: Review,
    },
    /// The review's edits applied: what happened, in a line.
    Applied {
        summary: String,
    },
    Estimated(EstimateSummary),
    Quizzed {
        report: QuizReport,
    },
    /// An edit, erase, restore or policy written: what happened, in a line.
    Written {
        line: String,
    },
    Read(HistorySummary),
    /// An import's report, and what of the file is still new (for a resume).
    Imported {
        report: import::Report,
        left: HistorySummary,
    },
    Verified {
        summary: String,
    },
    Compared {
        rows: Vec<Row>,
    },
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

/// The next Sleep's estimate, as the page shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EstimateSummary {
    pub line: String,
    /// `(retire, active)` when the Sleep would retire more than a quarter of the memory
    /// (the user is asked first).
    pub heavy: Option<(usize, usize)>,
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
    Run { job: Job },
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
    /// The job's end, with the page provider's proposal style as the job left it.
    Done {
        done: Box<Done>,
        style: Option<StyleState>,
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
    /// The history file a `Read` or `Import` reads.
    pub file: Option<&'a web_sys::File>,
}

/// Runs `job` in a worker of its own, answering its model calls with the providers in
/// `given` and handing `on_progress` what it says as it goes. Dropping the future ends the
/// worker.
pub async fn run(job: Job, given: Given<'_>, on_progress: &mut dyn FnMut(Progress)) -> Result<Done, String> {
    if job.writes() {
        // Only a page may ask (`navigator.storage.persist` is not a worker's).
        crate::storage::persist_once().await;
    }
    let worker = Started::new(WORKER_URL, WHAT, "with the page")?;
    worker.ready(PROTOCOL).await?;
    let _stop = given.provider.and_then(|p| forward_stop(&p.stop, &worker));
    let run = text(&ToWorker::Run { job })?;
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
            FromWorker::Done { done, style } => {
                if let (Some(slot), Some(style)) = (given.provider.and_then(|p| p.inner.style()), style) {
                    slot.set(style);
                }
                return Ok(*done);
            }
            FromWorker::Failed { message } => return Err(message),
        }
    }
}

/// Runs a write the user asked for (an edit, erase, restore or the policy), which needs no
/// model; the line saying what was done.
pub async fn write(job: Job) -> Result<String, String> {
    match run(job, Given::default(), &mut |_| {}).await? {
        Done::Written { line } => Ok(line),
        other => unexpected(other),
    }
}

/// The error for a job that ended in another job's `Done` (a worker of another build).
pub fn unexpected<T>(_: Done) -> Result<T, String> {
    Err(format!("{WHAT} answered another job; reload the page"))
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

fn text(message: &impl Serialize) -> Result<String, String> {
    serde_json::to_string(message).map_err(|e| e.to_string())
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
