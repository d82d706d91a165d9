//! The memory beside the chat: the four blocks, each fact with its category, when it was
//! said and the date it is about (resolved by the core), and its source turn.

use super::{ctx, now};
use crate::jobs;
use leptos::prelude::*;
use nocturne_core::flow::edit::UserEdit;
use nocturne_core::model::memory::{Block, Item};
use nocturne_core::store::Store;
use nocturne_core::text::order;

/// What the user asked of one fact.
#[derive(Clone, Debug)]
enum Ask {
    Edit(UserEdit),
    /// Erase the fact's words from every row, for good.
    Erase(String),
}

/// The user's edits, one at a time under the write lock; the result line for the panel (its
/// error as words: an action's value must be `Clone`).
type EditAction = Action<Ask, Result<String, String>>;

/// The panel's edit state.
#[derive(Clone, Copy)]
struct Edits {
    action: EditAction,
}

/// The four blocks of active memory.
#[component]
pub fn MemoryPanel() -> impl IntoView {
    let c = ctx();
    let items = c.load(|store| async move { store.items().await });
    let query = RwSignal::new(String::new());
    let edit: EditAction = Action::new_local(move |ask: &Ask| {
        let ask = ask.clone();
        let (memory, now) = (c.memory.get_untracked(), now());
        // In the job worker, through the one write path: a memory that syncs records the edit
        // (naming the fact by its words); an erase also compacts the space at the next sync.
        async move {
            let r = match ask {
                Ask::Edit(edit) => jobs::write(jobs::Edit { memory, edit, now }).await,
                Ask::Erase(item_id) => jobs::write(jobs::Erase { memory, item_id, now }).await,
            };
            c.bump();
            r
        }
    });
    let edits = Edits { action: edit };
    // The log is read only while searching: each hit is shown with its lineage.
    let log = LocalResource::new(move || {
        c.revision.get();
        let searching = !query.get().trim().is_empty();
        let store = c.store.get_value();
        async move {
            if searching {
                store.mutations().await.map_err(|e| e.to_string())
            } else {
                Ok(Vec::new())
            }
        }
    });
    // Whether the memory has loaded; the facts to show, kept while a write reloads them,
    // so every row stays on the page (and under the pointer) unless it changed.
    let loaded = Memo::new(move |_| items.get().map(|r| r.map(|_| ())));
    let searching = move || !query.get().trim().is_empty();
    let visible: Memo<Vec<Item>> = Memo::new(move |prev: Option<&Vec<Item>>| match items.get() {
        Some(Ok(items)) => {
            let q = query.get();
            if q.trim().is_empty() {
                items
            } else {
                // Given a query, only the facts whose words hold it (the core's search).
                nocturne_core::store::search::search(&items, &[], &q).into_iter().map(|h| h.item.clone()).collect()
            }
        }
        _ => prev.cloned().unwrap_or_default(),
    });
    view! {
        <aside class="memory" aria-label="Memory">
            <h2>"Memory"</h2>
            <label class="search"><span class="sr">"Search memory"</span>
                <input type="search" data-testid="memory-search" placeholder="Search memory by words…"
                    prop:value=move || query.get() on:input=move |ev| query.set(event_target_value(&ev)) /></label>
            <p data-testid="edit-status" aria-live="polite">{move || edit.value().get().map(|r| match r {
                Ok(line) => view! { <span class="ok">{line}</span> }.into_any(),
                Err(e) => view! { <span class="error" role="alert">{e}</span> }.into_any(),
            })}</p>
            {move || match loaded.get() {
                None => view! { <p class="status">"Loading…"</p> }.into_any(),
                Some(Err(e)) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
                Some(Ok(())) => ().into_any(),
            }}
            {move || searching().then(|| view! {
                <p class="hint" data-testid="search-count">{move || format!("{} active fact(s) match", visible.with(|v| v.iter().filter(|i| i.active).count()))}</p>
            })}
            {move || {
                // Each hit with its block, category, state, dates and lineage (the log is
                // read only while searching).
                let q = query.get();
                let lines: Vec<String> = match (searching(), log.get()) {
                    (true, Some(Ok(log))) => visible.with(|items| {
                        nocturne_core::store::search::search(items, &log, &q)
                            .iter()
                            .take(20)
                            .map(|h| nocturne_core::store::search::describe(h, now()))
                            .collect()
                    }),
                    _ => Vec::new(),
                };
                (!lines.is_empty()).then(|| view! {
                    <details class="lineage" data-testid="search-lineage"><summary>"Where each came from"</summary>
                        <ul>{lines.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}</ul>
                    </details>
                })
            }}
            {Block::ALL.into_iter().map(|b| view! { <BlockView block=b visible=visible edits=edits /> }).collect_view()}
        </aside>
    }
}

/// Facts drawn per block at first, and added by each "Show more": a block of thousands
/// stays quick to draw and to scroll.
pub const FACTS_PER_PAGE: usize = 200;

