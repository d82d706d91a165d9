//! The page's wasm modules fetched on first use, each run in a Web Worker of its own (the
//! history reader, the sync): starting one and awaiting its messages ([`Started`], on the
//! page), and the worker's side of the exchange ([`serve`], [`post`]). Messages are JSON
//! text, and each worker's first message says which version of them it speaks, so a cached
//! page and a newer worker refuse each other with a clear message instead of misreading.

use crate::error::AppError;
use crate::inbox::Inbox;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// What the page's side of an exchange received.
enum Event {
    Message(JsValue),
    Broken(String),
}

/// A running worker, stopped when dropped (an exchange that ends or is abandoned).
pub struct Started {
    worker: web_sys::Worker,
    /// What the worker is, for messages: "the import reader".
    what: &'static str,
    inbox: Inbox<Event>,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl Started {
    /// Starts the worker whose loader is at `url` (Trunk's loader shim, next to the page);
    /// `what` names it in messages, `when` says when it is fetched ("the first time a file
    /// is read").
    pub fn new(url: &'static str, what: &'static str, when: &'static str) -> Result<Started, AppError> {
        let worker = web_sys::Worker::new(url).map_err(|e| format!("{what} ({url}) could not be started ({e:?})"))?;
        let inbox: Inbox<Event> = Inbox::default();
        let p = inbox.clone();
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            p.push(Event::Message(e.data()))
        });
        let p = inbox.clone();
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            let why = e.dyn_ref::<web_sys::ErrorEvent>().map(|e| e.message()).filter(|m| !m.is_empty());
            p.push(Event::Broken(match why {
                Some(why) => format!("{what} failed ({why}); reload the page and try again"),
                None => format!(
                    "{what} ({url}) could not be loaded; it is fetched {when} — check the connection and try again"
                ),
            }))
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(Started { worker, what, inbox, _on_message: on_message, _on_error: on_error })
    }

    /// Waits for the worker's first message, `ready` parsed from it, and checks that it
    /// speaks `protocol`.
    pub async fn ready(&self, protocol: u32) -> Result<(), AppError> {
        let text = self.next_text().await?;
        #[derive(serde::Deserialize)]
        struct Ready {
            kind: String,
            protocol: u32,
        }
        match serde_json::from_str::<Ready>(&text) {
            Ok(r) if r.kind == "ready" && r.protocol == protocol => Ok(()),
            Ok(r) if r.kind == "ready" => Err(format!(
                "{} is from another version of Nocturne (messages v{}, this page v{protocol}); reload the page",
                self.what, r.protocol
            )
            .into()),
            _ => Err(format!("{} did not start as expected ({text})", self.what).into()),
        }
    }

    /// Posts `message` to the worker.
    pub fn post(&self, message: &JsValue) -> Result<(), AppError> {
        Ok(self.worker.post_message(message).map_err(|e| format!("{} could not be asked ({e:?})", self.what))?)
    }

    /// Posts to the worker from a callback that may outlive this borrow (an abort's).
    pub fn poster(&self) -> impl Fn(&JsValue) + 'static {
        let worker = self.worker.clone();
        move |message| {
            let _ = worker.post_message(message);
        }
    }

    /// The worker's next message, as the text it is.
    pub async fn next_text(&self) -> Result<String, AppError> {
        match self.inbox.next().await {
            Event::Message(data) => {
                Ok(data.as_string().ok_or_else(|| format!("{} sent something that is not text", self.what))?)
            }
            Event::Broken(why) => Err(why.into()),
        }
    }

    /// The worker's next message, parsed.
    pub async fn next<T: serde::de::DeserializeOwned>(&self) -> Result<T, AppError> {
        let text = self.next_text().await?;
        serde_json::from_str(&text)
            .map_err(|e| AppError::caused(format!("{}'s message is unreadable ({e})", self.what), e))
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

/// The worker's side: says it is ready, speaking `protocol`, then hands every message the
/// page posts to `answer`, one task each. A panic is posted as `failed` with `what` and the
/// panic's words. Called once, by the worker module's `main`.
pub fn serve<F>(protocol: u32, what: &'static str, answer: impl Fn(JsValue) -> F + 'static)
where
    F: std::future::Future<Output = Result<(), AppError>> + 'static,
{
    std::panic::set_hook(Box::new(move |info| post_failed(&format!("{what} failed: {info}"))));
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
        let work = answer(e.data());
        wasm_bindgen_futures::spawn_local(async move {
            if let Err(e) = work.await {
                post_failed(&e.to_string());
            }
        })
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    post_text(&format!(r#"{{"kind":"ready","protocol":{protocol}}}"#));
}

/// Posts `reply` to the page, as JSON text.
pub fn post(reply: &impl serde::Serialize) {
    if let Ok(text) = serde_json::to_string(reply) {
        post_text(&text);
    }
}

fn post_failed(message: &str) {
    post(&serde_json::json!({ "failed": { "message": message } }));
}

fn post_text(text: &str) {
    let _ = scope().post_message(&text.into());
}

fn scope() -> web_sys::DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}
