//! Talking to the memory (issue 67): what a sentence does, and the offline provider's answers
//! to the questions people ask first, at the
//! boundary a newcomer meets: facts said as chat turns, a question asked, the reply and
//! what it cites. The corpora the rules were written on stay answered (the held-out test
//! half is `nocturne bench-acts`'s to report), and each shape a fresh batch found missing
//! is named here by the bug it was.

use nocturne_core::flow::chat;
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::store::{MemStore, Store};
use nocturne_core::testkit::acts::question_score;
use nocturne_core::testkit::corpora::Half;
use nocturne_core::text::act::{read, Act};

const DAY: i64 = 1_796_558_400;

fn block<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

/// Says `facts` as turns a minute apart, asks `question`; the reply and the texts it cites.
fn ask(facts: &[&str], question: &str) -> (String, Vec<String>) {
    let store = MemStore::new();
    for (k, fact) in facts.iter().enumerate() {
        block(chat::chat_turn(&store, &OfflineProvider, fact, DAY + 60 * k as i64, chat::TurnOptions::default()))
            .expect("a turn");
    }
    let reply = block(chat::reply(&store, &OfflineProvider, question, DAY + 3600, &mut |_| {})).expect("a reply");
    let items = block(store.items()).expect("items");
    let cited = reply
        .memory
        .cited
        .iter()
        .filter_map(|id| items.iter().find(|i| &i.item_id == id).map(|i| i.text.clone()))
        .collect();
    (reply.text, cited)
}

#[test]
fn the_first_questions_the_rules_were_written_on_stay_answered() {
    let score = block(question_score());
    // The dev file's eighth batch (80 cases) answered 24 before rules were written for it
    // and is only partly read yet: its floor is lower than the tuning half's.
    for (half, floor) in [(Half::Tuning, 0.93), (Half::Dev, 0.84)] {
        let t = score.total(half);
        let misses: Vec<&String> = score.misses.iter().filter(|(h, _)| *h == half).map(|(_, m)| m).collect();
        assert!(t.lines > 80 && t.share() >= floor, "{half:?}: {}/{}\n{misses:#?}", t.right, t.lines);
    }
}

#[test]
fn regression_a_greeting_that_names_the_speaker_was_dropped_as_chatter() {
    for (said, name) in [
        ("Hey, Rafaela here.", "Rafaela"),
        ("Good morning, this is Hamid.", "Hamid"),
        ("Hey! It's Maya.", "Maya"),
        ("Hi, it's Noor here.", "Noor"),
    ] {
        let (reply, cited) = ask(&[said, "I run a barbershop."], "What's my name?");
        assert!(reply.starts_with(&format!("Your name is {name}.")), "{said}: {reply}");
        assert_eq!(cited.len(), 1, "{said}: {cited:?}");
    }
    // A greeting with no name is still not kept.
    let (reply, cited) = ask(&["Hey there, it's me again."], "What's my name?");
    assert!(cited.is_empty(), "{reply}");
}

#[test]
fn regression_a_surname_question_was_answered_with_a_first_name() {
    let (reply, cited) = ask(&["My name is Kalani.", "I surf every weekend."], "What's my surname?");
    assert!(cited.is_empty() && reply.contains("don't have that"), "{reply}");
    let (reply, _) = ask(&["Name's Jack Reilly, I'm a plumber."], "What's my surname?");
    assert!(reply.contains("Reilly"), "{reply}");
}

#[test]
fn regression_health_questions_missed_facts_that_never_say_health() {
    for (facts, question, must) in [
        (&["I take sertraline every morning.", "I work from home."][..], "What medication am I on?", "sertraline"),
        (
            &["I'm asthmatic, so I always carry an inhaler.", "I live in Leeds."],
            "Do I have any health conditions?",
            "asthmatic",
        ),
        (&["Bee stings make me swell up badly.", "I work in a garden centre."], "What am I allergic to?", "Bee"),
        (
            &["I can't eat shellfish, I'm allergic.", "My favourite food is pizza."],
            "What am I allergic to?",
            "shellfish",
        ),
    ] {
        let (reply, cited) = ask(facts, question);
        assert!(cited.iter().any(|c| c.contains(must)), "{question}: {reply}");
    }
}

