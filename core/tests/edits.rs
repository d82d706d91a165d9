//! The user's own edits (`flow::edit`): correct, pin, unpin, forget now — each a logged
//! mutation by the user in a version of its own, undone by a restore, and never undone by
//! a Sleep; the re-audit and the no-invention sweep accept them.

use nocturne_core::flow::edit::{self, EditError, UserEdit};
use nocturne_core::flow::{chat, sleep, told};
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::llm::provider::{Completion, Provider, ProviderError, Request, Task};
use nocturne_core::model::memory::{Mutation, Proposer, Turn, Version};
use nocturne_core::model::pass::{MutationKind, Stage};
use nocturne_core::model::policy::RetentionPolicy;
use nocturne_core::proof::audit;
use nocturne_core::store::document::Document;
use nocturne_core::store::{lineage, Commit, MemStore, Meta, Store, StoreError};
use nocturne_core::PassKind;

const NOW: i64 = 1_767_225_600;
const DAY: i64 = 86_400;

fn block<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

fn find(store: &MemStore, words: &str) -> nocturne_core::Item {
    block(store.items()).expect("items").into_iter().find(|i| i.text.contains(words)).expect(words)
}

fn slept(text: &str) -> MemStore {
    let store = MemStore::new();
    block(chat::chat_turn(&store, &OfflineProvider, text, NOW, chat::TurnOptions::default())).expect("turn");
    block(sleep::sleep(&store, &OfflineProvider, &sleep::SleepOptions::new(NOW + 60), &mut |_| {})).expect("sleep");
    store
}

#[test]
fn a_correction_closes_the_old_text_keeps_it_in_history_and_a_restore_undoes_it() {
    let store = slept("I live in Lisbon. I keep bees.");
    let old = find(&store, "Lisbon");
    let before = block(store.meta()).expect("meta").head;
    let v = block(edit::apply(
        &store,
        &UserEdit::Correct { item_id: old.item_id.clone(), text: "I live in Porto.".into() },
        NOW + DAY,
    ))
    .expect("edit");
    assert_eq!(v.label, "user:correct");
    let (old_now, new) = (find(&store, "Lisbon"), find(&store, "Porto"));
    assert!(!old_now.active && old_now.superseded_by.as_deref() == Some(new.item_id.as_str()) && new.active);
    let log = block(store.mutations()).expect("log");
    let m = log.last().expect("a mutation");
    assert!(m.pass == Stage::User && m.kind == MutationKind::Correct && m.proposer == Proposer::User && m.accepted);
    assert_eq!(m.refs.previous_text.as_deref(), Some("I live in Lisbon."));
    let steps: Vec<String> = lineage::lineage(&old.item_id, &log).into_iter().map(|s| s.what).collect();
    assert!(steps.iter().any(|s| s.contains("corrected by the user into")), "{steps:?}");
    assert!(block(audit::audit(&store)).expect("audit").problems.is_empty(), "the re-audit accepts the user's edit");
    let (clean, total, offenders) = block(audit::sweep(&store)).expect("sweep");
    assert_eq!((clean, offenders), (total, Vec::<String>::new()), "the correction is its own source");
    block(store.restore(before, NOW + 2 * DAY)).expect("restore");
    assert!(find(&store, "Lisbon").active && !find(&store, "Porto").active, "a restore undoes the correction");
}

/// The offline provider, except that it proposes to forget, drop and supersede everything.
struct Careless;

impl Provider for Careless {
    fn label(&self) -> String {
        "careless".into()
    }
    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        let Task::Propose(pass) = request.task else { return OfflineProvider.complete(request).await };
        let payload: serde_json::Value =
            serde_json::from_str(&request.messages.last().map(|m| m.content.clone()).unwrap_or_default())
                .unwrap_or_default();
        let ids: Vec<String> = payload["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|i| i["itemId"].as_str().map(str::to_string))
            .collect();
        let other = ids.last().cloned().unwrap_or_default();
        let list: Vec<serde_json::Value> = ids
            .iter()
            .map(|id| match pass {
                PassKind::Forget => serde_json::json!({"itemId": id, "reason": "tidy", "policy": "stale"}),
                PassKind::Dedupe => serde_json::json!({"itemId": id, "duplicateOf": other, "reason": "same"}),
                PassKind::Supersede => serde_json::json!({"oldId": id, "newId": other, "reason": "newer"}),
                _ => serde_json::json!({}),
            })
            .collect();
        Ok(Completion { text: serde_json::json!({ pass.proposal_key(): list }).to_string(), ..Default::default() })
    }
}

