//! Any sequence of writes — turns long, empty or in odd Unicode, the user's edits, Sleeps,
//! restores — leaves a memory its own reader accepts, and whose export imports again.

use nocturne_core::flow::chat;
use nocturne_core::flow::edit::{self, UserEdit};
use nocturne_core::flow::sleep::{self, SleepOptions};
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::store::document::{Document, MAX_FACT_CHARS};
use nocturne_core::store::{MemStore, Store};
use nocturne_core::DAY;
use pollster::block_on as block;
use proptest::prelude::*;

const NOW: i64 = 1_767_225_600;

/// One write, as an entry point would make it.
#[derive(Clone)]
enum Write {
    Say(String),
    Correct(usize, String),
    Pin(usize),
    Forget(usize),
    Sleep { deep: bool },
    Restore(usize),
}

/// A long text shown by its start and length, so a failure stays readable.
fn short(text: &str) -> String {
    let n = text.chars().count();
    if n <= 60 {
        format!("{text:?}")
    } else {
        format!("{:?}… ({n} characters)", text.chars().take(40).collect::<String>())
    }
}

impl std::fmt::Debug for Write {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Write::Say(t) => write!(f, "Say({})", short(t)),
            Write::Correct(n, t) => write!(f, "Correct({n}, {})", short(t)),
            Write::Pin(n) => write!(f, "Pin({n})"),
            Write::Forget(n) => write!(f, "Forget({n})"),
            Write::Sleep { deep } => write!(f, "Sleep {{ deep: {deep} }}"),
            Write::Restore(n) => write!(f, "Restore({n})"),
        }
    }
}

/// What people paste and type: plain statements, nothing, odd Unicode, a pasted email.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(
            &[
                "I live in Ghent and I teach chemistry.",
                "My sister Ana lives in Porto.",
                "I don't eat meat.",
                "This week I'm swamped at work.",
                "I live in Lisbon now.",
            ][..]
        )
        .prop_map(String::from),
        Just(String::new()),
        Just("   \n\t ".to_string()),
        Just("Ich wohne in Köln. 我住在北京。 أنا أعيش في القاهرة. e\u{301}\u{200d}🧑‍🍳".to_string()),
        Just("\u{202e}I live in Riga.\u{0}".to_string()),
        (1usize..4).prop_map(|n| "I live in Ghent and ".repeat(MAX_FACT_CHARS / 20 * n) + "teach."),
        "[a-zA-Z .,']{0,80}",
    ]
}

fn write() -> impl Strategy<Value = Write> {
    prop_oneof![
        4 => text().prop_map(Write::Say),
        2 => (any::<usize>(), text()).prop_map(|(n, t)| Write::Correct(n, t)),
        1 => any::<usize>().prop_map(Write::Pin),
        1 => any::<usize>().prop_map(Write::Forget),
        2 => any::<bool>().prop_map(|deep| Write::Sleep { deep }),
        1 => any::<usize>().prop_map(Write::Restore),
    ]
}

/// Makes `w` at `at`. A write the memory refuses is an answer, not a failure: only what
/// it leaves behind is checked.
fn make(store: &MemStore, w: &Write, at: i64) {
    let nth_active = |n: usize| {
        let items = block(store.items()).expect("items");
        let active: Vec<_> = items.into_iter().filter(|i| i.active).collect();
        (!active.is_empty()).then(|| active[n % active.len()].item_id.clone())
    };
    match w {
        Write::Say(text) => {
            let _ = block(chat::chat_turn(store, &OfflineProvider, text, at, chat::TurnOptions::default()));
        }
        Write::Correct(n, text) => {
            if let Some(item_id) = nth_active(*n) {
                let _ = block(edit::apply(store, &UserEdit::Correct { item_id, text: text.clone() }, at));
            }
        }
        Write::Pin(n) => {
            if let Some(item_id) = nth_active(*n) {
                let _ = block(edit::apply(store, &UserEdit::Pin { item_id }, at));
            }
        }
        Write::Forget(n) => {
            if let Some(item_id) = nth_active(*n) {
                let _ = block(edit::apply(store, &UserEdit::Forget { item_id, reason: String::new() }, at));
            }
        }
        Write::Sleep { deep } => {
            let options = if *deep { SleepOptions::new(at).deep() } else { SleepOptions::new(at) };
            let _ = block(sleep::sleep(store, &OfflineProvider, &options, &mut |_| {}));
        }
        Write::Restore(n) => {
            let head = block(store.meta()).expect("meta").head;
            if head > 0 {
                let _ = block(store.restore(1 + (*n as u64 % head), at));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_sequence_of_writes_leaves_a_memory_its_reader_accepts(writes in prop::collection::vec(write(), 1..10)) {
        let store = MemStore::new();
        for (n, w) in writes.iter().enumerate() {
            make(&store, w, NOW + n as i64 * DAY);
            let doc = store.document();
            prop_assert!(doc.check().is_ok(), "after {w:?}: {:?}", doc.check());
        }
        // Export, then import the export.
        let doc = store.document();
        let json = serde_json::to_string(&doc).expect("serialises");
        let back = Document::parse(&json).expect("the export imports");
        prop_assert!(MemStore::from_document(back).is_ok());
    }
}

#[test]
fn regression_a_correction_longer_than_a_fact_may_be_leaves_the_memory_readable() {
    let store = MemStore::new();
    make(&store, &Write::Say("I live in Ghent.".into()), NOW);
    make(&store, &Write::Correct(0, "I live in Ghent and ".repeat(1_200)), NOW + 60);
    let doc = store.document();
    assert!(doc.check().is_ok(), "{:?}", doc.check());
    let items = pollster::block_on(store.items()).expect("items");
    assert_eq!(items.len(), 1, "the correction was refused, the fact kept: {items:?}");
}
