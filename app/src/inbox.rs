//! Events from JavaScript callbacks, awaited one at a time: the callbacks (a WebSocket's,
//! a Web Worker's) [`Inbox::push`] and the async code that drives the exchange awaits
//! [`Inbox::next`], in the order they came.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

/// A queue of events and the one waiter for the next (clones share both).
pub struct Inbox<T> {
    events: Rc<RefCell<VecDeque<T>>>,
    wake: Rc<RefCell<Option<js_sys::Function>>>,
}

impl<T> Clone for Inbox<T> {
    fn clone(&self) -> Self {
        Inbox { events: self.events.clone(), wake: self.wake.clone() }
    }
}

impl<T> Default for Inbox<T> {
    fn default() -> Self {
        Inbox { events: Rc::default(), wake: Rc::default() }
    }
}

impl<T> Inbox<T> {
    /// Queues `event` and wakes the waiter, if one waits.
    pub fn push(&self, event: T) {
        self.events.borrow_mut().push_back(event);
        if let Some(f) = self.wake.borrow_mut().take() {
            let _ = f.call0(&JsValue::NULL);
        }
    }

    /// Drops every event queued and not yet taken.
    pub fn clear(&self) {
        self.events.borrow_mut().clear();
    }

    /// The next event, waiting (without blocking the page) until one comes.
    pub async fn next(&self) -> T {
        loop {
            let next = self.events.borrow_mut().pop_front();
            if let Some(event) = next {
                return event;
            }
            let promise = js_sys::Promise::new(&mut |resolve, _| {
                *self.wake.borrow_mut() = Some(resolve);
            });
            let _ = JsFuture::from(promise).await;
        }
    }
}
