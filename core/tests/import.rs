//! Importing a history: the readers against exports built by script (exactly which user
//! messages become turns, at which times), and the import path against a memory (facts
//! dated when said, a second import adds nothing, stop and resume, refused files change
//! nothing).

use nocturne_core::flow::import;

use nocturne_core::flow::import_plan;

use nocturne_core::flow::import_plan::{ImportOptions, SleepAfter};
use nocturne_core::history::{read, Format, History};
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::llm::provider::{Completion, ProposalStyle, Provider, ProviderError, Request};
use nocturne_core::model::memory::Role;
use nocturne_core::store::{MemStore, Store};
use nocturne_core::testkit::exports::{self, START};
use nocturne_core::text::order;
use std::cell::Cell;
use std::collections::HashSet;

const NOW: i64 = START + 400 * 86_400;

fn block<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

fn json(v: &[serde_json::Value]) -> Vec<u8> {
    serde_json::to_vec(v).expect("serialises")
}

fn user_messages(h: &History) -> Vec<(String, i64)> {
    h.conversations
        .iter()
        .flat_map(|c| &c.messages)
        .filter(|m| m.role == Role::User)
        .map(|m| (m.text.clone(), m.at))
        .collect()
}

fn expected(list: Vec<(&str, i64)>) -> Vec<(String, i64)> {
    list.into_iter().map(|(t, at)| (t.to_string(), at)).collect()
}

#[test]
fn a_chatgpt_export_imports_the_current_branch_of_each_conversation_and_only_the_persons_words() {
    let h = read("conversations.json", &json(&exports::chatgpt_conversations()), None, NOW).expect("reads");
    assert_eq!(h.format, Format::ChatGpt);
    assert_eq!(user_messages(&h), expected(exports::chatgpt_expected()));
    let all: Vec<&str> = h.conversations.iter().flat_map(|c| &c.messages).map(|m| m.text.as_str()).collect();
    for gone in ["A regenerated answer nobody kept.", "My sister is called Ana.", "Hello to Ana.", "I am a chef.", "ok"]
    {
        assert!(!all.contains(&gone), "{gone:?} was imported: {all:?}");
    }
    let replies: Vec<&str> = h
        .conversations
        .iter()
        .flat_map(|c| &c.messages)
        .filter(|m| m.role == Role::Assistant)
        .map(|m| m.text.as_str())
        .collect();
    assert_eq!(
        replies,
        ["Lisbon is lovely in spring.", "Inês is a beautiful name.", "Bolt looks happy.", "Enchanté, Zoë."]
    );
    assert_eq!(h.conversations[0].title, None, "a null title stays none");
    assert_eq!(h.conversations[1].title.as_deref(), Some("Travail"));
    assert_eq!(h.conversations[0].messages[0].source, "chatgpt:c-one:u1");
    // Hidden: the custom instructions; the system prompt and a tool call are no turns; the
    // abandoned branches hold three spoken messages; one message is an image alone.
    assert_eq!((h.skipped.hidden, h.skipped.not_a_turn, h.skipped.other_branches, h.skipped.empty), (1, 2, 3, 1));
}

#[test]
fn a_chatgpt_export_without_current_node_reads_its_newest_branch() {
    let mut convs = exports::chatgpt_conversations();
    convs[0].as_object_mut().expect("object").remove("current_node");
    let h = read("conversations.json", &json(&convs), None, NOW).expect("reads");
    assert_eq!(user_messages(&h), expected(exports::chatgpt_expected()));
}

#[test]
fn a_split_chatgpt_export_in_a_zip_reads_as_the_single_file_does() {
    let convs = exports::chatgpt_conversations();
    let (a, b) = (json(&convs[..1]), json(&convs[1..]));
    let zip = exports::zip(&[
        ("chat.html", b"<html></html>"),
        ("conversations-001.json", &b),
        ("conversations-000.json", &a),
        ("user.json", b"{}"),
    ]);
    let h = read("export.zip", &zip, None, NOW).expect("reads the zip");
    assert_eq!(user_messages(&h), expected(exports::chatgpt_expected()));
    assert_eq!(h.conversations.len(), 2);
}