#[test]
fn regression_a_sentence_opening_on_a_time_was_read_as_someone_elses() {
    let (reply, cited) =
        ask(&["Next month we're moving to a bigger house in Ghent.", "I have three kids."], "Am I moving?");
    assert!(cited.iter().any(|c| c.contains("Ghent")), "{reply}");
}

#[test]
fn regression_a_dead_pet_answered_for_the_living_one() {
    let (reply, cited) =
        ask(&["My old dog Rex died in the spring.", "I have a new puppy, Nala."], "What's my dog called?");
    assert!(cited.iter().all(|c| !c.contains("Rex")) && reply.contains("Nala"), "{reply}");
}

#[test]
fn how_long_wants_a_span_and_a_question_about_nothing_said_is_not_answered() {
    let (reply, _) = ask(
        &["I moved to Montreal three years ago from Lagos.", "I work in finance."],
        "How long have I lived in Montreal?",
    );
    assert!(reply.contains("three years"), "{reply}");
    let (reply, cited) = ask(&["I'm a firefighter in Dublin.", "My partner is Aoife."], "What car do I drive?");
    assert!(cited.is_empty() && reply.contains("don't have that"), "{reply}");
}

#[test]
fn regression_a_name_split_from_the_rest_of_its_sentence_was_refused_as_an_exclamation() {
    // `I'm Ben, I'm a nurse.` is cut in two; `I'm Ben.` alone was read as chatter.
    let (reply, cited) = ask(&["I'm Ben, I'm a nurse.", "I love climbing."], "What's my name?");
    assert!(reply.starts_with("Your name is Ben.") && cited == ["I'm Ben."], "{reply}");
}

#[test]
fn what_do_you_know_about_me_opens_with_who_they_are() {
    let facts = ["Our street is being dug up again.", "My son's school won a prize.", "I'm Henrik, a welder."];
    let (reply, cited) = ask(&facts, "What do you know about me?");
    assert!(reply.starts_with("You're Henrik."), "{reply}");
    assert_eq!(cited.first().map(String::as_str), Some("I'm Henrik, a welder."), "{reply}");
}

#[test]
fn regression_a_request_phrased_as_the_speakers_need_was_stored_as_a_fact() {
    for r in [
        "I need a gift idea for my mum's birthday.",
        "I'd love a recipe for banana bread.",
        "I want to know how long to boil an egg.",
        "I need help planning a trip to Rome.",
        "I'd appreciate some tips on sleeping better.",
        "I need a word that means happy.",
        "I want a list of healthy snacks.",
        "I have a question about my tax return.",
    ] {
        assert_eq!(read(r).act, Act::Request, "{r}");
    }
    // What the speaker wants of the world, or likes, is theirs to keep.
    for s in [
        "I need a new laptop.",
        "I want a dog.",
        "I'd love to visit Japan.",
        "I love a good recipe.",
        "I need to remember to renew my passport.",
        "I want to know what my blood type is.",
        "My daughter needs help with her maths homework.",
    ] {
        assert_ne!(read(s).act, Act::Request, "{s}");
    }
}

#[test]
fn regression_call_me_and_a_name_was_answered_as_a_request_and_never_stored() {
    assert_eq!(read("Call me Jojo, everyone does.").act, Act::Statement);
    let (reply, cited) = ask(&["Call me Jojo, everyone does.", "I work nights at a hotel."], "what do you call me");
    assert!(reply.starts_with("Your name is Jojo."), "{reply}");
    assert_eq!(cited, ["Call me Jojo, everyone does."]);
    // A lowercase object is still asked of the assistant.
    assert_eq!(read("Call me tomorrow.").act, Act::Request);
}

#[test]
fn regression_a_greeting_with_a_name_and_more_after_its_comma_was_dropped_as_chatter() {
    let (reply, cited) =
        ask(&["Hey, Oluwaseun here, but Seun is fine.", "I'm a data engineer."], "whats my name again");
    assert!(reply.starts_with("Your name is Oluwaseun."), "{reply}");
    assert_eq!(cited.len(), 1, "{cited:?}");
}

