//! The user's own edits: correct a fact's text, pin or unpin it, forget it now, erase it.
//! Each but erase is a
//! mutation with proposer `user` (stage `user`) in a version of its own, so it shows in
//! the log and the diff and a restore undoes it; a Sleep never undoes it (the gates refuse
//! to forget, drop, merge away or supersede a pinned fact). No gate judges the user's
//! word — the re-audit checks that each edit's version shows exactly what it says.

use crate::model::memory::{Item, Mutation, Proposer, Refs};
use crate::model::pass::{MutationKind, Stage};
use crate::store::{Commit, Store, StoreError};

/// What the user asked for.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum UserEdit {
    /// Replace the text: the old fact is closed (superseded by the new one), its text stays
    /// in history.
    Correct {
        item_id: String,
        text: String,
    },
    Pin {
        item_id: String,
    },
    Unpin {
        item_id: String,
    },
    /// Retire now (soft; a restore brings it back), with an optional reason.
    Forget {
        item_id: String,
        reason: String,
    },
}

impl UserEdit {
    /// The fact the edit is about.
    pub fn item_id(&self) -> &str {
        match self {
            UserEdit::Correct { item_id, .. }
            | UserEdit::Pin { item_id }
            | UserEdit::Unpin { item_id }
            | UserEdit::Forget { item_id, .. } => item_id,
        }
    }

    fn kind(&self) -> MutationKind {
        match self {
            UserEdit::Correct { .. } => MutationKind::Correct,
            UserEdit::Pin { .. } => MutationKind::Pin,
            UserEdit::Unpin { .. } => MutationKind::Unpin,
            UserEdit::Forget { .. } => MutationKind::Forget,
        }
    }
}

/// Why an edit could not be made; nothing was written.
#[derive(Clone, Debug, PartialEq)]
pub enum EditError {
    Store(StoreError),
    /// No such fact, or it is no longer active; says which.
    NotEditable(String),
}

impl std::fmt::Display for EditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EditError::Store(e) => write!(f, "{e}"),
            EditError::NotEditable(why) => write!(f, "{why}; nothing was changed"),
        }
    }
}

impl std::error::Error for EditError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EditError::Store(e) => Some(e),
            EditError::NotEditable(_) => None,
        }
    }
}

impl EditError {
    fn is_conflict(&self) -> bool {
        matches!(self, EditError::Store(e) if e.is_conflict())
    }
}

impl From<StoreError> for EditError {
    fn from(e: StoreError) -> Self {
        EditError::Store(e)
    }
}

/// The rows and log entry an edit writes, planned against `items` (every row) with the
/// next free item number `next_item`.
pub fn plan(
    items: &[Item],
    edit: &UserEdit,
    next_item: u64,
    now: i64,
) -> Result<(Vec<Item>, Vec<Item>, Mutation), EditError> {
    let id = edit.item_id();
    let Some(old) = items.iter().find(|i| i.item_id == id) else {
        return Err(EditError::NotEditable(format!("there is no fact {id}")));
    };
    if !old.active {
        return Err(EditError::NotEditable(format!("{id} is not active (restore a version to bring it back)")));
    }
    let mut changed = old.clone();
    changed.updated_at = now;
    let mut created = Vec::new();
    let mut refs = Refs::default();
    let mut reason = String::new();
    match edit {
        UserEdit::Correct { text, .. } => {
            let text = text.trim();
            if text.is_empty() || text == old.text {
                return Err(EditError::NotEditable(format!("the correction of {id} is empty or unchanged")));
            }
            let new = Item {
                item_id: format!("m_{next_item}"),
                text: text.to_string(),
                source_turn: None,
                created_at: now,
                updated_at: now,
                active: true,
                valid_from: Some(now),
                valid_to: None,
                superseded_by: None,
                ..old.clone()
            };
            changed.active = false;
            changed.valid_to = Some(now);
            changed.superseded_by = Some(new.item_id.clone());
            refs.superseded_by = Some(new.item_id.clone());
            refs.previous_text = Some(old.text.clone());
            refs.merged_text = Some(new.text.clone());
            created.push(new);
        }
        UserEdit::Pin { .. } if old.pinned => return Err(EditError::NotEditable(format!("{id} is already pinned"))),
        UserEdit::Pin { .. } => changed.pinned = true,
        UserEdit::Unpin { .. } if !old.pinned => return Err(EditError::NotEditable(format!("{id} is not pinned"))),
        UserEdit::Unpin { .. } => changed.pinned = false,
        UserEdit::Forget { reason: why, .. } => {
            changed.active = false;
            changed.pinned = false;
            reason = why.trim().to_string();
        }
    }
    let mutation = Mutation {
        id: 0,
        seq: 0,
        pass: Stage::User,
        kind: edit.kind(),
        item_id: id.to_string(),
        refs,
        accepted: true,
        reason,
        rejection_reason: None,
        policy: None,
        proposer: Proposer::User,
        at: now,
    };
    Ok((vec![changed], created, mutation))
}

