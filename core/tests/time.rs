//! Memory that knows when: a commitment due Friday is kept by every Sleep until Friday
//! plus the grace period and forgotten by the first Sleep after, with the date in the
//! log; the chat prompt says what day it is and when the commitment is due.

use nocturne_core::flow::{chat, sleep};
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::llm::provider::{Completion, Provider, ProviderError, Request, Task};
use nocturne_core::store::{MemStore, Store};
use nocturne_core::text::when::Day;
use std::cell::RefCell;

fn block<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

/// Noon UTC of a December 2026 day.
fn december(day: u32) -> i64 {
    Day::from_ymd(2026, 12, day).expect("a date").start() + 12 * 3600
}

/// The offline provider, keeping the last chat system prompt it was sent.
#[derive(Default)]
struct Watching {
    system: RefCell<String>,
}

impl Provider for Watching {
    fn label(&self) -> String {
        "watching offline".into()
    }

    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        if request.task == Task::Chat {
            *self.system.borrow_mut() = request.messages[0].content.clone();
        }
        OfflineProvider.complete(request).await
    }
}

const PROMISE: &str = "I promised Ana I would review her thesis by Friday.";

fn promise(store: &MemStore) -> Option<nocturne_core::Item> {
    block(store.items()).expect("items").into_iter().find(|i| i.text.contains("thesis"))
}

#[test]
fn a_commitment_due_friday_is_kept_until_its_grace_ends_and_forgotten_by_the_next_sleep() {
    let store = MemStore::new();
    let provider = Watching::default();
    // Said on Wednesday 2026-12-02; Friday is 2026-12-04; the grace is 7 days.
    block(chat::chat_turn(&store, &provider, PROMISE, december(2), chat::TurnOptions::default())).expect("turn");
    let fact = promise(&store).expect("the promise is stored");
    assert_eq!(fact.category, nocturne_core::model::category::Category::Commitments);
    assert_eq!(fact.when().map(|w| w.to_string()).as_deref(), Some("2026-12-04"));
    assert_eq!(block(store.meta()).expect("meta").policy.commitment_grace_days, Some(7.0));

    block(chat::chat_turn(
        &store,
        &provider,
        "When is the thesis review due?",
        december(3),
        chat::TurnOptions::default(),
    ))
    .expect("turn");
    let system = provider.system.borrow().clone();
    assert!(system.contains("Today is 2026-12-03 (Thursday); a day without a year is in 2026."), "{system}");
    assert!(system.contains("said on 2 Dec:"), "the heading leaves this year out: {system}");
    assert!(system.contains("due 2026-12-04, tomorrow"), "{system}");

    // Every Sleep up to the end of the grace (Friday + 7 days, through 2026-12-11) keeps it.
    for day in 2..=11 {
        let report =
            block(sleep::sleep(&store, &OfflineProvider, &sleep::SleepOptions::new(december(day)), &mut |_| {}))
                .expect("sleep");
        assert!(promise(&store).is_some_and(|i| i.active), "forgotten on 2026-12-{day:02}: {report:?}");
    }
    // The first Sleep after it forgets it, and says why.
    block(sleep::sleep(&store, &OfflineProvider, &sleep::SleepOptions::new(december(12)), &mut |_| {})).expect("sleep");
    let fact = promise(&store).expect("still stored, inactive");
    assert!(!fact.active, "kept after its grace ended");
    let mutations = block(store.mutations()).expect("mutations");
    let why = mutations
        .iter()
        .find(|m| m.accepted && m.item_id == fact.item_id && m.policy.as_deref() == Some("due"))
        .expect("a forgetting under the due rule");
    assert_eq!(why.reason, "due 2026-12-04, 8 days ago");
    assert_eq!(why.at, december(12));
}

#[test]
fn a_commitment_in_a_policy_without_a_grace_is_protected_for_good() {
    let store = MemStore::new();
    block(chat::chat_turn(&store, &OfflineProvider, PROMISE, december(2), chat::TurnOptions::default())).expect("turn");
    let mut policy = block(store.meta()).expect("meta").policy;
    policy.commitment_grace_days = None;
    block(store.set_policy(policy)).expect("policy");
    block(sleep::sleep(&store, &OfflineProvider, &sleep::SleepOptions::new(december(2) + 400 * 86_400), &mut |_| {}))
        .expect("sleep");
    assert!(promise(&store).is_some_and(|i| i.active), "the commitments category's protection holds without a grace");
}

#[test]
fn an_event_mentioned_today_but_held_last_year_is_stale() {
    let store = MemStore::new();
    block(store.set_policy(nocturne_core::testkit::article_policy())).expect("forgetting by age, as the user sets it");
    block(chat::chat_turn(
        &store,
        &OfflineProvider,
        "I went to Japan last year.",
        december(2),
        chat::TurnOptions::default(),
    ))
    .expect("turn");
    block(chat::chat_turn(
        &store,
        &OfflineProvider,
        "I went to the dentist yesterday.",
        december(2),
        chat::TurnOptions::default(),
    ))
    .expect("turn");
    block(sleep::sleep(&store, &OfflineProvider, &sleep::SleepOptions::new(december(3)), &mut |_| {})).expect("sleep");
    let items = block(store.items()).expect("items");
    let japan = items.iter().find(|i| i.text.contains("Japan")).expect("japan");
    let dentist = items.iter().find(|i| i.text.contains("dentist")).expect("dentist");
    assert!(!japan.active, "staleness counts from when it happened (2025)");
    assert!(dentist.active, "yesterday is not stale");
}

#[test]
fn by_default_a_trip_last_year_is_kept_and_a_state_of_one_day_goes_the_day_after() {
    let store = MemStore::new();
    block(chat::chat_turn(
        &store,
        &OfflineProvider,
        "I went to Japan last year.",
        december(2),
        chat::TurnOptions::default(),
    ))
    .expect("turn");
    block(chat::chat_turn(&store, &OfflineProvider, "I'm exhausted today.", december(2), chat::TurnOptions::default()))
        .expect("turn");
    let tired = |s: &MemStore| block(s.items()).expect("items").into_iter().find(|i| i.text.contains("exhausted"));
    // The day after, within its grace, the passing state stays.
    block(sleep::sleep(&store, &OfflineProvider, &sleep::SleepOptions::new(december(3)), &mut |_| {})).expect("sleep");
    assert!(tired(&store).is_some_and(|i| i.active), "kept through its grace day");
    let later = sleep::SleepOptions::new(december(2) + 400 * 86_400);
    block(sleep::sleep(&store, &OfflineProvider, &later, &mut |_| {})).expect("sleep");
    let items = block(store.items()).expect("items");
    assert!(items.iter().any(|i| i.active && i.text.contains("Japan")), "an event is kept however old");
    assert!(tired(&store).is_some_and(|i| !i.active), "a passing state goes once its day and grace are over");
    let log = block(store.mutations()).expect("log");
    let why = log.iter().find(|m| m.accepted && m.policy.as_deref() == Some("transient")).expect("logged");
    assert!(why.reason.contains("passing state whose while ended 2026-12-02"), "{}", why.reason);
    assert!(block(nocturne_core::proof::audit::audit(&store)).expect("audit").problems.is_empty());
}
