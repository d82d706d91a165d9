//! The Stop button's reach: a handle shared by one running action (a Sleep, a chat
//! reply, the quiz, Verify, Compare) and the provider it uses. `stop()` sets the core's
//! `StopToken` (the Sleep ends between calls, writing nothing of the pass under way) and
//! aborts every request in flight — streamed, so the server stops generating too.

use nocturne_core::flow::stop::StopToken;
use nocturne_core::llm::provider::{Layer, Provider, ProviderError};
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

impl<P: Provider> Layer for Stoppable<P> {
    type Inner = P;
    fn inner(&self) -> &P {
        &self.inner
    }
    fn before_call(&self) -> Result<(), ProviderError> {
        if self.stop.is_stopped() {
            return Err(ProviderError::Stopped);
        }
        Ok(())
    }
    fn memory_budget(&self) -> Option<u64> {
        Some(self.memory_tokens)
    }
}
