//! The export / import document: the whole memory (items, versions, mutations, policy,
//! transcript) as one versioned JSON document. The command line's store file uses it too.

use crate::model::memory::{Item, Mutation, Turn, Version};
use crate::store::{Meta, Rows, StoreError};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashSet};

/// The `format` field every Nocturne document carries.
pub const FORMAT: &str = "nocturne-memory";
/// The document schema this build writes and reads.
pub const SCHEMA_VERSION: u32 = 1;

/// A change row: the state of one item as of one version.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub seq: u64,
    pub item: Item,
}

/// The whole memory as one JSON document. Never holds an API key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Document {
    pub format: String,
    pub schema_version: u32,
    pub meta: Meta,
    pub items: Vec<Item>,
    pub changes: Vec<Change>,
    pub versions: Vec<Version>,
    pub mutations: Vec<Mutation>,
    pub transcript: Vec<Turn>,
}

impl Document {
    pub fn new(
        meta: Meta,
        items: Vec<Item>,
        changes: Vec<(u64, Item)>,
        versions: Vec<Version>,
        mutations: Vec<Mutation>,
        transcript: Vec<Turn>,
    ) -> Self {
        Document {
            format: FORMAT.into(),
            schema_version: SCHEMA_VERSION,
            meta,
            items,
            changes: changes.into_iter().map(|(seq, item)| Change { seq, item }).collect(),
            versions,
            mutations,
            transcript,
        }
    }

    /// An empty memory under `policy`.
    pub fn empty() -> Self {
        Document::new(Meta::default(), vec![], vec![], vec![], vec![], vec![])
    }

    /// Parses and checks a document. A foreign or corrupt file is refused with a message
    /// that says what is wrong; nothing is loaded.
    pub fn parse(text: &str) -> Result<Document, String> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("this file is not JSON ({e})"))?;
        match value.get("format").and_then(|f| f.as_str()) {
            Some(FORMAT) => {}
            Some(other) => return Err(format!("this is a '{other}' file, not a Nocturne memory export")),
            None => return Err("this JSON file is not a Nocturne memory export (no \"format\" field)".into()),
        }
        match value.get("schemaVersion").and_then(|v| v.as_u64()) {
            Some(v) if v == u64::from(SCHEMA_VERSION) => {}
            Some(v) => {
                return Err(format!("this export has schema version {v}; this build reads version {SCHEMA_VERSION}"))
            }
            None => return Err("this export has no schemaVersion".into()),
        }
        let doc: Document = serde_json::from_value(value).map_err(|e| format!("this export is damaged: {e}"))?;
        doc.check()?;
        Ok(doc)
    }

    /// Pretty, stable JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// Internal consistency: every version and change refers to something that exists.
    pub fn check(&self) -> Result<(), String> {
        let seqs: BTreeSet<u64> = self.versions.iter().map(|v| v.seq).collect();
        if seqs.len() != self.versions.len() {
            return Err("two versions share a sequence number".into());
        }
        if let Some(max) = seqs.iter().next_back() {
            if *max != self.meta.head {
                return Err(format!("the newest version is v{max} but the head says v{}", self.meta.head));
            }
        }
        if let Some(c) = self.changes.iter().find(|c| !seqs.contains(&c.seq)) {
            return Err(format!("a change to {} points at version v{}, which is missing", c.item.item_id, c.seq));
        }
        let mut ids = HashSet::new();
        for item in &self.items {
            if !ids.insert(item.item_id.as_str()) {
                return Err(format!("item {} appears twice", item.item_id));
            }
        }
        let changed: HashSet<&str> = self.changes.iter().map(|c| c.item.item_id.as_str()).collect();
        if let Some(i) = self.items.iter().find(|i| !changed.contains(i.item_id.as_str())) {
            return Err(format!("item {} has no history in any version", i.item_id));
        }
        let active = self.items.iter().filter(|i| i.active).count();
        if active != self.meta.active_count {
            return Err(format!("{active} items are active but the head says {}", self.meta.active_count));
        }
        self.meta.policy.validate()?;
        Ok(())
    }

    /// The document as rows to load into an empty store.
    pub fn into_rows(self) -> Result<Rows, StoreError> {
        self.check().map_err(StoreError::Invalid)?;
        Ok(Rows {
            versions: self.versions,
            changes: self.changes.into_iter().map(|c| (c.seq, c.item)).collect(),
            live: self.items,
            mutations: self.mutations,
            turns: self.transcript,
            meta: self.meta,
        })
    }
}