#[test]
fn a_pinned_fact_survives_every_sleep_and_a_careless_model_is_refused_with_the_reason() {
    let store = slept("The kitchen tap leaks under the sink. The garden gate squeaks at night.");
    block(store.set_policy(nocturne_core::testkit::article_policy())).expect("forgetting by age, as the user sets it");
    let tap = find(&store, "kitchen");
    block(edit::apply(&store, &UserEdit::Pin { item_id: tap.item_id.clone() }, NOW + 120)).expect("pin");
    assert!(find(&store, "kitchen").pinned);
    // A year on, the event is long stale: the rules leave it alone, a careless model is refused.
    let later = sleep::SleepOptions::new(NOW + 365 * DAY).deep();
    block(sleep::sleep(&store, &Careless, &later, &mut |_| {})).expect("careless sleep");
    block(sleep::sleep(&store, &OfflineProvider, &later, &mut |_| {})).expect("sleep");
    assert!(find(&store, "kitchen").active, "a Sleep never forgets a pinned fact");
    let refused: Vec<String> = block(store.mutations())
        .expect("log")
        .into_iter()
        .filter(|m| !m.accepted && m.item_id == tap.item_id)
        .filter_map(|m| m.rejection_reason)
        .collect();
    let pinned = refused.iter().filter(|r| r.contains("pinned by the user")).count();
    assert!(pinned >= 2, "forget and supersede of the pinned fact refused, with the reason: {refused:?}");
    block(edit::apply(&store, &UserEdit::Unpin { item_id: tap.item_id.clone() }, NOW + 366 * DAY)).expect("unpin");
    block(sleep::sleep(&store, &OfflineProvider, &sleep::SleepOptions::new(NOW + 367 * DAY), &mut |_| {}))
        .expect("sleep");
    assert!(!find(&store, "kitchen").active, "unpinned, the stale event goes");
    assert!(block(audit::audit(&store)).expect("audit").problems.is_empty());
}

#[test]
fn forget_now_retires_with_the_reason_and_bad_edits_change_nothing() {
    let store = slept("I keep bees.");
    let bees = find(&store, "bees");
    let head = block(store.meta()).expect("meta").head;
    for bad in [
        UserEdit::Pin { item_id: "m_999".into() },
        UserEdit::Unpin { item_id: bees.item_id.clone() },
        UserEdit::Correct { item_id: bees.item_id.clone(), text: "  ".into() },
    ] {
        let err = block(edit::apply(&store, &bad, NOW + DAY)).expect_err("refused");
        assert!(matches!(err, EditError::NotEditable(_)) && err.to_string().ends_with("nothing was changed"), "{err}");
    }
    assert_eq!(block(store.meta()).expect("meta").head, head, "a refused edit writes nothing");
    block(edit::apply(
        &store,
        &UserEdit::Forget { item_id: bees.item_id.clone(), reason: "sold the hives".into() },
        NOW + DAY,
    ))
    .expect("forget");
    assert!(!find(&store, "bees").active);
    let m = block(store.mutations()).expect("log").pop().expect("logged");
    assert_eq!((m.kind, m.reason.as_str()), (MutationKind::Forget, "sold the hives"));
    block(store.restore(head, NOW + 2 * DAY)).expect("restore");
    assert!(find(&store, "bees").active, "forget now is soft: a restore brings it back");
}

/// A memory another writer (a second tab, `nocturne chat` beside `nocturne mcp`) changes
/// once, with its own edit, between a write's read and its commit.
struct Busy {
    inner: MemStore,
    interloper: std::cell::RefCell<Option<UserEdit>>,
}

impl Busy {
    async fn interlope(&self) {
        let other = self.interloper.borrow_mut().take();
        if let Some(other) = other {
            edit::apply(&self.inner, &other, NOW + DAY).await.expect("the other writer's edit");
        }
    }
}