/// One block's active facts, newest last, paged. Rows are keyed by what they show, so a
/// reload after a write redraws only the rows that changed.
#[component]
fn BlockView(block: Block, visible: Memo<Vec<Item>>, edits: Edits) -> impl IntoView {
    let shown = RwSignal::new(FACTS_PER_PAGE);
    let facts = Memo::new(move |_| {
        let mut facts: Vec<Item> =
            visible.with(|v| v.iter().filter(|i| i.active && i.block == block).cloned().collect());
        order::sort_by_key(&mut facts, Item::ordinal);
        facts
    });
    let count = move || facts.with(Vec::len);
    let page = move || facts.with(|f| f.iter().take(shown.get()).cloned().collect::<Vec<_>>());
    view! {
        <section class="block" data-block=block.as_str()>
            <h3>{block.as_str()} <span class="count">{count}</span></h3>
            {move || (count() == 0).then(|| view! { <p class="empty">"nothing yet"</p> })}
            <ul>
                <For each=page key=row_key let:item>{fact_row(item, edits)}</For>
            </ul>
            {move || {
                let hidden = count().saturating_sub(shown.get());
                (hidden > 0).then(|| view! {
                    <button class="small more" data-testid=format!("more-{}", block.as_str())
                        on:click=move |_| shown.update(|n| *n += FACTS_PER_PAGE)>
                        {format!("Show {} more of {hidden}", hidden.min(FACTS_PER_PAGE))}</button>
                })
            }}
        </section>
    }
}

/// What a row shows: a row is redrawn only when one of these changes.
fn row_key(i: &Item) -> (String, String, String, bool, Option<u32>, i64, Option<String>, usize) {
    (
        i.item_id.clone(),
        i.text.clone(),
        i.category.to_string(),
        i.pinned,
        i.source_turn,
        i.created_at,
        i.speaker.clone(),
        i.sources.len(),
    )
}

/// One fact with its category, dates, source turn and the user's edits.
fn fact_row(i: Item, edits: Edits) -> impl IntoView {
    let edit = edits.action;
    let t = now();
    let when = i.dated(t);
    let turn = i.source_turn.map_or("—".to_string(), |n| format!("turn {n}"));
    // Who said it, when not the user speaking when it is dated (an MCP client, a relay).
    let from = (!i.sources.is_empty()).then(|| {
        let said: Vec<String> = i.sources.iter().map(|s| s.to_string()).collect();
        view! { <span class="from" title="who said it and when it arrived">{format!("from {}", said.join("; "))}</span> }
    });
    let (id, text, pinned) = (i.item_id.clone(), i.text.clone(), i.pinned);
    let (id_e, id_p, id_f) = (id.clone(), id.clone(), id.clone());
    let id_c = id.clone();
    view! {
        <li class="fact" class:pinned=pinned data-id=id.clone()>
            {i.speaker.clone().map(|name| view! { <span class="speaker" title="who said it">{name}</span> })}
            <span class="text">{i.text.clone()}</span>
            <span class="meta">
                <span class="id">{id.clone()}</span>
                <span class="cat">{i.category.to_string()}</span>
                <span class="when">{when}</span>
                <span>{turn}</span>
                {from}
                {pinned.then(|| view! { <span class="pin" title="pinned: no Sleep forgets or replaces it">"pinned"</span> })}
            </span>
            <span class="edits">
                <button class="small" data-testid="edit-fact" title="Correct the text; the old text stays in history"
                    on:click=move |_| {
                        let asked = window().prompt_with_message_and_default("Correct this fact:", &text).ok().flatten();
                        if let Some(new) = asked.filter(|t| !t.trim().is_empty()) {
                            edit.dispatch(Ask::Edit(UserEdit::Correct { item_id: id_e.clone(), text: new }));
                        }
                    }>"edit"</button>
                <button class="small" data-testid="pin-fact"
                    on:click=move |_| {
                        let item_id = id_p.clone();
                        edit.dispatch(Ask::Edit(if pinned { UserEdit::Unpin { item_id } } else { UserEdit::Pin { item_id } }));
                    }>{if pinned { "unpin" } else { "pin" }}</button>
                <button class="small" data-testid="forget-fact" title="Forget now (a restore brings it back)"
                    on:click=move |_| {
                        if let Ok(Some(reason)) = window().prompt_with_message_and_default("Forget this fact now? Say why (optional):", "") {
                            edit.dispatch(Ask::Edit(UserEdit::Forget { item_id: id_f.clone(), reason }));
                        }
                    }>"forget"</button>
                <button class="small danger" data-testid="erase-fact" title="Erase these words everywhere, for good"
                    on:click=move |_| {
                        let ask = "Erase this fact for good?\n\nIts words are removed from every version, the log and the conversation, wherever they were said or copied, also in other facts that hold them. This cannot be undone, not even by a restore; only a record that something was erased remains.";
                        if window().confirm_with_message(ask).unwrap_or(false) {
                            edit.dispatch(Ask::Erase(id_c.clone()));
                        }
                    }>"erase"</button>
            </span>
        </li>
    }
}
