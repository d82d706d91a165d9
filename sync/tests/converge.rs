//! Three devices, random offline schedules, one in-memory server speaking the y-sync
//! protocol over the real Yjs: every device converges to the same memory and no
//! user turn is lost; a wrong passphrase and a tampered record change nothing; an erase
//! leaves the words in no device and in nothing the server's document holds.

use nocturne_core::text::order;
mod common;

use common::{Counter, Kept, Loop};
use nocturne_core::flow::edit::UserEdit;
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::model::memory::Role;
use nocturne_core::store::{MemStore, Store};
use nocturne_core::write::StoreLocks;
use nocturne_sync::crypto::KdfParams;
use nocturne_sync::procedure::{self, Ask, Joined};
use nocturne_sync::record::{EditRow, Op};
use nocturne_sync::replica::Replica;
use nocturne_sync::session::LoopbackServer;
use nocturne_sync::{act, flush, head_digest, merge, open_space, Device, SyncError};
use proptest::prelude::*;

use std::cell::{Cell, RefCell};

const T0: i64 = 1_790_000_000;

struct Phone {
    device: Device,
    replica: Replica,
    key: nocturne_sync::crypto::Key,
    store: MemStore,
    nonce: u64,
    passphrase: String,
    client_id: u64,
}

impl Phone {
    fn join(server: &LoopbackServer, n: u64, passphrase: &str) -> Result<Phone, SyncError> {
        let replica = Replica::new(100 + n);
        server.exchange(&replica, [n as u8; 8])?;
        let key = open_space(&replica, passphrase, (KdfParams::TEST, [9; 16], [n as u8; 12]))?;
        Ok(Phone {
            device: Device::new(&format!("d{n}"), &format!("device {n}")),
            replica,
            key,
            store: MemStore::new(),
            nonce: n << 32,
            passphrase: passphrase.into(),
            client_id: 100 + n,
        })
    }

    fn say(&mut self, text: &str, at: i64) {
        let op = Op::Say { text: text.into(), speaker: None, reply: None, by: None, said_at: None };
        block(act(&mut self.device, &self.store, &OfflineProvider, op, at)).expect("say");
    }

    fn act(&mut self, op: Op, at: i64) -> Result<nocturne_sync::replay::Applied, SyncError> {
        block(act(&mut self.device, &self.store, &OfflineProvider, op, at)).map(|p| p.applied)
    }

    /// One sync, through the procedure every device runs.
    fn sync(&mut self, server: &LoopbackServer) -> nocturne_sync::Merged {
        self.try_sync(server, None).expect("sync")
    }

    /// [`Phone::sync`], asking for `space`; a refusal leaves the phone as it was.
    fn try_sync(&mut self, server: &LoopbackServer, space: Option<&str>) -> Result<nocturne_sync::Merged, SyncError> {
        let joined = Joined {
            server: "ws://loopback".into(),
            space: "space".into(),
            client_id: self.client_id,
            kdf: KdfParams::TEST,
            device: self.device.clone(),
            last_sync: None,
        };
        let kept = Kept(RefCell::new(Some((joined, self.replica.state()))));
        let ask = Ask {
            server: None,
            space,
            device_name: None,
            passphrase: &self.passphrase,
            kdf: KdfParams::TEST,
            kind: "phone",
            empty_hint: "start empty",
        };
        let random = Counter(Cell::new(self.nonce));
        let synced =
            block(procedure::sync(&kept, &Loop(server), &random, &StoreLocks, &self.store, &ask, T0 + 999_999))?;
        self.nonce = random.0.get();
        let (joined, state) = kept.0.into_inner().expect("kept");
        self.device = joined.device;
        self.replica = Replica::load(joined.client_id, &state).expect("replica");
        Ok(synced.merged)
    }

    fn user_turns(&self) -> Vec<String> {
        let mut t: Vec<String> = block(self.store.transcript())
            .expect("transcript")
            .into_iter()
            .filter(|t| t.role == Role::User)
            .map(|t| t.text)
            .collect();
        order::sort(&mut t);
        t
    }

    fn digest(&self) -> String {
        block(head_digest(&self.store)).expect("digest")
    }

