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
        (9, "My sister's bakery got a new oven last week."),
        (2, "My sister's bakery was really busy yesterday."),
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
    assert_eq!(merges.len(), 1, "the two bakery facts merged: {texts:?}");
    for m in &merges {
        let into = items.iter().find(|i| i.item_id == m.item_id).expect("the merged fact");
        // No relative date in the merged text names another day than it did when said.
        assert!(dated::relative(&into.text, into.created_at).is_empty(), "{}", into.text);
        let day = when::Day::from_unix(NOW - 2 * DAY).plus_days(-1);
        assert!(into.text.contains(&format!("busy on {}", day.written())), "{}", into.text);
    }
    let (traceable, active, offenders) = block(audit::sweep(&store)).expect("sweep");
    assert_eq!(traceable, active, "{offenders:?}");
    assert!(block(audit::audit(&store)).expect("audit").problems.is_empty());
    // The written day is the one `yesterday` named when said.
    let day = when::Day::from_unix(NOW - 2 * DAY).plus_days(-1);
    assert_eq!(dated::absolute("Yesterday I went.", NOW - 2 * DAY), format!("On {} I went.", day.written()));
}

#[test]
fn regression_two_outings_on_different_days_stay_two_facts() {
    use nocturne_core::gate::case;
    let policy = serde_json::to_value(nocturne_core::model::policy::RetentionPolicy::default()).expect("policy");
    let item = |id: &str, text: &str, days: i64| serde_json::json!({"itemId": id, "block": "scratch", "text": text, "category": "event", "createdAt": NOW - days * DAY});
    let text = serde_json::json!({
        "name": "two outings", "now": NOW, "policy": policy, "pass": "merge",
        "items": [item("m_1", "Last week I went to a restaurant called Nopa.", 10), item("m_2", "Yesterday I went to a bar called Zuni.", 2)],
        "proposal": {"merge": [{"intoId": "m_1", "fromIds": ["m_2"], "reason": "outings",
            "mergedText": "Last week I went to a restaurant called Nopa; on 29 Dec 2025 I went to a bar called Zuni."}]},
    });
    let verdicts = case::parse(&text.to_string()).expect("a case").judge().expect("judged").verdicts;
    assert!(
        !verdicts[0].accepted && verdicts[0].reason.contains("two events said on different days"),
        "{}",
        verdicts[0].reason
    );
}
