//! A reviewed Sleep through `flow::review` over MemStore: the plan writes
//! nothing; applying takes exactly the approved edits, judged again on the memory as it is
//! then, and logs the rest as not approved; a second apply applies nothing.

use nocturne_core::flow::review::{self, Decisions, Review, ReviewError};
use nocturne_core::flow::sleep::SleepOptions;
use nocturne_core::flow::{chat, edit};
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::model::label::Label;
use nocturne_core::model::memory::Mutation;
use nocturne_core::proof::{audit, verify};
use nocturne_core::store::{MemStore, Store};
use nocturne_core::DAY;

const NOW: i64 = 1_767_225_600;

fn block<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

/// The verifier's scripted conversation, through the real chat path.
fn seeded() -> MemStore {
    let store = MemStore::new();
    for (days, text) in verify::SCRIPT {
        block(chat::chat_turn(
            &store,
            &OfflineProvider,
            text,
            NOW - (days * DAY as f64) as i64,
            chat::TurnOptions::default(),
        ))
        .expect("chat turn");
    }
    store
}

fn planned(store: &MemStore) -> Review {
    block(review::plan(store, &OfflineProvider, &SleepOptions::new(NOW), &mut |_| {})).expect("plan")
}

/// The log entries an apply wrote for `plan`.
fn entries<'a>(log: &'a [Mutation], plan: &Review) -> Vec<&'a Mutation> {
    log.iter().filter(|m| m.refs.review.as_deref().is_some_and(|r| r.starts_with(&plan.id))).collect()
}

#[test]
fn a_review_plans_every_edit_and_writes_nothing() {
    let store = seeded();
    let before = store.document();
    let plan = planned(&store);
    assert_eq!(store.document(), before, "planning wrote nothing");
    assert_eq!(plan.planned_on, before.meta.head);
    assert!(plan.edits.len() >= 5, "{} edits", plan.edits.len());
    let ids: Vec<String> = (1..=plan.edits.len()).map(|n| format!("r{n}")).collect();
    assert_eq!(plan.edits.iter().map(|e| e.id.clone()).collect::<Vec<_>>(), ids, "stable ids in order");
    // Each accepted edit says what it does to its facts; each refused one why.
    for e in &plan.edits {
        match &e.refused {
            None => assert!(e.facts.iter().any(|c| c.before != c.after), "{}: {:?}", e.id, e.facts),
            Some(why) => {
                assert!(!why.is_empty());
                assert!(e.facts.iter().all(|c| c.before == c.after), "{}: a refused edit changes nothing", e.id);
            }
        }
    }
    // The same memory planned again gives the same plan, id included; the file reads back.
    assert_eq!(planned(&store), plan);
    let text = serde_json::to_string_pretty(&plan).expect("json");
    assert_eq!(Review::parse(&text).expect("parse"), plan);
    let wrong = text.replace(review::FORMAT, "nocturne-review/0");
    assert!(matches!(Review::parse(&wrong), Err(ReviewError::Format(_))));
}