    fn active_texts(&self) -> Vec<String> {
        block(self.store.items()).expect("items").into_iter().filter(|i| i.active).map(|i| i.text).collect()
    }
}

fn block<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

const SAYINGS: [&str; 8] = [
    "My sister Ana lives in Porto.",
    "I work as a nurse at the city hospital.",
    "My cat is called Miso.",
    "I moved to Lisbon in March.",
    "I am allergic to peanuts.",
    "My favourite band is Radiohead.",
    "I started learning the cello last year.",
    "My brother Tomas plays chess every Sunday.",
];

#[derive(Clone, Debug)]
enum Step {
    Say(usize, usize),
    Edit(usize, u8),
    Sleep(usize),
    Sync(usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..3usize, 0..SAYINGS.len()).prop_map(|(d, s)| Step::Say(d, s)),
        2 => (0..3usize, 0..3u8).prop_map(|(d, k)| Step::Edit(d, k)),
        1 => (0..3usize).prop_map(Step::Sleep),
        3 => (0..3usize).prop_map(Step::Sync),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Any schedule of offline turns, edits and Sleeps on three devices, synced in any
    /// order, ends — once every device has synced twice — with one memory on all three
    /// and every user turn from every device in it.
    #[test]
    fn three_devices_converge_and_lose_no_turn(steps in prop::collection::vec(step(), 1..20)) {
        let server = LoopbackServer::new();
        let mut phones: Vec<Phone> = Vec::new();
        for n in 0..3 {
            phones.push(Phone::join(&server, n, "correct horse battery").expect("join"));
        }
        let mut said: Vec<String> = Vec::new();
        for (i, s) in steps.iter().enumerate() {
            let at = T0 + i as i64 * 3_600;
            match *s {
                Step::Say(d, k) => {
                    let text = format!("{} (from device {d}, step {i})", SAYINGS[k]);
                    phones[d].say(&text, at);
                    said.push(text);
                }
                Step::Edit(d, k) => {
                    let facts = phones[d].active_texts();
                    if let Some(fact) = facts.first() {
                        let edit = match k {
                            0 => EditRow::Pin { fact: fact.clone() },
                            1 => EditRow::Forget { fact: fact.clone(), reason: "no longer true".into() },
                            _ => EditRow::Correct { fact: fact.clone(), text: format!("{fact} Indeed.") },
                        };
                        // An edit its own gate refuses is not published; that is fine here.
                        let _ = phones[d].act(Op::Edit { edit }, at);
                    }
                }
                Step::Sleep(d) => {
                    phones[d].act(Op::Sleep { deep: false, plan: None }, at).expect("sleep");
                }
                Step::Sync(d) => {
                    phones[d].sync(&server);
                }
            }
        }
        for _ in 0..2 {
            for p in phones.iter_mut() {
                p.sync(&server);
            }
        }
        let digests: Vec<String> = phones.iter().map(Phone::digest).collect();
        prop_assert!(digests.iter().all(|d| d == &digests[0]), "devices diverged: {digests:?}");
        order::sort(&mut said);
        for p in &phones {
            prop_assert_eq!(&p.user_turns(), &said);
        }
    }
}

/// A concurrent Sleep is refused as stale on every device, with the reason in the log,
/// and the turns both devices said are all there.
#[test]
fn a_sleep_planned_on_a_stale_head_is_refused_and_logged() {
    let server = LoopbackServer::new();
    let mut a = Phone::join(&server, 1, "pass phrase").expect("a");
    let mut b = Phone::join(&server, 2, "pass phrase").expect("b");
    a.say("My sister Ana lives in Porto.", T0);
    a.sync(&server);
    b.sync(&server);
    // Offline: A says something, B sleeps on the head it had.
    a.say("I work as a nurse at the city hospital.", T0 + 60);
    b.act(Op::Sleep { deep: true, plan: None }, T0 + 120).expect("sleep");
    a.sync(&server);
    b.sync(&server);
    a.sync(&server);
    assert_eq!(a.digest(), b.digest());
    let log = block(a.store.mutations()).expect("log");
    let stale =
        log.iter().find(|m| m.pass == nocturne_core::model::pass::Stage::Sync).expect("the stale Sleep is logged");
    assert!(!stale.accepted);
    assert!(stale.rejection_reason.as_deref().unwrap_or("").contains("refused as stale"), "{stale:?}");
    assert_eq!(a.user_turns().len(), 2);
}

