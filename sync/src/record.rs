//! Records: what one device did to the memory, immutable once published, and the one
//! deterministic order every device replays them in.
//!
//! A record names the operation (a chat turn's words and reply, a user's edit by the
//! fact's words, a Sleep, a checkpoint of the whole memory) and the model's replies the
//! device received while doing it, so another device replays it through the same core
//! functions and gates with the same result — no model call, no trust in the sender's
//! rows.

use crate::SyncError;
use nocturne_core::flow::edit::UserEdit;
use nocturne_core::flow::focus::Scope;
use nocturne_core::history::Message;
use nocturne_core::model::memory::MemoryUse;
use nocturne_core::model::policy::RetentionPolicy;
use nocturne_core::store::document::Document;
use nocturne_core::store::Store;
use nocturne_core::text::order;
use nocturne_core::write::{Command, Kind};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::ops::Range;

/// The newest record schema this build reads. A record of a newer schema is refused with
/// a message asking to update, and nothing is applied after it. A record is written with
/// the oldest schema that holds its operation ([`Op::schema`]), so a build that cannot
/// perform an import's record refuses it by name instead of misreading it.
pub const SCHEMA: u32 = 4;

/// The schema a space's header is made with: its layout, unchanged since the first.
pub const SPACE_SCHEMA: u32 = 1;

/// A record's identity: the device that made it and its place in that device's sequence.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RecordId {
    pub device: String,
    pub seq: u64,
}

impl RecordId {
    /// The key under which the record is stored in the space (`r:<device>:<seq>`), bound
    /// into its encryption.
    pub fn key(&self) -> String {
        format!("r:{}:{:010}", self.device, self.seq)
    }
}

impl std::fmt::Display for RecordId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}#{}", self.device, self.seq)
    }
}

/// One published record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub schema: u32,
    pub id: RecordId,
    /// The device's name as its user set it (shown in the log).
    pub device_name: String,
    /// The head it was planned on: the chain digest of every record its device had
    /// applied, in order ([`chain`]; empty for a first record on an empty memory). A record
    /// is performed as made only where the records before it are exactly these.
    pub base: String,
    /// One more than the largest lamport this device had seen: orders records after
    /// everything their device knew of.
    pub lamport: u64,
    /// When it was done (Unix seconds): versions and facts are stamped with it on every
    /// device.
    pub at: i64,
    pub op: Op,
    /// The model's replies, in the order the operation asked for them.
    #[serde(default)]
    pub calls: Vec<Call>,
}

/// What was done.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Op {
    /// A user's turn (with the assistant's reply, when there was one), encoded.
    Say {
        text: String,
        speaker: Option<String>,
        reply: Option<ReplyRow>,
        /// Who said it when not the user of the device (an MCP client), so every device
        /// keeps the same source for the facts it encodes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<nocturne_core::model::provenance::By>,
        /// When it was said, as claimed (checked on arrival); `None`: when recorded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        said_at: Option<i64>,
    },
    /// A user's edit of a fact, naming the fact by its words (ids differ between devices
    /// until they converge).
    Edit { edit: EditRow },
    /// A Sleep over the head the device had. Since schema 3 it carries its `plan`: the
    /// Sleep was planned whole, guarded, then applied from the plan
    /// (`flow::review::apply_sleep`), so a replay asks no model. Without one (an older
    /// record, or an import's Sleep after a day of history) it runs the passes again with
    /// the record's replies.
    Sleep {
        deep: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        plan: Option<Box<nocturne_core::flow::review::Review>>,
    },
    /// A reviewed Sleep's plan applied with the user's decisions (`flow::review`), over the
    /// head the device had: stale on another head, like a Sleep.
    Apply { plan: Box<nocturne_core::flow::review::Review>, decisions: nocturne_core::flow::review::Decisions },
    /// Part of an imported history (`flow::import`): its messages, oldest first, in
    /// batches (one commit and at most one encoder call each). It holds only the batches
    /// its device wrote: an import stopped partway records what it did. The Sleeps an
    /// import runs are records of their own.
    Import {
        messages: Vec<Message>,
        batches: Vec<Range<usize>>,
        /// The file the history came from (schema 4): every device keeps it as the source
        /// of the turns and facts (`By::Import`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        file: Option<String>,
    },
    /// The user's retention policy (`flow::edit::set_policy`: validated and logged).
    Policy { policy: RetentionPolicy },
    /// The memory as it was at version `seq`, as a new version (`Store::restore`), over
    /// the head the device had: stale on another head, like a Sleep.
    Restore { seq: u64 },
    /// The whole memory at a point (a device joining with a memory, or an erase, which
    /// must leave no earlier record holding the erased words): replay starts here, and
    /// the records it `covers` are removed from the space.
    Checkpoint { document: Box<Document>, covers: Vec<RecordId>, why: String },
}

