//! The pipeline driven end to end over MemStore: the offline provider on the scripted
//! conversation (exact counts, versions, diff, restore), dry runs, hostile and lazy
//! scripted providers, broken replies, chunking, and the regressions the article lists.

use nocturne_core::flow::chat;
use nocturne_core::flow::sleep::{self, SleepOptions};
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::llm::prompt::Budget;
use nocturne_core::llm::provider::{Completion, Provider, ProviderError, Request, Task};
use nocturne_core::model::memory::{Block, Mutation, Proposer, Refs};
use nocturne_core::proof::{audit, verify};
use nocturne_core::store::diff;
use nocturne_core::store::{Commit, MemStore, Store};
use nocturne_core::text::order;
use nocturne_core::{Item, PassKind, RetentionPolicy, DAY};
use serde_json::{json, Value};
use std::cell::RefCell;

const NOW: i64 = 1_767_225_600;

fn block<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

/// A provider that answers by task with a closure (the offline provider for chat and
/// encoding unless the closure answers).
struct Scripted<F: Fn(&Request) -> Option<String>> {
    answer: F,
    seen: RefCell<Vec<Task>>,
}

impl<F: Fn(&Request) -> Option<String>> Scripted<F> {
    fn new(answer: F) -> Self {
        Scripted { answer, seen: RefCell::new(Vec::new()) }
    }
}

impl<F: Fn(&Request) -> Option<String>> Provider for Scripted<F> {
    fn label(&self) -> String {
        "scripted".into()
    }
    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        self.seen.borrow_mut().push(request.task);
        match (self.answer)(request) {
            Some(text) if text == "TRUNCATE" => {
                Ok(Completion { text: "{\"merge\": [".into(), truncated: true, ..Default::default() })
            }
            Some(text) => Ok(Completion { text, ..Default::default() }),
            None => OfflineProvider.complete(request).await,
        }
    }
}

/// The scripted conversation of the verifier, through the real chat path.
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

fn counts(
    report: &nocturne_core::flow::report::SleepReport,
) -> Vec<(String, usize, usize, usize, usize, usize, usize)> {
    report
        .passes
        .iter()
        .map(|p| {
            let e = &p.event;
            (e.pass.name().to_string(), e.input, e.proposed, e.accepted, e.rejected, e.enforced, e.active_after)
        })
        .collect()
}

#[test]
fn offline_sleep_over_the_scripted_conversation() {
    let store = seeded();
    let seeded_versions = block(store.versions()).expect("versions").len();
    // "The kitchen leaks and the kettle is broken." is two facts: each clause stands alone;
    // so is "I live in Lisbon and work best in the morning." (its subject restored), twice.
    assert_eq!(block(store.meta()).expect("meta").active_count, 25);
    let mut events = Vec::new();
    let report = block(sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(NOW), &mut |e| events.push(e.name())))
        .expect("sleep");
    assert_eq!(
        counts(&report),
        [
            ("dedupe".into(), 25, 4, 4, 0, 0, 21),
            ("merge".into(), 21, 1, 1, 0, 0, 20),
            ("supersede".into(), 20, 1, 1, 0, 0, 19),
            ("promote".into(), 19, 11, 11, 0, 0, 19),
            // Forget by value: the week of being swamped is long over, the drill was due
            // weeks ago; the old events stay.
            ("forget".into(), 19, 0, 2, 0, 2, 17),
        ]
    );
    assert_eq!(events.len(), 10);
    assert_eq!(events[0], "pass:dedupe:start");
    assert_eq!(events[9], "pass:forget:done");
    let versions = block(store.versions()).expect("versions");
    let labels: Vec<&str> = versions[seeded_versions..].iter().map(|v| v.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "consolidation:start",
            "pass:dedupe:before",
            "pass:dedupe:after",
            "pass:merge:before",
            "pass:merge:after",
            "pass:supersede:before",
            "pass:supersede:after",
            "pass:promote:before",
            "pass:promote:after",
            "pass:forget:before",
            "pass:forget:after"
        ]
    );
    let actives: Vec<usize> = versions[seeded_versions..].iter().map(|v| v.active_count).collect();
    assert_eq!(actives, [25, 25, 21, 21, 20, 20, 19, 19, 19, 19, 17]);

    let start = versions[seeded_versions].seq;
    let end = versions.last().expect("a version").seq;
    let d = block(diff::diff(&store, start, end)).expect("diff");
    assert_eq!((d.kept, d.changed.len(), d.forgotten.len(), d.added.len(), d.refused.len()), (7, 10, 8, 0, 0));
    let passes: Vec<&str> = d.forgotten.iter().map(|f| f.by.as_ref().map_or("?", |m| m.pass.name())).collect();
    assert_eq!(passes.iter().filter(|p| **p == "dedupe").count(), 4);
    assert_eq!(passes.iter().filter(|p| **p == "merge").count(), 1);
    assert_eq!(passes.iter().filter(|p| **p == "forget").count(), 2);
    assert_eq!(passes.iter().filter(|p| **p == "supersede").count(), 1, "the nurse became a teacher");
    let stale: Vec<_> = d
        .forgotten
        .iter()
        .filter_map(|f| f.by.as_ref())
        .filter(|m| m.pass == PassKind::Forget)
        .map(|m| m.policy.clone())
        .collect();
    let mut rules: Vec<_> = stale.iter().map(|p| p.as_deref().unwrap_or("-")).collect();
    rules.sort_unstable();
    assert_eq!(rules, ["due", "transient"], "forgotten by value, never for age alone");
    // The negation is stored as said, and two languages are two facts, not a change.
    let active: Vec<String> =
        block(store.items()).expect("items").into_iter().filter(|i| i.active).map(|i| i.text).collect();
    for kept in ["I am not allergic to peanuts.", "I speak Portuguese.", "I speak English."] {
        assert!(active.iter().any(|t| t == kept), "{kept} is not active: {active:?}");
    }

    // Restore the pre-Sleep version: exact, and itself undoable.
    let before: Vec<_> = block(store.items_at(start)).expect("v").into_iter().filter(|i| i.active).collect();
    let undo = block(store.restore(start, NOW + 10)).expect("restore");
    assert_eq!(undo.active_count, 25);
    let mut now_active: Vec<_> = block(store.items()).expect("items").into_iter().filter(|i| i.active).collect();
    order::sort_by_key(&mut now_active, |i| i.ordinal());
    assert_eq!(now_active, before);
    let redo = block(store.restore(end, NOW + 20)).expect("restore the restore");
    assert_eq!(redo.active_count, 17);
    assert!(block(audit::audit(&store)).expect("audit").problems.is_empty());
}

