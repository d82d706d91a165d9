//! The Wake quiz and the Verify panel: the product proving itself, in the browser.

use super::{ctx, now};
use crate::idb::IdbStore;
use crate::providers::AnyProvider;
use leptos::prelude::*;
use nocturne_core::quiz::{self, QuizReport};
use nocturne_core::verify::{self, Check};

/// Five recall questions and the forgotten probe.
#[component]
pub fn QuizPanel() -> impl IntoView {
    let c = ctx();
    let run = Action::new_local(move |_: &()| {
        let store = c.store.get_value();
        let provider = c.provider();
        async move {
            let r: Result<QuizReport, String> = quiz::wake(&store, &provider, now()).await.map_err(|e| e.to_string());
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
            {move || run.value().get().map(|r| match r {
                Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
                Ok(rep) => view! {
                    <p data-testid="quiz-score">{format!("{}/{} recalled", rep.correct(), rep.questions.len())}</p>
                    <table class="questions">
                        <thead><tr><th>"fact"</th><th>"question"</th><th>"answer"</th><th>"score"</th><th>"attempts"</th></tr></thead>
                        <tbody>
                            {rep.questions.into_iter().map(|q| view! {
                                <tr class:refused=!q.correct>
                                    <td class="wrap">{format!("{} {}", q.item_id, q.fact)}</td>
                                    <td class="wrap">{q.question}{q.refused_questions.into_iter().map(|r| view! { <div class="refused small">{r}</div> }).collect_view()}</td>
                                    <td class="wrap">{q.answer}</td>
                                    <td>{format!("{:.2} {}", q.score, if q.correct { "✓" } else { "✗" })}</td>
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
    let run = Action::new_local(move |_: &()| {
        let provider = c.provider();
        checks.set(Vec::new());
        async move {
            let name = "nocturne-verify";
            IdbStore::delete(name).await.map_err(|e| e.to_string())?;
            let store = IdbStore::open(name).await.map_err(|e| e.to_string())?;
            let require_skill = matches!(provider, AnyProvider::Offline(_));
            let options = verify::VerifyOptions { now: now(), require_skill, cases: nocturne_core::case::bundled() };
            let report = verify::verify(&store, &provider, &options, &mut |check| {
                let check = check.clone();
                checks.update(|all| all.push(check));
            })
            .await;
            store.close();
            c.refresh_mode();
            Ok::<String, String>(report.summary(require_skill))
        }
    });
    view! {
        <div class="verify">
            <h2>"Verify"</h2>
            <p class="hint">"Runs the scripted conversation, a dry run, a Sleep, the quiz, the policy comparison, the re-audit and every gate case against a scratch database, with the provider chosen in Settings."</p>
            <button class="primary" data-testid="verify" disabled=move || run.pending().get() on:click=move |_| { run.dispatch(()); }>
                {move || if run.pending().get() { "Verifying…" } else { "Verify" }}
            </button>
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