impl Store for Busy {
    async fn items(&self) -> Result<Vec<nocturne_core::Item>, StoreError> {
        self.inner.items().await
    }
    async fn meta(&self) -> Result<Meta, StoreError> {
        self.inner.meta().await
    }
    async fn versions(&self) -> Result<Vec<Version>, StoreError> {
        self.inner.versions().await
    }
    async fn mutations(&self) -> Result<Vec<Mutation>, StoreError> {
        self.inner.mutations().await
    }
    async fn transcript(&self) -> Result<Vec<Turn>, StoreError> {
        self.inner.transcript().await
    }
    async fn items_at(&self, seq: u64) -> Result<Vec<nocturne_core::Item>, StoreError> {
        self.inner.items_at(seq).await
    }
    async fn changes(&self, lo: u64, hi: u64) -> Result<Vec<(u64, nocturne_core::Item)>, StoreError> {
        self.inner.changes(lo, hi).await
    }
    async fn commit(&self, commit: Commit) -> Result<Vec<Version>, StoreError> {
        self.interlope().await;
        self.inner.commit(commit).await
    }
    async fn set_policy(&self, policy: RetentionPolicy) -> Result<(), StoreError> {
        self.inner.set_policy(policy).await
    }
    fn rows_written(&self) -> u64 {
        self.inner.rows_written()
    }
    async fn replace_all(&self, doc: Document, base: u64) -> Result<(), StoreError> {
        self.interlope().await;
        self.inner.replace_all(doc, base).await
    }
}

/// A slept memory of two facts, busy: `other` is made by another writer mid-write.
fn busy(other: impl FnOnce(&MemStore) -> UserEdit) -> (Busy, nocturne_core::Item, nocturne_core::Item) {
    let inner = slept("I keep bees. I live in Lisbon.");
    let (bees, lisbon) = (find(&inner, "bees"), find(&inner, "Lisbon"));
    let other = other(&inner);
    (Busy { inner, interloper: std::cell::RefCell::new(Some(other)) }, bees, lisbon)
}

#[test]
fn an_edit_that_met_another_writers_commit_is_planned_again_and_both_land() {
    let (store, bees, _) =
        busy(|m| UserEdit::Correct { item_id: find(m, "Lisbon").item_id, text: "I live in Porto.".into() });
    block(edit::apply(&store, &UserEdit::Pin { item_id: bees.item_id.clone() }, NOW + 2 * DAY))
        .expect("planned again on the moved memory, the pin lands");
    assert!(find(&store.inner, "bees").pinned, "the user's pin");
    assert!(
        find(&store.inner, "Porto").active && !find(&store.inner, "Lisbon").active,
        "the other writer's correction"
    );
}

#[test]
fn an_edit_whose_fact_another_writer_retired_meanwhile_is_refused_when_planned_again() {
    let (store, bees, _) =
        busy(|m| UserEdit::Forget { item_id: find(m, "bees").item_id, reason: "sold the hives".into() });
    let err = block(edit::apply(
        &store,
        &UserEdit::Correct { item_id: bees.item_id.clone(), text: "I keep wasps.".into() },
        NOW + 2 * DAY,
    ))
    .expect_err("the fact is gone");
    assert!(matches!(err, EditError::NotEditable(_)), "{err}");
    assert!(!block(store.items()).expect("items").iter().any(|i| i.text.contains("wasps")), "nothing was written");
}

#[test]
fn an_erase_that_met_another_writers_commit_is_planned_again_and_both_land() {
    let (store, bees, _) = busy(|m| UserEdit::Pin { item_id: find(m, "Lisbon").item_id });
    block(edit::erase(&store, &bees.item_id, NOW + 2 * DAY)).expect("planned again, the erase lands");
    let doc = block(store.document()).expect("doc").to_json();
    assert!(!doc.contains("bees"), "the words are gone");
    assert!(find(&store.inner, "Lisbon").pinned, "the other writer's pin");
}

/// The turns `said`, each a minute apart, then the memory commands of `command` carried out
/// as the user's edits through `flow::edit::apply`.
fn told(said: &[&str], command: &str) -> (MemStore, Vec<told::Carried>) {
    let store = MemStore::new();
    for (k, text) in said.iter().chain([&command]).enumerate() {
        block(chat::chat_turn(&store, &OfflineProvider, text, NOW + 60 * k as i64, chat::TurnOptions::default()))
            .expect("turn");
    }
    let at = NOW + 3600;
    let done = block(told::carry_out(&store, command, &[], async |e: &UserEdit| {
        edit::apply(&store, e, at).await.map_err(|e| e.to_string())
    }))
    .expect("carried out");
    (store, done)
}