#[test]
fn dry_run_leaves_the_store_file_byte_identical() {
    let store = seeded();
    let before = store.document().to_json();
    let rows = store.rows_written();
    let report =
        block(sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(NOW).dry(), &mut |_| {})).expect("dry run");
    assert_eq!(report.active_after, 17, "the dry run reports what a Sleep would do");
    assert!(report.passes.iter().all(|p| p.event.before_version.is_none()));
    assert_eq!(store.document().to_json(), before);
    assert_eq!(store.rows_written(), rows);
}

#[test]
fn a_what_if_policy_is_refused_outside_a_dry_run() {
    let store = seeded();
    let options = SleepOptions {
        policy: Some(RetentionPolicy { max_active_facts: Some(2), ..Default::default() }),
        ..SleepOptions::new(NOW)
    };
    assert!(block(sleep::sleep(&store, &OfflineProvider, &options, &mut |_| {})).is_err());
    assert_eq!(block(store.versions()).expect("v").len(), 9, "nothing was written");
}

fn hostile(req: &Request) -> Option<String> {
    let reply = match req.task {
        Task::Propose(PassKind::Dedupe) => json!({"drop": [
            {"itemId": "m_404", "duplicateOf": "m_1", "reason": "ghost"},
            {"itemId": "m_1", "duplicateOf": "m_1", "reason": "self"},
            {"itemId": "m_1", "duplicateOf": "m_5", "reason": "not really the same"},
            {"itemId": "m_17", "duplicateOf": "m_8", "reason": ""},
            "drop everything",
            {"itemId": 5, "duplicateOf": "m_1", "reason": "numbers"}
        ]}),
        Task::Propose(PassKind::Merge) => json!({"merge": [
            {"intoId": "m_1", "fromIds": ["m_2"], "mergedText": "The user owns a yacht in Monaco.", "reason": "upgrade"},
            {"intoId": "m_5", "fromIds": ["m_5"], "mergedText": "x", "reason": "self"},
            {"intoId": "m_1", "fromIds": ["m_2"], "mergedText": "The kitchen leaks and the Kettle is broken.", "reason": "names"}
        ]}),
        Task::Propose(PassKind::Promote) => json!({"promote": [
            {"itemId": "m_1", "toBlock": "longterm", "reason": "durable"},
            {"itemId": "m_999", "toBlock": "human", "reason": "ghost"}
        ]}),
        Task::Propose(PassKind::Supersede) => {
            json!({"supersede": [{"oldId": "m_22", "newId": "m_11", "reason": "backwards"}]})
        }
        Task::Propose(PassKind::Forget) => json!({"forget": [
            {"itemId": "m_12", "reason": "I dislike it", "policy": "stale"},
            {"itemId": "m_10", "reason": "already gone", "policy": "stale"},
            {"itemId": "m_20", "reason": "fresh", "policy": "capacity"}
        ]}),
        _ => return None,
    };
    Some(reply.to_string())
}

#[test]
fn a_hostile_provider_changes_nothing_the_gates_forbid() {
    let store = seeded();
    let before: Vec<_> = block(store.items()).expect("items");
    let provider = Scripted::new(hostile);
    let report = block(sleep::sleep(&store, &provider, &SleepOptions::new(NOW), &mut |_| {})).expect("sleep");
    let model_accepted: usize =
        report.passes.iter().flat_map(|p| &p.mutations).filter(|m| m.accepted && m.proposer == Proposer::Model).count();
    assert_eq!(model_accepted, 0, "every hostile proposal must be refused");
    assert_eq!(report.total(|p| p.rejected), 15);
    let log = block(store.mutations()).expect("log");
    // The Sleep's refusals; the script's question left a `skip` (answered, not stored) too.
    let refused: Vec<&Mutation> =
        log.iter().filter(|m| !m.accepted && m.kind != nocturne_core::model::pass::MutationKind::Skip).collect();
    assert_eq!(refused.len(), 15);
    assert!(refused
        .iter()
        .all(|m| m.rejection_reason.as_deref().is_some_and(|r| !r.is_empty()) && m.refs.proposal.is_some()));
    let reasons: Vec<&str> = refused.iter().filter_map(|m| m.rejection_reason.as_deref()).collect();
    for needle in [
        "m_404' does not exist",
        "self-pair",
        "below the threshold",
        "reason is empty",
        "expected a JSON object",
        "must be a string",
        "yacht, monaco",
        "proper nouns absent from every source: Kettle",
        "longterm",
        "m_999",
        "protected",
        "not active",
        "no retention rule",
        "not newer",
    ] {
        assert!(reasons.iter().any(|r| r.contains(needle)), "no refusal mentions {needle}: {reasons:#?}");
    }
    let after = block(store.items()).expect("items");
    assert!(after.iter().all(|i| !i.text.contains("yacht")), "invented text reached the store");
    // Retired by Forget, that is (a restatement dropped by Dedupe is not forgotten).
    let forgotten: Vec<&str> =
        log.iter().filter(|m| m.accepted && m.pass == PassKind::Forget).map(|m| m.item_id.as_str()).collect();
    let protected_forgotten = after
        .iter()
        .filter(|i| !i.active && forgotten.contains(&i.item_id.as_str()))
        // Protected as it stood: a promise past its date and a passing state past its while
        // have lost their protection; nothing else protected may go.
        .filter(|i| {
            before.iter().any(|b| b.item_id == i.item_id && b.active && RetentionPolicy::default().protects(b, NOW))
        });
    assert_eq!(protected_forgotten.count(), 0, "a protected fact was forgotten");
    assert!(block(audit::audit(&store)).expect("audit").problems.is_empty());
}

