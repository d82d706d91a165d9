//! The Wake quiz and the Verify panel: the product proving itself, in the browser.

use super::{ctx, now};
use crate::jobs::{self, Given, Model, Progress};
use crate::providers::AnyProvider;
use crate::stop::StopHandle;
use leptos::prelude::*;
use nocturne_core::proof::check::Check;
use nocturne_core::proof::compare::Row;

/// Five recall questions and the forgotten probe.
#[component]
pub fn QuizPanel() -> impl IntoView {
    let c = ctx();
    let stop = StoredValue::new_local(StopHandle::default());
    let run = Action::new_local(move |_: &()| {
        let handle = StopHandle::default();
        stop.set_value(handle.clone());
        let provider = c.provider_for(&handle);
        let job = jobs::Quiz { memory: c.memory.get_untracked(), now: now(), model: Model::of(&provider) };
        async move {
            let given = Given { provider: Some(&provider), ..Given::default() };
            let r = jobs::run(job, given, &mut |_| {}).await;
            c.refresh_mode();
            r
        }
    });
    view! {
        <div class="quiz">
            <h2>"Wake quiz"</h2>
            <p class="hint">"Five questions about surviving facts, one about a forgotten one. The answer key is the store, not the model."</p>
            <button class="primary" data-testid="quiz" disabled=move || run.pending().get() on:click=move |_| { run.dispatch(()); }>
                {move || if run.pending().get() { "Asking…" } else { "Wake" }}
            </button>
            <button data-testid="stop-quiz" hidden=move || !run.pending().get() on:click=move |_| stop.get_value().stop()>"Stop"</button>
            {move || run.value().get().map(|r| match r {
                Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
                Ok(rep) => view! {
                    <p data-testid="quiz-score">{format!("{}/{} recalled", rep.correct(), rep.questions.len())}</p>
                    <p data-testid="quiz-cited">{format!(
                        "{}/{} recalled by citation (the answer cited the fact or one derived from it); {} citation(s) outside their prompt refused",
                        rep.cited_correct(), rep.questions.len(), rep.refused_citations()
                    )}</p>
                    <table class="questions">
                        <thead><tr><th>"fact"</th><th>"question"</th><th>"answer"</th><th>"score"</th><th>"cited"</th><th>"attempts"</th></tr></thead>
                        <tbody>
                            {rep.questions.into_iter().map(|q| view! {
                                <tr class:refused=!q.correct>
                                    <td class="wrap">{format!("{} {}", q.item_id, q.fact)}</td>
                                    <td class="wrap">{q.question}{q.refused_questions.into_iter().map(|r| view! { <div class="refused small">{r}</div> }).collect_view()}</td>
                                    <td class="wrap">{q.answer}</td>
                                    <td>{format!("{:.2} {}", q.score, if q.correct { "✓" } else { "✗" })}</td>
                                    <td>{format!("{} {}", if q.cited.is_empty() { "nothing".to_string() } else { q.cited.join(", ") }, if q.cited_correct { "✓" } else { "✗" })}</td>
                                    <td>{q.attempts}</td>
                                </tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                    {match rep.probe {
                        None => view! { <p class="hint">"No fact has been forgotten yet, so there is nothing to probe."</p> }.into_any(),
                        Some(p) => view! {
                            <div class="probe" data-testid="probe">
                                <h3>{format!("Forgotten probe: {}", if p.passed { "passed" } else { "failed" })}</h3>
                                <p>{format!("{} “{}”", p.item_id, p.fact)}</p>
                                <p>{format!("Q: {} — A: {}", p.question, p.answer)}</p>
                                <ul>
                                    <li>{format!("absentFromStore = {}", p.absent_from_store)}</li>
                                    <li>{format!("saidAbsent = {}", p.said_absent)}</li>
                                    <li>{format!("leakedForgottenContent = {}", p.leaked_forgotten_content)}</li>
                                    <li data-testid="probe-cited">{format!(
                                        "by citation: {} (cited {})",
                                        if p.passed_by_citation { "passed" } else { "failed" },
                                        if p.cited.is_empty() { "nothing".to_string() } else { p.cited.join(", ") }
                                    )}</li>
                                </ul>
                            </div>
                        }.into_any(),
                    }}
                }.into_any(),
            })}
        </div>
    }
}

/// The verifier, run against a scratch IndexedDB database (never your memory).
#[component]
pub fn VerifyPanel() -> impl IntoView {
    let c = ctx();
    let checks: RwSignal<Vec<Check>> = RwSignal::new(Vec::new());
    let stop = StoredValue::new_local(StopHandle::default());
    let run = Action::new_local(move |_: &()| {
        let handle = StopHandle::default();
        stop.set_value(handle.clone());
        let provider = c.provider_for(&handle);
        checks.set(Vec::new());
        // The offline provider must show the skill checks pass; a model is only reported.
        let require_skill = matches!(provider.inner, AnyProvider::Offline(_));
        let job = jobs::Verify { now: now(), require_skill, model: Model::of(&provider) };
        async move {
            let given = Given { provider: Some(&provider), ..Given::default() };
            let mut on_check = |p: Progress| {
                if let Progress::Check { check } = p {
                    checks.update(|all| all.push(check))
                }
            };
            let summary = jobs::run(job, given, &mut on_check).await;
            c.refresh_mode();
            summary
        }
    });
    view! {
        <div class="verify">
            <h2>"Verify"</h2>
            <p class="hint">"Runs the scripted conversation, a dry run, a Sleep, the quiz, the policy comparison, the re-audit and every gate case against a scratch database, with the provider chosen in Settings."</p>
            <button class="primary" data-testid="verify" disabled=move || run.pending().get() on:click=move |_| { run.dispatch(()); }>
                {move || if run.pending().get() { "Verifying…" } else { "Verify" }}
            </button>
            <button data-testid="stop-verify" hidden=move || !run.pending().get() on:click=move |_| stop.get_value().stop()>"Stop"</button>
            <ul class="checks" data-testid="checks" aria-live="polite">
                {move || checks.get().into_iter().map(|ch| view! { <li class:fail=!ch.passed && !ch.model_dependent>{ch.line()}</li> }).collect_view()}
            </ul>
            {move || run.value().get().map(|r| match r {
                Ok(summary) => view! { <p data-testid="verify-summary"><b>{summary}</b></p> }.into_any(),
                Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
            })}
        </div>
    }
}

/// The cross-model benchmark in the browser: the scripted conversation, a Sleep and the
/// quiz through the offline provider and, if one is set, the configured endpoint.
#[component]
pub fn ComparePanel() -> impl IntoView {
    let c = ctx();
    let stop = StoredValue::new_local(StopHandle::default());
    let run = Action::new_local(move |_: &()| {
        let handle = StopHandle::default();
        stop.set_value(handle.clone());
        let provider = c.provider_for(&handle);
        // The offline provider's row, and the endpoint's when one is chosen.
        let endpoint = matches!(provider.inner, AnyProvider::Http(_)).then(|| Model::of(&provider));
        let job = jobs::Compare { now: now(), endpoint };
        async move {
            let given = Given { provider: Some(&provider), ..Given::default() };
            let rows = jobs::run(job, given, &mut |_| {}).await;
            c.refresh_mode();
            rows
        }
    });
    view! {
        <div class="compare">
            <h2>"Compare providers"</h2>
            <p class="hint">"The same seeded conversation and Sleep through the offline provider and the endpoint chosen in Settings."</p>
            <button data-testid="compare" disabled=move || run.pending().get() on:click=move |_| { run.dispatch(()); }>
                {move || if run.pending().get() { "Comparing…" } else { "Compare" }}
            </button>
            <button data-testid="stop-compare" hidden=move || !run.pending().get() on:click=move |_| stop.get_value().stop()>"Stop"</button>
            {move || run.value().get().map(|r| match r {
                Ok(rows) => compare_table(rows).into_any(),
                Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
            })}
        </div>
    }
}

fn compare_table(rows: Vec<Row>) -> impl IntoView {
    let pass = |r: &Row, name: &str| {
        r.passes.iter().find(|p| p.0 == name).map_or("—".to_string(), |p| format!("{} / {} / {}", p.1, p.2, p.3))
    };
    view! {
        <table data-testid="compare-table">
            <thead><tr>
                <th>"provider"</th><th>"facts proposed / accepted / refused"</th><th>"dedupe"</th><th>"merge"</th><th>"supersede"</th>
                <th>"promote"</th><th>"forget"</th><th>"inventions"</th><th>"quiz"</th><th>"probe"</th><th>"calls"</th><th>"tokens in / out"</th><th>"time"</th>
            </tr></thead>
            <tbody>
                {rows.iter().map(|r| view! {
                    <tr>
                        <td class="wrap">{r.provider.clone()}</td>
                        <td>{format!("{} / {} / {}", r.facts_proposed, r.facts_accepted, r.facts_refused)}</td>
                        <td>{pass(r, "dedupe")}</td><td>{pass(r, "merge")}</td><td>{pass(r, "supersede")}</td>
                        <td>{pass(r, "promote")}</td><td>{pass(r, "forget")}</td>
                        <td>{r.invention_attempts}</td><td>{format!("{}/{} · {}/{} cited", r.quiz_correct, r.quiz_asked, r.quiz_cited, r.quiz_asked)}</td>
                        <td>{r.error.clone().unwrap_or_else(|| match r.probe_passed { Some(true) => "passed".into(), Some(false) => "failed".into(), None => "—".into() })}</td>
                        <td>{r.calls}</td><td>{format!("{} / {}", r.prompt_tokens, r.completion_tokens)}</td><td>{format!("{:.1} s", r.seconds)}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
        <p class="hint">"Per pass: edits the model proposed / accepted / refused (engine-rule edits not included)."</p>
    }
}
