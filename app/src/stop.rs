//! The Stop button's reach: a handle shared by one running action (a Sleep, a chat
//! reply, the quiz, Verify, Compare) and the provider it uses. `stop()` sets the core's
//! `StopToken` (the Sleep ends between calls, writing nothing of the pass under way) and
//! aborts every request in flight — streamed, so the server stops generating too.

use nocturne_core::flow::stop::StopToken;
use nocturne_core::llm::provider::{Completion, ProposalStyle, Provider, ProviderError, Request};
use std::cell::RefCell;
use std::rc::Rc;

/// One action's stop switch.
#[derive(Clone, Debug, Default)]
pub struct StopHandle {
    pub token: StopToken,
    requests: Rc<RefCell<Vec<web_sys::AbortController>>>,
}

impl StopHandle {
    /// Stops the action: no new model call starts and the ones in flight are aborted.
    pub fn stop(&self) {
        self.token.stop();
        for controller in self.requests.borrow_mut().drain(..) {
            controller.abort();
        }
    }

    pub fn is_stopped(&self) -> bool {
        self.token.is_stopped()
    }

    /// A request in flight, aborted by `stop` — at once if the action was stopped while
    /// the request was being prepared (the in-page model may wait for its runtime first).
    pub fn register(&self, controller: web_sys::AbortController) {
        if self.is_stopped() {
            controller.abort();
        }
        self.requests.borrow_mut().push(controller);
    }
}

/// A provider that refuses to start a call once its action was stopped, whatever the
/// provider (the offline one answers at once, so this is where it stops), carrying the
/// prompt budget Settings gives that provider.
#[derive(Clone, Debug)]
pub struct Stoppable<P> {
    pub inner: P,
    pub stop: StopHandle,
    /// Tokens a chat prompt to this provider may carry.
    pub memory_tokens: u64,
}

impl<P: Provider> Provider for Stoppable<P> {
    fn label(&self) -> String {
        self.inner.label()
    }

    fn proposal_style(&self) -> ProposalStyle {
        self.inner.proposal_style()
    }

    fn observe_refusals(&self, proposed: usize, refused: usize) {
        self.inner.observe_refusals(proposed, refused)
    }

    fn observe_unusable(&self, why: &str) -> Option<String> {
        self.inner.observe_unusable(why)
    }

    fn memory_tokens(&self) -> u64 {
        self.memory_tokens
    }

    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        if self.stop.is_stopped() {
            return Err(ProviderError::Stopped);
        }
        self.inner.complete(request).await
    }

    async fn complete_streaming(
        &self,
        request: &Request,
        on_delta: &mut dyn FnMut(&str),
    ) -> Result<Completion, ProviderError> {
        if self.stop.is_stopped() {
            return Err(ProviderError::Stopped);
        }
        self.inner.complete_streaming(request, on_delta).await
    }
}
