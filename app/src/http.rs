//! `HttpProvider`: any OpenAI-compatible `POST {baseUrl}/chat/completions`, called from
//! the page with gloo-net. JSON mode falls back per base URL — json_schema, then
//! json_object, then plain text — when a server answers 400 to `response_format`, and the
//! mode each endpoint got is remembered and shown. The API key is sent only in the
//! Authorization header: never logged, exported, or put in an error message.

use crate::stop::StopHandle;
use gloo_net::http::{Request as HttpRequest, Response};
use js_sys::{Reflect, Uint8Array};
use nocturne_core::llm::openai::{self, StreamStep};
use nocturne_core::llm::provider::{
    Completion, ProposalStyle, Provider, ProviderError, Request, StyleSetting, StyleState,
};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

pub use nocturne_core::llm::openai::JsonMode;

/// Which JSON mode each base URL ended up with (shared by every provider built from the
/// same settings, so a refusal is detected once per base URL).
pub type ModeMemo = Rc<RefCell<HashMap<String, JsonMode>>>;

/// The proposal style each endpoint and model is at (under `auto` it may have moved to
/// candidates), shared by every provider built from the settings this session.
#[derive(Clone, Debug, Default)]
pub struct StyleMemo(Rc<RefCell<HashMap<String, StyleState>>>);

impl StyleMemo {
    /// The entry of the provider keyed `key`, started from `setting` for `model` the first
    /// time it is asked for.
    pub fn slot<'a>(&'a self, key: String, setting: StyleSetting, model: &'a str) -> StyleSlot<'a> {
        StyleSlot { memo: self, key, setting, model }
    }
}

/// One provider's entry in a [`StyleMemo`]: the style it is at, and what moves it (the
/// same for every provider; the HTTP and in-page providers differ only in their key).
pub struct StyleSlot<'a> {
    memo: &'a StyleMemo,
    key: String,
    setting: StyleSetting,
    model: &'a str,
}

impl StyleSlot<'_> {
    /// The style in use now.
    pub fn state(&self) -> StyleState {
        *self.memo.0.borrow_mut().entry(self.key.clone()).or_insert_with(|| self.setting.start(self.model))
    }

    /// The gates refused `refused` of the `proposed` proposals made in this style.
    pub fn observe_refusals(&self, proposed: usize, refused: usize) {
        let next = self.state().observe(proposed, refused);
        self.memo.0.borrow_mut().insert(self.key.clone(), next);
    }

    /// A free-text reply could not be used (`why`); returns auto's line when it switched.
    pub fn unusable(&self, why: &str) -> Option<String> {
        let (next, line) = self.state().unusable(self.model, why);
        self.memo.0.borrow_mut().insert(self.key.clone(), next);
        line
    }

    /// Sets the style, as a run elsewhere (the verifier's worker) left it.
    pub fn set(&self, state: StyleState) {
        self.memo.0.borrow_mut().insert(self.key.clone(), state);
    }

    /// The model's name, as `auto` words its switch line.
    pub fn model(&self) -> &str {
        self.model
    }
}

/// Settings of an OpenAI-compatible endpoint.
#[derive(Clone, PartialEq)]
pub struct HttpConfig {
    /// `http://127.0.0.1:18080/v1` — `/chat/completions` is appended.
    pub base_url: String,
    pub model: String,
    /// Kept in memory; never logged, exported or shown.
    pub api_key: Option<String>,
    pub timeout_ms: u32,
    /// The first mode to try.
    pub prefer: JsonMode,
    /// Free text, choose from candidates, or auto (by the model's name and its refusals).
    pub style: StyleSetting,
}

impl std::fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<hidden>"))
            .field("timeout_ms", &self.timeout_ms)
            .finish()
    }
}

/// The provider.
#[derive(Clone, Debug)]
pub struct HttpProvider {
    pub config: HttpConfig,
    pub modes: ModeMemo,
    pub styles: StyleMemo,
    /// The Stop button of the action using this provider, if any.
    pub stop: Option<StopHandle>,
}

impl HttpProvider {
    pub fn new(config: HttpConfig, modes: ModeMemo) -> Self {
        HttpProvider { config, modes, styles: StyleMemo::default(), stop: None }
    }

