//! Gates: pure functions from (pre-pass state, what earlier edits of the same pass
//! consumed, policy, one proposed edit) to a [`Verdict`]. A refusal is data — a specific,
//! true sentence naming the id, token, name, category, age or threshold at fault.
//!
//! ```
//! use nocturne_core::gate::{Ground, Judge};
//! use nocturne_core::PassKind;
//! use nocturne_core::RetentionPolicy;
//! use std::collections::BTreeMap;
//! let items = BTreeMap::new();
//! let policy = RetentionPolicy::default();
//! let ground = Ground { items: &items, policy: &policy, now: 0, transcript: &[], turns: &[] };
//! let mut judge = Judge::new(PassKind::Dedupe, ground);
//! let verdict = judge.judge(&serde_json::json!({"itemId": "m_1", "duplicateOf": "m_9", "reason": "same"}));
//! assert!(verdict.refusal().unwrap().contains("m_1"));
//! ```

pub mod case;
pub mod cite;
pub mod dedupe;
mod encode;
mod fields;
pub use fields::json_type;
mod forget;
mod identity;
pub mod meaning;
mod merge;
mod promote;
mod supersede;

use crate::model::memory::{Block, Item, SupersedeBasis, Turn};
use crate::model::pass::PassKind;
use crate::model::policy::RetentionPolicy;
use crate::model::provenance::Trust;
use encode::EncodeGate;
use fields::Ruling;
use forget::ForgetGate;
use merge::MergeGate;
use promote::PromoteGate;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Which retention rule authorised a forgetting, as verified by the code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ForgetRule {
    /// Forgetting by age, where the policy sets it (`staleAfterDays`).
    Stale,
    /// Over the cap, where the policy sets one (`maxActiveFacts`).
    Capacity,
    /// A commitment whose date (and grace) has passed: it lost its protection.
    Due(crate::text::when::Day),
    /// A passing state whose while ended on that day (`I'm exhausted today`).
    Transient(crate::text::when::Day),
}

impl ForgetRule {
    pub fn as_str(self) -> &'static str {
        match self {
            ForgetRule::Stale => "stale",
            ForgetRule::Capacity => "capacity",
            ForgetRule::Due(_) => "due",
            ForgetRule::Transient(_) => "transient",
        }
    }
}

/// An edit a gate accepted, with what it verified.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// A new fact for scratch (ids are assigned when it is stored).
    Add {
        text: String,
        category: crate::model::category::Category,
        block: Block,
    },
    Drop {
        item_id: String,
        duplicate_of: String,
        similarity: f64,
    },
    Merge {
        into_id: String,
        from_ids: Vec<String>,
        merged_text: String,
    },
    Promote {
        item_id: String,
        from: Block,
        to: Block,
    },
    Forget {
        item_id: String,
        rule: ForgetRule,
        age_days: f64,
    },
    /// `old_id` stops being current: `valid_to` is set and it links to `new_id`.
    Supersede {
        old_id: String,
        new_id: String,
        valid_to: i64,
        basis: SupersedeBasis,
    },
    /// A reply cites a fact its prompt carried (changes nothing in the memory).
    Cite {
        item_id: String,
    },
}

impl Edit {
    /// One sentence saying what was verified.
    pub fn evidence(&self) -> String {
        match self {
            Edit::Add { .. } => "every content token and name is in the transcript".into(),
            Edit::Drop { item_id, duplicate_of, similarity } => {
                format!("{item_id} restates {duplicate_of} (similarity {similarity:.3})")
            }
            Edit::Merge { into_id, from_ids, .. } => {
                format!("merged {} into {into_id}; every token traceable to the sources", from_ids.join(", "))
            }
            Edit::Promote { item_id, from, to } => format!("{item_id} moves {from} -> {to}"),
            Edit::Forget { item_id, rule: ForgetRule::Due(due), age_days } => {
                format!("{item_id} forgotten: a commitment due {due}, {age_days:.0} days ago, past its grace")
            }
            Edit::Forget { item_id, rule: ForgetRule::Transient(until), .. } => {
                format!("{item_id} forgotten: a passing state whose while ended {until}")
            }
            Edit::Forget { item_id, rule, age_days } => {
                format!("{item_id} forgotten under the {} rule ({age_days:.1}d old)", rule.as_str())
            }
            Edit::Supersede { old_id, new_id, basis, .. } => {
                format!("{new_id} supersedes {old_id}: {}", basis.describe())
            }
            Edit::Cite { item_id } => format!("{item_id} was in the reply's prompt"),
        }
    }

    /// The item the edit is about (`None` for a fact not yet stored).
    pub fn item_id(&self) -> Option<&str> {
        match self {
            Edit::Add { .. } => None,
            Edit::Drop { item_id, .. }
            | Edit::Promote { item_id, .. }
            | Edit::Forget { item_id, .. }
            | Edit::Cite { item_id } => Some(item_id),
            Edit::Merge { into_id, .. } => Some(into_id),
            Edit::Supersede { old_id, .. } => Some(old_id),
        }
    }
}

