//! The retention policy a Sleep runs under: the stored one, a dry run's what-if one, or —
//! for a memory still on the old default (30 days, 120 facts) — forget by value, the move
//! written first as a logged `policy` entry with a note.

use crate::model::memory::{Mutation, Proposer};
use crate::model::pass::PassKind;
use crate::model::policy::RetentionPolicy;
use crate::store::{Commit, Store, StoreError};

/// The policy a Sleep runs under: the what-if one a dry run was given, else the store's —
/// moved to forget by value when it is still on the old default, with the note saying so.
pub fn in_force(stored: &RetentionPolicy, what_if: Option<&RetentionPolicy>) -> (RetentionPolicy, Option<String>) {
    match (what_if, stored.migrated()) {
        (Some(what_if), _) => (what_if.clone(), None),
        (None, Some((new, note))) => (new, Some(note)),
        (None, None) => (stored.clone(), None),
    }
}

/// The policy a Sleep runs under ([`in_force`]), the move off the old default written
/// first unless this is a dry run; a what-if policy outside a dry run is refused.
pub(crate) async fn policy_for<S: Store>(
    store: &S,
    meta: &crate::store::Meta,
    what_if: Option<&RetentionPolicy>,
    dry_run: bool,
    now: i64,
) -> Result<(RetentionPolicy, Option<String>), StoreError> {
    if what_if.is_some() && !dry_run {
        return Err(StoreError::Invalid("a what-if policy is only allowed in a dry run".into()));
    }
    let (policy, note) = in_force(&meta.policy, what_if);
    if let Some(note) = note.as_deref().filter(|_| what_if.is_none() && !dry_run) {
        move_policy(store, &meta.policy, &policy, note, meta.head, now).await?;
    }
    Ok((policy, note))
}

/// Moves a store off the old default policy: the new policy stored, and a `policy` entry in
/// the log (by the policy engine) with the note and both policies, so the audit judges
/// each forgetting under the policy in force when it happened.
async fn move_policy<S: Store>(
    store: &S,
    old: &RetentionPolicy,
    new: &RetentionPolicy,
    note: &str,
    head: u64,
    now: i64,
) -> Result<(), StoreError> {
    let entry = Mutation {
        id: 0,
        seq: 0,
        pass: PassKind::Forget.into(),
        kind: crate::model::pass::MutationKind::Policy,
        item_id: String::new(),
        refs: crate::model::memory::Refs {
            proposal: Some(serde_json::json!({"from": old, "to": new})),
            ..Default::default()
        },
        accepted: true,
        reason: note.to_string(),
        rejection_reason: None,
        policy: Some("forget-by-value".into()),
        proposer: Proposer::PolicyEngine,
        at: now,
    };
    store.commit(Commit { at: now, mutations: vec![entry], base: Some(head), ..Default::default() }).await?;
    store.set_policy(new.clone()).await
}
