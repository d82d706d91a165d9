//! The chat: messages in, replies from memory, each turn encoded into scratch.

use super::{ctx, now};
use crate::lock;
use crate::stop::StopHandle;
use leptos::prelude::*;
use nocturne_core::flow::chat::{self, TurnOutcome};
use nocturne_core::llm::provider::ProviderError;
use nocturne_core::model::memory::Turn;
use nocturne_core::store::Store;

/// How a reply the user stopped ends in the transcript.
pub const CUT: &str = "[stopped by the user]";

/// Turns drawn at first, and added by each "Show older turns": a memory that has lived
/// for years holds tens of thousands.
pub const TURNS_PER_PAGE: usize = 60;

/// The conversation and the message box.
#[component]
pub fn ChatPanel() -> impl IntoView {
    let c = ctx();
    let draft = RwSignal::new(String::new());
    let transcript = c.load(|store| async move { store.transcript().await });
    // The reply as it streams in, shown until the turn is stored.
    let streaming = RwSignal::new(String::new());
    let asked = RwSignal::new(String::new());
    let stop = StoredValue::new_local(StopHandle::default());
    let shown = RwSignal::new(TURNS_PER_PAGE);
    let list: NodeRef<leptos::html::Ol> = NodeRef::new();
    let end: NodeRef<leptos::html::Li> = NodeRef::new();
    let send = Action::new_local(move |text: &String| {
        let text = text.clone();
        let store = c.store.get_value();
        let handle = StopHandle::default();
        stop.set_value(handle.clone());
        let provider = c.provider_for(&handle);
        streaming.set(String::new());
        asked.set(text.clone());
        async move {
            let mut on_delta = |d: &str| streaming.update(|s| s.push_str(d));
            // The reply writes nothing; storing the turn waits for the one writer, so a
            // turn sent during a Sleep is recorded after it, never over it.
            let reply = match chat::reply_streaming(&store, &provider, &text, now(), &mut on_delta).await {
                Ok(reply) => reply,
                // Stopped: keep what was streamed, marked as cut. Only the user's turn is
                // ever encoded, so nothing of the cut reply becomes a fact.
                Err(chat::ChatError::Provider(ProviderError::Stopped)) => {
                    format!("{} {CUT}", streaming.get_untracked().trim_end())
                }
                Err(e) => return Err(e.to_string()),
            };
            // The turn is recorded with a provider the Stop does not reach (same type, so
            // the chat code is compiled once).
            let provider = c.provider_for(&StopHandle::default());
            let record = chat::record(&store, &provider, text.trim(), &reply, now());
            let result: Result<TurnOutcome, String> = match lock::write(record).await {
                Ok(r) => r.map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            };
            result
        }
    });
    Effect::new(move |_| {
        if send.value().get().is_some() {
            c.bump();
            c.refresh_mode();
        }
    });
    // Push the view outward: whenever the stored turns are drawn anew (`end` mounts again)
    // or a turn is pending, the newest is brought into sight — except when the redraw was
    // "Show older", which must leave the reader where they are.
    Effect::new(move |last_shown: Option<usize>| {
        let (drawn, _pending, now_shown) = (end.get(), send.pending().get(), shown.get());
        if let (Some(_), Some(ol)) = (drawn, list.get_untracked()) {
            if last_shown.is_none_or(|s| s == now_shown) {
                request_animation_frame(move || ol.set_scroll_top(ol.scroll_height()));
            }
        }
        now_shown
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let text = draft.get_untracked();
        if text.trim().is_empty() || send.pending().get_untracked() {
            return;
        }
        send.dispatch(text);
        draft.set(String::new());
    };
    view! {
        <div class="chat">
            <h2>"Chat"</h2>
            <ol class="transcript" aria-live="polite" node_ref=list>
                <Suspense fallback=|| ()>
                    {move || transcript.get().map(|r| match r {
                        Err(e) => view! { <li class="error" role="alert">{e}</li> }.into_any(),
                        Ok(turns) if turns.is_empty() => view! {
                            <li class="hint" data-testid="first-run">"Tell Nocturne about yourself — where you live, what you like, what you promised. Each message becomes facts in scratch; press Sleep to consolidate them, then ask."</li>
                        }.into_any(),
                        Ok(turns) => {
                            let hidden = turns.len().saturating_sub(shown.get());
                            view! {
                                {(hidden > 0).then(|| view! {
                                    <li class="older"><button class="small" data-testid="older-turns"
                                        on:click=move |_| shown.update(|n| *n += TURNS_PER_PAGE)>
                                        {format!("Show older turns ({hidden} more)")}</button></li>
                                })}
                                {turns.into_iter().skip(hidden).map(turn_view).collect_view()}
                                <li class="end" aria-hidden="true" node_ref=end></li>
                            }.into_any()
                        }
                    })}
                </Suspense>
                {move || send.pending().get().then(|| view! {
                    <li class="turn user pending"><span class="who">"user"</span><span class="said">{asked.get()}</span></li>
                    <li class="turn assistant pending"><span class="who">"assistant"</span><span class="said">{move || streaming.get()}"▍"</span></li>
                })}

            </ol>
            {move || send.value().get().map(|r| match r {
                Ok(out) => encode_summary(&out).into_any(),
                Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
            })}
            <form class="composer" on:submit=submit>
                <label for="message" class="sr">"Message"</label>
                <input id="message" type="text" autocomplete="off" placeholder="Tell Nocturne something…"
                    prop:value=move || draft.get() on:input=move |ev| draft.set(event_target_value(&ev)) />
                <button type="submit" disabled=move || send.pending().get()>
                    {move || if send.pending().get() { "Thinking…" } else { "Send" }}
                </button>
                <button type="button" data-testid="stop-chat" hidden=move || !send.pending().get()
                    on:click=move |_| stop.get_value().stop()>"Stop"</button>
            </form>
        </div>
    }
}

fn turn_view(t: Turn) -> impl IntoView {
    view! {
        <li class=format!("turn {}", t.role.as_str())>
            <span class="who">{t.role.as_str()}</span>
            <span class="said">{t.text}</span>
        </li>
    }
}

fn encode_summary(out: &TurnOutcome) -> impl IntoView {
    let accepted = out.encoded.iter().filter(|m| m.accepted).count();
    let refused: Vec<String> = out.encoded.iter().filter_map(|m| m.rejection_reason.clone()).collect();
    view! {
        <div class="encoded" data-testid="encoded">
            <p>{format!("Encoded {accepted} fact(s) into scratch; {} refused.", refused.len())}</p>
            <ul>{refused.into_iter().map(|r| view! { <li class="refused">{r}</li> }).collect_view()}</ul>
            {out.encode_error.clone().map(|e| view! { <p class="error" role="alert">{format!("The encoder failed: {e}. The turn is kept and will be encoded with the next one.")}</p> })}
        </div>
    }
}