#[test]
fn regression_what_do_you_know_about_me_cited_the_news_when_it_opened_with_a_name() {
    let facts =
        ["I'm Ana Lúcia, a nurse in Recife.", "Sport Recife got promoted this season.", "My kids are Caio and Bia."];
    for question in ["Anything you remember about me?", "What info do you have on me?", "what do you know abt me"] {
        let (_, cited) = ask(&facts, question);
        assert!(cited.len() == 2 && !cited.iter().any(|c| c.contains("promoted")), "{question}: {cited:?}");
    }
}

#[test]
fn regression_a_thing_of_the_speakers_was_answered_by_another_persons() {
    let facts = ["My sister Ayesha has a cat called Simba.", "I live in a flat in Karachi."];
    let (reply, cited) = ask(&facts, "what's my cat called again");
    assert!(cited.is_empty() && reply.contains("I don't have that in memory"), "{reply}");
    let facts = ["I've got an MRI in six days.", "My friend Amara had an MRI last week."];
    let (_, cited) = ask(&facts, "What date is my MRI?");
    assert_eq!(cited, ["I've got an MRI in six days."]);
}

#[test]
fn regression_a_family_question_cited_a_colleagues_baby_and_missed_a_stepmother() {
    let facts = [
        "My parents split up when I was nine.",
        "My stepmother Lourdes is from Manila.",
        "I'm an estate agent in Swindon.",
        "My colleague Imran just had a baby.",
    ];
    let (_, cited) = ask(&facts, "Who's in my family?");
    assert!(cited.iter().any(|c| c.contains("Lourdes")) && !cited.iter().any(|c| c.contains("Imran")), "{cited:?}");
}

#[test]
fn regression_a_polite_forget_with_a_gerund_was_read_as_a_request() {
    let r = read("Would you mind forgetting what I said about my neighbour's drinking?");
    assert!(matches!(r.act, Act::Command(_)), "{r:?}");
}

#[test]
fn regression_who_am_i_engaged_to_was_read_as_who_am_i() {
    let facts = ["My fiancée Amaka is a lawyer.", "I'm a quantity surveyor."];
    let (_, cited) = ask(&facts, "who am I engaged to");
    assert_eq!(cited, ["My fiancée Amaka is a lawyer."]);
    let (_, cited) = ask(&facts, "Who am I again?");
    assert_eq!(cited, ["I'm a quantity surveyor."]);
}

#[test]
fn regression_our_baby_said_of_my_wife_was_not_the_babys() {
    let facts = ["My wife Marta is expecting our first baby in April.", "My brother Dev is allergic to penicillin."];
    let (_, cited) = ask(&facts, "When is our baby due?");
    assert_eq!(cited, ["My wife Marta is expecting our first baby in April."]);
    // Another person of the family is still not the one asked about.
    let (reply, cited) = ask(&facts, "Is my sister allergic to anything?");
    assert!(cited.is_empty(), "{reply}");
}

#[test]
fn regression_tldr_was_cut_at_its_semicolon_and_stored_as_two_facts() {
    assert_eq!(nocturne_core::text::sentence::sentences("tl;dr of that email pls"), ["tl;dr of that email pls"]);
    assert_eq!(nocturne_core::text::sentence::sentences("I'm tired; I slept badly."), ["I'm tired;", "I slept badly."]);
    let store = MemStore::new();
    block(chat::chat_turn(
        &store,
        &OfflineProvider,
        "tl;dr of that email from my landlord pls",
        DAY,
        chat::TurnOptions::default(),
    ))
    .expect("a turn");
    assert!(block(store.items()).expect("items").is_empty());
}

#[test]
fn regression_a_lowercase_question_without_its_mark_was_stored_as_a_statement() {
    for question in [
        "is dumpling a dog or a cat",
        "does tofu go outside",
        "how old's mum now",
        "since when have I been in Nairobi",
        "whereabouts is my job",
        "remind me of my horse's name",
    ] {
        assert_eq!(read(question).act, Act::Question, "{question}");
    }
    // Still statements: no subject after the auxiliary, or a name and `and`.
    for said in
        ["Can't remember the last time I had a holiday.", "Was great to see you.", "Will and I are old friends."]
    {
        assert_eq!(read(said).act, Act::Statement, "{said}");
    }
}

