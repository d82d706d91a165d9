//! Random sequences of writes through the one write path — turns long, empty and in odd
//! Unicode, corrections (some longer than a fact may be), pins, forgets, erases, Sleeps —
//! over a memory that does not sync and over one that does: every write leaves a memory its
//! own reader accepts, whose export imports again; the synced one reaches another device,
//! which ends on the same memory.

mod common;

use common::{Counter, Kept, Loop};
use nocturne_core::flow::edit::UserEdit;
use nocturne_core::flow::sleep::SleepOptions;
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::store::document::{Document, MAX_FACT_CHARS};
use nocturne_core::store::{MemStore, Store};
use nocturne_core::DAY;
use nocturne_sync::crypto::KdfParams;
use nocturne_sync::journal::{Heavy, Journal, ServerLease, SleepCall};
use nocturne_sync::procedure::{self, Ask, StoreLocks};
use nocturne_sync::session::LoopbackServer;
use pollster::block_on as block;
use proptest::prelude::*;
use std::cell::{Cell, RefCell};

const T0: i64 = 1_790_000_000;

/// One device: a memory, its keeper and its randomness.
struct Device {
    store: MemStore,
    kept: Kept,
    random: Counter,
}

impl Device {
    fn new(n: u64) -> Device {
        Device { store: MemStore::new(), kept: Kept(RefCell::new(None)), random: Counter(Cell::new(n << 40)) }
    }

    fn journal(&self) -> Journal<'_, Kept, MemStore> {
        Journal { keeper: &self.kept, store: &self.store }
    }

    fn sync(&self, server: &LoopbackServer, name: &str) -> Result<String, String> {
        let ask = Ask {
            server: Some("ws://loopback"),
            space: Some("space"),
            device_name: Some(name),
            passphrase: "correct horse",
            kdf: KdfParams::TEST,
            kind: "test",
            empty_hint: "start empty",
        };
        block(procedure::sync(&self.kept, &Loop(server), &self.random, &StoreLocks, &self.store, &ask, T0 + 999 * DAY))
            .map(|s| s.head)
    }

    fn nth_active(&self, n: usize) -> Option<String> {
        let active: Vec<_> = block(self.store.items()).expect("items").into_iter().filter(|i| i.active).collect();
        (!active.is_empty()).then(|| active[n % active.len()].item_id.clone())
    }

    /// Makes `w` through the journal; a refusal is an answer, not a failure.
    fn write(&self, w: &Write, at: i64, server: &LoopbackServer) {
        let j = self.journal();
        let _ = match w {
            Write::Say(text) => block(j.say(&OfflineProvider, None, text, None, at)).map(|_| ()),
            Write::Correct(n, text) => match self.nth_active(*n) {
                Some(item_id) => block(j.edit(&UserEdit::Correct { item_id, text: text.clone() }, at)).map(|_| ()),
                None => Ok(()),
            },
            Write::Pin(n) => match self.nth_active(*n) {
                Some(item_id) => block(j.edit(&UserEdit::Pin { item_id }, at)).map(|_| ()),
                None => Ok(()),
            },
            Write::Forget(n) => match self.nth_active(*n) {
                Some(item_id) => block(j.edit(&UserEdit::Forget { item_id, reason: String::new() }, at)).map(|_| ()),
                None => Ok(()),
            },
            Write::Erase(n) => match self.nth_active(*n) {
                Some(item_id) => block(j.erase(&item_id, at)).map(|_| ()),
                None => Ok(()),
            },
            Write::Sleep { deep } => {
                let options = if *deep { SleepOptions::new(at).deep() } else { SleepOptions::new(at) };
                let random = Counter(Cell::new(self.random.0.get()));
                // Validity is the property here: a heavy retirement goes ahead as confirmed.
                let mut call = SleepCall { heavy: Heavy::GoAhead, ..SleepCall::quiet(&options) };
                let lease = ServerLease { keeper: &self.kept, exchange: &Loop(server), random: &random };
                let r = block(j.sleep(&OfflineProvider, &lease, &mut call));
                self.random.0.set(random.0.get());
                r.map(|_| ()).map_err(|e| e.to_string())
            }
        };
    }
}

#[derive(Clone)]
enum Write {
    Say(String),
    Correct(usize, String),
    Pin(usize),
    Forget(usize),
    Erase(usize),
    Sleep { deep: bool },
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
            Write::Erase(n) => write!(f, "Erase({n})"),
            Write::Sleep { deep } => write!(f, "Sleep {{ deep: {deep} }}"),
        }
    }
}

/// What people paste and type: plain statements, nothing, odd Unicode, a pasted email.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(
            &[
                "I live in Ghent and I teach chemistry.",
                "My sister Ana lives in Porto.",
                "I don't eat meat.",
                "This week I'm swamped at work.",
                "I live in Lisbon now.",
            ][..]
        )
        .prop_map(String::from),
        1 => Just(String::new()),
        1 => Just("Ich wohne in Köln. 我住在北京。 أنا أعيش في القاهرة. e\u{301}\u{200d}🧑‍🍳".to_string()),
        1 => Just("\u{202e}I live in Riga.\u{0}".to_string()),
        2 => (1usize..3).prop_map(|n| "I live in Ghent and ".repeat(MAX_FACT_CHARS / 20 * n) + "teach."),
    ]
}

