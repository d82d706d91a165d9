//! The user's own edits (`flow::edit`): correct, pin, unpin, forget now — each a logged
//! mutation by the user in a version of its own, undone by a restore, and never undone by
//! a Sleep; the re-audit and the no-invention sweep accept them.

use nocturne_core::flow::edit::{self, EditError, UserEdit};
use nocturne_core::flow::{chat, sleep};
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::llm::provider::{Completion, Provider, ProviderError, Request, Task};
use nocturne_core::model::memory::Proposer;
use nocturne_core::model::pass::{MutationKind, Stage};
use nocturne_core::proof::audit;
use nocturne_core::store::{lineage, MemStore, Store};
use nocturne_core::PassKind;

const NOW: i64 = 1_767_225_600;
const DAY: i64 = 86_400;

fn block<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

fn find(store: &MemStore, words: &str) -> nocturne_core::Item {
    block(store.items()).expect("items").into_iter().find(|i| i.text.contains(words)).expect(words)
}

fn slept(text: &str) -> MemStore {
    let store = MemStore::new();
    block(chat::chat_turn(&store, &OfflineProvider, text, NOW)).expect("turn");
    block(sleep::sleep(&store, &OfflineProvider, &sleep::SleepOptions::new(NOW + 60), &mut |_| {})).expect("sleep");
    store
}

#[test]
fn a_correction_closes_the_old_text_keeps_it_in_history_and_a_restore_undoes_it() {
    let store = slept("I live in Lisbon. I keep bees.");
    let old = find(&store, "Lisbon");
    let before = block(store.meta()).expect("meta").head;
    let v = block(edit::apply(
        &store,
        &UserEdit::Correct { item_id: old.item_id.clone(), text: "I live in Porto.".into() },
        NOW + DAY,
    ))
    .expect("edit");
    assert_eq!(v.label, "user:correct");
    let (old_now, new) = (find(&store, "Lisbon"), find(&store, "Porto"));
    assert!(!old_now.active && old_now.superseded_by.as_deref() == Some(new.item_id.as_str()) && new.active);
    let log = block(store.mutations()).expect("log");
    let m = log.last().expect("a mutation");
    assert!(m.pass == Stage::User && m.kind == MutationKind::Correct && m.proposer == Proposer::User && m.accepted);
    assert_eq!(m.refs.previous_text.as_deref(), Some("I live in Lisbon."));
    let steps: Vec<String> = lineage::lineage(&old.item_id, &log).into_iter().map(|s| s.what).collect();
    assert!(steps.iter().any(|s| s.contains("corrected by the user into")), "{steps:?}");
    assert!(block(audit::audit(&store)).expect("audit").problems.is_empty(), "the re-audit accepts the user's edit");
    let (clean, total, offenders) = block(audit::sweep(&store)).expect("sweep");
    assert_eq!((clean, offenders), (total, Vec::<String>::new()), "the correction is its own source");
    block(store.restore(before, NOW + 2 * DAY)).expect("restore");
    assert!(find(&store, "Lisbon").active && !find(&store, "Porto").active, "a restore undoes the correction");
}

/// The offline provider, except that it proposes to forget, drop and supersede everything.
struct Careless;

impl Provider for Careless {
    fn label(&self) -> String {
        "careless".into()
    }
    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        let Task::Propose(pass) = request.task else { return OfflineProvider.complete(request).await };
        let payload: serde_json::Value =
            serde_json::from_str(&request.messages.last().map(|m| m.content.clone()).unwrap_or_default())
                .unwrap_or_default();
        let ids: Vec<String> = payload["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|i| i["itemId"].as_str().map(str::to_string))
            .collect();
        let other = ids.last().cloned().unwrap_or_default();
        let list: Vec<serde_json::Value> = ids
            .iter()
            .map(|id| match pass {
                PassKind::Forget => serde_json::json!({"itemId": id, "reason": "tidy", "policy": "stale"}),
                PassKind::Dedupe => serde_json::json!({"itemId": id, "duplicateOf": other, "reason": "same"}),
                PassKind::Supersede => serde_json::json!({"oldId": id, "newId": other, "reason": "newer"}),
                _ => serde_json::json!({}),
            })
            .collect();
        Ok(Completion { text: serde_json::json!({ pass.proposal_key(): list }).to_string(), ..Default::default() })
    }
}

#[test]
fn a_pinned_fact_survives_every_sleep_and_a_careless_model_is_refused_with_the_reason() {
    let store = slept("The kitchen tap leaks under the sink. The garden gate squeaks at night.");
    let tap = find(&store, "kitchen");
    block(edit::apply(&store, &UserEdit::Pin { item_id: tap.item_id.clone() }, NOW + 120)).expect("pin");
    assert!(find(&store, "kitchen").pinned);
    // A year on, the event is long stale: the rules leave it alone, a careless model is refused.
    let later = sleep::SleepOptions::new(NOW + 365 * DAY).deep();
    block(sleep::sleep(&store, &Careless, &later, &mut |_| {})).expect("careless sleep");
    block(sleep::sleep(&store, &OfflineProvider, &later, &mut |_| {})).expect("sleep");
    assert!(find(&store, "kitchen").active, "a Sleep never forgets a pinned fact");
    let refused: Vec<String> = block(store.mutations())
        .expect("log")
        .into_iter()
        .filter(|m| !m.accepted && m.item_id == tap.item_id)
        .filter_map(|m| m.rejection_reason)
        .collect();
    let pinned = refused.iter().filter(|r| r.contains("pinned by the user")).count();
    assert!(pinned >= 2, "forget and supersede of the pinned fact refused, with the reason: {refused:?}");
    block(edit::apply(&store, &UserEdit::Unpin { item_id: tap.item_id.clone() }, NOW + 366 * DAY)).expect("unpin");
    block(sleep::sleep(&store, &OfflineProvider, &sleep::SleepOptions::new(NOW + 367 * DAY), &mut |_| {}))
        .expect("sleep");
    assert!(!find(&store, "kitchen").active, "unpinned, the stale event goes");
    assert!(block(audit::audit(&store)).expect("audit").problems.is_empty());
}

#[test]
fn forget_now_retires_with_the_reason_and_bad_edits_change_nothing() {
    let store = slept("I keep bees.");
    let bees = find(&store, "bees");
    let head = block(store.meta()).expect("meta").head;
    for bad in [
        UserEdit::Pin { item_id: "m_999".into() },
        UserEdit::Unpin { item_id: bees.item_id.clone() },
        UserEdit::Correct { item_id: bees.item_id.clone(), text: "  ".into() },
    ] {
        let err = block(edit::apply(&store, &bad, NOW + DAY)).expect_err("refused");
        assert!(matches!(err, EditError::NotEditable(_)) && err.to_string().ends_with("nothing was changed"), "{err}");
    }
    assert_eq!(block(store.meta()).expect("meta").head, head, "a refused edit writes nothing");
    block(edit::apply(
        &store,
        &UserEdit::Forget { item_id: bees.item_id.clone(), reason: "sold the hives".into() },
        NOW + DAY,
    ))
    .expect("forget");
    assert!(!find(&store, "bees").active);
    let m = block(store.mutations()).expect("log").pop().expect("logged");
    assert_eq!((m.kind, m.reason.as_str()), (MutationKind::Forget, "sold the hives"));
    block(store.restore(head, NOW + 2 * DAY)).expect("restore");
    assert!(find(&store, "bees").active, "forget now is soft: a restore brings it back");
}
