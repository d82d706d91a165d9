//! Bring your history: a ChatGPT or Claude export (the `.zip` as downloaded, or its
//! `conversations.json`), a JSON Lines log or a LoCoMo file, chosen or dropped on the page;
//! the estimate before anything runs, then progress with Stop, then what was imported.
//! The file is read off the page, in the import worker (`reader`: the core's readers in a
//! wasm module of their own); the import is the core's (`flow::import`) through the one
//! write path, a few batches at a time under the write lock, so a chat in this or another
//! tab waits those, not the whole import.

use super::{ctx, next_task, now};
use crate::idb::IdbStore;
use crate::stop::StopHandle;
use leptos::prelude::*;
use nocturne_core::flow::import::{
    self, Estimate, Estimating, ImportOptions, Plan, Progress, Report, Seen, SleepAfter,
};
use nocturne_core::import::History;
use nocturne_core::llm::provider::Provider;
use nocturne_core::store::Store;
use std::collections::HashSet;
use std::rc::Rc;

/// A file read and planned, waiting for the user to start it.
#[derive(Clone)]
struct Ready {
    name: String,
    history: Rc<History>,
    plan: Rc<Plan>,
}

/// The import panel.
#[component]
pub fn HistoryImport() -> impl IntoView {
    let c = ctx();
    let sleep_after = RwSignal::new(SleepAfter::End);
    let ready: RwSignal<Option<Ready>, LocalStorage> = RwSignal::new_local(None);
    let progress: RwSignal<Option<Progress>> = RwSignal::new(None);
    let read_so_far: RwSignal<Option<usize>> = RwSignal::new(None);
    let stop = StoredValue::new_local(StopHandle::default());
    // Reading a file: the core's readers, then a plan against the sources already stored.
    let read = Action::new_local(move |file: &web_sys::File| {
        let file = file.clone();
        let store = c.store.get_value();
        async move {
            ready.set(None);
            // Unpacked, inflated and split off the page, in the import worker.
            let history = crate::reader::read(&file, now(), &mut |n| read_so_far.set(Some(n))).await;
            read_so_far.set(None);
            let history = history?;
            let plan = plan_for(&store, &history).await?;
            ready.set(Some(Ready { name: file.name(), history: Rc::new(history), plan: Rc::new(plan) }));
            Ok::<(), String>(())
        }
    });
    // The estimate builds every batch's request: counted a slice at a time, the page
    // answering between slices; the Sleeps follow the choice below without counting again.
    let counted = LocalResource::new(move || {
        let r = ready.get();
        let style = c.provider().proposal_style();
        async move {
            let r = r?;
            let options = ImportOptions::default();
            let mut estimating = Estimating::new(&r.plan, style, &options);
            loop {
                if let Some(done) = estimating.step(BATCHES_PER_TASK) {
                    return Some((r.plan.clone(), done));
                }
                next_task().await;
            }
        }
    });
    let estimate = move || {
        let (plan, e) = counted.get().flatten()?;
        Some(Estimate { sleeps: plan.sleeps(sleep_after.get()), ..e })
    };
    let run = Action::new_local(move |_: &()| {
        let store = c.store.get_value();
        let handle = StopHandle::default();
        stop.set_value(handle.clone());
        let provider = c.provider_for(&handle);
        let options =
            ImportOptions { sleep: sleep_after.get_untracked(), stop: handle.token.clone(), ..Default::default() };
        let r = ready.get_untracked();
        async move {
            let r = r.ok_or("choose a file first")?;
            // Planned again: the memory may have changed since the estimate (a resume).
            let plan = plan_for(&store, &r.history).await?;
            progress.set(Some(Progress { batches: plan.batches.len(), ..Default::default() }));
            let mut on_progress = |p: &Progress| progress.set(Some(p.clone()));
            let result = import_pieces(&store, &provider, &plan, &options, now(), &mut on_progress).await;
            // What is left to import, for a resume.
            if let Ok(plan) = plan_for(&store, &r.history).await {
                ready.set(Some(Ready { plan: Rc::new(plan), ..r }));
            }
            c.bump();
            result
        }
    });
    let running = run.pending();
    let choose = move |file: Option<web_sys::File>| {
        if let Some(file) = file {
            if !running.get_untracked() {
                read.dispatch_local(file);
            }
        }
    };
    view! {
        <section class="history" aria-label="Import your history">
            <h2>"Import your history"</h2>
            <div class="dropzone" data-testid="history-drop"
                on:dragover=move |ev: web_sys::DragEvent| ev.prevent_default()
                on:drop=move |ev: web_sys::DragEvent| {
                    ev.prevent_default();
                    choose(ev.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)));
                }>
                <p class="hint">"A ChatGPT or Claude data export (the .zip as downloaded, or conversations.json), a JSON Lines chat log or a LoCoMo file. Each message you wrote becomes a turn at the time you wrote it and goes through the Encode gate; importing the same file again adds only what is new."</p>
                <label class="file">"Choose or drop a file " <input type="file" data-testid="history-file"
                    accept=".zip,.json,.jsonl,application/zip,application/json"
                    on:change=move |ev| {
                        let input: web_sys::HtmlInputElement = event_target(&ev);
                        choose(input.files().and_then(|f| f.get(0)));
                        input.set_value("");
                    } /></label>
            </div>
            {move || read_so_far.get().map(|n| view! { <p class="status" data-testid="history-reading">{format!("Reading… {n} conversation(s) so far")}</p> })}
            {move || read.value().get().and_then(Result::err).map(|e| view! { <p class="error" role="alert" data-testid="history-error">{e}</p> })}
            {move || ready.get().map(|r| view! { <ReadView ready=r /> })}
            {move || estimate().map(|e| view! { <EstimateView estimate=e sleep_after=sleep_after /> })}
            <div class="controls">
                <button data-testid="history-start"
                    disabled=move || running.get() || ready.with(|r| r.as_ref().is_none_or(|r| r.plan.messages.is_empty()))
                    on:click=move |_| { run.dispatch(()); }>
                    {move || if run.value().with(|r| matches!(r, Some(Ok(r)) if r.stopped)) { "Resume import" } else { "Import" }}
                </button>
                <button data-testid="history-stop" disabled=move || !running.get()
                    on:click=move |_| stop.with_value(StopHandle::stop)>"Stop"</button>
            </div>
            {move || progress.get().map(|p| view! {
                <p data-testid="history-progress">
                    <progress max=p.batches.max(1).to_string() value=p.batches_done.to_string()></progress>
                    {format!(" {} of {} batches · {} turns · {} facts stored · {} refused{}{}",
                        p.batches_done, p.batches, p.turns, p.facts, p.refused,
                        p.day.map(|d| format!(" · up to {d}")).unwrap_or_default(),
                        if p.sleeps > 0 { format!(" · {} Sleep(s)", p.sleeps) } else { String::new() })}
                </p>
            })}
            {move || run.value().get().map(|r| match r {
                Ok(report) => view! { <ReportView report=report /> }.into_any(),
                Err(e) => view! { <p class="error" role="alert" data-testid="history-error">{e}</p> }.into_any(),
            })}
        </section>
    }
}