/// A gate's decision. Not an error: a refusal is recorded and shown.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Accept(Edit),
    Refuse(String),
}

impl Verdict {
    pub fn is_accepted(&self) -> bool {
        matches!(self, Verdict::Accept(_))
    }

    /// The rejection reason, if refused.
    pub fn refusal(&self) -> Option<&str> {
        match self {
            Verdict::Refuse(r) => Some(r),
            Verdict::Accept(_) => None,
        }
    }

    /// The rejection reason when refused, the evidence when accepted.
    pub fn reason(&self) -> String {
        match self {
            Verdict::Refuse(r) => r.clone(),
            Verdict::Accept(e) => e.evidence(),
        }
    }
}

/// What the gates judge against: the pre-pass store.
/// What the gates judge against: the pre-pass store.
#[derive(Clone, Copy, Debug)]
pub struct Ground<'a> {
    /// Every item of the pre-pass store, by id (inactive ones included).
    pub items: &'a BTreeMap<String, Item>,
    pub policy: &'a RetentionPolicy,
    /// Unix seconds; ages are measured against it.
    pub now: i64,
    /// Transcript lines the encode gate traces facts to.
    pub transcript: &'a [String],
    /// The stored conversation, where Supersede looks for a change the user stated in the
    /// newer fact's source turn (may be empty: then only the fact's own words count).
    pub turns: &'a [Turn],
}

/// Judges the proposals of one pass in order, remembering what earlier accepted edits of
/// the same pass consumed, so an id consumed earlier is told apart from one that never
/// existed. Each pass has its own small gate; Encode, Merge, Promote and Forget carry state.
#[derive(Debug)]
pub struct Judge<'a> {
    ground: Ground<'a>,
    ledger: Ledger,
    gate: PassGate,
}

/// The gate of one pass, with whatever state only that pass needs.
#[derive(Debug)]
enum PassGate {
    Encode(EncodeGate),
    Dedupe,
    Merge(MergeGate),
    Promote(PromoteGate),
    Forget(ForgetGate),
    Supersede,
}

/// What earlier accepted edits of the pass consumed.
#[derive(Debug, Default)]
struct Ledger {
    /// id → what consumed it (`dropped`, `merged into m_3`, …).
    consumed: BTreeMap<String, String>,
    /// Items other drops were folded into in this pass (dropping one would form a chain).
    keepers: BTreeSet<String>,
}

/// What a stateless gate sees: the pre-pass store and the ledger so far.
struct Scope<'l, 'a> {
    ground: Ground<'a>,
    ledger: &'l Ledger,
}

impl<'a> Scope<'_, 'a> {
    /// Finds an item that must exist in the pre-pass store, be active and unconsumed.
    fn live(&self, field: &str, id: &str) -> Ruling<&'a Item> {
        let Some(item) = self.ground.items.get(id) else {
            return Err(format!("{field} '{id}' does not exist in the pre-pass store"));
        };
        if let Some(what) = self.ledger.consumed.get(id) {
            return Err(format!("{field} {id} was already removed by an earlier mutation in this pass ({what})"));
        }
        if !item.active {
            return Err(format!("{field} {id} is not active (it was forgotten or superseded before this pass)"));
        }
        Ok(item)
    }

    /// [`Scope::live`], and not pinned by the user: a Sleep never removes, rewrites or
    /// replaces what the user pinned.
    fn unpinned(&self, field: &str, id: &str) -> Ruling<&'a Item> {
        let item = self.live(field, id)?;
        if item.pinned {
            return Err(format!("{field} {id} is pinned by the user; no Sleep may remove, rewrite or replace it"));
        }
        Ok(item)
    }
}

impl<'a> Judge<'a> {
    pub fn new(pass: PassKind, ground: Ground<'a>) -> Self {
        let gate = match pass {
            PassKind::Encode => PassGate::Encode(EncodeGate::new(ground.transcript, ground.turns)),
            PassKind::Dedupe => PassGate::Dedupe,
            PassKind::Merge => PassGate::Merge(MergeGate::new(&ground)),
            PassKind::Promote => PassGate::Promote(PromoteGate::new(&ground)),
            PassKind::Forget => PassGate::Forget(ForgetGate::new(&ground)),
            PassKind::Supersede => PassGate::Supersede,
        };
        Judge { ground, ledger: Ledger::default(), gate }
    }

    pub fn pass(&self) -> PassKind {
        match self.gate {
            PassGate::Encode(_) => PassKind::Encode,
            PassGate::Dedupe => PassKind::Dedupe,
            PassGate::Merge(_) => PassKind::Merge,
            PassGate::Promote(_) => PassKind::Promote,
            PassGate::Forget(_) => PassKind::Forget,
            PassGate::Supersede => PassKind::Supersede,
        }
    }

