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

pub use crate::store::rows::{item_problem, turn_problem, MAX_FACT_CHARS, MAX_TURN_CHARS};

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
    pub fn parse(text: &str) -> Result<Document, DocumentError> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(DocumentError::NotJson)?;
        let foreign = |why: String| Err(DocumentError::Foreign(why));
        match value.get("format").and_then(|f| f.as_str()) {
            Some(FORMAT) => {}
            Some(other) => return foreign(format!("this is a '{other}' file, not a Nocturne memory export")),
            None => return foreign("this JSON file is not a Nocturne memory export (no \"format\" field)".into()),
        }
        match value.get("schemaVersion").and_then(|v| v.as_u64()) {
            Some(v) if v == u64::from(SCHEMA_VERSION) => {}
            Some(v) => {
                return foreign(format!(
                    "this export has schema version {v}; this build reads version {SCHEMA_VERSION}"
                ))
            }
            None => return foreign("this export has no schemaVersion".into()),
        }
        // Read again from the text (the checks above need the loose `Value`): reading the
        // document from the `Value` would build serde_json's `Value` deserialiser into the
        // page's bundle for this one call.
        drop(value);
        let doc: Document = serde_json::from_str(text).map_err(DocumentError::Damaged)?;
        doc.check()?;
        Ok(doc)
    }

    /// Pretty, stable JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// Internal consistency: every counter is ahead of the rows it numbers, and every
    /// version, change, mutation and link refers to something that exists — so loading it
    /// can never make a new id collide with an old one. The message names the field.
    pub fn check(&self) -> Result<(), DocumentError> {
        self.check_versions()?;
        self.check_items()?;
        self.check_mutations()?;
        self.check_transcript()?;
        self.meta.policy.validate().map_err(|e| DocumentError::Invalid(format!("meta.policy: {e}")))
    }

    fn check_versions(&self) -> Result<(), DocumentError> {
        let seqs: BTreeSet<u64> = self.versions.iter().map(|v| v.seq).collect();
        if seqs.len() != self.versions.len() {
            return Err(DocumentError::Invalid("versions: two versions share a sequence number".into()));
        }
        if let Some(v) = self.versions.iter().find(|v| v.seq == 0) {
            return Err(DocumentError::Invalid(format!(
                "versions: '{}' has sequence number 0; versions start at 1",
                v.label
            )));
        }
        let max = seqs.iter().next_back().copied().unwrap_or(0);
        if max != self.meta.head {
            return Err(DocumentError::Invalid(format!(
                "meta.head is v{}, but the newest version is v{max}",
                self.meta.head
            )));
        }
        if let Some(c) = self.changes.iter().find(|c| !seqs.contains(&c.seq)) {
            return Err(DocumentError::Invalid(format!(
                "changes: a change to {} points at version v{}, which is missing",
                c.item.item_id, c.seq
            )));
        }
        Ok(())
    }

    fn check_items(&self) -> Result<(), DocumentError> {
        let mut ids = HashSet::new();
        for item in &self.items {
            if !ids.insert(item.item_id.as_str()) {
                return Err(DocumentError::Invalid(format!("items: {} appears twice", item.item_id)));
            }
            if let Some(problem) = item_problem(item) {
                return Err(DocumentError::Invalid(format!("items: {problem}")));
            }
        }
        // Links may point forward (a newer fact supersedes an older one): checked once every
        // id is known.
        if let Some((item, by)) = self
            .items
            .iter()
            .filter_map(|i| i.superseded_by.as_deref().map(|by| (i, by)))
            .find(|(_, by)| !ids.contains(by))
        {
            return Err(DocumentError::Invalid(format!(
                "items: {} is superseded by {by}, which does not exist",
                item.item_id
            )));
        }
        let mut latest: std::collections::HashMap<&str, (u64, &Item)> = std::collections::HashMap::new();
        for c in &self.changes {
            if !ids.contains(c.item.item_id.as_str()) {
                return Err(DocumentError::Invalid(format!(
                    "changes: version v{} changes {}, which is not among the items",
                    c.seq, c.item.item_id
                )));
            }
            let e = latest.entry(c.item.item_id.as_str()).or_insert((c.seq, &c.item));
            if c.seq >= e.0 {
                *e = (c.seq, &c.item);
            }
        }
        for item in &self.items {
            match latest.get(item.item_id.as_str()) {
                None => {
                    return Err(DocumentError::Invalid(format!(
                        "items: {} has no history in any version",
                        item.item_id
                    )))
                }
                Some((seq, row)) if *row != item => {
                    return Err(DocumentError::Invalid(format!(
                        "items: {} differs from its row in v{seq}, its latest version",
                        item.item_id
                    )))
                }
                Some(_) => {}
            }
        }
        // A memory whose turns stored no fact yet has no ordinal to guard.
        let max_ordinal = self.items.iter().map(Item::ordinal).filter(|o| *o != u64::MAX).max();
        if let Some(max_ordinal) = max_ordinal.filter(|m| self.meta.next_item <= *m) {
            return Err(DocumentError::Invalid(format!(
                "meta.nextItem is {}, but item m_{max_ordinal} exists: new facts would overwrite it",
                self.meta.next_item
            )));
        }
        let active = self.items.iter().filter(|i| i.active).count();
        if active != self.meta.active_count {
            return Err(DocumentError::Invalid(format!(
                "meta.activeCount is {}, but {active} items are active",
                self.meta.active_count
            )));
        }
        Ok(())
    }

    fn check_mutations(&self) -> Result<(), DocumentError> {
        let ids: HashSet<&str> = self.items.iter().map(|i| i.item_id.as_str()).collect();
        let mut seen = HashSet::new();
        for m in &self.mutations {
            if !seen.insert(m.id) {
                return Err(DocumentError::Invalid(format!("mutations: id {} appears twice", m.id)));
            }
            if m.id > self.meta.next_mutation {
                return Err(DocumentError::Invalid(format!(
                    "meta.nextMutation is {}, but mutation {} exists: new mutations would reuse its id",
                    self.meta.next_mutation, m.id
                )));
            }
            if m.seq > self.meta.head {
                return Err(DocumentError::Invalid(format!(
                    "mutations: {} belongs to v{}, after the head v{}",
                    m.id, m.seq, self.meta.head
                )));
            }
            if !m.accepted {
                continue;
            }
            let links = std::iter::once(m.item_id.as_str())
                .chain(m.refs.duplicate_of.as_deref())
                .chain(m.refs.superseded_by.as_deref())
                .chain(m.refs.from_ids.iter().map(String::as_str));
            if let Some(missing) = links.filter(|id| !id.is_empty()).find(|id| !ids.contains(id)) {
                return Err(DocumentError::Invalid(format!(
                    "mutations: {} ({}) refers to {missing}, which does not exist",
                    m.id, m.pass
                )));
            }
        }
        Ok(())
    }

    fn check_transcript(&self) -> Result<(), DocumentError> {
        for (n, t) in self.transcript.iter().enumerate() {
            if t.index as usize != n {
                return Err(DocumentError::Invalid(format!("transcript: turn {n} says it is turn {}", t.index)));
            }
            if let Some(problem) = turn_problem(t) {
                return Err(DocumentError::Invalid(format!("transcript: {problem}")));
            }
        }
        if self.meta.encoded_through as usize > self.transcript.len() {
            return Err(DocumentError::Invalid(format!(
                "meta.encodedThrough is {}, but the transcript has {} turns",
                self.meta.encoded_through,
                self.transcript.len()
            )));
        }
        Ok(())
    }

    /// The document as rows to load into an empty store.
    pub fn into_rows(self) -> Result<Rows, StoreError> {
        self.check().map_err(|e| StoreError::Invalid(e.to_string()))?;
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

/// A memory document that cannot be read: not JSON or damaged (the parser's error as its
/// source), another kind of file, or inconsistent (the part at fault and its value).
#[derive(Debug)]
pub enum DocumentError {
    NotJson(serde_json::Error),
    Damaged(serde_json::Error),
    Foreign(String),
    Invalid(String),
}

impl std::fmt::Display for DocumentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DocumentError::NotJson(e) => write!(f, "this file is not JSON ({e})"),
            DocumentError::Damaged(e) => write!(f, "this export is damaged: {e}"),
            DocumentError::Foreign(why) | DocumentError::Invalid(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for DocumentError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DocumentError::NotJson(e) | DocumentError::Damaged(e) => Some(e),
            DocumentError::Foreign(_) | DocumentError::Invalid(_) => None,
        }
    }
}

/// The words, where a check's caller reports them.
impl From<DocumentError> for String {
    fn from(e: DocumentError) -> String {
        e.to_string()
    }
}
