//! A piece keeps its referent (issue 66): a turn cut into facts never leaves a fact saying
//! `it` or `she` of something it does not name, whether the offline encoder split the turn
//! or a model proposed the piece; and the held-out referents corpus is measured by half.

use nocturne_core::flow::chat::judge_facts;
use nocturne_core::model::memory::{Role, Turn};
use nocturne_core::testkit::corpora::{self, kept_from, Half};
use serde_json::json;

#[test]
fn regression_a_split_piece_keeps_its_referent() {
    for (turn, fact) in [
        ("I drink green tea in the afternoon; I prefer it over coffee.", "I prefer green tea over coffee."),
        ("My daughter Noor is seven and she loves drawing horses.", "My daughter Noor loves drawing horses."),
        ("I wrote a report and I sent it to Dries on Monday.", "I sent the report to Dries on Monday."),
    ] {
        let kept = kept_from(turn);
        assert!(kept.iter().any(|k| k == fact), "{turn}: kept {kept:?}");
        for k in &kept {
            let first = k.split_whitespace().next().unwrap_or("").to_lowercase();
            assert!(!["it", "she", "he", "they", "it's", "she's"].contains(&first.as_str()), "{turn}: orphaned {k:?}");
        }
    }
}

#[test]
fn regression_a_model_piece_that_says_it_of_an_earlier_clause_is_stored_with_its_referent() {
    let said = "I drink green tea in the afternoon; I prefer it over coffee.";
    let turn = Turn {
        index: 0,
        role: Role::User,
        text: said.into(),
        at: 0,
        speaker: None,
        memory: None,
        source: None,
        provenance: None,
    };
    let proposals = [
        json!({"text": "I prefer it over coffee.", "category": "preferences"}),
        json!({"text": said, "category": "preferences"}),
    ];
    let (items, _) = judge_facts(&[turn], &proposals, 1, 0);
    let texts: Vec<&str> = items.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(texts[0], "I prefer green tea over coffee.", "{texts:?}");
    assert!(texts.contains(&"I drink green tea in the afternoon."), "{texts:?}");
    assert!(texts.iter().all(|t| !t.contains(" it ")), "{texts:?}");
}

#[test]
fn a_pronoun_the_turn_never_names_or_that_names_nothing_is_left_as_said() {
    for turn in ["She said yes and I'm over the moon!", "I bought a tent and it rained the whole weekend."] {
        let kept = kept_from(turn);
        assert!(!kept.iter().any(|k| k.contains("the tent") || k.contains("The tent")), "{turn}: {kept:?}");
    }
}

#[test]
fn the_held_out_referents_corpus_is_measured_by_half() {
    let score = corpora::referents_score();
    for line in score.lines("referents") {
        println!("{line}");
    }
    let (tuning, test) = (score.total(Half::Tuning), score.total(Half::Test));
    assert_eq!(tuning.lines + test.lines, 147);
    // A floor under the figure measured when the rule was written (test half 67/74).
    assert!(test.share() >= 0.90, "test half {:.3}", test.share());
    // A splitter that replaces nothing orphans every listed pronoun.
    let plain = corpora::referents_score_by(nocturne_core::text::split::pieces);
    assert!(plain.total(Half::Test).share() < 0.5, "the check catches an orphaned pronoun");
}

#[test]
fn regression_a_piece_that_leaves_out_what_its_adjective_is_of_stays_with_the_clause_naming_it() {
    // `I'm allergic` cut off loses what to: the first question "What am I allergic to?"
    // then cited a fact that does not say.
    for turn in
        ["I can't eat shellfish, I'm allergic.", "I avoid dogs, I'm really scared.", "I never fly, I'm terrified."]
    {
        let kept = kept_from(turn);
        assert_eq!(kept.len(), 1, "{turn}: kept {kept:?}");
    }
    // An adjective that says all it needs is still its own statement.
    for (turn, n) in [("I'm scared and my dog is sick.", 2), ("I live in Ghent and I'm allergic to cats.", 2)] {
        assert_eq!(kept_from(turn).len(), n, "{turn}: kept {:?}", kept_from(turn));
    }
}

#[test]
fn regression_a_piece_whose_it_only_an_adjective_named_was_stored_alone() {
    // `It's well controlled with lamotrigine.` was stored alone: what `it` is, only the
    // adjective said, and no question about a medicine found the epilepsy beside it.
    for (turn, fact) in [
        (
            "I'm epileptic, but it's well controlled with lamotrigine.",
            "I'm epileptic, but it's well controlled with lamotrigine.",
        ),
        ("I'm dyslexic and it makes reading slow.", "I'm dyslexic and it makes reading slow."),
    ] {
        let kept = kept_from(turn);
        assert!(kept.iter().any(|k| k == fact), "{turn}: kept {kept:?}");
        assert!(!kept.iter().any(|k| k.starts_with("It")), "{turn}: orphaned in {kept:?}");
        // The same where a model's compound proposal is cut into facts.
        assert_eq!(nocturne_core::text::antecedent::facts(turn), [fact], "{turn}");
    }
    // An `it` with a referent is still replaced by it, one that names nothing still stands
    // alone, and a turn that opens on `it` is left as written.
    for (turn, kept) in [
        ("I bought a tent and it rained the whole weekend.", &["I bought a tent.", "It rained the whole weekend."][..]),
        ("I adopted a cat and it sleeps on my bed.", &["I adopted a cat.", "The cat sleeps on my bed."]),
    ] {
        assert_eq!(kept_from(turn), kept, "{turn}");
    }
    // Only an adjective of the speaker is kept with: an `it` the turn never named as
    // anything stays as said (joining any piece before lost LoCoMo evidence).
    assert_eq!(
        nocturne_core::text::antecedent::facts("We talked for hours and it was lovely."),
        ["We talked for hours.", "It was lovely."]
    );
}
