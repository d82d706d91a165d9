//! A reviewed Sleep's plan on the page (`flow::review`): every edit with its facts before and
//! after, approved or rejected one by one or all at once, then applied through the one
//! write path. The plan is kept in the browser's storage per memory until it is applied or
//! discarded, so it survives a reload.

use super::{ctx, now};
use crate::error::AppError;
use crate::jobs::{self, Given};
use leptos::prelude::*;
use nocturne_core::flow::review::{Decisions, Fact, Proposed, Review};
use std::collections::{BTreeMap, BTreeSet};

/// The plan kept for memory `memory`, if any (one that no longer reads is dropped).
pub fn stored_plan(memory: &str) -> Option<Review> {
    let storage = web_sys::window()?.local_storage().ok()??;
    let text = storage.get_item(&key(memory)).ok()??;
    Review::parse(&text).ok()
}

/// Keeps `plan` for memory `memory` (or forgets the kept one).
pub fn keep_plan(memory: &str, plan: Option<&Review>) -> Result<(), AppError> {
    let storage = web_sys::window()
        .and_then(|w| w.local_storage().ok()?)
        .ok_or("this browser keeps no local storage; the plan is shown but will not survive a reload")?;
    match plan {
        None => Ok(storage.remove_item(&key(memory)).map_err(|e| format!("{e:?}"))?),
        Some(plan) => {
            let text = serde_json::to_string(plan)?;
            Ok(storage.set_item(&key(memory), &text).map_err(|_| {
                format!(
                    "the plan ({} edits, {} KB) is too large for the browser's local storage; it is shown but will not survive a reload",
                    plan.edits.len(),
                    text.len() / 1024
                )
            })?)
        }
    }
}

fn key(memory: &str) -> String {
    format!("nocturne.review.{memory}")
}

/// The plans on the page, one per memory (by database name), and the edits ticked in the
/// one shown. Every panel stays mounted when the memory in use changes, so a plan is
/// always looked up by the memory it was made on.
#[derive(Clone, Copy)]
pub struct Reviewing {
    /// Plans made or set aside this visit (`None`: none); a memory not in it shows what
    /// the browser's storage keeps for it.
    plans: RwSignal<BTreeMap<String, Option<Review>>>,
    ticks: RwSignal<Ticks>,
}

/// The edits ticked in plan `plan`; `chosen: None` is every edit the gates accepted.
#[derive(Clone, Debug, Default, PartialEq)]
struct Ticks {
    plan: String,
    chosen: Option<BTreeSet<String>>,
}

impl Reviewing {
    pub fn new() -> Self {
        Reviewing { plans: RwSignal::new(BTreeMap::new()), ticks: RwSignal::new(Ticks::default()) }
    }

    /// The plan of memory `memory`, if any.
    pub fn plan(&self, memory: &str) -> Option<Review> {
        self.plans.with(|p| p.get(memory).cloned()).unwrap_or_else(|| stored_plan(memory))
    }

    /// Shows `plan` for `memory` (`None`: no plan) and keeps it in the browser's storage;
    /// `Err` says why it will not survive a reload.
    pub fn show(&self, memory: &str, plan: Option<Review>) -> Result<(), AppError> {
        let kept = keep_plan(memory, plan.as_ref());
        self.ticks.set(Ticks::default());
        self.plans.update(|p| {
            p.insert(memory.to_string(), plan);
        });
        kept
    }

    fn ticked(&self, plan: &str, id: &str, accepted: bool) -> bool {
        self.ticks.with(|t| match &t.chosen {
            Some(chosen) if t.plan == plan => chosen.contains(id),
            _ => accepted,
        })
    }

    /// The edits of `plan` ticked.
    fn chosen(&self, plan: &Review) -> BTreeSet<String> {
        plan.edits.iter().filter(|e| self.ticked(&plan.id, &e.id, e.refused.is_none())).map(|e| e.id.clone()).collect()
    }

    fn tick(&self, plan: &Review, id: &str, on: bool) {
        let mut chosen = self.chosen(plan);
        if on {
            chosen.insert(id.to_string());
        } else {
            chosen.remove(id);
        }
        self.ticks.set(Ticks { plan: plan.id.clone(), chosen: Some(chosen) });
    }

    fn tick_all(&self, plan: &Review, on: bool) {
        let chosen = if on { None } else { Some(BTreeSet::new()) };
        self.ticks.set(Ticks { plan: plan.id.clone(), chosen });
    }
}

