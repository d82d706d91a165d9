//! One device's side of a space: what it has applied, how it records what it does, and
//! how it merges what other devices did — every step a plain function over a [`Store`],
//! a [`Replica`] and the [`Key`]; the transport (a WebSocket) is the caller's.

use crate::crypto::{digest_hex, KdfParams, Key};
use crate::record::{self, Op, Record, RecordId, SCHEMA, SPACE_SCHEMA};
use crate::replay::{perform, perform_plain, perform_watched, Applied, Performed, Recording, Replaying, Watch};
use crate::replica::{Header, Replica};
use crate::SyncError;
use nocturne_core::llm::provider::Provider;
use nocturne_core::model::provenance::By;
use nocturne_core::store::{MemStore, Store};
use serde::{Deserialize, Serialize};

/// What a device keeps about the space (saved beside its memory; holds no key and no
/// passphrase).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Device {
    /// This device's id in record ids (random, fixed at pairing).
    pub id: String,
    /// The name its user gave it (shown in the log of every device).
    pub name: String,
    /// The next record's sequence number.
    pub next_seq: u64,
    /// The largest lamport seen.
    pub lamport: u64,
    /// The records the local memory is made of, in the order they were applied.
    pub applied: Vec<RecordId>,
    /// Their chain digest (`record::chain`): the head the next record is planned on.
    pub chain: String,
    /// Records made here and not yet sealed into the space (sealing needs the key, which
    /// only a sync has): a chat turn on the command line needs no passphrase.
    #[serde(default)]
    pub pending: Vec<Pending>,
    /// Other devices' names by id, learned from their records (the Sleep lease names only
    /// an id).
    #[serde(default)]
    pub names: std::collections::BTreeMap<String, String>,
    /// The store's counters when this device last recorded or merged: a store that moved
    /// since was written outside sync (an import, a restore, another program), and the
    /// next sync publishes it as a checkpoint rather than lose it.
    #[serde(default)]
    pub mark: Option<Mark>,
}

/// A record made here and not yet sealed, kept as the JSON it was written as. A writer
/// that does not sync (the page, whose sync runs in a worker) only appends and counts
/// these, so its bundle holds no record reader (the operations' deserialisers were 47 KB
/// of its wasm before optimisation); [`flush`] reads each when the sync seals it. The JSON
/// is the record's own, so a state saved before this type existed reads the same.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Pending(Box<serde_json::value::RawValue>);

impl Pending {
    /// `record` as it waits for the next sync.
    pub fn of(record: &Record) -> Result<Pending, SyncError> {
        serde_json::value::to_raw_value(record)
            .map(Pending)
            .map_err(|e| SyncError::Engine(format!("cannot keep record {} for the next sync ({e})", record.id.key())))
    }

    /// The record.
    pub fn record(&self) -> Result<Record, SyncError> {
        serde_json::from_str(self.0.get()).map_err(|e| {
            SyncError::Engine(format!("a record waiting for this sync is unreadable ({e}); nothing was sent"))
        })
    }
}

impl PartialEq for Pending {
    fn eq(&self, other: &Pending) -> bool {
        self.0.get() == other.0.get()
    }
}

/// A store's write counters (any commit moves one of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Mark {
    pub head: u64,
    pub next_mutation: u64,
    pub turns: u32,
}

async fn mark_of<S: Store>(store: &S) -> Result<Mark, SyncError> {
    let meta = store.meta().await?;
    Ok(Mark { head: meta.head, next_mutation: meta.next_mutation, turns: store.turn_count().await? })
}

