//! The memory beside the chat: the four blocks, each fact with its category, when it was
//! said and the date it is about (resolved by the core), and its source turn — each block
//! a page at a time from the store's index, a search through its words index.

use super::{ctx, now};
use crate::jobs;
use leptos::prelude::*;
use nocturne_core::flow::edit::UserEdit;
use nocturne_core::model::memory::{Block, Item};
use nocturne_core::store::search;
use nocturne_core::text::order;

/// What the user asked of one fact.
#[derive(Clone, Debug)]
enum Ask {
    Edit(UserEdit),
    /// Erase the fact's words from every row, for good.
    Erase(String),
}

/// The user's edits, one at a time under the write lock; the result line for the panel (its
/// error as words, a `String`: an action's value must be `Clone`).
type EditAction = Action<Ask, Result<String, String>>;

/// The panel's edit state.
#[derive(Clone, Copy)]
struct Edits {
    action: EditAction,
}

/// What a search found: the facts whose words hold the query (through the store's words
/// index), newest first, and a line per hit with its lineage (through the log's index).
#[derive(Clone, Debug, Default, PartialEq)]
struct Found {
    facts: Vec<Item>,
    lines: Vec<String>,
}

/// The four blocks of active memory, each drawn a page at a time from the store's index,
/// with its count from the kept statistics: the page never reads the whole memory.
#[component]
pub fn MemoryPanel() -> impl IntoView {
    let c = ctx();
    let counts = c.load(|store| async move { store.block_counts().await });
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
    // A search reads the facts holding its words and the log about them, nothing more.
    let found = LocalResource::new(move || {
        c.revision.get();
        let q = query.get();
        let store = c.store.get_value();
        async move {
            if q.trim().is_empty() {
                return Ok(None);
            }
            let (items, log) = search::gather(&store, &q).await.map_err(|e| e.to_string())?;
            let hits = search::search(&items, &log, &q);
            let lines = hits.iter().take(20).map(|h| search::describe(h, now())).collect();
            let facts = hits.into_iter().map(|h| h.item.clone()).collect();
            Ok::<_, String>(Some(Found { facts, lines }))
        }
    });
    // The search's result, kept while a write reloads it, so the rows stay on the page.
    let shown_found: Memo<Option<Found>> = Memo::new(move |prev: Option<&Option<Found>>| match found.get() {
        Some(Ok(f)) => f,
        _ => prev.cloned().flatten(),
    });
    let searching = move || !query.get().trim().is_empty();
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
            {move || match counts.get() {
                None => view! { <p class="status">"Loading…"</p> }.into_any(),
                Some(Err(e)) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
                Some(Ok(_)) => ().into_any(),
            }}
            {move || match found.get() {
                Some(Err(e)) => Some(view! { <p class="error" role="alert">{e}</p> }),
                _ => None,
            }}
            {move || (searching() && shown_found.with(Option::is_some)).then(|| view! {
                <p class="hint" data-testid="search-count">{move || format!("{} active fact(s) match", shown_found.with(|f| f.as_ref().map_or(0, |f| f.facts.iter().filter(|i| i.active).count())))}</p>
            })}
            {move || {
                // Each hit with its block, category, state, dates and lineage.
                let lines = shown_found.with(|f| f.as_ref().map(|f| f.lines.clone()).unwrap_or_default());
                (searching() && !lines.is_empty()).then(|| view! {
                    <details class="lineage" data-testid="search-lineage"><summary>"Where each came from"</summary>
                        <ul>{lines.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}</ul>
                    </details>
                })
            }}
            {Block::ALL.into_iter().map(|b| {
                let count = Signal::derive(move || counts.get().and_then(|r| r.ok()).and_then(|all| all.iter().find(|(x, _)| *x == b).map(|(_, n)| *n)));
                let hits = Signal::derive(move || searching().then(|| shown_found.get().map(|f| f.facts).unwrap_or_default()));
                view! { <BlockView block=b count=count hits=hits edits=edits /> }
            }).collect_view()}
        </aside>
    }
}

/// Facts drawn per block at first, and added by each "Show more": a block of thousands
/// stays quick to draw and to scroll.
pub const FACTS_PER_PAGE: usize = 200;

/// One block's active facts, in display order (by id), a page at a time from the store's
/// index; while searching, the block's hits. Rows are keyed by what they show, so a reload
/// after a write redraws only the rows that changed.
#[component]
fn BlockView(
    block: Block,
    count: Signal<Option<usize>>,
    hits: Signal<Option<Vec<Item>>>,
    edits: Edits,
) -> impl IntoView {
    let c = ctx();
    let shown = RwSignal::new(FACTS_PER_PAGE);
    // The page as last read, with the block's count then: after a write that only added,
    // a block whose count has not grown is as it was (its page is not read again).
    let last: StoredValue<Option<Paged>, LocalStorage> = StoredValue::new_local(None);
    let page = LocalResource::new(move || {
        let at = c.revision.get();
        let n = shown.get();
        let store = c.store.get_value();
        let before =
            last.with_value(|l| l.as_ref().filter(|p| p.shown == n && p.at + 1 == at && c.only_added(at)).cloned());
        async move {
            let count = store.block_count(block).await.map_err(|e| e.to_string())?;
            let items = match before.filter(|p| p.count == count) {
                Some(p) => p.items,
                None => store.block_page(block, n).await.map_err(|e| e.to_string())?,
            };
            super::keep_newest(last, at, Paged { at, shown: n, count, items: items.clone() }, |p| p.at);
            Ok::<_, String>(items)
        }
    });
    // The page, kept while a write reloads it.
    let paged: Memo<Vec<Item>> = Memo::new(move |prev: Option<&Vec<Item>>| match page.get() {
        Some(Ok(items)) => items,
        _ => prev.cloned().unwrap_or_default(),
    });
    let facts = Memo::new(move |_| match hits.get() {
        Some(hits) => {
            let mut facts: Vec<Item> = hits.into_iter().filter(|i| i.active && i.block == block).collect();
            order::sort_by_key(&mut facts, Item::ordinal);
            facts
        }
        None => paged.get(),
    });
    let total = move || match hits.with(Option::is_some) {
        true => facts.with(Vec::len),
        false => count.get().unwrap_or_else(|| paged.with(Vec::len)),
    };
    let rows = move || facts.with(|f| f.iter().take(shown.get()).cloned().collect::<Vec<_>>());
    view! {
        <section class="block" data-block=block.as_str()>
            <h3>{block.as_str()} <span class="count">{total}</span></h3>
            {move || (total() == 0).then(|| view! { <p class="empty">"nothing yet"</p> })}
            <ul>
                <For each=rows key=row_key let:item>{fact_row(item, edits)}</For>
            </ul>
            {move || {
                let hidden = total().saturating_sub(shown.get());
                (hidden > 0).then(|| view! {
                    <button class="small more" data-testid=format!("more-{}", block.as_str())
                        on:click=move |_| shown.update(|n| *n += FACTS_PER_PAGE)>
                        {format!("Show {} more of {hidden}", hidden.min(FACTS_PER_PAGE))}</button>
                })
            }}
        </section>
    }
}

/// A block's page as read at revision `at`: `shown` facts asked for, `count` active in the
/// block then.
#[derive(Clone)]
struct Paged {
    at: u64,
    shown: usize,
    count: usize,
    items: Vec<Item>,
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
