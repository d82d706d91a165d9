//! The Sleep button, the dry-run toggle, a Sleep planned for review, and live per-pass
//! progress.

use super::review::{ReviewPanel, Reviewing};
use super::{ctx, now};
use crate::stop::StopHandle;
use leptos::prelude::*;
use nocturne_core::flow::focus::Scope;
use nocturne_core::flow::review;
use nocturne_core::flow::sleep::{self, PassEvent, Phase, SleepOptions, SleepReport};
use nocturne_core::PassKind;
use nocturne_sync::journal::{Heavy, SleepCall, SleepFailure};

/// Active facts the retention rules look at between two returns to the page's event loop
/// (a few milliseconds).
const FACTS_PER_TASK: usize = 500;

/// Runs a Sleep and shows each pass as its events arrive.
#[component]
pub fn SleepPanel() -> impl IntoView {
    let c = ctx();
    let dry_run = RwSignal::new(false);
    let deep = RwSignal::new(false);
    // What the Sleep would ask the model, worked out before anything runs.
    let estimate = c.load(move |store| {
        let deep = deep.get();
        let style = nocturne_core::llm::provider::Provider::proposal_style(&c.provider());
        async move {
            let options = if deep { SleepOptions::new(now()).deep() } else { SleepOptions::new(now()) };
            // A step a task: on a large memory the whole estimate would hold the page for a
            // second (after an import, a sync) while every panel redraws. A write meanwhile
            // (each batch of an import) starts a newer estimate: this one stops working.
            let revision = c.revision.get_untracked();
            let basis = sleep::Basis::read(&store, &options).await?;
            let mut estimating = sleep::Estimating::new(&basis, style, &options);
            loop {
                if let Some(estimate) = estimating.step(FACTS_PER_TASK) {
                    break Ok(Some(estimate));
                }
                super::next_task().await;
                if c.revision.get_untracked() != revision {
                    break Ok(None);
                }
            }
        }
    });
    let events: RwSignal<Vec<PassEvent>> = RwSignal::new(Vec::new());
    // Why the space's Sleep lease could not be asked, when it could not (the Sleep went on).
    let lease_note: RwSignal<Option<String>> = RwSignal::new(None);
    let stop = StoredValue::new_local(StopHandle::default());
    // A Sleep planned for review: kept per memory until applied or discarded.
    let reviewing = Reviewing::new();
    let plan = Action::new_local(move |_: &()| {
        let store = c.store.get_value();
        let memory = c.memory.get_untracked();
        let handle = StopHandle::default();
        stop.set_value(handle.clone());
        let provider = c.provider_for(&handle);
        events.set(Vec::new());
        async move {
            let scope = if deep.get_untracked() { Scope::Deep } else { Scope::Incremental };
            let options = SleepOptions { stop: handle.token.clone(), scope, ..SleepOptions::new(now()) };
            let mut on_event = |ev: &PassEvent| {
                let ev = ev.clone();
                events.update(|all| {
                    all.retain(|e| e.pass != ev.pass);
                    all.push(ev);
                });
            };
            // Writes nothing to the memory: no lock.
            let made = review::plan(&store, &provider, &options, &mut on_event).await.map_err(|e| e.to_string())?;
            Ok::<Option<String>, String>(reviewing.show(&memory, Some(made)).err())
        }
    });
    // (dry run, the user confirmed a heavy retirement)
    let run = Action::new_local(move |&(dry, confirmed): &(bool, bool)| {
        let store = c.store.get_value();
        let handle = StopHandle::default();
        stop.set_value(handle.clone());
        let provider = c.provider_for(&handle);
        events.set(Vec::new());
        lease_note.set(None);
        async move {
            let scope = if deep.get_untracked() { Scope::Deep } else { Scope::Incremental };
            let options = SleepOptions { dry_run: dry, stop: handle.token.clone(), scope, ..SleepOptions::new(now()) };
            let mut on_event = |ev: &PassEvent| {
                let ev = ev.clone();
                events.update(|all| {
                    all.retain(|e| e.pass != ev.pass);
                    all.push(ev);
                });
            };
            // One writer across tabs; a dry run writes nothing and needs no lock.
            let result: Result<SleepReport, String> = if dry {
                sleep::sleep(&store, &provider, &options, &mut on_event).await.map_err(|e| e.to_string())
            } else {
                // Through the one write path, when no other writer holds the memory: the
                // estimate and the guard against a heavy retirement (the user confirmed, or
                // it is refused), then, when the memory syncs, the space's Sleep lease
                // (saying so when the server cannot be asked) and a record for the next sync.
                let heavy = if confirmed { Heavy::GoAhead } else { Heavy::Refuse };
                let mut call = SleepCall { heavy, on_event: Box::new(on_event), ..SleepCall::quiet(&options) };
                let report = crate::sync::sleep(&store, &provider, &mut call).await;
                lease_note.set(call.notes.into_iter().next());
                report.map_err(|e| match e {
                    SleepFailure::Heavy(_) => format!("{e}. Run a dry run to see which, then Sleep again and confirm."),
                    SleepFailure::Failed(why) => why,
                })
            };
            c.bump();
            c.refresh_mode();
            result
        }
    });
    let done = move || events.with(|e| e.iter().filter(|e| e.phase == Phase::Done).count());
    view! {
        <div class="sleep">
            <h2>"Sleep"</h2>
            <p class="hint">"Dedupe → Merge → Supersede → Promote → Forget. Every proposal is judged by a gate; accepted and refused edits are both recorded."</p>
            <div class="controls">
                <label><input type="checkbox" prop:checked=move || dry_run.get()
                    on:change=move |ev| dry_run.set(event_target_checked(&ev)) />
                    " Dry run (report only, write nothing)"</label>
                <label title="Every pass over every fact, not only what changed since the last Sleep">
                    <input type="checkbox" data-testid="deep-sleep" prop:checked=move || deep.get()
                    on:change=move |ev| deep.set(event_target_checked(&ev)) />" Deep (everything)"</label>
                <button class="primary" data-testid="sleep" disabled=move || run.pending().get()
                    on:click=move |_| {
                        let dry = dry_run.get_untracked();
                        // A Sleep that would retire more than a quarter of the memory asks
                        // first (the journal refuses it unless the user confirmed).
                        let heavy = estimate.get_untracked().and_then(|e| e.ok().flatten()).filter(|e| e.retires_a_lot());
                        let mut confirmed = false;
                        if let (false, Some(e)) = (dry, heavy) {
                            let ask = format!(
                                "This Sleep would retire {} of {} active facts (passing states and commitments past their time, and stale or over-capacity facts where those rules are set). Run a dry run first to see which.\n\nGo ahead?",
                                e.retire, e.active
                            );
                            if !window().confirm_with_message(&ask).unwrap_or(false) {
                                return;
                            }
                            confirmed = true;
                        }
                        run.dispatch((dry, confirmed));
                    }>
                    {move || if run.pending().get() { "Sleeping…" } else { "Sleep" }}
                </button>
                <button data-testid="review-sleep" disabled=move || run.pending().get() || plan.pending().get()
                    title="Plan the Sleep without writing anything, then approve its edits one by one"
                    on:click=move |_| { plan.dispatch(()); }>
                    {move || if plan.pending().get() { "Planning…" } else { "Review before applying" }}
                </button>
                <button data-testid="stop-sleep" hidden=move || !run.pending().get() && !plan.pending().get()
                    on:click=move |_| stop.get_value().stop()>"Stop"</button>
            </div>
            // Its own boundary: re-estimating after a write must not send the whole page
            // back to the app's loading state (which would also lose the chat's scroll).
            <Transition fallback=|| ()>
                <p class="hint" data-testid="sleep-estimate">{move || estimate.get().map(|e| match e {
                Ok(None) => "Working out the estimate again after the latest write…".to_string(),
                Ok(Some(e)) => {
                    let what = match e.fresh {
                        Some(f) => format!("Incremental: {f} fact(s) new or changed since the last Sleep, of {} active", e.active),
                        None => format!("Deep: all {} active facts", e.active),
                    };
                    let retire = if e.retire > 0 { format!(" The retention rules alone retire {} fact(s).", e.retire) } else { String::new() };
                    format!("{what} — about {} model call(s), {} prompt tokens.{retire}", e.calls, e.prompt_tokens)
                }
                Err(e) => format!("No estimate: {e}"),
            })}</p>
            </Transition>
            <progress max=PassKind::SLEEP.len().to_string() value=move || done().to_string() aria-label="passes done"></progress>
            <table class="passes" data-testid="passes">
                <thead><tr>
                    <th>"pass"</th><th>"state"</th><th>"input"</th><th>"proposed"</th><th>"accepted"</th>
                    <th>"rejected"</th><th>"enforced"</th><th>"active after"</th><th>"versions"</th>
                </tr></thead>
                <tbody>
                    {move || {
                        let all = events.get();
                        PassKind::SLEEP.into_iter().map(|p| {
                            let ev = all.iter().find(|e| e.pass == p).cloned();
                            pass_row(p, ev)
                        }).collect_view()
                    }}
                </tbody>
            </table>
            {move || plan.value().get().and_then(|r| match r {
                Ok(None) => None,
                Ok(Some(note)) => Some(view! { <p class="hint" data-testid="review-note">{note}</p> }.into_any()),
                Err(e) => Some(view! { <p class="error" role="alert">{e}</p> }.into_any()),
            })}
            <ReviewPanel reviewing=reviewing />
            {move || run.value().get().map(|r| match r {
                Ok(rep) => view! {
                    <p class="summary" data-testid="sleep-summary">{format!(
                        "{}: active {} → {}; {} proposed, {} accepted, {} refused, {} enforced by engine rules.",
                        if rep.dry_run { "Dry run — nothing was written" } else { "Sleep complete" },
                        rep.active_before, rep.active_after,
                        rep.total(|p| p.proposed), rep.total(|p| p.accepted), rep.total(|p| p.rejected), rep.total(|p| p.enforced))}</p>
                    // What changed in how the model was asked, and passes that ended on an
                    // unusable reply (they changed nothing; the Sleep went on).
                    <ul class="notes" data-testid="sleep-notes">
                        {lease_note.get().map(|n| view! { <li data-testid="lease-note">{n}</li> })}
                        {rep.passes.iter().flat_map(|p| p.notes.clone()).map(|n| view! { <li class="switched">{n}</li> }).collect_view()}
                        {rep.failed().map(|e| view! { <li class="error">{format!(
                            "The {} pass ended on an unusable model reply and changed nothing ({}); the Sleep went on.",
                            e.pass.name(), e.error.clone().unwrap_or_default())}</li> }).collect_view()}
                    </ul>
                    <RefusalList report=rep />
                }.into_any(),
                Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
            })}
        </div>
    }
}