fn write() -> impl Strategy<Value = Write> {
    prop_oneof![
        4 => text().prop_map(Write::Say),
        2 => (any::<usize>(), text()).prop_map(|(n, t)| Write::Correct(n, t)),
        1 => any::<usize>().prop_map(Write::Pin),
        1 => any::<usize>().prop_map(Write::Forget),
        1 => any::<usize>().prop_map(Write::Erase),
        2 => any::<bool>().prop_map(|deep| Write::Sleep { deep }),
    ]
}

fn readable(store: &MemStore) -> Result<(), String> {
    let doc = store.document();
    doc.check()?;
    let json = serde_json::to_string(&doc).map_err(|e| e.to_string())?;
    MemStore::from_document(Document::parse(&json)?).map(|_| ()).map_err(|e| e.to_string())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_writes_through_the_journal_leave_a_readable_memory_synced_or_not(
        writes in prop::collection::vec(write(), 2..10),
    ) {
        let server = LoopbackServer::new();
        let plain = Device::new(1);
        let (a, b) = (Device::new(2), Device::new(3));
        a.sync(&server, "a").expect("a joins");
        b.sync(&server, "b").expect("b joins");
        for (n, w) in writes.iter().enumerate() {
            let at = T0 + n as i64 * DAY;
            plain.write(w, at, &server);
            a.write(w, at, &server);
            prop_assert!(readable(&plain.store).is_ok(), "plain, after {w:?}: {:?}", readable(&plain.store));
            prop_assert!(readable(&a.store).is_ok(), "synced, after {w:?}: {:?}", readable(&a.store));
        }
        prop_assert!(plain.kept.0.borrow().is_none(), "a memory that does not sync got a sync state");
        let sent = a.sync(&server, "a").expect("a sends");
        let got = b.sync(&server, "b").expect("b fetches");
        prop_assert_eq!(&sent, &got, "the other device ends on another memory");
        prop_assert!(readable(&b.store).is_ok());
    }
}

/// The in-memory server, and a chat turn of this device's made while the second exchange of
/// a sync runs (after the merge, while what was sealed is sent).
struct TurnMeanwhile<'a> {
    server: &'a LoopbackServer,
    device: &'a Device,
    calls: Cell<usize>,
}

impl nocturne_sync::procedure::Exchange for TurnMeanwhile<'_> {
    async fn exchange(
        &self,
        url: &str,
        replica: &nocturne_sync::engine::Replica,
        nonce: [u8; 8],
    ) -> Result<(), String> {
        self.calls.set(self.calls.get() + 1);
        if self.calls.get() == 2 {
            self.device.journal().say(&OfflineProvider, None, "My locker code is 4417.", None, T0 + DAY).await?;
        }
        nocturne_sync::procedure::Exchange::exchange(&Loop(self.server), url, replica, nonce).await
    }
}

#[test]
fn regression_a_turn_recorded_while_a_sync_sends_is_kept_for_the_next_sync() {
    let server = LoopbackServer::new();
    let a = Device::new(1);
    block(a.journal().say(&OfflineProvider, None, "I live in Ghent.", None, T0)).expect("first turn");
    a.sync(&server, "laptop").expect("first sync");
    let ask = Ask {
        server: None,
        space: None,
        device_name: None,
        passphrase: "correct horse",
        kdf: KdfParams::TEST,
        kind: "test",
        empty_hint: "start empty",
    };
    let meanwhile = TurnMeanwhile { server: &server, device: &a, calls: Cell::new(0) };
    block(procedure::sync(&a.kept, &meanwhile, &a.random, &StoreLocks, &a.store, &ask, T0 + 2 * DAY)).expect("sync");
    assert_eq!(meanwhile.calls.get(), 2, "the turn was made during the send");
    let pending = a.kept.0.borrow().as_ref().map(|(j, _)| j.device.pending.len());
    assert_eq!(pending, Some(1), "the turn's record still waits for the next sync");
    // It goes out as a record of its own, not as a checkpoint of writes made outside sync.
    let third = block(procedure::sync(&a.kept, &Loop(&server), &a.random, &StoreLocks, &a.store, &ask, T0 + 3 * DAY));
    let third = third.expect("third sync");
    assert!(third.sealed == 1 && !third.outside_writes, "sealed {} outside {}", third.sealed, third.outside_writes);
    let b = Device::new(2);
    b.sync(&server, "phone").expect("join");
    let on_b: Vec<String> = block(b.store.items()).expect("items").into_iter().map(|i| i.text).collect();
    assert!(on_b.iter().any(|t| t.contains("4417")), "the other device has the turn's fact: {on_b:?}");
}
