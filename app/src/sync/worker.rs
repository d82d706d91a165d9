//! Sync in the browser, the worker's half: a wasm module of its own
//! (`nocturne-sync-worker`, built by Trunk from `src/bin/sync.rs`) that the page starts in
//! a Web Worker for one sync or one take or release of the Sleep lease. It holds the sync
//! library (Yjs), the key derivation (Argon2id), the sealing and opening of records and the replay
//! of other devices' records; it reads and writes the memory's IndexedDB database itself,
//! under the same write lock as the page's tabs, and keeps the replica beside the state.
//!
//! Both halves of the exchange are here: [`sync`] and [`Leasing`] on the page, [`serve`] in
//! the worker. The page posts one [`Request`] as JSON text and gets one [`Reply`].

use super::{joined_of, read, Ask, Idb, Summary, JOINED, REPLICA, STATE, SUMMARY};
use crate::idb::IdbStore;
use crate::inbox::Inbox;
use crate::lock::Tabs;
use crate::worker::{self as module, Started};
use nocturne_sync::crypto::KdfParams;
use nocturne_sync::procedure::{self, Exchange, Joined, Lease, Random, ReplicaKeeper, ServerLease, Synced};
use nocturne_sync::replica::Replica;
use nocturne_sync::session::Session;
use nocturne_sync::SyncError;
use rexie::TransactionMode;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The worker's loader, next to the page (Trunk's loader shim for the worker module).
pub const WORKER_URL: &str = "./nocturne-sync-worker_loader.js";

/// The version of these messages (see `crate::worker`).
const PROTOCOL: u32 = 1;

/// How long one exchange may take before the connection counts as dropped.
const EXCHANGE_TIMEOUT_MS: u32 = 30_000;

/// What the page asks of the sync worker, for the memory named `memory`.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Request {
    Sync { memory: String, ask: Ask, now: i64 },
    TakeLease { memory: String, now: i64 },
    ReleaseLease { memory: String, now: i64 },
}

/// What the sync worker answers.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Reply {
    Synced {
        synced: Box<Synced>,
    },
    /// The lease's answer ([`Lease::take`]): taken (with why the server could not be
    /// asked, when it could not), or held by another device (who, until when).
    Lease {
        taken: Option<String>,
    },
    LeaseHeld {
        by: String,
    },
    Released,
    /// The sync or the worker failed, in words a user can act on.
    Failed {
        message: String,
    },
}

/// Asks the sync worker once and awaits its one answer.
async fn ask(request: &Request) -> Result<Reply, SyncError> {
    let engine = |e: crate::error::AppError| SyncError::Engine(e.to_string());
    let worker = Started::new(WORKER_URL, "the sync module", "the first time the memory syncs").map_err(engine)?;
    worker.ready(PROTOCOL).await.map_err(engine)?;
    let text = serde_json::to_string(&(PROTOCOL, request)).map_err(|e| SyncError::Engine(e.to_string()))?;
    worker.post(&JsValue::from_str(&text)).map_err(engine)?;
    worker.next().await.map_err(engine)
}

/// The sync worker's answer to another request than the one asked (a worker of another
/// build).
fn answered_otherwise(what: &str) -> SyncError {
    SyncError::Engine(format!("the sync module answered something else than {what}; reload the page"))
}

/// One sync of the memory named `memory`, in the sync worker ([`procedure::sync`]).
pub async fn sync(memory: &str, ask_: &Ask, now: i64) -> Result<Synced, SyncError> {
    match ask(&Request::Sync { memory: memory.into(), ask: ask_.clone(), now }).await? {
        Reply::Synced { synced } => Ok(*synced),
        Reply::Failed { message } => Err(SyncError::Engine(message)),
        Reply::Lease { .. } | Reply::LeaseHeld { .. } | Reply::Released => Err(answered_otherwise("a sync")),
    }
}

/// The space's Sleep lease of the memory named by it, asked through the sync worker.
pub struct Leasing(pub String);

impl Lease for Leasing {
    async fn take(&self, now: i64) -> Result<Option<String>, SyncError> {
        match ask(&Request::TakeLease { memory: self.0.clone(), now }).await? {
            Reply::Lease { taken } => Ok(taken),
            Reply::LeaseHeld { by } => Err(SyncError::LeaseHeld(by)),
            Reply::Failed { message } => Err(SyncError::Engine(message)),
            Reply::Synced { .. } | Reply::Released => Err(answered_otherwise("the lease")),
        }
    }
    async fn release(&self, now: i64) {
        // Best effort: the lease expires by itself.
        let _ = ask(&Request::ReleaseLease { memory: self.0.clone(), now }).await;
    }
}

/// The worker's side: answers each request posted to it. Called once, by the worker
/// module's `main`.
pub fn serve() {
    module::serve(PROTOCOL, "the sync module", answer);
}

