//! Settings: the provider (offline, an OpenAI-compatible endpoint, or a model run in this
//! page, whose panel is `ui::inpage`), the JSON-mode status, the retention policy, and
//! export / import.

use super::ctx;
use crate::jobs;
use leptos::prelude::*;
use nocturne_core::llm::openai;
use nocturne_core::llm::provider::StyleSetting;
use nocturne_core::store::Store;
use nocturne_core::RetentionPolicy;
use serde::{Deserialize, Serialize};

const KEY: &str = "nocturne.settings";

/// Persisted in localStorage. The API key is only here if the user asked to remember it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// `offline`, `openai` or `inpage`.
    pub provider: String,
    pub base_url: String,
    pub model: String,
    pub timeout_s: u32,
    pub remembered_key: Option<String>,
    /// Free text, choose from candidates, or auto.
    pub proposal_style: StyleSetting,
    /// Tokens a chat prompt may carry, per provider (`offline`, `openai`): a model with a
    /// small context window gets a smaller one.
    pub prompt_tokens: std::collections::BTreeMap<String, u64>,
    /// The in-page model: the kept file's name, its context size and worker threads.
    pub inpage_model: String,
    pub inpage_ctx: u32,
    /// Worker threads the user chose, 0 to choose from the machine
    /// ([`crate::inpage::threads_for`]). Stored under a new name: the old `inpageThreads`
    /// held a fixed default of 2, which collapses on two busy cores.
    #[serde(rename = "inpageThreadChoice")]
    pub inpage_threads: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            provider: "offline".into(),
            base_url: "http://127.0.0.1:18080/v1".into(),
            model: "smollm2".into(),
            timeout_s: 120,
            remembered_key: None,
            proposal_style: StyleSetting::Auto,
            prompt_tokens: Default::default(),
            inpage_model: String::new(),
            inpage_ctx: 4096,
            inpage_threads: 0,
        }
    }
}

/// Prompt tokens the in-page runtime reads per second on this project's 2-core machine with
/// `threads` worker threads (`inpage-vs-native:` in the README: SmolLM2-135M Q8_0, the
/// runtime built with wasm SIMD, flash attention off, q8_0 keys, the even/odd Q8_0 kernel):
/// one thread 65-66, two (what auto runs on two cores) 119-121; more were not measured
/// here and are taken as two. npm's generic runtime reads ~18.
pub fn inpage_prompt_tokens_per_s(threads: u32) -> f64 {
    if threads >= 2 {
        120.0
    } else {
        65.0
    }
}

/// The in-page model's default prompt budget: a full 1,000-token prompt shows its first
/// token in about 10 s from a cold start on two threads, 18 s on one (a server's 2,000
/// would take about 18 and 33); a follow-up on the same memory reads only its new turns
/// (the kept cache).
pub const INPAGE_DEFAULT_BUDGET: u64 = 1_000;

/// Seconds to the first token of a cold prompt that fills `budget` (plus the instructions
/// and the message, ~150 tokens) in the page, read with `threads` worker threads.
pub fn inpage_first_token_s(budget: u64, threads: u32) -> f64 {
    (budget + 150) as f64 / inpage_prompt_tokens_per_s(threads)
}

impl Settings {
    fn storage() -> Option<web_sys::Storage> {
        web_sys::window()?.local_storage().ok()?
    }

    /// The prompt budget of the provider in use (the in-page model's default is its own:
    /// see [`INPAGE_DEFAULT_BUDGET`]).
    pub fn prompt_budget(&self) -> u64 {
        let default = if self.provider == "inpage" {
            INPAGE_DEFAULT_BUDGET
        } else {
            nocturne_core::llm::provider::DEFAULT_MEMORY_TOKENS
        };
        self.prompt_tokens.get(&self.provider).copied().unwrap_or(default)
    }

    /// How the in-page model runs.
    pub fn inpage_config(&self) -> crate::inpage::InPageConfig {
        crate::inpage::InPageConfig {
            model: self.inpage_model.clone(),
            n_ctx: self.inpage_ctx.clamp(512, 32_768),
            threads: crate::inpage::threads_for(
                self.inpage_threads.min(16),
                crate::inpage::cores(),
                crate::inpage::isolated(),
            ),
            style: self.proposal_style,
        }
    }

    pub fn load() -> Settings {
        Self::storage()
            .and_then(|s| s.get_item(KEY).ok()?)
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }

    pub fn save(&self) {
        if let (Some(s), Ok(text)) = (Self::storage(), serde_json::to_string(self)) {
            let _ = s.set_item(KEY, &text);
        }
    }
}