fn active_texts(store: &MemStore) -> Vec<String> {
    block(store.items()).expect("items").into_iter().filter(|i| i.active).map(|i| i.text).collect()
}

/// Issue 67: "Please forget that I'm vegan." was kept as a fact and forgot nothing. Now it
/// retires that fact as the user's logged edit, says so, and its undo brings it back.
#[test]
fn regression_please_forget_that_im_vegan_was_kept_and_forgot_nothing() {
    let (store, done) = told(&["I'm vegan.", "I live in Graz."], "Please forget that I'm vegan.");
    assert_eq!(done.len(), 1, "{done:?}");
    assert!(
        done[0].changed && done[0].said.starts_with("forgot m_") && done[0].said.contains("I'm vegan."),
        "{done:?}"
    );
    assert_eq!(active_texts(&store), ["I live in Graz."], "the fact is retired and the command is no fact");
    let log = block(store.mutations()).expect("log");
    let m = log.iter().rev().find(|m| m.kind == MutationKind::Forget).expect("a forget");
    assert!(m.pass == Stage::User && m.proposer == Proposer::User && m.reason.contains("Please forget"), "{m:?}");
    let undo = done[0].undo.clone().expect("an undo");
    let told::Undo::Restore { seq, head } = undo else { panic!("{undo:?}") };
    assert_eq!(undo.stale(head), None, "undoable while the memory is at the edit");
    assert!(undo.stale(head + 1).is_some_and(|why| why.contains("would undo those changes too")));
    block(store.restore(seq, NOW + 7200)).expect("undo");
    assert_eq!(active_texts(&store), ["I'm vegan.", "I live in Graz."], "undone");
}

#[test]
fn thats_wrong_corrects_the_fact_it_names_and_its_undo_corrects_it_back() {
    let (store, done) = told(&["Hi! I'm Lana.", "I work as a midwife."], "That's wrong, my name is Lena.");
    assert!(done[0].changed && done[0].said.contains("corrected"), "{done:?}");
    assert_eq!(active_texts(&store), ["I work as a midwife.", "My name is Lena."]);
    let Some(told::Undo::Edit { edit: back }) = done[0].undo.clone() else { panic!("{:?}", done[0].undo) };
    block(edit::apply(&store, &back, NOW + 7200)).expect("undo");
    assert_eq!(active_texts(&store), ["I work as a midwife.", "I'm Lana."]);
}

/// An ambiguous command and an erase ask, and change nothing: the memory's head, facts and
/// log are as they were before the command was carried out.
#[test]
fn an_ambiguous_command_or_an_erase_asks_and_changes_nothing() {
    let said = ["I have a cat called Miso.", "My sister has a cat called Tiger.", "I live at 4 Elm Road."];
    for (command, asks) in [
        ("Forget about the cat.", "2 facts match; which should I forget?"),
        ("Forget that I own a boat.", "No fact in memory says"),
        ("Erase my address at 4 Elm Road.", "confirm it with Erase"),
    ] {
        let store = MemStore::new();
        for (k, text) in said.iter().chain([&command]).enumerate() {
            block(chat::chat_turn(&store, &OfflineProvider, text, NOW + 60 * k as i64, chat::TurnOptions::default()))
                .expect("turn");
        }
        let before = block(Store::document(&store)).expect("document");
        let done = block(told::carry_out(&store, command, &[], async |e: &UserEdit| {
            edit::apply(&store, e, NOW + 3600).await.map_err(|e| e.to_string())
        }))
        .expect("carried out");
        assert!(done.len() == 1 && !done[0].changed && done[0].undo.is_none(), "{command}: {done:?}");
        assert!(done[0].said.contains(asks) && done[0].said.contains("Nothing was changed"), "{command}: {done:?}");
        assert_eq!(block(Store::document(&store)).expect("document"), before, "{command} changed the memory");
    }
}

