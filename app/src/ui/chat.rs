//! The chat: messages in, replies from memory — each with the facts it cited as chips
//! and the memory its prompt carried under "memory used" — each turn encoded into scratch.

use super::{ctx, now, Ctx};
use crate::idb::IdbStore;
use crate::jobs::{self, Given, Model, Progress};
use crate::stop::StopHandle;
use leptos::prelude::*;
use nocturne_core::flow::told::{Carried, Undo};
use nocturne_core::model::memory::{AnswerStyle, Item, MemoryUse, Turn};
use nocturne_core::store::{Store, StoreError};
use std::collections::HashMap;
use std::sync::Arc;

/// Turns drawn at first, and added by each "Show older turns": a memory that has lived
/// for years holds tens of thousands.
pub const TURNS_PER_PAGE: usize = 60;

/// The conversation and the message box.
#[component]
pub fn ChatPanel() -> impl IntoView {
    let c = ctx();
    let draft = RwSignal::new(String::new());
    let shown = RwSignal::new(TURNS_PER_PAGE);
    // The newest turns (and how many the conversation holds), and the facts their replies
    // drew on (to show block, date and source), with the revision they were read at: read
    // by key, never the whole conversation or memory. After this panel's own turn, which
    // only appended its two turns, only those are read (and drawn: the rows keep their key);
    // after any other write, all of them again.
    let last: StoredValue<Option<Arc<Drawn>>, LocalStorage> = StoredValue::new_local(None);
    let transcript = LocalResource::new(move || {
        let read_at = c.revision.get();
        let n = shown.get();
        let store = c.store.get_value();
        let before = last.get_value();
        let generation = before.as_ref().map_or(0, |d| d.generation + 1);
        let base = before.filter(|d| d.shown == n && d.read_at + 1 == read_at && c.only_added(read_at));
        async move {
            let read = read(&store, base.as_deref(), n, read_at, generation).await;
            // Whatever came of it: what waited for the chat to be drawn may read now.
            if c.drawn.get_untracked() < read_at {
                c.drawn.set(read_at);
            }
            let drawn = Arc::new(read.map_err(|e| e.to_string())?);
            super::keep_newest(last, read_at, drawn.clone(), |d| d.read_at);
            Ok::<_, String>(drawn)
        }
    });
    // What is drawn: the last transcript read, kept while the next is read.
    let current: Memo<Option<Arc<Drawn>>> = Memo::new_with_compare(
        move |before: Option<&Option<Arc<Drawn>>>| match transcript.get() {
            Some(Ok(drawn)) => Some(drawn),
            _ => before.cloned().flatten(),
        },
        |a, b| match (a.and_then(Option::as_ref), b.and_then(Option::as_ref)) {
            (Some(a), Some(b)) => !Arc::ptr_eq(a, b),
            (a, b) => a.is_some() != b.is_some(),
        },
    );
    let rows = move || {
        current.with(|d| {
            d.as_ref().map_or_else(Vec::new, |d| {
                d.turns.iter().map(|t| (d.generation, t.clone(), d.facts.clone())).collect::<Vec<_>>()
            })
        })
    };
    // The revision whose transcript holds the turn last sent: until it is read, that turn stays
    // drawn as it was sent, so it never leaves the list and comes back.
    let sent_by = RwSignal::new(0u64);
    // The reply as it streams in, shown until the turn is stored.
    let streaming = RwSignal::new(String::new());
    let asked = RwSignal::new(String::new());
    let stop = StoredValue::new_local(StopHandle::default());
    let list: NodeRef<leptos::html::Ol> = NodeRef::new();
    let end: NodeRef<leptos::html::Li> = NodeRef::new();
    let send = Action::new_local(move |text: &String| {
        let text = text.clone();
        let handle = StopHandle::default();
        stop.set_value(handle.clone());
        let provider = c.provider_for(&handle);
        // A stopped reply is still recorded: its encoder call is one the Stop does not reach.
        let recorder = c.provider_for(&StopHandle::default());
        let memory = c.memory.get_untracked();
        streaming.set(String::new());
        asked.set(text.clone());
        c.chatting.set(true);
        // At once: a resource would only be asked again once something reads it.
        c.background.set_value(None);
        async move {
            let mut on_progress = |p: Progress| {
                if let Progress::Delta { text } = p {
                    streaming.update(|s| s.push_str(&text))
                }
            };
            // In the job worker: the reply (its words streamed here as they come), then the turn
            // recorded through the one write path, after any writer holding the memory.
            let job = jobs::Turn { memory, text, now: now(), model: Model::of(&provider) };
            let given = Given { provider: Some(&provider), recorder: Some(&recorder), file: None };
            let done = jobs::run(job, given, &mut on_progress).await;
            c.chatting.set(false);
            // A turn whose commands changed nothing only added its two turns and its facts:
            // the views read only those (a forget or an erase may have rewritten older ones).
            if matches!(&done, Ok(out) if out.told.iter().all(|t| !t.changed)) {
                c.bump_appended();
            } else {
                c.bump();
            }
            sent_by.set(c.revision.get_untracked());
            c.refresh_mode();
            done
        }
    });
    // A turn sent and not yet in the transcript drawn: pending, or stored and being read.
    let awaiting = move || {
        let sent = sent_by.get();
        send.pending().get() || (sent > 0 && current.with(|d| !matches!(d, Some(d) if d.read_at >= sent)))
    };
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
                // While the transcript is read again after a write (seconds, in a memory of
                // years) the turns drawn stay on the page; a row is drawn once, and again only
                // when a full read replaces every row.
                {move || transcript.with(|r| match r {
                    Some(Err(e)) => Some(view! { <li class="error" role="alert">{e.clone()}</li> }.into_any()),
                    _ => None,
                })}
                {move || current.with(|d| d.as_ref().map(|d| {
                    let hidden = (d.count as usize).saturating_sub(d.turns.len());
                    if d.turns.is_empty() {
                        view! {
                            <li class="hint" data-testid="first-run" hidden=awaiting>"Tell Nocturne about yourself — where you live, what you like, what you promised. Each message becomes facts in scratch; press Sleep to consolidate them, then ask."</li>
                        }.into_any()
                    } else {
                        (hidden > 0).then(|| view! {
                            <li class="older"><button class="small" data-testid="older-turns"
                                on:click=move |_| shown.update(|n| *n += TURNS_PER_PAGE)>
                                {format!("Show older turns ({hidden} more)")}</button></li>
                        }).into_any()
                    }
                }))}
                <For each=rows key=|(generation, t, _)| (*generation, t.index) let:row>
                    {turn_view(c, row.1, &row.2)}
                </For>
                // Every turn of the conversation, drawn or not (what a test counts on), mounted
                // anew by each read: the newest is then brought into sight.
                {move || current.with(|d| d.as_ref().filter(|d| !d.turns.is_empty()).map(|d| {
                    view! { <li class="end" aria-hidden="true" data-turns=d.count node_ref=end></li> }
                }))}
                {move || awaiting().then(|| view! {
                    <li class="turn user pending"><span class="who">"user"</span><span class="said">{asked.get()}</span></li>
                    <li class="turn assistant pending"><span class="who">"assistant"</span><span class="said">{move || streaming.get()}{move || send.pending().get().then_some("▍")}</span></li>
                })}

            </ol>
            {move || send.value().get().map(|r| match r {
                Ok(out) => view! { {encode_summary(&out)} {told_view(c, out.told.clone())} }.into_any(),
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

fn turn_view(c: Ctx, t: Turn, facts: &HashMap<String, Item>) -> impl IntoView {
    let memory = t.memory.as_ref().filter(|m| !m.used.is_empty() || m.style != AnswerStyle::FreeText);
    view! {
        <li class=format!("turn {}", t.role.as_str())>
            <span class="who">{t.role.as_str()}</span>
            <span class="said">{t.text.clone()}</span>
            {memory.map(|m| memory_view(c, m, facts))}
        </li>
    }
}

/// What the chat draws: the newest turns, how many the conversation holds and the facts
/// their replies drew on, as read at a revision.
struct Drawn {
    read_at: u64,
    /// How many turns were asked for.
    shown: usize,
    /// Which full read this is, or extends: a row is drawn again only by a new one.
    generation: u64,
    count: u32,
    turns: Vec<Turn>,
    facts: Arc<HashMap<String, Item>>,
}

/// The transcript as drawn at `read_at`: `base` and the turns appended since, when it was
/// read just before and only added to (see [`Ctx::only_added`]); otherwise read whole.
async fn read(
    store: &IdbStore,
    base: Option<&Drawn>,
    n: usize,
    read_at: u64,
    generation: u64,
) -> Result<Drawn, StoreError> {
    if let Some(base) = base {
        if let Ok(Some(drawn)) = appended(store, base, read_at).await {
            return Ok(drawn);
        }
    }
    drawn(store, n, read_at, generation).await
}

/// The newest `n` turns (with how many the conversation holds) and the facts their replies
/// drew on, each read by its key.
async fn drawn(store: &IdbStore, n: usize, read_at: u64, generation: u64) -> Result<Drawn, StoreError> {
    let (count, turns) = store.last_turns(n).await?;
    let facts = Arc::new(store.items_by_id(&used(&turns)).await?.into_iter().map(|i| (i.item_id.clone(), i)).collect());
    Ok(Drawn { read_at, shown: n, generation, count, turns, facts })
}

/// `base` with the turns appended since it was read, and the facts their replies drew on;
/// `None` when the transcript is not `base` and more (read it whole).
async fn appended(store: &IdbStore, base: &Drawn, read_at: u64) -> Result<Option<Drawn>, StoreError> {
    let (count, new) = store.turns_since(base.count).await?;
    let follows = new.first().is_some_and(|t| t.index == base.count) && count == base.count + new.len() as u32;
    if !follows {
        return Ok(None);
    }
    let wanted: Vec<String> = used(&new).into_iter().filter(|id| !base.facts.contains_key(id)).collect();
    let mut facts: HashMap<String, Item> = base.facts.as_ref().clone();
    facts.extend(store.items_by_id(&wanted).await?.into_iter().map(|i| (i.item_id.clone(), i)));
    let mut turns = base.turns.clone();
    turns.extend(new);
    turns.drain(..turns.len().saturating_sub(base.shown));
    let kept = used(&turns);
    facts.retain(|id, _| kept.binary_search(id).is_ok());
    Ok(Some(Drawn { read_at, count, turns, facts: Arc::new(facts), ..*base }))
}

/// The facts the replies among `turns` drew on, sorted, each once.
fn used(turns: &[Turn]) -> Vec<String> {
    let mut used: Vec<String> =
        turns.iter().filter_map(|t| t.memory.as_ref()).flat_map(|m| m.used.iter().cloned()).collect();
    nocturne_core::text::order::sort(&mut used);
    used.dedup();
    used
}

/// Under a reply: the facts it cited, as chips, and every fact its prompt carried.
fn memory_view(c: Ctx, used: &MemoryUse, facts: &HashMap<String, Item>) -> impl IntoView {
    let chip = |id: &String| {
        let go = id.clone();
        let words = facts.get(id).map_or_else(|| "no longer stored".to_string(), |i| clip(&i.text, 48));
        view! {
            <button class="cite" data-testid="cite" title="Show where this fact came from"
                on:click=move |_| c.show_lineage(&go)>{format!("{id} · {words}")}</button>
        }
    };
    let how = match used.style {
        AnswerStyle::FreeText => "the model wrote the reply and named these",
        AnswerStyle::Choose => "the model chose the fact; the reply quotes it",
        AnswerStyle::Plain => "no model call was needed",
    };
    let rows: Vec<_> = used
        .used
        .iter()
        .map(|id| {
            let go = id.clone();
            let cited = used.cited.contains(id);
            let (block, said, source, text) = match facts.get(id) {
                Some(i) => (
                    i.block.as_str().to_string(),
                    nocturne_core::text::when::Day::from_unix(i.created_at).to_string(),
                    i.source_turn.map_or("no source turn".into(), |t| format!("turn {t}")),
                    i.text.clone(),
                ),
                None => ("—".into(), "—".into(), "—".into(), "no longer stored (erased)".into()),
            };
            view! {
                <li class:cited=cited data-testid="memory-used-fact">
                    <span class="meta">{format!("{block} · said {said} · {source}")}{cited.then_some(" · cited")}</span>
                    " " {text} " "
                    <button class="link" on:click=move |_| c.show_lineage(&go)>{format!("lineage of {id}")}</button>
                </li>
            }
        })
        .collect();
    view! {
        {(!used.cited.is_empty()).then(|| view! {
            <span class="cites" data-testid="citations">"cited: " {used.cited.iter().map(chip).collect_view()}</span>
        })}
        <details class="memory-used" data-testid="memory-used">
            <summary>{format!("memory used ({})", used.used.len())}</summary>
            <p class="hint">{format!("{how}; {} more stored fact(s) were not in the prompt.", used.left_out)}</p>
            <ul>{rows}</ul>
        </details>
    }
}

fn clip(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        text.to_string()
    } else {
        format!("{}…", text.chars().take(chars).collect::<String>())
    }
}

fn encode_summary(out: &jobs::TurnSummary) -> impl IntoView {
    let (accepted, refused) = (out.accepted, out.refused.clone());
    view! {
        <div class="encoded" data-testid="encoded">
            <p>{format!("Encoded {accepted} fact(s) into scratch; {} refused.", refused.len())}</p>
            <ul>{refused.into_iter().map(|r| view! { <li class="refused">{r}</li> }).collect_view()}</ul>
            {out.switched.iter().map(|s| view! { <p class="switched" data-testid="style-switched">{s.clone()}</p> }).collect_view()}
            {out.refused_citations.iter().map(|why| view! { <p class="refused" data-testid="citation-refused">{format!("Citation refused: {why}")}</p> }).collect_view()}
            {out.encode_error.clone().map(|e| view! { <p class="error" role="alert">{format!("The encoder failed: {e}. The turn is kept and will be encoded with the next one.")}</p> })}
        </div>
    }
}

/// Under the turn: what each memory command did as the user's edit (or asks back, having
/// changed nothing), each change with one click to undo it — through the one write path,
/// like every edit; a restore refused once the memory has moved past the edit.
fn told_view(c: Ctx, told: Vec<Carried>) -> impl IntoView {
    let undo = Action::new_local(move |undo: &Undo| {
        let (undo, memory, at) = (undo.clone(), c.memory.get_untracked(), now());
        let store = c.store.get_value();
        async move {
            let r = match undo {
                Undo::Edit { edit } => jobs::write(jobs::Edit { memory, edit, now: at }).await,
                Undo::Restore { seq, .. } => {
                    let head = store.meta().await.map_err(|e| e.to_string())?.head;
                    if let Some(why) = undo.stale(head) {
                        return Err(why);
                    }
                    jobs::write(jobs::Restore { memory, seq, now: at }).await
                }
            };
            c.bump();
            r.map(|_| "Undone.".to_string())
        }
    });
    let rows = told
        .into_iter()
        .map(|t| {
            let back = t.undo.clone();
            view! {
                <li class:changed=t.changed data-testid="told">
                    <span class="meta">{format!("“{}”", t.sentence)}</span> " " {t.said.clone()} " "
                    {back.map(|b| view! {
                        <button class="small" data-testid="told-undo" disabled=move || undo.pending().get()
                            on:click=move |_| { undo.dispatch(b.clone()); }>"Undo"</button>
                    })}
                </li>
            }
        })
        .collect_view();
    view! {
        <ul class="told" data-testid="memory-commands">{rows}</ul>
        {move || undo.value().get().map(|r| match r {
            Ok(line) => view! { <p class="hint" data-testid="told-undone">{line}</p> }.into_any(),
            Err(e) => view! { <p class="error" role="alert" data-testid="told-undone">{e}</p> }.into_any(),
        })}
    }
}