#[test]
fn applying_only_the_chosen_edits_logs_the_rest_as_not_approved() {
    let store = seeded();
    let plan = planned(&store);
    let accepted: Vec<&str> = plan.edits.iter().filter(|e| e.refused.is_none()).map(|e| e.id.as_str()).collect();
    assert!(accepted.len() >= 3, "{accepted:?}");
    let (chosen, rejected) = (&accepted[..2], accepted[2]);
    let decisions = Decisions::only(chosen.iter().copied()).reject(rejected, "I still need that one");
    let versions = block(store.versions()).expect("versions").len();
    let applied = block(review::apply(&store, &plan, &decisions, NOW + 60, &mut |_| {})).expect("apply");
    assert_eq!(applied.applied, 2, "{}", applied.summary(&plan));
    assert_eq!(applied.not_approved, accepted.len() - 2);
    assert_eq!(applied.refused_now, 0);
    assert_eq!(applied.refused_when_planned, plan.edits.len() - accepted.len());
    // One Sleep: its start marker and a version before and after each pass.
    let new: Vec<Label> = block(store.versions()).expect("versions")[versions..].iter().map(|v| v.kind()).collect();
    assert_eq!(new.first(), Some(&Label::SleepStart));
    assert_eq!(new.len(), 11, "{new:?}");
    let log = block(store.mutations()).expect("log");
    let mine = entries(&log, &plan);
    assert_eq!(mine.len(), plan.edits.len(), "every edit of the plan is in the log once");
    let applied_refs: Vec<&str> = mine.iter().filter(|m| m.accepted).filter_map(|m| m.refs.review.as_deref()).collect();
    assert_eq!(applied_refs, chosen.iter().map(|id| plan.reference(id)).collect::<Vec<_>>());
    let user_reason = mine.iter().find(|m| m.refs.review.as_deref() == Some(&plan.reference(rejected))).expect("r");
    assert_eq!(user_reason.rejection_reason.as_deref(), Some("not approved by the user: I still need that one"));
    let unchosen = mine.iter().filter(|m| {
        m.rejection_reason.as_deref().is_some_and(|r| r.starts_with("not approved by the user (not among"))
    });
    assert_eq!(unchosen.count(), accepted.len() - 3);
    assert!(block(audit::audit(&store)).expect("audit").problems.is_empty());

    // A second apply applies nothing, and says why.
    let head = block(store.meta()).expect("meta").head;
    let again = block(review::apply(&store, &plan, &Decisions::all(), NOW + 120, &mut |_| {})).expect("again");
    assert!(again.report.is_none() && again.already == plan.edits.len());
    assert!(again.summary(&plan).contains("a plan applies at most once"), "{}", again.summary(&plan));
    assert_eq!(block(store.meta()).expect("meta").head, head, "nothing written");
}

#[test]
fn an_approved_edit_whose_fact_changed_meanwhile_is_refused_with_the_gates_reason() {
    let store = seeded();
    let plan = planned(&store);
    // An approved edit that retires a fact, and the user forgets that fact before applying.
    let target = plan
        .edits
        .iter()
        .find(|e| e.refused.is_none() && e.facts.iter().any(|c| c.before.active && !c.after.active))
        .expect("an edit retiring a fact");
    let gone = target.facts.iter().find(|c| c.before.active && !c.after.active).expect("fact").item_id.clone();
    let forget = edit::UserEdit::Forget { item_id: gone.clone(), reason: "no longer true".into() };
    block(edit::apply(&store, &forget, NOW + 30)).expect("forget");
    let applied = block(review::apply(&store, &plan, &Decisions::only([target.id.as_str()]), NOW + 60, &mut |_| {}))
        .expect("apply");
    assert_eq!((applied.applied, applied.refused_now), (0, 1), "{}", applied.summary(&plan));
    assert!(applied.moved.is_some_and(|(from, to)| to > from), "{:?}", applied.moved);
    let log = block(store.mutations()).expect("log");
    let entry = entries(&log, &plan)
        .into_iter()
        .find(|m| m.refs.review.as_deref() == Some(&plan.reference(&target.id)))
        .expect("logged");
    let why = entry.rejection_reason.as_deref().unwrap_or("");
    assert!(!entry.accepted && !why.starts_with("not approved") && why.contains(&gone), "{why}");
}

#[test]
fn a_decision_naming_an_edit_the_plan_lacks_writes_nothing() {
    let store = seeded();
    let plan = planned(&store);
    let before = store.document();
    let err = block(review::apply(&store, &plan, &Decisions::only(["r999"]), NOW, &mut |_| {})).unwrap_err();
    assert!(err.to_string().contains("has no edit r999"), "{err}");
    let err = block(review::apply(&store, &plan, &Decisions::all().reject("x1", "no"), NOW, &mut |_| {})).unwrap_err();
    assert!(err.to_string().contains("has no edit x1"), "{err}");
    assert_eq!(store.document(), before);
}
