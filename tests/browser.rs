//! Browser suite, run in headless Chromium: the gate case files, the store conformance
//! suite against IndexedDB, a raw rexie round trip, atomicity of a pass under an aborted
//! transaction, the verifier and a reviewed Sleep against IndexedDB. One file, so one
//! browser start.
#![cfg(target_arch = "wasm32")]

use nocturne_app::idb::IdbStore;
use nocturne_core::flow::chat;
use nocturne_core::flow::sleep::{self, SleepOptions};
use nocturne_core::gate::case;
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::proof::verify;
use nocturne_core::store::Store;
use nocturne_core::testkit::conformance;
use nocturne_core::text::order;
use nocturne_tests::unique_db;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const NOW: i64 = 1_767_225_600;

async fn fresh(prefix: &str, n: u32) -> IdbStore {
    let name = unique_db(prefix, n);
    IdbStore::delete(&name).await.expect("delete old test database");
    IdbStore::open(&name).await.expect("open test database")
}

#[wasm_bindgen_test]
fn every_case_file_agrees_with_its_expectations_in_the_browser() {
    assert!(case::BUNDLED.len() >= 60, "only {} bundled cases", case::BUNDLED.len());
    let mut failures = Vec::new();
    for (name, text) in case::BUNDLED {
        match case::parse(text).and_then(|c| c.judge()) {
            Ok(r) if r.disagreements.is_empty() => {}
            Ok(r) => failures.push(format!("{name}: {}", r.disagreements.join("; "))),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[wasm_bindgen_test]
fn the_gates_guard_meaning_in_the_browser() {
    let corpus = nocturne_core::testkit::meaning::corpus();
    let score = nocturne_core::testkit::meaning::score(&corpus).expect("well-formed cases");
    wasm_bindgen_test::console_log!("{}", score.line());
    assert!(score.meets_targets(), "{}\n{}", score.line(), score.misses.join("\n"));
}

#[wasm_bindgen_test]
fn the_statements_worth_remembering_meet_their_targets_in_the_browser() {
    let score = nocturne_core::testkit::worth::score(nocturne_core::testkit::worth::STATEMENTS);
    wasm_bindgen_test::console_log!("{}", score.line());
    assert!(score.meets_targets(), "{}\n{}", score.line(), score.misses.join("\n"));
}

#[wasm_bindgen_test]
fn the_date_resolver_agrees_with_every_row_of_the_table_in_the_browser() {
    let table = nocturne_core::testkit::dates::TABLE;
    assert!(table.len() >= 60, "{} rows", table.len());
    let wrong = nocturne_core::testkit::dates::mismatches();
    assert!(wrong.is_empty(), "{} of {} rows:\n{}", wrong.len(), table.len(), wrong.join("\n"));
}

#[wasm_bindgen_test]
async fn rexie_writes_a_record_in_a_transaction_and_reads_it_back() {
    use rexie::{ObjectStore, Rexie, TransactionMode};
    let name = unique_db("raw", 0);
    Rexie::delete(&name).await.expect("delete");
    let db = Rexie::builder(&name)
        .version(1)
        .add_object_store(ObjectStore::new("notes").key_path("id"))
        .build()
        .await
        .expect("open");
    let tx = db.transaction(&["notes"], TransactionMode::ReadWrite).expect("tx");
    let store = tx.store("notes").expect("store");
    let record = js_sys::JSON::parse(r#"{"id": 1, "text": "I live in Lisbon."}"#).expect("json");
    store.put(&record, None).await.expect("put");
    tx.done().await.expect("commit");
    let tx = db.transaction(&["notes"], TransactionMode::ReadOnly).expect("tx");
    let got = tx.store("notes").expect("store").get(JsValue::from_f64(1.0)).await.expect("get").expect("found");
    let text = js_sys::Reflect::get(&got, &"text".into()).expect("field").as_string();
    assert_eq!(text.as_deref(), Some("I live in Lisbon."));
}

/// The checks of a memory large enough for a chat prompt's shortlist, each a test of its
/// own (each writes over a thousand facts).
const SHORTLIST_CHECKS: [&str; 2] = [
    "a_prompt_shortlist_keeps_the_whole_memorys_statistics",
    "a_prompt_from_the_shortlist_finds_what_reading_every_fact_finds",
];

#[wasm_bindgen_test]
async fn idb_store_passes_every_conformance_check() {
    let mut failures = Vec::new();
    for (n, name) in conformance::CHECKS.iter().enumerate().filter(|(_, c)| !SHORTLIST_CHECKS.contains(c)) {
        let store = fresh("conf", n as u32).await;
        if let Err(e) = conformance::check(name, &store).await {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(SHORTLIST_CHECKS.iter().all(|c| conformance::CHECKS.contains(c)));
}

#[wasm_bindgen_test]
async fn idb_store_keeps_the_prompt_shortlists_statistics() {
    let store = fresh("shortlist", 0).await;
    conformance::check(SHORTLIST_CHECKS[0], &store).await.expect("the shortlist's statistics");
}

#[wasm_bindgen_test]
async fn idb_store_shortlist_finds_what_reading_every_fact_finds() {
    let store = fresh("shortlist", 1).await;
    conformance::check(SHORTLIST_CHECKS[1], &store).await.expect("the prompt from the shortlist");
}

/// A memory an older build wrote — each fact and log entry its id and row only, no
/// statistics — is indexed when it is opened: its shortlist carries the whole memory's
/// statistics, and a search and a fact's log read through the indexes what reading
/// everything finds.
#[wasm_bindgen_test]
async fn a_memory_an_older_build_wrote_is_indexed_when_opened() {
    use rexie::TransactionMode;
    let name = unique_db("layout1", 0);
    IdbStore::delete(&name).await.expect("delete");
    let store = IdbStore::open(&name).await.expect("open");
    let probes = conformance::large_memory(&store).await.expect("a large memory");
    let pin = nocturne_core::flow::edit::UserEdit::Pin { item_id: "m_1305".into() };
    nocturne_core::flow::edit::apply(&store, &pin, NOW).await.expect("a logged edit");
    let before = store.document().await.expect("document");
    store.close();
    {
        let db = IdbStore::schema(&name, nocturne_app::idb::DB_VERSION).build().await.expect("raw");
        let tx = db.transaction(&["items", "mutations", "stats"], TransactionMode::ReadWrite).expect("tx");
        let strip = |keys: &[&str], value: &JsValue| -> JsValue {
            let plain = js_sys::Object::new();
            for key in keys {
                let field = js_sys::Reflect::get(value, &(*key).into()).expect("field");
                js_sys::Reflect::set(&plain, &(*key).into(), &field).expect("set");
            }
            plain.into()
        };
        for (store, keys) in [("items", &["itemId", "row"][..]), ("mutations", &["id", "seq", "row"][..])] {
            let s = tx.store(store).expect("store");
            for value in s.get_all(None, None).await.expect("read") {
                s.put(&strip(keys, &value), None).await.expect("put");
            }
        }
        tx.store("stats").expect("stats").clear().await.expect("clear");
        tx.done().await.expect("commit");
        db.close();
    }
    let reopened = IdbStore::open(&name).await.expect("reopen");
    assert_eq!(reopened.document().await.expect("document"), before, "the rows are as they were");
    let questions: Vec<String> = probes.iter().map(|p| p.question.clone()).collect();
    conformance::shortlist_statistics_agree(&reopened, &questions).await.expect("statistics counted again");
    let items = reopened.items().await.expect("items");
    for words in [&["yul3"][..], &["harpsichord"], &["spare", "key"]] {
        let tokens: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        let want: Vec<_> = items.iter().filter(|i| nocturne_core::store::search::holds(i, &tokens)).cloned().collect();
        assert!(!want.is_empty(), "{tokens:?} finds something");
        assert_eq!(reopened.items_holding(&tokens).await.expect("search"), want, "{tokens:?}");
    }
    let log = reopened.mutations().await.expect("log");
    let id = log.last().map(|m| m.item_id.clone()).expect("a log entry");
    let want: Vec<_> = log.iter().filter(|m| m.names().any(|n| n == id)).cloned().collect();
    assert_eq!(reopened.mutations_about(std::slice::from_ref(&id)).await.expect("about"), want);
    reopened.close();
}

#[wasm_bindgen_test]
async fn an_aborted_pass_leaves_the_pre_pass_version() {
    let store = fresh("abort", 0).await;
    for (days, text) in verify::SCRIPT {
        chat::chat_turn(&store, &OfflineProvider, text, NOW - (days * 86_400.0) as i64, chat::TurnOptions::default())
            .await
            .expect("chat");
    }
    let items = store.items().await.expect("items");
    let versions = store.versions().await.expect("versions");
    let log = store.mutations().await.expect("log");
    // The first pass's transaction dies after 3 of its rows are written.
    store.abort_next_commit_after(3);
    let err = sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(NOW), &mut |_| {}).await;
    assert!(err.is_err(), "the aborted write must end the Sleep with an error");
    let mut after = store.items().await.expect("items");
    let mut before = items.clone();
    order::sort_by_key(&mut before, |i| i.ordinal());
    order::sort_by_key(&mut after, |i| i.ordinal());
    assert_eq!(after, before, "items changed although the transaction aborted");
    assert_eq!(store.versions().await.expect("versions"), versions, "a version survived the abort");
    assert_eq!(store.mutations().await.expect("log"), log, "a mutation survived the abort");
    // And the store still works: the same Sleep now commits.
    let report = sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(NOW), &mut |_| {}).await.expect("sleep");
    assert!(report.active_after < report.active_before);
}

#[wasm_bindgen_test]
async fn the_verifier_passes_against_indexeddb() {
    let store = fresh("verify", 0).await;
    let options = verify::VerifyOptions { now: NOW, require_skill: true, cases: case::bundled() };
    let report = verify::verify(&store, &OfflineProvider, &options, &mut |c| web_sys_log(&c.line())).await;
    assert!(
        report.ok(true),
        "{}\n{}",
        report.summary(true),
        report.checks.iter().map(|c| c.line()).collect::<Vec<_>>().join("\n")
    );
}

fn web_sys_log(line: &str) {
    wasm_bindgen_test::console_log!("{line}");
}

#[wasm_bindgen_test]
async fn regression_a_closed_store_can_be_deleted_and_reopened() {
    // Deleting a database waits for every open connection to close: the Verify panel
    // hung on its second run until stores were closed after use.
    let name = unique_db("close", 0);
    IdbStore::delete(&name).await.expect("delete");
    let store = IdbStore::open(&name).await.expect("open");
    store.snapshot("marker", NOW).await.expect("write");
    store.close();
    IdbStore::delete(&name).await.expect("delete after close completes");
    let again = IdbStore::open(&name).await.expect("reopen");
    assert!(again.versions().await.expect("versions").is_empty(), "the deleted database came back");
    again.close();
}

#[wasm_bindgen_test]
async fn a_later_schema_version_opens_todays_data() {
    use rexie::ObjectStore;
    // Today's build writes a memory; a later release opens the same database at a higher
    // version with today's schema plus a new object store. The upgrade adds the store and
    // keeps every row. (A store left out of the schema would be deleted: the schema only grows.)
    let name = unique_db("upgrade", 0);
    IdbStore::delete(&name).await.expect("delete");
    let store = IdbStore::open(&name).await.expect("open");
    chat::chat_turn(
        &store,
        &OfflineProvider,
        "I live in Lisbon. I keep a bearded dragon.",
        NOW,
        chat::TurnOptions::default(),
    )
    .await
    .expect("chat");
    let before = store.export().await.expect("export");
    store.close();
    let later = IdbStore::schema(&name, nocturne_app::idb::DB_VERSION + 1)
        .add_object_store(ObjectStore::new("future_feature").key_path("id"))
        .build()
        .await
        .expect("upgrade");
    assert!(later.store_names().contains(&"future_feature".to_string()));
    assert!(later.store_names().contains(&"changes".to_string()), "an upgrade must not drop today's stores");
    let tx = later.transaction(&["items"], rexie::TransactionMode::ReadOnly).expect("tx");
    let rows = tx.store("items").expect("items").get_all(None, None).await.expect("read");
    assert_eq!(rows.len(), before.items.len(), "rows survived the upgrade");
    later.close();
}

#[wasm_bindgen_test]
async fn every_broken_file_is_refused_by_the_apps_import_and_nothing_changes() {
    let current = fresh("current", 0).await;
    chat::chat_turn(
        &current,
        &OfflineProvider,
        "I live in Ghent and I teach chemistry.",
        NOW,
        chat::TurnOptions::default(),
    )
    .await
    .expect("chat");
    let kept = current.export().await.expect("export").to_json();
    let valid = nocturne_core::testkit::documents::valid_export(NOW).await;
    for (n, b) in nocturne_core::testkit::documents::broken_documents(&valid).into_iter().enumerate() {
        let name = unique_db("broken", n as u32);
        let err = match IdbStore::import_new(&name, &b.text).await {
            Ok(_) => panic!("{} was imported", b.name),
            Err(e) => e.to_string(),
        };
        assert!(err.contains(b.expect) && err.contains("Nothing was changed"), "{}: {err}", b.name);
        let opened = IdbStore::open(&name).await.expect("open");
        assert!(opened.items().await.expect("items").is_empty(), "{} left items behind", b.name);
        assert_eq!(opened.meta().await.expect("meta").head, 0, "{} left versions behind", b.name);
        opened.close();
    }
    assert_eq!(current.export().await.expect("export").to_json(), kept, "the memory in use changed");
}

#[wasm_bindgen_test]
async fn a_file_the_app_exported_always_imports() {
    let store = fresh("roundtrip", 0).await;
    for (days, text) in verify::SCRIPT {
        chat::chat_turn(&store, &OfflineProvider, text, NOW - (days * 86_400.0) as i64, chat::TurnOptions::default())
            .await
            .expect("chat");
    }
    sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(NOW), &mut |_| {}).await.expect("sleep");
    store.restore(3, NOW + 5).await.expect("restore");
    let text = store.export().await.expect("export").to_json();
    let name = unique_db("roundtrip-in", 0);
    IdbStore::delete(&name).await.expect("clean");
    let (again, facts) = IdbStore::import_new(&name, &text).await.expect("its own export imports");
    assert!(facts > 0);
    assert_eq!(again.export().await.expect("export").to_json(), text);
}

#[wasm_bindgen_test]
async fn a_write_from_another_tab_during_a_sleep_is_never_overwritten() {
    // Two handles on one database behave as two tabs: each commit is its own transaction.
    let name = unique_db("tabs", 0);
    IdbStore::delete(&name).await.expect("clean");
    let tab_a = IdbStore::open(&name).await.expect("open a");
    for (days, text) in verify::SCRIPT {
        chat::chat_turn(&tab_a, &OfflineProvider, text, NOW - (days * 86_400.0) as i64, chat::TurnOptions::default())
            .await
            .expect("chat");
    }
    let tab_b = IdbStore::open(&name).await.expect("open b");
    // Tab A plans a pass against head h; tab B chats (moving the head) before A commits.
    let head = tab_a.meta().await.expect("meta").head;
    chat::chat_turn(
        &tab_b,
        &OfflineProvider,
        "I keep a bearded dragon called Saffron.",
        NOW,
        chat::TurnOptions::default(),
    )
    .await
    .expect("chat b");
    let turns = tab_b.transcript().await.expect("turns");
    let mut moved = tab_a.items().await.expect("items").into_iter().find(|i| i.active).expect("a fact");
    moved.block = nocturne_core::Block::Human;
    let stale = nocturne_core::store::Commit {
        at: NOW,
        label: Some("pass:promote:after".into()),
        items: vec![moved],
        base: Some(head),
        ..Default::default()
    };
    let err = tab_a.commit(stale.clone()).await.expect_err("a plan made before B's write is refused");
    assert!(err.to_string().contains("changed while this was planned"), "{err}");
    // The same for a restore in B: A's plan, re-based on the chat, is stale again.
    let rebased = nocturne_core::store::Commit { base: Some(tab_a.meta().await.expect("meta").head), ..stale };
    let restored = tab_b.restore(2, NOW).await.expect("restore in b");
    let err = tab_a.commit(rebased).await.expect_err("a plan made before B's restore is refused");
    assert!(err.to_string().contains("changed while this was planned"), "{err}");
    let after_restore = tab_b.versions().await.expect("versions");
    assert_eq!(after_restore.last().map(|v| v.seq), Some(restored.seq), "B's restore is the head");
    assert_eq!(tab_a.transcript().await.expect("turns"), turns, "B's turn was lost");
    assert!(tab_b.items().await.expect("items").iter().any(|i| i.text.contains("Saffron")), "B's fact was lost");
    // A chat turn from A records against the new head, after B's turn, overwriting nothing.
    chat::chat_turn(&tab_a, &OfflineProvider, "I speak Portuguese.", NOW + 1, chat::TurnOptions::default())
        .await
        .expect("chat a");
    let after = tab_b.transcript().await.expect("turns");
    assert_eq!(after.len(), turns.len() + 2);
    assert_eq!(&after[..turns.len()], &turns[..]);
    // And a whole Sleep run in A now commits cleanly on top of both.
    sleep::sleep(&tab_a, &OfflineProvider, &SleepOptions::new(NOW + 2), &mut |_| {}).await.expect("sleep");
    tab_a.close();
    tab_b.close();
}

/// The import readers and path in the browser: a split ChatGPT export in a zip (the
/// pure-Rust zip reader compiled to wasm32) into IndexedDB, the right messages at the
/// right times, and a second import adding nothing.
#[wasm_bindgen_test]
async fn a_zipped_chatgpt_export_imports_into_indexeddb_once() {
    use nocturne_core::flow::import;
    use nocturne_core::flow::import_plan;
    use nocturne_core::flow::import_plan::{ImportOptions, SleepAfter};
    use nocturne_core::testkit::exports;
    let convs = exports::chatgpt_conversations();
    let (a, b) = (serde_json::to_vec(&convs[..1]).expect("json"), serde_json::to_vec(&convs[1..]).expect("json"));
    let zip = exports::zip(&[("conversations-000.json", &a), ("conversations-001.json", &b)]);
    let history = nocturne_core::history::read("export.zip", &zip, None, 1_800_000_000).expect("reads the zip");
    let store = fresh("import", 1).await;
    let options = ImportOptions { sleep: SleepAfter::Never, ..Default::default() };
    let plan = import_plan::plan(&history, &Default::default(), &options);
    let report =
        import::run(&store, &OfflineProvider, &plan, &options, 1_800_000_000, &mut |_| {}).await.expect("imports");
    assert_eq!((report.user_turns, report.assistant_turns), (4, 4));
    let mut users: Vec<(String, i64)> = store
        .transcript()
        .await
        .expect("reads")
        .into_iter()
        .filter(|t| t.role == nocturne_core::model::memory::Role::User)
        .map(|t| (t.text, t.at))
        .collect();
    order::sort_by_key(&mut users, |u| u.1);
    let mut want: Vec<(String, i64)> =
        exports::chatgpt_expected().into_iter().map(|(t, at)| (t.to_string(), at)).collect();
    order::sort_by_key(&mut want, |w| w.1);
    assert_eq!(users, want);
    let known = store.transcript().await.expect("reads").into_iter().filter_map(|t| t.source).collect();
    assert!(import_plan::plan(&history, &known, &options).messages.is_empty(), "a second import would add something");
}

/// The in-page model has its own default prompt budget, chosen from its measured reading
/// speed, and Settings can say how long its first token takes; a server keeps 2,000.
#[wasm_bindgen_test]
fn the_in_page_model_has_a_budget_of_its_own_and_an_expected_first_token() {
    use nocturne_app::ui::{inpage_first_token_s, Settings, INPAGE_DEFAULT_BUDGET};
    let mut s = Settings { provider: "inpage".into(), ..Default::default() };
    assert_eq!(s.prompt_budget(), INPAGE_DEFAULT_BUDGET);
    let t = inpage_first_token_s(s.prompt_budget(), 1);
    assert!((15.0..40.0).contains(&t), "{t} s for {INPAGE_DEFAULT_BUDGET} tokens on one thread");
    let two = inpage_first_token_s(s.prompt_budget(), 2);
    assert!((8.0..t).contains(&two), "{two} s on two threads, faster than {t} s on one");
    assert!(inpage_first_token_s(2_000, 1) > t, "a larger budget takes longer");
    s.prompt_tokens.insert("inpage".into(), 600);
    assert_eq!(s.prompt_budget(), 600, "the user's choice wins");
    s.provider = "openai".into();
    assert_eq!(s.prompt_budget(), nocturne_core::llm::provider::DEFAULT_MEMORY_TOKENS);
}

/// Threads for the in-page model: chosen from the machine unless the user chose, two on
/// two cores (the runtime's threads no longer collapse when a core is busy), one wherever
/// the page cannot share memory.
#[wasm_bindgen_test]
fn in_page_threads_are_two_on_two_cores_and_half_the_cores_above() {
    use nocturne_app::inpage::threads_for;
    assert_eq!(threads_for(0, 1, true), 1);
    assert_eq!(threads_for(0, 2, true), 2);
    assert_eq!(threads_for(0, 4, true), 2);
    assert_eq!(threads_for(0, 6, true), 3);
    assert_eq!(threads_for(0, 32, true), 4, "at most four when chosen");
    assert_eq!(threads_for(3, 2, true), 3, "the user's choice wins");
    assert_eq!(threads_for(3, 8, false), 1, "no shared memory, one thread");
    assert_eq!(threads_for(0, 8, false), 1);
}

/// A reviewed Sleep (`flow::review`) on IndexedDB: a reviewed Sleep's plan leaves every object store as it was;
/// applying only the first approved edit writes that one and logs the rest as not
/// approved; a second apply writes nothing.
#[wasm_bindgen_test]
async fn a_reviewed_sleep_writes_nothing_to_indexeddb_until_applied() {
    use nocturne_core::flow::review::{self, Decisions};
    let store = fresh("review", 0).await;
    for (days, text) in verify::SCRIPT {
        chat::chat_turn(&store, &OfflineProvider, text, NOW - (days * 86_400.0) as i64, chat::TurnOptions::default())
            .await
            .expect("chat");
    }
    let before = store.export().await.expect("export").to_json();
    let plan = review::plan(&store, &OfflineProvider, &SleepOptions::new(NOW), &mut |_| {}).await.expect("plan");
    assert_eq!(store.export().await.expect("export").to_json(), before, "planning wrote to IndexedDB");
    let first = plan.edits.iter().find(|e| e.refused.is_none()).expect("an accepted edit").id.clone();
    let applied =
        review::apply(&store, &plan, &Decisions::only([first.as_str()]), NOW + 60, &mut |_| {}).await.expect("apply");
    assert_eq!(applied.applied, 1, "{}", applied.summary(&plan));
    let accepted = plan.edits.iter().filter(|e| e.refused.is_none()).count();
    assert_eq!(applied.not_approved, accepted - 1);
    let log = store.mutations().await.expect("log");
    let ours = log.iter().filter(|m| m.refs.review.as_deref().is_some_and(|r| r.starts_with(&plan.id))).count();
    assert_eq!(ours, plan.edits.len(), "every edit of the plan is in the log once");
    let after = store.export().await.expect("export").to_json();
    let again = review::apply(&store, &plan, &Decisions::all(), NOW + 120, &mut |_| {}).await.expect("again");
    assert!(again.report.is_none());
    assert_eq!(store.export().await.expect("export").to_json(), after, "a second apply wrote");
}

#[wasm_bindgen_test]
async fn a_read_of_thousands_of_rows_decodes_every_one_in_order() {
    use nocturne_core::model::memory::Block;
    use nocturne_core::store::Commit;
    // More rows than one read decodes between two returns to the event loop (1,000), so
    // the slices' seams are crossed twice and the last slice is a partial one.
    let store = fresh("slices", 0).await;
    let facts: Vec<_> = (1..=2_345u64)
        .map(|n| conformance::fact(n, Block::Scratch, &format!("Fact number {n} is kept."), NOW))
        .collect();
    let commit = Commit { at: NOW, label: Some("bulk".into()), items: facts.clone(), ..Default::default() };
    store.commit(commit).await.expect("bulk write");
    let mut read = store.items().await.expect("read");
    order::sort_by_key(&mut read, |i| i.ordinal());
    assert_eq!(read.len(), facts.len(), "every row read back");
    assert_eq!(read, facts, "each row as written");
    let changes = store.changes(0, store.meta().await.expect("meta").head).await.expect("changes");
    assert_eq!(changes.len(), facts.len(), "every change row read back");
}

/// Every write the page offers is a command of the one write path: each job that writes is
/// driven here through the job worker's own code (in this thread) on IndexedDB, and leaves
/// the version its command writes. A command kind the page offers no job for is named (an
/// import reads its file in a worker of its own: `tests/e2e/import.cjs` drives it).
#[wasm_bindgen_test]
async fn every_write_the_page_offers_is_a_command_of_the_write_path() {
    use nocturne_app::jobs::{self, AnyJob, Model};
    use nocturne_core::write::Kind;
    let memory = unique_db("jobs", 1);
    IdbStore::delete(&memory).await.expect("delete");
    let run = |job: AnyJob| jobs::perform_here(job);
    let labels = || async {
        let store = IdbStore::open(&memory).await.expect("open");
        let labels: Vec<String> = store.versions().await.expect("versions").into_iter().map(|v| v.label).collect();
        let items = store.items().await.expect("items");
        store.close();
        (labels, items)
    };
    let mut driven = std::collections::BTreeSet::new();
    let mut drive = |job: AnyJob| {
        driven.extend(job.performs().iter().copied());
        run(job)
    };
    let text = "I live in Ghent. I keep a cat called Miso.".to_string();
    let turn = jobs::Turn { memory: memory.clone(), text, now: NOW, model: Model::Offline };
    drive(turn.into()).await.expect("a chat turn");
    let (after, items) = labels().await;
    assert!(after.iter().any(|l| l == "turn:0"), "{after:?}");
    let fact = items.iter().find(|i| i.active).expect("a fact").item_id.clone();
    let pin = nocturne_core::flow::edit::UserEdit::Pin { item_id: fact.clone() };
    drive(jobs::Edit { memory: memory.clone(), edit: pin, now: NOW + 1 }.into()).await.expect("pin");
    // Closed before the next job: a connection left open blocks the database's deletion.
    let store = IdbStore::open(&memory).await.expect("open");
    let mut policy = store.meta().await.expect("meta").policy;
    store.close();
    policy.stale_after_days = Some(400.0);
    drive(jobs::Policy { memory: memory.clone(), policy, now: NOW + 2 }.into()).await.expect("policy");
    drive(jobs::Restore { memory: memory.clone(), seq: 1, now: NOW + 3 }.into()).await.expect("restore");
    let sleep = jobs::SleepJob {
        memory: memory.clone(),
        now: NOW + 4,
        deep: true,
        dry_run: false,
        confirmed: true,
        planned: None,
        model: Model::Offline,
    };
    drive(sleep.into()).await.expect("a Sleep");
    let planned = jobs::Plan { memory: memory.clone(), now: NOW + 5, deep: true, model: Model::Offline };
    let plan: nocturne_core::flow::review::Review =
        serde_json::from_value(drive(planned.into()).await.expect("a plan")).expect("a plan is a review");
    let decisions = nocturne_core::flow::review::Decisions::all();
    drive(jobs::Apply { memory: memory.clone(), plan: Box::new(plan), decisions, now: NOW + 6 }.into())
        .await
        .expect("apply");
    drive(jobs::Erase { memory: memory.clone(), item_id: fact, now: NOW + 7 }.into()).await.expect("erase");
    let (after, _) = labels().await;
    for label in ["user:pin", "restore:v1", "consolidation:start", "pass:forget:after", "user:erase"] {
        assert!(after.iter().any(|l| l == label), "no {label} in {after:?}");
    }
    for kind in Kind::ALL {
        let offered = match kind {
            Kind::Say => "not offered: every turn of the page's chat gets a reply (a Reply)",
            Kind::Import | Kind::ImportSleep => "offered by the Import job: tests/e2e/import.cjs drives it",
            Kind::Reply | Kind::Edit | Kind::Erase | Kind::Restore | Kind::Policy | Kind::Sleep | Kind::Apply => "",
        };
        assert!(driven.contains(&kind) || !offered.is_empty(), "the page's {kind:?} was not driven");
    }
    IdbStore::delete(&memory).await.expect("delete");
}

/// Issue 70: a Sleep estimate made stale by a chat turn ran on to its end (Leptos never
/// cancels a resource's future), its read of every fact holding the turn's write back by
/// seconds. Work wrapped by `task::abortable` ends, and is dropped, once its handle is.
#[wasm_bindgen_test]
async fn abortable_work_ends_and_is_dropped_when_its_handle_is() {
    use nocturne_app::task;
    use std::rc::Rc;
    struct Held(Rc<std::cell::Cell<bool>>);
    impl Drop for Held {
        fn drop(&mut self) {
            self.0.set(true);
        }
    }
    let dropped = Rc::new(std::cell::Cell::new(false));
    let held = Held(dropped.clone());
    let (work, handle) = task::abortable(async move {
        let _held = held;
        std::future::pending::<()>().await;
        "never"
    });
    let waiting = wasm_bindgen_futures::spawn_local;
    let out = Rc::new(std::cell::RefCell::new(None));
    let got = out.clone();
    waiting(async move { *got.borrow_mut() = Some(work.await) });
    task::next().await;
    assert!(out.borrow().is_none() && !dropped.get(), "still running while its handle lives");
    drop(handle);
    task::next().await;
    assert_eq!(*out.borrow(), Some(None), "ended with nothing once its handle was dropped");
    assert!(dropped.get(), "and what it held was dropped with it");
    let (work, _kept) = task::abortable(async { 7 });
    assert_eq!(work.await, Some(7), "work whose handle lives ends as it would");
}
