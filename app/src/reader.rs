//! The history reader off the page: a chosen export is unpacked, inflated and split into
//! its conversations (`nocturne_core::history::Reading`) in a Web Worker of its own wasm
//! module (`nocturne-import`, built by Trunk from `src/bin/import.rs`), fetched the first
//! time a file is read and cached by the service worker after that. The page's bundle
//! holds neither the zip reader nor the export readers, and its thread never runs them.
//!
//! Both halves of the exchange are here: [`read`] on the page, [`serve`] in the worker.
//! Messages are JSON text: the page posts `{request, file}` (the `File` itself, which the
//! worker reads), the worker answers [`Reply`]s — progress, the conversations in slices of
//! about a thousand messages (each parsed by the page in a task of its own), then what was
//! left out, or why it failed.

use crate::error::AppError;
use crate::worker::{self, Started};
use nocturne_core::history::{Conversation, Format, History, Reading, Skipped, Step};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The worker's loader, next to the page (Trunk's loader shim for the worker module).
pub const WORKER_URL: &str = "./nocturne-import_loader.js";

/// The version of these messages: a page and a worker of different builds (a cached page
/// after an update) refuse each other with a clear message instead of misreading.
const PROTOCOL: u32 = 1;

/// Conversations read between two progress messages.
const CONVERSATIONS_PER_STEP: usize = 100;

/// Messages per slice sent back (whole conversations, at least one): small enough that the
/// page parses a slice in a few milliseconds.
const MESSAGES_PER_SLICE: usize = 1000;

/// What the page asks (beside the file).
#[derive(Debug, Serialize, Deserialize)]
struct Request {
    protocol: u32,
    /// Dates messages whose file gives no time.
    now: i64,
}

/// What the worker says.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Reply {
    /// Listening, speaking `protocol` (posted by `worker::serve`).
    Ready { protocol: u32 },
    /// Conversations read so far.
    Working { conversations: usize },
    /// The next conversations, in the file's order.
    Slice { conversations: Vec<Conversation> },
    /// Everything was sent: the format and what the readers left out.
    Done { format: Format, skipped: Skipped },
    /// The file could not be read (or the reader failed), in words a user can act on.
    Failed { message: String },
}

/// Reads `file` in the import worker: `on_progress` gets the conversations read so far.
/// Fails with a message a person can act on (the file's fault, or the reader could not
/// be loaded); nothing is written either way.
pub async fn read(file: &web_sys::File, now: i64, on_progress: &mut dyn FnMut(usize)) -> Result<History, AppError> {
    let worker = Started::new(WORKER_URL, "the import reader", "the first time a file is read")?;
    worker.ready(PROTOCOL).await?;
    let request = serde_json::to_string(&Request { protocol: PROTOCOL, now }).map_err(|e| e.to_string())?;
    let message = js_sys::Object::new();
    js_sys::Reflect::set(&message, &"request".into(), &request.into()).map_err(|e| format!("{e:?}"))?;
    js_sys::Reflect::set(&message, &"file".into(), file).map_err(|e| format!("{e:?}"))?;
    worker.post(&message)?;
    let mut conversations = Vec::new();
    loop {
        match worker.next().await? {
            Reply::Working { conversations } => on_progress(conversations),
            Reply::Slice { conversations: slice } => {
                conversations.extend(slice);
                on_progress(conversations.len());
            }
            Reply::Done { format, skipped } => return Ok(History { format, conversations, skipped }),
            Reply::Failed { message } => return Err(message.into()),
            Reply::Ready { .. } => return Err("the import reader started twice".into()),
        }
    }
}

/// The worker's side: answers each file posted to it with [`Reply`]s. Called once, by the
/// worker module's `main`.
pub fn serve() {
    worker::serve(PROTOCOL, "the import reader", answer);
}

fn post(reply: &Reply) {
    worker::post(reply)
}

async fn answer(data: JsValue) -> Result<(), AppError> {
    let field = |name: &str| js_sys::Reflect::get(&data, &name.into()).unwrap_or(JsValue::UNDEFINED);
    let request = field("request").as_string().ok_or("the page sent no request")?;
    let request: Request =
        serde_json::from_str(&request).map_err(|e| format!("the page's request is unreadable ({e})"))?;
    if request.protocol != PROTOCOL {
        return Err(format!(
            "this page is from another version of Nocturne (messages v{}, its import reader v{PROTOCOL}); reload the page",
            request.protocol
        ).into());
    }
    let file: web_sys::File = field("file").dyn_into().map_err(|_| "the page sent no file")?;
    let buffer = wasm_bindgen_futures::JsFuture::from(file.array_buffer())
        .await
        .map_err(|_| format!("{} could not be read", file.name()))?;
    let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
    drop(buffer);
    let mut reading = Reading::new(&file.name(), bytes, None, request.now);
    let mut history = loop {
        match reading.step(CONVERSATIONS_PER_STEP).map_err(|e| e.to_string())? {
            Step::Done(history) => break history,
            Step::Working { conversations } => post(&Reply::Working { conversations }),
        }
    };
    while !history.conversations.is_empty() {
        let mut messages = 0;
        let n = history
            .conversations
            .iter()
            .take_while(|c| {
                messages += c.messages.len();
                messages <= MESSAGES_PER_SLICE
            })
            .count()
            .max(1);
        post(&Reply::Slice { conversations: history.conversations.drain(..n).collect() });
    }
    post(&Reply::Done { format: history.format, skipped: history.skipped });
    Ok(())
}