/// A reviewed Sleep's plan applied on one device reaches the other as one record and both
/// end on the same memory; applied on a head another device's record moved, it is refused
/// as stale on both, like a Sleep.
#[test]
fn an_applied_plan_converges_and_one_planned_on_a_stale_head_is_refused() {
    use nocturne_core::flow::review::{self, Decisions};
    use nocturne_core::flow::sleep::SleepOptions;
    let server = LoopbackServer::new();
    let mut a = Phone::join(&server, 1, "pass phrase").expect("a");
    let mut b = Phone::join(&server, 2, "pass phrase").expect("b");
    a.say("I keep a bearded dragon. I keep a bearded dragon called Saffron.", T0);
    a.say("I promised Marco I would return his drill by 3 February 2027.", T0 + 30);
    a.sync(&server);
    b.sync(&server);
    let plan = |p: &Phone, at| block(review::plan(&p.store, &OfflineProvider, &SleepOptions::new(at), &mut |_| {}));
    let first = plan(&a, T0 + 60).expect("plan");
    let chosen = first.edits.iter().find(|e| e.refused.is_none()).expect("an accepted edit").id.clone();
    let op = Op::Apply { plan: Box::new(first.clone()), decisions: Decisions::only([chosen.as_str()]) };
    assert_eq!(a.act(op, T0 + 90).expect("apply"), nocturne_sync::replay::Applied::AsMade);
    a.sync(&server);
    b.sync(&server);
    assert_eq!(a.digest(), b.digest());
    let applied = |p: &Phone| {
        let log = block(p.store.mutations()).expect("log");
        log.iter().filter(|m| m.accepted && m.refs.review.as_deref() == Some(&first.reference(&chosen))).count()
    };
    assert_eq!((applied(&a), applied(&b)), (1, 1), "the approved edit, once on each device");
    // Offline: A says something; B (sorted second) applies a plan made on the head they
    // shared.
    let second = plan(&b, T0 + 120).expect("plan");
    assert!(second.edits.iter().any(|e| e.refused.is_none()), "the second plan has edits to apply");
    a.say("I work as a nurse at the city hospital.", T0 + 130);
    b.act(Op::Apply { plan: Box::new(second.clone()), decisions: Decisions::all() }, T0 + 140).expect("apply");
    a.sync(&server);
    b.sync(&server);
    a.sync(&server);
    assert_eq!(a.digest(), b.digest());
    let log = block(a.store.mutations()).expect("log");
    let stale = log
        .iter()
        .find(|m| m.rejection_reason.as_deref().is_some_and(|r| r.contains(&second.id)))
        .expect("the stale apply is logged");
    assert!(stale.rejection_reason.as_deref().unwrap_or("").contains("refused as stale"), "{stale:?}");
    assert!(!log.iter().any(|m| m.accepted && m.refs.review.as_deref().is_some_and(|r| r.starts_with(&second.id))));
}

/// An edit of a fact another device retired meanwhile is refused on replay, with the
/// reason logged on every device.
#[test]
fn an_edit_whose_fact_changed_meanwhile_is_refused_with_the_reason() {
    let server = LoopbackServer::new();
    let mut a = Phone::join(&server, 1, "pass phrase").expect("a");
    let mut b = Phone::join(&server, 2, "pass phrase").expect("b");
    a.say("My cat is called Miso.", T0);
    a.sync(&server);
    b.sync(&server);
    let fact = a.active_texts().first().cloned().expect("a fact");
    // Offline, both edit the same fact: B (sorted second) corrects what A forgot.
    a.act(Op::Edit { edit: EditRow::Forget { fact: fact.clone(), reason: "wrong".into() } }, T0 + 60).expect("forget");
    b.act(Op::Edit { edit: EditRow::Correct { fact: fact.clone(), text: "My cat is called Mochi.".into() } }, T0 + 61)
        .expect("correct");
    a.sync(&server);
    b.sync(&server);
    a.sync(&server);
    assert_eq!(a.digest(), b.digest());
    let log = block(b.store.mutations()).expect("log");
    let refused: Vec<_> = log.iter().filter(|m| m.pass == nocturne_core::model::pass::Stage::Sync).collect();
    assert_eq!(refused.len(), 1, "{log:#?}");
    assert!(
        refused[0].rejection_reason.as_deref().unwrap_or("").contains("no longer in the memory"),
        "{:?}",
        refused[0]
    );
    assert!(!b.active_texts().iter().any(|t| t.contains("Mochi")));
}

