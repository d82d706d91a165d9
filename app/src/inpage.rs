//! `InPageProvider`: a GGUF model the user picked, run in this page by llama.cpp compiled
//! to WebAssembly (wllama, in a Web Worker). Its JavaScript and wasm load from the page's
//! own origin on first use (`js/inpage.js`); the main bundle carries only this adapter.
//! A reply that must be JSON is decoded under the GBNF grammar of its schema, checked by
//! the core's recognizer before each token, so it always parses.

use crate::stop::StopHandle;
use js_sys::{Function, Reflect};
use nocturne_core::llm::gbnf::{self, Fit, Grammar};
use nocturne_core::llm::provider::{Completion, ProposalStyle, Provider, ProviderError, Request, StyleSetting};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/js/inpage.js")]
extern "C" {
    fn inpage_isolated() -> bool;
    #[wasm_bindgen(catch)]
    async fn inpage_stored() -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    async fn inpage_keep(file: web_sys::File, on_progress: &Function) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    async fn inpage_offered() -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    async fn inpage_keep_offered(name: &str, on_progress: &Function) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    async fn inpage_remove() -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    async fn inpage_load(n_ctx: u32, threads: u32) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    async fn inpage_start(request: JsValue, fit: JsValue, signal: &web_sys::AbortSignal) -> Result<JsValue, JsValue>;
}

/// How the in-page model runs (from Settings).
#[derive(Clone, Debug, PartialEq)]
pub struct InPageConfig {
    /// The kept file's name, for labels and the proposal style.
    pub model: String,
    /// Context size in tokens.
    pub n_ctx: u32,
    /// Worker threads, as resolved by [`threads_for`]; more than one only where the page
    /// is cross-origin isolated.
    pub threads: u32,
    pub style: StyleSetting,
}

/// Worker threads for a wish of `asked` (0: choose from the machine). One where the page
/// is not cross-origin isolated (no shared memory); on two cores, two (a prompt read ~1.8×
/// faster on a quiet machine, and as fast as one with a core kept busy, since the
/// runtime's threads sleep at a barrier instead of spinning: README, `inpage-vs-native:`);
/// above, half the cores, at most four, leaving the rest to the page and the browser.
/// A number the user chose is kept where threads can run.
pub fn threads_for(asked: u32, cores: u32, isolated: bool) -> u32 {
    match (isolated, asked) {
        (false, _) => 1,
        (true, 0) if cores <= 2 => cores.max(1),
        (true, 0) => (cores / 2).clamp(2, 4),
        (true, n) => n,
    }
}

/// The machine's logical cores, as the browser reports them (1 when it does not).
pub fn cores() -> u32 {
    web_sys::window().map(|w| w.navigator().hardware_concurrency() as u32).filter(|&n| n > 0).unwrap_or(1)
}

/// The kept model file.
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
pub struct KeptModel {
    pub name: String,
    pub size: f64,
}

impl KeptModel {
    /// `SmolLM2-135M-Instruct.Q4_1.gguf, 93.8 MB`.
    pub fn describe(&self) -> String {
        format!("{}, {:.1} MB", self.name, self.size / 1_048_576.0)
    }
}

/// What loading the model found.
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Loaded {
    pub name: String,
    pub n_ctx: u32,
    pub threads: u32,
    pub multi_thread: bool,
    pub flash_attn: bool,
    /// The KV cache's element type (`f32`, `f16`).
    pub kv_type: String,
    /// The model's quantisation (`Q4_0`, `Q8_0`, `Q4_1`…), from its GGUF metadata.
    pub quant: String,
    /// Which runtime runs: llama.cpp with wasm SIMD kernels built by scripts/setup.sh, or
    /// npm's generic build (`inpage/wllama/build.js`).
    pub runtime_detail: String,
    pub load_ms: f64,
}

