//! What people say ("Kept, and said so": `flow::kept`; issue 41), at the boundaries: the
//! held-out corpora through the one splitter and the real encoder path, each target shown
//! to fail for the fault it guards against, and a regression test per defect found on
//! fresh sentences — a statement stored as nothing behind a "noted" reply, a compound with
//! an elided subject stored whole and then used by Dedupe to swallow the atomic facts, a
//! positive clause lost before "and I do not …", a pasted page stored as one huge fact.

use nocturne_core::flow::{chat, edit, kept, sleep};
use nocturne_core::llm::answer;
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::llm::provider::{Completion, ProposalStyle, Provider, ProviderError, Request, Task};
use nocturne_core::model::memory::{Mutation, Proposer};
use nocturne_core::model::pass::{MutationKind, PassKind};
use nocturne_core::store::{MemStore, Store};
use nocturne_core::testkit::corpora::{self, Half};
use nocturne_core::text::{split, textmath};
use proptest::prelude::*;
use serde_json::json;

const NOW: i64 = 1_767_225_600;

fn block<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

#[test]
fn the_held_out_halves_meet_their_targets() {
    let person = corpora::person_score();
    let split = corpora::split_score();
    for line in person.lines("person").into_iter().chain(split.lines("split")) {
        println!("{line}");
    }
    assert!(person.total(Half::Test).share() >= 0.97, "person statements kept: {:?}", person.total(Half::Test));
    assert!(split.total(Half::Test).share() >= 0.95, "compounds split exactly: {:?}", split.total(Half::Test));
    assert!(person.total(Half::Test).lines > 200 && split.total(Half::Test).lines > 140, "the halves are whole");
}

#[test]
fn the_targets_fail_for_the_faults_they_guard() {
    // The splitter that stored compounds whole.
    let whole = corpora::split_score_by(|s| vec![split::pieces(s).join(" ")]);
    assert!(whole.total(Half::Test).share() < 0.5, "{:?}", whole.total(Half::Test));
    // The encoder that dropped a statement of fewer than two content words (`I'm vegan.`).
    let forgetful = corpora::person_score_by(|s| {
        corpora::kept_from(s).into_iter().filter(|f| textmath::content_tokens(f).len() >= 2).collect()
    });
    assert!(forgetful.total(Half::Test).share() < 0.97, "{:?}", forgetful.total(Half::Test));
    // A keeper that keeps chatter too is caught by the chatter corpus.
    let chatter = corpora::chatter_score();
    let everything = corpora::chatter().len();
    assert!(chatter.total(Half::Test).right < everything, "some chatter is refused");
}

#[test]
fn the_halves_are_fixed_by_the_seeded_hash() {
    assert_eq!(
        corpora::half_of("I live in Ghent and teach chemistry."),
        corpora::half_of("I live in Ghent and teach chemistry.")
    );
    let tuning = corpora::compounds().iter().filter(|c| c.half == Half::Tuning).count();
    assert_eq!(tuning, 152, "moving a line between halves changes this");
}

/// A provider that answers one task with `reply` and the rest as the offline rules do.
struct Careless {
    task: Task,
    reply: String,
    style: ProposalStyle,
}

impl Provider for Careless {
    fn label(&self) -> String {
        "careless".into()
    }
    fn proposal_style(&self) -> ProposalStyle {
        self.style
    }
    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        if request.task == self.task {
            return Ok(Completion { text: self.reply.clone(), ..Default::default() });
        }
        OfflineProvider.complete(request).await
    }
}

fn active(store: &MemStore) -> Vec<String> {
    block(store.items()).expect("items").into_iter().filter(|i| i.active).map(|i| i.text).collect()
}

fn skips(log: &[Mutation]) -> Vec<&Mutation> {
    log.iter().filter(|m| m.kind == MutationKind::Skip).collect()
}

