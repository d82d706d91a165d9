//! Timers of the global scope — the page's window or a worker's, whichever runs this:
//! returning to the event loop between the steps of long work (decoding a large read), so
//! input and drawing run in between, and a timeout cleared when dropped.

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
