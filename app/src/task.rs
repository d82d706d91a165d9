//! Timers of the global scope — the page's window or a worker's, whichever runs this:
//! returning to the event loop between the steps of long work (decoding a large read), so
//! input and drawing run in between, and a timeout cleared when dropped; many IndexedDB
//! requests awaited together ([`all`]); and work given up when its handle is dropped
//! ([`abortable`]).

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Resolves on the next task of this thread's event loop (a `setTimeout` of 0).
pub async fn next() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let global = js_sys::global();
        match global_function("setTimeout") {
            Some(set) if set.call2(&global, &resolve, &0.into()).is_ok() => {}
            // No timer here: go on at once rather than never.
            _ => {
                let _ = resolve.call0(&JsValue::NULL);
            }
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// A `setTimeout` that calls `f` after `ms` milliseconds unless dropped first.
pub struct Timer {
    id: Option<JsValue>,
    _callback: Closure<dyn FnMut()>,
}

impl Timer {
    pub fn start(ms: u32, f: impl FnMut() + 'static) -> Timer {
        let callback = Closure::<dyn FnMut()>::new(f);
        let id = global_function("setTimeout")
            .and_then(|set| set.call2(&js_sys::global(), callback.as_ref(), &ms.into()).ok());
        Timer { id, _callback: callback }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        if let (Some(clear), Some(id)) = (global_function("clearTimeout"), &self.id) {
            let _ = clear.call1(&js_sys::global(), id);
        }
    }
}

/// The global scope's function called `name` (`window.setTimeout` has no binding a worker
/// can call, so it is looked up by name).
fn global_function(name: &str) -> Option<js_sys::Function> {
    js_sys::Reflect::get(&js_sys::global(), &name.into()).ok().and_then(|f| f.dyn_into().ok())
}

/// How many futures [`all`] polls together.
const TOGETHER: usize = 128;

/// Awaits every one of `futures`, in order, polling up to [`TOGETHER`] of them at once: an
/// IndexedDB request is made when its future is first polled, so the requests of a batch
/// are all made before the first answer is awaited (one round trip for the batch, not one
/// each), and a transaction sees nothing but its own requests meanwhile.
pub async fn all<F: Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut out = Vec::new();
    let mut futures = futures.into_iter().peekable();
    while futures.peek().is_some() {
        let batch: Vec<Pin<Box<F>>> = futures.by_ref().take(TOGETHER).map(Box::pin).collect();
        out.extend(Batch { slots: batch.into_iter().map(Slot::Waiting).collect() }.await);
    }
    out
}

enum Slot<F: Future> {
    Waiting(Pin<Box<F>>),
    Done(Option<F::Output>),
}

/// Polls every waiting future of a batch each time one of them wakes it.
struct Batch<F: Future> {
    slots: Vec<Slot<F>>,
}

// Nothing in a batch is pinned in place: a waiting future is pinned in its own box, and an
// output is only moved out.
impl<F: Future> Unpin for Batch<F> {}

impl<F: Future> Future for Batch<F> {
    type Output = Vec<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let mut waiting = false;
        for slot in this.slots.iter_mut() {
            if let Slot::Waiting(f) = slot {
                match f.as_mut().poll(cx) {
                    Poll::Ready(v) => *slot = Slot::Done(Some(v)),
                    Poll::Pending => waiting = true,
                }
            }
        }
        if waiting {
            return Poll::Pending;
        }
        Poll::Ready(
            this.slots
                .iter_mut()
                .filter_map(|s| match s {
                    Slot::Done(v) => v.take(),
                    Slot::Waiting(_) => None,
                })
                .collect(),
        )
    }
}

/// `work`, and the handle that keeps it going: once the handle is dropped, the future ends
/// with `None` and drops `work` (a job's: its worker ends). A Leptos resource never cancels
/// a stale future; one that keeps the handle of its latest does, by dropping the one before.
pub fn abortable<F: Future>(work: F) -> (Abortable<F>, AbortHandle) {
    let state = Rc::new(AbortState::default());
    (Abortable { work: Some(Box::pin(work)), state: state.clone() }, AbortHandle(state))
}

#[derive(Default)]
struct AbortState {
    aborted: Cell<bool>,
    waker: RefCell<Option<Waker>>,
}

/// Keeps an [`abortable`]'s work going while it lives.
pub struct AbortHandle(Rc<AbortState>);

impl Drop for AbortHandle {
    fn drop(&mut self) {
        self.0.aborted.set(true);
        if let Some(waker) = self.0.waker.borrow_mut().take() {
            waker.wake();
        }
    }
}

/// Work that ends with `None` once its [`AbortHandle`] is dropped.
pub struct Abortable<F: Future> {
    work: Option<Pin<Box<F>>>,
    state: Rc<AbortState>,
}

impl<F: Future> Unpin for Abortable<F> {}

impl<F: Future> Future for Abortable<F> {
    type Output = Option<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        if this.state.aborted.get() {
            this.work = None;
            return Poll::Ready(None);
        }
        *this.state.waker.borrow_mut() = Some(cx.waker().clone());
        match this.work.as_mut().map(|w| w.as_mut().poll(cx)) {
            Some(Poll::Ready(out)) => {
                this.work = None;
                Poll::Ready(Some(out))
            }
            Some(Poll::Pending) => Poll::Pending,
            None => Poll::Ready(None),
        }
    }
}
