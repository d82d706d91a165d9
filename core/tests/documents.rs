//! Memory files: every broken variant of a real export is refused with a message naming
//! what is wrong and loads nothing; a file the app itself wrote always loads back.

use nocturne_core::flow::sleep::{self, SleepOptions};
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::store::document::Document;
use nocturne_core::store::{MemStore, Store};
use nocturne_core::testkit::documents;

const NOW: i64 = 1_767_225_600;

#[test]
fn every_broken_file_is_refused_with_a_message_naming_the_fault() {
    let valid = pollster::block_on(documents::valid_export(NOW));
    assert!(valid.items.len() >= 3 && !valid.mutations.is_empty(), "the base export is a real memory");
    let broken = documents::broken_documents(&valid);
    assert!(broken.len() >= 12);
    for b in broken {
        match Document::parse(&b.text) {
            Ok(_) => panic!("{} was accepted", b.name),
            Err(message) => {
                assert!(message.to_string().contains(b.expect), "{}: '{message}' does not say '{}'", b.name, b.expect)
            }
        }
    }
}

#[test]
fn an_export_always_imports_and_exports_the_same() {
    let valid = pollster::block_on(documents::valid_export(NOW));
    let store = MemStore::from_document(Document::parse(&valid.to_json()).expect("parses")).expect("loads");
    pollster::block_on(sleep::sleep(&store, &OfflineProvider, &SleepOptions::new(NOW + 40 * 86_400), &mut |_| {}))
        .expect("sleep");
    pollster::block_on(store.restore(1, NOW + 41 * 86_400)).expect("restore");
    let text = store.document().to_json();
    let again = MemStore::from_document(Document::parse(&text).expect("its own export parses")).expect("loads");
    assert_eq!(again.document().to_json(), text);
}

#[test]
fn regression_a_stale_id_counter_cannot_eat_a_fact() {
    let valid = pollster::block_on(documents::valid_export(NOW));
    let mut doc = valid.clone();
    doc.meta.next_item = 1;
    let err = Document::parse(&doc.to_json()).expect_err("refused").to_string();
    assert!(err.contains("meta.nextItem is 1") && err.contains("would overwrite"), "{err}");
    // And a store that somehow has a stale counter refuses the insert instead of overwriting.
    let store = MemStore::from_document(valid).expect("loads");
    let before = pollster::block_on(store.items()).expect("items");
    let taken = before[0].clone();
    let clash = nocturne_core::store::Commit {
        at: NOW,
        label: Some("turn:9".into()),
        created: vec![nocturne_core::Item { text: "A new fact.".into(), ..taken }],
        ..Default::default()
    };
    assert!(pollster::block_on(store.commit(clash)).is_err());
    assert_eq!(pollster::block_on(store.items()).expect("items"), before);
}
