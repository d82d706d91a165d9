//! A reviewed Sleep's plan on the page (SPEC §16): every edit with its facts before and
//! after, approved or rejected one by one or all at once, then applied through the one
//! write path. The plan is kept in the browser's storage per memory until it is applied or
//! discarded, so it survives a reload.

use super::{ctx, now};
use crate::lock;
use leptos::prelude::*;
use nocturne_core::flow::review::{Applied, Decisions, Fact, Proposed, Review};
use std::collections::BTreeSet;

/// The plan kept for memory `memory`, if any (one that no longer reads is dropped).
pub fn stored_plan(memory: &str) -> Option<Review> {
    let storage = web_sys::window()?.local_storage().ok()??;
    let text = storage.get_item(&key(memory)).ok()??;
    Review::parse(&text).ok()
}

/// Keeps `plan` for memory `memory` (or forgets the kept one).
pub fn keep_plan(memory: &str, plan: Option<&Review>) -> Result<(), String> {
    let storage = web_sys::window()
        .and_then(|w| w.local_storage().ok()?)
        .ok_or("this browser keeps no local storage; the plan is shown but will not survive a reload")?;
    match plan {
        None => storage.remove_item(&key(memory)).map_err(|e| format!("{e:?}")),
        Some(plan) => {
            let text = serde_json::to_string(plan).map_err(|e| e.to_string())?;
            storage.set_item(&key(memory), &text).map_err(|_| {
                format!(
                    "the plan ({} edits, {} KB) is too large for the browser's local storage; it is shown but will not survive a reload",
                    plan.edits.len(),
                    text.len() / 1024
                )
            })
        }
    }
}

fn key(memory: &str) -> String {
    format!("nocturne.review.{memory}")
}

/// A plan on the page and the edits approved so far.
#[derive(Clone, Copy)]
pub struct Reviewing {
    pub plan: RwSignal<Option<Review>>,
    pub approved: RwSignal<BTreeSet<String>>,
}

impl Reviewing {
    /// The plan kept for `memory`, every edit the gates accepted approved.
    pub fn new(memory: &str) -> Self {
        let r = Reviewing { plan: RwSignal::new(None), approved: RwSignal::new(BTreeSet::new()) };
        r.show(stored_plan(memory));
        r
    }

    /// Shows `plan` with every edit the gates accepted approved.
    pub fn show(&self, plan: Option<Review>) {
        self.approved.set(plan.iter().flat_map(accepted).collect());
        self.plan.set(plan);
    }
}

fn accepted(plan: &Review) -> impl Iterator<Item = String> + '_ {
    plan.edits.iter().filter(|e| e.refused.is_none()).map(|e| e.id.clone())
}