/// A wrong passphrase is refused before anything is read or written.
#[test]
fn a_wrong_passphrase_is_refused_and_writes_nothing() {
    let server = LoopbackServer::new();
    let mut a = Phone::join(&server, 1, "right passphrase").expect("a");
    a.say("My cat is called Miso.", T0);
    a.sync(&server);
    let before = server.replica.state();
    let err = Phone::join(&server, 2, "wrong passphrase").err().expect("refused");
    assert!(matches!(err, SyncError::WrongPassphrase(_)), "{err}");
    assert_eq!(server.replica.state(), before);
}

/// A record whose bytes were changed on the server is refused on open, named, and
/// nothing of it is applied.
#[test]
fn a_tampered_record_is_refused_and_changes_nothing() {
    let server = LoopbackServer::new();
    let mut a = Phone::join(&server, 1, "pass phrase").expect("a");
    a.say("My cat is called Miso.", T0);
    a.say("I moved to Lisbon in March.", T0 + 1);
    a.sync(&server);
    // The server flips one byte of the second record.
    let (id, mut sealed) = server.replica.records().pop().expect("a record");
    let n = sealed.len() - 3;
    sealed[n] ^= 1;
    server.replica.put(&id, sealed);
    let mut b = Phone::join(&server, 2, "pass phrase").expect("b");
    let merged = b.sync(&server);
    assert_eq!(merged.unauthentic, vec![id]);
    assert_eq!(b.user_turns(), vec!["My cat is called Miso.".to_string()]);
}

