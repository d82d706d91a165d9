//! The verifier's recall steps, after its Sleep: the Wake quiz with its forgotten and
//! superseded probes and its citations, and a promise that falls due — kept until its
//! grace ends, forgotten after it.

use crate::flow::report::SleepReport;
use crate::flow::sleep::{self, SleepOptions};
use crate::llm::provider::Provider;
use crate::model::DAY;
use crate::proof::check::Recorder;
use crate::proof::quiz;
use crate::store::Store;
use crate::text::{order, textmath};

/// 10. Wake quiz, the forgotten probe and the superseded probe.
pub(crate) async fn wake<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    now: i64,
    r: &mut Recorder<'_>,
) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let quiz = quiz::wake(store, provider, now).await.map_err(|x| e(&x))?;
    // Measured here, not with the quiz's own filter: the share of the answer's content
    // tokens that a question gives away.
    let gives_away = |question: &str, fact: &str| {
        let answer = textmath::content_tokens(fact);
        let asked = textmath::content_tokens(question);
        if answer.is_empty() {
            1.0
        } else {
            answer.intersection(&asked).count() as f64 / answer.len() as f64
        }
    };
    let asked = quiz.questions.iter().filter(|q| !q.question.is_empty()).count();
    let leaking =
        quiz.questions.iter().filter(|q| !q.question.is_empty() && gives_away(&q.question, &q.fact) >= 0.5).count();
    r.check(
        "quiz questions",
        asked == quiz::QUESTIONS && leaking == 0,
        true,
        format!(
            "{asked} of {} question(s) asked, {leaking} giving away half its answer or more; {} generated question(s) refused for leaking",
            quiz::QUESTIONS,
            quiz.questions.iter().map(|q| q.refused_questions.len()).sum::<usize>()
        ),
    );
    r.check(
        "quiz recall",
        quiz.questions.len() == quiz::QUESTIONS && quiz.correct() == quiz::QUESTIONS,
        true,
        format!(
            "{}/{} correct by words, {}/{} by citations (attempts: {})",
            quiz.correct(),
            quiz.questions.len(),
            quiz.cited_correct(),
            quiz.questions.len(),
            quiz.questions.iter().map(|q| q.attempts.to_string()).collect::<Vec<_>>().join(",")
        ),
    );
    citations(&quiz, r);
    match &quiz.probe {
        Some(p) => {
            r.check(
                "forgotten absent from store",
                p.absent_from_store,
                false,
                // The line says what was found: a failing run once read "has no active match".
                if p.absent_from_store {
                    format!("{} \"{}\" has no active match >= 0.9", p.item_id, p.fact)
                } else {
                    format!("{} \"{}\" was forgotten, but an active fact still matches it >= 0.9", p.item_id, p.fact)
                },
            );
            r.check(
                "forgotten probe",
                p.passed,
                true,
                format!(
                    "\"{}\" -> \"{}\": absentFromStore={} saidAbsent={} leakedForgottenContent={}",
                    p.question, p.answer, p.absent_from_store, p.said_absent, p.leaked_forgotten_content
                ),
            );
            r.check(
                "forgotten probe by citation",
                p.passed_by_citation,
                true,
                format!(
                    "cited {}{}",
                    if p.cited.is_empty() { "nothing".to_string() } else { p.cited.join(", ") },
                    if p.said_absent { ", and abstained" } else { "" }
                ),
            );
        }
        None => {
            r.check("forgotten probe", false, true, "the Sleep forgot nothing, so there is nothing to probe".into())
        }
    }

    if let Some(s) = &quiz.superseded {
        r.check(
            "superseded probe",
            s.passed,
            true,
            format!(
                "\"{}\" -> \"{}\": current value given={} superseded value given={}",
                s.question, s.answer, s.gave_current, s.gave_superseded
            ),
        );
    }

    Ok(())
}