#[test]
fn regression_an_elided_subject_compound_is_stored_as_one_fact_per_statement() {
    let said = "I live in Ghent and teach chemistry at a secondary school.";
    let want = ["I live in Ghent.", "I teach chemistry at a secondary school."];
    let store = MemStore::new();
    block(chat::chat_turn(&store, &OfflineProvider, said, NOW, chat::TurnOptions::default())).expect("turn");
    assert_eq!(active(&store), want);
    // A model that proposes the compound whole: the gate cuts it with the same splitter.
    let whole = json!({"facts": [{"text": said, "category": "identity"}]}).to_string();
    let model = Careless { task: Task::Propose(PassKind::Encode), reply: whole, style: ProposalStyle::FreeText };
    let store = MemStore::new();
    block(chat::chat_turn(&store, &model, said, NOW, chat::TurnOptions::default())).expect("turn");
    assert_eq!(active(&store), want);
}

/// Found while building the review e2e: `I moved to Porto, I no longer live in Lisbon.`
/// stored only the negative half, and refused `I moved to Porto.` as dropping "no longer":
/// the polarity check read the comma-joined sentence as one clause, while the splitter cut
/// it in two.
#[test]
fn regression_a_statement_before_a_comma_keeps_its_own_polarity() {
    use nocturne_core::text::polarity::keeps_polarity;
    let said = "I moved to Porto, I no longer live in Lisbon.";
    let store = MemStore::new();
    block(chat::chat_turn(&store, &OfflineProvider, said, NOW, chat::TurnOptions::default())).expect("turn");
    assert_eq!(active(&store), ["I moved to Porto.", "I no longer live in Lisbon."]);
    // The check still guards each half: a dropped "no longer" is refused.
    let err = keeps_polarity("I live in Lisbon.", &[said], "the user said", "the fact").unwrap_err();
    assert!(err.0.contains("drops \"no longer\""), "{err}");
    // And a negation the splitter restores covers its own piece only.
    assert!(keeps_polarity("I don't drink.", &["I don't smoke or drink."], "the user said", "the fact").is_ok());
    assert!(keeps_polarity("I drink.", &["I don't smoke or drink."], "the user said", "the fact").is_err());
}

#[test]
fn regression_dedupe_never_folds_atomic_facts_into_a_compound_with_an_elided_subject() {
    // The atomic facts said first, the compound later — kept whole by a user's correction,
    // as a model might have stored it before the one splitter.
    let store = MemStore::new();
    block(chat::chat_turn(
        &store,
        &OfflineProvider,
        "I live in Ghent and I teach chemistry at a secondary school.",
        NOW,
        chat::TurnOptions::default(),
    ))
    .expect("turn");
    block(chat::chat_turn(&store, &OfflineProvider, "I grow tomatoes.", NOW + 60, chat::TurnOptions::default()))
        .expect("turn");
    let compound = "I live in Ghent and teach chemistry at a secondary school.";
    let target = block(store.items()).expect("items").into_iter().find(|i| i.text == "I grow tomatoes.").expect("fact");
    let correction = edit::UserEdit::Correct { item_id: target.item_id.clone(), text: compound.into() };
    block(edit::apply(&store, &correction, NOW + 120)).expect("correct");
    let keeper =
        block(store.items()).expect("items").into_iter().find(|i| i.active && i.text == compound).expect("compound");
    assert!(split::is_compound(compound), "the splitter recognises the compound");
    // A careless model drops both atomic facts into it.
    let drops = json!({"drop": [
        {"itemId": "m_1", "duplicateOf": keeper.item_id, "reason": "restated"},
        {"itemId": "m_2", "duplicateOf": keeper.item_id, "reason": "restated"}
    ]})
    .to_string();
    let model = Careless { task: Task::Propose(PassKind::Dedupe), reply: drops, style: ProposalStyle::FreeText };
    let report =
        block(sleep::sleep(&store, &model, &sleep::SleepOptions::new(NOW + 3600), &mut |_| {})).expect("sleep");
    let dedupe: Vec<&Mutation> = report.passes[0].mutations.iter().filter(|m| m.proposer == Proposer::Model).collect();
    assert_eq!(dedupe.len(), 2);
    for m in dedupe {
        assert!(!m.accepted, "{m:?}");
        assert!(m.rejection_reason.as_deref().is_some_and(|r| r.contains("one statement of")), "{m:?}");
    }
    let now = active(&store);
    assert!(
        now.contains(&"I live in Ghent.".to_string()) && now.iter().any(|t| t.starts_with("I teach chemistry")),
        "{now:?}"
    );
}

