//! Supersede keeps what is still true (issue 66): a supersession needs the same referent
//! with a new value of the same role. Each pair goes through the Supersede gate as a
//! careless model would send it — every pair proposed, compatible or not — and the verdict
//! and its reason are checked. Also the held-out supersede pairs' figures, printed by half
//! and shape (the test half's misses are never printed).

use nocturne_core::testkit::corpora::{Half, Pair};
use nocturne_core::testkit::supersede::{self, case};
use nocturne_core::text::referent::Det;

/// The gate's verdict on superseding `older` by `newer`: `(accepted, reason)`.
fn judge(older: &'static str, newer: &'static str) -> (bool, String) {
    let pair = Pair { shape: "regression", first: true, change: false, older, newer, half: Half::Dev };
    let result = case(&pair).judge().expect("a pair is a valid case");
    let v = result.verdicts.last().expect("one verdict");
    (v.accepted, v.reason.clone())
}

/// Every pair accepted as a change.
fn changes(pairs: &[(&'static str, &'static str)]) {
    for &(older, newer) in pairs {
        let (accepted, reason) = judge(older, newer);
        assert!(accepted, "{older} / {newer}: refused ({reason})");
    }
}

/// Every pair refused: both still hold.
fn kept(pairs: &[(&'static str, &'static str)]) {
    for &(older, newer) in pairs {
        let (accepted, reason) = judge(older, newer);
        assert!(!accepted, "{older} / {newer}: accepted ({reason})");
    }
}

#[test]
fn regression_a_new_book_film_plant_town_podcast_or_colleague_never_supersedes_another() {
    for (older, newer, kind) in [
        ("I read a book called Dune.", "I read a book called Emma.", "book"),
        ("I have a book called Dune on my shelf.", "I have a book called Emma on my shelf now.", "book"),
        ("I watched a film called Arrival.", "I watched a film called Heat.", "film"),
        ("I have a plant called Fernando.", "I have a plant called Gertrude.", "plant"),
        ("We stayed in a town called Hoorn.", "We stayed in a town called Edam.", "town"),
        ("I listen to a podcast called Serial.", "I listen to a podcast called Reply All.", "podcast"),
        ("I have a colleague named Femke.", "I have a colleague named Joost.", "colleague"),
        ("My son has a friend called Oliver.", "My son has a friend called Ravi.", "friend"),
        ("There's a colleague named Femke on my team.", "There's a colleague named Joost on my team.", "colleague"),
    ] {
        let (accepted, reason) = judge(older, newer);
        assert!(!accepted, "{older} / {newer}: accepted ({reason})");
        assert!(!reason.contains("one-value slot"), "{older} / {newer}: refused for the wrong reason: {reason}");
        assert!(reason.contains(kind) || reason.contains("past") || reason.contains("several values"), "{reason}");
    }
}

#[test]
fn regression_an_indefinite_names_a_new_one_in_the_reason() {
    let (accepted, reason) = judge("I have a colleague named Femke.", "There's a colleague named Joost on my team.");
    assert!(!accepted);
    assert!(reason.contains("m_2 names a new colleague (indefinite \"a colleague named Joost\")"), "{reason}");
    assert!(reason.contains("not a new value of m_1's"), "{reason}");
}

#[test]
fn true_changes_of_one_referent_are_still_accepted() {
    for (older, newer, basis) in [
        ("My cat is called Miso.", "My cat is called Tofu now.", "now"),
        ("Our cat is called Pixel.", "We renamed our cat Mochi.", "name"),
        ("My line manager is Oskar.", "My line manager is Bernadette.", "one-value"),
        ("I live in Lisbon.", "I live in Porto.", "live in"),
        ("My grandmother is 91.", "My grandmother is 92.", "number"),
        ("Our council tax is £160 a month.", "Our council tax went up to £178 a month.", "go up"),
        ("I drive an old Ford Fiesta.", "I sold the Fiesta last month.", "sell"),
        ("The dentist we go to is Dr Varga.", "The dentist we go to retired last spring.", "retire"),
        ("I'm on nights at the moment.", "I'm on early shifts at the moment.", "at the moment"),
        ("Both my sisters live in Madrid.", "My older sister lives in Seville.", "live in"),
    ] {
        let (accepted, reason) = judge(older, newer);
        assert!(accepted, "{older} / {newer}: refused ({reason})");
        assert!(reason.contains(basis), "{older} / {newer}: {reason}");
    }
}