/// Makes `edit` as one version (`user:correct`, `user:pin` …), planned against the head it
/// read, so an edit never lands on a memory that moved meanwhile; when it did, the edit is
/// planned again on the new memory (and refused if its fact is no longer there to edit).
pub async fn apply<S: Store>(store: &S, edit: &UserEdit, now: i64) -> Result<crate::model::memory::Version, EditError> {
    crate::store::replanning(EditError::is_conflict, async || apply_once(store, edit, now).await).await
}

async fn apply_once<S: Store>(
    store: &S,
    edit: &UserEdit,
    now: i64,
) -> Result<crate::model::memory::Version, EditError> {
    let meta = store.meta().await?;
    let items = store.items().await?;
    let (changed, created, mutation) = plan(&items, edit, meta.next_item, now)?;
    let label = crate::model::label::Label::User(edit.kind().as_str().to_string()).to_string();
    let mut written = store
        .commit(Commit {
            at: now,
            label: Some(label),
            items: changed,
            created,
            mutations: vec![mutation],
            base: Some(meta.head),
            ..Default::default()
        })
        .await?;
    written.pop().ok_or_else(|| EditError::Store(StoreError::Invalid("the edit wrote no version".into())))
}

/// Erases `item_id`'s words from every row of the memory, in every version, leaving a
/// tombstone (`store::erase`). Planned against the head it read; written in one atomic
/// replace (planned again if another writer moved the memory first). Unlike the other
/// edits a restore cannot undo it — that is the point.
pub async fn erase<S: Store>(store: &S, item_id: &str, now: i64) -> Result<crate::store::erase::Erased, EditError> {
    crate::store::replanning(EditError::is_conflict, async || erase_once(store, item_id, now).await).await
}

async fn erase_once<S: Store>(store: &S, item_id: &str, now: i64) -> Result<crate::store::erase::Erased, EditError> {
    let doc = store.document().await?;
    let base = doc.meta.head;
    let (erased_doc, erased) =
        crate::store::erase::erase(&doc, item_id, now).map_err(|e| EditError::NotEditable(e.to_string()))?;
    store.replace_all(erased_doc, base).await?;
    Ok(erased)
}

/// The user's retention policy, validated and logged: a `policy` entry by `user` that says
/// what changed and keeps both policies, so the audit judges every forgetting under the
/// policy in force when it happened. Returns the entry's wording (`forget by age: off →
/// 30 days`); a policy that changes nothing writes nothing.
pub async fn set_policy<S: Store>(
    store: &S,
    policy: crate::model::policy::RetentionPolicy,
    now: i64,
) -> Result<Option<String>, EditError> {
    policy.validate().map_err(|why| EditError::NotEditable(format!("the retention policy is not usable: {why}")))?;
    let meta = store.meta().await?;
    let changes = describe(&meta.policy, &policy);
    if changes.is_empty() {
        return Ok(None);
    }
    let reason = format!("the user changed the retention policy: {}", changes.join("; "));
    let entry = Mutation {
        id: 0,
        seq: 0,
        pass: Stage::User,
        kind: MutationKind::Policy,
        item_id: String::new(),
        refs: Refs { proposal: Some(serde_json::json!({"from": meta.policy, "to": policy})), ..Default::default() },
        accepted: true,
        reason: reason.clone(),
        rejection_reason: None,
        policy: None,
        proposer: Proposer::User,
        at: now,
    };
    store.commit(Commit { at: now, mutations: vec![entry], base: Some(meta.head), ..Default::default() }).await?;
    store.set_policy(policy).await?;
    Ok(Some(reason))
}

/// What differs between two policies, a phrase each (`forget by age: off → 30 days`).
pub fn describe(
    old: &crate::model::policy::RetentionPolicy,
    new: &crate::model::policy::RetentionPolicy,
) -> Vec<String> {
    let days = |d: Option<f64>| d.map_or("off".to_string(), |d| format!("{d} days"));
    let count = |n: Option<usize>| n.map_or("no cap".to_string(), |n| format!("{n} facts"));
    let mut out = Vec::new();
    let mut note = |what: &str, a: String, b: String| {
        if a != b {
            out.push(format!("{what}: {a} → {b}"));
        }
    };
    note("forget by age", days(old.stale_after_days), days(new.stale_after_days));
    note("at most", count(old.max_active_facts), count(new.max_active_facts));
    note("passing states kept after their while", days(old.transient_grace_days), days(new.transient_grace_days));
    note("commitments kept after their date", days(old.commitment_grace_days), days(new.commitment_grace_days));
    note("similarity threshold", old.similarity_threshold.to_string(), new.similarity_threshold.to_string());
    note("protected categories", old.protected_categories.join(", "), new.protected_categories.join(", "));
    note("human block", format!("{:?}", old.human_tokens), format!("{:?}", new.human_tokens));
    note("persona block", format!("{:?}", old.persona_tokens), format!("{:?}", new.persona_tokens));
    note("merge at most", format!("{:?}", old.merge_max_words), format!("{:?}", new.merge_max_words));
    if old.single_valued_slots != new.single_valued_slots {
        out.push("one-value slots changed".into());
    }
    out
}