async fn answer(data: JsValue) -> Result<(), crate::error::AppError> {
    let text = data.as_string().ok_or("the page sent no request")?;
    let (protocol, request): (u32, Request) = serde_json::from_str(&text).map_err(|e| {
        // The request holds the passphrase: its words are never repeated.
        format!("the page's request is unreadable (at line {} column {})", e.line(), e.column())
    })?;
    if protocol != PROTOCOL {
        return Err(format!(
            "this page is from another version of Nocturne (messages v{protocol}, its sync module v{PROTOCOL}); reload the page"
        ).into());
    }
    let reply = match request {
        Request::Sync { memory, ask, now } => {
            let store = IdbStore::open(&memory).await?;
            let synced = sync_here(&store, &ask, now).await?;
            Reply::Synced { synced: Box::new(synced) }
        }
        Request::TakeLease { memory, now } => {
            let keeper = Idb::new(memory);
            let lease = ServerLease { keeper: &keeper, exchange: &Socket, random: &WebCrypto };
            match lease.take(now).await {
                Ok(taken) => Reply::Lease { taken },
                Err(SyncError::LeaseHeld(by)) => Reply::LeaseHeld { by },
                Err(e) => Reply::Failed { message: e.to_string() },
            }
        }
        Request::ReleaseLease { memory, now } => {
            let keeper = Idb::new(memory);
            ServerLease { keeper: &keeper, exchange: &Socket, random: &WebCrypto }.release(now).await;
            Reply::Released
        }
    };
    module::post(&reply);
    Ok(())
}

/// One sync ([`procedure::sync`]) of `store`, here in the worker.
async fn sync_here(store: &IdbStore, ask: &Ask, now: i64) -> Result<Synced, SyncError> {
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
    procedure::sync(&Idb::new(store.name()), &Socket, &WebCrypto, &Tabs, store, &ask, now).await
}

impl ReplicaKeeper for Idb {
    async fn load(&self) -> Result<Option<(Joined, Replica)>, SyncError> {
        let [joined, replica] = read(&*self.db().await?, [JOINED, REPLICA]).await?;
        let Some(joined) = joined_of(joined)? else { return Ok(None) };
        let bytes = replica.map(|v| js_sys::Uint8Array::new(&v).to_vec()).filter(|b| !b.is_empty());
        let replica = match bytes {
            None => Replica::new(joined.client_id),
            Some(bytes) => Replica::load(joined.client_id, &bytes)?,
        };
        Ok(Some((joined, replica)))
    }

    /// The state, the replica and its summary, in one transaction.
    async fn save(&self, joined: &Joined, replica: &Replica) -> Result<(), SyncError> {
        let failed =
            |e: rexie::Error| SyncError::State(format!("cannot save the sync state ({e:?}); the memory is as it was"));
        let db = self.db().await?;
        let tx = db.transaction(&[STATE], TransactionMode::ReadWrite).map_err(failed)?;
        let s = tx.store(STATE).map_err(failed)?;
        let json = serde_json::to_string(joined).map_err(|e| SyncError::State(e.to_string()))?;
        let summary = Summary { records: replica.len(), lease: replica.lease() };
        let summary = serde_json::to_string(&summary).map_err(|e| SyncError::State(e.to_string()))?;
        let rows = [
            (JsValue::from_str(&json), JOINED),
            (js_sys::Uint8Array::from(replica.state().as_slice()).into(), REPLICA),
            (JsValue::from_str(&summary), SUMMARY),
        ];
        for (value, key) in rows {
            s.put(&value, Some(&JsValue::from_str(key))).await.map_err(failed)?;
        }
        tx.done().await.map_err(failed)?;
        Ok(())
    }
}

/// WebCrypto's randomness.
struct WebCrypto;

impl Random for WebCrypto {
    fn fill(&self, bytes: &mut [u8]) -> Result<(), SyncError> {
        // The worker's global scope, not `window`: there is none in a worker.
        let crypto = js_sys::Reflect::get(&js_sys::global(), &"crypto".into())
            .ok()
            .filter(|c| !c.is_undefined())
            .ok_or_else(|| SyncError::Random("this browser has no WebCrypto".into()))?
            .unchecked_into::<web_sys::Crypto>();
        crypto
            .get_random_values_with_u8_array(bytes)
            .map_err(|e| SyncError::Random(format!("no randomness from WebCrypto ({e:?})")))?;
        Ok(())
    }
}

/// The browser's WebSocket.
struct Socket;

impl Exchange for Socket {
    async fn exchange(&self, url: &str, replica: &Replica, nonce: [u8; 8]) -> Result<(), SyncError> {
        exchange(url, replica, nonce).await
    }
}

/// What the socket delivered.
enum Event {
    Open,
    Message(Vec<u8>),
    Closed(String),
}

/// One y-sync exchange over a browser WebSocket.
async fn exchange(url: &str, replica: &Replica, nonce: [u8; 8]) -> Result<(), SyncError> {
    let server = SyncError::Server;
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
    let timer = crate::task::Timer::start(EXCHANGE_TIMEOUT_MS, move || {
        p.push(Event::Closed(format!("no complete answer within {} s", EXCHANGE_TIMEOUT_MS / 1000)))
    });
    let result = drive(&socket, replica, nonce, &inbox).await;
    drop(timer);
    socket.set_onclose(None);
    socket.set_onerror(None);
    socket.set_onmessage(None);
    let _ = socket.close();
    drop((on_open, on_message, on_close, on_error));
    result.map_err(|m| server(format!("{m} ({url})")))
}

/// The exchange over an open socket; `Err` is how the connection ended, in the browser's
/// words (`String`: [`exchange`] makes it a `SyncError::Server` with the address).
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