#[test]
fn a_careless_model_is_refused_on_compatible_pairs_with_a_true_reason() {
    for (older, newer, why) in [
        ("My older dog is a collie called Mack.", "My younger dog is a terrier called Pip.", "different holders"),
        (
            "The dentist I see is called Dr Mensah.",
            "The dentist my son sees is called Dr Ferreira.",
            "different holders",
        ),
        ("Sebastián studied in Salamanca.", "Sebastián studies in Madrid now.", "past"),
        ("I'm learning Portuguese this year.", "I'm also taking a pottery class this year.", "also"),
        ("Kofi plays five-a-side on Wednesdays.", "Kofi plays tennis on Saturdays.", "different occasions"),
        ("Lucía is a nurse.", "Lucía is a keen surfer.", "several values"),
        ("I live in a flat in Porto.", "I moved to Porto for my master's.", "not about the same thing"),
        ("My car is a hybrid.", "My car is in the garage for its MOT.", "not about the same thing"),
    ] {
        let (accepted, reason) = judge(older, newer);
        assert!(!accepted, "{older} / {newer}: accepted ({reason})");
        assert!(reason.contains(why), "{older} / {newer}: {reason}");
    }
}

#[test]
fn a_dropped_not_is_still_the_opposite_and_a_negated_old_fact_is_not_replaced() {
    let (accepted, reason) = judge("I eat meat.", "I don't eat meat anymore.");
    assert!(accepted && reason.contains("opposite"), "{reason}");
    let (accepted, reason) = judge("I no longer live in Lisbon.", "I live in Porto.");
    assert!(!accepted, "{reason}");
}

/// Changes a fresh development batch (`supersede-dev.tsv`) showed refused, each beside a
/// near-miss the same rule must still keep.
#[test]
fn regression_a_nouns_s_before_a_value_is_is_and_the_change_is_read() {
    changes(&[
        ("My landline's 020 7946 0123.", "My landline's 020 7946 0456."),
        ("My dad's in Lagos at the moment.", "My dad's back in Leeds now."),
    ]);
    // A possessive stays one: `my brother's wedding` is the wedding's, not the brother's.
    let (accepted, reason) = judge("My brother's wedding is in May.", "My brother is in Spain now.");
    assert!(!accepted, "{reason}");
    // The object of a preposition is no subject: `about Harry Potter's a lot` is no `is`.
    let said = nocturne_core::text::frame::frames("I've heard about Harry Potter's a lot lately.");
    let named: Vec<_> = said.iter().flat_map(|f| &f.mentions).map(|m| (m.text.as_str(), m.det)).collect();
    assert!(named.iter().any(|(t, d)| t.ends_with("Potter's") && *d == Det::Possessive), "{named:?}");
}

#[test]
fn regression_words_shared_around_a_new_value_are_not_a_duplicate() {
    let (accepted, reason) = judge("The babysitter's rate is £8 an hour.", "The babysitter's rate is £8.50 an hour.");
    assert!(accepted && reason.contains("amount"), "{reason}");
    // Every word of the older in the newer, and no new value of one role: still Dedupe's.
    let (accepted, reason) = judge("I play squash on Fridays.", "I play squash on Fridays with my cousin.");
    assert!(!accepted, "{reason}");
}

#[test]
fn regression_a_while_is_ended_by_a_later_return_and_a_pronoun_is_its_subject() {
    changes(&[
        ("My wife is in Oslo for a conference until Friday.", "My wife flew home from Oslo yesterday."),
        ("The library on our street is closed for repairs this month.", "The library on our street reopened today."),
        ("My grandad's in hospital at the moment.", "My grandad was discharged on Monday and he's home now."),
        ("The bridge into town is closed this month.", "They reopened the bridge into town today."),
    ]);
    // An event that ends something the older fact does not name ends nothing; a `she` that
    // points at someone else is not the older fact's person.
    kept(&[
        ("I'm on antibiotics this week.", "I finished my book last night."),
        ("My mum is in hospital at the moment.", "My sister came over and she's home now."),
        ("The bridge into town is closed this month.", "They reopened the pool near work today."),
    ]);
}

#[test]
fn regression_one_of_my_things_told_of_me_is_the_thing() {
    let (accepted, reason) = judge("I pay £30 a month for my broadband.", "My broadband is down to £24 a month.");
    assert!(accepted && reason.contains("broadband"), "{reason}");
    let (accepted, reason) = judge("I pay £30 a month for my broadband.", "My gym membership is £24 a month.");
    assert!(!accepted, "{reason}");
}

#[test]
fn regression_a_name_said_to_be_my_favourite_is_the_favourites_value() {
    changes(&[
        ("Mogwai are my favourite band.", "I've gone off Mogwai, my favourite band is Slowdive now."),
        ("My favourite season is winter.", "My favourite season is summer."),
    ]);
    // A name that is one of several things I like is no favourite's value.
    let (accepted, reason) = judge("Mogwai are a band I like.", "My favourite band is Slowdive now.");
    assert!(!accepted, "{reason}");
    // `Spirited Away is …`: a capitalised pair before a verb is a name, `Met Sarah` a verb.
    let subject = |text: &str| nocturne_core::text::frame::frame(text).map(|f| f.subject.text).unwrap_or_default();
    assert_eq!(subject("Spirited Away is my favourite film."), "Spirited Away");
    assert_eq!(subject("Met Sarah at the gym."), "");
}

