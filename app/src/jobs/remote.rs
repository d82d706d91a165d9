//! A job's model in the job worker: the offline provider, run here, or the page's
//! provider, asked through the page ([`Remote`]).

use super::{FromWorker, Model};
use crate::inbox::Inbox;
use crate::stop::StopHandle;
use crate::worker as module;
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::llm::provider::{
    Completion, Layer, ProposalStyle, Provider, ProviderError, Request, StyleCell, StyleState, DEFAULT_MEMORY_TOKENS,
};
use std::cell::Cell;
use std::rc::Rc;

/// What the page posts back for a model call: pieces of a streamed reply, then its end.
pub(super) enum Answered {
    Delta(String),
    Done(Result<Completion, ProviderError>),
}

thread_local! {
    /// The page's answers to this worker's model calls, in order (one call at a time).
    pub(super) static ANSWERS: Inbox<Answered> = Inbox::default();
}

/// A job's provider in the worker, stopped by the page's Stop — until it records: from
/// [`WorkerModel::recording`] on, its calls are ones the Stop does not reach (a stopped chat
/// turn is still encoded), answered on the page by a provider the Stop does not reach.
#[derive(Clone)]
pub(super) struct WorkerModel {
    inner: Chosen,
    stop: StopHandle,
    memory_tokens: u64,
    recording: Rc<Cell<bool>>,
}

impl Layer for WorkerModel {
    type Inner = Chosen;
    fn inner(&self) -> &Chosen {
        &self.inner
    }
    fn before_call(&self) -> Result<(), ProviderError> {
        if self.stop.is_stopped() && !self.recording.get() {
            return Err(ProviderError::Stopped);
        }
        Ok(())
    }
    fn memory_budget(&self) -> Option<u64> {
        Some(self.memory_tokens)
    }
}

/// The offline provider here, or the page's through the page.
#[derive(Clone)]
pub(super) enum Chosen {
    Offline(OfflineProvider),
    Page(Remote),
}

nocturne_core::forward_provider!(Chosen { Offline, Page });

impl WorkerModel {
    pub(super) fn new(model: Model, stop: &StopHandle) -> WorkerModel {
        let recording = Rc::new(Cell::new(false));
        let (inner, memory_tokens) = match model {
            Model::Offline => (Chosen::Offline(OfflineProvider), DEFAULT_MEMORY_TOKENS),
            Model::Page { label, model, style, memory_tokens } => (
                Chosen::Page(Remote {
                    label,
                    style: Rc::new(StyleCell::new(style, &model)),
                    after_stop: recording.clone(),
                }),
                memory_tokens,
            ),
        };
        WorkerModel { inner, stop: stop.clone(), memory_tokens, recording }
    }

    /// From now on this model's calls record what was done (a chat turn after its reply):
    /// the job's Stop no longer reaches them.
    pub(super) fn recording(&self) {
        self.recording.set(true);
    }

    /// The page provider's style as the job left it.
    pub(super) fn style(&self) -> Option<StyleState> {
        match &self.inner {
            Chosen::Page(r) => Some(r.style.get()),
            Chosen::Offline(_) => None,
        }
    }
}

/// The page's provider, from the worker: each call is posted to the page and its answer
/// awaited; the proposal style moves here exactly as the page's provider would move it.
#[derive(Clone)]
pub(super) struct Remote {
    label: String,
    /// Shared by clones: the job's copy and the one kept to read it afterwards.
    style: Rc<StyleCell>,
    /// The job records (its calls are answered by a provider the Stop does not reach).
    after_stop: Rc<Cell<bool>>,
}

impl Remote {
    async fn ask(
        &self,
        request: &Request,
        mut on_delta: Option<&mut dyn FnMut(&str)>,
    ) -> Result<Completion, ProviderError> {
        let stream = on_delta.is_some();
        module::post(&FromWorker::Call { request: request.clone(), stream, after_stop: self.after_stop.get() });
        let answers = ANSWERS.with(Inbox::clone);
        loop {
            match answers.next().await {
                Answered::Delta(text) => {
                    if let Some(f) = on_delta.as_mut() {
                        f(&text)
                    }
                }
                Answered::Done(result) => return result,
            }
        }
    }
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
        self.ask(request, None).await
    }

    async fn complete_streaming(
        &self,
        request: &Request,
        on_delta: &mut dyn FnMut(&str),
    ) -> Result<Completion, ProviderError> {
        self.ask(request, Some(on_delta)).await
    }
}