/// Issue 67: "Remind me to call the vet tomorrow." was answered "I don't have that in
/// memory." and nothing said a reminder was set. Now the chat turn keeps it as the user's
/// own commitment, due the next day (resolved by code), shown under the turn with its
/// undo; the memory's prompt shows the due date, and it falls due like any other.
#[test]
fn regression_remind_me_to_call_the_vet_tomorrow_set_no_reminder() {
    let store = MemStore::new();
    let said = "Remind me to call the vet tomorrow.";
    block(chat::chat_turn(&store, &OfflineProvider, "I have a cat called Miso.", NOW, chat::TurnOptions::default()))
        .expect("turn");
    let out =
        block(chat::chat_turn(&store, &OfflineProvider, said, NOW + 60, chat::TurnOptions::default())).expect("turn");
    let reminder = find(&store, "vet");
    assert_eq!(reminder.text, "Remind me to call the vet tomorrow.");
    assert!(reminder.active && reminder.is_commitment(), "{reminder:?}");
    assert_eq!(reminder.when().map(|w| w.last().to_string()).as_deref(), Some("2026-01-02"));
    let m = out.encoded.iter().find(|m| m.item_id == reminder.item_id).expect("logged");
    assert!(m.proposer == Proposer::User && m.pass == Stage::User && m.kind == MutationKind::Add, "{m:?}");
    // Kept, so the turn does not also say the sentence was not kept.
    let skipped = out.encoded.iter().filter(|m| m.kind == MutationKind::Skip).count();
    assert_eq!(skipped, 0, "{:?}", out.encoded);
    let done = block(told::carry_out(&store, said, &out.encoded, async |e: &UserEdit| {
        edit::apply(&store, e, NOW + 120).await.map_err(|e| e.to_string())
    }))
    .expect("carried out");
    assert_eq!(done.len(), 1, "{done:?}");
    assert!(done[0].said.contains("as a reminder, due 2026-01-02"), "{done:?}");
    // Asked the next morning, the offline provider answers with the due date.
    let reply =
        block(chat::reply(&store, &OfflineProvider, "When do I need to call the vet?", NOW + 9 * 3600, &mut |_| {}))
            .expect("reply");
    assert!(reply.text.contains("2026-01-02") && reply.memory.cited == [reminder.item_id.clone()], "{reply:?}");
    // Not forgotten before it falls due; forgotten once its date and the grace have passed.
    let options = sleep::SleepOptions::new;
    block(sleep::sleep(&store, &OfflineProvider, &options(NOW + DAY), &mut |_| {})).expect("sleep");
    assert!(find(&store, "vet").active, "kept until it falls due");
    block(sleep::sleep(&store, &OfflineProvider, &options(NOW + 10 * DAY), &mut |_| {})).expect("sleep");
    assert!(!find(&store, "vet").active, "fallen due and past its grace");
    let log = block(store.mutations()).expect("log");
    assert!(log.iter().any(|m| m.item_id == reminder.item_id && m.accepted && m.reason.contains("due 2026-01-02")));
    // Its undo: the user's forget of it.
    let store = MemStore::new();
    let out = block(chat::chat_turn(&store, &OfflineProvider, said, NOW, chat::TurnOptions::default())).expect("turn");
    let done = block(told::carry_out(&store, said, &out.encoded, async |e: &UserEdit| {
        edit::apply(&store, e, NOW + 120).await.map_err(|e| e.to_string())
    }))
    .expect("carried out");
    let Some(told::Undo::Edit { edit: undo }) = done[0].undo.clone() else { panic!("{done:?}") };
    block(edit::apply(&store, &undo, NOW + 180)).expect("undo");
    assert!(!find(&store, "vet").active, "undone");
}

/// The write layer's `Reply` (what every entry point performs for a chat turn) carries out
/// the turn's memory commands: the outcome says what each did, and the memory shows it.
#[test]
fn a_reply_performed_by_the_journal_carries_out_its_memory_commands() {
    use nocturne_core::write::{Journal, NoSync, Reply, StoreLocks, Watch};
    let store = MemStore::new();
    let journal = Journal::new(&store, &StoreLocks, &NoSync);
    let say = |text: &str, at: i64| {
        let reply = Reply { text: text.into(), speaker: None, at };
        block(journal.perform(reply, &OfflineProvider, &mut Watch::quiet())).expect("turn").done
    };
    assert!(say("I'm vegan. I live in Graz.", NOW).told.is_empty(), "no command, nothing carried out");
    let out = say("Please forget that I'm vegan.", NOW + 60);
    assert!(out.told.len() == 1 && out.told[0].changed && out.told[0].said.contains("forgot"), "{:?}", out.told);
    assert_eq!(active_texts(&store), ["I live in Graz."]);
    let out = say("Remind me to call the vet tomorrow.", NOW + 120);
    assert!(out.told.len() == 1 && out.told[0].said.contains("due 2026-01-02"), "{:?}", out.told);
}

