//! Bring your history: a ChatGPT or Claude export (the `.zip` as downloaded, or its
//! `conversations.json`), a JSON Lines log or a LoCoMo file, chosen or dropped on the page;
//! the estimate before anything runs, then progress with Stop, then what was imported.
//! Nothing of it runs on the page: the job worker (`crate::jobs`) has the file read in the
//! import worker (`reader`: the core's readers in a wasm module of their own), plans and
//! estimates it, and imports it with the core's `flow::import` through the one write path,
//! a few batches at a time under the write lock, so a chat in this or another tab waits
//! those, not the whole import. The page keeps the `File` and reads nothing of it.

use super::{ctx, now};
use crate::jobs::{self, Given, Model, Progress};
use crate::stop::StopHandle;
use leptos::prelude::*;
use nocturne_core::flow::import::{self, Report};
use nocturne_core::flow::import_plan::{Estimate, SleepAfter};
use nocturne_core::llm::provider::Provider;

/// A file read and planned, waiting for the user to start it.
#[derive(Clone)]
struct Ready {
    file: web_sys::File,
    read: jobs::HistorySummary,
    /// When it was read: what the file leaves undated is dated so (also when imported).
    at: i64,
}

/// The import panel.
#[component]
pub fn HistoryImport() -> impl IntoView {
    let c = ctx();
    let sleep_after = RwSignal::new(SleepAfter::End);
    let ready: RwSignal<Option<Ready>, LocalStorage> = RwSignal::new_local(None);
    let progress: RwSignal<Option<import::Progress>> = RwSignal::new(None);
    let read_so_far: RwSignal<Option<usize>> = RwSignal::new(None);
    let stop = StoredValue::new_local(StopHandle::default());
    // Reading a file, in the job worker: the import reader's worker unpacks and splits it, then
    // a plan against the sources already stored, and its estimate.
    let read = Action::new_local(move |file: &web_sys::File| {
        let file = file.clone();
        let at = now();
        let job = jobs::Read { memory: c.memory.get_untracked(), now: at, style: c.provider().proposal_style() };
        async move {
            ready.set(None);
            let mut on_progress = |p: Progress| {
                if let Progress::Reading { conversations } = p {
                    read_so_far.set(Some(conversations))
                }
            };
            let done = jobs::run(job, Given { file: Some(&file), ..Given::default() }, &mut on_progress).await;
            read_so_far.set(None);
            let read = done?;
            ready.set(Some(Ready { file, read, at }));
            Ok::<(), String>(())
        }
    });
    let estimate = move || {
        let r = ready.get()?;
        let sleeps = r.read.sleeps.iter().find(|(a, _)| *a == sleep_after.get()).map_or(0, |(_, n)| *n);
        Some(Estimate { sleeps, ..r.read.estimate })
    };
    let run = Action::new_local(move |_: &()| {
        let handle = StopHandle::default();
        stop.set_value(handle.clone());
        let provider = c.provider_for(&handle);
        let r = ready.get_untracked();
        let memory = c.memory.get_untracked();
        let sleep = sleep_after.get_untracked();
        async move {
            let r = r.ok_or("choose a file first")?;
            // In the job worker: the file read again and planned again (the memory may have
            // changed since the estimate: a resume), then written through the one write path.
            let job = jobs::Import { memory, read_at: r.at, now: now(), sleep, model: Model::of(&provider) };
            let given = Given { provider: Some(&provider), file: Some(&r.file), ..Given::default() };
            let mut on_progress = |p: Progress| {
                if let Progress::Import { progress: p } = p {
                    progress.set(Some(p))
                }
            };
            let done = jobs::run(job, given, &mut on_progress).await;
            c.bump();
            c.refresh_mode();
            let jobs::Imported { report, left } = done?;
            // What is left to import, for a resume.
            ready.set(Some(Ready { read: left, ..r }));
            Ok::<Report, String>(report)
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
                // Named by what it imports: the page has a second file input, for a memory export.
                <label class="file">"Chat history to import (choose, or drop it on this box): " <input type="file" data-testid="history-file"
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
                    disabled=move || running.get() || ready.with(|r| r.as_ref().is_none_or(|r| r.read.new == 0))
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

#[component]
fn ReadView(ready: Ready) -> impl IntoView {
    view! { <p data-testid="history-read">{ready.read.line}</p> }
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
