//! Random sequences of writes through the one write path — turns long, empty and in odd
//! Unicode, corrections (some longer than a fact may be), pins, forgets, erases, Sleeps,
//! imported histories, restores, retention policies (some unusable) —
//! over a memory that does not sync and over one that does: every write leaves a memory its
//! own reader accepts, whose export imports again; the synced one reaches another device,
//! which ends on the same memory.

mod common;

use common::{Counter, Kept, Loop};
use nocturne_core::flow::edit::UserEdit;
use nocturne_core::flow::import::{self, Report, TranscriptCache};
use nocturne_core::flow::import_plan;
use nocturne_core::flow::import_plan::{ImportOptions, SleepAfter};
use nocturne_core::flow::sleep::SleepOptions;
use nocturne_core::flow::stop::StopToken;
use nocturne_core::history::{self as import_readers, History};
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::llm::provider::{Completion, Layer};
use nocturne_core::store::document::{Document, MAX_FACT_CHARS};
use nocturne_core::store::{MemStore, Store};
use nocturne_core::write::{
    Done, Edit, Erase, Import, ImportSleep, Perform, Policy, Restore, Say, Sleep, StoreLocks, WriteError,
};
use nocturne_core::DAY;
use nocturne_sync::crypto::KdfParams;
use nocturne_sync::procedure::{self, Ask, Lease, ServerLease};
use nocturne_sync::session::LoopbackServer;
use pollster::block_on as block;
use proptest::prelude::*;
use std::cell::{Cell, RefCell};

const T0: i64 = 1_790_000_000;

/// One device: a memory, its keeper and its randomness (seeded in the bytes its device id
/// is made of, so two devices never share an id and overwrite each other's records).
struct Device {
    store: MemStore,
    kept: Kept,
    random: Counter,
}

impl Device {
    fn new(n: u64) -> Device {
        Device { store: MemStore::new(), kept: Kept(RefCell::new(None)), random: Counter(Cell::new(n << 24)) }
    }

    /// Performs `command` through the one write path over this device's memory and sync
    /// state, the space's lease asked through `lease`.
    fn perform<C: Perform>(&self, command: C, lease: &impl Lease) -> Result<Done<C::Output>, WriteError> {
        block(common::perform(&self.store, &self.kept, &StoreLocks, lease, command, &OfflineProvider))
    }

    /// A turn of the user's with no reply, through the one write path.
    fn say(&self, text: &str, at: i64) -> Result<Done<nocturne_core::flow::chat::TurnOutcome>, WriteError> {
        self.perform(
            Say { text: text.into(), speaker: None, reply: None, at, origin: Default::default() },
            &common::NoLease,
        )
    }

    fn sync(&self, server: &LoopbackServer, name: &str) -> Result<String, nocturne_sync::SyncError> {
        self.synced(server, name).map(|s| s.head)
    }

    fn synced(&self, server: &LoopbackServer, name: &str) -> Result<procedure::Synced, nocturne_sync::SyncError> {
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
    }

    fn nth_active(&self, n: usize) -> Option<String> {
        let active: Vec<_> = block(self.store.items()).expect("items").into_iter().filter(|i| i.active).collect();
        (!active.is_empty()).then(|| active[n % active.len()].item_id.clone())
    }