#[test]
fn a_claude_export_reads_text_or_text_blocks_and_leaves_attachments_out() {
    let zip = exports::zip(&[("conversations.json", &json(&exports::claude_conversations())), ("users.json", b"[]")]);
    let h = read("claude.zip", &zip, Some(Format::Claude), NOW).expect("reads");
    assert_eq!(h.format, Format::Claude);
    assert_eq!(user_messages(&h), expected(exports::claude_expected()));
    let all: String = h.conversations.iter().flat_map(|c| &c.messages).map(|m| m.text.clone()).collect();
    assert!(!all.contains("Attachment words"), "an attachment's contents were imported");
    assert_eq!(h.conversations[0].title, None, "an empty name is no title");
}

#[test]
fn a_json_lines_log_and_a_locomo_file_read_with_their_speakers_and_times() {
    let log = "{\"role\":\"user\",\"content\":\"I moved to Lisbon.\",\"timestamp\":1714554000,\"name\":\"Ana\"}\n\n\
               {\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Nice.\"}]}\n\
               {\"role\":\"system\",\"content\":\"Be brief.\"}\n\
               {\"role\":\"user\",\"content\":\"I moved to Lisbon.\",\"timestamp\":1714554000,\"name\":\"Ana\"}\n";
    let h = read("log.jsonl", log.as_bytes(), None, NOW).expect("reads");
    let m = &h.conversations[0].messages;
    assert_eq!(m.len(), 3);
    assert_eq!((m[0].speaker.as_deref(), m[0].at, m[1].at), (Some("Ana"), 1_714_554_000, NOW));
    assert_ne!(m[0].source, m[2].source, "the same words said twice are two messages");
    assert_eq!(h.skipped.not_a_turn, 1);
    let locomo = r#"{"sample_id": "s1", "speaker_a": "Ana", "speaker_b": "Rui",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": "Ana", "dia_id": "D1:1", "text": "I went to Porto yesterday."},
                      {"speaker": "Rui", "dia_id": "D1:2", "text": "I adopted a cat.", "blip_caption": "a cat on a sofa"}],
        "qa": []}"#;
    let h = read("conv-26.json", locomo.as_bytes(), None, NOW).expect("reads");
    let m = &h.conversations[0].messages;
    assert_eq!((h.format, m.len(), m[1].speaker.as_deref()), (Format::Locomo, 2, Some("Rui")));
    assert_eq!(m[1].text, "I adopted a cat. Photo shared: a cat on a sofa.");
    assert_eq!(m[1].source, "locomo:s1:D1:2");
    assert_eq!(m[1].at - m[0].at, 1, "a session's turns keep their order");
}

#[test]
fn a_truncated_file_an_empty_zip_and_another_format_are_refused_with_reasons() {
    let full = json(&exports::chatgpt_conversations());
    let cut = &full[..full.len() / 2];
    let e = read("conversations.json", cut, None, NOW).expect_err("truncated");
    assert!(e.to_string().contains("truncated") && e.to_string().contains("nothing was imported"), "{e}");
    let zip = exports::zip(&[("chat.html", b"<html></html>"), ("user.json", b"{}")]);
    let e = read("export.zip", &zip, None, NOW).expect_err("no conversations");
    assert!(e.to_string().contains("no conversations.json") && e.to_string().contains("chat.html"), "{e}");
    let zip = exports::zip(&[("conversations.json", &full)]);
    let e = read("export.zip", &zip[..zip.len() - 30], None, NOW).expect_err("a cut zip");
    assert!(e.to_string().contains("zip"), "{e}");
    let claude = json(&exports::claude_conversations());
    let e = read("conversations.json", &claude, Some(Format::ChatGpt), NOW).expect_err("asked for ChatGPT");
    assert!(
        e.to_string().contains("expected a ChatGPT export") && e.to_string().contains("found a Claude export"),
        "{e}"
    );
    let e = read("notes.csv", b"name,city\nAna,Lisbon\n", None, NOW).expect_err("a CSV");
    assert!(e.to_string().contains("is not JSON"), "{e}");
    let e = read("x.json", b"[{\"id\": 1}]", None, NOW).expect_err("unknown objects");
    assert!(e.to_string().contains("found an array of objects with keys id"), "{e}");
    assert!(read("x.json", b"[]", None, NOW).is_err(), "no conversations at all");
    assert!(read("x.bin", &[0xff, 0xfe, 0x00], None, NOW).is_err());
}

