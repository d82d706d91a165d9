//! `as well as` with a second thing said with a determiner is two statements (issue 66):
//! `I play the cello as well as the piano.` was stored whole, so a later `I sold the piano`
//! could only retire both. A bare noun (`Spanish as well as Portuguese`) stays one statement
//! as `and` would, and a comparison (`as well as my mother does`) stays whole.

use nocturne_core::testkit::corpora::kept_from;
use nocturne_core::text::split::pieces;

#[test]
fn regression_as_well_as_a_second_thing_is_stored_as_its_own_fact() {
    for (turn, facts) in [
        ("I play the cello as well as the piano.", ["I play the cello.", "I play the piano."]),
        ("I have a dog named Pepper as well as two rabbits.", ["I have a dog named Pepper.", "I have two rabbits."]),
    ] {
        assert_eq!(pieces(turn), facts, "{turn}");
        let kept = kept_from(turn);
        assert!(facts.iter().all(|f| kept.iter().any(|k| k == f)), "{turn}: kept {kept:?}");
    }
}

#[test]
fn as_well_as_a_bare_noun_or_a_comparison_stays_one_statement() {
    for turn in [
        "I speak Spanish as well as Portuguese.",
        "I don't cook as well as my mother does.",
        "My little brother can swim as well as I can.",
    ] {
        assert_eq!(pieces(turn).len(), 1, "{turn}: {:?}", pieces(turn));
    }
}
