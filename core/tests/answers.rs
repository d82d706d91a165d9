//! Replies that show the memory they used: citations gated against the prompt and logged
//! when refused, the choose style's code-written reply, the Wake quiz scored through
//! citations beside words, and `auto` moving a model that runs long to choosing. Each
//! fault a careless model can make is planted here.

use nocturne_core::flow::chat;
use nocturne_core::flow::sleep::{self, SleepOptions};
use nocturne_core::llm::answer;
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::llm::provider::{
    Completion, ProposalStyle, Provider, ProviderError, Request, StyleSetting, StyleState, Task,
};
use nocturne_core::model::memory::{AnswerStyle, Role};
use nocturne_core::model::pass::{MutationKind, Stage};
use nocturne_core::proof::{quiz, verify};
use nocturne_core::store::{MemStore, Store};
use nocturne_core::testkit::choose;
use nocturne_core::DAY;
use std::cell::{Cell, RefCell};

const NOW: i64 = 1_767_225_600;

fn block<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

/// The verifier's scripted conversation, told to `provider`.
fn told<P: Provider>(provider: &P) -> MemStore {
    let store = MemStore::new();
    for (days, text) in verify::SCRIPT {
        block(chat::chat_turn(&store, provider, text, NOW - (days * DAY as f64) as i64, chat::TurnOptions::default()))
            .expect("chat turn");
    }
    store
}

/// Told and slept with the offline provider: facts promoted, one forgotten, one superseded.
fn slept() -> MemStore {
    let store = told(&OfflineProvider);
    block(sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(NOW), &mut |_| {})).expect("sleep");
    store
}

/// Answers chat with `answer(request)`; everything else as the offline provider does.
struct Answering<F: Fn(&Request) -> String> {
    answer: F,
    style: ProposalStyle,
}

impl<F: Fn(&Request) -> String> Provider for Answering<F> {
    fn label(&self) -> String {
        "answering".into()
    }
    fn proposal_style(&self) -> ProposalStyle {
        self.style
    }
    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        if request.task == Task::Chat {
            return Ok(Completion { text: (self.answer)(request), ..Default::default() });
        }
        OfflineProvider.complete(request).await
    }
}

/// The shown ids a chat request's schema allows (free text's `cited`, choose's `fact`).
fn schema_ids(request: &Request) -> Vec<String> {
    let schema = &request.json.as_ref().expect("a schema").schema;
    let list =
        schema["properties"]["cited"]["items"]["enum"].as_array().or(schema["properties"]["fact"]["enum"].as_array());
    list.into_iter().flatten().filter_map(|v| v.as_str().map(String::from)).collect()
}

#[test]
fn every_reply_records_the_memory_its_prompt_carried_and_what_it_cited() {
    let store = slept();
    let out = block(chat::chat_turn(
        &store,
        &OfflineProvider,
        "Where do I live now?",
        NOW + 60,
        chat::TurnOptions::default(),
    ))
    .expect("turn");
    assert_eq!(out.memory.style, AnswerStyle::FreeText);
    assert!(!out.memory.used.is_empty(), "the prompt carried facts");
    assert_eq!(out.memory.cited.len(), 1, "{}: {:?}", out.reply, out.memory);
    assert!(out.memory.used.contains(&out.memory.cited[0]), "a citation is one of the prompt's facts");
    let items = block(store.items()).expect("items");
    let cited = items.iter().find(|i| i.item_id == out.memory.cited[0]).expect("the cited fact exists");
    assert!(out.reply.contains(&cited.text), "the reply {:?} comes from the cited fact {:?}", out.reply, cited.text);
    let transcript = block(store.transcript()).expect("transcript");
    let reply = transcript.last().expect("the reply turn");
    assert_eq!((reply.role, reply.memory.as_ref()), (Role::Assistant, Some(&out.memory)), "stored with the turn");
    assert!(transcript[transcript.len() - 2].memory.is_none(), "a user turn carries no memory use");
}