impl Loaded {
    /// `context 4096 tokens, one thread, Q8_0, f32 cache, flash attention off; runtime: …`.
    pub fn setup(&self) -> String {
        let threads = if self.multi_thread { format!("{} threads", self.threads) } else { "one thread".into() };
        let flash = if self.flash_attn { "on" } else { "off" };
        format!(
            "context {} tokens, {threads}, {}, {} cache, flash attention {flash}; runtime: {}",
            self.n_ctx, self.quant, self.kv_type, self.runtime_detail
        )
    }
}

/// Whether the page may run several worker threads (it needs cross-origin isolation).
pub fn isolated() -> bool {
    inpage_isolated()
}

/// The model file kept in this browser, if any.
pub async fn kept() -> Result<Option<KeptModel>, RuntimeError> {
    answer(inpage_stored().await)
}

/// Checks `file` is a GGUF model and keeps it in place of any other, calling
/// `on_progress` with the fraction copied.
pub async fn keep(file: web_sys::File, on_progress: impl Fn(f64) + 'static) -> Result<KeptModel, RuntimeError> {
    let progress = Closure::<dyn Fn(f64)>::new(on_progress);
    answer(inpage_keep(file, progress.as_ref().unchecked_ref()).await)
}

/// The models this site offers from its own origin (none unless `scripts/serve.sh` found
/// one to offer).
pub async fn offered() -> Vec<KeptModel> {
    answer(inpage_offered().await).unwrap_or_default()
}

/// Downloads an offered model from this origin and keeps it, calling `on_progress`.
pub async fn keep_offered(name: &str, on_progress: impl Fn(f64) + 'static) -> Result<KeptModel, RuntimeError> {
    let progress = Closure::<dyn Fn(f64)>::new(on_progress);
    answer(inpage_keep_offered(name, progress.as_ref().unchecked_ref()).await)
}

/// Forgets the kept model and frees the runtime.
pub async fn remove() -> Result<(), RuntimeError> {
    inpage_remove().await.map(|_| ()).map_err(message)
}

/// Loads the kept model (once per file, context size and threads).
pub async fn load(config: &InPageConfig) -> Result<Loaded, RuntimeError> {
    answer(inpage_load(config.n_ctx, config.threads).await)
}

/// The provider.
#[derive(Clone, Debug)]
pub struct InPageProvider {
    pub config: InPageConfig,
    /// The Stop button of the action using this provider, if any.
    pub stop: Option<StopHandle>,
    /// Proposal style per model and setting, this session (`auto` may move to choosing).
    pub styles: crate::http::StyleMemo,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsRequest<'a> {
    messages: &'a [nocturne_core::llm::provider::Message],
    max_tokens: u32,
    /// The reply's grammar (GBNF), when it has one: with the messages, what makes two
    /// requests the same, so the runtime may give a greedy reply it already produced.
    #[serde(skip_serializing_if = "Option::is_none")]
    grammar: Option<&'a str>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsDone {
    text: String,
    prompt_tokens: u64,
    completion_tokens: u64,
    truncated: bool,
}

impl InPageProvider {
    pub fn new(config: InPageConfig, styles: crate::http::StyleMemo) -> Self {
        InPageProvider { config, stop: None, styles }
    }