    /// Makes `w` through the journal; a refusal is an answer, not a failure.
    fn write(&self, w: &Write, at: i64, server: &LoopbackServer) {
        let none = &common::NoLease;
        let edit = |edit: UserEdit| self.perform(Edit { edit, at }, none).map(|_| ());
        let _ = match w {
            Write::Say(text) => self.say(text, at).map(|_| ()),
            Write::Correct(n, text) => match self.nth_active(*n) {
                Some(item_id) => edit(UserEdit::Correct { item_id, text: text.clone() }),
                None => Ok(()),
            },
            Write::Pin(n) => match self.nth_active(*n) {
                Some(item_id) => edit(UserEdit::Pin { item_id }),
                None => Ok(()),
            },
            Write::Forget(n) => match self.nth_active(*n) {
                Some(item_id) => edit(UserEdit::Forget { item_id, reason: String::new() }),
                None => Ok(()),
            },
            Write::Erase(n) => match self.nth_active(*n) {
                Some(item_id) => self.perform(Erase { item_id, at }, none).map(|_| ()),
                None => Ok(()),
            },
            Write::Import { days, sleep } => {
                let history = history(*days, at);
                let known = block(self.store.transcript()).expect("transcript");
                let known = known.into_iter().filter_map(|t| t.source).collect();
                let options = ImportOptions { sleep: *sleep, retire_a_lot: true, ..ImportOptions::default() };
                let plan = import_plan::plan(&history, &known, &options);
                let lease = ServerLease { keeper: &self.kept, exchange: &Loop(server), random: &self.random };
                let mut seen = TranscriptCache::default();
                let mut report = Report::default();
                // Pieces of two batches: the import's pieces carry what one saw to the next.
                for piece in plan.pieces(2) {
                    let import = Import { piece, options: options.clone(), at, seen };
                    match self.perform(import, &lease) {
                        Ok(done) => {
                            report.absorb(done.done.report);
                            seen = done.done.seen;
                        }
                        Err(e) => panic!("an import failed: {e}"),
                    }
                }
                self.perform(ImportSleep { options, at, report }, &lease).map(|_| ())
            }
            Write::Restore(n) => {
                let head = block(self.store.meta()).expect("meta").head;
                self.perform(Restore { seq: 1 + *n as u64 % head.max(1), at }, none).map(|_| ())
            }
            Write::Policy(days) => {
                let mut policy = block(self.store.meta()).expect("meta").policy;
                policy.stale_after_days = *days;
                self.perform(Policy { policy, at }, none).map(|_| ())
            }
            Write::Sleep { deep } => {
                let options = if *deep { SleepOptions::new(at).deep() } else { SleepOptions::new(at) };
                let random = Counter(Cell::new(self.random.0.get()));
                // Validity is the property here: a heavy retirement goes ahead as confirmed.
                let lease = ServerLease { keeper: &self.kept, exchange: &Loop(server), random: &random };
                let r = self.perform(Sleep::new(options).go_ahead(true), &lease);
                self.random.0.set(random.0.get());
                r.map(|_| ())
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
    Sleep {
        deep: bool,
    },
    /// A chat log of `days` days, the last one ending before the write.
    Import {
        days: usize,
        sleep: SleepAfter,
    },
    /// The `n`th version (wrapped to the head) restored.
    Restore(usize),
    /// Forget by age after this many days, or not.
    Policy(Option<f64>),
}

/// A JSON Lines log of `days` days of a person's statements and the replies, ending a day
/// before `at`.
fn history(days: usize, at: i64) -> History {
    let said = ["I live in Ghent and I teach chemistry.", "My sister Ana lives in Porto.", "I don't eat meat.", "ok"];
    let mut lines = String::new();
    for d in 0..days {
        for (k, text) in said.iter().enumerate() {
            let t = at - (days - d) as i64 * DAY + k as i64 * 60;
            lines += &format!("{{\"role\": \"user\", \"content\": \"{text} ({d})\", \"timestamp\": {t}}}\n");
            lines += &format!("{{\"role\": \"assistant\", \"content\": \"Noted.\", \"timestamp\": {}}}\n", t + 1);
        }
    }
    import_readers::read("log.jsonl", lines.as_bytes(), None, at).expect("the log reads")
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
            Write::Import { days, sleep } => write!(f, "Import {{ days: {days}, sleep: {sleep:?} }}"),
            Write::Restore(n) => write!(f, "Restore({n})"),
            Write::Policy(days) => write!(f, "Policy({days:?})"),
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
        2 => (1usize..4, prop::sample::select(&[SleepAfter::End, SleepAfter::EachDay, SleepAfter::Never][..]))
            .prop_map(|(days, sleep)| Write::Import { days, sleep }),
        1 => any::<usize>().prop_map(Write::Restore),
        1 => prop::option::of(prop::sample::select(&[-1.0, 0.5, 30.0][..])).prop_map(Write::Policy),
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
        replica: &nocturne_sync::replica::Replica,
        nonce: [u8; 8],
    ) -> Result<(), nocturne_sync::SyncError> {
        self.calls.set(self.calls.get() + 1);
        if self.calls.get() == 2 {
            let say = Say {
                text: "My locker code is 4417.".into(),
                speaker: None,
                reply: None,
                at: T0 + DAY,
                origin: Default::default(),
            };
            let d = self.device;
            let said = common::perform(&d.store, &d.kept, &StoreLocks, &common::NoLease, say, &OfflineProvider).await;
            said.map_err(|e| nocturne_sync::SyncError::Refused(e.to_string()))?;
        }
        nocturne_sync::procedure::Exchange::exchange(&Loop(self.server), url, replica, nonce).await
    }
}

#[test]
fn regression_a_turn_recorded_while_a_sync_sends_is_kept_for_the_next_sync() {
    let server = LoopbackServer::new();
    let a = Device::new(1);
    a.say("I live in Ghent.", T0).expect("first turn");
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

/// Imports `history` through `device`'s journal in pieces of two batches, then the Sleep
/// at the end when `options` asks for one.
fn import_all<P: nocturne_core::llm::provider::Provider>(
    device: &Device,
    server: &LoopbackServer,
    provider: &P,
    history: &History,
    options: &ImportOptions,
    at: i64,
) -> Report {
    let plan = import_plan::plan(history, &Default::default(), options);
    let lease = ServerLease { keeper: &device.kept, exchange: &Loop(server), random: &device.random };
    let (mut seen, mut report) = (TranscriptCache::default(), Report::default());
    let perform = |command| block(common::perform(&device.store, &device.kept, &StoreLocks, &lease, command, provider));
    for piece in plan.pieces(2) {
        let import = Import { piece, options: options.clone(), at, seen };
        let done = perform(import).expect("import");
        report.absorb(done.done.report);
        seen = done.done.seen;
    }
    let sleep = ImportSleep { options: options.clone(), at, report };
    block(common::perform(&device.store, &device.kept, &StoreLocks, &lease, sleep, provider))
        .expect("the Sleep after")
        .done
}

/// Two devices in one space: a laptop and a phone.
fn joined(server: &LoopbackServer) -> (Device, Device) {
    let (a, b) = (Device::new(1), Device::new(2));
    a.synced(server, "laptop").expect("a joins");
    b.synced(server, "phone").expect("b joins");
    (a, b)
}

fn turn_count(store: &MemStore) -> u32 {
    block(store.turn_count()).expect("turns")
}

/// An import on a memory that syncs once reached the other devices only as a checkpoint of
/// the whole memory ("writes made outside sync"); it is now a record per day of history and
/// per Sleep, which the other devices replay.
#[test]
fn regression_an_import_on_a_synced_memory_reaches_another_device_as_records() {
    let server = LoopbackServer::new();
    let (a, b) = joined(&server);
    let options = ImportOptions { sleep: SleepAfter::EachDay, ..ImportOptions::default() };
    let report = import_all(&a, &server, &OfflineProvider, &history(3, T0), &options, T0);
    assert!(report.user_turns == 12 && report.facts > 0 && report.sleeps == 3, "{report:?}");
    // An import's record names the schema that holds it; a Sleep's stays readable by older builds.
    let schemas: Vec<(bool, u32)> = a
        .kept
        .0
        .borrow()
        .as_ref()
        .expect("synced")
        .0
        .device
        .pending
        .iter()
        .map(|p| p.record().expect("a pending record reads back"))
        .map(|r| (matches!(r.op, nocturne_sync::record::Op::Import { .. }), r.schema))
        .collect();
    assert_eq!(schemas, [(true, 2), (false, 1)].repeat(3));
    let sent = a.synced(&server, "laptop").expect("a sends");
    assert!(!sent.outside_writes, "the import went out as a checkpoint of writes made outside sync");
    assert_eq!(sent.sealed, 6, "a record per day and per Sleep");
    let got = b.synced(&server, "phone").expect("b fetches");
    assert_eq!(got.head, sent.head, "the other device ends on another memory");
    assert_eq!(turn_count(&b.store), 24);
    let on_b: Vec<String> = block(b.store.items()).expect("items").into_iter().map(|i| i.text).collect();
    assert!(on_b.iter().any(|t| t.contains("Porto")), "{on_b:?}");
}

/// The offline provider, with a Stop pressed as its `n`th reply comes back.
struct StopAt {
    stop: StopToken,
    n: usize,
    calls: Cell<usize>,
}

impl Layer for StopAt {
    type Inner = OfflineProvider;
    fn inner(&self) -> &OfflineProvider {
        &OfflineProvider
    }
    fn after_call(&self, _: &Completion) {
        self.calls.set(self.calls.get() + 1);
        if self.calls.get() == self.n {
            self.stop.stop();
        }
    }
}

#[test]
fn regression_a_stopped_synced_import_records_only_the_batches_it_wrote() {
    let server = LoopbackServer::new();
    let (a, b) = joined(&server);
    // One day, one message a batch; the third too long to encode, so its batch asks the
    // model nothing: a record holding it would make the other device write it.
    let long = "I keep notes on everything. ".repeat(100);
    let log = [("I live in Ghent.", 0), ("I teach chemistry.", 60), (&*long, 120), ("I don't eat meat.", 180)]
        .iter()
        .map(|(text, dt)| {
            format!("{{\"role\": \"user\", \"content\": \"{text}\", \"timestamp\": {}}}\n", T0 - DAY + dt)
        })
        .collect::<String>();
    let history = import_readers::read("log.jsonl", log.as_bytes(), None, T0).expect("reads");
    let stop = StopToken::default();
    let options = ImportOptions { batch: 1, sleep: SleepAfter::Never, stop: stop.clone(), ..ImportOptions::default() };
    let provider = StopAt { stop, n: 2, calls: Cell::new(0) };
    let report = import_all(&a, &server, &provider, &history, &options, T0);
    assert!(report.stopped && report.user_turns == 2, "{report:?}");
    let sent = a.synced(&server, "laptop").expect("a sends");
    assert!(!sent.outside_writes && sent.sealed == 1, "{sent:?}");
    let got = b.synced(&server, "phone").expect("b fetches");
    assert_eq!(
        (turn_count(&b.store), &got.head),
        (2, &sent.head),
        "the other device wrote what the stopped import did not"
    );
}

/// A write made outside sync (here an import straight into the store, as a restore or
/// another program writes) and then a turn through the journal, before the next sync: the
/// turn's record moved the device's mark past the outside write, so no sync noticed it and
/// the other devices never got it.
#[test]
fn regression_a_write_outside_sync_followed_by_a_turn_still_reaches_the_other_device() {
    let server = LoopbackServer::new();
    let (a, b) = joined(&server);
    let plan = import_plan::plan(&history(1, T0), &Default::default(), &ImportOptions::default());
    let options = ImportOptions { sleep: SleepAfter::Never, ..ImportOptions::default() };
    block(import::run(&a.store, &OfflineProvider, &plan, &options, T0, &mut |_| {})).expect("outside write");
    a.say("My locker code is 4417.", T0 + 1).expect("turn");
    let sent = a.synced(&server, "laptop").expect("a sends");
    let got = b.synced(&server, "phone").expect("b fetches");
    assert_eq!(got.head, sent.head, "the other device ends on another memory");
    assert_eq!(turn_count(&b.store), turn_count(&a.store));
}

/// A restore and a retention policy on a memory that syncs once went out only as a
/// checkpoint of writes made outside sync; they are now records, replayed on the other
/// device (and a restore made on a head another record moved is refused there as stale).
#[test]
fn regression_a_restore_and_a_policy_on_a_synced_memory_reach_another_device_as_records() {
    let server = LoopbackServer::new();
    let (a, b) = joined(&server);
    a.say("I live in Ghent.", T0).expect("turn");
    let first = block(a.store.meta()).expect("meta").head;
    a.say("My sister Ana lives in Porto.", T0 + 1).expect("turn");
    let restored = a.perform(Restore { seq: first, at: T0 + 2 }, &common::NoLease).expect("restore");
    assert!(restored.recorded.is_some() && restored.done.label == format!("restore:v{first}"), "{restored:?}");
    let mut policy = block(a.store.meta()).expect("meta").policy;
    policy.stale_after_days = Some(30.0);
    let set = a.perform(Policy { policy: policy.clone(), at: T0 + 3 }, &common::NoLease).expect("policy");
    assert!(set.recorded.is_some() && set.done.as_deref().is_some_and(|w| w.contains("30 days")), "{set:?}");
    policy.stale_after_days = Some(-1.0);
    let refused = a.perform(Policy { policy, at: T0 + 4 }, &common::NoLease).expect_err("an unusable policy");
    assert!(matches!(refused, WriteError::BadInput(_)) && refused.to_string().contains("not usable"), "{refused}");
    let sent = a.synced(&server, "laptop").expect("a sends");
    assert!(!sent.outside_writes && sent.sealed == 4, "{sent:?}");
    let got = b.synced(&server, "phone").expect("b fetches");
    assert_eq!(got.head, sent.head);
    let on_b = block(b.store.meta()).expect("meta").policy;
    assert_eq!(on_b.stale_after_days, Some(30.0));
    let active: Vec<String> =
        block(b.store.items()).expect("items").into_iter().filter(|i| i.active).map(|i| i.text).collect();
    assert!(!active.iter().any(|t| t.contains("Porto")), "the restore did not reach the other device: {active:?}");
}

/// A restore made on a head another device's record then moved would undo that record
/// without anyone choosing it: it is refused as stale on every device, with the reason
/// logged, and the devices still converge.
#[test]
fn a_restore_planned_on_a_moved_head_is_refused_as_stale_everywhere() {
    let server = LoopbackServer::new();
    let (a, b) = joined(&server);
    a.say("I live in Ghent.", T0).expect("a's turn");
    a.synced(&server, "laptop").expect("a sends");
    // b has not seen a's turn: its restore (a later lamport than a's turn) is planned on
    // the head without it.
    b.say("My sister Ana lives in Porto.", T0 + 1).expect("b's turn");
    let first = block(b.store.meta()).expect("meta").head;
    b.perform(Restore { seq: first, at: T0 + 2 }, &common::NoLease).expect("b's restore");
    let on_b = b.synced(&server, "phone").expect("b syncs");
    let on_a = a.synced(&server, "laptop").expect("a fetches");
    assert_eq!(on_a.head, on_b.head);
    for device in [&a, &b] {
        let log = block(device.store.mutations()).expect("log");
        assert!(
            log.iter().any(|m| !m.accepted
                && m.rejection_reason.as_deref().is_some_and(|r| r.contains("restore of v") && r.contains("stale"))),
            "the stale restore is not in the log"
        );
        let active: Vec<String> =
            block(device.store.items()).expect("items").into_iter().filter(|i| i.active).map(|i| i.text).collect();
        assert!(active.iter().any(|t| t.contains("Ghent")), "{active:?}");
    }
}

/// A write lock that counts how often it was held, and how: waiting, or only if free.
#[derive(Default)]
struct Counting {
    waited: Cell<usize>,
    if_free: Cell<usize>,
}

impl nocturne_core::write::WriteLock for Counting {
    async fn hold<T, E: From<nocturne_core::write::LockError>>(
        &self,
        work: impl std::future::Future<Output = Result<T, E>>,
    ) -> Result<T, E> {
        self.waited.set(self.waited.get() + 1);
        work.await
    }
    async fn hold_if_free<T, E: From<nocturne_core::write::LockError>>(
        &self,
        work: impl std::future::Future<Output = Result<T, E>>,
    ) -> Result<T, E> {
        self.if_free.set(self.if_free.get() + 1);
        work.await
    }
}

/// The journal takes the memory's write lock itself, once per write: the short writes
/// wait for it, a Sleep and a reviewed plan's application only take it when it is free.
#[test]
fn every_write_through_the_journal_holds_the_write_lock_once() {
    let (server, device, lock) = (LoopbackServer::new(), Device::new(1), Counting::default());
    let lease = ServerLease { keeper: &device.kept, exchange: &Loop(&server), random: &device.random };
    let perform =
        |command| block(common::perform(&device.store, &device.kept, &lock, &lease, command, &OfflineProvider));
    let counts = || (lock.waited.get(), lock.if_free.get());
    let say = Say {
        text: "I live in Ghent. My sister Ana lives in Porto.".into(),
        speaker: None,
        reply: None,
        at: T0,
        origin: Default::default(),
    };
    block(common::perform(&device.store, &device.kept, &lock, &lease, say, &OfflineProvider)).expect("say");
    assert_eq!(counts(), (1, 0));
    let first = device.nth_active(0).expect("a fact");
    perform(nocturne_core::write::Command::Edit(Edit { edit: UserEdit::Pin { item_id: first }, at: T0 + 1 }))
        .expect("pin");
    perform(Restore { seq: 1, at: T0 + 2 }.into()).expect("restore");
    let mut policy = block(device.store.meta()).expect("meta").policy;
    policy.stale_after_days = Some(30.0);
    perform(Policy { policy, at: T0 + 3 }.into()).expect("policy");
    let second = device.nth_active(1).expect("a fact");
    perform(Erase { item_id: second, at: T0 + 4 }.into()).expect("erase");
    assert_eq!(counts(), (5, 0));
    let options = ImportOptions::default();
    let plan = import_plan::plan(&history(1, T0 + 5 * DAY), &Default::default(), &options);
    let mut report = Report::default();
    for piece in plan.pieces(1) {
        let import = Import { piece, options: options.clone(), at: T0, seen: TranscriptCache::default() };
        let done = perform(import.into()).expect("import");
        let nocturne_core::write::Outcome::Imported(done) = done.done else { panic!("an import imports") };
        report.absorb(done.report);
    }
    perform(ImportSleep { options, at: T0 + 6 * DAY, report }.into()).expect("the Sleep after");
    assert_eq!(counts(), (5 + plan.pieces(1).len() + 1, 0));
    let sleep = SleepOptions::new(T0 + 7 * DAY);
    let waited = lock.waited.get();
    perform(Sleep::new(sleep).go_ahead(true).into()).expect("sleep");
    let planned = SleepOptions::new(T0 + 8 * DAY);
    let review = block(nocturne_core::flow::review::plan(&device.store, &OfflineProvider, &planned, &mut |_| {}));
    let review = review.expect("a plan");
    let all = nocturne_core::flow::review::Decisions::only(std::iter::empty());
    let apply = nocturne_core::write::Apply { plan: Box::new(review), decisions: all, at: T0 + 9 * DAY };
    perform(apply.into()).expect("apply");
    assert_eq!(counts(), (waited, 2), "a Sleep and an application take the lock only when it is free");
}
