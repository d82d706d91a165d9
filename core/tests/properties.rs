//! Property tests over random stores and random proposals: whatever a model sends, an
//! accepted edit satisfies its gate's rule, and no gate panics.

use nocturne_core::gate::{Edit, Ground, Judge, Verdict};
use nocturne_core::model::memory::{Block, Item};
use nocturne_core::text::pairs::{self, Bounds, PairInput};
use nocturne_core::text::polarity;
use nocturne_core::text::textmath;
use nocturne_core::PassKind;
use nocturne_core::{RetentionPolicy, DAY};
use proptest::prelude::*;
use proptest::test_runner::{RngAlgorithm, TestCaseError, TestRng, TestRunner};
use serde_json::{json, Value};
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};

const NOW: i64 = 1_767_225_600;
const WORDS: &[&str] = &[
    "the", "user", "lives", "in", "Lisbon", "Porto", "kettle", "kitchen", "leaks", "dragon", "bearded", "Saffron",
    "works", "best", "morning", "promised", "Ana", "thesis", "postgres", "box", "backup", "and", "is", "broken",
];
const CATEGORIES: &[&str] = &["identity", "preferences", "commitments", "event", "context"];

/// Facts a store holds: random word salad, and restatements and rival values that give
/// Dedupe, Merge and Supersede something to accept.
const FACTS: &[&str] = &[
    "The user lives in Lisbon.",
    "I live in Lisbon.",
    "The user lives in Porto.",
    "The kettle is broken.",
    "The kitchen leaks and the kettle is broken.",
    "The user keeps a bearded dragon.",
    "The user keeps a bearded dragon called Saffron.",
    "My dog is called Rex.",
    "My dog is called Bolt.",
    "I work as a nurse.",
    "I work as a teacher.",
];

fn sentence() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(prop::sample::select(WORDS), 1..7).prop_map(|w| {
            let mut s = w.join(" ");
            s.push('.');
            s
        }),
        2 => prop::sample::select(FACTS).prop_map(String::from),
    ]
}

/// A store with proposals that name its own items (so some can be accepted), mixed with
/// the free-form ones of [`proposal`].
fn store_with(pass: PassKind) -> BoxedStrategy<(BTreeMap<String, Item>, Vec<Value>)> {
    let stores = if pass == PassKind::Supersede { slot_store().boxed() } else { store().boxed() };
    stores
        .prop_flat_map(move |items| {
            let by_age: BTreeMap<String, (i64, u64)> =
                items.iter().map(|(k, v)| (k.clone(), (v.created_at, v.ordinal()))).collect();
            let ids: Vec<String> = items.keys().cloned().collect();
            let texts: BTreeMap<String, String> = items.iter().map(|(k, v)| (k.clone(), v.text.clone())).collect();
            let grounded = (
                prop::sample::select(ids.clone()),
                prop::sample::subsequence(ids.clone(), 0..=ids.len().min(3)),
            )
                .prop_map(move |(a, rest)| {
                    let b = rest.first().cloned().unwrap_or_else(|| a.clone());
                    match pass {
                        PassKind::Dedupe => json!({"itemId": a, "duplicateOf": b, "reason": "same"}),
                        PassKind::Supersede => {
                            // Older first: the order a careful model would give.
                            let (old, new) = if by_age[&a] <= by_age[&b] { (a, b) } else { (b, a) };
                            json!({"oldId": old, "newId": new, "reason": "newer"})
                        }
                        _ => {
                            let from: Vec<&String> = rest.iter().filter(|id| **id != a).collect();
                            let merged: Vec<&str> =
                                std::iter::once(&a).chain(from.iter().copied()).map(|id| texts[id].as_str()).collect();
                            json!({"intoId": a, "fromIds": from, "mergedText": merged.join(" "), "reason": "one thing"})
                        }
                    }
                });
            let one = prop_oneof![3 => grounded, 1 => proposal(pass)];
            (Just(items), prop::collection::vec(one, 0..10))
        })
        .boxed()
}

