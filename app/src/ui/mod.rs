//! The Leptos UI. Components stay thin: domain types come from nocturne-core, storage
//! and the model from the two browser adapters; signals live only here.

mod chat;
mod history;
mod inpage;
mod log;
mod memory;
mod review;
mod settings;
mod sleep;
mod sync;
mod transfer;
mod versions;
mod wake;

use crate::http::{HttpConfig, HttpProvider, JsonMode, ModeMemo, StyleMemo};
use crate::idb::IdbStore;
use crate::inpage::InPageProvider;
use crate::providers::AnyProvider;
use crate::stop::{StopHandle, Stoppable};
use leptos::prelude::*;
use nocturne_core::llm::offline::OfflineProvider;
use serde::{Deserialize, Serialize};

pub use settings::{inpage_first_token_s, Settings, INPAGE_DEFAULT_BUDGET};

/// The IndexedDB database the app keeps its memory in.
pub const DB_NAME: &str = "nocturne";

/// Unix seconds now (the browser's clock; the core never reads one itself).
pub fn now() -> i64 {
    (js_sys::Date::now() / 1000.0) as i64
}

/// Keeps `read`, made at revision `at`, as the panel's `last` read, unless a newer one was
/// kept first: a resource never ends a read that a newer one overtook, and that stale read
/// must not replace what the newer one drew.
fn keep_newest<T: 'static>(last: StoredValue<Option<T>, LocalStorage>, at: u64, read: T, at_of: fn(&T) -> u64) {
    if last.with_value(|l| l.as_ref().is_none_or(|l| at_of(l) <= at)) {
        last.set_value(Some(read));
    }
}

/// What every panel shares. `Copy`: handles only.
#[derive(Clone, Copy)]
pub struct Ctx {
    pub store: StoredValue<IdbStore, LocalStorage>,
    /// Bumped after every write so views reload.
    pub revision: RwSignal<u64>,
    pub settings: RwSignal<Settings>,
    /// API key typed this session (kept out of `settings` unless the user asks to remember it).
    pub api_key: RwSignal<String, LocalStorage>,
    pub modes: StoredValue<ModeMemo, LocalStorage>,
    /// Proposal style per endpoint and model, this session.
    pub styles: StoredValue<StyleMemo, LocalStorage>,
    /// JSON-mode label per base URL, mirrored from `modes` for display.
    pub mode_label: RwSignal<String>,
    /// The IndexedDB database name of the memory in use.
    pub memory: RwSignal<String>,
    /// The panel shown.
    pub tab: RwSignal<Tab>,
    /// The fact whose lineage the log panel shows (`""`: none).
    pub lineage: RwSignal<String>,
    /// A chat turn is under way: what can wait for it (the next Sleep's estimate, which
    /// reads the whole memory) does, so the turn has the memory and the machine to itself.
    pub chatting: RwSignal<bool>,
    /// The background work a chat turn gives up as it starts (the next Sleep's estimate, in
    /// its job worker), kept going by this handle.
    pub background: StoredValue<Option<crate::task::AbortHandle>, LocalStorage>,
    /// The revision of the last write that only added (a chat turn none of whose commands
    /// changed the memory: its two turns, and facts): a view read at the revision before it
    /// reads only what was added, or nothing when its part of the memory has not grown.
    pub appended: StoredValue<u64>,
    /// The revision whose transcript the chat has read (or failed to): what need not be
    /// read before a chat turn's reply is drawn (the Versions and Log panels) reads after it.
    pub drawn: RwSignal<u64>,
}

impl Ctx {
    pub fn bump(&self) {
        self.revision.update(|r| *r += 1);
    }

    /// [`Ctx::bump`] after a write that only added (see [`Ctx::appended`]).
    pub fn bump_appended(&self) {
        self.appended.set_value(self.revision.get_untracked() + 1);
        self.bump();
    }

    /// Whether the write that made revision `at` only added to the memory as read at `at - 1`.
    pub fn only_added(&self, at: u64) -> bool {
        self.appended.get_value() == at
    }

    /// The revision the panel of `tab` reads at: the newest while it is shown (a write made
    /// from it is drawn at once), the one the chat has drawn while hidden (its reads wait
    /// for a chat turn's reply to be drawn).
    pub fn revision_for(&self, tab: Tab) -> Memo<u64> {
        let c = *self;
        Memo::new(move |_| if c.tab.get() == tab { c.revision.get() } else { c.drawn.get() })
    }

    /// Shows the lineage of fact `id` in the log panel.
    pub fn show_lineage(&self, id: &str) {
        self.lineage.set(id.to_string());
        self.tab.set(Tab::Log);
    }

    /// The provider the settings describe.
    pub fn provider(&self) -> AnyProvider {
        let s = self.settings.get_untracked();
        if s.provider == "openai" {
            let key = self.api_key.get_untracked();
            AnyProvider::Http(HttpProvider::with_styles(
                HttpConfig {
                    base_url: s.base_url.clone(),
                    model: s.model.clone(),
                    api_key: (!key.is_empty()).then_some(key),
                    timeout_ms: s.timeout_s.max(1) * 1000,
                    prefer: JsonMode::Schema,
                    style: s.proposal_style,
                },
                self.modes.get_value(),
                self.styles.get_value(),
            ))
        } else if s.provider == "inpage" {
            AnyProvider::InPage(InPageProvider::new(s.inpage_config(), self.styles.get_value()))
        } else {
            AnyProvider::Offline(OfflineProvider)
        }
    }