impl Op {
    /// The oldest record schema that holds this operation.
    pub fn schema(&self) -> u32 {
        match self {
            Op::Import { file: Some(_), .. } => 4,
            Op::Sleep { plan: Some(_), .. } => 3,
            Op::Import { .. } | Op::Restore { .. } | Op::Policy { .. } => 2,
            _ => 1,
        }
    }

    /// The record of `command`, performed on `store` — the one place a command of the write
    /// path (`nocturne_core::write::Command`) becomes an operation of a record. `None` for
    /// the two that are not one record: an import (a record per day of history, and per
    /// Sleep after a day: `recorder`'s) and an erase (a checkpoint of the erased memory).
    /// Commands the journal resolves before recording (a reply, a Sleep not yet planned, an
    /// import's closing Sleep) are refused: they are recorded as what they resolve to.
    pub async fn of<S: Store>(command: &Command, store: &S) -> Result<Option<Op>, SyncError> {
        Ok(Some(match command {
            Command::Say(say) => Op::Say {
                text: say.text.trim().to_string(),
                speaker: say.speaker.clone(),
                reply: say.reply.as_ref().map(|r| ReplyRow {
                    text: r.text.clone(),
                    memory: r.memory.clone(),
                    refused: r.refused.clone(),
                }),
                by: say.origin.by.clone(),
                said_at: say.origin.said_at,
            },
            Command::Edit(edit) => {
                let id = edit.edit.item_id();
                let items = store.items().await?;
                let fact = items
                    .iter()
                    .find(|i| i.item_id == id && i.active)
                    .ok_or_else(|| SyncError::Refused(format!("there is no active fact {id}; nothing was changed")))?;
                Op::Edit { edit: EditRow::from_edit(&edit.edit, &fact.text) }
            }
            Command::Restore(restore) => Op::Restore { seq: restore.seq },
            Command::Policy(policy) => Op::Policy { policy: policy.policy.clone() },
            Command::Sleep(sleep) => match &sleep.planned {
                Some(plan) if !sleep.plan_only => {
                    Op::Sleep { deep: sleep.options.scope == Scope::Deep, plan: Some(plan.clone()) }
                }
                _ => return Err(unresolved(Kind::Sleep)),
            },
            Command::Apply(apply) => Op::Apply { plan: apply.plan.clone(), decisions: apply.decisions.clone() },
            Command::Import(_) | Command::Erase(_) => return Ok(None),
            Command::Reply(_) | Command::ImportSleep(_) => return Err(unresolved(command.kind())),
        }))
    }

    /// The command a record of this operation was made from (a checkpoint: none).
    pub fn kind(&self) -> Option<Kind> {
        match self {
            Op::Say { .. } => Some(Kind::Say),
            Op::Edit { .. } => Some(Kind::Edit),
            Op::Sleep { .. } => Some(Kind::Sleep),
            Op::Apply { .. } => Some(Kind::Apply),
            Op::Import { .. } => Some(Kind::Import),
            Op::Policy { .. } => Some(Kind::Policy),
            Op::Restore { .. } => Some(Kind::Restore),
            Op::Checkpoint { .. } => None,
        }
    }
}

fn unresolved(kind: Kind) -> SyncError {
    SyncError::Engine(format!(
        "a {kind:?} command is recorded as what the journal resolves it to, not as itself; nothing was recorded"
    ))
}