#[test]
fn a_lazy_provider_leaves_the_rules_to_the_engine_and_they_are_labelled() {
    let store = seeded();
    block(store.set_policy(RetentionPolicy { max_active_facts: Some(6), ..Default::default() })).expect("policy");
    let lazy = Scripted::new(|req| match req.task {
        Task::Propose(PassKind::Dedupe)
        | Task::Propose(PassKind::Merge)
        | Task::Propose(PassKind::Supersede)
        | Task::Propose(PassKind::Promote)
        | Task::Propose(PassKind::Forget) => Some("{}".into()),
        _ => None,
    });
    let report = block(sleep::sleep(&store, &lazy, &SleepOptions::new(NOW), &mut |_| {})).expect("sleep");
    assert_eq!(report.total(|p| p.proposed), 0);
    let by =
        |p: Proposer| report.passes.iter().flat_map(|x| &x.mutations).filter(|m| m.accepted && m.proposer == p).count();
    assert_eq!(by(Proposer::DuplicateRule), 4);
    assert_eq!(
        by(Proposer::PromotionRule),
        12,
        "6 durable facts to human; 3 events, a week's state and two promises to episodes"
    );
    // 21 active after dedupe, 7 of them protected: the promise past its date and the week
    // long over go by value, every other unprotected fact over the cap, and the protected
    // ones stay even above the cap.
    assert_eq!(by(Proposer::PolicyEngine), 14, "a promise past its date, a week long over, then 12 over the cap of 6");
    assert_eq!(report.total(|p| p.enforced), 30);
    assert_eq!(report.active_after, 7);
    let left: Vec<_> = block(store.items()).expect("items").into_iter().filter(|i| i.active).collect();
    assert_eq!(
        left.iter().filter(|i| RetentionPolicy::default().is_protected(&i.category)).count(),
        7,
        "protected facts are the floor"
    );
    assert!(block(audit::audit(&store)).expect("audit").problems.is_empty());
}

#[test]
fn a_garbage_reply_ends_its_pass_which_changes_nothing_and_the_sleep_goes_on() {
    for garbage in [
        "I am sorry, I cannot do that.",
        "{\"merge\": [{\"intoId\": \"m_1\"",
        "TRUNCATE",
        "{\"merge\": \"everything\"}",
    ] {
        let store = seeded();
        let provider =
            Scripted::new(move |req| (req.task == Task::Propose(PassKind::Merge)).then(|| garbage.to_string()));
        let mut events = Vec::new();
        let report = block(sleep::sleep(&store, &provider, &SleepOptions::new(NOW), &mut |e| events.push(e.clone())))
            .expect("one unusable reply does not fail the whole Sleep");
        let failed: Vec<String> = report.failed().map(|e| e.name()).collect();
        assert_eq!(failed, ["pass:merge:error"], "{garbage}");
        let merge = events.iter().find(|e| e.name() == "pass:merge:error").expect("a merge error event");
        assert!(merge.error.as_deref().is_some_and(|e| !e.is_empty()));
        // Merge wrote nothing at all; the passes after it ran and committed.
        let labels: Vec<String> = block(store.versions()).expect("v").into_iter().map(|v| v.label).collect();
        assert!(!labels.iter().any(|l| l.starts_with("pass:merge")), "{garbage}: {labels:?}");
        assert_eq!(labels.last().map(String::as_str), Some("pass:forget:after"), "{garbage}");
        assert!(report.passes.iter().flat_map(|p| &p.mutations).all(|m| m.pass != PassKind::Merge));
    }
}

#[test]
fn an_unreachable_model_mid_sleep_still_stops_the_sleep() {
    struct DownForMerge;
    impl Provider for DownForMerge {
        fn label(&self) -> String {
            "down for merge".into()
        }
        async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
            if request.task == Task::Propose(PassKind::Merge) {
                return Err(ProviderError::Unreachable("connection refused".into()));
            }
            OfflineProvider.complete(request).await
        }
    }
    let store = seeded();
    let err = block(sleep::sleep(&store, &DownForMerge, &SleepOptions::new(NOW), &mut |_| {})).expect_err("stops");
    assert!(err.to_string().contains("merge pass stopped and changed nothing"), "{err}");
    let labels: Vec<String> = block(store.versions()).expect("v").into_iter().map(|v| v.label).collect();
    assert_eq!(labels.last().map(String::as_str), Some("pass:dedupe:after"));
}

