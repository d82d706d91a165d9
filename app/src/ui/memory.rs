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
    view! {
        <aside class="memory" aria-label="Memory">
            <h2>"Memory"</h2>
            <Suspense fallback=|| view! { <p class="status">"Loading…"</p> }>
                {move || items.get().map(|r| match r {
                    Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
                    Ok(items) => Block::ALL.into_iter().map(|b| block_view(b, &items)).collect_view().into_any(),
                })}
            </Suspense>
        </aside>
    }
}

fn block_view(block: Block, items: &[Item]) -> impl IntoView {
    let mut facts: Vec<Item> = items.iter().filter(|i| i.active && i.block == block).cloned().collect();
    facts.sort_by_key(Item::ordinal);
    let count = facts.len();
    let t = now();
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