/// The reply stored with a user's turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplyRow {
    pub text: String,
    pub memory: MemoryUse,
    #[serde(default)]
    pub refused: Vec<(String, String)>,
}

/// A user's edit, the fact named by its words and its block.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "edit")]
pub enum EditRow {
    Correct { fact: String, text: String },
    Pin { fact: String },
    Unpin { fact: String },
    Forget { fact: String, reason: String },
}

impl EditRow {
    /// The words of the fact the edit is about.
    pub fn fact(&self) -> &str {
        match self {
            EditRow::Correct { fact, .. }
            | EditRow::Pin { fact }
            | EditRow::Unpin { fact }
            | EditRow::Forget { fact, .. } => fact,
        }
    }

    /// The edit as the core takes it, on the fact `item_id`.
    pub fn to_edit(&self, item_id: &str) -> UserEdit {
        let item_id = item_id.to_string();
        match self {
            EditRow::Correct { text, .. } => UserEdit::Correct { item_id, text: text.clone() },
            EditRow::Pin { .. } => UserEdit::Pin { item_id },
            EditRow::Unpin { .. } => UserEdit::Unpin { item_id },
            EditRow::Forget { reason, .. } => UserEdit::Forget { item_id, reason: reason.clone() },
        }
    }

    /// The row for `edit` made on the fact whose words are `fact`.
    pub fn from_edit(edit: &UserEdit, fact: &str) -> EditRow {
        let fact = fact.to_string();
        match edit {
            UserEdit::Correct { text, .. } => EditRow::Correct { fact, text: text.clone() },
            UserEdit::Pin { .. } => EditRow::Pin { fact },
            UserEdit::Unpin { .. } => EditRow::Unpin { fact },
            UserEdit::Forget { reason, .. } => EditRow::Forget { fact, reason: reason.clone() },
        }
    }
}

/// One model reply received while doing an operation, with the style it was asked in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Call {
    pub text: String,
    #[serde(default)]
    pub truncated: bool,
    /// `true` when the provider was asked to choose among candidates.
    #[serde(default)]
    pub choose: bool,
}

/// The one order every device applies records in: the newest checkpoint first (by
/// lamport, then device, then seq), then every record it does not cover by the same key.
/// Records a device made after seeing others sort after them (their lamport is larger);
/// records made concurrently on two devices are ordered by device id, then sequence.
pub fn order(records: &[Record]) -> Vec<&Record> {
    let checkpoint =
        records.iter().filter(|r| matches!(r.op, Op::Checkpoint { .. })).max_by(|a, b| key(a).cmp(&key(b)));
    let covered: std::collections::HashSet<&RecordId> = match checkpoint.map(|c| &c.op) {
        Some(Op::Checkpoint { covers, .. }) => covers.iter().collect(),
        _ => Default::default(),
    };
    let mut rest: Vec<&Record> = records
        .iter()
        .filter(|r| Some(*r) != checkpoint && !covered.contains(&r.id))
        .filter(|r| !matches!(r.op, Op::Checkpoint { .. }) || checkpoint.is_none())
        .collect();
    order::sort_by(&mut rest, |a, b| compare(a, b));
    checkpoint.into_iter().chain(rest).collect()
}

/// Checkpoints a newer checkpoint left out (two devices compacted concurrently): not
/// replayed, reported.
pub fn passed_over(records: &[Record]) -> Vec<&Record> {
    let chosen: std::collections::HashSet<&RecordId> = order(records).into_iter().map(|r| &r.id).collect();
    records.iter().filter(|r| matches!(r.op, Op::Checkpoint { .. }) && !chosen.contains(&r.id)).collect()
}

/// The chain digest after `id` on top of `base`: SHA-256 of the previous digest and the id.
pub fn chain(base: &str, id: &RecordId) -> String {
    crate::crypto::digest_hex(format!("{base}|{}", id.key()).as_bytes())
}

fn key(r: &Record) -> (u64, &str, u64) {
    (r.lamport, r.id.device.as_str(), r.id.seq)
}

fn compare(a: &Record, b: &Record) -> Ordering {
    key(a).cmp(&key(b))
}
