//! Returning to the event loop between the steps of long work (decoding a large read, a
//! Sleep's estimate), so input and drawing run in between — in the page or in a worker.

use wasm_bindgen::JsCast;

/// Resolves on the next task of this thread's event loop (a `setTimeout` of 0 on the
/// global scope: the page's window or a worker's).
pub async fn next() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let global = js_sys::global();
        let set = js_sys::Reflect::get(&global, &"setTimeout".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        match set {
            Some(set) if set.call2(&global, &resolve, &0.into()).is_ok() => {}
            // No timer here: go on at once rather than never.
            _ => {
                let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
            }
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
