//! Gate case files (`cases/*.json`): public test vectors that drive any gate from outside,
//! with no model and no engine rules.

use crate::gate::{strip_role, Ground, Judge};
use crate::model::memory::{Block, Item, Role, Turn};
use crate::model::pass::{MutationKind, PassKind};
use crate::model::policy::RetentionPolicy;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// A case file as written on disk.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Case {
    pub name: String,
    pub now: i64,
    #[serde(default = "case_policy", deserialize_with = "case_policy_from")]
    pub policy: RetentionPolicy,
    #[serde(default)]
    pub transcript: Vec<String>,
    #[serde(default)]
    pub items: Vec<CaseItem>,
    pub pass: String,
    pub proposal: Value,
    #[serde(default)]
    pub expect: Vec<Expect>,
}

/// An item in a case file; optional fields take the defaults.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseItem {
    pub item_id: String,
    pub block: Block,
    pub text: String,
    #[serde(default = "context")]
    pub category: String,
    pub created_at: i64,
    #[serde(default = "yes")]
    pub active: bool,
    #[serde(default)]
    pub source_turn: Option<u32>,
    /// Who said it, for a conversation that names its speakers.
    #[serde(default)]
    pub speaker: Option<String>,
}

/// A case's policy fields it leaves out take the case format's defaults
/// (threshold 0.9, stale after 30 days, at most 120 active facts, the three protected
/// categories) — the rules the public case files were written against — not the product's
/// forget-by-value default; the newer options stay off unless a case sets them.
fn case_policy() -> RetentionPolicy {
    RetentionPolicy {
        stale_after_days: Some(30.0),
        max_active_facts: Some(120),
        commitment_grace_days: None,
        transient_grace_days: None,
        persona_tokens: None,
        human_tokens: None,
        merge_max_words: None,
        ..Default::default()
    }
}

fn case_policy_from<'de, D: serde::Deserializer<'de>>(d: D) -> Result<RetentionPolicy, D::Error> {
    let mut given = Value::deserialize(d)?;
    let Some(fields) = given.as_object_mut() else {
        return Err(serde::de::Error::custom("policy must be an object"));
    };
    fields.entry("staleAfterDays").or_insert(Value::from(30.0));
    fields.entry("maxActiveFacts").or_insert(Value::from(120));
    serde_json::from_value(given).map_err(serde::de::Error::custom)
}

fn context() -> String {
    "context".into()
}
fn yes() -> bool {
    true
}

/// What a case expects of one proposed edit.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Expect {
    pub accepted: bool,
    #[serde(default)]
    pub reason_contains: String,
}

/// One verdict as `nocturne gate` prints it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseVerdict {
    pub kind: MutationKind,
    pub item_id: Option<String>,
    pub accepted: bool,
    /// The rejection reason when refused; what was verified when accepted.
    pub reason: String,
}

/// A judged case: its verdicts and any disagreement with `expect`.
#[derive(Clone, Debug, Serialize)]
pub struct CaseResult {
    pub name: String,
    pub verdicts: Vec<CaseVerdict>,
    #[serde(skip)]
    pub disagreements: Vec<String>,
}

/// Why a case file could not be judged.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseError(pub String);

impl std::fmt::Display for CaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CaseError {}

/// Parses a case file's text. The message names the problem (the caller adds the file).
pub fn parse(text: &str) -> Result<Case, CaseError> {
    let case: Case = serde_json::from_str(text).map_err(|e| CaseError(format!("not a gate case: {e}")))?;
    if PassKind::parse(&case.pass).is_none() {
        return Err(CaseError(format!(
            "unknown pass '{}' (expected encode, dedupe, merge, promote, forget or supersede)",
            case.pass
        )));
    }
    case.policy.validate().map_err(|e| CaseError(format!("bad policy: {e}")))?;
    Ok(case)
}