/// Whether the browser keeps the memory for good, and how much of the quota it uses.
#[component]
fn StorageStatusLine() -> impl IntoView {
    let c = ctx();
    let status = LocalResource::new(move || {
        c.revision.get();
        crate::storage::status()
    });
    view! {
        <h2>"Storage"</h2>
        // Its own boundary, so re-reading the quota after a write never sends the page back
        // to the app's loading state.
        <Transition fallback=|| ()>
            <p data-testid="storage-status">{move || status.get().map(|s| s.describe())}</p>
        </Transition>
    }
}

#[component]
pub fn SettingsPanel() -> impl IntoView {
    let c = ctx();
    let s = c.settings;
    let remember = RwSignal::new(s.get_untracked().remembered_key.is_some());
    let saved = RwSignal::new(String::new());
    // What the endpoint in the form answers, before anything is saved.
    let test = Action::new_local(move |_: &()| {
        let provider = c.provider();
        async move {
            match provider {
                crate::providers::AnyProvider::Http(p) => {
                    p.test_connection().await.map(|r| r.describe()).map_err(|e| format!("Not connected: {e}"))
                }
                crate::providers::AnyProvider::Offline(_) => {
                    Ok("The offline provider runs in this page: nothing to connect to.".to_string())
                }
                crate::providers::AnyProvider::InPage(p) => crate::inpage::load(&p.config)
                    .await
                    .map(|l| format!("Loaded {} in {:.0} ms: {}.", l.name, l.load_ms, l.setup()))
                    .map_err(|e| format!("Not loaded: {e}")),
            }
        }
    });
    let save = move |_| {
        let mut next = s.get_untracked();
        next.remembered_key = remember.get_untracked().then(|| c.api_key.get_untracked()).filter(|k| !k.is_empty());
        next.save();
        s.set(next);
        saved.set("Saved.".into());
    };
    // Only the fields of the provider chosen are shown; the others keep their values (in
    // `settings`, or the key typed this session), so switching back loses nothing.
    let not_endpoint = move || s.with(|x| x.provider != "openai");
    let offline = move || s.with(|x| x.provider == "offline");
    view! {
        <div class="settings">
            <h2>"Provider"</h2>
            <fieldset>
                <legend>"Where the model runs"</legend>
                <label><input type="radio" name="provider" prop:checked=move || s.get().provider == "offline"
                    on:change=move |_| s.update(|x| x.provider = "offline".into()) />
                    " Offline (deterministic rules, no model, no network)"</label>
                <label><input type="radio" name="provider" prop:checked=move || s.get().provider == "openai"
                    on:change=move |_| s.update(|x| x.provider = "openai".into()) />
                    " OpenAI-compatible endpoint"</label>
                <label><input type="radio" name="provider" data-testid="provider-inpage" prop:checked=move || s.get().provider == "inpage"
                    on:change=move |_| s.update(|x| x.provider = "inpage".into()) />
                    " In this browser (GGUF file): a real model run by this page, no server, no key"</label>
                <p class="hint" data-testid="offline-note" hidden=move || !offline()>
                    "The offline rules run in this page: there is no address, model, key or timeout to set."</p>
                <label hidden=not_endpoint>"Server " <select data-testid="preset"
                    on:change=move |ev| {
                        let name = event_target_value(&ev);
                        if let Some(p) = openai::PRESETS.iter().find(|p| p.name == name) {
                            s.update(|x| x.base_url = p.base_url.to_string());
                        }
                    }>
                    <option value="" selected=true>"choose a preset…"</option>
                    {openai::PRESETS.iter().map(|p| view! { <option value=p.name>{format!("{} — key: {}", p.name, p.key)}</option> }).collect_view()}
                </select></label>
                <label class="wide" hidden=not_endpoint>"Base URL " <input type="url" prop:value=move || s.get().base_url
                    on:input=move |ev| s.update(|x| x.base_url = event_target_value(&ev)) /></label>
                <label hidden=not_endpoint>"Model " <input type="text" prop:value=move || s.get().model
                    on:input=move |ev| s.update(|x| x.model = event_target_value(&ev)) /></label>
                <label hidden=not_endpoint>"API key " <input type="password" autocomplete="off" prop:value=move || c.api_key.get()
                    on:input=move |ev| c.api_key.set(event_target_value(&ev)) /></label>
                <label hidden=not_endpoint><input type="checkbox" prop:checked=move || remember.get()
                    on:change=move |ev| remember.set(event_target_checked(&ev)) />" Remember the key on this device"</label>
                <label hidden=not_endpoint>"Timeout (s) " <input type="number" min="1" prop:value=move || s.get().timeout_s.to_string()
                    on:input=move |ev| s.update(|x| x.timeout_s = event_target_value(&ev).parse().unwrap_or(120)) /></label>
                <label>"Prompt budget (tokens, this provider) " <input type="number" min="300" step="100"
                    data-testid="prompt-budget" prop:value=move || s.get().prompt_budget().to_string()
                    on:change=move |ev| s.update(|x| {
                        if let Ok(n) = event_target_value(&ev).parse::<u64>() {
                            let key = x.provider.clone();
                            x.prompt_tokens.insert(key, n.max(300));
                        }
                    }) /></label>
                <Show when=move || s.get().provider == "inpage">
                    <p class="hint" data-testid="expected-ttft">{move || { let threads = s.get().inpage_config().threads; format!(
                        "Expected first token with this budget: about {:.0} s when the memory is read from scratch (this page reads ~{:.0} prompt tokens/s here); a follow-up on the same memory about a second or two, since what the model read is kept.",
                        inpage_first_token_s(s.get().prompt_budget(), threads),
                        inpage_prompt_tokens_per_s(threads)
                    ) }}</p>
                </Show>
                <label hidden=offline>"Proposals and answers " <select data-testid="proposal-style"
                    on:change=move |ev| s.update(|x| x.proposal_style = StyleSetting::parse(&event_target_value(&ev)).unwrap_or_default())>
                    {[(StyleSetting::Auto, "auto", "auto (by name, then by behaviour: a reply cut off or malformed moves to choosing)"), (StyleSetting::FreeText, "free-text", "free text (capable models)"), (StyleSetting::Candidates, "candidates", "choose from candidates (small models)")]
                        .into_iter()
                        .map(|(v, value, label)| view! { <option value=value selected=move || s.get().proposal_style == v>{label}</option> })
                        .collect_view()}
                </select></label>
                <p hidden=offline>"In use: " <span data-testid="style-in-use">{move || {
                    // Redrawn when the settings change and after every write (auto may switch).
                    c.revision.get();
                    s.track();
                    match c.provider() {
                        crate::providers::AnyProvider::Http(p) => p.style().state().label(),
                        crate::providers::AnyProvider::InPage(p) => p.style().state().label(),
                        crate::providers::AnyProvider::Offline(_) => "the offline rules need no style".to_string(),
                    }
                }}</span></p>
                <p hidden=not_endpoint>"JSON mode: " <span data-testid="json-mode">{move || c.mode_label.get()}</span></p>
                <div class="controls">
                    <button on:click=save>"Save provider"</button>
                    <button data-testid="test-connection" hidden=offline disabled=move || test.pending().get()
                        on:click=move |_| { test.dispatch(()); }>
                        {move || if test.pending().get() { "Testing…" } else { "Test connection" }}</button>
                    <span class="ok">{move || saved.get()}</span>
                </div>
                <p data-testid="connection-report" aria-live="polite">{move || test.value().get().map(|r| match r {
                    Ok(line) => view! { <span class="ok">{line}</span> }.into_any(),
                    Err(e) => view! { <span class="error" role="alert">{e}</span> }.into_any(),
                })}</p>
            </fieldset>
            <Show when=move || s.get().provider == "inpage"><super::inpage::InPageModel /></Show>
            // Its own boundary: the editor reloads the stored policy after every write, and
            // that must not send the whole page back to the app's loading state.
            <Transition fallback=|| ()><PolicyEditor /></Transition>
            <StorageStatusLine />
        </div>
    }
}