#[test]
fn large_stores_are_sent_in_chunks_and_prompt_tokens_grow_linearly() {
    let store = MemStore::new();
    let items: Vec<_> = (1..=400)
        .map(|n| {
            nocturne_core::testkit::conformance::fact(
                n,
                Block::Scratch,
                &format!("Fact {n} about topic{} and thing{}.", n % 37, n % 11),
                NOW,
            )
        })
        .collect();
    block(store.commit(Commit { at: NOW, label: Some("bulk".into()), items, ..Default::default() })).expect("bulk");
    let provider = Scripted::new(|_| None);
    let options =
        SleepOptions { budget: Budget { items_tokens: 800, ..Budget::default() }, ..SleepOptions::new(NOW).dry() };
    let report = block(sleep::sleep(&store, &provider, &options, &mut |_| {})).expect("sleep");
    let dedupe_calls = report.passes[0].calls;
    assert!(dedupe_calls >= 10, "400 facts in 800-token chunks took {dedupe_calls} call(s)");
    let tokens_400 = report.prompt_tokens();
    let small = MemStore::new();
    let items: Vec<_> = (1..=200)
        .map(|n| {
            nocturne_core::testkit::conformance::fact(
                n,
                Block::Scratch,
                &format!("Fact {n} about topic{} and thing{}.", n % 37, n % 11),
                NOW,
            )
        })
        .collect();
    block(small.commit(Commit { at: NOW, label: Some("bulk".into()), items, ..Default::default() })).expect("bulk");
    let tokens_200 = block(sleep::sleep(&small, &provider, &options, &mut |_| {})).expect("sleep").prompt_tokens();
    let ratio = tokens_400 as f64 / tokens_200 as f64;
    assert!((1.6..2.4).contains(&ratio), "prompt tokens grew {ratio:.2}x for 2x the facts");
}

#[test]
fn regression_a_refused_merge_across_blocks_does_not_kill_the_sleep() {
    let store = seeded();
    let provider = Scripted::new(|req| {
        (req.task == Task::Propose(PassKind::Merge)).then(|| json!({"merge": [{"intoId": "m_1", "fromIds": ["m_4"], "mergedText": "The kitchen leaks.", "reason": "x"}]}).to_string())
    });
    // Move m_4 out of scratch first so the merge spans two blocks.
    let mut moved = block(store.items()).expect("items").into_iter().find(|i| i.item_id == "m_4").expect("m_4");
    moved.block = Block::Episodes;
    block(store.commit(Commit { at: NOW, label: Some("move".into()), items: vec![moved], ..Default::default() }))
        .expect("move");
    let report = block(sleep::sleep(&store, &provider, &SleepOptions::new(NOW), &mut |_| {}))
        .expect("the Sleep survives the refusal");
    let merge = &report.passes[1];
    assert_eq!(merge.event.rejected, 1);
    let logged = block(store.mutations())
        .expect("log")
        .into_iter()
        .find(|m| m.pass == PassKind::Merge && !m.accepted)
        .expect("logged");
    assert!(logged.rejection_reason.as_deref().is_some_and(|r| r.contains("two blocks")));
}

#[test]
fn regression_a_rejection_mid_range_appears_in_the_diff() {
    let store = seeded();
    let provider = Scripted::new(|req| {
        (req.task == Task::Propose(PassKind::Promote))
            .then(|| json!({"promote": [{"itemId": "m_1", "toBlock": "attic", "reason": "x"}]}).to_string())
    });
    block(sleep::sleep(&store, &provider, &SleepOptions::new(NOW), &mut |_| {})).expect("sleep");
    let versions = block(store.versions()).expect("v");
    let start = versions[versions.len() - 11].seq;
    let end = versions.last().expect("v").seq;
    let d = block(diff::diff(&store, start, end)).expect("diff");
    assert!(
        d.refused.iter().any(|m| m.rejection_reason.as_deref().is_some_and(|r| r.contains("attic"))),
        "{:?}",
        d.refused
    );
}

#[test]
fn regression_the_encoder_sends_each_turn_once() {
    let store = MemStore::new();
    let sent = RefCell::new(Vec::new());
    let provider = Scripted::new(|req| {
        if req.task == Task::Propose(PassKind::Encode) {
            let payload: Value = serde_json::from_str(&req.messages[1].content).expect("payload");
            sent.borrow_mut().push(payload["turns"].as_array().map_or(0, Vec::len));
        }
        None
    });
    for (i, text) in ["I live in Lisbon.", "I keep a bearded dragon.", "I like green tea."].iter().enumerate() {
        block(chat::chat_turn(&store, &provider, text, NOW + i as i64, chat::TurnOptions::default())).expect("turn");
    }
    assert_eq!(*sent.borrow(), [1, 1, 1], "each turn is encoded once, not the whole transcript");
    assert_eq!(block(store.meta()).expect("meta").encoded_through, 6);
}

#[test]
fn an_encoder_failure_keeps_the_turn_for_the_next_one() {
    let store = MemStore::new();
    let broken = Scripted::new(|req| (req.task == Task::Propose(PassKind::Encode)).then(|| "no json here".to_string()));
    let out =
        block(chat::chat_turn(&store, &broken, "I live in Lisbon.", NOW, chat::TurnOptions::default())).expect("turn");
    assert!(out.encode_error.is_some());
    assert_eq!(block(store.transcript()).expect("t").len(), 2, "the conversation is kept");
    assert!(block(store.items()).expect("items").is_empty());
    let out = block(chat::chat_turn(
        &store,
        &OfflineProvider,
        "I keep a bearded dragon.",
        NOW + 1,
        chat::TurnOptions::default(),
    ))
    .expect("turn");
    assert_eq!(out.encoded.iter().filter(|m| m.accepted).count(), 2, "the missed turn is encoded with the next");
}

