//! Memory worth keeping (`text::worth`), at the boundaries: the rule on its labelled corpus,
//! and a careless model planting each fault the issue names — a reaction proposed as a
//! fact, a compound sentence stored whole, a promotion into a full block, a merge of
//! twenty unrelated statements, a speaker lost on a later clause — each refused or
//! repaired by the code, never stored as proposed.

use nocturne_core::flow::{chat, edit, sleep};
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::llm::provider::{Completion, Provider, ProviderError, Request, Task};
use nocturne_core::model::memory::{Block, Item};
use nocturne_core::model::pass::PassKind;
use nocturne_core::model::policy::RetentionPolicy;
use nocturne_core::proof::audit;
use nocturne_core::store::{Commit, MemStore, Store};
use nocturne_core::testkit::worth::{score, STATEMENTS};
use serde_json::json;

const NOW: i64 = 1_767_225_600;

fn block<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

#[test]
fn the_labelled_statements_meet_their_targets() {
    let s = score(STATEMENTS);
    println!("{}\n{}", s.line(), s.misses.join("\n"));
    assert!(s.meets_targets(), "{}\n{}", s.line(), s.misses.join("\n"));
}

#[test]
fn the_targets_fail_for_a_rule_that_keeps_every_statement() {
    // The planted fault: every chatter statement counted as kept.
    let mut s = score(STATEMENTS);
    s.chatter.1 = 0;
    assert!(!s.meets_targets());
    let mut s = score(STATEMENTS);
    s.keepers.1 = s.keepers.0 / 10;
    assert!(!s.meets_targets(), "a tenth of the keepers refused must miss");
}

/// A model that proposes `reply` for one task and answers the rest as the offline rules do.
struct Careless {
    task: Task,
    reply: String,
}

impl Provider for Careless {
    fn label(&self) -> String {
        "careless".into()
    }
    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        if request.task == self.task {
            return Ok(Completion { text: self.reply.clone(), ..Default::default() });
        }
        OfflineProvider.complete(request).await
    }
}

fn encoder(facts: serde_json::Value) -> Careless {
    Careless { task: Task::Propose(PassKind::Encode), reply: json!({ "facts": facts }).to_string() }
}

fn texts(store: &MemStore) -> Vec<String> {
    block(store.items()).expect("items").into_iter().filter(|i| i.active).map(|i| i.text).collect()
}

#[test]
fn regression_a_reaction_proposed_as_a_fact_is_refused_with_a_reason() {
    let store = MemStore::new();
    let model = encoder(json!([
        {"text": "Wow, that photo is great!", "category": "context"},
        {"text": "I painted that lake sunrise last year.", "category": "event"}
    ]));
    let turn = block(chat::chat_turn(
        &store,
        &model,
        "Wow, that photo is great! I painted that lake sunrise last year.",
        NOW,
        chat::TurnOptions::by(Some("Melanie")),
    ))
    .expect("turn");
    assert_eq!(texts(&store), ["I painted that lake sunrise last year."]);
    let refused = turn.encoded.iter().find(|m| !m.accepted).expect("a refusal");
    assert!(
        refused.rejection_reason.as_deref().is_some_and(|r| r.contains("states nothing to remember")),
        "{refused:?}"
    );
}

#[test]
fn regression_a_compound_sentence_is_stored_as_one_fact_per_statement_in_every_style() {
    for model in [
        encoder(json!([{"text": "I live in Ghent and my locker code is 4417.", "category": "identity"}])),
        Careless { task: Task::Chat, reply: "Noted.".into() },
    ] {
        let store = MemStore::new();
        block(chat::chat_turn(
            &store,
            &model,
            "I live in Ghent and my locker code is 4417.",
            NOW,
            chat::TurnOptions::default(),
        ))
        .expect("turn");
        assert_eq!(texts(&store), ["I live in Ghent.", "My locker code is 4417."], "{:?}", model.task);
    }
}

#[test]
fn erasing_a_locker_code_said_twice_leaves_where_the_user_lives_active_and_traceable() {
    let store = MemStore::new();
    block(chat::chat_turn(&store, &OfflineProvider, "My locker code is 4417.", NOW, chat::TurnOptions::default()))
        .expect("turn");
    block(chat::chat_turn(
        &store,
        &OfflineProvider,
        "I live in Ghent and my locker code is 4417.",
        NOW + 60,
        chat::TurnOptions::default(),
    ))
    .expect("turn");
    block(sleep::sleep(&store, &OfflineProvider, &sleep::SleepOptions::new(NOW + 120), &mut |_| {})).expect("sleep");
    let items = block(store.items()).expect("items");
    let code = items.iter().find(|i| i.active && i.text.contains("4417")).expect("the code is remembered");
    let ghent = items.iter().find(|i| i.active && i.text.contains("Ghent")).expect("Ghent is remembered");
    assert!(!ghent.text.contains("4417"), "the code and the city are one fact: {}", ghent.text);
    block(edit::erase(&store, &code.item_id, NOW + 180)).expect("erase");
    let after = block(store.items()).expect("items");
    let ghent = after.iter().find(|i| i.item_id == ghent.item_id).expect("still there");
    assert!(ghent.active && ghent.text == "I live in Ghent.", "{ghent:?}");
    assert!(after.iter().all(|i| !i.text.contains("4417")), "the code is gone from every row");
    let (active, traceable, problems) = block(audit::sweep(&store)).expect("sweep");
    assert_eq!(active, traceable, "every active fact is still traceable: {problems:?}");
}