/// Found on a LoCoMo conversation (`…, and me and my team had a blast`): the splitter cut a
/// subject made of a pronoun and a noun phrase in two, storing `…, and me.` as a statement.
#[test]
fn regression_a_pronoun_and_a_noun_phrase_are_one_subject() {
    assert_eq!(
        split::pieces("The race was in Bruges, and me and my brother finished it together!"),
        ["The race was in Bruges.", "Me and my brother finished it together."]
    );
    assert_eq!(
        split::pieces("We cooked dinner and him and his wife brought dessert."),
        ["We cooked dinner.", "Him and his wife brought dessert."]
    );
    // After a verb the pronoun is its object, and the cut stays where it was.
    assert_eq!(split::pieces("I told them and my sister agreed."), ["I told them.", "My sister agreed."]);
}

#[test]
fn regression_a_positive_clause_before_and_i_do_not_keeps_both_halves() {
    let store = MemStore::new();
    block(chat::chat_turn(
        &store,
        &OfflineProvider,
        "I play the piano and I do not read music.",
        NOW,
        chat::TurnOptions::default(),
    ))
    .expect("turn");
    assert_eq!(active(&store), ["I play the piano.", "I do not read music."]);
    let store = MemStore::new();
    block(chat::chat_turn(
        &store,
        &OfflineProvider,
        "I love cheese but don't eat meat.",
        NOW,
        chat::TurnOptions::default(),
    ))
    .expect("turn");
    assert_eq!(active(&store), ["I love cheese.", "I don't eat meat."]);
}

#[test]
fn regression_a_turn_that_stores_nothing_says_so_with_a_logged_reason() {
    // Offline: chatter stores nothing; the reply says so instead of "noted".
    let store = MemStore::new();
    let out = block(chat::chat_turn(&store, &OfflineProvider, "Hey there!", NOW, chat::TurnOptions::default()))
        .expect("turn");
    assert_ne!(out.reply, answer::NOTED);
    assert!(out.reply.starts_with("Nothing kept.") && out.reply.contains("a greeting"), "{}", out.reply);
    let log = block(store.mutations()).expect("log");
    let skipped = skips(&log);
    assert_eq!(skipped.len(), 1);
    assert_eq!((skipped[0].policy.as_deref(), skipped[0].proposer), (Some("worth"), Proposer::EncodeRule));
    let transcript = block(store.transcript()).expect("transcript");
    assert_eq!(transcript[1].text, out.reply, "the stored reply is the one shown");
    // A short statement is kept, and the reply names it.
    let out = block(chat::chat_turn(&store, &OfflineProvider, "I'm vegan.", NOW + 60, chat::TurnOptions::default()))
        .expect("turn");
    assert_eq!(out.reply, "Kept 1 fact: “I'm vegan”.");
    // A model that proposes nothing for a statement: logged as the model's choice.
    let nothing = json!({"facts": []}).to_string();
    for style in [ProposalStyle::FreeText, ProposalStyle::Candidates] {
        let model = Careless { task: Task::Propose(PassKind::Encode), reply: nothing.clone(), style };
        let store = MemStore::new();
        let out =
            block(chat::chat_turn(&store, &model, "I'm a nurse.", NOW, chat::TurnOptions::default())).expect("turn");
        let log = block(store.mutations()).expect("log");
        let skipped = skips(&log);
        assert_eq!(skipped.len(), 1, "{style:?}");
        assert_eq!((skipped[0].policy.as_deref(), skipped[0].proposer), (Some("not-proposed"), Proposer::Model));
        assert!(out.encoded.iter().any(|m| m.kind == MutationKind::Skip), "the turn's outcome carries it");
        assert!(!out.reply.contains("Kept 1"), "{}", out.reply);
    }
    // A question is no statement: answered, and the turn's record says what it was.
    let store = MemStore::new();
    block(chat::chat_turn(&store, &OfflineProvider, "Where do I live?", NOW, chat::TurnOptions::default()))
        .expect("turn");
    let log = block(store.mutations()).expect("log");
    let skipped = skips(&log);
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].policy.as_deref(), Some("act"));
    assert!(skipped[0].rejection_reason.as_deref().is_some_and(|r| r.contains("is a question")), "{skipped:?}");
}