#[test]
fn an_unreachable_model_stores_nothing_for_the_turn() {
    struct Down;
    impl Provider for Down {
        fn label(&self) -> String {
            "down".into()
        }
        async fn complete(&self, _: &Request) -> Result<Completion, ProviderError> {
            Err(ProviderError::Unreachable("connection refused".into()))
        }
    }
    let store = MemStore::new();
    let err = block(chat::chat_turn(&store, &Down, "I live in Lisbon.", NOW, chat::TurnOptions::default()))
        .expect_err("no model");
    assert!(err.to_string().contains("could not be reached"));
    assert!(block(store.transcript()).expect("t").is_empty());
    assert_eq!(store.rows_written(), 0);
}

#[test]
fn the_audit_catches_a_mutation_that_bypassed_the_gates() {
    let store = seeded();
    block(sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(NOW), &mut |_| {})).expect("sleep");
    assert!(block(audit::audit(&store)).expect("audit").problems.is_empty());
    // Forge a drop of two different facts, as if a buggy pass had applied it.
    let head = block(store.meta()).expect("meta").head;
    store.plant_mutation_for_test(Mutation {
        id: 999,
        seq: head,
        pass: PassKind::Dedupe.into(),
        kind: nocturne_core::MutationKind::Drop,
        item_id: "m_5".into(),
        refs: Refs { duplicate_of: Some("m_4".into()), similarity: Some(1.0), ..Default::default() },
        accepted: true,
        reason: "trust me".into(),
        rejection_reason: None,
        policy: Some("duplicate".into()),
        proposer: Proposer::Model,
        at: NOW,
    });
    let report = block(audit::audit(&store)).expect("audit");
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    assert_eq!(report.problems[0].mutation_id, 999);
}

#[test]
fn contradictions_keep_only_current_values_with_their_history() {
    let store = MemStore::new();
    let script = [
        (40.0, "I live in Lisbon. I work as a nurse. My dog is called Rex."),
        (20.0, "I prefer green tea over coffee."),
        (2.0, "I live in Porto. My dog is called Bolt."),
        (1.0, "I work as a teacher."),
    ];
    for (days, text) in script {
        block(chat::chat_turn(
            &store,
            &OfflineProvider,
            text,
            NOW - (days * DAY as f64) as i64,
            chat::TurnOptions::default(),
        ))
        .expect("turn");
    }
    let report = block(sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(NOW), &mut |_| {})).expect("sleep");
    let supersede = report.passes.iter().find(|p| p.event.pass.name() == "supersede").expect("a supersede pass");
    assert_eq!((supersede.event.proposed, supersede.event.accepted, supersede.event.rejected), (3, 3, 0));
    let items = block(store.items()).expect("items");
    let active: Vec<&str> = items.iter().filter(|i| i.active).map(|i| i.text.as_str()).collect();
    for current in ["I live in Porto.", "I work as a teacher.", "My dog is called Bolt."] {
        assert!(active.contains(&current), "{current} is not active: {active:?}");
    }
    for old in ["I live in Lisbon.", "I work as a nurse.", "My dog is called Rex."] {
        assert!(!active.contains(&old), "{old} is still active");
        let row = items.iter().find(|i| i.text == old).expect("kept in history");
        let new =
            items.iter().find(|i| Some(&i.item_id) == row.superseded_by.as_ref()).expect("linked to its successor");
        assert_eq!(row.valid_to, Some(new.created_at), "valid until the newer fact was stated");
        let steps = nocturne_core::store::lineage::lineage(&row.item_id, &block(store.mutations()).expect("log"));
        assert!(steps.iter().any(|s| s.what.starts_with(&format!("superseded by {}", new.item_id))), "{steps:?}");
    }
    let quiz = block(nocturne_core::proof::quiz::wake(&store, &OfflineProvider, NOW)).expect("quiz");
    let probe = quiz.superseded.expect("a question about a changed fact");
    assert!(probe.passed, "{probe:?}");
    assert!(block(audit::audit(&store)).expect("audit").problems.is_empty());
    // Restore brings the old values back, exactly.
    let versions = block(store.versions()).expect("v");
    let before = versions.iter().find(|v| v.label == "pass:supersede:before").expect("marker").seq;
    block(store.restore(before, NOW + 5)).expect("restore");
    let lisbon = block(store.items()).expect("items").into_iter().find(|i| i.text == "I live in Lisbon.").expect("row");
    assert!(lisbon.active && lisbon.valid_to.is_none() && lisbon.superseded_by.is_none());
}

/// The turns the careless models below get wrong: negations and compatible facts.
const CARELESS_TURNS: &[&str] = &[
    "I am not allergic to peanuts.",
    "I don't eat meat and I live in Ghent.",
    "I never drink coffee after noon.",
    "I keep a bearded dragon. I speak Portuguese.",
    "I keep a cat. I speak English. I moved to a new flat last month.",
];

