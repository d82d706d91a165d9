//! Forget by value (`gate::forget`, issue 47): the default retires what can no longer answer a
//! question truthfully — a passing state after its while, a commitment past its date —
//! never a durable fact for being old or the memory for being large; each rule's claim is
//! checked against the fact, and a store on the old default moves with a logged note.

use nocturne_core::flow::{chat, edit, sleep};
use nocturne_core::gate::{Ground, Judge, Verdict};
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::model::memory::{Block, Item};
use nocturne_core::model::pass::MutationKind;
use nocturne_core::model::policy::RetentionPolicy;
use nocturne_core::proof::audit;
use nocturne_core::store::{MemStore, Store};
use nocturne_core::{PassKind, DAY};
use serde_json::json;
use std::collections::BTreeMap;

const NOW: i64 = 1_767_225_600; // 2026-01-01

fn block<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

fn fact(id: &str, text: &str, category: &str, days_ago: i64) -> Item {
    Item { item_id: id.into(), ..Item::new_fact(0, Block::Scratch, category, text, NOW - days_ago * DAY) }
}

/// The Forget gate's verdict on `proposal` over `items` under `policy` at `NOW`.
fn forget(items: &[Item], policy: &RetentionPolicy, proposal: serde_json::Value) -> Verdict {
    let items: BTreeMap<String, Item> = items.iter().map(|i| (i.item_id.clone(), i.clone())).collect();
    let ground = Ground { items: &items, policy, now: NOW, transcript: &[], turns: &[] };
    Judge::new(PassKind::Forget, ground).judge(&proposal)
}

fn refusal(v: &Verdict) -> &str {
    v.refusal().unwrap_or("(accepted)")
}

#[test]
fn a_passing_state_goes_after_its_while_and_a_durable_fact_claimed_passing_is_refused() {
    let policy = RetentionPolicy::default();
    let items = [
        fact("m_1", "I'm exhausted today.", "identity", 3),
        fact("m_2", "I keep bees.", "context", 400),
        fact("m_3", "I'm swamped this week.", "context", 0),
        fact("m_4", "I went to Japan last year.", "event", 400),
        fact("m_5", "I'm vegan.", "context", 400),
        fact("m_6", "I'm sick at the moment.", "context", 3),
    ];
    let claim = |id: &str, rule: &str| json!({"itemId": id, "reason": "over", "policy": rule});
    // Three days on, the tired day is over: accepted, recorded as a passing state.
    let v = forget(&items, &policy, claim("m_1", "transient"));
    assert!(v.is_accepted(), "{}", refusal(&v));
    let Verdict::Accept(edit) = &v else { panic!("accepted") };
    assert!(edit.evidence().contains("passing state whose while ended 2025-12-29"), "{}", edit.evidence());
    // The planted fault: a careless model calls a durable fact passing.
    let v = forget(&items, &policy, claim("m_2", "transient"));
    assert!(
        refusal(&v).contains("was called a passing state") && refusal(&v).contains("says no passing state"),
        "{}",
        refusal(&v)
    );
    let v = forget(&items, &policy, claim("m_5", "transient"));
    assert!(refusal(&v).contains("names no while that ends"), "{}", refusal(&v));
    // A passing state whose week is not over yet stays.
    let v = forget(&items, &policy, claim("m_3", "transient"));
    assert!(refusal(&v).contains("kept 1 day(s) after that"), "{}", refusal(&v));
    // Old is no reason by default: an event of last year is what a later question asks.
    let v = forget(&items, &policy, claim("m_4", "stale"));
    assert!(refusal(&v).contains("forgetting by age is off"), "{}", refusal(&v));
    // Where the user forgets by age, it goes.
    let by_age = RetentionPolicy { stale_after_days: Some(30.0), ..Default::default() };
    assert!(forget(&items, &by_age, claim("m_4", "stale")).is_accepted());
    // And a policy that keeps passing states keeps them.
    let keep = RetentionPolicy { transient_grace_days: None, ..Default::default() };
    assert!(refusal(&forget(&items, &keep, claim("m_6", "transient"))).contains("this policy keeps those"));
}