/// The offline provider, counting its calls, and unreachable after `fail_after` of them.
struct Counting {
    calls: Cell<usize>,
    fail_after: Option<usize>,
}

impl Counting {
    fn new(fail_after: Option<usize>) -> Self {
        Counting { calls: Cell::new(0), fail_after }
    }
}

impl Provider for Counting {
    fn label(&self) -> String {
        "counting offline".into()
    }
    fn proposal_style(&self) -> ProposalStyle {
        OfflineProvider.proposal_style()
    }
    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        self.calls.set(self.calls.get() + 1);
        if self.fail_after.is_some_and(|f| self.calls.get() > f) {
            return Err(ProviderError::Unreachable("connection refused".into()));
        }
        OfflineProvider.complete(request).await
    }
}

fn history() -> History {
    let mut convs = exports::chatgpt_conversations();
    convs.extend(exports::synthetic_conversations(6, 5));
    read("conversations.json", &json(&convs), None, NOW).expect("reads")
}

#[test]
fn a_history_read_elsewhere_arrives_whole_through_its_serialised_form() {
    // The page's import worker hands a history over as JSON: every field must survive,
    // the messages' speakers, the titles and what was left out included.
    let mut h = history();
    let locomo = r#"{"sample_id": "s1", "speaker_a": "Ana", "speaker_b": "Rui",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": "Ana", "dia_id": "D1:1", "text": "I went to Porto yesterday."}], "qa": []}"#;
    h.conversations.extend(read("conv-26.json", locomo.as_bytes(), None, NOW).expect("reads").conversations);
    assert!(h.skipped != Default::default() && h.conversations.iter().any(|c| c.title.is_some()));
    assert!(h.conversations.iter().flat_map(|c| &c.messages).any(|m| m.speaker.is_some()));
    let text = serde_json::to_string(&h).expect("serialises");
    let back: History = serde_json::from_str(&text).expect("reads back");
    assert_eq!(back, h);
    assert!(text.contains(r#""format":"chatgpt""#), "a format is written by its name: {}", &text[..80]);
}

fn import_all(store: &MemStore, h: &History, options: &ImportOptions) -> import::Report {
    let known: HashSet<String> =
        block(store.transcript()).expect("reads").into_iter().filter_map(|t| t.source).collect();
    let plan = import_plan::plan(h, &known, options);
    block(import::run(store, &OfflineProvider, &plan, options, NOW, &mut |_| {})).expect("imports")
}

#[test]
fn an_import_stores_every_message_as_a_turn_at_its_time_and_facts_dated_when_said() {
    let store = MemStore::new();
    let h = history();
    let report = import_all(&store, &h, &ImportOptions { sleep: SleepAfter::Never, ..Default::default() });
    let turns = block(store.transcript()).expect("reads");
    let users: Vec<(String, i64)> =
        turns.iter().filter(|t| t.role == Role::User).map(|t| (t.text.clone(), t.at)).collect();
    let mut want = user_messages(&h);
    order::sort_by_key(&mut want, |w| w.1);
    let mut got = users.clone();
    order::sort_by_key(&mut got, |w| w.1);
    assert_eq!(got, want, "every user message, once, at its own time");
    assert!(turns.windows(2).all(|w| w[0].at <= w[1].at), "the transcript is in time order");
    assert_eq!(report.user_turns, want.len());
    assert_eq!(report.assistant_turns, turns.len() - want.len());
    assert!(turns.iter().all(|t| t.source.is_some()));
    let items = block(store.items()).expect("reads");
    assert_eq!(report.facts, items.len());
    let lisbon = items.iter().find(|i| i.text.contains("Lisbon in March")).expect("the move is a fact");
    assert_eq!(lisbon.created_at, START + 60, "dated when it was said, not when it was imported");
    let source = turns.iter().find(|t| Some(t.index) == lisbon.source_turn).expect("a source turn");
    assert_eq!(source.text, "I moved to Lisbon in March.");
    let meta = block(store.meta()).expect("reads");
    assert_eq!(meta.encoded_through as usize, turns.len(), "every turn is encoded");
    assert!(block(store.mutations()).expect("reads").iter().filter(|m| !m.accepted).count() == report.refused);
}

#[test]
fn a_second_import_of_the_same_history_adds_nothing() {
    let store = MemStore::new();
    let h = history();
    let options = ImportOptions { sleep: SleepAfter::Never, ..Default::default() };
    import_all(&store, &h, &options);
    let before = store.document().to_json();
    let again = import_all(&store, &h, &options);
    assert_eq!((again.user_turns, again.assistant_turns, again.facts), (0, 0, 0));
    assert_eq!(again.duplicates, h.conversations.iter().map(|c| c.messages.len()).sum::<usize>());
    assert_eq!(store.document().to_json(), before, "nothing was written");
    // A later export holding the same conversations and one more adds only the new one.
    let mut later = exports::chatgpt_conversations();
    later.extend(exports::synthetic_conversations(7, 5));
    let later = read("conversations.json", &json(&later), None, NOW).expect("reads");
    let more = import_all(&store, &later, &options);
    assert_eq!(more.user_turns, 5, "only the seventh conversation's messages");
}

#[test]
fn a_stopped_import_resumes_where_it_stopped_and_ends_as_an_uninterrupted_one() {
    let h = history();
    let whole = MemStore::new();
    import_all(&whole, &h, &ImportOptions { sleep: SleepAfter::Never, ..Default::default() });
    let store = MemStore::new();
    let options = ImportOptions { sleep: SleepAfter::Never, ..Default::default() };
    let plan = import_plan::plan(&h, &HashSet::new(), &options);
    let stop = options.stop.clone();
    let mut seen = 0;
    let report = block(import::run(&store, &OfflineProvider, &plan, &options, NOW, &mut |p| {
        seen = p.batches_done;
        if p.batches_done == 3 {
            stop.stop();
        }
    }))
    .expect("stops cleanly");
    assert!(
        report.stopped && seen == 3 && plan.batches.len() > 3,
        "stopped after three batches of {}",
        plan.batches.len()
    );
    let partial = block(store.transcript()).expect("reads").len();
    assert!(partial > 0 && partial < block(whole.transcript()).expect("reads").len());
    let resumed = import_all(&store, &h, &ImportOptions { sleep: SleepAfter::Never, ..Default::default() });
    assert!(!resumed.stopped);
    let texts = |s: &MemStore| -> Vec<(String, i64)> {
        block(s.transcript()).expect("reads").into_iter().map(|t| (t.text, t.at)).collect()
    };
    assert_eq!(texts(&store), texts(&whole));
    let facts =
        |s: &MemStore| -> Vec<String> { block(s.items()).expect("reads").into_iter().map(|i| i.text).collect() };
    assert_eq!(facts(&store), facts(&whole));
}

#[test]
fn an_import_then_sleeps_once_at_the_end_or_once_per_day() {
    let h = history();
    let labels =
        |s: &MemStore| -> Vec<String> { block(s.versions()).expect("reads").into_iter().map(|v| v.label).collect() };
    let sleeps = |s: &MemStore| labels(s).iter().filter(|l| l.as_str() == "consolidation:start").count();
    // By default a memory forgets by value: no fact of the old history goes for its age.
    // The Sleep at the end is guarded by its plan, which counts every retirement: where the
    // history's repeated statements (and changed values) are more than it retires without
    // asking, it is held, naming them — never for age — and runs when the user lets it.
    let kept = MemStore::new();
    let report = import_all(&kept, &h, &ImportOptions::default());
    match report.held.clone() {
        None => assert_eq!((report.sleeps, sleeps(&kept)), (1, 1)),
        Some(held) => {
            assert!(held.contains("dropped as duplicates") && !held.contains("forgotten"), "{held}");
            assert_eq!((report.sleeps, sleeps(&kept)), (0, 0));
            let again = MemStore::new();
            let report = import_all(&again, &h, &ImportOptions { retire_a_lot: true, ..Default::default() });
            assert_eq!((report.sleeps, sleeps(&again), report.held), (1, 1, None));
        }
    }
    // Where the user forgets by age, a year and more later most of this history is past
    // staleAfterDays: the Sleep at the end would retire most of it, so it is held back and
    // says why...
    let by_age = || {
        let store = MemStore::new();
        block(store.set_policy(nocturne_core::testkit::article_policy())).expect("policy");
        store
    };
    let end = by_age();
    let report = import_all(&end, &h, &ImportOptions::default());
    assert_eq!((report.sleeps, sleeps(&end)), (0, 0));
    let held = report.held.expect("held back");
    assert!(held.contains("would retire") && held.contains("staleAfterDays"), "{held}");
    // ...and runs when the user lets it.
    let end = by_age();
    let report = import_all(&end, &h, &ImportOptions { retire_a_lot: true, ..Default::default() });
    assert_eq!((report.sleeps, sleeps(&end), report.held), (1, 1, None));
    let active = block(end.items()).expect("reads").iter().filter(|i| i.active).count();
    assert!(active < report.facts, "the Sleep retired stale facts: {active} of {}", report.facts);
    // A Sleep per day, dated that day's end, as estimated.
    let daily = MemStore::new();
    let options = ImportOptions { sleep: SleepAfter::EachDay, ..Default::default() };
    let estimate = import_plan::estimate(
        &import_plan::plan(&h, &HashSet::new(), &options),
        OfflineProvider.proposal_style(),
        &options,
    );
    let report = import_all(&daily, &h, &options);
    assert_eq!(report.sleeps, estimate.sleeps, "a Sleep per day of history, as estimated");
    assert!(report.sleeps >= 7, "{} days", report.sleeps);
    assert_eq!(sleeps(&daily), report.sleeps);
}

#[test]
fn the_estimate_counts_the_calls_the_import_makes() {
    let h = history();
    let options = ImportOptions { sleep: SleepAfter::Never, ..Default::default() };
    let plan = import_plan::plan(&h, &HashSet::new(), &options);
    let estimate = import_plan::estimate(&plan, OfflineProvider.proposal_style(), &options);
    let counting = Counting::new(None);
    let store = MemStore::new();
    block(import::run(&store, &counting, &plan, &options, NOW, &mut |_| {})).expect("imports");
    assert_eq!(estimate.calls, counting.calls.get(), "{}", estimate.line());
    assert_eq!((estimate.new_user, estimate.conversations), (h.user_messages(), 8));
    assert!(estimate.prompt_tokens > 0);
}

#[test]
fn a_refused_file_changes_nothing_in_the_memory() {
    let store = MemStore::new();
    import_all(&store, &history(), &ImportOptions { sleep: SleepAfter::Never, ..Default::default() });
    let before = store.document().to_json();
    let full = json(&exports::chatgpt_conversations());
    for bad in [&full[..full.len() - 10], b"[{\"id\": 1}]".as_slice(), &exports::zip(&[("a.txt", b"hi")])] {
        assert!(read("x", bad, None, NOW).is_err());
    }
    assert_eq!(store.document().to_json(), before);
}

#[test]
fn an_unreachable_model_stops_the_import_with_a_clear_error_and_keeps_what_was_written() {
    let h = history();
    let options = ImportOptions { sleep: SleepAfter::Never, ..Default::default() };
    let plan = import_plan::plan(&h, &HashSet::new(), &options);
    let store = MemStore::new();
    let down = Counting::new(Some(2));
    let e = block(import::run(&store, &down, &plan, &options, NOW, &mut |_| {})).expect_err("the model went away");
    assert!(e.to_string().contains("could not be reached") && e.to_string().contains("resume"), "{e}");
    let written = block(store.transcript()).expect("reads").len();
    assert!(written > 0, "the batches before the failure stay");
    let meta = block(store.meta()).expect("reads");
    assert_eq!(meta.encoded_through as usize, written, "no turn is left half-written");
}

#[test]
fn a_chatgpt_export_whose_current_node_is_the_old_answer_reads_that_branch() {
    // The branch is chosen by `current_node`, not by taking every node of the mapping.
    let mut convs = exports::chatgpt_conversations();
    convs[0]["current_node"] = "a2-old".into();
    let h = read("conversations.json", &json(&convs[..1]), None, NOW).expect("reads");
    let users: Vec<String> = user_messages(&h).into_iter().map(|u| u.0).collect();
    assert_eq!(users, ["I moved to Lisbon in March.", "My sister is called Ana."]);
}

#[test]
fn an_import_in_pieces_writes_what_the_whole_plan_writes() {
    let h = history();
    let options = ImportOptions { sleep: SleepAfter::Never, batch: 2, ..Default::default() };
    let whole = MemStore::new();
    import_all(&whole, &h, &options);
    let plan = import_plan::plan(&h, &HashSet::new(), &options);
    let pieces = plan.pieces(3);
    assert!(pieces.len() > 2, "{} pieces", pieces.len());
    assert_eq!(pieces.iter().map(|p| p.messages.len()).sum::<usize>(), plan.messages.len());
    for p in &pieces {
        let days: HashSet<_> = p.messages.iter().map(|m| nocturne_core::text::when::Day::from_unix(m.at)).collect();
        let first_day = nocturne_core::text::when::Day::from_unix(p.messages[0].at);
        assert!(
            pieces
                .iter()
                .filter(|q| !std::ptr::eq(*q, p))
                .all(|q| q.messages.iter().all(|m| !days.contains(&nocturne_core::text::when::Day::from_unix(m.at)))),
            "day {first_day} is split between pieces"
        );
    }
    let store = MemStore::new();
    let mut report = import::Report::default();
    for piece in &pieces {
        report
            .absorb(block(import::run(&store, &OfflineProvider, piece, &options, NOW, &mut |_| {})).expect("imports"));
    }
    let texts = |s: &MemStore| -> Vec<(String, i64)> {
        block(s.transcript()).expect("reads").into_iter().map(|t| (t.text, t.at)).collect()
    };
    assert_eq!(texts(&store), texts(&whole));
    assert_eq!(report.user_turns, h.user_messages());
    assert_eq!(report.conversations, h.conversations.len());
}

#[test]
fn reading_a_slice_at_a_time_gives_what_reading_at_once_gives() {
    use nocturne_core::history::{Reading, Step};
    let mut convs = exports::chatgpt_conversations();
    convs.extend(exports::synthetic_conversations(30, 2));
    let (a, b) = (json(&convs[..20]), json(&convs[20..]));
    let zip = exports::zip(&[("conversations-000.json", &a), ("conversations-001.json", &b)]);
    let whole = read("export.zip", &zip, None, NOW).expect("reads");
    let mut reading = Reading::new("export.zip", zip, None, NOW);
    let mut counts = vec![0];
    let sliced = loop {
        match reading.step(4).expect("reads") {
            Step::Done(h) => break h,
            Step::Working { conversations } => counts.push(conversations),
        }
    };
    assert_eq!(sliced, whole);
    assert!(counts.windows(2).all(|w| w[1] >= w[0] && w[1] - w[0] <= 4), "no slice reads more than 4: {counts:?}");
    assert_eq!(counts.last(), Some(&32));
}

#[test]
fn a_broken_conversation_in_the_middle_of_an_export_is_named() {
    let mut convs = exports::chatgpt_conversations();
    convs.extend(exports::synthetic_conversations(6, 1));
    convs[5] = serde_json::json!({"title": "no tree"});
    let e = read("conversations.json", &json(&convs), None, NOW).expect_err("a conversation without its mapping");
    assert!(e.to_string().contains("conversation 6 has no 'mapping'"), "{e}");
}

/// The offline provider behind a Stop pressed while its call is under way: the token is
/// set and the call fails as stopped, as the app's stoppable provider does.
struct StoppedMidCall {
    calls: Cell<usize>,
    at: usize,
    stop: nocturne_core::flow::stop::StopToken,
}

impl Provider for StoppedMidCall {
    fn label(&self) -> String {
        "stopped mid-call".into()
    }
    fn proposal_style(&self) -> ProposalStyle {
        OfflineProvider.proposal_style()
    }
    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        self.calls.set(self.calls.get() + 1);
        if self.calls.get() == self.at {
            self.stop.stop();
            return Err(ProviderError::Stopped);
        }
        OfflineProvider.complete(request).await
    }
}

#[test]
fn regression_a_stop_during_a_batchs_model_call_ends_the_import_as_stopped_not_failed() {
    let h = history();
    let options = ImportOptions { sleep: SleepAfter::Never, ..Default::default() };
    let plan = import_plan::plan(&h, &HashSet::new(), &options);
    let store = MemStore::new();
    let provider = StoppedMidCall { calls: Cell::new(0), at: 3, stop: options.stop.clone() };
    let report =
        block(import::run(&store, &provider, &plan, &options, NOW, &mut |_| {})).expect("a stop is no failure");
    assert!(report.stopped, "{report:?}");
    let written = block(store.transcript()).expect("reads").len();
    assert!(
        written > 0 && report.user_turns + report.assistant_turns == written,
        "two batches written, the third nothing"
    );
    assert_eq!(block(store.meta()).expect("reads").encoded_through as usize, written);
}

/// #68: a history is a source other than the user. Each imported turn and every fact from it
/// keeps the file it came from, received when imported (so the trust policy holds it: into
/// scratch, never `persona` or `human` directly), and a message dated after the file was
/// read is left out and counted, whatever its format.
#[test]
fn an_imported_fact_keeps_its_file_and_a_message_dated_after_the_reading_is_left_out() {
    use nocturne_core::model::memory::Block;
    use nocturne_core::model::provenance::{By, Source};
    let log = [
        r#"{"role": "user", "content": "My name is Ines and I live in Braga.", "timestamp": "2024-05-01T10:00:00Z"}"#,
        r#"{"role": "user", "content": "I live in Ghent now.", "timestamp": "2099-01-01T00:00:00Z"}"#,
    ]
    .join("\n");
    let h = read("history.jsonl", log.as_bytes(), None, NOW).expect("reads");
    assert_eq!(h.skipped.future, 1, "the message dated 2099 is left out");
    assert_eq!(user_messages(&h).len(), 1);
    let store = MemStore::new();
    let options = ImportOptions { sleep: SleepAfter::Never, file: Some("history.jsonl".into()), ..Default::default() };
    let report = import_all(&store, &h, &options);
    assert!(report.facts > 0, "{report:?}");
    let from_file = Source { by: By::Import { file: "history.jsonl".into() }, received_at: NOW };
    let turns = block(store.transcript()).expect("reads");
    assert!(turns.iter().all(|t| t.provenance.as_ref() == Some(&from_file)), "{turns:?}");
    let items = block(store.items()).expect("reads");
    for item in &items {
        assert_eq!(item.sources, vec![from_file.clone()], "{} keeps its file", item.text);
        assert!(!item.said_by_user() && item.block == Block::Scratch, "{} is held to an outsider's rights", item.text);
    }
}
