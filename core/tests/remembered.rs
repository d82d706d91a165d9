//! What the user decided stays decided, and what a Sleep writes keeps absolute time (issue
//! 66): an edit rejected in a review, or undone by a restore, is refused by the next Sleep
//! with the user's reason; a merge of facts said on different days writes their relative
//! dates as the days they name.

use nocturne_core::flow::chat;
use nocturne_core::flow::review::{self, Decisions, Review};
use nocturne_core::flow::sleep::{self, SleepOptions};
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::model::memory::Mutation;
use nocturne_core::model::pass::PassKind;
use nocturne_core::proof::audit;
use nocturne_core::store::{MemStore, Store};
use nocturne_core::text::{dated, when};
use nocturne_core::DAY;

const NOW: i64 = 1_767_225_600;

fn block<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

/// A memory where the offline Sleep supersedes `I live in Lisbon.` by `I live in Porto.`.
fn moved() -> MemStore {
    let store = MemStore::new();
    for (days, text) in [(20, "I live in Lisbon."), (2, "I live in Porto.")] {
        block(chat::chat_turn(&store, &OfflineProvider, text, NOW - days * DAY, chat::TurnOptions::default()))
            .expect("chat turn");
    }
    store
}

fn supersessions(log: &[Mutation]) -> Vec<&Mutation> {
    log.iter().filter(|m| m.pass.name() == "supersede").collect()
}

fn lisbon_active(store: &MemStore) -> bool {
    block(store.items()).expect("items").iter().any(|i| i.text == "I live in Lisbon." && i.active)
}

#[test]
fn regression_an_edit_rejected_in_a_review_is_not_applied_by_the_next_sleep() {
    let store = moved();
    let plan: Review =
        block(review::plan(&store, &OfflineProvider, &SleepOptions::new(NOW), &mut |_| {})).expect("plan");
    let edit = plan
        .edits
        .iter()
        .find(|e| e.pass == PassKind::Supersede && e.refused.is_none())
        .expect("a supersession planned");
    let decisions = Decisions::all().reject(&edit.id, "keep both, I have a flat in each");
    block(review::apply(&store, &plan, &decisions, NOW + 60, &mut |_| {})).expect("apply");
    assert!(lisbon_active(&store), "the rejected supersession was not applied");
    // A plain Sleep later: the same edit is proposed again and refused with the user's reason.
    block(sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(NOW + 2 * DAY).deep(), &mut |_| {}))
        .expect("sleep");
    assert!(lisbon_active(&store), "the next Sleep did not apply what the user rejected");
    let log = block(store.mutations()).expect("log");
    let last = supersessions(&log).into_iter().last().expect("the Sleep judged the supersession again");
    assert!(!last.accepted);
    let why = last.rejection_reason.as_deref().unwrap_or("");
    assert!(why.contains("refused before by the user") && why.contains("keep both, I have a flat in each"), "{why}");
    assert!(block(audit::audit(&store)).expect("audit").problems.is_empty());
}

#[test]
fn regression_an_edit_undone_by_a_restore_is_not_applied_by_the_next_sleep() {
    let store = moved();
    let before = block(store.meta()).expect("meta").head;
    block(sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(NOW), &mut |_| {})).expect("sleep");
    assert!(!lisbon_active(&store), "the Sleep superseded Lisbon");
    block(store.restore(before, NOW + 60)).expect("restore");
    assert!(lisbon_active(&store), "the restore put it back");
    block(sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(NOW + 2 * DAY).deep(), &mut |_| {}))
        .expect("sleep");
    assert!(lisbon_active(&store), "the next Sleep did not undo the user's restore");
    let log = block(store.mutations()).expect("log");
    let last = supersessions(&log).into_iter().last().expect("judged again");
    let why = last.rejection_reason.as_deref().unwrap_or("");
    assert!(
        !last.accepted && why.contains("the user undid it") && why.contains(&format!("restore:v{before}")),
        "{why}"
    );
}

#[test]
fn regression_a_merge_of_facts_said_on_different_days_keeps_absolute_time() {
    let store = MemStore::new();
    let said = [
        (12, "I work as a nurse in Leeds."),
        (11, "My cat is called Miso."),
        (10, "I play the cello on Tuesdays."),
        (9, "Last week I went to a restaurant called Nopa with my sister for her birthday."),
        (2, "Yesterday I went to a bar called Zuni with my sister after her shift."),
    ];
    for (days, text) in said {
        block(chat::chat_turn(&store, &OfflineProvider, text, NOW - days * DAY, chat::TurnOptions::default()))
            .expect("chat turn");
    }
    block(sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(NOW).deep(), &mut |_| {})).expect("sleep");
    let items = block(store.items()).expect("items");
    let log = block(store.mutations()).expect("log");
    let merges: Vec<&Mutation> = log.iter().filter(|m| m.pass.name() == "merge" && m.accepted).collect();
    let texts: Vec<&str> = items.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(merges.len(), 1, "the two outings merged: {texts:?}");
    for m in &merges {
        let into = items.iter().find(|i| i.item_id == m.item_id).expect("the merged fact");
        // No relative date in the merged text names another day than it did when said.
        assert!(dated::relative(&into.text, into.created_at).iter().all(|(e, _)| e != "yesterday"), "{}", into.text);
        assert!(into.text.to_lowercase().contains("on 29 dec 2025 i went to a bar called zuni"), "{}", into.text);
    }
    let (traceable, active, offenders) = block(audit::sweep(&store)).expect("sweep");
    assert_eq!(traceable, active, "{offenders:?}");
    assert!(block(audit::audit(&store)).expect("audit").problems.is_empty());
    // The written day is the one `yesterday` named when said.
    let day = when::Day::from_unix(NOW - 2 * DAY).plus_days(-1);
    assert_eq!(dated::absolute("Yesterday I went.", NOW - 2 * DAY), format!("On {} I went.", day.written()));
}