#[test]
fn a_store_on_the_old_default_moves_to_forget_by_value_with_a_logged_note() {
    let store = MemStore::new();
    let old = RetentionPolicy {
        stale_after_days: Some(30.0),
        max_active_facts: Some(120),
        transient_grace_days: None,
        ..Default::default()
    };
    block(store.set_policy(old)).expect("policy");
    block(chat::chat_turn(
        &store,
        &OfflineProvider,
        "I went to the Lisbon marathon last week.",
        NOW - 90 * DAY,
        chat::TurnOptions::default(),
    ))
    .expect("turn");
    // A dry run says what would happen and writes nothing.
    let dry =
        block(sleep::sleep(&store, &OfflineProvider, &sleep::SleepOptions::new(NOW).dry(), &mut |_| {})).expect("dry");
    assert!(dry.policy_note.as_deref().is_some_and(|n| n.contains("old default")), "{:?}", dry.policy_note);
    assert_eq!(block(store.meta()).expect("meta").policy.stale_after_days, Some(30.0));
    let report =
        block(sleep::sleep(&store, &OfflineProvider, &sleep::SleepOptions::new(NOW), &mut |_| {})).expect("sleep");
    assert!(report.policy_note.is_some());
    let policy = block(store.meta()).expect("meta").policy;
    assert_eq!((policy.stale_after_days, policy.max_active_facts), (None, None));
    let items = block(store.items()).expect("items");
    assert!(items.iter().all(|i| i.active), "the 90-day-old event is kept under the new default");
    let log = block(store.mutations()).expect("log");
    let moved: Vec<_> = log.iter().filter(|m| m.kind == MutationKind::Policy).collect();
    assert_eq!(moved.len(), 1);
    assert!(moved[0].reason.contains("forgets by value"), "{}", moved[0].reason);
    // A second Sleep moves nothing.
    let again =
        block(sleep::sleep(&store, &OfflineProvider, &sleep::SleepOptions::new(NOW + 60), &mut |_| {})).expect("sleep");
    assert!(again.policy_note.is_none());
    assert!(block(audit::audit(&store)).expect("audit").problems.is_empty());
}

#[test]
fn the_audit_judges_each_forgetting_under_the_policy_of_its_day() {
    // Forgotten by age under the user's policy, then the user turns that rule off.
    let by_age = || {
        let store = MemStore::new();
        block(store.set_policy(nocturne_core::testkit::article_policy())).expect("policy");
        block(chat::chat_turn(
            &store,
            &OfflineProvider,
            "The garden gate squeaks at night.",
            NOW - 90 * DAY,
            chat::TurnOptions::default(),
        ))
        .expect("turn");
        block(sleep::sleep(&store, &OfflineProvider, &sleep::SleepOptions::new(NOW), &mut |_| {})).expect("sleep");
        assert!(block(store.items()).expect("items").iter().all(|i| !i.active), "forgotten by age");
        store
    };
    let store = by_age();
    let changed = block(edit::set_policy(&store, RetentionPolicy::default(), NOW + 60)).expect("set");
    assert!(changed.is_some_and(|c| c.contains("forget by age: 30 days → off")));
    assert!(block(audit::audit(&store)).expect("audit").problems.is_empty());
    // The planted fault: the same change made without its log entry leaves the old
    // forgetting unjustifiable under the policy the audit can see.
    let store = by_age();
    block(store.set_policy(RetentionPolicy::default())).expect("unlogged");
    let problems = block(audit::audit(&store)).expect("audit").problems;
    assert!(problems.iter().any(|p| p.problem.contains("recorded under 'stale'")), "{problems:?}");
}

/// LoCoMo conversation 42: `I'm hiking with some buddies this weekend.` was retired as a
/// passing state, and a later "when did he go hiking?" lost its evidence. A progressive
/// names an activity — a plan, then history — unless it is a condition (`feeling`, `doing
/// well`).
#[test]
fn regression_an_activity_this_weekend_is_not_a_passing_state() {
    let policy = RetentionPolicy::default();
    let items = [
        fact("m_1", "I'm hiking with some buddies this weekend.", "context", 10),
        fact("m_2", "I'm taking some time off this weekend to chill with my pets.", "context", 10),
        fact("m_3", "I'm feeling awful this weekend.", "context", 10),
        fact("m_4", "I'm doing well today.", "context", 10),
    ];
    let claim = |id: &str| json!({"itemId": id, "reason": "over", "policy": "transient"});
    for id in ["m_1", "m_2"] {
        let v = forget(&items, &policy, claim(id));
        assert!(refusal(&v).contains("says no passing state"), "{id}: {}", refusal(&v));
    }
    for id in ["m_3", "m_4"] {
        let v = forget(&items, &policy, claim(id));
        assert!(v.is_accepted(), "{id}: {}", refusal(&v));
    }
}