fn store() -> impl Strategy<Value = BTreeMap<String, Item>> {
    store_of(sentence().boxed())
}

/// A store whose facts are all from [`FACTS`]: rival values of one-value slots.
fn slot_store() -> impl Strategy<Value = BTreeMap<String, Item>> {
    store_of(prop::sample::select(FACTS).prop_map(String::from).boxed())
}

fn store_of(sentence: BoxedStrategy<String>) -> impl Strategy<Value = BTreeMap<String, Item>> {
    prop::collection::vec(
        (sentence, prop_oneof![1 => 0..3usize, 3 => Just(3usize)], 0..5usize, 0..90i64, prop::bool::weighted(0.85)),
        1..14,
    )
    .prop_map(|rows| {
        rows.into_iter()
            .enumerate()
            .map(|(n, (text, b, c, age, active))| {
                let id = format!("m_{}", n + 1);
                let item = Item {
                    item_id: id.clone(),
                    block: Block::ALL[b],
                    text,
                    category: CATEGORIES[c].into(),
                    source_turn: None,
                    created_at: NOW - age * DAY,
                    updated_at: NOW,
                    active,
                    valid_from: None,
                    valid_to: None,
                    superseded_by: None,
                    pinned: false,
                    speaker: None,
                    sources: Vec::new(),
                };
                (id, item)
            })
            .collect()
    })
}

fn id() -> impl Strategy<Value = Value> {
    prop_oneof![
        8 => (1..16usize).prop_map(|n| json!(format!("m_{n}"))),
        1 => Just(json!(7)),
        1 => Just(Value::Null),
    ]
}

fn reason() -> impl Strategy<Value = Value> {
    prop_oneof![4 => Just(json!("because")), 1 => Just(json!("")), 1 => Just(Value::Null)]
}