    /// A provider that shares the session's proposal-style memory.
    pub fn with_styles(config: HttpConfig, modes: ModeMemo, styles: StyleMemo) -> Self {
        HttpProvider { config, modes, styles, stop: None }
    }

    /// The same provider, aborted by `stop`.
    pub fn with_stop(mut self, stop: StopHandle) -> Self {
        self.stop = Some(stop);
        self
    }

    fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(StopHandle::is_stopped)
    }

    /// This endpoint and model's proposal style this session.
    pub fn style(&self) -> StyleSlot<'_> {
        let key = format!("{}|{}|{:?}", self.config.base_url, self.config.model, self.config.style);
        self.styles.slot(key, self.config.style, &self.config.model)
    }

    fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.config.base_url.trim_end_matches('/'))
    }

    /// The JSON mode this base URL uses now.
    pub fn mode(&self) -> JsonMode {
        self.modes.borrow().get(&self.config.base_url).copied().unwrap_or(self.config.prefer)
    }

    fn body(&self, request: &Request, mode: JsonMode, stream: bool) -> Value {
        openai::body(request, &self.config.model, mode, stream)
    }

    /// Removes the API key from any text that might echo it.
    fn redact(&self, text: &str) -> String {
        openai::redact(text, self.config.api_key.as_deref())
    }

    async fn send(&self, body: &Value) -> Result<Response, ProviderError> {
        if self.stopped() {
            return Err(ProviderError::Stopped);
        }
        let controller =
            web_sys::AbortController::new().map_err(|_| ProviderError::Unreachable("no AbortController".into()))?;
        if let Some(stop) = &self.stop {
            stop.register(controller.clone());
        }
        let signal = controller.signal();
        let timeout_ms = self.config.timeout_ms;
        let abort = Closure::once(move || controller.abort());
        let window = web_sys::window().ok_or_else(|| ProviderError::Unreachable("no window".into()))?;
        let timer = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(abort.as_ref().unchecked_ref(), timeout_ms as i32)
            .map_err(|_| ProviderError::Unreachable("cannot start the timeout".into()))?;
        let mut builder =
            HttpRequest::post(&self.endpoint()).header("Content-Type", "application/json").abort_signal(Some(&signal));
        if let Some(key) = self.config.api_key.as_deref().filter(|k| !k.is_empty()) {
            builder = builder.header("Authorization", &format!("Bearer {key}"));
        }
        let result = match builder.body(body.to_string()) {
            Ok(req) => req.send().await,
            Err(e) => {
                window.clear_timeout_with_handle(timer);
                return Err(ProviderError::BadResponse(self.redact(&e.to_string())));
            }
        };
        window.clear_timeout_with_handle(timer);
        drop(abort);
        result.map_err(|e| {
            if self.stopped() {
                ProviderError::Stopped
            } else if signal.aborted() {
                ProviderError::Timeout { seconds: timeout_ms.div_ceil(1000) }
            } else {
                ProviderError::Unreachable(self.redact(&e.to_string()))
            }
        })
    }

    /// Posts `request`, falling back to a weaker JSON mode when the server refuses the
    /// stronger one, and remembering what worked for this base URL.
    async fn post(&self, request: &Request, stream: bool) -> Result<Response, ProviderError> {
        let mut mode = self.mode();
        loop {
            let response = self.send(&self.body(request, mode, stream)).await?;
            if response.ok() {
                if request.json.is_some() {
                    self.modes.borrow_mut().insert(self.config.base_url.clone(), mode);
                }
                return Ok(response);
            }
            let status = response.status();
            let text = response.text().await.unwrap_or_default();
            let refuses_format = request.json.is_some() && openai::refuses_format(status, &text);
            match mode.weaker() {
                Some(next) if refuses_format => {
                    self.modes.borrow_mut().insert(self.config.base_url.clone(), next);
                    mode = next;
                }
                _ => return Err(ProviderError::Http { status, body: self.redact(&text) }),
            }
        }
    }

    /// Streams a chat reply, calling `on_delta` with each piece of text as it arrives
    /// (server-sent events read from the fetch body).
    pub async fn stream(&self, request: &Request, on_delta: &mut dyn FnMut(&str)) -> Result<Completion, ProviderError> {
        let response = self.post(request, true).await?;
        let is_sse = response.headers().get("content-type").is_some_and(|c| c.contains("text/event-stream"));
        if !is_sse {
            let completion =
                parse_completion(&response.text().await.map_err(|e| ProviderError::BadResponse(e.to_string()))?)?;
            on_delta(&completion.text);
            return Ok(completion);
        }
        let body = response.body().ok_or_else(|| ProviderError::BadResponse("the stream has no body".into()))?;
        let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
        let mut pending: Vec<u8> = Vec::new();
        let mut completion = Completion::default();
        let mut finished = false;
        while !finished {
            let chunk = JsFuture::from(reader.read()).await.map_err(|e| {
                if self.stopped() {
                    ProviderError::Stopped
                } else {
                    ProviderError::Unreachable(format!("the stream broke: {}", js_text(&e)))
                }
            })?;
            if Reflect::get(&chunk, &"done".into()).ok().and_then(|d| d.as_bool()).unwrap_or(true) {
                break;
            }
            let bytes = Reflect::get(&chunk, &"value".into())
                .map_err(|_| ProviderError::BadResponse("a stream chunk has no value".into()))?;
            pending.extend(Uint8Array::new(&bytes).to_vec());
            while let Some(end) = pending.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = pending.drain(..=end).collect();
                match openai::stream_line(&String::from_utf8_lossy(&line), &mut completion)? {
                    StreamStep::Delta(delta) => on_delta(&delta),
                    StreamStep::Done => {
                        finished = true;
                        break;
                    }
                    StreamStep::Nothing => {}
                }
            }
        }
        Ok(completion)
    }
}