/// The retention policy, stored with the memory.
#[component]
fn PolicyEditor() -> impl IntoView {
    let c = ctx();
    let policy = RwSignal::new(RetentionPolicy::default());
    let loaded = c.load(|store| async move { store.meta().await.map(|m| m.policy) });
    Effect::new(move |_| {
        if let Some(Ok(p)) = loaded.get() {
            policy.set(p);
        }
    });
    let save = Action::new_local(move |p: &RetentionPolicy| {
        // A logged edit by the user, so every forgetting is judged by the policy of its day.
        // In the job worker, through the one write path: recorded for the next sync when the
        // memory syncs.
        let job = jobs::Policy { memory: c.memory.get_untracked(), policy: p.clone(), now: super::now() };
        async move {
            let r = jobs::write(job).await.map(|_| ());
            c.bump();
            r
        }
    });
    view! {
        <h2>"Retention policy"</h2>
        <fieldset class="policy">
            <legend>"Stored with the memory"</legend>
            <label>"Similarity threshold " <input type="number" step="0.01" min="0.01" max="1"
                prop:value=move || policy.get().similarity_threshold.to_string()
                on:input=move |ev| policy.update(|p| p.similarity_threshold = event_target_value(&ev).parse().unwrap_or(p.similarity_threshold)) /></label>
            <p class="hint" data-testid="forget-by-value">"By default the memory forgets by value: a passing state once its while is over (\"I'm exhausted today\", a day later), a commitment past its date, a fact a fuller newer one restates (Dedupe), a value a newer one replaces (Supersede). It keeps every other fact however old it is and however many there are: the chat prompt has its own budget and picks what is relevant, so a long memory costs a prompt nothing. The two rules below bring back forgetting by age and by count; a dry-run Sleep shows what they would retire."</p>
            <label title="Forget unprotected facts older than this many days, whatever they say. Empty: off (the default).">"Forget by age after (days) " <input type="number" min="1" data-testid="stale-days" placeholder="off"
                prop:value=move || policy.get().stale_after_days.map_or(String::new(), |d| d.to_string())
                on:input=move |ev| policy.update(|p| {
                    let v = event_target_value(&ev);
                    p.stale_after_days = if v.trim().is_empty() { None } else { v.parse().ok().or(p.stale_after_days) };
                }) /></label>
            <label title="Above this many active facts, forget the lowest-salience unprotected ones. Empty: no cap (the default).">"At most (active facts) " <input type="number" min="1" data-testid="max-active" placeholder="no cap"
                prop:value=move || policy.get().max_active_facts.map_or(String::new(), |n| n.to_string())
                on:input=move |ev| policy.update(|p| {
                    let v = event_target_value(&ev);
                    p.max_active_facts = if v.trim().is_empty() { None } else { v.parse().ok().or(p.max_active_facts) };
                }) /></label>
            <label title="Days after its while (today, this week, right now …) that a passing state such as \"I'm exhausted today\" is kept; then it is forgotten. Empty: passing states are kept for good.">"Passing states kept (days after) " <input type="number" min="0" data-testid="transient-grace" placeholder="kept for good"
                prop:value=move || policy.get().transient_grace_days.map_or(String::new(), |g| g.to_string())
                on:input=move |ev| policy.update(|p| {
                    let v = event_target_value(&ev);
                    p.transient_grace_days = if v.trim().is_empty() { None } else { v.parse().ok().or(p.transient_grace_days) };
                }) /></label>
            <label title="Days after its date that a commitment stays protected; then it is forgotten like an event. Empty: commitments are protected for good.">"Commitment grace (days) " <input type="number" min="0" data-testid="grace"
                prop:value=move || policy.get().commitment_grace_days.map_or(String::new(), |g| g.to_string())
                on:input=move |ev| policy.update(|p| {
                    let v = event_target_value(&ev);
                    p.commitment_grace_days = if v.trim().is_empty() { None } else { v.parse().ok().or(p.commitment_grace_days) };
                }) /></label>
            <label title="The pinned block about the user, in tokens: it goes into every chat prompt, so each token is one less for what was asked. Only durable facts (identity, preferences, one-value slots) are pinned there. Empty: no size, any category.">"Human block (tokens) " <input type="number" min="1" data-testid="human-tokens"
                prop:value=move || policy.get().human_tokens.map_or(String::new(), |g| g.to_string())
                on:input=move |ev| policy.update(|p| {
                    let v = event_target_value(&ev);
                    p.human_tokens = if v.trim().is_empty() { None } else { v.parse().ok().or(p.human_tokens) };
                }) /></label>
            <label title="The pinned block about the assistant, in tokens. Empty: no size.">"Persona block (tokens) " <input type="number" min="1" data-testid="persona-tokens"
                prop:value=move || policy.get().persona_tokens.map_or(String::new(), |g| g.to_string())
                on:input=move |ev| policy.update(|p| {
                    let v = event_target_value(&ev);
                    p.persona_tokens = if v.trim().is_empty() { None } else { v.parse().ok().or(p.persona_tokens) };
                }) /></label>
            <label title="The most words a merged fact may have: a merge joins statements about one subject, never a paragraph. Empty: no bound.">"Merge at most (words) " <input type="number" min="2" data-testid="merge-words"
                prop:value=move || policy.get().merge_max_words.map_or(String::new(), |g| g.to_string())
                on:input=move |ev| policy.update(|p| {
                    let v = event_target_value(&ev);
                    p.merge_max_words = if v.trim().is_empty() { None } else { v.parse().ok().or(p.merge_max_words) };
                }) /></label>
            <label>"Protected categories " <input type="text"
                prop:value=move || policy.get().protected_categories.join(", ")
                on:change=move |ev| policy.update(|p| p.protected_categories = event_target_value(&ev).split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()) /></label>
            <label class="wide">"One-value slots " <input type="text" data-testid="slots"
                title="Predicates that hold one value at a time (where one lives, a job, a name …): a newer fact replaces an older one only when both fill one of these for the same holder, or when the user states a change."
                prop:value=move || policy.get().single_valued_slots.join(", ")
                on:change=move |ev| policy.update(|p| p.single_valued_slots = event_target_value(&ev).split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()) /></label>
            <button on:click=move |_| { save.dispatch(policy.get_untracked()); }>"Save policy"</button>
            {move || save.value().get().map(|r| match r {
                Ok(()) => view! { <span class="ok">" Saved."</span> }.into_any(),
                Err(e) => view! { <span class="error" role="alert">{format!(" {e}")}</span> }.into_any(),
            })}
        </fieldset>
    }
}