/// Erase on one device: afterwards no device's memory and nothing the server's document
/// holds, decrypted, has the words.
#[test]
fn an_erase_leaves_the_words_nowhere() {
    let server = LoopbackServer::new();
    let mut a = Phone::join(&server, 1, "pass phrase").expect("a");
    let mut b = Phone::join(&server, 2, "pass phrase").expect("b");
    a.say("My secret diagnosis is Zorbulitis.", T0);
    a.say("My cat is called Miso.", T0 + 1);
    a.sync(&server);
    b.sync(&server);
    // The sealed bytes of every record that holds the words, as the server stores them.
    let (before, _) = nocturne_sync::device::open_records(&server.replica, &a.key).expect("open");
    let holding: Vec<Vec<u8>> = server
        .replica
        .records()
        .into_iter()
        .filter(|(k, _)| {
            before.iter().any(|r| &r.id.key() == k && serde_json::to_string(r).expect("json").contains("Zorbulitis"))
        })
        .map(|(_, sealed)| sealed)
        .collect();
    assert!(!holding.is_empty());
    let id = block(b.store.items())
        .expect("items")
        .into_iter()
        .find(|i| i.text.contains("Zorbulitis"))
        .expect("fact")
        .item_id;
    block(nocturne_sync::erase(&mut b.device, &b.store, &id, T0 + 10)).expect("erase");
    b.sync(&server);
    a.sync(&server);
    assert_eq!(a.digest(), b.digest());
    for p in [&a, &b] {
        let doc = block(Store::document(&p.store)).expect("doc").to_json();
        assert!(!doc.contains("Zorbulitis"), "a device still holds the words");
        assert!(doc.contains("Miso"), "the erase took more than its words");
    }
    // Everything the server holds, opened with the key.
    let (records, bad) = nocturne_sync::device::open_records(&server.replica, &a.key).expect("open");
    assert!(bad.is_empty());
    assert!(!records.is_empty());
    for r in &records {
        assert!(!serde_json::to_string(r).expect("json").contains("Zorbulitis"), "record {} keeps the words", r.id);
    }
    // Nor do the sealed bytes of the records that held them survive in its document.
    let state = server.replica.state();
    for sealed in &holding {
        assert!(
            !contains(&state, &sealed[sealed.len() - 32..]),
            "a removed record's ciphertext is still in the server's document"
        );
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn edits_change_the_named_fact() {
    let server = LoopbackServer::new();
    let mut a = Phone::join(&server, 1, "pass phrase").expect("a");
    a.say("My cat is called Miso.", T0);
    let fact = a.active_texts().first().cloned().expect("fact");
    a.act(Op::Edit { edit: EditRow::from_edit(&UserEdit::Pin { item_id: String::new() }, &fact) }, T0 + 5)
        .expect("pin");
    assert!(block(a.store.items()).expect("items").iter().any(|i| i.pinned && i.text == fact));
}

/// Regression: a device's replica saved and loaded again (every `nocturne sync` does) kept
/// its 64-bit client id while the saved state carried only its low 32 bits, so its next
/// record reused a clock of its first and the two overwrote each other on every device.
#[test]
fn regression_a_reloaded_replica_with_a_large_client_id_keeps_every_record() {
    let client = 13_472_945_400_654_975_986u64;
    let first = Replica::new(client);
    first.put("r:a:0000000001", vec![1; 40]);
    let again = Replica::load(client, &first.state()).expect("load");
    again.put("r:a:0000000002", vec![2; 40]);
    let other = Replica::new(7);
    other.apply(&first.state()).expect("first");
    other.apply(&again.state()).expect("again");
    let keys: Vec<String> = other.records().into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys, vec!["r:a:0000000001".to_string(), "r:a:0000000002".to_string()]);
}

/// The Sleep lease: taken by one device, it blocks another until it expires or is given
/// back; the holder itself is never blocked.
#[test]
fn a_sleep_lease_blocks_other_devices_until_it_expires() {
    use nocturne_sync::device::{release_lease, take_lease, LEASE_SECONDS};
    let server = LoopbackServer::new();
    let mut a = Phone::join(&server, 1, "pass phrase").expect("a");
    let mut b = Phone::join(&server, 2, "pass phrase").expect("b");
    take_lease(&a.replica, &a.device, T0).expect("free");
    a.sync(&server);
    b.sync(&server);
    let held = take_lease(&b.replica, &b.device, T0 + 60).expect_err("A holds it");
    assert_eq!((held.device.as_str(), held.until), (a.device.id.as_str(), T0 + LEASE_SECONDS));
    take_lease(&a.replica, &a.device, T0 + 60).expect("the holder may sleep again");
    take_lease(&b.replica, &b.device, T0 + LEASE_SECONDS + 1).expect("expired");
    release_lease(&b.replica, &b.device, T0 + LEASE_SECONDS + 2);
    b.sync(&server);
    a.sync(&server);
    take_lease(&a.replica, &a.device, T0 + LEASE_SECONDS + 3).expect("given back");
}

/// A record of a newer schema stops the merge with a message to update, and nothing of
/// the space is applied.
#[test]
fn a_record_from_a_newer_schema_is_refused_and_nothing_is_applied() {
    let server = LoopbackServer::new();
    let mut a = Phone::join(&server, 1, "pass phrase").expect("a");
    a.say("My cat is called Miso.", T0);
    a.sync(&server);
    let mut future = nocturne_sync::device::open_records(&a.replica, &a.key).expect("open").0.remove(0);
    future.schema = nocturne_sync::record::SCHEMA + 1;
    future.id.seq = 99;
    nocturne_sync::device::publish(&a.replica, &a.key, &future, [5; 12]);
    server.exchange(&a.replica, [6; 8]).expect("exchange");
    let mut b = Phone::join(&server, 2, "pass phrase").expect("b");
    server.exchange(&b.replica, [1; 8]).expect("exchange");
    let err = block(merge(&mut b.device, &b.replica, &b.key, &b.store)).expect_err("refused");
    assert!(matches!(err, SyncError::NewerSchema(s) if s == nocturne_sync::record::SCHEMA + 1), "{err}");
    assert!(err.to_string().contains("update Nocturne"));
    assert!(b.user_turns().is_empty());
}

/// A connection that dropped after the client sent its records but before the server's
/// acknowledgement loses nothing: the next exchange sends what the server lacks again,
/// and applying it twice changes nothing.
#[test]
fn a_connection_dropped_mid_exchange_loses_nothing() {
    let server = LoopbackServer::new();
    let mut a = Phone::join(&server, 1, "pass phrase").expect("a");
    a.say("My cat is called Miso.", T0);
    let mut nonce = 0u8;
    flush(&mut a.device, &a.replica, &a.key, || {
        nonce += 1;
        [nonce; 12]
    })
    .expect("the pending record reads back");
    // The exchange starts; the server answers; the client's step 2 never arrives.
    let (_session, first) = nocturne_sync::session::Session::start(&a.replica, [3; 8]);
    let _ = server.receive(&first).expect("server");
    assert_eq!(server.replica.len(), 0, "the record did not reach the server");
    server.exchange(&a.replica, [4; 8]).expect("the next exchange");
    server.exchange(&a.replica, [5; 8]).expect("and another");
    assert_eq!(server.replica.len(), 1);
    let mut b = Phone::join(&server, 2, "pass phrase").expect("b");
    b.sync(&server);
    assert_eq!(b.user_turns(), vec!["My cat is called Miso.".to_string()]);
}

/// Pending records are kept as the JSON they were written as, so the page never reads one
/// back: the state's JSON is what it was when they were kept as records (a state saved by
/// an earlier build reads the same), and each reads back as the record made.
#[test]
fn pending_records_kept_as_json_read_as_the_records_made_and_the_state_reads_the_same() {
    let server = LoopbackServer::new();
    let mut a = Phone::join(&server, 1, "pass phrase").expect("a");
    a.say("My cat is called Miso.", T0);
    a.say("I moved to Ghent in May.", T0 + 60);
    assert_eq!(a.device.pending.len(), 2);
    let json = serde_json::to_value(&a.device).expect("the state serialises");
    let as_records: Vec<nocturne_sync::record::Record> =
        serde_json::from_value(json["pending"].clone()).expect("each pending entry is a record's own JSON");
    let read: Vec<_> = a.device.pending.iter().map(|p| p.record().expect("reads back")).collect();
    assert_eq!(read, as_records);
    assert!(matches!(&read[0].op, Op::Say { text, .. } if text == "My cat is called Miso."));
    let text = serde_json::to_string(&a.device).expect("the state serialises");
    let again: Device = serde_json::from_str(&text).expect("the state reads back");
    assert_eq!(again, a.device);
    assert_eq!(serde_json::to_string(&again).expect("serialises"), text, "byte for byte");
}

/// A pending record that cannot be read (a damaged state) stops the sync before anything
/// is sealed: the replica and the waiting records stay as they were.
#[test]
fn an_unreadable_pending_record_seals_nothing() {
    let server = LoopbackServer::new();
    let mut a = Phone::join(&server, 1, "pass phrase").expect("a");
    a.say("My cat is called Miso.", T0);
    let before = a.replica.records().len();
    a.device.pending.push(serde_json::from_str(r#"{"not":"a record"}"#).expect("any JSON is kept"));
    let mut nonce = 0u8;
    let sealed = flush(&mut a.device, &a.replica, &a.key, || {
        nonce += 1;
        [nonce; 12]
    });
    let err = sealed.expect_err("an unreadable record fails the flush").to_string();
    assert!(err.contains("a record waiting for this sync is unreadable"), "{err}");
    assert_eq!(a.replica.records().len(), before, "nothing was sealed");
    assert_eq!(a.device.pending.len(), 2, "nothing waiting was dropped");
}

/// A device that joins late replays many records in memory and writes them in one
/// replace: the same memory as the device that made them, Sleep included.
#[test]
fn a_late_joiner_replays_many_records_to_the_same_memory() {
    let server = LoopbackServer::new();
    let mut a = Phone::join(&server, 1, "pass phrase").expect("a");
    for (i, s) in SAYINGS.iter().chain(SAYINGS.iter()).enumerate() {
        a.say(&format!("{s} ({i})"), T0 + i as i64 * 60);
    }
    a.act(Op::Sleep { deep: true, plan: None }, T0 + 3_600).expect("sleep");
    a.sync(&server);
    assert!(a.device.applied.len() > nocturne_sync::device::BATCH_IN_PLACE);
    let mut b = Phone::join(&server, 2, "pass phrase").expect("b");
    let merged = b.sync(&server);
    assert_eq!(merged.applied, 17);
    assert!(!merged.rebuilt && merged.notes.is_empty(), "{merged:?}");
    assert_eq!(b.digest(), a.digest());
}

/// Regression: a history imported (or a version restored) on a device that syncs wrote rows
/// no record carried, so the other devices never saw them and this device's next rebuild
/// dropped them. They now go out as a checkpoint of the memory.
#[test]
fn regression_writes_made_outside_sync_reach_the_others_and_survive_a_rebuild() {
    let server = LoopbackServer::new();
    let mut a = Phone::join(&server, 1, "pass phrase").expect("a");
    let mut b = Phone::join(&server, 2, "pass phrase").expect("b");
    a.say("My cat is called Miso.", T0);
    a.sync(&server);
    b.sync(&server);
    // Outside sync on A, as an import writes: a turn straight into the store.
    block(nocturne_core::flow::chat::remember(
        &a.store,
        &OfflineProvider,
        "I keep bees on the roof.",
        T0 + 10,
        nocturne_core::flow::chat::TurnOptions::by(None),
    ))
    .expect("remember");
    // Meanwhile B says something, so A's next merge is a rebuild.
    b.say("I work as a nurse at the city hospital.", T0 + 20);
    b.sync(&server);
    a.sync(&server);
    b.sync(&server);
    a.sync(&server);
    assert_eq!(a.digest(), b.digest());
    for p in [&a, &b] {
        assert!(p.user_turns().iter().any(|t| t.contains("bees")), "the outside write was lost: {:?}", p.user_turns());
        assert!(p.user_turns().iter().any(|t| t.contains("nurse")));
    }
}

#[test]
fn the_sync_procedure_refuses_a_second_memory_another_space_or_no_passphrase_and_changes_nothing() {
    let server = LoopbackServer::new();
    let mut a = Phone::join(&server, 1, "pw").expect("a");
    a.say("My sister Ana lives in Porto.", T0);
    a.sync(&server);
    // A memory of its own, written before it ever synced.
    let mut c = Phone::join(&server, 3, "pw").expect("c");
    block(nocturne_core::flow::chat::chat_turn(
        &c.store,
        &OfflineProvider,
        "I keep a bearded dragon.",
        T0 + 1,
        nocturne_core::flow::chat::TurnOptions::default(),
    ))
    .expect("turn");
    let before = c.store.document();
    let err = c.try_sync(&server, None).expect_err("two memories").to_string();
    assert!(err.contains("holds one too") && err.contains("nothing was changed"), "{err}");
    assert_eq!(c.store.document(), before);
    let err = a.try_sync(&server, Some("another")).expect_err("another space").to_string();
    assert!(err.contains("already syncs with space space"), "{err}");
    a.passphrase.clear();
    let err = a.try_sync(&server, None).expect_err("no passphrase").to_string();
    assert!(err.contains("passphrase is empty"), "{err}");
}

/// The one write path decides synced or plain: over a memory that does not sync, a write
/// is made directly; over one that does, it is made through the same core function and
/// recorded for the next sync, and another device replays it.
#[test]
fn a_journal_records_a_write_when_the_memory_syncs_and_makes_it_directly_when_not() {
    use nocturne_core::write::{Edit, Say};
    let say =
        |text: &str, at: i64| Say { text: text.into(), speaker: None, reply: None, at, origin: Default::default() };
    let plain_store = MemStore::new();
    let none = Kept(RefCell::new(None));
    let said = block(common::perform(
        &plain_store,
        &none,
        &StoreLocks,
        &common::NoLease,
        say("My cat is called Miso.", T0),
        &OfflineProvider,
    ))
    .expect("say");
    assert_eq!(said.recorded, None);
    assert!(said.done.encoded.iter().any(|m| m.accepted), "{:?}", said.done.encoded);
    assert!(none.0.borrow().is_none(), "a memory that does not sync got a sync state");

    let server = LoopbackServer::new();
    let mut a = Phone::join(&server, 1, "pw").expect("a");
    let mut b = Phone::join(&server, 2, "pw").expect("b");
    a.sync(&server);
    b.sync(&server);
    let joined = Joined {
        server: "ws://loopback".into(),
        space: "space".into(),
        client_id: a.client_id,
        kdf: KdfParams::TEST,
        device: a.device.clone(),
        last_sync: None,
    };
    let kept = Kept(RefCell::new(Some((joined, a.replica.state()))));
    let said = block(common::perform(
        &a.store,
        &kept,
        &StoreLocks,
        &common::NoLease,
        say("My cat is called Miso.", T0 + 1),
        &OfflineProvider,
    ))
    .expect("say");
    assert_eq!(said.recorded.as_deref(), Some("done"));
    let id = said.done.encoded.iter().find(|m| m.accepted).expect("a fact").item_id.clone();
    let pin = Edit { edit: UserEdit::Pin { item_id: id }, at: T0 + 2 };
    let pinned =
        block(common::perform(&a.store, &kept, &StoreLocks, &common::NoLease, pin, &OfflineProvider)).expect("pin");
    assert!(pinned.recorded.is_some() && pinned.done.label.contains("pin"), "{pinned:?}");
    a.device = kept.0.borrow().as_ref().expect("state").0.device.clone();
    assert_eq!(a.device.pending.len(), 2, "the turn and the pin wait for the next sync");
    a.sync(&server);
    b.sync(&server);
    assert_eq!(a.digest(), b.digest());
    assert!(block(b.store.items()).expect("items").iter().any(|i| i.pinned && i.text == "My cat is called Miso."));
}

/// #68's trust boundary through sync: what an MCP client wrote on one device reaches
/// another with its source, and there — through the other device's own Sleep — changes
/// nothing the user said and reaches neither `persona` nor `human`; a turn said on a device
/// keeps that device as its source on every device.
#[test]
fn poison_from_an_mcp_client_on_one_device_has_no_effect_on_another() {
    use nocturne_core::model::memory::Block;
    use nocturne_core::model::provenance::By;
    use nocturne_core::testkit::corpora::{self, Half};
    let server = LoopbackServer::new();
    let mut a = Phone::join(&server, 0, "correct horse battery").expect("join a");
    let mut b = Phone::join(&server, 1, "correct horse battery").expect("join b");
    let user = ["I live in Porto.", "My partner is called Sam.", "My password is hunter2.", "I work as a nurse."];
    for (k, text) in user.iter().enumerate() {
        a.say(text, T0 + k as i64 * 600);
    }
    a.act(Op::Sleep { deep: false, plan: None }, T0 + 3_600).expect("a's Sleep");
    a.sync(&server);
    b.sync(&server);
    let held = b.active_texts();
    let poison: Vec<String> =
        corpora::poison().into_iter().filter(|p| p.half == Half::Test && p.said_at.is_none()).map(|p| p.text).collect();
    assert!(poison.len() >= 30, "{} poison texts", poison.len());
    for (k, text) in poison.iter().enumerate() {
        let by = Some(By::Mcp { client: "hostile".into() });
        let op = Op::Say { text: text.clone(), speaker: None, reply: None, by, said_at: None };
        a.act(op, T0 + 7_200 + k as i64).expect("an MCP client's turn is recorded (its facts refused or kept)");
    }
    a.sync(&server);
    b.sync(&server);
    b.act(Op::Sleep { deep: false, plan: None }, T0 + 86_400).expect("b's Sleep");
    b.sync(&server);
    a.sync(&server);
    assert_eq!(a.digest(), b.digest(), "the devices converge");
    let items = block(b.store.items()).expect("items");
    for text in &held {
        assert!(items.iter().any(|i| i.active && &i.text == text), "the user's {text:?} was changed on b");
    }
    let from_client: Vec<_> =
        items.iter().filter(|i| i.sources.iter().any(|s| matches!(s.by, By::Mcp { .. }))).collect();
    assert!(!from_client.is_empty(), "some of the poison is kept, held to what a client may do");
    assert!(from_client.iter().all(|i| !matches!(i.block, Block::Persona | Block::Human)), "{from_client:?}");
    let said_on_a = items.iter().find(|i| i.text == "I live in Porto.").expect("the user's fact");
    assert!(
        said_on_a.sources.iter().any(|s| s.by == By::Device { name: "device 0".into() }),
        "a turn said on device 0 keeps it as its source: {:?}",
        said_on_a.sources
    );
}