/// Drops every negation cue from what the user said: the commonest small-model slip.
fn drops_negations(req: &Request) -> Option<String> {
    if req.task != Task::Propose(PassKind::Encode) {
        return None;
    }
    let payload: Value = serde_json::from_str(&req.messages.last()?.content).ok()?;
    let mut facts = Vec::new();
    for turn in payload["turns"].as_array()? {
        let text = turn["text"].as_str()?;
        for sentence in text.split(". ").map(|s| s.trim_end_matches('.')) {
            let dropped = sentence.replace("not ", "").replace("don't ", "").replace("never ", "");
            facts.push(json!({"text": format!("{dropped}."), "category": "preferences"}));
        }
    }
    Some(json!({ "facts": facts }).to_string())
}

#[test]
fn a_model_that_drops_negations_stores_nothing_inverted() {
    let store = MemStore::new();
    let provider = Scripted::new(drops_negations);
    for (i, text) in CARELESS_TURNS.iter().enumerate() {
        block(chat::chat_turn(&store, &provider, text, NOW - (10 - i as i64) * DAY, chat::TurnOptions::default()))
            .expect("chat turn");
    }
    let log = block(store.mutations()).expect("log");
    let inverted: Vec<&Mutation> = log
        .iter()
        .filter(|m| !m.accepted && m.rejection_reason.as_deref().is_some_and(|r| r.contains("drops")))
        .collect();
    let reasons: Vec<&str> = inverted.iter().filter_map(|m| m.rejection_reason.as_deref()).collect();
    assert_eq!(inverted.len(), 3, "peanuts, meat and coffee: {reasons:#?}");
    for needle in ["\"not allergic\"", "\"don't eat\"", "\"never drink\""] {
        assert!(reasons.iter().any(|r| r.contains(needle)), "no refusal names {needle}: {reasons:#?}");
    }
    assert!(inverted.iter().all(|m| m.refs.proposal.is_some()), "the raw proposal is kept");
    let active: Vec<String> = block(store.items()).expect("items").into_iter().map(|i| i.text).collect();
    assert!(active.iter().any(|t| t == "I keep a cat."), "facts with no negation still pass: {active:?}");
    assert!(!active.iter().any(|t| t.contains("allergic") || t.contains("meat") || t.contains("coffee")), "{active:?}");
    let (_, total, offenders) = block(audit::sweep(&store)).expect("sweep");
    assert!(total > 0 && offenders.is_empty(), "{offenders:?}");
}

/// Calls every pair of same-verb facts a contradiction, newer over older.
fn supersedes_compatible_facts(req: &Request) -> Option<String> {
    if req.task != Task::Propose(PassKind::Supersede) {
        return None;
    }
    let payload: Value = serde_json::from_str(&req.messages.last()?.content).ok()?;
    let items = payload["items"].as_array()?;
    let verb = |t: &str| t.split_whitespace().nth(1).map(str::to_string);
    let mut out = Vec::new();
    for (i, a) in items.iter().enumerate() {
        for b in &items[i + 1..] {
            let (ta, tb) = (a["text"].as_str()?, b["text"].as_str()?);
            if verb(ta).is_some() && verb(ta) == verb(tb) {
                out.push(json!({"oldId": a["itemId"], "newId": b["itemId"], "reason": "a newer value"}));
            }
        }
    }
    Some(json!({ "supersede": out }).to_string())
}

#[test]
fn a_model_that_supersedes_compatible_facts_retires_nothing() {
    let store = MemStore::new();
    for (i, text) in CARELESS_TURNS.iter().enumerate() {
        block(chat::chat_turn(
            &store,
            &OfflineProvider,
            text,
            NOW - (10 - i as i64) * DAY,
            chat::TurnOptions::default(),
        ))
        .expect("chat turn");
    }
    let provider = Scripted::new(supersedes_compatible_facts);
    let report = block(sleep::sleep(&store, &provider, &SleepOptions::new(NOW), &mut |_| {})).expect("sleep");
    let supersede = report.passes.iter().find(|p| p.event.pass == PassKind::Supersede).expect("a supersede pass");
    assert!(supersede.event.proposed >= 2, "the careless model proposed {}", supersede.event.proposed);
    assert_eq!(supersede.event.accepted, 0, "{:#?}", supersede.mutations);
    let reasons: Vec<&str> = supersede.mutations.iter().filter_map(|m| m.rejection_reason.as_deref()).collect();
    assert!(reasons.iter().any(|r| r.contains("\"keep\" can hold several values")), "{reasons:#?}");
    assert!(reasons.iter().any(|r| r.contains("\"speak\" can hold several values")), "{reasons:#?}");
    let active: Vec<String> =
        block(store.items()).expect("items").into_iter().filter(|i| i.active).map(|i| i.text).collect();
    for both in ["I keep a bearded dragon.", "I keep a cat.", "I speak Portuguese.", "I speak English."] {
        assert!(active.iter().any(|t| t == both), "{both} left the active set: {active:?}");
    }
}

#[test]
fn after_an_offline_sleep_only_the_newer_of_an_opposite_pair_stays_active() {
    let store = MemStore::new();
    for (days, text) in [(40, "I live in Lisbon. I eat meat."), (1, "I no longer live in Lisbon. I don't eat meat.")] {
        block(chat::chat_turn(&store, &OfflineProvider, text, NOW - days * DAY, chat::TurnOptions::default()))
            .expect("chat turn");
    }
    let report = block(sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(NOW), &mut |_| {})).expect("sleep");
    let dedupe = report.passes.iter().find(|p| p.event.pass == PassKind::Dedupe).expect("dedupe");
    assert_eq!(dedupe.event.accepted, 0, "opposites are not duplicates: {:#?}", dedupe.mutations);
    let items = block(store.items()).expect("items");
    let active: Vec<&str> = items.iter().filter(|i| i.active).map(|i| i.text.as_str()).collect();
    assert!(active.contains(&"I no longer live in Lisbon.") && active.contains(&"I don't eat meat."), "{active:?}");
    for old in ["I live in Lisbon.", "I eat meat."] {
        let row = items.iter().find(|i| i.text == old).expect("kept as history");
        assert!(!row.active && row.superseded_by.is_some(), "{old} is still current");
    }
    assert!(block(audit::audit(&store)).expect("audit").problems.is_empty());
}

