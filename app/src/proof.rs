//! Verify and Compare in a worker of their own: a wasm module (`nocturne-proof`, built by
//! Trunk from `src/bin/proof.rs`) that the page starts when either runs, so the page's
//! bundle holds neither the verifier, the benchmark nor the gate case reader, and their
//! rules run off the page's thread.
//!
//! The model stays where it is. The offline provider runs in the worker. Any other (an
//! endpoint, with its key, or the in-page model) stays on the page: the worker's
//! [`Remote`] posts each request it makes to the page, which asks its own provider and
//! posts the answer back. The worker keeps the provider's proposal style as the run
//! moves it and hands it back at the end. Stop reaches the worker through the action's
//! [`StopHandle`] (an abort posts `stop`).
//!
//! Both halves of the exchange are here: [`verify`] and [`compare`] on the page,
//! [`serve`] in the worker. Messages are JSON text ([`crate::worker`]).

use crate::idb::IdbStore;
use crate::inbox::Inbox;
use crate::providers::AnyProvider;
use crate::stop::{StopHandle, Stoppable};
use crate::worker::{self as module, Started};
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::llm::provider::{
    Completion, ProposalStyle, Provider, ProviderError, Request, StyleCell, StyleState, DEFAULT_MEMORY_TOKENS,
};
use nocturne_core::proof::compare::{self, Row};
use nocturne_core::proof::verify::{self, Check};
use serde::{Deserialize, Serialize};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The worker's loader, next to the page (Trunk's loader shim for the worker module).
pub const WORKER_URL: &str = "./nocturne-proof_loader.js";

/// The version of these messages (see `crate::worker`).
const PROTOCOL: u32 = 1;

/// The scratch database Verify runs in (deleted before each run; never the memory).
const VERIFY_DB: &str = "nocturne-verify";

/// Runs the verifier ([`verify::verify`]) in the worker with the page's `provider`,
/// calling `on_check` with each check as it is made; returns the summary line.
pub async fn verify(
    provider: &Stoppable<AnyProvider>,
    now: i64,
    on_check: &mut dyn FnMut(Check),
) -> Result<String, String> {
    let require_skill = matches!(provider.inner, AnyProvider::Offline(_));
    let job = Job::Verify { now, require_skill, model: Model::of(provider) };
    match run(job, provider, on_check).await? {
        Done::Verified { summary } => Ok(summary),
        Done::Compared { .. } => Err("the verifier module answered a comparison instead".into()),
    }
}

/// Runs the provider comparison ([`compare::run`]) in the worker: the offline provider's
/// row, and the endpoint's when `provider` is one.
pub async fn compare(provider: &Stoppable<AnyProvider>, now: i64) -> Result<Vec<Row>, String> {
    let endpoint = matches!(provider.inner, AnyProvider::Http(_)).then(|| Model::of(provider));
    match run(Job::Compare { now, endpoint }, provider, &mut |_| {}).await? {
        Done::Compared { rows } => Ok(rows),
        Done::Verified { .. } => Err("the verifier module answered a verification instead".into()),
    }
}

/// The worker's side: answers what the page posts. Called once, by the worker module's
/// `main`.
pub fn serve() {
    module::serve(PROTOCOL, "the verifier module", answer);
}

/// What the page asks the worker to run.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Job {
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

/// Everything the page posts: a job, then the answers to the worker's model calls, and a
/// stop when the user presses Stop.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum ToWorker {
    Run { job: Job },
    Answer { result: Result<Completion, ProviderError> },
    Stop,
}

/// Everything the worker posts.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum FromWorker {
    /// A model call for the page's provider to answer.
    Call { request: Request },
    /// A verifier check, as it is made.
    Check { check: Check },
    /// The job's end, with the page provider's proposal style as the run left it.
    Done { done: Done, style: Option<StyleState> },
    /// The job or the worker failed, in words a user can act on.
    Failed { message: String },
}

/// What a job came to.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Done {
    Verified { summary: String },
    Compared { rows: Vec<Row> },
}

/// The model a job uses, as the worker sees it.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Model {
    /// The offline provider, run in the worker.
    Offline,
    /// The page's provider, asked through the page ([`Remote`]).
    Page { label: String, model: String, style: StyleState, memory_tokens: u64 },
}