impl HttpProvider {
    /// *Test connection*: the models the server lists (`GET /models`, optional), then one
    /// small structured request through the JSON-mode fallback, timed. Errors are the
    /// provider's, worded for a person and without the key.
    pub async fn test_connection(&self) -> Result<openai::ConnectionReport, ProviderError> {
        let models = self.list_models().await;
        let request =
            nocturne_core::llm::prompt::quiz_question_request("I keep a bearded dragon called Saffron.", false);
        let started = js_sys::Date::now();
        self.complete(&request).await?;
        let round_trip_ms = js_sys::Date::now() - started;
        let model_listed = models.as_ref().map(|ids| ids.iter().any(|id| id == &self.config.model));
        Ok(openai::ConnectionReport { models, json_mode: self.mode(), round_trip_ms, model_listed })
    }

    /// `GET {baseUrl}/models`, or `None` when the server does not answer it usefully.
    async fn list_models(&self) -> Option<Vec<String>> {
        let url = format!("{}/models", self.config.base_url.trim_end_matches('/'));
        let mut builder = HttpRequest::get(&url);
        if let Some(key) = self.config.api_key.as_deref().filter(|k| !k.is_empty()) {
            builder = builder.header("Authorization", &format!("Bearer {key}"));
        }
        let response = builder.send().await.ok().filter(Response::ok)?;
        Some(openai::model_ids(&response.text().await.ok()?)).filter(|ids| !ids.is_empty())
    }
}

fn js_text(v: &JsValue) -> String {
    v.as_string()
        .or_else(|| js_sys::JSON::stringify(v).ok().and_then(|s| s.as_string()))
        .unwrap_or_else(|| "unknown error".into())
}

pub use nocturne_core::llm::openai::parse_completion;

impl Provider for HttpProvider {
    fn proposal_style(&self) -> ProposalStyle {
        self.style().state().current()
    }

    fn observe_refusals(&self, proposed: usize, refused: usize) {
        self.style().observe_refusals(proposed, refused);
    }

    fn observe_unusable(&self, why: &str) -> Option<String> {
        self.style().unusable(why)
    }

    fn label(&self) -> String {
        format!("{} @ {}", self.config.model, self.config.base_url)
    }

    async fn complete_streaming(
        &self,
        request: &Request,
        on_delta: &mut dyn FnMut(&str),
    ) -> Result<Completion, ProviderError> {
        self.stream(request, on_delta).await
    }

    /// Every call streams: a server notices a client that went away (Stop, a closed tab)
    /// only while it streams, so an aborted call stops the model's generation too.
    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        self.stream(request, &mut |_| {}).await
    }
}
