//! One writer across tabs, with the Web Locks API: every write to the memory (a chat
//! turn's record, a Sleep, a restore, the policy) holds the same lock, so no two ever
//! interleave. A Sleep asks only if the lock is free (a clear message otherwise); the
//! short writes wait their turn. The sync worker takes the same lock while it merges.

use js_sys::{Function, Object, Promise, Reflect};
use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The lock every write to the memory takes.
pub const WRITE_LOCK: &str = "nocturne-write";

/// What to do when the lock is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Give up at once with [`LockError::Busy`] (a Sleep: the user retries later).
    IfAvailable,
    /// Wait for the holder to finish (a chat turn's record, a restore, the policy).
    Queue,
}

/// Why `exclusive` did not run its work.
#[derive(Clone, Debug, PartialEq)]
pub enum LockError {
    /// Another tab (or this one) holds the lock.
    Busy,
    /// The browser has no Web Locks API.
    Unsupported(String),
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockError::Busy => {
                write!(f, "the memory is being written (a Sleep or another write, in this tab or another); wait for it to finish, then try again")
            }
            LockError::Unsupported(m) => write!(f, "this browser cannot coordinate tabs (Web Locks: {m})"),
        }
    }
}

fn locks() -> Result<JsValue, LockError> {
    // The global scope's navigator: the page's, or a worker's (the sync module's).
    let navigator = Reflect::get(&js_sys::global(), &"navigator".into())
        .map_err(|_| LockError::Unsupported("no navigator".into()))?;
    let locks =
        Reflect::get(&navigator, &"locks".into()).map_err(|_| LockError::Unsupported("no navigator.locks".into()))?;
    if locks.is_undefined() {
        return Err(LockError::Unsupported("navigator.locks is missing".into()));
    }
    Ok(locks)
}

/// Runs `work` while holding the named lock; when it is held, `wait` says whether to
/// queue behind the holder or return `Busy` at once.
pub async fn exclusive<T>(name: &str, wait: Wait, work: impl Future<Output = T>) -> Result<T, LockError> {
    let locks = locks()?;
    let request: Function = Reflect::get(&locks, &"request".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or_else(|| LockError::Unsupported("navigator.locks.request is missing".into()))?;
    // `granted` settles when the callback runs (true: we hold it); `release` ends the hold.
    let grant_slot: Rc<RefCell<Option<Function>>> = Rc::default();
    let release_slot: Rc<RefCell<Option<Function>>> = Rc::default();
    let granted = {
        let slot = grant_slot.clone();
        Promise::new(&mut |resolve, _| *slot.borrow_mut() = Some(resolve))
    };
    let callback = {
        let (grant_slot, release_slot) = (grant_slot.clone(), release_slot.clone());
        Closure::once(move |lock: JsValue| -> Promise {
            let held = !lock.is_null();
            if let Some(grant) = grant_slot.borrow_mut().take() {
                let _ = grant.call1(&JsValue::NULL, &JsValue::from_bool(held));
            }
            if !held {
                return Promise::resolve(&JsValue::UNDEFINED);
            }
            Promise::new(&mut |resolve, _| *release_slot.borrow_mut() = Some(resolve))
        })
    };
    let options = Object::new();
    Reflect::set(&options, &"ifAvailable".into(), &JsValue::from_bool(wait == Wait::IfAvailable))
        .map_err(|_| LockError::Unsupported("options".into()))?;
    let done = request
        .call3(&locks, &JsValue::from_str(name), &options, callback.as_ref().unchecked_ref())
        .map_err(|e| LockError::Unsupported(format!("{e:?}")))?;
    let held = JsFuture::from(granted).await.ok().and_then(|v| v.as_bool()).unwrap_or(false);
    if !held {
        let _ = JsFuture::from(Promise::from(done)).await;
        return Err(LockError::Busy);
    }
    let out = work.await;
    if let Some(release) = release_slot.borrow_mut().take() {
        let _ = release.call0(&JsValue::NULL);
    }
    let _ = JsFuture::from(Promise::from(done)).await;
    drop(callback);
    Ok(out)
}

/// Runs a write to the memory as the one writer: asks once for persistent storage (so the
/// browser does not evict the memory), then queues for [`WRITE_LOCK`].
pub async fn write<T>(work: impl Future<Output = T>) -> Result<T, LockError> {
    crate::storage::persist_once().await;
    exclusive(WRITE_LOCK, Wait::Queue, work).await
}

/// The write lock every tab of this memory shares, as the one write path
/// (`nocturne_core::write`) and the sync procedure hold it.
pub struct Tabs;

impl From<LockError> for nocturne_core::write::LockError {
    fn from(e: LockError) -> Self {
        match e {
            LockError::Busy => nocturne_core::write::LockError::Busy(e.to_string()),
            LockError::Unsupported(_) => nocturne_core::write::LockError::Unavailable(e.to_string()),
        }
    }
}

impl nocturne_core::write::WriteLock for Tabs {
    async fn hold<T, E: From<nocturne_core::write::LockError>>(
        &self,
        work: impl Future<Output = Result<T, E>>,
    ) -> Result<T, E> {
        write(work).await.map_err(|e| E::from(e.into()))?
    }
    async fn hold_if_free<T, E: From<nocturne_core::write::LockError>>(
        &self,
        work: impl Future<Output = Result<T, E>>,
    ) -> Result<T, E> {
        crate::storage::persist_once().await;
        exclusive(WRITE_LOCK, Wait::IfAvailable, work).await.map_err(|e| E::from(e.into()))?
    }
}