    /// Tokens `block` holds as of the edits accepted so far (Promote's judge only).
    pub fn held(&self, block: Block) -> Option<u64> {
        match &self.gate {
            PassGate::Promote(gate) => Some(gate.used.get(&block).copied().unwrap_or(0)),
            _ => None,
        }
    }

    /// Whether an earlier accepted edit of this pass consumed `id`.
    pub fn is_consumed(&self, id: &str) -> bool {
        self.ledger.consumed.contains_key(id)
    }

    /// Judges one proposed edit and, when it is accepted, remembers what it consumed.
    pub fn judge(&mut self, proposal: &Value) -> Verdict {
        let checked = match proposal.as_object() {
            None => Err(format!("malformed proposal: expected a JSON object, got {}", json_type(proposal))),
            Some(_) => {
                let scope = Scope { ground: self.ground, ledger: &self.ledger };
                match &self.gate {
                    PassGate::Encode(gate) => gate.judge(proposal),
                    PassGate::Dedupe => dedupe::judge(&scope, proposal),
                    PassGate::Merge(gate) => gate.judge(&scope, proposal),
                    PassGate::Promote(gate) => gate.judge(&scope, proposal),
                    PassGate::Forget(gate) => gate.judge(&scope, proposal),
                    PassGate::Supersede => supersede::judge(&scope, proposal),
                }
            }
        };
        match checked {
            Ok(edit) => {
                self.consume(&edit);
                Verdict::Accept(edit)
            }
            Err(reason) => Verdict::Refuse(reason),
        }
    }

    fn consume(&mut self, edit: &Edit) {
        let consumed = &mut self.ledger.consumed;
        match edit {
            Edit::Add { text, .. } => {
                if let PassGate::Encode(gate) = &mut self.gate {
                    gate.keep(text);
                }
            }
            Edit::Drop { item_id, duplicate_of, .. } => {
                consumed.insert(item_id.clone(), format!("dropped as a duplicate of {duplicate_of}"));
                self.ledger.keepers.insert(duplicate_of.clone());
            }
            Edit::Merge { into_id, from_ids, .. } => {
                consumed.insert(into_id.clone(), "merged".into());
                for id in from_ids {
                    consumed.insert(id.clone(), format!("merged into {into_id}"));
                }
            }
            Edit::Promote { item_id, from, to } => {
                consumed.insert(item_id.clone(), format!("promoted to {to}"));
                if let (PassGate::Promote(gate), Some(item)) = (&mut self.gate, self.ground.items.get(item_id)) {
                    *gate.used.entry(*to).or_default() += item.tokens();
                    let left = gate.used.entry(*from).or_default();
                    *left = left.saturating_sub(item.tokens());
                }
            }
            Edit::Forget { item_id, .. } => {
                consumed.insert(item_id.clone(), "forgotten".into());
                if let PassGate::Forget(gate) = &mut self.gate {
                    gate.active_now = gate.active_now.saturating_sub(1);
                }
            }
            Edit::Supersede { old_id, new_id, .. } => {
                consumed.insert(old_id.clone(), format!("superseded by {new_id}"));
            }
            Edit::Cite { .. } => {}
        }
    }
}

/// `Err` when `a` and `b` were said by different people: two speakers' words are never one
/// fact, and one's change is never the other's.
fn one_speaker(a: &Item, b: &Item) -> Ruling<()> {
    if a.speaker == b.speaker {
        return Ok(());
    }
    let who = |i: &Item| i.speaker.clone().unwrap_or_else(|| "the user".into());
    Err(format!(
        "{} and {} were said by different people ({} and {}): one speaker's words never stand for the other's",
        a.item_id,
        b.item_id,
        who(a),
        who(b)
    ))
}

/// `Err` when `user_fact`, said by the user, would be `verb` (superseded, merged, dropped)
/// on the word of `other`, a fact from a source the user did not speak through: the trust
/// policy (`provenance::Trust::OUTSIDE`) never lets another source replace the user's words.
fn trusted(user_fact: &Item, other: &Item, verb: &str) -> Ruling<()> {
    match other.outsider() {
        Some(who) if user_fact.said_by_user() && !Trust::OUTSIDE.replace_user_facts => Err(format!(
            "{} was said by the user and {} by {who}: a fact the user said is never {verb} on the word of another source",
            user_fact.item_id, other.item_id
        )),
        _ => Ok(()),
    }
}

/// [`trusted`] over facts that would become one: `Err` when one was said by the user and
/// another by a source the user did not speak through.
fn trusted_together(facts: &[&Item], verb: &str) -> Ruling<()> {
    match (facts.iter().find(|f| f.said_by_user()), facts.iter().find(|f| f.outsider().is_some())) {
        (Some(user), Some(other)) => trusted(user, other, verb),
        _ => Ok(()),
    }
}

/// A transcript line without its `user:` / `assistant:` prefix.
pub fn strip_role(line: &str) -> &str {
    for prefix in ["user:", "assistant:"] {
        if let Some(rest) = line.strip_prefix(prefix) {
            return rest.trim_start();
        }
    }
    line
}
