//! The guard against a heavy Sleep reads the Sleep's plan (issue 66): what it counts is
//! everything the Sleep would retire by every pass — a duplicate dropped, a source merged
//! away, an older value superseded, a fact forgotten — against a share of the active memory
//! with no floor that lets a small memory be emptied. Refused means nothing written; the
//! `retire=` shown before a Sleep is what it applies.

use nocturne_core::flow::sleep::SleepOptions;
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::llm::provider::{Completion, Provider, ProviderError, Request, Task};
use nocturne_core::model::memory::Item;
use nocturne_core::model::pass::PassKind;
use nocturne_core::store::{MemStore, Store};
use nocturne_core::write::{Journal, NoSync, Policy, Refusal, Say, Sleep, StoreLocks, Watch, WriteError};
use nocturne_core::DAY;
use pollster::block_on as block;
use serde_json::json;

const T0: i64 = 1_767_139_200;

fn say(store: &MemStore, text: &str, at: i64) {
    let journal = Journal::new(store, &StoreLocks, &NoSync);
    let say = Say { text: text.into(), speaker: None, reply: None, at, origin: Default::default() };
    block(journal.perform(say, &OfflineProvider, &mut Watch::quiet())).expect("a turn is stored");
}

fn active(store: &MemStore) -> Vec<Item> {
    block(store.items()).expect("items").into_iter().filter(|i| i.active).collect()
}

/// A Sleep at `at` through the journal, going ahead when `yes`.
fn sleep<P: Provider>(
    store: &MemStore,
    provider: &P,
    at: i64,
    yes: bool,
) -> Result<nocturne_core::write::Slept, WriteError> {
    let journal = Journal::new(store, &StoreLocks, &NoSync);
    let sleep = Sleep::new(SleepOptions::new(at)).go_ahead(yes);
    block(journal.perform(sleep, provider, &mut Watch::quiet())).map(|d| d.done)
}

/// A memory of `n` events a year old, under a policy that forgets by age after 30 days.
fn stale_memory(n: usize) -> MemStore {
    let store = MemStore::new();
    for k in 0..n {
        say(&store, &format!("The parcel number {k} was delivered to the wrong door."), T0 + k as i64);
    }
    let mut policy = block(store.meta()).expect("meta").policy;
    policy.stale_after_days = Some(30.0);
    let journal = Journal::new(&store, &StoreLocks, &NoSync);
    let set = Policy { policy, at: T0 + 100 };
    block(journal.perform(set, &nocturne_core::write::NoModel, &mut Watch::quiet())).expect("policy");
    store
}

/// The refusal of a heavy Sleep: nothing written, what would go named, its count the plan's.
fn assert_refused(store: &MemStore, before: &nocturne_core::store::document::Document, e: WriteError, n: usize) {
    let WriteError::Refused(Refusal::Heavy(h)) = &e else { panic!("not the guard's refusal: {e}") };
    assert_eq!(&store.document(), before, "a refused Sleep wrote something");
    assert_eq!(h.retiring.count(), n, "{e}");
    assert_eq!(h.estimate.retire, n, "retire= is what the plan retires: {e}");
    let said = e.to_string();
    assert!(said.contains(&format!("would retire {n} of")) && said.contains("nothing was written"), "{said}");
    let first = &h.retiring.facts[0];
    assert!(said.contains(&first.item_id), "the refusal names what would go: {said}");
}

#[test]
fn regression_seven_of_seven_facts_do_not_go_without_asking() {
    let store = stale_memory(7);
    let before = store.document();
    let e = sleep(&store, &OfflineProvider, T0 + 365 * DAY, false).expect_err("7 of 7 must ask");
    assert_refused(&store, &before, e, 7);
    let slept = sleep(&store, &OfflineProvider, T0 + 365 * DAY, true).expect("with the user's go-ahead");
    let applied = slept.applied.expect("applied");
    assert_eq!((applied.active_before, applied.active_after), (7, 0));
    assert_eq!(slept.estimate.retire, 7, "retire= is what the apply retired");
}

#[test]
fn a_retention_policy_retiring_most_of_a_memory_is_refused_whole_and_applied_as_planned_when_agreed() {
    let store = stale_memory(12);
    let before = store.document();
    let e = sleep(&store, &OfflineProvider, T0 + 365 * DAY, false).expect_err("12 of 12 must ask");
    assert_refused(&store, &before, e, 12);
    let slept = sleep(&store, &OfflineProvider, T0 + 365 * DAY, true).expect("go ahead");
    let applied = slept.applied.expect("applied");
    assert_eq!(applied.active_before - applied.active_after, slept.estimate.retire);
}

