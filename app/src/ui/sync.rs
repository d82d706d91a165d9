//! Settings → Sync: the server, the space, this device's name, the passphrase (for this
//! session only), the status (last sync, records waiting, the space), Sync now and Leave.

use super::{ctx, now};
use crate::sync::{self, Ask, Synced};
use leptos::prelude::*;

const SERVER_KEY: &str = "nocturne.sync.server";

fn remembered_server() -> String {
    web_sys::window()
        .and_then(|w| w.local_storage().ok()?)
        .and_then(|s| s.get_item(SERVER_KEY).ok()?)
        .unwrap_or_default()
}

fn remember_server(url: &str) {
    if let Some(s) = web_sys::window().and_then(|w| w.local_storage().ok()?) {
        let _ = s.set_item(SERVER_KEY, url);
    }
}

#[component]
pub fn SyncPanel() -> impl IntoView {
    let c = ctx();
    let server = RwSignal::new(remembered_server());
    let space = RwSignal::new(String::new());
    let name = RwSignal::new(String::new());
    let passphrase = RwSignal::new(String::new());
    let state = LocalResource::new(move || {
        c.revision.get();
        let memory = c.memory.get();
        async move {
            // Shown as words: a resource's value is cloned each time it is read.
            let loaded = sync::load(&memory).await.map_err(|e| e.to_string());
            loaded.map(|s| {
                s.map(|(joined, summary)| {
                    let (records, lease) = match summary {
                        None => ("not counted yet (sync once)".to_string(), "not known yet (sync once)".to_string()),
                        Some(summary) => {
                            let lease = match summary.lease.filter(|l| l.until > now()) {
                                None => "free".to_string(),
                                Some(l) if l.device == joined.device.id => "held by this device".to_string(),
                                Some(l) => format!("held by {}", nocturne_sync::device::lease_text(&joined.device, &l)),
                            };
                            (summary.records.to_string(), lease)
                        }
                    };
                    (joined, records, lease)
                })
            })
        }
    });
    let run = Action::new_local(move |_: &()| {
        let store = c.store.get_value();
        let ask = Ask {
            server: server.get_untracked(),
            space: space.get_untracked(),
            device_name: name.get_untracked(),
            passphrase: passphrase.get_untracked(),
        };
        async move {
            let r = sync::sync_now(&store, &ask, now()).await.map_err(|e| e.to_string());
            if r.is_ok() {
                remember_server(&ask.server);
            }
            c.bump();
            r
        }
    });
    let leave = Action::new_local(move |_: &()| {
        let memory = c.memory.get_untracked();
        async move {
            let r = sync::leave(&memory).await.map_err(|e| e.to_string());
            c.bump();
            r
        }
    });
    let status = move || {
        state.get().map(|r| match r {
            Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
            Ok(None) => view! { <p data-testid="sync-status">"Not syncing. Give a server and a passphrase; leave the space empty to make a new one, or paste another device's space to join it."</p> }.into_any(),
            Ok(Some((j, records, lease))) => {
                let last = j.last_sync.as_ref().map_or("never".to_string(), |(at, what)| {
                    format!("{} ({what})", nocturne_core::text::when::Day::from_unix(*at))
                });
                view! {
                    <p data-testid="sync-status">
                        {format!("Space {} on {} · this device: {} ({}) · last sync: {last} · records waiting: {} · records in this copy of the space: {records}",
                            j.space, j.server, j.device.name, j.device.id, j.device.pending.len())}
                    </p>
                    <p data-testid="sync-lease">{format!("Sleep lease (as of the last sync): {lease}")}</p>
                    <p class="hint">"Only one device should sleep at a time: a Sleep planned while another device's record was not yet here is refused as stale on every device and runs again at the next Sleep."</p>
                }.into_any()
            }
        })
    };
    view! {
        <fieldset class="sync">
            <legend>"Sync (end-to-end encrypted)"</legend>
            <p class="hint">"Records are sealed on this device with a key from your passphrase (Argon2id, AES-256-GCM); the server sees only ciphertext. The passphrase is never stored."</p>
            <label class="wide">"Server " <input type="url" data-testid="sync-server" placeholder="ws://127.0.0.1:8080"
                prop:value=move || server.get() on:input=move |ev| server.set(event_target_value(&ev)) /></label>
            <label>"Space " <input type="text" data-testid="sync-space" placeholder="new"
                prop:value=move || space.get() on:input=move |ev| space.set(event_target_value(&ev)) /></label>
            <label>"This device " <input type="text" data-testid="sync-device" placeholder="browser"
                prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev)) /></label>
            <label>"Passphrase " <input type="password" data-testid="sync-passphrase" autocomplete="off"
                prop:value=move || passphrase.get() on:input=move |ev| passphrase.set(event_target_value(&ev)) /></label>
            <div class="row">
                <button data-testid="sync-now" disabled=move || run.pending().get()
                    on:click=move |_| { run.dispatch(()); }>{move || if run.pending().get() { "Syncing…" } else { "Sync now" }}</button>
                <button data-testid="sync-leave" class="small" on:click=move |_| {
                    let ok = web_sys::window().and_then(|w| w.confirm_with_message("Leave the space? This device keeps its memory as it is and stops syncing.").ok()).unwrap_or(false);
                    if ok { leave.dispatch(()); }
                }>"Leave"</button>
            </div>
            <Suspense fallback=|| ()>{status}</Suspense>
            {move || run.value().get().map(|r| match r {
                Ok(s) => result_view(&s).into_any(),
                Err(e) => view! { <p class="error" role="alert" data-testid="sync-error">{e}</p> }.into_any(),
            })}
            {move || leave.value().get().map(|r| match r {
                Ok(()) => view! { <p class="ok">"Left the space; the memory stays on this device."</p> }.into_any(),
                Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
            })}
        </fieldset>
    }
}

fn result_view(s: &Synced) -> impl IntoView {
    let line = format!(
        "Synced: sealed {} record(s), applied {} from other devices{}; {} record(s) in the space; head {}",
        s.sealed,
        s.merged.applied,
        if s.merged.rebuilt { ", rebuilt in the one order" } else { "" },
        s.records,
        &s.head
    );
    let mut notes = s.merged.notes.clone();
    if s.outside_writes {
        notes.insert(
            0,
            "Writes made outside sync (an import, a restore) went out as a checkpoint of this memory.".into(),
        );
    }
    let refused = s.merged.unauthentic.clone();
    view! {
        <p class="ok" data-testid="sync-result" data-space=s.joined.space.clone() data-head=s.head.clone()>{line}</p>
        <ul class="notes">
            {notes.into_iter().map(|n| view! { <li data-testid="sync-note">{n}</li> }).collect_view()}
            {refused.into_iter().map(|id| view! { <li class="error" data-testid="sync-refused">{format!("refused record {id}: it does not authenticate under the space's key (tampered or corrupt); nothing of it was applied")}</li> }).collect_view()}
        </ul>
    }
}