/// The plan of the memory in use, to approve and apply.
#[component]
pub fn ReviewPanel(reviewing: Reviewing) -> impl IntoView {
    let c = ctx();
    let reason = RwSignal::new(String::new());
    let apply = Action::new_local(move |_: &()| {
        let memory = c.memory.get_untracked();
        let plan_now = untrack(|| reviewing.plan(&memory));
        let chosen = plan_now.as_ref().map(|p| untrack(|| reviewing.chosen(p))).unwrap_or_default();
        let why = reason.get_untracked();
        async move {
            let p = plan_now.ok_or("there is no plan to apply")?;
            let mut decisions = Decisions::only(chosen.iter().map(String::as_str));
            for e in p.edits.iter().filter(|e| e.refused.is_none() && !chosen.contains(&e.id)) {
                decisions = decisions.reject(&e.id, why.trim());
            }
            // In the job worker, judged again, through the one write path.
            let job = jobs::Apply { memory: memory.clone(), plan: Box::new(p), decisions, now: now() };
            let done = jobs::run(job, Given::default(), &mut |_| {}).await;
            c.bump();
            c.refresh_mode();
            let summary = done?;
            // Applied (or found applied before): the plan has done its work.
            let _ = reviewing.show(&memory, None);
            Ok::<String, String>(summary)
        }
    });
    view! {
        {move || reviewing.plan(&c.memory.get()).map(|p| {
            let refused = p.edits.iter().filter(|e| e.refused.is_some()).count();
            let (all, none, count) = (p.clone(), p.clone(), p.clone());
            let hint = format!(
                "Plan {} by {}, planned on v{}: {} edit(s), {} the gates accept, {} they refuse. Nothing has been written. \
                 Applying judges each approved edit again on the memory as it is then; the others are logged as not approved by you.",
                p.id, p.provider, p.planned_on, p.edits.len(), p.edits.len() - refused, refused);
            let rows = p.edits.iter().map(|e| edit_row(e, &p, reviewing)).collect_view();
            view! {
                <section class="review" data-testid="review">
                    <h3>"Review before applying"</h3>
                    <p class="hint">{hint}</p>
                    <div class="controls">
                        <button data-testid="approve-all" on:click=move |_| reviewing.tick_all(&all, true)>"Approve all"</button>
                        <button data-testid="reject-all" on:click=move |_| reviewing.tick_all(&none, false)>"Reject all"</button>
                        <input type="text" data-testid="reject-reason" placeholder="Why you reject the unticked edits (kept in the log)"
                            prop:value=move || reason.get() on:input=move |ev| reason.set(event_target_value(&ev)) />
                    </div>
                    <ol class="edits">{rows}</ol>
                    <div class="controls">
                        <button class="primary" data-testid="apply-review" disabled=move || apply.pending().get()
                            on:click=move |_| { apply.dispatch(()); }>
                            {move || format!("Apply chosen ({})", reviewing.chosen(&count).len())}
                        </button>
                        <button data-testid="discard-review" on:click=move |_| {
                            let _ = reviewing.show(&c.memory.get_untracked(), None);
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

fn edit_row(e: &Proposed, plan: &Review, reviewing: Reviewing) -> impl IntoView {
    let id = e.id.clone();
    let by = if e.proposer == nocturne_core::model::memory::Proposer::Model {
        "model".to_string()
    } else {
        e.proposer.as_str().to_string()
    };
    let refused = e.refused.clone();
    let accepted = refused.is_none();
    let (plan_id, checked, toggle, whole) = (plan.id.clone(), id.clone(), id.clone(), plan.clone());
    view! {
        <li class=if accepted { "edit" } else { "edit refused" } data-testid="review-edit" data-id=id.clone()>
            <label>
                <input type="checkbox" data-testid=format!("approve-{id}") disabled=!accepted
                    prop:checked=move || reviewing.ticked(&plan_id, &checked, accepted)
                    on:change=move |ev| reviewing.tick(&whole, &toggle, event_target_checked(&ev)) />
                " " <b>{id.clone()}</b> " " {e.pass.name()} " " {e.kind.as_str()} " (" {by} ")"
            </label>
            {(!e.reason.is_empty()).then(|| view! { <span class="reason">": " {e.reason.clone()}</span> })}
            {refused.map(|why| view! { <p class="refused">"Refused by the gate: " {why}</p> })}
            <ul class="facts">
                {e.facts.iter().map(|c| {
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