/// The plan of the memory in use, to approve and apply.
#[component]
pub fn ReviewPanel(reviewing: Reviewing) -> impl IntoView {
    let c = ctx();
    let Reviewing { plan, approved } = reviewing;
    let reason = RwSignal::new(String::new());
    let apply = Action::new_local(move |_: &()| {
        let store = c.store.get_value();
        let memory = c.memory.get_untracked();
        let plan_now = plan.get_untracked();
        let chosen = approved.get_untracked();
        let why = reason.get_untracked();
        async move {
            let p = plan_now.ok_or("there is no plan to apply")?;
            let mut decisions = Decisions::only(chosen.iter().map(String::as_str));
            for e in p.edits.iter().filter(|e| e.refused.is_none() && !chosen.contains(&e.id)) {
                decisions = decisions.reject(&e.id, why.trim());
            }
            crate::storage::persist_once().await;
            let work = crate::sync::apply(&store, &p, &decisions, now());
            let done: Result<Applied, String> = lock::exclusive(lock::WRITE_LOCK, lock::Wait::IfAvailable, work)
                .await
                .unwrap_or_else(|e| Err(e.to_string()));
            c.bump();
            c.refresh_mode();
            let applied = done?;
            // Applied (or found applied before): the plan has done its work.
            let _ = keep_plan(&memory, None);
            reviewing.show(None);
            Ok::<String, String>(applied.summary(&p))
        }
    });
    view! {
        {move || plan.get().map(|p| {
            let refused = p.edits.iter().filter(|e| e.refused.is_some()).count();
            let all = p.clone();
            view! {
                <section class="review" data-testid="review">
                    <h3>"Review before applying"</h3>
                    <p class="hint">{format!(
                        "Plan {} by {}, planned on v{}: {} edit(s), {} the gates accept, {} they refuse. Nothing has been written. \
                         Applying judges each approved edit again on the memory as it is then; the others are logged as not approved by you.",
                        p.id, p.provider, p.planned_on, p.edits.len(), p.edits.len() - refused, refused)}</p>
                    <div class="controls">
                        <button data-testid="approve-all" on:click=move |_| approved.set(accepted(&all).collect())>"Approve all"</button>
                        <button data-testid="reject-all" on:click=move |_| approved.set(BTreeSet::new())>"Reject all"</button>
                        <input type="text" data-testid="reject-reason" placeholder="Why you reject the unticked edits (kept in the log)"
                            prop:value=move || reason.get() on:input=move |ev| reason.set(event_target_value(&ev)) />
                    </div>
                    <ol class="edits">
                        {p.edits.into_iter().map(|e| edit_row(e, approved)).collect_view()}
                    </ol>
                    <div class="controls">
                        <button class="primary" data-testid="apply-review" disabled=move || apply.pending().get()
                            on:click=move |_| { apply.dispatch(()); }>
                            {move || format!("Apply chosen ({})", approved.with(|a| a.len()))}
                        </button>
                        <button data-testid="discard-review" on:click=move |_| {
                            let _ = keep_plan(&c.memory.get_untracked(), None);
                            reviewing.show(None);
                        }>"Discard plan"</button>
                    </div>
                </section>
            }
        })}
        {move || apply.value().get().map(|r| match r {
            Ok(summary) => view! { <p class="summary" data-testid="review-summary">{summary}</p> }.into_any(),
            Err(e) => view! { <p class="error" role="alert" data-testid="review-error">{e}</p> }.into_any(),
        })}
    }
}

fn edit_row(e: Proposed, approved: RwSignal<BTreeSet<String>>) -> impl IntoView {
    let id = e.id.clone();
    let toggle = id.clone();
    let checked = id.clone();
    let by = if e.proposer == nocturne_core::model::memory::Proposer::Model {
        "model".to_string()
    } else {
        e.proposer.as_str().to_string()
    };
    let refused = e.refused.clone();
    let is_refused = refused.is_some();
    view! {
        <li class=if is_refused { "edit refused" } else { "edit" } data-testid="review-edit" data-id=id.clone()>
            <label>
                <input type="checkbox" data-testid=format!("approve-{id}") disabled=is_refused
                    prop:checked=move || approved.with(|a| a.contains(&checked))
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        approved.update(|a| { if on { a.insert(toggle.clone()); } else { a.remove(&toggle); } });
                    } />
                " " <b>{id.clone()}</b> " " {e.pass.name()} " " {e.kind.as_str()} " (" {by} ")"
            </label>
            {(!e.reason.is_empty()).then(|| view! { <span class="reason">": " {e.reason.clone()}</span> })}
            {refused.map(|why| view! { <p class="refused">"Refused by the gate: " {why}</p> })}
            <ul class="facts">
                {e.facts.into_iter().map(|c| {
                    let changed = c.before != c.after;
                    view! {
                        <li><code>{c.item_id.clone()}</code> " " {fact(&c.before)}
                            {changed.then(|| view! { " → " <span class="after">{fact(&c.after)}</span> })}
                        </li>
                    }
                }).collect_view()}
            </ul>
        </li>
    }
}

/// `"I live in Lisbon." (scratch, retired)`.
fn fact(f: &Fact) -> String {
    format!("\"{}\" ({}{})", f.text, f.block.as_str(), if f.active { "" } else { ", retired" })
}
