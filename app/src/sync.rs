//! Sync in the browser: the WebSocket to the y-sweet server, this device's sync state in
//! IndexedDB, randomness from WebCrypto, and the steps of one sync — everything else
//! (records, replay, encryption, the engine) is `nocturne-sync`'s.
//!
//! The passphrase lives only in the Settings panel's field for the session: it is never
//! stored, logged or exported. The device's state (its id, name, the records it applied and
//! the ones waiting) and its replica of the space (sealed records only) are kept in their
//! own database, `nocturne-sync:<memory>`, so an erase or a rebuild of the memory's rows
//! never touches them.

use crate::idb::IdbStore;
use crate::inbox::Inbox;
use nocturne_core::llm::provider::Provider;
use nocturne_sync::crypto::KdfParams;
use nocturne_sync::engine::Replica;
use nocturne_sync::journal::Journal;
use nocturne_sync::procedure::{self, Exchange, Keeper, Random, WriteLock};
use nocturne_sync::session::Session;
use rexie::{ObjectStore, Rexie, TransactionMode};
use std::future::Future;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub use nocturne_sync::procedure::{Joined, Synced};

const STATE: &str = "state";
/// How long one exchange may take before the connection counts as dropped.
const EXCHANGE_TIMEOUT_MS: u32 = 30_000;

fn db_name(memory: &str) -> String {
    format!("nocturne-sync:{memory}")
}

async fn db(memory: &str) -> Result<Rexie, String> {
    Rexie::builder(&db_name(memory))
        .version(1)
        .add_object_store(ObjectStore::new(STATE))
        .build()
        .await
        .map_err(|e| format!("cannot open the sync state ({e:?})"))
}

/// This memory's sync state, when it has joined a space.
pub async fn load(memory: &str) -> Result<Option<(Joined, Replica)>, String> {
    let db = db(memory).await?;
    let tx = db.transaction(&[STATE], TransactionMode::ReadOnly).map_err(|e| format!("{e:?}"))?;
    let s = tx.store(STATE).map_err(|e| format!("{e:?}"))?;
    let joined = s.get(JsValue::from_str("joined")).await.map_err(|e| format!("{e:?}"))?;
    let replica = s.get(JsValue::from_str("replica")).await.map_err(|e| format!("{e:?}"))?;
    let Some(text) = joined.and_then(|v| v.as_string()) else { return Ok(None) };
    let joined: Joined = serde_json::from_str(&text).map_err(|e| format!("the sync state is unreadable ({e})"))?;
    let bytes = replica.filter(|v| !v.is_undefined()).map(|v| js_sys::Uint8Array::new(&v).to_vec()).unwrap_or_default();
    let replica = if bytes.is_empty() {
        Replica::new(joined.client_id)
    } else {
        Replica::load(joined.client_id, &bytes).map_err(|e| e.to_string())?
    };
    Ok(Some((joined, replica)))
}

/// Saves the sync state (and the replica, when given) in one transaction.
pub async fn save(memory: &str, joined: &Joined, replica: Option<&Replica>) -> Result<(), String> {
    let db = db(memory).await?;
    let tx = db.transaction(&[STATE], TransactionMode::ReadWrite).map_err(|e| format!("{e:?}"))?;
    let s = tx.store(STATE).map_err(|e| format!("{e:?}"))?;
    let json = serde_json::to_string(joined).map_err(|e| e.to_string())?;
    s.put(&JsValue::from_str(&json), Some(&JsValue::from_str("joined"))).await.map_err(|e| format!("{e:?}"))?;
    if let Some(r) = replica {
        let bytes = js_sys::Uint8Array::from(r.state().as_slice());
        s.put(&bytes.into(), Some(&JsValue::from_str("replica"))).await.map_err(|e| format!("{e:?}"))?;
    }
    tx.done().await.map_err(|e| format!("cannot save the sync state ({e:?}); the memory is as it was"))?;
    Ok(())
}

/// Leaves the space: the sync state goes, the memory stays as it is.
pub async fn leave(memory: &str) -> Result<(), String> {
    Rexie::delete(&db_name(memory)).await.map_err(|e| format!("cannot remove the sync state ({e:?})"))
}

/// This memory's sync state in IndexedDB.
pub struct Idb(String);

impl Keeper for Idb {
    async fn load(&self) -> Result<Option<(Joined, Replica)>, String> {
        load(&self.0).await
    }
    async fn save(&self, joined: &Joined, replica: Option<&Replica>) -> Result<(), String> {
        save(&self.0, joined, replica).await
    }
}

/// WebCrypto's randomness.
struct WebCrypto;

impl Random for WebCrypto {
    fn fill(&self, bytes: &mut [u8]) -> Result<(), String> {
        let crypto = web_sys::window().and_then(|w| w.crypto().ok()).ok_or("this browser has no WebCrypto")?;
        crypto.get_random_values_with_u8_array(bytes).map_err(|e| format!("no randomness from WebCrypto ({e:?})"))?;
        Ok(())
    }
}

/// The browser's WebSocket.
struct Socket;

impl Exchange for Socket {
    async fn exchange(&self, url: &str, replica: &Replica, nonce: [u8; 8]) -> Result<(), String> {
        exchange(url, replica, nonce).await
    }
}

/// The write lock every tab of this memory shares.
struct Tabs;

impl WriteLock for Tabs {
    async fn hold<T>(&self, work: impl Future<Output = Result<T, String>>) -> Result<T, String> {
        crate::lock::write(work).await.map_err(|e| e.to_string())?
    }
}

/// What the user typed to sync.
#[derive(Clone, Debug, Default)]
pub struct Ask {
    pub server: String,
    /// Empty: make a new space.
    pub space: String,
    pub device_name: String,
    pub passphrase: String,
}