fn pass_row(pass: PassKind, ev: Option<PassEvent>) -> impl IntoView {
    let (state, cls) = match ev.as_ref().map(|e| e.phase) {
        None => ("waiting", "waiting"),
        Some(Phase::Start) => ("running", "running"),
        Some(Phase::Done) => ("done", "done"),
        Some(Phase::Error) => ("error", "error"),
    };
    let n = |f: fn(&PassEvent) -> usize| {
        ev.as_ref().filter(|e| e.phase == Phase::Done).map_or("".to_string(), |e| f(e).to_string())
    };
    let versions =
        ev.as_ref().and_then(|e| Some(format!("v{} → v{}", e.before_version?, e.after_version?))).unwrap_or_default();
    let error = ev.as_ref().and_then(|e| e.error.clone());
    view! {
        <tr class=cls data-pass=pass.name()>
            <td>{pass.name()}</td>
            <td>{state}</td>
            <td>{ev.as_ref().map(|e| e.input.to_string())}</td>
            <td>{n(|e| e.proposed)}</td><td>{n(|e| e.accepted)}</td><td>{n(|e| e.rejected)}</td>
            <td>{n(|e| e.enforced)}</td><td>{n(|e| e.active_after)}</td><td>{versions}</td>
        </tr>
        {error.map(|e| view! { <tr class="error"><td colspan="9" role="alert">{e}</td></tr> })}
    }
}

/// The refused proposals of a Sleep (or dry run), with their reasons.
#[component]
fn RefusalList(report: SleepReport) -> impl IntoView {
    let refused: Vec<_> =
        report.passes.iter().flat_map(|p| p.mutations.iter().filter(|m| !m.accepted).cloned()).collect();
    (!refused.is_empty()).then(|| view! {
        <h3>"Refused"</h3>
        <ul class="refusals">
            {refused.into_iter().map(|m| view! {
                <li><b>{m.pass.name()}</b>" "{m.kind.as_str()}" "<code>{m.item_id.clone()}</code>": "{m.rejection_reason.clone().unwrap_or_default()}</li>
            }).collect_view()}
        </ul>
    })
}
