//! The memory beside the chat: the four blocks, each fact with its category, when it was
//! said and the date it is about (resolved by the core), and its source turn.

use super::{ctx, now};
use leptos::prelude::*;
use nocturne_core::model::memory::{Block, Item};
use nocturne_core::store::Store;

/// The four blocks of active memory.
#[component]
pub fn MemoryPanel() -> impl IntoView {
    let c = ctx();
    let items = c.load(|store| async move { store.items().await });
    let query = RwSignal::new(String::new());
    view! {
        <aside class="memory" aria-label="Memory">
            <h2>"Memory"</h2>
            <label class="search"><span class="sr">"Search memory"</span>
                <input type="search" data-testid="memory-search" placeholder="Search memory by words…"
                    prop:value=move || query.get() on:input=move |ev| query.set(event_target_value(&ev)) /></label>
            <Suspense fallback=|| view! { <p class="status">"Loading…"</p> }>
                {move || items.get().map(|r| match r {
                    Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
                    Ok(items) => {
                        // With a query, only the facts whose words hold it (the core's search).
                        let q = query.get();
                        let items: Vec<Item> = if q.trim().is_empty() {
                            items
                        } else {
                            nocturne_core::store::search::search(&items, &[], &q).into_iter().map(|h| h.item.clone()).collect()
                        };
                        let found = (!q.trim().is_empty()).then(|| items.iter().filter(|i| i.active).count());
                        let items = std::sync::Arc::new(items);
                        view! {
                            {found.map(|n| view! { <p class="hint" data-testid="search-count">{format!("{n} active fact(s) match")}</p> })}
                            {Block::ALL.into_iter().map(|b| view! { <BlockView block=b items=items.clone() /> }).collect_view()}
                        }.into_any()
                    }
                })}
            </Suspense>
        </aside>
    }
}

/// Facts drawn per block at first, and added by each "Show more": a block of thousands
/// stays quick to draw and to scroll.
pub const FACTS_PER_PAGE: usize = 200;

/// One block's active facts, newest last, paged.
#[component]
fn BlockView(block: Block, items: std::sync::Arc<Vec<Item>>) -> impl IntoView {
    let shown = RwSignal::new(FACTS_PER_PAGE);
    let mut facts: Vec<Item> = items.iter().filter(|i| i.active && i.block == block).cloned().collect();
    facts.sort_by_key(Item::ordinal);
    let count = facts.len();
    let t = now();
    let facts = std::sync::Arc::new(facts);
    move || {
        let limit = shown.get();
        let hidden = count.saturating_sub(limit);
        let page: Vec<Item> = facts.iter().take(limit).cloned().collect();
        view! {
            {block_view(block, count, page, t)}
            {(hidden > 0).then(|| view! {
                <button class="small more" data-testid=format!("more-{}", block.as_str())
                    on:click=move |_| shown.update(|n| *n += FACTS_PER_PAGE)>
                    {format!("Show {} more of {hidden}", hidden.min(FACTS_PER_PAGE))}</button>
            })}
        }
    }
}

fn block_view(block: Block, count: usize, facts: Vec<Item>, t: i64) -> impl IntoView {
    view! {
        <section class="block" data-block=block.as_str()>
            <h3>{block.as_str()} <span class="count">{count}</span></h3>
            {if facts.is_empty() {
                view! { <p class="empty">"nothing yet"</p> }.into_any()
            } else {
                view! {
                    <ul>
                        {facts.into_iter().map(|i| {
                            let when = nocturne_core::llm::context::dated(&i, t);
                            let turn = i.source_turn.map_or("—".to_string(), |n| format!("turn {n}"));
                            view! {
                                <li class="fact">
                                    <span class="text">{i.text.clone()}</span>
                                    <span class="meta">
                                        <span class="id">{i.item_id.clone()}</span>
                                        <span class="cat">{i.category.clone()}</span>
                                        <span class="when">{when}</span>
                                        <span>{turn}</span>
                                    </span>
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                }.into_any()
            }}
        </section>
    }
}