/// The in-page model chose "I live in Ghent." twice for "I live in Ghent and I keep a cat
/// called Miso.": both copies were stored, and the reply said "Kept 2 facts".
#[test]
fn regression_a_fact_the_model_names_twice_is_stored_once() {
    let twice = json!({"facts": [{"text": "I live in Ghent."}, {"text": "I live in Ghent"}]}).to_string();
    let model = Careless { task: Task::Propose(PassKind::Encode), reply: twice, style: ProposalStyle::FreeText };
    let store = MemStore::new();
    let out = block(chat::chat_turn(
        &store,
        &model,
        "I live in Ghent and I keep a cat called Miso.",
        NOW,
        chat::TurnOptions::default(),
    ))
    .expect("turn");
    assert_eq!(active(&store), ["I live in Ghent."]);
    let refused: Vec<_> = out.encoded.iter().filter(|m| !m.accepted && m.kind == MutationKind::Add).collect();
    assert_eq!(refused.len(), 1, "the copy is refused, and logged: {:?}", out.encoded);
    assert!(refused[0].rejection_reason.as_deref().is_some_and(|r| r.contains("already kept")), "{refused:?}");
    // The reply names the fact once, and the statement no fact was proposed from.
    assert!(out.reply.starts_with("Kept 1 fact: “I live in Ghent”."), "{}", out.reply);
    assert!(!out.reply.contains("already kept") && out.reply.contains("Miso"), "{}", out.reply);
}