    /// This model's proposal style this session.
    pub fn style(&self) -> crate::http::StyleSlot<'_> {
        let key = format!("inpage|{}|{:?}", self.config.model, self.config.style);
        self.styles.slot(key, self.config.style, &self.config.model)
    }

    /// The same provider, stopped by `stop`.
    pub fn with_stop(mut self, stop: StopHandle) -> Self {
        self.stop = Some(stop);
        self
    }

    async fn run(&self, request: &Request, on_delta: &mut dyn FnMut(&str)) -> Result<Completion, ProviderError> {
        let stopped = || self.stop.as_ref().is_some_and(StopHandle::is_stopped);
        if stopped() {
            return Err(ProviderError::Stopped);
        }
        load(&self.config).await.map_err(|e| ProviderError::Runtime(e.0))?;
        let grammar_text = match &request.json {
            Some(contract) => Some(gbnf::grammar(&contract.schema).map_err(|e| ProviderError::Runtime(e.to_string()))?),
            None => None,
        };
        let fit = match &grammar_text {
            Some(text) => {
                let grammar = Grammar::parse(text).map_err(|e| ProviderError::Runtime(e.to_string()))?;
                let fit = Closure::<dyn Fn(String) -> u8>::new(move |t: String| match grammar.fit(&t) {
                    Fit::Never => 0,
                    Fit::Prefix => 1,
                    Fit::Complete => 2,
                });
                Some(fit)
            }
            None => None,
        };
        let controller =
            web_sys::AbortController::new().map_err(|_| ProviderError::Runtime("no AbortController".into()))?;
        if let Some(stop) = &self.stop {
            stop.register(controller.clone());
        }
        let body =
            JsRequest { messages: &request.messages, max_tokens: request.max_tokens, grammar: grammar_text.as_deref() };
        let js_request = body
            .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
            .map_err(|e| ProviderError::Runtime(e.to_string()))?;
        let fit_js = fit.as_ref().map_or(JsValue::UNDEFINED, |f| f.as_ref().clone());
        let failed = |e: JsValue| {
            if stopped()
                || Reflect::get(&e, &"name".into()).ok().and_then(|n| n.as_string()).as_deref() == Some("AbortError")
            {
                ProviderError::Stopped
            } else {
                ProviderError::Runtime(message(e).0)
            }
        };
        let session = inpage_start(js_request, fit_js, &controller.signal()).await.map_err(failed)?;
        let next: Function = Reflect::get(&session, &"next".into()).map_err(failed)?.unchecked_into();
        loop {
            let step = next.call0(&session).map_err(failed)?;
            let step = JsFuture::from(js_sys::Promise::from(step)).await.map_err(failed)?;
            if let Some(delta) = Reflect::get(&step, &"delta".into()).ok().and_then(|d| d.as_string()) {
                on_delta(&delta);
                continue;
            }
            let done = Reflect::get(&step, &"done".into()).map_err(failed)?;
            let done: JsDone =
                serde_wasm_bindgen::from_value(done).map_err(|e| ProviderError::Runtime(e.to_string()))?;
            drop(fit);
            return Ok(Completion {
                text: done.text,
                prompt_tokens: done.prompt_tokens,
                completion_tokens: done.completion_tokens,
                truncated: done.truncated,
            });
        }
    }
}

impl Provider for InPageProvider {
    fn label(&self) -> String {
        format!("{} (in this browser)", self.config.model)
    }

    fn proposal_style(&self) -> ProposalStyle {
        self.style().state().current()
    }

    fn observe_refusals(&self, proposed: usize, refused: usize) {
        self.style().observe_refusals(proposed, refused);
    }

    fn observe_unusable(&self, why: &str) -> Option<String> {
        self.style().unusable(why)
    }

    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        self.run(request, &mut |_| {}).await
    }

    async fn complete_streaming(
        &self,
        request: &Request,
        on_delta: &mut dyn FnMut(&str),
    ) -> Result<Completion, ProviderError> {
        self.run(request, on_delta).await
    }
}

/// A runtime call's answer read as `T`, or the message of its error.
fn answer<T: serde::de::DeserializeOwned>(v: Result<JsValue, JsValue>) -> Result<T, RuntimeError> {
    serde_wasm_bindgen::from_value(v.map_err(message)?).map_err(|e| RuntimeError(e.to_string()))
}

/// A JavaScript error's message.
fn message(e: JsValue) -> RuntimeError {
    RuntimeError(
        Reflect::get(&e, &"message".into())
            .ok()
            .and_then(|m| m.as_string())
            .or_else(|| e.as_string())
            .unwrap_or_else(|| "an unknown error in the in-page runtime".into()),
    )
}

/// The in-page runtime failed (the model could not be kept, loaded or removed), in the
/// runtime's words (it reports JavaScript errors: their message is what is kept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError(pub String);

impl std::fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RuntimeError {}

/// The words, where the page shows them.
impl From<RuntimeError> for String {
    fn from(e: RuntimeError) -> String {
        e.0
    }
}
