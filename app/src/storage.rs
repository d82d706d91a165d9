//! The browser's storage for the memory: ask once for persistent storage (so a personal
//! memory is not evicted under storage pressure) and report what was granted and how much
//! of the quota is used (`navigator.storage.persist()` / `persisted()` / `estimate()`).

use js_sys::{Function, Promise, Reflect};
use std::cell::Cell;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

thread_local! {
    static ASKED: Cell<bool> = const { Cell::new(false) };
}

/// What the browser says about this site's storage.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StorageStatus {
    /// `Some(true)` when the browser promised not to evict; `None` when it cannot say.
    pub persisted: Option<bool>,
    pub usage: Option<f64>,
    pub quota: Option<f64>,
}

impl StorageStatus {
    /// One line for Settings: `persistent (will not be evicted); 1.2 MB of 300 GB used`.
    pub fn describe(&self) -> String {
        let kind = match self.persisted {
            Some(true) => "persistent (the browser will not evict it)",
            Some(false) => "best effort (the browser may evict it under storage pressure; export to keep a copy)",
            None => "unknown (this browser does not say)",
        };
        match (self.usage, self.quota) {
            (Some(u), Some(q)) => format!("{kind}; {} of {} used", bytes(u), bytes(q)),
            _ => kind.to_string(),
        }
    }
}

fn bytes(n: f64) -> String {
    if n >= 1e9 {
        format!("{:.1} GB", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.1} MB", n / 1e6)
    } else {
        format!("{:.0} KB", n / 1e3)
    }
}

fn manager() -> Option<JsValue> {
    let navigator = web_sys::window()?.navigator();
    Reflect::get(&navigator, &"storage".into()).ok().filter(|s| !s.is_undefined())
}

async fn call(method: &str) -> Option<JsValue> {
    let m = manager()?;
    let f: Function = Reflect::get(&m, &method.into()).ok()?.dyn_into().ok()?;
    let promise: Promise = f.call0(&m).ok()?.dyn_into().ok()?;
    JsFuture::from(promise).await.ok()
}

/// Asks for persistent storage, once per page load (the first write asks).
pub async fn persist_once() {
    if ASKED.with(|a| a.replace(true)) {
        return;
    }
    let _ = call("persist").await;
}

/// What was granted, and usage against the quota.
pub async fn status() -> StorageStatus {
    let persisted = call("persisted").await.and_then(|v| v.as_bool());
    let estimate = call("estimate").await;
    let field =
        |name: &str| estimate.as_ref().and_then(|e| Reflect::get(e, &name.into()).ok()).and_then(|v| v.as_f64());
    StorageStatus { persisted, usage: field("usage"), quota: field("quota") }
}