#[test]
fn regression_what_was_denied_and_now_holds_and_a_count_that_grew_are_changes() {
    changes(&[
        ("I'm not dating anyone.", "I'm dating someone from my running club."),
        ("I only have one passport.", "I got a new passport from Ireland as well."),
        ("We've got three guitars.", "We bought another guitar on Saturday."),
    ]);
    kept(&[
        // Another value than the one denied; an amount paid is no count of the thing.
        ("I don't eat pork.", "I eat chicken most days."),
        ("I pay £20 a month for my phone.", "I got a new phone for my birthday."),
    ]);
}

#[test]
fn the_held_out_supersede_pairs_are_measured_by_half_and_shape() {
    let score = supersede::score().expect("every pair is a valid case");
    for line in score.lines() {
        println!("{line}");
    }
    let (tuning, test) = (score.total(Half::Tuning), score.total(Half::Test));
    assert_eq!(tuning.kept.pairs + tuning.accepted.pairs + test.kept.pairs + test.accepted.pairs, 337);
    // Floors under the figures measured when the rule was written (test half: 68/72 kept,
    // 44/86 accepted): a change that loses ground shows here.
    assert!(test.kept.share() >= 0.94, "compatible kept {:.3}", test.kept.share());
    assert!(test.accepted.share() >= 0.50, "changes accepted {:.3}", test.accepted.share());
}

/// The merges the LoCoMo Sleep audit labelled wrong (`bench/locomo-sleep-audit.tsv`), each
/// two facts named "one thing" by a word they share: a new one said after a definite one
/// (`a trip I took` / `my trip`), someone else's (`somebody's day` / `my days`), a name that
/// only described something (`Harry Potter` / `a harry potter cover`), the world everyone
/// shares, several for one. The merges labelled right still read as one thing.
#[test]
fn regression_merges_the_locomo_audit_labelled_wrong_are_not_one_thing() {
    use nocturne_core::gate::meaning::one_thing;
    use nocturne_core::model::memory::{Block, Item};
    let fact =
        |n: u64, text: &str, day: i64| Item::new_fact(n, Block::Scratch, "context", text, 1_700_000_000 + day * 86_400);
    let two = |a: &str, b: &str| one_thing(&fact(1, a, 0), &fact(2, b, 1));
    for (a, b) in [
        (
            "I snapped that pic on my trip to the Smoky Mountains last year.",
            "It reminds me of a trip I took last summer.",
        ),
        (
            "My family out makes me happy knowing I can brighten somebody's day.",
            "But having a furry pal definitely brightens my days.",
        ),
        (
            "Photo shared: a photo of a book with a harry potter cover.",
            "The magical vibe is the birthplace of Harry Potter.",
        ),
        (
            "Nature does have a way of humbling us and showing us our place in the world.",
            "My influence is about making the world a better place.",
        ),
        // Advice to the other speaker is about anyone's business, not the speaker's.
        (
            "Starting a business takes courage - you hang in there too.",
            "The new has been a wild ride starting my business.",
        ),
        (
            "BTW, I found a cool new fashion piece for my store.",
            "I have developed a video presentation to teach how to style my fashion pieces, btw.",
        ),
    ] {
        assert!(two(a, b).is_err(), "{a:?} and {b:?} read as one thing");
    }
    for (a, b) in [
        ("The support group has made me feel accepted.", "The support group has given me courage to embrace myself."),
        ("I've got a gaming tournament next month.", "The gaming tournament is gonna be my 4th one."),
        ("I started a business last year.", "The new has been a wild ride starting my business."),
        ("I've always felt a strong connection to art.", "The strong connection has been a huge learning experience."),
        (
            "My cork board is full of inspiring quotes and pictures.",
            "My cork board is my little corner of inspiration.",
        ),
    ] {
        assert!(two(a, b).is_ok(), "{a:?} and {b:?}: {:?}", two(a, b));
    }
}

#[test]
fn regression_a_new_feeling_about_another_thing_superseded_the_first_on_now() {
    // The LoCoMo audit's one wrong supersession: a feeling is about what its clause is about.
    kept(&[
        (
            "I always feel like I could write a whole movie when I'm out there in cool places like that.",
            "I feel like I just can't stop writing write now.",
        ),
        ("I think my sister would love Lisbon.", "I think I'll take the train now."),
        // Then the one it superseded instead: only one of the two says a clause is felt.
        ("I feel like a different person now.", "I feel like I just can't stop writing write now."),
    ]);
    // A feeling about the same thing, changed, still is a change.
    changes(&[("I feel like my flat is too small.", "I feel like my flat is big enough now.")]);
}