/// One sync ([`procedure::sync`]): join (the first time), fetch, seal what waits, merge
/// under the write lock, send. Fails with a message a person can act on; a failure loses
/// nothing.
pub async fn sync_now(store: &IdbStore, ask: &Ask, now: i64) -> Result<Synced, String> {
    if ask.passphrase.is_empty() {
        return Err("type the space's passphrase (it is never stored)".into());
    }
    let memory = store.name();
    // The procedure trims each field and reads an empty one as not given.
    let ask = procedure::Ask {
        server: Some(&ask.server),
        space: Some(&ask.space),
        device_name: Some(&ask.device_name),
        passphrase: &ask.passphrase,
        kdf: KdfParams::DEFAULT,
        kind: "browser",
        empty_hint: "join with an empty memory (Settings → memories)",
    };
    procedure::sync(&Idb(memory), &Socket, &WebCrypto, &Tabs, store, &ask, now).await
}

/// The one write path over this memory (`nocturne_sync::journal`): every write of the
/// page goes through it, recorded for the next sync when the memory syncs.
pub fn journal<'a>(store: &'a IdbStore, keeper: &'a Idb) -> Journal<'a, Idb, IdbStore> {
    Journal { keeper, store }
}

/// This memory's sync state, for [`journal`].
pub fn keeper(store: &IdbStore) -> Idb {
    Idb(store.name())
}

/// A Sleep through the journal (the estimate, the guard against a heavy retirement, the
/// space's lease over the browser's WebSocket when the memory syncs).
pub async fn sleep<P: Provider>(
    store: &IdbStore,
    provider: &P,
    call: &mut nocturne_sync::journal::SleepCall<'_>,
) -> Result<nocturne_core::flow::sleep::SleepReport, nocturne_sync::journal::SleepFailure> {
    let keeper = keeper(store);
    journal(store, &keeper).sleep(provider, (&Socket, &WebCrypto), call).await.map(|j| j.done)
}

/// A reviewed Sleep's plan applied through the journal (the Sleep lease and a record when
/// the memory syncs).
pub async fn apply(
    store: &IdbStore,
    plan: &nocturne_core::flow::review::Review,
    decisions: &nocturne_core::flow::review::Decisions,
    at: i64,
) -> Result<nocturne_core::flow::review::Applied, String> {
    let keeper = keeper(store);
    journal(store, &keeper).apply(plan, decisions, (&Socket, &WebCrypto), at, &mut |_| {}).await.map(|j| j.done)
}

/// What the socket delivered.
enum Event {
    Open,
    Message(Vec<u8>),
    Closed(String),
}

/// One y-sync exchange over a browser WebSocket.
async fn exchange(url: &str, replica: &Replica, nonce: [u8; 8]) -> Result<(), String> {
    let server = |m: String| nocturne_sync::SyncError::Server(m).to_string();
    let socket = web_sys::WebSocket::new(url).map_err(|e| server(format!("cannot open {url} ({e:?})")))?;
    socket.set_binary_type(web_sys::BinaryType::Arraybuffer);
    let inbox: Inbox<Event> = Inbox::default();
    let p = inbox.clone();
    let on_open = Closure::<dyn FnMut()>::new(move || p.push(Event::Open));
    let p = inbox.clone();
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
        if let Ok(buf) = e.data().dyn_into::<js_sys::ArrayBuffer>() {
            p.push(Event::Message(js_sys::Uint8Array::new(&buf).to_vec()));
        }
    });
    let p = inbox.clone();
    let on_close = Closure::<dyn FnMut(web_sys::CloseEvent)>::new(move |e: web_sys::CloseEvent| {
        p.push(Event::Closed(format!("the connection closed (code {})", e.code())))
    });
    let p = inbox.clone();
    let on_error = Closure::<dyn FnMut()>::new(move || p.push(Event::Closed("cannot reach the server".into())));
    socket.set_onopen(Some(on_open.as_ref().unchecked_ref()));
    socket.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    socket.set_onclose(Some(on_close.as_ref().unchecked_ref()));
    socket.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let p = inbox.clone();
    let timer = leptos::prelude::set_timeout_with_handle(
        move || p.push(Event::Closed(format!("no complete answer within {} s", EXCHANGE_TIMEOUT_MS / 1000))),
        std::time::Duration::from_millis(EXCHANGE_TIMEOUT_MS.into()),
    )
    .ok();
    let result = drive(&socket, replica, nonce, &inbox).await;
    if let Some(t) = timer {
        t.clear();
    }
    socket.set_onclose(None);
    socket.set_onerror(None);
    socket.set_onmessage(None);
    let _ = socket.close();
    drop((on_open, on_message, on_close, on_error));
    result.map_err(|m| server(format!("{m} ({url})")))
}

async fn drive(
    socket: &web_sys::WebSocket,
    replica: &Replica,
    nonce: [u8; 8],
    inbox: &Inbox<Event>,
) -> Result<(), String> {
    let mut session: Option<Session> = None;
    loop {
        match inbox.next().await {
            Event::Open => {
                let (s, first) = Session::start(replica, nonce);
                socket.send_with_u8_array(&first).map_err(|e| format!("the connection dropped ({e:?})"))?;
                session = Some(s);
            }
            Event::Message(bytes) => {
                let Some(s) = session.as_mut() else { continue };
                for reply in s.receive(replica, &bytes).map_err(|e| e.to_string())? {
                    socket.send_with_u8_array(&reply).map_err(|e| format!("the connection dropped ({e:?})"))?;
                }
                if s.done() {
                    return Ok(());
                }
            }
            Event::Closed(why) => return Err(why),
        }
    }
}