#[test]
fn a_citation_of_an_id_the_prompt_did_not_carry_is_refused_and_logged() {
    let store = slept();
    let provider = Answering {
        answer: |req: &Request| {
            let first = schema_ids(req).into_iter().next().expect("the prompt carried a fact");
            // 9999 exists nowhere; the first is a real one the prompt showed.
            format!(r#"{{"answer": "You live in Lisbon.", "cited": ["9999", "{first}"]}}"#)
        },
        style: ProposalStyle::FreeText,
    };
    let out = block(chat::chat_turn(&store, &provider, "Where do I live?", NOW + 60, chat::TurnOptions::default()))
        .expect("turn");
    assert_eq!(out.memory.cited.len(), 1, "only the id in the prompt is kept: {:?}", out.memory);
    assert_eq!(out.refused_citations.len(), 1);
    assert_eq!(out.refused_citations[0].0, "m_9999");
    let log = block(store.mutations()).expect("log");
    let refusal = log.iter().find(|m| m.pass == Stage::Reply).expect("the refusal is logged");
    assert_eq!((refusal.kind, refusal.accepted, refusal.item_id.as_str()), (MutationKind::Cite, false, "m_9999"));
    let why = refusal.rejection_reason.as_deref().unwrap_or("");
    assert!(why.contains("m_9999") && why.contains("did not carry"), "{why}");
    let turns = block(store.transcript()).expect("t");
    assert_eq!(refusal.refs.source_turn, turns.last().map(|t| t.index), "against the reply's turn");
    // The audit of the log still holds: a refused citation edits nothing.
    assert!(block(nocturne_core::proof::audit::audit(&store)).expect("audit").problems.is_empty());
}

#[test]
fn in_choose_style_the_code_writes_the_reply_from_the_chosen_fact() {
    let store = slept();
    let chosen = RefCell::new(Vec::new());
    let provider = Answering {
        answer: |req: &Request| {
            assert_eq!(req.json.as_ref().map(|j| j.name.as_str()), Some(answer::CHOOSE_CONTRACT));
            let ids = schema_ids(req);
            assert_eq!(ids.last().map(String::as_str), Some(answer::NONE), "none is always a choice");
            assert!(ids.len() <= answer::CHOOSE_OPTIONS + 1);
            assert_eq!(ids[0], "1", "the offered lines are numbered from 1");
            chosen.borrow_mut().push(ids.len());
            r#"{"fact": "1"}"#.to_string()
        },
        style: ProposalStyle::Candidates,
    };
    let out = block(chat::chat_turn(&store, &provider, "Where do I live?", NOW + 60, chat::TurnOptions::default()))
        .expect("turn");
    let items = block(store.items()).expect("items");
    // Line 1 is the first fact offered, the most relevant.
    let first = out.memory.used.first().expect("facts were offered");
    let fact = items.iter().find(|i| &i.item_id == first).expect("chosen fact");
    assert!(fact.text.contains("live"), "the most relevant fact comes first: {}", fact.text);
    assert_eq!(out.reply, answer::from_fact(fact, NOW + 60));
    assert!(out.reply.starts_with("From memory, said ") && out.reply.contains(&format!("\"{}\"", fact.text)));
    assert_eq!((out.memory.style, out.memory.cited.clone()), (AnswerStyle::Choose, vec![fact.item_id.clone()]));
    // A message that asks nothing needs no call; a choice of none says so.
    let calls = chosen.borrow().len();
    let noted =
        block(chat::chat_turn(&store, &provider, "I bought a green kettle.", NOW + 120, chat::TurnOptions::default()))
            .expect("turn");
    // What the code writes says what was kept — here the model chose no statement.
    assert_eq!(noted.memory.style, AnswerStyle::Plain);
    assert_eq!(noted.reply, "Nothing kept. Not kept: the encoder proposed no fact from “I bought a green kettle”.");
    assert_eq!(chosen.borrow().len(), calls, "no model call for a statement");
    let none = Answering { answer: |_: &Request| r#"{"fact": "none"}"#.into(), style: ProposalStyle::Candidates };
    let out = block(chat::chat_turn(&store, &none, "Where do I live?", NOW + 180, chat::TurnOptions::default()))
        .expect("turn");
    assert_eq!(out.reply, nocturne_core::llm::prompt::NOT_IN_MEMORY);
    assert!(out.memory.cited.is_empty() && !out.memory.used.is_empty());
    // A line that was not offered is refused like any citation outside the prompt.
    let past = Answering { answer: |_: &Request| r#"{"fact": "99"}"#.into(), style: ProposalStyle::Candidates };
    let out = block(chat::chat_turn(&store, &past, "Where do I live?", NOW + 240, chat::TurnOptions::default()))
        .expect("turn");
    assert_eq!(out.reply, nocturne_core::llm::prompt::NOT_IN_MEMORY);
    assert_eq!(out.refused_citations.len(), 1, "{:?}", out.refused_citations);
    assert!(out.refused_citations[0].1.contains("line 99"), "{}", out.refused_citations[0].1);
}

#[test]
fn a_model_that_only_chooses_is_quizzed_with_questions_the_code_writes() {
    let store = slept();
    let chooser =
        Answering { answer: |r: &Request| nocturne_core::llm::offline::respond(r), style: ProposalStyle::Candidates };
    let report = block(quiz::wake(&store, &chooser, NOW + 60)).expect("quiz");
    assert!(report
        .questions
        .iter()
        .all(|q| q.question_by == "code" && q.question.starts_with("What do you remember about")));
    assert_eq!(report.cited_correct(), quiz::QUESTIONS, "{:#?}", report.questions);
    let probe = report.probe.expect("probe");
    assert!(probe.passed && probe.passed_by_citation, "{probe:?}");
}

#[test]
fn a_model_that_never_cites_recalls_nothing_by_citation() {
    let store = slept();
    // Words straight from the offline provider's answer, citations dropped.
    let provider = Answering {
        answer: |req: &Request| {
            let said = nocturne_core::llm::offline::respond(req);
            let mut v: serde_json::Value = serde_json::from_str(&said).expect("offline answers JSON");
            v["cited"] = serde_json::json!([]);
            v.to_string()
        },
        style: ProposalStyle::FreeText,
    };
    let report = block(quiz::wake(&store, &provider, NOW + 60)).expect("quiz");
    assert_eq!(report.questions.len(), quiz::QUESTIONS);
    assert_eq!(report.cited_correct(), 0, "nothing cited, nothing recalled by citation");
    assert!(report.correct() >= 4, "the words still answer: {} by words", report.correct());
    let honest = block(quiz::wake(&store, &OfflineProvider, NOW + 60)).expect("quiz");
    assert_eq!(honest.cited_correct(), quiz::QUESTIONS, "the same answers with their citations");
}

#[test]
fn a_reply_that_quotes_a_forgotten_fact_fails_the_probe_both_ways() {
    let store = slept();
    let honest = block(quiz::wake(&store, &OfflineProvider, NOW + 60)).expect("quiz");
    let probe = honest.probe.expect("the offline Sleep forgot a fact");
    assert!(probe.passed && probe.passed_by_citation, "{probe:?}");
    let forgotten = probe.fact.clone();
    let provider = Answering {
        answer: move |req: &Request| {
            let first = schema_ids(req).into_iter().next().unwrap_or_default();
            serde_json::json!({"answer": format!("You told me: {forgotten}"), "cited": [first]}).to_string()
        },
        style: ProposalStyle::FreeText,
    };
    let leaky = block(quiz::wake(&store, &provider, NOW + 60)).expect("quiz");
    let probe = leaky.probe.expect("probe");
    assert!(probe.leaked_forgotten_content && !probe.passed, "by words: {probe:?}");
    assert!(!probe.passed_by_citation, "by citation: it cited {:?} and did not abstain", probe.cited);
}

/// A model that loops until the token limit whenever it writes free text, and chooses
/// well when asked to choose; on `auto`, as the app's and command line's providers are.
struct RunsLong {
    style: Cell<StyleState>,
    truncated: Cell<usize>,
}

impl Provider for RunsLong {
    fn label(&self) -> String {
        "runs long".into()
    }
    fn proposal_style(&self) -> ProposalStyle {
        self.style.get().current()
    }
    fn observe_refusals(&self, proposed: usize, refused: usize) {
        self.style.set(self.style.get().observe(proposed, refused));
    }
    fn observe_unusable(&self, why: &str) -> Option<String> {
        let (next, line) = self.style.get().unusable("runs-long", why);
        self.style.set(next);
        line
    }
    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        if self.style.get().current() == ProposalStyle::FreeText && request.json.is_some() {
            self.truncated.set(self.truncated.get() + 1);
            return Ok(Completion {
                text: "{\"facts\": [{\"text\": \"I I I I I".into(),
                truncated: true,
                ..Default::default()
            });
        }
        let Task::Propose(pass) = request.task else { return OfflineProvider.complete(request).await };
        // Choosing: every option offered (the gates still judge each).
        Ok(Completion { text: choose::everything(request, pass).to_string(), ..Default::default() })
    }
}

#[test]
fn regression_auto_kept_free_text_for_a_model_it_did_not_know_and_the_sleep_died() {
    let provider = RunsLong { style: Cell::new(StyleSetting::Auto.start("some-new-model")), truncated: Cell::new(0) };
    assert_eq!(provider.proposal_style(), ProposalStyle::FreeText, "an unknown name starts in free text");
    let store = MemStore::new();
    let mut switched = Vec::new();
    for (days, text) in verify::SCRIPT {
        let out = block(chat::chat_turn(
            &store,
            &provider,
            text,
            NOW - (days * DAY as f64) as i64,
            chat::TurnOptions::default(),
        ))
        .expect("turn");
        assert!(out.encode_error.is_none(), "{text}: {:?}", out.encode_error);
        switched.extend(out.switched);
    }
    assert_eq!(provider.truncated.get(), 1, "one reply ran long, then it was asked by choosing");
    assert_eq!(switched.len(), 1, "the switch is reported once: {switched:?}");
    assert!(switched[0].contains("cut off at the token limit") && switched[0].contains("choosing"), "{}", switched[0]);
    let active = block(store.meta()).expect("meta").active_count;
    assert!(active >= 8, "{active} facts stored");
    let report =
        block(sleep::sleep(&store, &provider, &SleepOptions::new(NOW), &mut |_| {})).expect("the Sleep completes");
    assert_eq!(report.failed().count(), 0);
    assert_eq!(report.passes.len(), 5);
}

#[test]
fn auto_retries_a_pass_at_once_by_choosing_and_notes_it() {
    let store = told(&OfflineProvider);
    let provider = RunsLong { style: Cell::new(StyleSetting::Auto.start("some-new-model")), truncated: Cell::new(0) };
    let report = block(sleep::sleep(&store, &provider, &SleepOptions::new(NOW), &mut |_| {})).expect("sleep");
    assert_eq!(report.failed().count(), 0, "the pass was asked again, not given up");
    let notes: Vec<&String> = report.passes.iter().flat_map(|p| &p.notes).collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(report.passes[0].notes.len(), 1, "the first pass switched");
    assert!(report.passes[0].event.accepted > 0, "and its chosen edits were applied");
    // A fixed free-text setting is the user's choice: no switch, the pass ends, the Sleep goes on.
    let store = told(&OfflineProvider);
    let fixed = RunsLong { style: Cell::new(StyleSetting::FreeText.start("x")), truncated: Cell::new(0) };
    let report = block(sleep::sleep(&store, &fixed, &SleepOptions::new(NOW), &mut |_| {})).expect("sleep");
    assert_eq!(report.failed().count(), 5, "every pass ended on its cut-off reply");
    assert_eq!(fixed.proposal_style(), ProposalStyle::FreeText);
}

/// First questions a newcomer asked on facts written fresh for this check (none in
/// `questions.tsv`), each unanswered before: work said as what the speaker runs, teaches or
/// has been; a condition, a dislike and a taste said in their own words; children as twins.
#[test]
fn regression_first_questions_in_a_newcomers_own_words_are_answered() {
    use nocturne_core::llm::first::answer;
    for (facts, question, must) in [
        (
            &["I'm Sølvi and I run a bakery in Tromsø.", "My husband Arne repairs boats."][..],
            "What do I do for a living?",
            "bakery",
        ),
        (&["I teach maths at a secondary school.", "My daughter Lieke is nine."][..], "Where do I work?", "maths"),
        (&["I've been a bus driver for twelve years.", "I live in Ghent."][..], "What do I do?", "bus driver"),
        (&["I'm diabetic, type 1.", "I love hiking."][..], "Do I have any medical conditions?", "diabetic"),
        (&["I can't stand coriander.", "I'm vegetarian."][..], "What food do I dislike?", "coriander"),
        (
            &["My favourite band is Radiohead.", "I play bass in a covers band."][..],
            "What music do I like?",
            "Radiohead",
        ),
        (
            &["I've got twin girls, Mia and Lotte, who are six.", "My wife Anke is a vet."][..],
            "How many kids do I have?",
            "twin",
        ),
    ] {
        let lines: Vec<(String, String)> =
            facts.iter().enumerate().map(|(k, f)| (format!("m_{}", k + 1), f.to_string())).collect();
        let got = answer(&lines, question);
        assert!(got.as_ref().is_some_and(|a| a.text.contains(must)), "{question:?} over {facts:?}: {got:?}");
    }
}