#[test]
fn regression_a_pasted_page_is_stored_as_nothing_with_its_reason_and_the_memory_stays_valid() {
    let store = MemStore::new();
    let page = "I paste a long email here, with many words in it ".repeat(500);
    assert!(page.chars().count() > kept::ENCODE_MAX_CHARS);
    let out = block(chat::chat_turn(&store, &OfflineProvider, &page, NOW, chat::TurnOptions::default())).expect("turn");
    assert!(active(&store).is_empty());
    let log = block(store.mutations()).expect("log");
    assert_eq!(skips(&log).len(), 1);
    assert_eq!(skips(&log)[0].policy.as_deref(), Some("too-long"));
    assert!(out.reply.contains("past the 2000 the encoder reads at once"), "{}", out.reply);
    let doc = store.document();
    assert!(doc.check().is_ok(), "{:?}", doc.check());
    // Past what a turn may hold: refused whole, nothing stored.
    let huge = "x".repeat(nocturne_core::store::document::MAX_TURN_CHARS + 16);
    let err = block(chat::chat_turn(&store, &OfflineProvider, &huge, NOW + 60, chat::TurnOptions::default()))
        .expect_err("too long");
    assert!(matches!(err, chat::ChatError::TooLong { .. }), "{err}");
    assert_eq!(block(store.transcript()).expect("transcript").len(), 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    /// The splitter never fails on input, and every piece is the sentence's own words (as
    /// the Encode gate's coverage counts them): the words it restores come from the
    /// sentence too.
    #[test]
    fn every_piece_is_made_of_the_sentences_own_words(
        words in prop::collection::vec(prop::sample::select(vec![
            "I", "i", "my", "sister", "and", "but", "yet", "while", "or", "as", "well", ",", ";", ".", "!", "?",
            "live", "lives", "in", "Ghent", "teach", "teaches", "was", "born", "raised", "have", "'ve", "I've",
            "don't", "not", "never", "can", "will", "to", "want", "the", "a", "cat", "dog", "she", "works",
            "married", "than", "between", "both", "either", "é", "Ω", "😀", "", "and,", "than", "I'm", "’s",
        ]), 0..24)
    ) {
        let text = words.join(" ");
        let vocabulary: std::collections::BTreeSet<String> = textmath::tokens(&text).into_iter().collect();
        for piece in split::statements(&text) {
            for token in textmath::content_tokens(&piece.text) {
                prop_assert!(vocabulary.contains(&token), "{token:?} of {:?} is not in {text:?}", piece.text);
            }
            prop_assert!(text.contains(piece.span), "{:?} is no slice of {text:?}", piece.span);
        }
    }
}

/// Issue 67: "Tell me about Miso." and "Please forget that I'm vegan." were stored as facts
/// about the person. A request or a command is no statement: whatever a model proposes from
/// it, the Encode gate refuses, and the turn's record says what the sentence was.
#[test]
fn tell_me_about_miso_is_not_stored() {
    let said = "I have a cat called Miso. Tell me about Miso. Please forget that I'm vegan.";
    // The offline encoder proposes only the statement.
    let store = MemStore::new();
    block(chat::chat_turn(&store, &OfflineProvider, said, NOW, chat::TurnOptions::default())).expect("turn");
    assert_eq!(active(&store), ["I have a cat called Miso."]);
    let log = block(store.mutations()).expect("log");
    let acts: Vec<&str> = skips(&log)
        .iter()
        .filter(|m| m.policy.as_deref() == Some("act"))
        .filter_map(|m| m.rejection_reason.as_deref())
        .collect();
    assert_eq!(acts.len(), 2, "{acts:?}");
    assert!(acts[0].contains("“Tell me about Miso” is a request to the assistant"), "{acts:?}");
    assert!(acts[1].contains("is a command about the memory (forget"), "{acts:?}");
    // A model that proposes the request and the vegan fact word for word is refused.
    let proposals = json!({"facts": [
        {"text": "I have a cat called Miso."},
        {"text": "Tell me about Miso."},
        {"text": "The user is vegan."},
        {"text": "I'm vegan."}
    ]})
    .to_string();
    let model = Careless { task: Task::Propose(PassKind::Encode), reply: proposals, style: ProposalStyle::FreeText };
    let store = MemStore::new();
    let out = block(chat::chat_turn(&store, &model, said, NOW, chat::TurnOptions::default())).expect("turn");
    assert_eq!(active(&store), ["I have a cat called Miso."]);
    let refused: Vec<&str> = out
        .encoded
        .iter()
        .filter(|m| m.kind == MutationKind::Add && !m.accepted)
        .filter_map(|m| m.rejection_reason.as_deref())
        .collect();
    assert_eq!(refused.len(), 3, "{refused:?}");
    // Refused as addressed to the assistant (the trust boundary's rule comes first), or as a
    // request by its act; either way never stored.
    assert!(
        refused[0].contains("an instruction to the assistant") || refused[0].contains("a request to the assistant"),
        "{refused:?}"
    );
    assert!(refused[1..].iter().all(|r| r.contains("only statements are stored")), "{refused:?}");
    assert!(refused[1..].iter().all(|r| r.contains("comes from “Please forget that I'm vegan”, which is a command")));
}

/// The chat turns of issue 67's new user: each statement kept, each question asked nothing
/// of the encoder.
#[test]
fn a_new_users_first_turns_are_kept_and_questions_are_not() {
    let store = MemStore::new();
    for (k, said) in [
        "Hi! I'm Lena, I work as a midwife in Graz and I have a cat called Miso.",
        "My partner Tomas is a carpenter.",
        "I'm allergic to penicillin.",
        "We're flying to Lisbon on the 14th of March.",
        "What's my name?",
        "Remind me to call the vet tomorrow.",
    ]
    .iter()
    .enumerate()
    {
        block(chat::chat_turn(&store, &OfflineProvider, said, NOW + k as i64 * 60, chat::TurnOptions::default()))
            .expect("turn");
    }
    let kept = active(&store);
    assert!(kept.iter().any(|t| t.contains("Lena")) && kept.iter().any(|t| t.contains("Miso")), "{kept:?}");
    assert!(kept.iter().any(|t| t.contains("penicillin")) && kept.iter().any(|t| t.contains("Lisbon")), "{kept:?}");
    assert!(!kept.iter().any(|t| t.contains("name")), "{kept:?}");
    // The reminder is no encoded fact: the user's own commitment (`flow::told`).
    let log = block(store.mutations()).expect("log");
    let vet: Vec<&Mutation> =
        log.iter().filter(|m| m.kind == MutationKind::Add && m.accepted && m.reason.contains("vet")).collect();
    assert!(vet.len() == 1 && vet[0].proposer == Proposer::User, "{vet:?}");
}

/// Issue 67's new user's four turns, said a minute apart from `NOW` (1 January 2026).
const LENA: [&str; 4] = [
    "Hi! I'm Lena, I work as a midwife in Graz and I have a cat called Miso.",
    "My partner Tomas is a carpenter.",
    "I'm allergic to penicillin.",
    "We're flying to Lisbon on the 14th of March.",
];

/// The 14 questions people ask first, each with a word the fact it must cite holds and
/// the words its reply must hold (any one): the 9 the offline provider answered "I don't
/// have that in memory." while the prompt held the fact, and 5 more of the same kinds.
const FIRST: [(&str, &str, &[&str]); 14] = [
    ("What's my name?", "Lena", &["Lena"]),
    ("Who am I?", "Lena", &["Lena"]),
    ("What do you know about me?", "Lena", &["Lena"]),
    ("Do I have any pets?", "Miso", &["cat", "Miso"]),
    ("What's my job?", "midwife", &["midwife"]),
    ("Where am I travelling to?", "Lisbon", &["Lisbon"]),
    ("When is my flight?", "Lisbon", &["2026-03-14"]),
    ("Which medicine should I avoid?", "penicillin", &["penicillin"]),
    ("What do you remember about my family?", "Tomas", &["Tomas"]),
    ("What's my cat called?", "Miso", &["Miso"]),
    ("What does my partner do?", "Tomas", &["carpenter"]),
    ("Where do I work?", "Graz", &["Graz"]),
    ("Am I allergic to anything?", "penicillin", &["penicillin"]),
    ("When are we flying to Lisbon?", "Lisbon", &["2026-03-14"]),
];

/// Each of [`FIRST`] asked of `provider` after Lena's turns (told to the offline
/// provider), the next morning: what went wrong with each, by question.
fn first_misses<P: Provider>(provider: &P) -> Vec<String> {
    let store = MemStore::new();
    for (k, said) in LENA.iter().enumerate() {
        block(chat::chat_turn(&store, &OfflineProvider, said, NOW + k as i64 * 60, chat::TurnOptions::default()))
            .expect("turn");
    }
    let items = block(store.items()).expect("items");
    let mut misses = Vec::new();
    for (question, fact, words) in FIRST {
        let reply = block(chat::reply(&store, provider, question, NOW + 9 * 3600, &mut |_| {})).expect("reply");
        let cited: Vec<&str> = reply
            .memory
            .cited
            .iter()
            .filter_map(|id| items.iter().find(|i| &i.item_id == id).map(|i| i.text.as_str()))
            .collect();
        let right_fact = cited.iter().any(|t| t.contains(fact));
        let said = words.iter().any(|w| reply.text.contains(w));
        if !right_fact || !said {
            misses.push(format!("{question:?}: cited {cited:?}, replied {:?}", reply.text));
        }
    }
    misses
}

/// Issue 67: of 14 first questions after Lena's four turns, 9 were answered "I don't have
/// that in memory." while `--show-memory` showed the facts in the prompt. Each is now
/// answered by the offline provider from the fact that holds it, cited, and "when" with
/// the resolved date.
#[test]
fn regression_the_offline_provider_answered_i_dont_have_that_for_facts_in_its_prompt() {
    let misses = first_misses(&OfflineProvider);
    assert!(misses.is_empty(), "{} of 14 first questions missed:\n{}", misses.len(), misses.join("\n"));
    // The fault as filed: "not in memory" for every question. Every one fails.
    let forgetful = Careless {
        task: Task::Chat,
        reply: json!({"answer": answer_not_in_memory(), "cited": []}).to_string(),
        style: ProposalStyle::FreeText,
    };
    assert_eq!(first_misses(&forgetful).len(), 14);
    // A reply that cites a line but not the one that answers (always the name's) fails
    // every question but those the name answers.
    let wrong = Careless {
        task: Task::Chat,
        reply: json!({"answer": "From memory: Lena, 2026-03-14.", "cited": ["m_1"]}).to_string(),
        style: ProposalStyle::FreeText,
    };
    let missed = first_misses(&wrong);
    assert_eq!(missed.len(), 11, "{missed:#?}");
}

fn answer_not_in_memory() -> &'static str {
    nocturne_core::llm::prompt::NOT_IN_MEMORY
}