#[test]
fn a_sleep_stopped_after_merge_keeps_two_passes_and_the_next_sleep_starts_cleanly() {
    let store = seeded();
    let options = SleepOptions::new(NOW);
    let stop = options.stop.clone();
    let result = block(sleep::sleep(&store, &OfflineProvider, &options, &mut |ev| {
        if ev.name() == "pass:merge:done" {
            stop.stop();
        }
    }));
    match result {
        Err(sleep::SleepError::Stopped { after: Some(PassKind::Merge) }) => {}
        other => panic!("expected a stop after merge, got {other:?}"),
    }
    let labels: Vec<String> = block(store.versions()).expect("versions").into_iter().map(|v| v.label).collect();
    assert_eq!(labels.last().map(String::as_str), Some("pass:merge:after"), "{labels:?}");
    assert!(!labels.iter().any(|l| l.contains("supersede")), "nothing of the stopped pass was written");
    let message = sleep::SleepError::Stopped { after: Some(PassKind::Merge) }.to_string();
    assert!(message.starts_with("stopped by the user after pass merge"), "{message}");
    // Resumable: a new Sleep runs every pass over what the stopped one kept.
    let report = block(sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(NOW), &mut |_| {})).expect("sleep");
    assert_eq!(report.passes.len(), PassKind::SLEEP.len());
    assert!(block(audit::audit(&store)).expect("audit").problems.is_empty());
}

#[test]
fn a_chat_over_thousands_of_facts_carries_a_bounded_memory_with_the_relevant_fact() {
    let store = MemStore::new();
    let mut items: Vec<nocturne_core::Item> = (1..=3000)
        .map(|n| {
            let block = if n % 10 == 0 { Block::Human } else { Block::Scratch };
            let text = format!("Note {n}: the weekly errands list has item {n} on it.");
            nocturne_core::testkit::conformance::fact(n, block, &text, NOW - n as i64)
        })
        .collect();
    items.push(nocturne_core::Item {
        item_id: "m_3001".into(),
        text: "My dog is called Bolt.".into(),
        ..items[0].clone()
    });
    block(store.commit(Commit { at: NOW, label: Some("bulk".into()), items, ..Default::default() })).expect("bulk");
    let seen = RefCell::new(String::new());
    let provider = Scripted::new(|req: &Request| {
        if req.task == Task::Chat {
            *seen.borrow_mut() = req.messages[0].content.clone();
        }
        None
    });
    let turn = block(chat::chat_turn(&store, &provider, "What is my dog called?", NOW, chat::TurnOptions::default()))
        .expect("turn");
    let system = seen.borrow().clone();
    let lines = nocturne_core::llm::prompt::memory_lines(&system);
    let section = &system[system.find(nocturne_core::llm::prompt::MEMORY_HEADER).expect("a memory section")..];
    let tokens = nocturne_core::llm::provider::estimate_tokens(section);
    assert!(tokens <= nocturne_core::llm::provider::DEFAULT_MEMORY_TOKENS + 60, "{tokens} tokens of memory");
    assert!(lines.len() < 3001 && system.contains("more facts are stored"), "the prompt says facts were left out");
    assert!(lines.iter().any(|(_, t)| t == "My dog is called Bolt."), "the relevant fact was selected");
    assert!(section.contains("said on "), "under the heading of the day it was said");
    assert!(turn.reply.contains("Bolt"), "the reply: {}", turn.reply);
}

#[test]
fn regression_a_fact_promoted_by_one_sleep_meets_its_new_blocks_facts_in_the_next() {
    let store = MemStore::new();
    // Unsized blocks: a supersession stays within one block.
    block(store.set_policy(RetentionPolicy { human_tokens: None, ..Default::default() })).expect("policy");
    let sleep_at = |at: i64| block(sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(at), &mut |_| {}));
    block(chat::chat_turn(&store, &OfflineProvider, "I live in Lisbon.", NOW - 40 * DAY, chat::TurnOptions::default()))
        .expect("turn");
    sleep_at(NOW - 40 * DAY + 60).expect("first sleep");
    block(chat::chat_turn(&store, &OfflineProvider, "I live in Porto.", NOW - 2 * DAY, chat::TurnOptions::default()))
        .expect("turn");
    let second = sleep_at(NOW - 2 * DAY + 60).expect("second sleep");
    let row = |text: &str| block(store.items()).expect("items").into_iter().find(|i| i.text == text).expect(text);
    // Porto was said into scratch and promoted to human after Supersede had run, so it
    // has not met Lisbon in the block they now share.
    assert_eq!(second.fresh, Some(1));
    assert!(row("I live in Lisbon.").active, "{second:?}");
    assert_eq!(row("I live in Porto.").block, Block::Human);
    let third = sleep_at(NOW).expect("third sleep");
    assert_eq!(third.fresh, Some(0), "the second Sleep's own edits are not new to the third");
    let lisbon = row("I live in Lisbon.");
    assert!(!lisbon.active, "the promoted fact was not compared in its new block: {third:?}");
    assert_eq!(lisbon.superseded_by, Some(row("I live in Porto.").item_id));
    let supersede = third.passes.iter().find(|p| p.event.pass == PassKind::Supersede).expect("supersede");
    assert_eq!(supersede.calls, 1, "one pair, one call");
}

