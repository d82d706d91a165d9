//! Yjs behind one small type: a [`Replica`] of the space's Yjs document
//! (`yrs`), holding the space's header and every record as sealed bytes under its id.
//!
//! Nothing else in the workspace names `yrs`: swapping Yjs for another library means rewriting this
//! file and `session.rs` (the wire protocol) only. The document holds two maps:
//! `space` (the salt, the KDF's parameters and the key check, in clear) and `records`
//! (record id → sealed record). A record removed from the map (an erase compacts the
//! records it covers) leaves no content behind: Yjs garbage-collects deleted content, so
//! neither this replica's saved state nor the server's stored document keeps its bytes.

use crate::crypto::KdfParams;
use nocturne_core::text::order;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use yrs::updates::decoder::Decode;
use yrs::updates::encoder::Encode;
use yrs::{Any, Doc, Map, MapRef, Options, Out, ReadTxn, StateVector, Transact, Update};

/// The clear header every device reads before it can open a record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    pub salt: Vec<u8>,
    pub kdf: KdfParams,
    /// The key check (`Key::check`): a wrong passphrase fails to open it.
    pub check: Vec<u8>,
    /// The record schema the space was made with.
    pub schema: u32,
}

/// Which device may run a Sleep until when (in clear: a random device id and a time, which
/// the server sees as timing anyway).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lease {
    pub device: String,
    /// Unix seconds.
    pub until: i64,
}

/// One replica of the space's document.
pub struct Replica {
    doc: Doc,
    space: MapRef,
    records: MapRef,
}

impl std::fmt::Debug for Replica {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Replica({} records)", self.len())
    }
}

/// Yjs could not read what it was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaError(pub String);

impl std::fmt::Display for ReplicaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the sync document could not be read ({})", self.0)
    }
}

impl Replica {
    /// An empty replica whose edits carry `client_id` (random per device; two devices must
    /// not share one).
    pub fn new(client_id: u64) -> Replica {
        // Yjs client ids are 32-bit, and the encoding keeps only those bits: a larger id
        // would come back from a saved state as another client, and this replica's next
        // edits would reuse clocks its earlier ones hold (regression test in `converge.rs`).
        let doc = Doc::with_options(Options { client_id: client_id & 0xFFFF_FFFF, ..Options::default() });
        let space = doc.get_or_insert_map("space");
        let records = doc.get_or_insert_map("records");
        Replica { doc, space, records }
    }

    /// A replica from its saved state ([`Replica::state`]).
    pub fn load(client_id: u64, state: &[u8]) -> Result<Replica, ReplicaError> {
        let replica = Replica::new(client_id);
        replica.apply(state)?;
        Ok(replica)
    }

    /// The whole document as one update (what a device saves locally).
    pub fn state(&self) -> Vec<u8> {
        self.doc.transact().encode_state_as_update_v1(&StateVector::default())
    }

    /// Applies an update received from the server (or a saved state).
    pub fn apply(&self, update: &[u8]) -> Result<(), ReplicaError> {
        let update = Update::decode_v1(update).map_err(|e| ReplicaError(e.to_string()))?;
        self.doc.transact_mut().apply_update(update);
        Ok(())
    }

    /// This replica's state vector (what it has), encoded.
    pub fn state_vector(&self) -> Vec<u8> {
        self.doc.transact().state_vector().encode_v1()
    }

    /// What a peer whose state vector is `sv` lacks.
    pub fn diff(&self, sv: &[u8]) -> Result<Vec<u8>, ReplicaError> {
        let sv = StateVector::decode_v1(sv).map_err(|e| ReplicaError(e.to_string()))?;
        Ok(self.doc.transact().encode_state_as_update_v1(&sv))
    }

    /// The space's header, once some device has written it.
    pub fn header(&self) -> Option<Header> {
        let txn = self.doc.transact();
        match self.space.get(&txn, "header") {
            Some(Out::Any(Any::String(s))) => serde_json::from_str(&s).ok(),
            _ => None,
        }
    }

    /// Writes the header of a new space.
    pub fn set_header(&self, header: &Header) {
        let json = serde_json::to_string(header).unwrap_or_default();
        let mut txn = self.doc.transact_mut();
        self.space.insert(&mut txn, "header", Any::String(json.into()));
    }

    /// The Sleep lease, as last written by any device.
    pub fn lease(&self) -> Option<Lease> {
        let txn = self.doc.transact();
        match self.space.get(&txn, "lease") {
            Some(Out::Any(Any::String(s))) => serde_json::from_str(&s).ok(),
            _ => None,
        }
    }

    /// Writes the Sleep lease (the last writer wins, as Yjs orders concurrent writes).
    pub fn set_lease(&self, lease: &Lease) {
        let json = serde_json::to_string(lease).unwrap_or_default();
        let mut txn = self.doc.transact_mut();
        self.space.insert(&mut txn, "lease", Any::String(json.into()));
    }

    /// Publishes a sealed record under `id` (ids are never reused).
    pub fn put(&self, id: &str, sealed: Vec<u8>) {
        let mut txn = self.doc.transact_mut();
        self.records.insert(&mut txn, id, Any::Buffer(Arc::from(sealed)));
    }

    /// Removes the records `ids` (their content is garbage-collected).
    pub fn remove(&self, ids: &[String]) {
        let mut txn = self.doc.transact_mut();
        for id in ids {
            self.records.remove(&mut txn, id);
        }
    }

    /// Every record as (id, sealed bytes), in id order. A value that is not bytes (written
    /// by something else) comes back empty, so it fails to open and is refused.
    pub fn records(&self) -> Vec<(String, Vec<u8>)> {
        let txn = self.doc.transact();
        let mut out: Vec<(String, Vec<u8>)> = self
            .records
            .iter(&txn)
            .map(|(k, v)| {
                let bytes = match v {
                    Out::Any(Any::Buffer(b)) => b.to_vec(),
                    _ => Vec::new(),
                };
                (k.to_string(), bytes)
            })
            .collect();
        order::sort(&mut out);
        out
    }

    /// How many records the replica holds.
    pub fn len(&self) -> usize {
        self.records.len(&self.doc.transact()) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