fn proposal(pass: PassKind) -> BoxedStrategy<Value> {
    match pass {
        PassKind::Dedupe => {
            (id(), id(), reason()).prop_map(|(a, b, r)| json!({"itemId": a, "duplicateOf": b, "reason": r})).boxed()
        }
        PassKind::Merge => (id(), prop::collection::vec(id(), 0..3), sentence(), reason())
            .prop_map(|(a, f, t, r)| json!({"intoId": a, "fromIds": f, "mergedText": t, "reason": r}))
            .boxed(),
        PassKind::Promote => {
            (id(), prop::sample::select(&["human", "persona", "episodes", "scratch", "attic"][..]), reason())
                .prop_map(|(a, b, r)| json!({"itemId": a, "toBlock": b, "reason": r}))
                .boxed()
        }
        PassKind::Forget => {
            (id(), reason()).prop_map(|(a, r)| json!({"itemId": a, "reason": r, "policy": "stale"})).boxed()
        }
        PassKind::Encode => (sentence(), prop::sample::select(CATEGORIES))
            .prop_map(|(t, c)| json!({"text": t, "category": c, "block": "scratch"}))
            .boxed(),
        PassKind::Supersede => {
            (id(), id(), reason()).prop_map(|(a, b, r)| json!({"oldId": a, "newId": b, "reason": r})).boxed()
        }
    }
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        ".{0,12}".prop_map(Value::from)
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(
                prop::sample::select(
                    &["itemId", "duplicateOf", "intoId", "fromIds", "mergedText", "toBlock", "reason", "text"][..]
                )
                .prop_map(String::from),
                inner,
                0..5
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn judge_all(
    pass: PassKind,
    items: &BTreeMap<String, Item>,
    policy: &RetentionPolicy,
    transcript: &[String],
    proposals: &[Value],
) -> Vec<Verdict> {
    let ground = Ground { items, policy, now: NOW, transcript, turns: &[] };
    let mut judge = Judge::new(pass, ground);
    proposals.iter().map(|p| judge.judge(p)).collect()
}

/// Negation cues a careless model drops.
const CUES: &[&str] = &["don't", "do not", "never", "no longer", "can't", "didn’t", "stopped"];

/// A scratch fact, the test kit's, `n` seconds old.
fn fact(n: u64, text: &str) -> Item {
    nocturne_core::testkit::conformance::fact(n, Block::Scratch, text, NOW - n as i64)
}

fn transcript() -> Vec<String> {
    vec![
        "user: I live in Lisbon and work best in the morning.".into(),
        "user: The kitchen leaks and the kettle is broken.".into(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_fact_and_its_negation_are_never_duplicates(words in prop::collection::vec(prop::sample::select(WORDS), 1..6), cue in prop::sample::select(CUES)) {
        let (plain, negated) = (format!("I {}.", words.join(" ")), format!("I {cue} {}.", words.join(" ")));
        let items: BTreeMap<String, Item> = [fact(1, &plain), fact(2, &negated)].into_iter().map(|i| (i.item_id.clone(), i)).collect();
        let proposals = [json!({"itemId": "m_2", "duplicateOf": "m_1", "reason": "same"}), json!({"itemId": "m_1", "duplicateOf": "m_2", "reason": "same"})];
        for v in judge_all(PassKind::Dedupe, &items, &RetentionPolicy::default(), &[], &proposals) {
            prop_assert!(!v.is_accepted(), "{plain} / {negated} dropped as duplicates");
        }
    }

    #[test]
    fn a_fact_and_its_negation_are_never_both_traceable_to_one_clause(words in prop::collection::vec(prop::sample::select(WORDS), 1..6), cue in prop::sample::select(CUES), said_negated in any::<bool>()) {
        // One clause: no conjunction splits it.
        prop_assume!(!words.contains(&"and"));
        let (plain, negated) = (format!("I {}.", words.join(" ")), format!("I {cue} {}.", words.join(" ")));
        let said = if said_negated { &negated } else { &plain };
        let lines = vec![format!("user: {said}")];
        let proposals = [json!({"text": plain}), json!({"text": negated})];
        let accepted = judge_all(PassKind::Encode, &BTreeMap::new(), &RetentionPolicy::default(), &lines, &proposals)
            .iter().filter(|v| v.is_accepted()).count();
        prop_assert!(accepted <= 1, "both '{plain}' and '{negated}' traced to '{said}'");
    }

    #[test]
    fn gates_never_panic_on_any_json(items in store(), junk in prop::collection::vec(any_json(), 0..6)) {
        let policy = RetentionPolicy::default();
        for pass in [PassKind::Encode, PassKind::Dedupe, PassKind::Merge, PassKind::Promote, PassKind::Forget, PassKind::Supersede] {
            let verdicts = judge_all(pass, &items, &policy, &transcript(), &junk);
            prop_assert_eq!(verdicts.len(), junk.len());
            for v in verdicts {
                if let Verdict::Refuse(r) = v { prop_assert!(!r.is_empty()); }
            }
        }
    }

    #[test]
    fn indexed_duplicate_pairs_equal_brute_force(texts in prop::collection::vec(sentence(), 0..40), threshold in prop::sample::select(&[0.5, 0.6, 0.75, 0.8, 0.9, 1.0][..])) {
        let facts: Vec<PairInput<'_>> = texts.iter().enumerate().map(|(i, t)| PairInput { text: t, rank: (i % 3) as i64, created_at: (i % 5) as i64 }).collect();
        prop_assert_eq!(pairs::duplicate_pairs(&facts, threshold), pairs::duplicate_pairs_brute_force(&facts, threshold));
    }

    #[test]
    fn bounded_duplicate_pairs_are_exact_unless_a_bound_binds_and_always_qualify(
        texts in prop::collection::vec(sentence(), 0..40),
        threshold in prop::sample::select(&[0.5, 0.75, 0.9, 1.0][..]),
        probes in 1usize..40,
        partners in 1usize..6,
    ) {
        let facts: Vec<PairInput<'_>> = texts.iter().enumerate().map(|(i, t)| PairInput { text: t, rank: (i % 3) as i64, created_at: (i % 5) as i64 }).collect();
        let all = pairs::duplicate_pairs_brute_force(&facts, threshold);
        let (roomy, work) = pairs::duplicate_pairs_bounded(&facts, threshold, Bounds::default());
        prop_assert_eq!(work.left, 0, "no fact of 40 meets the default bounds");
        prop_assert_eq!(&roomy, &all);
        let (tight, work) = pairs::duplicate_pairs_bounded(&facts, threshold, Bounds { probes, partners });
        for p in &tight {
            prop_assert!(all.contains(p), "{:?} does not qualify", p);
        }
        if tight != all {
            prop_assert!(work.left > 0, "the bounds dropped pairs and counted none");
        }
    }
}

/// Runs a property over 300 generated cases and counts the edits the gates accepted: a
/// property about accepted edits proves nothing if its generator stops producing them,
/// so fewer than `at_least` accepted edits fails the test.
fn accepted_property<S: Strategy>(
    name: &str,
    strategy: S,
    at_least: usize,
    property: impl Fn(S::Value) -> Result<usize, TestCaseError>,
) {
    // A fixed seed: the count of accepted edits is then a stable fact about the generator.
    let config = ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let accepted = Cell::new(0);
    if let Err(e) = runner.run(&strategy, |v| {
        accepted.set(accepted.get() + property(v)?);
        Ok(())
    }) {
        panic!("{name}: {e}");
    }
    println!("{name}: {} accepted edits in 300 cases", accepted.get());
    assert!(accepted.get() >= at_least, "{name}: only {} accepted edits in 300 cases", accepted.get());
}

#[test]
fn accepted_drops_reach_the_threshold_and_never_chain() {
    let strategy = store_with(PassKind::Dedupe);
    accepted_property("dedupe", strategy, 15, |(items, proposals)| {
        let policy = RetentionPolicy::default();
        let (mut dropped, mut keepers, mut n) = (BTreeSet::new(), BTreeSet::new(), 0);
        for v in judge_all(PassKind::Dedupe, &items, &policy, &[], &proposals) {
            if let Verdict::Accept(Edit::Drop { item_id, duplicate_of, .. }) = v {
                let sim = textmath::similarity(&items[&item_id].text, &items[&duplicate_of].text);
                prop_assert!(textmath::reaches(sim, policy.similarity_threshold));
                prop_assert!(!polarity::opposite(&items[&item_id].text, &items[&duplicate_of].text));
                prop_assert!(items[&item_id].active && items[&duplicate_of].active);
                prop_assert!(item_id != duplicate_of);
                prop_assert!(
                    !dropped.contains(&duplicate_of) && !keepers.contains(&item_id),
                    "a chain through {item_id}/{duplicate_of}"
                );
                prop_assert!(dropped.insert(item_id));
                keepers.insert(duplicate_of);
                n += 1;
            }
        }
        Ok(n)
    });
}

#[test]
fn accepted_merges_are_fully_traceable_and_name_no_one_new() {
    let strategy = store_with(PassKind::Merge);
    accepted_property("merge", strategy, 50, |(items, proposals)| {
        let mut n = 0;
        // Traceability holds under any policy; the generator's random pairs rarely share a
        // subject, which the atomic-merge rule (tested on its own) would require.
        let policy = RetentionPolicy { merge_max_words: None, ..Default::default() };
        for v in judge_all(PassKind::Merge, &items, &policy, &[], &proposals) {
            if let Verdict::Accept(Edit::Merge { into_id, from_ids, merged_text }) = v {
                let sources: Vec<&str> =
                    std::iter::once(&into_id).chain(&from_ids).map(|id| items[id].text.as_str()).collect();
                prop_assert!(textmath::coverage(&merged_text, sources.iter().copied()).is_full());
                prop_assert!(textmath::new_proper_nouns(&merged_text, sources.iter().copied()).is_empty());
                let block = items[&into_id].block;
                prop_assert!(from_ids.iter().all(|id| items[id].block == block && items[id].active));
                n += 1;
            }
        }
        Ok(n)
    });
}

#[test]
fn accepted_facts_are_traceable_to_the_transcript() {
    let strategy = prop::collection::vec(proposal(PassKind::Encode), 0..8);
    accepted_property("encode", strategy, 100, |proposals| {
        let lines = transcript();
        let stripped: Vec<&str> = lines.iter().map(|l| nocturne_core::gate::strip_role(l)).collect();
        let mut n = 0;
        for v in judge_all(PassKind::Encode, &BTreeMap::new(), &RetentionPolicy::default(), &lines, &proposals) {
            if let Verdict::Accept(Edit::Add { text, .. }) = v {
                prop_assert!(textmath::coverage(&text, stripped.iter().copied()).is_full(), "{text}");
                prop_assert!(textmath::new_proper_nouns(&text, stripped.iter().copied()).is_empty(), "{text}");
                prop_assert!(polarity::keeps_polarity(&text, &stripped, "said", "fact").is_ok(), "{text}");
                n += 1;
            }
        }
        Ok(n)
    });
}

#[test]
fn accepted_forgets_are_authorised() {
    let strategy = (store(), 1..12usize, prop::collection::vec(proposal(PassKind::Forget), 0..10));
    accepted_property("forget", strategy, 50, |(items, cap, proposals)| {
        let policy = RetentionPolicy { max_active_facts: Some(cap), ..Default::default() };
        let overflow = policy.overflow(items.values(), NOW);
        let mut n = 0;
        for v in judge_all(PassKind::Forget, &items, &policy, &[], &proposals) {
            if let Verdict::Accept(Edit::Forget { item_id, .. }) = v {
                let item = &items[&item_id];
                prop_assert!(!policy.is_protected(&item.category));
                prop_assert!(policy.is_stale(item, NOW) || overflow.contains(&item_id));
                n += 1;
            }
        }
        Ok(n)
    });
}

#[test]
fn accepted_promotions_go_to_a_promotion_block() {
    let strategy = (store(), prop::collection::vec(proposal(PassKind::Promote), 0..8));
    accepted_property("promote", strategy, 50, |(items, proposals)| {
        let mut n = 0;
        for v in judge_all(PassKind::Promote, &items, &RetentionPolicy::default(), &[], &proposals) {
            if let Verdict::Accept(Edit::Promote { item_id, from, to }) = v {
                prop_assert!(Block::PROMOTION_TARGETS.contains(&to));
                prop_assert!(from != to && items[&item_id].active);
                n += 1;
            }
        }
        Ok(n)
    });
}

#[test]
fn accepted_supersessions_are_newer_conflicting_facts_of_one_block_unless_blocks_are_sized() {
    let strategy = store_with(PassKind::Supersede);
    accepted_property("supersede", strategy, 10, |(items, proposals)| {
        let mut n = 0;
        for policy in [RetentionPolicy::default(), RetentionPolicy { human_tokens: None, ..Default::default() }] {
            for v in judge_all(PassKind::Supersede, &items, &policy, &[], &proposals) {
                if let Verdict::Accept(Edit::Supersede { old_id, new_id, .. }) = v {
                    let (old, new) = (&items[&old_id], &items[&new_id]);
                    prop_assert!(old.active && new.active);
                    prop_assert!(
                        old.block == new.block || policy.human_tokens.is_some(),
                        "across blocks with unsized blocks"
                    );
                    prop_assert!((new.created_at, new.ordinal()) > (old.created_at, old.ordinal()));
                    let (a, b) = (textmath::content_tokens(&old.text), textmath::content_tokens(&new.text));
                    let conflict = textmath::conflicts(&a, &b, policy.similarity_threshold);
                    let opposite = polarity::opposite(&old.text, &new.text)
                        && textmath::reaches(textmath::similarity(&old.text, &new.text), policy.similarity_threshold);
                    prop_assert!(conflict || opposite);
                    n += 1;
                }
            }
        }
        Ok(n)
    });
}