/// Files every promise the user states twice, as Gemma 3 270M did in the verifier (the
/// drill promise as `commitments` and again as `event`), and every other statement as an
/// `event`.
fn files_promises_twice(req: &Request) -> Option<String> {
    if req.task != Task::Propose(PassKind::Encode) {
        return None;
    }
    let payload: Value = serde_json::from_str(&req.messages.last()?.content).ok()?;
    let mut facts = Vec::new();
    for turn in payload["turns"].as_array()? {
        for sentence in turn["text"].as_str()?.split(". ") {
            let text = format!("{}.", sentence.trim_end_matches('.'));
            if text.contains("promised") {
                facts.push(json!({"text": text, "category": "commitments"}));
            }
            facts.push(json!({"text": text, "category": "event"}));
        }
    }
    Some(json!({ "facts": facts }).to_string())
}

/// Gemma 3 270M in `scripts/test.sh`: a promise stored under two categories fell due only
/// as `commitments`, and the forgotten probe found the other copy; a promise filed only as
/// an `event` never fell due at all. A commitment is read from its words as well.
#[test]
fn regression_a_promise_stored_under_two_categories_falls_due_as_one() {
    let store = MemStore::new();
    let said = NOW - 45 * DAY;
    for text in [
        "I promised Marco I would return his drill by Monday.",
        "I have to renew my passport by 20 November 2025. I will move to Porto in December 2025.",
    ] {
        block(chat::chat_turn(&store, &Scripted::new(files_promises_twice), text, said, chat::TurnOptions::default()))
            .expect("chat turn");
    }
    let stored = block(store.items()).expect("items");
    let drill: Vec<_> = stored.iter().filter(|i| i.text.contains("drill")).map(|i| i.category.as_str()).collect();
    assert_eq!(drill, ["commitments"], "the encoder keeps one statement once, whatever category each copy had");
    // The second copy, as an encoder before that rule stored it.
    let head = block(store.meta()).expect("meta").head;
    let first = stored.iter().find(|i| i.text.contains("drill")).expect("the promise");
    let copy = Item { item_id: "m_100".into(), category: "event".into(), ..first.clone() };
    let commit =
        Commit { at: said, label: Some("copy".into()), items: vec![copy], base: Some(head), ..Default::default() };
    block(store.commit(commit)).expect("the second copy");
    block(sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(NOW), &mut |_| {})).expect("sleep");
    let items = block(store.items()).expect("items");
    let active: Vec<&str> = items.iter().filter(|i| i.active).map(|i| i.text.as_str()).collect();
    assert!(!active.iter().any(|t| t.contains("drill") || t.contains("passport")), "past their date: {active:?}");
    assert!(
        active.iter().any(|t| t.contains("Porto")),
        "a plan is no promise, and what it was about stays: {active:?}"
    );
    let log = block(store.mutations()).expect("log");
    let due = log.iter().filter(|m| m.accepted && m.policy.as_deref() == Some("due")).count();
    assert!(due >= 2, "the drill and the passport fell due: {due}");
    assert!(block(audit::audit(&store)).expect("audit").problems.is_empty());
}

#[test]
fn a_sleep_estimate_worked_out_in_steps_is_the_whole_estimate() {
    use nocturne_core::flow::estimate::{EstimateInput, Estimating};
    use nocturne_core::llm::provider::ProposalStyle;
    use nocturne_core::testkit::adversarial::{self, Shape};
    // The scripted conversation, slept once (so an incremental estimate has a fresh set),
    // then 300 facts said over the year before (some stale, some one slot said again).
    let store = seeded();
    block(sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(NOW), &mut |_| {})).expect("sleep");
    let head = block(store.meta()).expect("meta").head;
    let said = adversarial::facts(Shape::OneSlot, 150, 1000, NOW, 3).into_iter().chain(adversarial::facts(
        Shape::FewWords,
        150,
        2000,
        NOW,
        4,
    ));
    let commit =
        Commit { at: NOW, label: Some("bulk".into()), items: said.collect(), base: Some(head), ..Default::default() };
    block(store.commit(commit)).expect("bulk load");
    // Half a year on: the scratch facts said long ago are stale.
    let later = NOW + 180 * DAY;
    for options in [SleepOptions::new(later), SleepOptions::new(later).deep()] {
        let whole = block(nocturne_core::flow::estimate::estimate(&store, ProposalStyle::FreeText, &options))
            .expect("estimate");
        assert!(whole.calls > 0 && whole.retire > 0 && whole.active > 300, "a memory worth estimating: {whole:?}");
        let basis = block(EstimateInput::read(&store, &options)).expect("basis");
        for facts in [0, 1, 7, 1000] {
            let mut estimating = Estimating::new(&basis, ProposalStyle::FreeText, &options);
            let mut steps = 1;
            let stepped = loop {
                match estimating.step(facts) {
                    Some(e) => break e,
                    None => steps += 1,
                }
            };
            assert_eq!(stepped, whole, "{facts} facts a step");
            // The retention rules a step of `facts` at a time, then two steps per pass.
            let ruled = whole.active.div_ceil(facts.max(1));
            assert_eq!(steps, ruled + 2 * PassKind::SLEEP.len(), "{facts} facts a step");
        }
    }
}