    /// The provider the settings describe, stopped by `stop` (its requests aborted).
    pub fn provider_for(&self, stop: &StopHandle) -> Stoppable<AnyProvider> {
        let inner = match self.provider() {
            AnyProvider::Http(p) => AnyProvider::Http(p.with_stop(stop.clone())),
            AnyProvider::InPage(p) => AnyProvider::InPage(p.with_stop(stop.clone())),
            offline => offline,
        };
        let memory_tokens = self.settings.get_untracked().prompt_budget();
        Stoppable { inner, stop: stop.clone(), memory_tokens }
    }

    /// Loads something from the memory in use, and again after every write (the store's
    /// error as words, a `String`: a resource's value is cloned each time it is read, and
    /// an error with a source is not `Clone`).
    pub fn load<T, F, Fut>(&self, read: F) -> LocalResource<Result<T, String>>
    where
        T: 'static,
        F: Fn(IdbStore) -> Fut + 'static,
        Fut: std::future::Future<Output = Result<T, nocturne_core::store::StoreError>> + 'static,
    {
        let c = *self;
        LocalResource::new(move || {
            c.revision.get();
            let pending = read(c.store.get_value());
            async move { pending.await.map_err(|e| e.to_string()) }
        })
    }

    /// Refreshes the JSON-mode label after a model call.
    pub fn refresh_mode(&self) {
        let s = self.settings.get_untracked();
        let label = self
            .modes
            .with_value(|m| m.borrow().get(&s.base_url).map(|m| m.label().to_string()))
            .unwrap_or_else(|| "not yet probed".into());
        self.mode_label.set(label);
    }
}

pub fn ctx() -> Ctx {
    expect_context::<Ctx>()
}

/// Which panel is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tab {
    Chat,
    Versions,
    Log,
    Wake,
    Settings,
}

impl Tab {
    const ALL: [Tab; 5] = [Tab::Chat, Tab::Versions, Tab::Log, Tab::Wake, Tab::Settings];
    fn label(self) -> &'static str {
        match self {
            Tab::Chat => "Chat, memory & sleep",
            Tab::Versions => "Versions & diff",
            Tab::Log => "Mutations & lineage",
            Tab::Wake => "Wake & verify",
            Tab::Settings => "Settings",
        }
    }
}

/// The app: opens IndexedDB, then shows the panels.
#[component]
pub fn App() -> impl IntoView {
    let opened =
        LocalResource::new(|| async { IdbStore::open(&transfer::active_memory()).await.map_err(|e| e.to_string()) });
    view! {
        <main class="app">
            // A Transition, not a Suspense: once the memory is open, a panel reloading after a
            // write keeps the page as it is (a Suspense would take every panel off the page
            // until all of them had reloaded, losing the chat's scroll and any input).
            <Transition fallback=|| view! { <p class="status">"Opening memory…"</p> }>
                {move || opened.get().map(|r| match r {
                    Ok(store) => view! { <Shell store=store /> }.into_any(),
                    Err(e) => view! { <p class="error" role="alert">{format!("Nocturne cannot open its memory: {e}")}</p> }.into_any(),
                })}
            </Transition>
        </main>
    }
}

#[component]
fn Shell(store: IdbStore) -> impl IntoView {
    let settings = Settings::load();
    let ctx = Ctx {
        store: StoredValue::new_local(store),
        revision: RwSignal::new(0),
        api_key: RwSignal::new_local(settings.remembered_key.clone().unwrap_or_default()),
        settings: RwSignal::new(settings),
        modes: StoredValue::new_local(ModeMemo::default()),
        styles: StoredValue::new_local(StyleMemo::default()),
        mode_label: RwSignal::new("not yet probed".into()),
        memory: RwSignal::new(String::new()),
        tab: RwSignal::new(Tab::Chat),
        lineage: RwSignal::new(String::new()),
        chatting: RwSignal::new(false),
        background: StoredValue::new_local(None),
        appended: StoredValue::new(0),
        drawn: RwSignal::new(0),
    };
    ctx.memory.set(ctx.store.with_value(IdbStore::name));
    provide_context(ctx);
    let tab = ctx.tab;
    let provider_label = move || {
        ctx.settings.get();
        use nocturne_core::llm::provider::Provider;
        ctx.provider().label()
    };
    view! {
        <header class="top">
            <h1>"Nocturne"</h1>
            <p class="tagline">"A chat agent whose memory sleeps. The model proposes; the code applies."</p>
            <p class="provider" data-testid="provider">"Provider: " {provider_label}</p>
        </header>
        <nav class="tabs" role="tablist">
            {Tab::ALL.into_iter().map(|t| view! {
                <button role="tab" aria-selected=move || (tab.get() == t).to_string()
                    class:active=move || tab.get() == t
                    on:click=move |_| tab.set(t)>{t.label()}</button>
            }).collect_view()}
        </nav>
        // Every panel stays mounted (hidden when not chosen) so a running Sleep keeps its progress.
        <section class="panel" role="tabpanel" hidden=move || tab.get() != Tab::Chat>
            <div class="split">
                <div class="stack"><chat::ChatPanel /><sleep::SleepPanel /><history::HistoryImport /></div>
                <memory::MemoryPanel />
            </div>
        </section>
        <section class="panel" role="tabpanel" hidden=move || tab.get() != Tab::Versions><versions::VersionsPanel /></section>
        <section class="panel" role="tabpanel" hidden=move || tab.get() != Tab::Log><log::LogPanel /></section>
        <section class="panel" role="tabpanel" hidden=move || tab.get() != Tab::Wake>
            <div class="stack"><wake::QuizPanel /><wake::VerifyPanel /><wake::ComparePanel /></div>
        </section>
        <section class="panel" role="tabpanel" hidden=move || tab.get() != Tab::Settings>
            <div class="stack"><settings::SettingsPanel /><div class="settings"><sync::SyncPanel /></div><div class="settings"><transfer::TransferPanel /></div></div>
        </section>
    }
}