/// A model whose Dedupe proposals the gate accepts: every later copy of a fact dropped as a
/// duplicate of its first (the guard counts drops, not only the retention rules).
struct Deduping;

impl Provider for Deduping {
    fn label(&self) -> String {
        "scripted dedupe".into()
    }

    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        let text = match request.task {
            Task::Propose(PassKind::Dedupe) => {
                let prompt: String = request.messages.iter().map(|m| m.content.as_str()).collect();
                let ids: Vec<String> =
                    (1..=40).map(|n| format!("m_{n}")).filter(|id| prompt.contains(id.as_str())).collect();
                // Facts come in pairs m_1/m_2, m_3/m_4 …: the second of each is the copy.
                let drops: Vec<_> = ids
                    .chunks(2)
                    .filter(|p| p.len() == 2)
                    .map(|p| json!({"itemId": p[1], "duplicateOf": p[0], "reason": "the same fact, said again"}))
                    .collect();
                json!({ "drop": drops }).to_string()
            }
            Task::Propose(kind) => {
                let mut none = serde_json::Map::new();
                none.insert(kind.proposal_key().to_string(), json!([]));
                serde_json::Value::Object(none).to_string()
            }
            _ => return OfflineProvider.complete(request).await,
        };
        Ok(Completion { text, prompt_tokens: 0, completion_tokens: 0, truncated: false })
    }
}

#[test]
fn drops_a_model_proposed_count_like_any_retirement() {
    let store = MemStore::new();
    for (k, thing) in ["a violin", "a kayak", "a greenhouse", "a tandem bicycle"].iter().enumerate() {
        for again in 0..2 {
            say(&store, &format!("I own {thing}."), T0 + (2 * k + again) as i64);
        }
    }
    assert_eq!(active(&store).len(), 8, "four facts, each said twice");
    let before = store.document();
    let e = sleep(&store, &Deduping, T0 + DAY, false).expect_err("4 of 8 go: more than a quarter");
    assert_refused(&store, &before, e, 4);
    let slept = sleep(&store, &Deduping, T0 + DAY, true).expect("go ahead");
    assert_eq!(active(&store).len(), 4);
    assert_eq!(slept.estimate.retire, 4, "retire= is what the apply retired");
}

#[test]
fn one_of_two_may_go_without_asking_and_the_last_one_may_not() {
    // An old value superseded by the new one: one of two facts goes, and that is a Sleep's
    // everyday work.
    let store = MemStore::new();
    say(&store, "I live in Ghent.", T0);
    say(&store, "I moved to Porto, I live in Porto now.", T0 + DAY);
    let count = active(&store).len();
    if let Ok(slept) = sleep(&store, &OfflineProvider, T0 + 2 * DAY, false) {
        let applied = slept.applied.expect("applied");
        assert_eq!(applied.active_before - applied.active_after, slept.estimate.retire);
        assert!(slept.estimate.retire < count, "a Sleep without asking never empties the memory");
    }
    let store = stale_memory(1);
    let before = store.document();
    let e = sleep(&store, &OfflineProvider, T0 + 365 * DAY, false).expect_err("the last fact must ask");
    assert_refused(&store, &before, e, 1);
}

/// The store of the issue: fourteen facts `I painted fence number N with a colour called
/// shadeN.`, where a Sleep once showed `retire=0` and retired 7 of 14 without asking. Whatever
/// the Supersede gate makes of the pairs, the Sleep keeps all fourteen or is refused, writing
/// nothing and naming what would go.
#[test]
fn regression_the_fence_store_keeps_all_fourteen_or_refuses_naming_what_would_go() {
    let store = MemStore::new();
    for n in 1..=14 {
        say(&store, &format!("I painted fence number {n} with a colour called shade{n}."), T0 + n * 60);
    }
    assert_eq!(active(&store).len(), 14);
    let before = store.document();
    match sleep(&store, &OfflineProvider, T0 + DAY, false) {
        Ok(slept) => {
            let applied = slept.applied.expect("applied");
            assert_eq!(applied.active_after, 14, "a Sleep without asking retired fence facts");
            assert_eq!(slept.estimate.retire, 0);
        }
        Err(e) => {
            let n = match &e {
                WriteError::Refused(Refusal::Heavy(h)) => h.retiring.count(),
                other => panic!("not the guard's refusal: {other}"),
            };
            assert!(n > nocturne_core::flow::estimate::allowance(14), "{e}");
            assert_refused(&store, &before, e, n);
        }
    }
}