impl Case {
    /// The proposals of this case, in order. A proposal whose list is missing or not an
    /// array is malformed.
    pub fn proposals(&self) -> Result<&[Value], CaseError> {
        let pass = PassKind::parse(&self.pass).ok_or_else(|| CaseError(format!("unknown pass '{}'", self.pass)))?;
        let key = pass.proposal_key();
        match self.proposal.get(key) {
            Some(Value::Array(list)) => Ok(list),
            Some(_) => Err(CaseError(format!("proposal.{key} must be an array"))),
            None => Err(CaseError(format!("proposal has no '{key}' list for pass {}", self.pass))),
        }
    }

    /// The transcript as turns, indexed by position (`user:` / `assistant:` prefixes give
    /// the role), so an item's `sourceTurn` finds its line.
    pub fn turns(&self) -> Vec<Turn> {
        self.transcript
            .iter()
            .enumerate()
            .map(|(i, line)| Turn {
                index: i as u32,
                role: if line.starts_with("assistant:") { Role::Assistant } else { Role::User },
                text: strip_role(line).to_string(),
                at: self.now,
                speaker: None,
                memory: None,
                source: None,
                provenance: None,
            })
            .collect()
    }

    /// Judges every proposal in order and compares with `expect`.
    pub fn judge(&self) -> Result<CaseResult, CaseError> {
        let pass = PassKind::parse(&self.pass).ok_or_else(|| CaseError(format!("unknown pass '{}'", self.pass)))?;
        let proposals = self.proposals()?;
        let items: BTreeMap<String, Item> = self
            .items
            .iter()
            .map(|c| {
                (
                    c.item_id.clone(),
                    Item {
                        item_id: c.item_id.clone(),
                        block: c.block,
                        text: c.text.clone(),
                        category: c.category.as_str().into(),
                        source_turn: c.source_turn,
                        created_at: c.created_at,
                        updated_at: c.created_at,
                        active: c.active,
                        valid_from: None,
                        valid_to: None,
                        superseded_by: None,
                        pinned: false,
                        speaker: c.speaker.clone(),
                        sources: Vec::new(),
                    },
                )
            })
            .collect();
        let turns = self.turns();
        let ground =
            Ground { items: &items, policy: &self.policy, now: self.now, transcript: &self.transcript, turns: &turns };
        let mut judge = Judge::new(pass, ground);
        let verdicts: Vec<CaseVerdict> = proposals
            .iter()
            .map(|p| {
                let verdict = judge.judge(p);
                CaseVerdict {
                    kind: pass.mutation_kind(),
                    item_id: p.get(pass.item_field()).and_then(Value::as_str).map(String::from),
                    accepted: verdict.is_accepted(),
                    reason: verdict.reason(),
                }
            })
            .collect();
        let mut disagreements = Vec::new();
        if self.expect.len() != verdicts.len() {
            disagreements.push(format!("expected {} verdicts, got {}", self.expect.len(), verdicts.len()));
        }
        for (i, (want, got)) in self.expect.iter().zip(&verdicts).enumerate() {
            if want.accepted != got.accepted {
                disagreements.push(format!(
                    "edit {i}: expected {}, got {} ({})",
                    if want.accepted { "accepted" } else { "refused" },
                    if got.accepted { "accepted" } else { "refused" },
                    got.reason
                ));
            } else if !got.reason.to_lowercase().contains(&want.reason_contains.to_lowercase()) {
                disagreements
                    .push(format!("edit {i}: reason '{}' does not contain '{}'", got.reason, want.reason_contains));
            }
        }
        Ok(CaseResult { name: self.name.clone(), verdicts, disagreements })
    }
}

#[cfg(feature = "bundled-cases")]
include!(concat!(env!("OUT_DIR"), "/bundled_cases.rs"));

/// The bundled cases as owned (name, text) pairs, for the verifier.
#[cfg(feature = "bundled-cases")]
pub fn bundled() -> Vec<(String, String)> {
    BUNDLED.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect()
}