/// A store that notes each read of a whole table (every fact, turn, version or log entry),
/// answering everything from `inner`.
struct Watched {
    inner: MemStore,
    whole: std::cell::RefCell<Vec<&'static str>>,
}

impl Watched {
    fn note(&self, what: &'static str) {
        self.whole.borrow_mut().push(what);
    }
}

impl Store for Watched {
    async fn items(&self) -> Result<Vec<nocturne_core::Item>, StoreError> {
        self.note("items");
        self.inner.items().await
    }
    async fn meta(&self) -> Result<Meta, StoreError> {
        self.inner.meta().await
    }
    async fn versions(&self) -> Result<Vec<Version>, StoreError> {
        self.note("versions");
        self.inner.versions().await
    }
    async fn mutations(&self) -> Result<Vec<Mutation>, StoreError> {
        self.note("mutations");
        self.inner.mutations().await
    }
    async fn transcript(&self) -> Result<Vec<Turn>, StoreError> {
        self.note("transcript");
        self.inner.transcript().await
    }
    async fn items_at(&self, seq: u64) -> Result<Vec<nocturne_core::Item>, StoreError> {
        self.note("items_at");
        self.inner.items_at(seq).await
    }
    async fn item_states(&self, ids: &[String], seq: u64) -> Result<Vec<nocturne_core::Item>, StoreError> {
        self.inner.item_states(ids, seq).await
    }
    async fn changes(&self, lo: u64, hi: u64) -> Result<Vec<(u64, nocturne_core::Item)>, StoreError> {
        self.inner.changes(lo, hi).await
    }
    async fn commit(&self, commit: Commit) -> Result<Vec<Version>, StoreError> {
        self.inner.commit(commit).await
    }
    async fn set_policy(&self, policy: RetentionPolicy) -> Result<(), StoreError> {
        self.inner.set_policy(policy).await
    }
    fn rows_written(&self) -> u64 {
        self.inner.rows_written()
    }
    async fn replace_all(&self, doc: Document, base: u64) -> Result<(), StoreError> {
        self.inner.replace_all(doc, base).await
    }
}

/// Issue 70: every chat turn in the page read all of a lifetime's facts after it was stored
/// (3.4 s at 100,000), looking for a memory command it did not hold. A turn that forgets,
/// erases or corrects nothing now reads only the facts it kept, by id; one that does still
/// finds its fact.
#[test]
fn regression_every_chat_turn_read_the_whole_memory_for_commands_it_did_not_hold() {
    let store = Watched { inner: MemStore::new(), whole: Default::default() };
    let said = "Remind me to call the vet tomorrow.";
    for text in ["I'm vegan.", "I live in Graz.", said] {
        let out = block(chat::chat_turn(&store.inner, &OfflineProvider, text, NOW, chat::TurnOptions::default()))
            .expect("turn");
        store.whole.borrow_mut().clear();
        let done = block(told::carry_out(&store, text, &out.encoded, async |e: &UserEdit| {
            edit::apply(&store.inner, e, NOW + 120).await.map_err(|e| e.to_string())
        }))
        .expect("carried out");
        assert_eq!(*store.whole.borrow(), Vec::<&str>::new(), "{text}: {done:?}");
        if text == said {
            assert!(done.len() == 1 && done[0].said.contains("as a reminder, due 2026-01-02"), "{done:?}");
        }
    }
    let done = block(told::carry_out(&store, "Please forget that I'm vegan.", &[], async |e: &UserEdit| {
        edit::apply(&store.inner, e, NOW + 180).await.map_err(|e| e.to_string())
    }))
    .expect("carried out");
    assert!(done.len() == 1 && done[0].said.starts_with("forgot m_"), "{done:?}");
    assert!(store.whole.borrow().contains(&"items"), "a forget reads the facts to find its own");
}