/// Batches whose requests are built between two returns to the page's event loop (a few
/// milliseconds).
const BATCHES_PER_TASK: usize = 200;

/// Batches an import writes under one hold of the write lock: a chat turn in this or
/// another tab waits at most this many encoder calls to be stored.
const PIECE_BATCHES: usize = 16;

/// Writes `plan` through the one write path (`sync::journal`: recorded for the next sync
/// when the memory syncs), a piece at a time under the write lock, then the Sleep at the
/// end when one was asked for.
async fn import_pieces<P: Provider>(
    store: &IdbStore,
    provider: &P,
    plan: &Plan,
    options: &ImportOptions,
    at: i64,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<Report, String> {
    let keeper = crate::sync::keeper(store);
    let lease = crate::sync::lease(store);
    let journal = crate::sync::journal(store, &keeper);
    let mut report = Report::default();
    let mut seen = Seen::default();
    let mut shown = Progress { batches: plan.batches.len(), ..Default::default() };
    for piece in plan.pieces(PIECE_BATCHES) {
        let before = shown.clone();
        let mut within = |p: &Progress| {
            shown = Progress {
                batches_done: before.batches_done + p.batches_done,
                turns: before.turns + p.turns,
                facts: before.facts + p.facts,
                refused: before.refused + p.refused,
                sleeps: before.sleeps + p.sleeps,
                day: p.day.or(before.day),
                ..before
            };
            on_progress(&shown);
        };
        let written = journal.import(provider, &lease, &piece, options, &mut seen, at, &mut within).await?;
        report.absorb(written.done);
        if report.stopped {
            return Ok(report);
        }
    }
    journal.import_sleep(provider, &lease, options, at, &mut report).await?;
    on_progress(&Progress { sleeps: report.sleeps, ..shown });
    Ok(report)
}

/// Plans `history` against the sources the memory's transcript already holds.
async fn plan_for(store: &IdbStore, history: &History) -> Result<Plan, String> {
    let known: HashSet<String> =
        store.transcript().await.map_err(|e| e.to_string())?.into_iter().filter_map(|t| t.source).collect();
    Ok(import::plan(history, &known, &ImportOptions::default()))
}

#[component]
fn ReadView(ready: Ready) -> impl IntoView {
    let h = &ready.history;
    let s = h.skipped;
    let line = format!(
        "{}: {} — {} conversation(s), {} message(s) you wrote; left out: {} hidden, {} system or tool, {} on abandoned branches, {} without text.",
        ready.name,
        h.format.title(),
        h.conversations.len(),
        h.user_messages(),
        s.hidden,
        s.not_a_turn,
        s.other_branches,
        s.empty
    );
    view! { <p data-testid="history-read">{line}</p> }
}

#[component]
fn EstimateView(estimate: Estimate, sleep_after: RwSignal<SleepAfter>) -> impl IntoView {
    let c = ctx();
    // Rough paces, from this project's measurements: the offline rules and IndexedDB take
    // ~20 ms a batch; a model a second a call plus its prompt (llama.cpp natively reads
    // ~230 tokens/s on two cores, the in-page runtime ~17).
    let (per_call, tokens_per_s) = match c.settings.get_untracked().provider.as_str() {
        "openai" => (1.0, 230.0),
        "inpage" => (1.0, 17.0),
        _ => (0.02, f64::INFINITY),
    };
    let seconds = estimate.seconds(per_call, tokens_per_s);
    let line = if estimate.new_user + estimate.new_assistant == 0 {
        format!("Nothing new to import: all {} message(s) are already in this memory.", estimate.duplicates)
    } else {
        format!(
        "New: {} message(s) of yours and {} repl(ies) over {} day(s); {} already in memory. Encoding: {} model call(s), ~{} prompt tokens, about {}.",
        estimate.new_user,
        estimate.new_assistant,
        estimate.days,
        estimate.duplicates,
        estimate.calls,
        estimate.prompt_tokens,
        duration(seconds)
    )
    };
    let days = estimate.days;
    let radio = move |value: SleepAfter, label: String| {
        view! {
            <label><input type="radio" name="history-sleep" prop:checked=move || sleep_after.get() == value
                on:change=move |_| sleep_after.set(value) />{label}</label>
        }
    };
    view! {
        <p data-testid="history-estimate">{line}</p>
        <fieldset class="history-sleep"><legend>"Then"</legend>
            {radio(SleepAfter::End, "one deep Sleep at the end (1 Sleep)".into())}
            {radio(SleepAfter::EachDay, format!("a Sleep per day of history ({days} Sleeps: slower, ages each day's facts as they were)"))}
            {radio(SleepAfter::Never, "no Sleep now".into())}
        </fieldset>
    }
}

fn duration(seconds: f64) -> String {
    if seconds < 60.0 {
        format!("{} s", seconds.ceil().max(1.0))
    } else if seconds < 3600.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

#[component]
fn ReportView(report: Report) -> impl IntoView {
    let what = if report.stopped {
        "Stopped — import the same file again to resume. So far".to_string()
    } else {
        format!("Imported {} conversation(s):", report.conversations)
    };
    let head = format!(
        "{what} {} of your messages and {} replies stored as turns; {} fact(s) stored, {} refused; {} duplicate(s) skipped{}{}.",
        report.user_turns,
        report.assistant_turns,
        report.facts,
        report.refused,
        report.duplicates,
        if report.too_long > 0 { format!("; {} too long to encode", report.too_long) } else { String::new() },
        if report.sleeps > 0 { format!("; {} Sleep(s)", report.sleeps) } else { String::new() },
    );
    let notes: Vec<String> = report
        .refusals
        .iter()
        .take(5)
        .map(|(why, n)| format!("refused {n}×: {why}"))
        .chain(report.unencoded_why.iter().map(|w| format!("{} turn(s) not encoded: {w}", report.unencoded)))
        .chain(report.held.clone())
        .chain(report.sleep_errors.iter().cloned())
        .collect();
    view! {
        <div data-testid="history-report">
            <p class=if report.stopped { "status" } else { "ok" }>{head}</p>
            <ul>{notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
        </div>
    }
}
