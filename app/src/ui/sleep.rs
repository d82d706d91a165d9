//! The Sleep button, the dry-run toggle, a Sleep planned for review, and live per-pass
//! progress.

use super::review::{ReviewPanel, Reviewing};
use super::{ctx, now};
use crate::jobs::{self, Given, Model, Progress, SleepDone, SleepJob, SleepSummary};
use crate::stop::StopHandle;
use crate::task;
use leptos::prelude::*;
use nocturne_core::flow::report::{PassEvent, Phase};
use nocturne_core::llm::provider::Provider;
use nocturne_core::PassKind;

/// Runs a Sleep and shows each pass as its events arrive.
#[component]
pub fn SleepPanel() -> impl IntoView {
    let c = ctx();
    let dry_run = RwSignal::new(false);
    let deep = RwSignal::new(false);
    // What the Sleep would ask the model, worked out before anything runs, in the job worker
    // (off the page's thread). A write meanwhile starts a newer estimate and ends this one
    // (Leptos would let it run: the handle of the latest is kept, and dropping the one
    // before ends its worker). A chat turn ends it as it starts (`Ctx::background`), and
    // the next waits for the turn's end: an estimate reads the whole memory, which a turn must not wait behind (at 100,000
    // facts its read held the turn's write back by seconds). Each is kept with what it was
    // asked for (the memory, its revision, deep or not): one of an older revision describes
    // the memory before the last write, so it is not shown as the next Sleep's (a turn's new
    // fact would be missing from its count).
    let estimate = LocalResource::new(move || {
        let asked = (c.memory.get(), c.revision.get(), deep.get());
        let chatting = c.chatting.get();
        let job =
            jobs::Estimate { memory: asked.0.clone(), now: now(), deep: asked.2, style: c.provider().proposal_style() };
        let (work, handle) = task::abortable(async move { jobs::run(job, Given::default(), &mut |_| {}).await });
        // During a turn nothing runs (and the one before is given up): the turn's end asks again.
        c.background.set_value((!chatting).then_some(handle));
        async move { (asked, if chatting { None } else { work.await }) }
    });
    // The estimate of the memory as it is now; `None` while it is being worked out again.
    let current = move || {
        let now_asked = (c.memory.get(), c.revision.get(), deep.get());
        estimate.with(|e| e.as_ref().filter(|(asked, _)| *asked == now_asked).and_then(|(_, e)| e.clone()))
    };
    let events: RwSignal<Vec<PassEvent>> = RwSignal::new(Vec::new());
    let on_pass = move |p: Progress| {
        if let Progress::Pass { event } = p {
            events.update(|all| {
                all.retain(|e| e.pass != event.pass);
                all.push(event);
            });
        }
    };
    let stop = StoredValue::new_local(StopHandle::default());
    // A Sleep planned for review: kept per memory until applied or discarded.
    let reviewing = Reviewing::new();
    let plan = Action::new_local(move |_: &()| {
        let memory = c.memory.get_untracked();
        let handle = StopHandle::default();
        stop.set_value(handle.clone());
        let provider = c.provider_for(&handle);
        events.set(Vec::new());
        let job =
            jobs::Plan { memory: memory.clone(), now: now(), deep: deep.get_untracked(), model: Model::of(&provider) };
        async move {
            // Writes nothing to the memory.
            let given = Given { provider: Some(&provider), ..Given::default() };
            let made = jobs::run(job, given, &mut { on_pass }).await?;
            c.refresh_mode();
            Ok::<Option<String>, String>(reviewing.show(&memory, Some(made)).err().map(String::from))
        }
    });
    // A Sleep, or a dry run: planned whole in the job worker (its passes shown as they run),
    // then — through the one write path — applied, unless its plan would retire more than a
    // Sleep retires without asking: then the user is shown what would go and asked, and the
    // same plan is applied if they agree (the model is not asked again).
    let run = Action::new_local(move |&dry_run: &bool| {
        let handle = StopHandle::default();
        stop.set_value(handle.clone());
        let provider = c.provider_for(&handle);
        events.set(Vec::new());
        let job = SleepJob {
            memory: c.memory.get_untracked(),
            now: now(),
            deep: deep.get_untracked(),
            dry_run,
            confirmed: false,
            planned: None,
            model: Model::of(&provider),
        };
        async move {
            let given = Given { provider: Some(&provider), ..Given::default() };
            let (memory, deep) = (job.memory.clone(), job.deep);
            let mut done = jobs::run(job, given, &mut { on_pass }).await;
            if let Ok(SleepDone::Heavy(heavy)) = &done {
                let ask = format!(
                    "{}.\n\nSee each with “Review before applying”, or go ahead now?",
                    heavy.why.trim_end_matches("; nothing was written")
                );
                if window().confirm_with_message(&ask).unwrap_or(false) {
                    let confirmed = SleepJob {
                        memory,
                        now: now(),
                        deep,
                        dry_run: false,
                        confirmed: true,
                        planned: Some(heavy.plan.clone()),
                        model: Model::of(&provider),
                    };
                    let given = Given { provider: Some(&provider), ..Given::default() };
                    done = jobs::run(confirmed, given, &mut { on_pass }).await;
                }
            }
            c.bump();
            c.refresh_mode();
            match done? {
                SleepDone::Slept(slept) => Ok(slept),
                SleepDone::Heavy(heavy) => Err(heavy.why),
            }
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
                    on:click=move |_| { run.dispatch(dry_run.get_untracked()); }>
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
                <p class="hint" data-testid="sleep-estimate">{move || match current() {
                    Some(Ok(e)) => e.line,
                    Some(Err(e)) => format!("No estimate: {e}"),
                    None => "Working out what the next Sleep would ask of the memory as it is now…".to_string(),
                }}</p>
            </Transition>
            <progress max=PassKind::SLEEP.len().to_string() value=move || done().to_string() aria-label="passes done"></progress>
            // In a box of its own that scrolls when the panel is too narrow for it: a header
            // wraps between its words, never inside one.
            <div class="table-box">
            <table class="passes" data-testid="passes">
                <thead><tr>
                    <th>"pass"</th><th>"state"</th><th title="active facts the pass started from">"input"</th>
                    <th title="edits the model proposed">"proposed"</th>
                    <th title="edits the gates accepted, the model's and the rules'">"accepted"</th><th title="proposals the gates refused, each with its reason">"refused"</th>
                    <th title="accepted edits the engine's rules proposed, not the model">"enforced"</th>
                    <th>"active after"</th><th title="the versions the pass wrote">"versions"</th>
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
            </div>
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
                        rep.active_before, rep.active_after, rep.proposed, rep.accepted, rep.rejected, rep.enforced)}</p>
                    // What changed in how the model was asked, and passes that ended on an
                    // unusable reply (they changed nothing; the Sleep went on).
                    <ul class="notes" data-testid="sleep-notes">
                        {rep.lease_note.clone().map(|n| view! { <li data-testid="lease-note">{n}</li> })}
                        {rep.notes.clone().into_iter().map(|n| view! { <li class="switched">{n}</li> }).collect_view()}
                        {rep.failed.clone().into_iter().map(|e| view! { <li class="error">{e}</li> }).collect_view()}
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
fn RefusalList(report: SleepSummary) -> impl IntoView {
    let refused = report.refused;
    (!refused.is_empty()).then(|| {
        view! {
            <h3>"Refused"</h3>
            <ul class="refusals">
                {refused.into_iter().map(|m| view! {
                    <li><b>{m.pass}</b>" "{m.kind}" "<code>{m.item_id}</code>": "{m.reason}</li>
                }).collect_view()}
            </ul>
        }
    })
}
