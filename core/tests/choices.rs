//! Proposals chosen from candidates: in that style every request's JSON Schema allows
//! only what the code prepared — the user's own statements for the encoder, the engine's
//! pairs and eligible ids for the Sleep passes — and a pass with nothing to choose makes
//! no call. The `auto` style moves to candidates when free text is mostly refused.

use nocturne_core::llm::prompt::{self, Budget};
use nocturne_core::llm::provider::{AutoStyle, ProposalStyle};
use nocturne_core::model::candidate::{Candidates, DuplicateCandidate};
use nocturne_core::model::policy::RetentionPolicy;
use nocturne_core::text::statements;
use nocturne_core::{Block, Item, PassKind, DAY};

const NOW: i64 = 1_767_225_600;

/// The test kit's fact, in `category`, `age_days` old.
fn fact(n: u64, block: Block, category: &str, text: &str, age_days: i64) -> Item {
    let at = NOW - age_days * DAY;
    Item { category: category.into(), ..nocturne_core::testkit::conformance::fact(n, block, text, at) }
}

#[test]
fn the_encoder_schema_allows_exactly_the_users_statements() {
    let offered = statements::statements(&["I am not allergic to peanuts and I live in Ghent. How are you?"]);
    let request = prompt::encode_choice_request(&offered);
    let schema = &request.json.expect("a schema").schema;
    let allowed = &schema["properties"]["facts"]["items"]["properties"]["text"]["enum"];
    assert_eq!(allowed, &serde_json::json!(["I am not allergic to peanuts.", "I live in Ghent."]));
    assert_eq!(schema["properties"]["facts"]["maxItems"], 2);
    assert!(request.max_tokens >= 40, "the reply budget grows with the candidates");
}

#[test]
fn sleep_requests_offer_only_the_engines_candidates_and_skip_empty_passes() {
    let items = [
        fact(1, Block::Scratch, "identity", "I live in Lisbon.", 1),
        fact(2, Block::Scratch, "identity", "The user lives in Lisbon.", 1),
        fact(3, Block::Scratch, "context", "The kettle is broken.", 90),
    ];
    let refs: Vec<&Item> = items.iter().collect();
    let policy = nocturne_core::testkit::article_policy(); // forgetting by age: forget has proposals
    let pairs = Candidates::Duplicates(vec![DuplicateCandidate {
        drop_id: "m_2".into(),
        keeper_id: "m_1".into(),
        similarity: 1.0,
    }]);
    let ask = |pass, c: &Candidates| {
        prompt::pass_requests(pass, &refs, c, &policy, NOW, &Budget::default(), ProposalStyle::Candidates)
    };
    let dedupe = ask(PassKind::Dedupe, &pairs);
    assert_eq!(dedupe.len(), 1);
    let any_of = &dedupe[0].json.as_ref().expect("schema").schema["properties"]["drop"]["items"]["anyOf"];
    assert_eq!(any_of.as_array().map(Vec::len), Some(1));
    assert_eq!(any_of[0]["properties"]["itemId"]["const"], "m_2");
    assert_eq!(any_of[0]["properties"]["duplicateOf"]["const"], "m_1");
    let promote = ask(PassKind::Promote, &Candidates::None);
    let offered = &promote[0].json.as_ref().expect("schema").schema["properties"]["promote"]["items"]["anyOf"];
    assert_eq!(offered.as_array().map(Vec::len), Some(2), "the two identity facts; context has no target");
    let forget = ask(PassKind::Forget, &Candidates::None);
    let offered = &forget[0].json.as_ref().expect("schema").schema["properties"]["forget"]["items"]["anyOf"];
    assert_eq!(offered[0]["properties"]["itemId"]["const"], "m_3", "only the stale unprotected fact");
    assert_eq!(offered[0]["properties"]["policy"]["const"], "stale");
    assert!(ask(PassKind::Supersede, &Candidates::Conflicts(vec![])).is_empty(), "nothing to choose: no call");
}

#[test]
fn auto_moves_to_candidates_when_free_text_is_mostly_refused() {
    let mut auto = AutoStyle::for_model("llama-3.1-70b");
    assert_eq!(auto.style, ProposalStyle::FreeText);
    auto.observe(3, 3);
    assert_eq!(auto.style, ProposalStyle::FreeText, "three proposals are too few to judge");
    auto.observe(3, 1);
    assert_eq!(auto.style, ProposalStyle::Candidates, "4 of 6 refused");
    assert_eq!(AutoStyle::for_model("SmolLM2-135M-Instruct").style, ProposalStyle::Candidates);
    let mut good = AutoStyle::for_model("gpt-4o");
    good.observe(10, 2);
    assert_eq!(good.style, ProposalStyle::FreeText);
}

/// Verify's dry run, its two policy dry runs and its Sleep asked every pass again because
/// the cap, which only Forget reads, was in every request: a request differs only where
/// the pass reads it.
#[test]
fn regression_a_cap_only_forget_reads_changes_only_forgets_requests() {
    let items: Vec<Item> = (1..=4)
        .map(|n| {
            Item::new_fact(n, Block::Scratch, "identity", &format!("I keep note {n} on shelf {n}."), NOW - 40 * DAY)
        })
        .collect();
    let refs: Vec<&Item> = items.iter().collect();
    let capped = |cap| RetentionPolicy {
        max_active_facts: Some(cap),
        stale_after_days: Some(30.0),
        ..RetentionPolicy::default()
    };
    let ask = |pass, policy: &RetentionPolicy| {
        prompt::pass_requests(pass, &refs, &Candidates::None, policy, NOW, &Budget::default(), ProposalStyle::FreeText)
    };
    for pass in [PassKind::Dedupe, PassKind::Merge, PassKind::Supersede, PassKind::Promote] {
        assert_eq!(ask(pass, &capped(120)), ask(pass, &capped(6)), "{pass:?} asks the same under either cap");
        let said = serde_json::to_string(&ask(pass, &capped(6))).expect("json");
        assert!(!said.contains("maxActiveFacts") && !said.contains("staleAfterDays"), "{pass:?}: {said}");
    }
    assert_ne!(ask(PassKind::Forget, &capped(120)), ask(PassKind::Forget, &capped(6)), "Forget reads the cap");
    let forget = serde_json::to_string(&ask(PassKind::Forget, &capped(6))).expect("json");
    assert!(forget.contains(r#"\"maxActiveFacts\":6"#), "{forget}");
}