#[test]
fn regression_who_am_i_said_with_a_phrase_after_it_or_as_who_you_are_talking_to_was_not_read() {
    let facts = [
        "Good evening, I'm Hemi Walker.",
        "I'm a rugby coach at a high school in Rotorua.",
        "My dad used to play rugby.",
    ];
    for question in ["Who am I, according to your notes?", "Who's this you're talking to?", "what's my story"] {
        let (reply, cited) = ask(&facts, question);
        assert!(reply.starts_with("You're Hemi Walker.") && cited.len() == 2, "{question}: {reply}");
    }
}

#[test]
fn regression_a_where_question_cited_a_line_that_says_no_place() {
    let (_, cited) = ask(&["I've just started a new job at Siemens.", "I'm an engineer."], "Where do I work?");
    assert_eq!(cited, ["I've just started a new job at Siemens."]);
    let (_, cited) = ask(
        &["We bought a farmhouse outside Lund last autumn.", "The farmhouse needs a whole new kitchen."],
        "Where's our house?",
    );
    assert_eq!(cited, ["We bought a farmhouse outside Lund last autumn."]);
    // `to` and `on` before a name or a determiner say where; before a bare word or a day, not.
    let (_, cited) = ask(&["I just got promoted to head chef.", "I've just moved to Cluj."], "Where do I work?");
    assert!(cited.is_empty(), "{cited:?}");
    let (_, cited) = ask(&["I've just moved to Cluj.", "My sister lives in Iasi."], "Where do I live now?");
    assert_eq!(cited, ["I've just moved to Cluj."]);
    let (_, cited) = ask(&["I live on a narrowboat on the Thames.", "I'm a potter."], "Where's my home?");
    assert_eq!(cited, ["I live on a narrowboat on the Thames."]);
}

#[test]
fn regression_a_name_and_i_as_the_subject_was_read_as_an_imperative() {
    for s in ["Mark and I share an allotment behind the station.", "Bill and I met at university."] {
        assert_eq!(read(s).act, Act::Statement, "{s}");
    }
    // A verb joined to another verb is still asked of the assistant.
    assert_eq!(read("Check and tell me what I said about my flight.").act, Act::Request);
}

#[test]
fn regression_a_sentence_opening_on_last_week_was_read_as_the_imperative_last() {
    // Found by the LoCoMo conversations: 46 sentences open "Last <time>", and each was
    // refused as a request to the assistant, its evidence lost.
    for s in [
        "Last weekend I joined a mentorship program for LGBTQ youth.",
        "Last night I joined a fantasy literature forum and had a great talk.",
        "Last week I had a crazy game - crazy intense!",
        "Last Friday we finally got the keys to the flat.",
        "Last time I checked, my rent was £900.",
    ] {
        assert_eq!(read(s).act, Act::Statement, "{s}");
    }
    let (_, cited) = ask(&["Last week I went to a Harry Potter conference in the UK."], "Where did I go last week?");
    assert_eq!(cited, ["Last week I went to a Harry Potter conference in the UK."]);
}

#[test]
fn regression_questions_in_everyday_words_were_not_met() {
    for (facts, question, cited) in [
        // `all the time` asks how often, not for a clock time.
        (
            &["I've seen my comfort film thirty times.", "My brother loves Marvel stuff."][..],
            "what film do I rewatch all the time",
            "I've seen my comfort film thirty times.",
        ),
        // A check is a test, a scan, an appointment.
        (
            &["My cholesterol test is on Wednesday.", "My wife Parveen has a scan on the 4th."],
            "when am I getting my cholesterol checked",
            "My cholesterol test is on Wednesday.",
        ),
        // `become` says nothing a line must hold.
        (
            &["My citizenship ceremony is on 12 March 2027.", "I'm a hotel night manager."],
            "what day do I become a citizen",
            "My citizenship ceremony is on 12 March 2027.",
        ),
        (
            &["My birthday's on the 9th of September.", "My partner Efua's birthday is on the 20th of October."],
            "when do I next turn a year older",
            "My birthday's on the 9th of September.",
        ),
        // To follow a club is to support it.
        (
            &["I'm a huge Galatasaray fan.", "My husband Emre supports Fenerbahçe, sadly."],
            "which football club do I follow",
            "I'm a huge Galatasaray fan.",
        ),
    ] {
        let (reply, got) = ask(facts, question);
        assert_eq!(got, [cited], "{question}: {reply}");
    }
}