/// Publishes writes made to the memory outside sync since this device last recorded or
/// merged (an import, a restore, another program) as a pending checkpoint, so no device
/// loses them and this one's next rebuild does not drop them. Returns whether there were
/// any.
pub async fn adopt_outside_writes<S: Store>(device: &mut Device, store: &S, at: i64) -> Result<bool, SyncError> {
    match device.mark {
        Some(mark) if mark != mark_of(store).await? => {
            checkpoint(
                device,
                store,
                at,
                "writes made on this device outside sync (an import, a restore, another program)",
            )
            .await?;
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// New records a merge performs on the store one commit each; more are replayed in memory
/// and written in one replace.
pub const BATCH_IN_PLACE: usize = 8;

/// What a merge did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Merged {
    /// Records from other devices applied.
    pub applied: usize,
    /// The memory was rebuilt from the newest checkpoint (another device's record came
    /// before one of this device's).
    pub rebuilt: bool,
    /// What was replayed on a moved head, or refused, with reasons (also in the log).
    pub notes: Vec<String>,
    /// Records that failed authentication: refused, nothing applied from them.
    pub unauthentic: Vec<String>,
}

impl Device {
    /// A device new to a space.
    pub fn new(id: &str, name: &str) -> Device {
        Device {
            id: id.into(),
            name: name.into(),
            next_seq: 1,
            lamport: 0,
            applied: Vec::new(),
            chain: String::new(),
            pending: Vec::new(),
            names: Default::default(),
            mark: None,
        }
    }

    fn next_record(&mut self, at: i64, op: Op, calls: Vec<crate::record::Call>) -> Record {
        let record = Record {
            schema: op.schema(),
            id: RecordId { device: self.id.clone(), seq: self.next_seq },
            device_name: self.name.clone(),
            base: self.chain.clone(),
            lamport: self.lamport + 1,
            at,
            op,
            calls,
        };
        self.next_seq += 1;
        self.lamport += 1;
        record
    }

    fn applied(&mut self, id: &RecordId) {
        self.chain = record::chain(&self.chain, id);
        self.applied.push(id.clone());
    }
}

/// Opens the space in `replica` with `passphrase`, or makes it when the replica holds
/// none (`salt` and `nonce` from the caller's randomness). A wrong passphrase is
/// [`SyncError::WrongPassphrase`], and nothing was written.
pub fn open_space(
    replica: &Replica,
    passphrase: &str,
    new_space: (KdfParams, [u8; 16], [u8; 12]),
) -> Result<Key, SyncError> {
    if passphrase.is_empty() {
        return Err(SyncError::WrongPassphrase("the passphrase is empty".into()));
    }
    match replica.header() {
        Some(h) if h.schema > SPACE_SCHEMA => Err(SyncError::NewerSchema(h.schema)),
        Some(h) => {
            let key = Key::derive(passphrase, &h.salt, h.kdf).map_err(|e| SyncError::Space(e.to_string()))?;
            if key.opens_check(&h.check) {
                Ok(key)
            } else {
                Err(SyncError::WrongPassphrase(
                    "this passphrase does not open the space (its key check failed); nothing was written".into(),
                ))
            }
        }
        None => {
            let (kdf, salt, nonce) = new_space;
            let key = Key::derive(passphrase, &salt, kdf).map_err(|e| SyncError::Space(e.to_string()))?;
            replica.set_header(&Header { salt: salt.to_vec(), kdf, check: key.check(&nonce), schema: SPACE_SCHEMA });
            Ok(key)
        }
    }
}

/// Seals `record` into the replica.
pub fn publish(replica: &Replica, key: &Key, record: &Record, nonce: [u8; 12]) {
    let id = record.id.key();
    let json = serde_json::to_vec(record).unwrap_or_default();
    replica.put(&id, key.seal(&nonce, id.as_bytes(), &json));
}

/// Seals every pending record into the replica (`nonce` gives each a fresh nonce); a
/// checkpoint also removes the records it covers. Returns how many were sealed.
/// Nothing is sealed when a pending record cannot be read.
pub fn flush(
    device: &mut Device,
    replica: &Replica,
    key: &Key,
    mut nonce: impl FnMut() -> [u8; 12],
) -> Result<usize, SyncError> {
    let pending = device.pending.iter().map(Pending::record).collect::<Result<Vec<_>, _>>()?;
    device.pending.clear();
    for record in &pending {
        publish(replica, key, record, nonce());
        if let Op::Checkpoint { covers, .. } = &record.op {
            // An earlier checkpoint this device started from is among `covers`: it goes too.
            replica.remove(&covers.iter().map(RecordId::key).collect::<Vec<_>>());
        }
    }
    Ok(pending.len())
}

/// Does `op` on the local memory as this device (asking `provider` when it needs a
/// model, keeping its replies) and keeps it as a pending record for the next sync.
/// Nothing is kept when the operation fails.
pub async fn act<S: Store, P: Provider>(
    device: &mut Device,
    store: &S,
    provider: &P,
    op: Op,
    at: i64,
) -> Result<Performed, SyncError> {
    act_watched(device, store, provider, op, at, &mut Watch { stop: Default::default(), on_event: &mut |_| {} }).await
}

/// [`act`], with a Stop and the passes of a Sleep shown as they go.
pub async fn act_watched<S: Store, P: Provider>(
    device: &mut Device,
    store: &S,
    provider: &P,
    op: Op,
    at: i64,
    watch: &mut Watch<'_>,
) -> Result<Performed, SyncError> {
    // Writes made outside sync go out first: a record made on top of them would move the
    // mark past them, and no sync would notice them again.
    adopt_outside_writes(device, store, at).await?;
    let recording = Recording::new(provider);
    // A turn said here is the user on this device, by name, in the record itself: every
    // device (an older build too) keeps that source for the facts it encodes.
    let op = match op {
        Op::Say { text, speaker, reply, by: None, said_at } => {
            Op::Say { text, speaker, reply, by: Some(By::Device { name: device.name.clone() }), said_at }
        }
        op => op,
    };
    // Performed as a record would be replayed, so every device reaches the same rows.
    let mut record = device.next_record(at, op, Vec::new());
    let applied = perform_watched(store, &recording, &record, false, watch).await?;
    record.calls = recording.calls();
    // An import stopped partway (or cut short by its model) records the batches it wrote.
    if let (Op::Import { messages, batches, .. }, Some(done)) = (&mut record.op, &applied.import) {
        if done.batches < batches.len() {
            batches.truncate(done.batches);
            messages.truncate(batches.last().map_or(0, |b| b.end));
        }
    }
    made(device, store, record).await?;
    Ok(applied)
}

/// [`act_watched`] for an operation that asks no model (`replay::perform_plain`): a user's
/// edit, a reviewed plan applied, a policy, a restore.
pub async fn act_plain<S: Store>(
    device: &mut Device,
    store: &S,
    op: Op,
    at: i64,
    watch: &mut Watch<'_>,
) -> Result<Performed, SyncError> {
    adopt_outside_writes(device, store, at).await?;
    let record = device.next_record(at, op, Vec::new());
    let applied = perform_plain(store, &record, false, watch).await?;
    made(device, store, record).await?;
    Ok(applied)
}

/// Keeps `record`, just performed on `store`, as this device's newest: applied, waiting to
/// be sent, and the store's counters marked.
async fn made<S: Store>(device: &mut Device, store: &S, record: Record) -> Result<(), SyncError> {
    device.pending.push(Pending::of(&record)?);
    device.applied(&record.id);
    device.mark = Some(mark_of(store).await?);
    Ok(())
}

/// Compacts the space after an erase (or to join with an existing memory): a pending
/// checkpoint of the whole local memory covering every record this device has applied;
/// sealing it ([`flush`]) removes those records from the space, so no earlier record
/// keeps the erased words.
pub async fn checkpoint<S: Store>(device: &mut Device, store: &S, at: i64, why: &str) -> Result<(), SyncError> {
    let covers = device.applied.clone();
    let document = Box::new(store.document().await?);
    let record = device.next_record(at, Op::Checkpoint { document, covers, why: why.into() }, Vec::new());
    // Records made here but not yet sealed are in the checkpoint's memory: they go.
    device.pending.clear();
    device.applied.clear();
    device.chain.clear();
    device.applied(&record.id);
    device.pending.push(Pending::of(&record)?);
    device.mark = Some(mark_of(store).await?);
    Ok(())
}

/// Every record the replica holds, opened: (records, the ids that failed to open).
pub fn open_records(replica: &Replica, key: &Key) -> Result<(Vec<Record>, Vec<String>), SyncError> {
    let mut records = Vec::new();
    let mut unauthentic = Vec::new();
    for (id, sealed) in replica.records() {
        let opened =
            key.open(id.as_bytes(), &sealed).ok().and_then(|p| serde_json::from_slice::<serde_json::Value>(&p).ok());
        let Some(value) = opened else {
            unauthentic.push(id);
            continue;
        };
        let schema = value.get("schema").and_then(|s| s.as_u64()).unwrap_or(0) as u32;
        if schema > SCHEMA {
            return Err(SyncError::NewerSchema(schema));
        }
        match serde_json::from_value::<Record>(value) {
            Ok(r) if r.id.key() == id => records.push(r),
            _ => unauthentic.push(id),
        }
    }
    Ok((records, unauthentic))
}

/// Brings the local memory to the space's records (seal pending records first, with
/// [`flush`]): applies the new ones on top when they
/// all come after what this device applied, else rebuilds the memory from the newest
/// checkpoint in the one order every device uses. Every device that has the same records
/// ends with the same memory (the same [`head_digest`]).
pub async fn merge<S: Store>(
    device: &mut Device,
    replica: &Replica,
    key: &Key,
    store: &S,
) -> Result<Merged, SyncError> {
    let merged = merge_records(device, replica, key, store).await?;
    device.mark = Some(mark_of(store).await?);
    Ok(merged)
}

async fn merge_records<S: Store>(
    device: &mut Device,
    replica: &Replica,
    key: &Key,
    store: &S,
) -> Result<Merged, SyncError> {
    let (records, unauthentic) = open_records(replica, key)?;
    let mut merged = Merged { unauthentic, ..Merged::default() };
    for r in &records {
        device.names.insert(r.id.device.clone(), r.device_name.clone());
    }
    device.lamport = records.iter().map(|r| r.lamport).max().unwrap_or(0).max(device.lamport);
    let order = record::order(&records);
    for passed in record::passed_over(&records) {
        merged.notes.push(format!("a checkpoint from {} was passed over for a newer one", passed.device_name));
    }
    let ids: Vec<&RecordId> = order.iter().map(|r| &r.id).collect();
    let in_order = device.applied.len() <= ids.len() && device.applied.iter().zip(&ids).all(|(a, b)| a == *b);
    if in_order {
        let new = &order[device.applied.len()..];
        if new.len() <= BATCH_IN_PLACE {
            for r in new {
                let performed = perform(store, &Replaying::new(&r.calls), r, !planned_on(r, &device.chain)).await?;
                note(&mut merged, performed.applied);
                merged.applied += 1;
                device.applied(&r.id);
            }
            return Ok(merged);
        }
        // Many records (a device joining, or back after long): replayed in memory on top of
        // this memory, then written in one replace, not one store commit each.
        let head = store.meta().await?.head;
        let scratch = MemStore::from_document(store.document().await?)?;
        let mut chain = device.chain.clone();
        for r in new {
            let performed = perform(&scratch, &Replaying::new(&r.calls), r, !planned_on(r, &chain)).await?;
            note(&mut merged, performed.applied);
            merged.applied += 1;
            chain = record::chain(&chain, &r.id);
        }
        store.replace_all(Store::document(&scratch).await?, head).await?;
        for r in new {
            device.applied(&r.id);
        }
        return Ok(merged);
    }
    let rebuilt = MemStore::new();
    let mine: std::collections::HashSet<RecordId> = device.applied.iter().cloned().collect();
    let mut chain = String::new();
    for r in &order {
        let performed = perform(&rebuilt, &Replaying::new(&r.calls), r, !planned_on(r, &chain)).await?;
        note(&mut merged, performed.applied);
        if !mine.contains(&r.id) {
            merged.applied += 1;
        }
        chain = record::chain(&chain, &r.id);
    }
    let head = store.meta().await?.head;
    store.replace_all(Store::document(&rebuilt).await?, head).await?;
    device.applied = order.iter().map(|r| r.id.clone()).collect();
    device.chain = chain;
    merged.rebuilt = true;
    Ok(merged)
}

/// Whether `r` was planned on exactly the records behind `chain` (a checkpoint carries
/// its own memory, so it always is).
fn planned_on(r: &Record, chain: &str) -> bool {
    matches!(r.op, Op::Checkpoint { .. }) || r.base == chain
}

fn note(merged: &mut Merged, applied: Applied) {
    match applied {
        Applied::AsMade => {}
        Applied::Replayed(s) => merged.notes.push(s),
        Applied::Refused(s) => merged.notes.push(format!("refused: {s}")),
    }
}

/// How long a Sleep lease lasts: a Sleep that outlives it (or a device that vanished
/// holding it) does not block the others for longer.
pub const LEASE_SECONDS: i64 = 15 * 60;

/// The lease another device holds at `now`, if any (this device's own, or an expired one,
/// blocks nothing).
pub fn lease_held_by_other(replica: &Replica, device: &Device, now: i64) -> Option<crate::replica::Lease> {
    replica.lease().filter(|l| l.device != device.id && l.until > now)
}

/// Takes the Sleep lease for this device until `now + LEASE_SECONDS`, unless another device
/// holds it; returns that device's lease when it does. Send the replica to the server
/// before sleeping so the others see it.
pub fn take_lease(replica: &Replica, device: &Device, now: i64) -> Result<(), crate::replica::Lease> {
    if let Some(other) = lease_held_by_other(replica, device, now) {
        return Err(other);
    }
    replica.set_lease(&crate::replica::Lease { device: device.id.clone(), until: now + LEASE_SECONDS });
    Ok(())
}

/// Why a Sleep is refused while `held` is another device's lease, in words.
pub fn lease_refusal(device: &Device, held: &crate::replica::Lease) -> String {
    format!(
        "{} holds this memory's Sleep lease (only one device sleeps at a time); nothing was written, sleep after that",
        lease_text(device, held)
    )
}

/// Gives the lease back after a Sleep (only this device's own).
pub fn release_lease(replica: &Replica, device: &Device, now: i64) {
    if replica.lease().is_some_and(|l| l.device == device.id && l.until > now) {
        replica.set_lease(&crate::replica::Lease { device: device.id.clone(), until: now });
    }
}

/// Who holds `lease` and until when, in words: `phone (3adf9504) until 2026-12-02 14:05 UTC`.
pub fn lease_text(device: &Device, lease: &crate::replica::Lease) -> String {
    let name = device.names.get(&lease.device).cloned().unwrap_or_else(|| "another device".into());
    let day = nocturne_core::text::when::Day::from_unix(lease.until);
    let secs = lease.until.rem_euclid(86_400);
    format!("{name} ({}) until {day} {:02}:{:02} UTC", lease.device, secs / 3600, secs % 3600 / 60)
}

/// The memory's head digest: SHA-256 of its whole export document. Two devices with the
/// same records show the same digest.
pub async fn head_digest<S: Store>(store: &S) -> Result<String, SyncError> {
    Ok(digest_hex(store.document().await?.to_json().as_bytes()))
}

/// Erases `item_id`'s words from the local memory (`flow::edit::erase`), then compacts the
/// space with a checkpoint so no record the server holds keeps them. Merge first: the
/// checkpoint covers what this device has applied.
pub async fn erase<S: Store>(
    device: &mut Device,
    store: &S,
    item_id: &str,
    at: i64,
) -> Result<nocturne_core::store::erase::Erased, SyncError> {
    let erased = nocturne_core::flow::edit::erase(store, item_id, at).await.map_err(|e| match e {
        nocturne_core::flow::edit::EditError::Store(s) => SyncError::Store(s),
        other => SyncError::Refused(other.to_string()),
    })?;
    checkpoint(device, store, at, "erase").await?;
    Ok(erased)
}