/// The quiz scored through citations: recall by citation, and no citation outside its prompt.
fn citations(quiz: &quiz::QuizReport, r: &mut Recorder<'_>) {
    r.check(
        "quiz recall by citation",
        quiz.questions.len() == quiz::QUESTIONS && quiz.cited_correct() == quiz::QUESTIONS,
        true,
        format!(
            "{}/{} answers cited the probed fact or one derived from it ({} by words); cited: {}",
            quiz.cited_correct(),
            quiz.questions.len(),
            quiz.correct(),
            quiz.questions
                .iter()
                .map(|q| if q.cited.is_empty() { "-".to_string() } else { q.cited.join("+") })
                .collect::<Vec<_>>()
                .join(",")
        ),
    );
    r.check(
        "citations within prompts",
        quiz.refused_citations() == 0,
        true,
        format!("{} citation(s) of a fact the answer's prompt did not carry, refused", quiz.refused_citations()),
    );
}

/// What the verifier asks about the script's dated commitment (no word of its date).
pub const DUE_QUESTION: &str = "When is the thesis review due?";

/// Step 11, time: the script's dated commitment is recalled with its date, and the clock
/// is moved past it (dry runs, nothing written), so a Sleep keeps it through its grace and
/// retires it after, under the due rule. That rule is the engine's: the offline provider
/// drives these two dry runs, the decision is the code's.
pub(crate) async fn falls_due<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    now: i64,
    r: &mut Recorder<'_>,
) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let policy = store.meta().await.map_err(|x| e(&x))?.policy;
    let items = store.items().await.map_err(|x| e(&x))?;
    let mut active: Vec<&crate::model::memory::Item> = items.iter().filter(|i| i.active).collect();
    order::sort_by_key(&mut active, |i| (i.block, i.ordinal()));
    let promise = active.iter().find(|i| i.is_commitment() && i.text.contains("thesis"));
    let (Some(fact), Some(grace)) = (promise.filter(|i| i.when().is_some()), policy.commitment_grace_days) else {
        let why = if policy.commitment_grace_days.is_none() {
            "the policy has no commitmentGraceDays"
        } else {
            "insufficient evidence: no dated commitment about the thesis is active after the Sleep"
        };
        r.check("commitment falls due", false, promise.is_none(), why.into());
        return Ok(());
    };
    let due = fact.when().map_or(crate::text::when::Day(0), |w| w.last());
    // Asked as chat asks: the same retrieval, style and citations.
    let index = crate::llm::context::PromptIndex::new(&active, &policy, now);
    let reply =
        crate::flow::chat::answer(provider, &index, &[], DUE_QUESTION, &mut |_| {}).await.map_err(|x| e(&x))?.text;
    r.check(
        "temporal recall",
        reply.contains(&due.to_string()),
        true,
        format!("\"{DUE_QUESTION}\" -> \"{}\" (due {due})", reply.trim()),
    );
    let grace_ends = due.plus_days(1).start() + (grace * DAY as f64) as i64;
    let forgot = |report: &SleepReport| {
        report.passes.iter().flat_map(|p| &p.mutations).find(|m| m.accepted && m.item_id == fact.item_id).cloned()
    };
    let offline = crate::llm::offline::OfflineProvider;
    let before = sleep::sleep(store, &offline, &SleepOptions::new(grace_ends - 3600).dry(), &mut |_| {})
        .await
        .map_err(|x| e(&x))?;
    let after = sleep::sleep(store, &offline, &SleepOptions::new(grace_ends + DAY).dry(), &mut |_| {})
        .await
        .map_err(|x| e(&x))?;
    let retired = forgot(&after);
    let kept = forgot(&before).is_none();
    let by_due = retired
        .as_ref()
        .is_some_and(|m| m.policy.as_deref() == Some("due") && m.reason.starts_with(&format!("due {due}")));
    r.check(
        "commitment falls due",
        kept && by_due,
        false,
        format!(
            "{} \"{}\" due {due}, grace {grace} days: kept by a Sleep an hour before the grace ends: {kept}; a Sleep a day after: {}",
            fact.item_id,
            fact.text,
            retired.map_or("kept".to_string(), |m| format!("forgotten under {} ({})", m.policy.unwrap_or_default(), m.reason))
        ),
    );
    Ok(())
}