impl Model {
    fn of(provider: &Stoppable<AnyProvider>) -> Model {
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

/// The page's side of one job: starts the worker, posts the job, answers the worker's
/// model calls with `provider` until the job is done.
async fn run(job: Job, provider: &Stoppable<AnyProvider>, on_check: &mut dyn FnMut(Check)) -> Result<Done, String> {
    let worker = Started::new(WORKER_URL, "the verifier module", "the first time Verify or Compare runs")?;
    worker.ready(PROTOCOL).await?;
    let _stop = forward_stop(&provider.stop, &worker);
    send(&worker, &ToWorker::Run { job })?;
    loop {
        match worker.next::<FromWorker>().await? {
            FromWorker::Call { request } => {
                let result = provider.complete(&request).await;
                send(&worker, &ToWorker::Answer { result })?;
            }
            FromWorker::Check { check } => on_check(check),
            FromWorker::Done { done, style } => {
                if let (Some(slot), Some(style)) = (provider.inner.style(), style) {
                    slot.set(style);
                }
                return Ok(done);
            }
            FromWorker::Failed { message } => return Err(message),
        }
    }
}

fn send(worker: &Started, message: &ToWorker) -> Result<(), String> {
    let text = serde_json::to_string(message).map_err(|e| e.to_string())?;
    worker.post(&JsValue::from_str(&text))
}

/// Posts `stop` to the worker when `stop` is pressed, through an abort the handle
/// triggers; the returned closure must live as long as the job.
fn forward_stop(stop: &StopHandle, worker: &Started) -> Option<Closure<dyn FnMut()>> {
    let controller = web_sys::AbortController::new().ok()?;
    let text = serde_json::to_string(&ToWorker::Stop).ok()?;
    let post = worker.poster();
    let on_abort = Closure::<dyn FnMut()>::new(move || post(&JsValue::from_str(&text)));
    controller.signal().set_onabort(Some(on_abort.as_ref().unchecked_ref()));
    stop.register(controller);
    Some(on_abort)
}

// The worker's side.

thread_local! {
    /// The page's answers to this worker's model calls, in order (one call at a time).
    static ANSWERS: Inbox<Result<Completion, ProviderError>> = Inbox::default();
    /// Stopped when the page posts `stop`.
    static STOP: StopHandle = StopHandle::default();
}

async fn answer(data: JsValue) -> Result<(), String> {
    let text = data.as_string().ok_or("the page sent no request")?;
    let message: ToWorker =
        serde_json::from_str(&text).map_err(|e| format!("the page's request is unreadable ({e})"))?;
    match message {
        ToWorker::Answer { result } => ANSWERS.with(|a| a.push(result)),
        ToWorker::Stop => STOP.with(StopHandle::stop),
        ToWorker::Run { job } => {
            let (done, style) = perform(job).await?;
            module::post(&FromWorker::Done { done, style });
        }
    }
    Ok(())
}

async fn perform(job: Job) -> Result<(Done, Option<StyleState>), String> {
    let stop = STOP.with(StopHandle::clone);
    match job {
        Job::Verify { now, require_skill, model } => {
            let provider = WorkerModel::new(model, &stop);
            let cases = crate::cases::load().await?;
            IdbStore::delete(VERIFY_DB).await.map_err(|e| e.to_string())?;
            let store = IdbStore::open(VERIFY_DB).await.map_err(|e| e.to_string())?;
            let options = verify::VerifyOptions { now, require_skill, cases };
            let report = verify::verify(&store, &provider, &options, &mut |check| {
                module::post(&FromWorker::Check { check: check.clone() })
            })
            .await;
            store.close();
            let summary = report.summary(require_skill);
            Ok((Done::Verified { summary }, provider.inner.style()))
        }
        Job::Compare { now, endpoint } => {
            let clock = || js_sys::Date::now();
            // One provider type for both rows: the benchmark is compiled once.
            let mut rows = vec![compare::run(WorkerModel::new(Model::Offline, &stop), now, &clock).await];
            let mut style = None;
            if let Some(endpoint) = endpoint {
                let provider = WorkerModel::new(endpoint, &stop);
                // A clone shares the style the run moves.
                let chosen = provider.inner.clone();
                rows.push(compare::run(provider, now, &clock).await);
                style = chosen.style();
            }
            Ok((Done::Compared { rows }, style))
        }
    }
}

/// A job's provider in the worker, stopped by the page's Stop.
type WorkerModel = Stoppable<Chosen>;

/// The offline provider here, or the page's through the page.
#[derive(Clone)]
enum Chosen {
    Offline(OfflineProvider),
    Page(Remote),
}

nocturne_core::forward_provider!(Chosen { Offline, Page });

impl WorkerModel {
    fn new(model: Model, stop: &StopHandle) -> WorkerModel {
        let (inner, memory_tokens) = match model {
            Model::Offline => (Chosen::Offline(OfflineProvider), DEFAULT_MEMORY_TOKENS),
            Model::Page { label, model, style, memory_tokens } => {
                (Chosen::Page(Remote { label, style: Rc::new(StyleCell::new(style, &model)) }), memory_tokens)
            }
        };
        Stoppable { inner, stop: stop.clone(), memory_tokens }
    }
}

impl Chosen {
    /// The page provider's style as the run left it.
    fn style(&self) -> Option<StyleState> {
        match self {
            Chosen::Page(r) => Some(r.style.get()),
            Chosen::Offline(_) => None,
        }
    }
}

/// The page's provider, from the worker: each call is posted to the page and its answer
/// awaited; the proposal style moves here exactly as the page's provider would move it.
#[derive(Clone)]
struct Remote {
    label: String,
    /// Shared by clones: the run's copy and the one kept to read it afterwards.
    style: Rc<StyleCell>,
}

impl Provider for Remote {
    fn label(&self) -> String {
        self.label.clone()
    }

    fn proposal_style(&self) -> ProposalStyle {
        self.style.current()
    }

    fn observe_refusals(&self, proposed: usize, refused: usize) {
        self.style.observe(proposed, refused)
    }

    fn observe_unusable(&self, why: &str) -> Option<String> {
        self.style.unusable(why)
    }

    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        module::post(&FromWorker::Call { request: request.clone() });
        ANSWERS.with(Inbox::clone).next().await
    }
}