fn memory(items: Vec<Item>, policy: RetentionPolicy) -> MemStore {
    let store = MemStore::new();
    block(store.commit(Commit { at: NOW, label: Some("seed".into()), items, ..Default::default() })).expect("seed");
    block(store.set_policy(policy)).expect("policy");
    store
}

fn pass_mutations(
    report: &nocturne_core::flow::report::SleepReport,
    pass: PassKind,
) -> Vec<&nocturne_core::model::memory::Mutation> {
    report.passes.iter().filter(|p| p.event.pass == pass).flat_map(|p| &p.mutations).collect()
}

#[test]
fn regression_a_promotion_into_a_full_human_block_is_refused_with_the_figures() {
    let mut items: Vec<Item> = (1..=3)
        .map(|n| Item::new_fact(n, Block::Human, "identity", &format!("I keep bees number {n} in the hive."), NOW - 9))
        .collect();
    items.push(Item::new_fact(4, Block::Scratch, "identity", "I speak Portuguese.", NOW - 1));
    let held: u64 = items[..3].iter().map(Item::tokens).sum();
    let own = items[3].tokens();
    let policy = RetentionPolicy { human_tokens: Some(held + 2), ..Default::default() };
    let store = memory(items, policy);
    let model = Careless {
        task: Task::Propose(PassKind::Promote),
        reply: json!({"promote": [{"itemId": "m_4", "toBlock": "human", "reason": "durable"}]}).to_string(),
    };
    let report =
        block(sleep::sleep(&store, &model, &sleep::SleepOptions::new(NOW).deep(), &mut |_| {})).expect("sleep");
    let promote = pass_mutations(&report, PassKind::Promote);
    let refused = promote.iter().find(|m| m.item_id == "m_4").expect("judged");
    let why = refused.rejection_reason.clone().unwrap_or_default();
    assert!(why.contains(&format!("human is full: {} of {} tokens", held + own, held + 2)), "{why}");
    assert!(promote.iter().all(|m| !m.accepted), "and the engine did not push it in either");
}

#[test]
fn regression_a_merge_of_twenty_unrelated_statements_is_refused() {
    let words = ["kite", "valve", "oboe", "library", "umbrella", "bread", "tyre", "gate", "basil", "train"];
    let items: Vec<Item> = (0..20)
        .map(|n| {
            let text = format!("The {} number {n} sits in box {}.", words[n % 10], 100 + n);
            Item::new_fact(n as u64 + 1, Block::Scratch, "context", &text, NOW - 3)
        })
        .collect();
    let merged = items.iter().map(|i| i.text.trim_end_matches('.')).collect::<Vec<_>>().join("; ") + ".";
    let from: Vec<String> = (2..=20).map(|n| format!("m_{n}")).collect();
    let store = memory(items, RetentionPolicy::default());
    let model = Careless {
        task: Task::Propose(PassKind::Merge),
        reply: json!({"merge": [{"intoId": "m_1", "fromIds": from, "mergedText": merged, "reason": "all notes"}]})
            .to_string(),
    };
    let report =
        block(sleep::sleep(&store, &model, &sleep::SleepOptions::new(NOW).deep(), &mut |_| {})).expect("sleep");
    let merge = pass_mutations(&report, PassKind::Merge);
    let why = merge.first().and_then(|m| m.rejection_reason.clone()).unwrap_or_default();
    assert!(why.contains("share no subject") || why.contains("more than the 40"), "{why}");
    assert!(texts(&store).iter().all(|t| !t.contains(';')), "nothing was glued");
}

#[test]
fn regression_every_clause_of_a_turn_keeps_its_speaker() {
    let store = MemStore::new();
    let said = "Hey Caroline! The kids loved the museum. I painted a lake sunrise last year. My husband bakes bread.";
    block(chat::chat_turn(&store, &OfflineProvider, said, NOW, chat::TurnOptions::by(Some("Melanie")))).expect("turn");
    let items = block(store.items()).expect("items");
    assert_eq!(items.len(), 3, "{items:?}");
    assert!(items.iter().all(|i| i.speaker.as_deref() == Some("Melanie")), "{items:?}");
    let third = items.iter().find(|i| i.text.contains("bread")).expect("the third statement");
    assert_eq!(third.said(), "Melanie: My husband bakes bread.");
}
