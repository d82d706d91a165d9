//! Gates: pure functions from (pre-pass state, what earlier edits of the same pass
//! consumed, policy, one proposed edit) to a [`Verdict`]. A refusal is data — a specific,
//! true sentence naming the id, token, name, category, age or threshold at fault.
//!
//! ```
//! use nocturne_core::gate::{Ground, Judge, PassKind};
//! use nocturne_core::RetentionPolicy;
//! use std::collections::BTreeMap;
//! let items = BTreeMap::new();
//! let policy = RetentionPolicy::default();
//! let ground = Ground { items: &items, policy: &policy, now: 0, transcript: &[] };
//! let mut judge = Judge::new(PassKind::Dedupe, ground);
//! let verdict = judge.judge(&serde_json::json!({"itemId": "m_1", "duplicateOf": "m_9", "reason": "same"}));
//! assert!(verdict.refusal().unwrap().contains("m_1"));
//! ```

use crate::memory::{Block, Item};
use crate::policy::RetentionPolicy;
use crate::textmath;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// The kinds of proposal a gate judges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PassKind {
    Encode,
    Dedupe,
    Merge,
    Promote,
    Forget,
    Supersede,
}

impl PassKind {
    /// The Sleep passes, in order: the article's four with Supersede after Merge.
    pub const SLEEP: [PassKind; 5] =
        [PassKind::Dedupe, PassKind::Merge, PassKind::Supersede, PassKind::Promote, PassKind::Forget];

    pub fn name(self) -> &'static str {
        match self {
            PassKind::Encode => "encode",
            PassKind::Dedupe => "dedupe",
            PassKind::Merge => "merge",
            PassKind::Promote => "promote",
            PassKind::Forget => "forget",
            PassKind::Supersede => "supersede",
        }
    }

    pub fn parse(name: &str) -> Option<PassKind> {
        [PassKind::Encode, PassKind::Dedupe, PassKind::Merge, PassKind::Promote, PassKind::Forget, PassKind::Supersede]
            .into_iter()
            .find(|p| p.name() == name)
    }

    /// The key of the proposal list in the model's JSON reply.
    pub fn proposal_key(self) -> &'static str {
        match self {
            PassKind::Encode => "facts",
            PassKind::Dedupe => "drop",
            PassKind::Merge => "merge",
            PassKind::Promote => "promote",
            PassKind::Forget => "forget",
            PassKind::Supersede => "supersede",
        }
    }

    /// The mutation kind one proposal of this pass produces.
    pub fn mutation_kind(self) -> &'static str {
        match self {
            PassKind::Encode => "add",
            PassKind::Dedupe => "drop",
            PassKind::Merge => "merge",
            PassKind::Promote => "promote",
            PassKind::Forget => "forget",
            PassKind::Supersede => "supersede",
        }
    }

    /// The field naming the item a proposal is about.
    pub fn item_field(self) -> &'static str {
        match self {
            PassKind::Encode => "text",
            PassKind::Merge => "intoId",
            PassKind::Supersede => "oldId",
            _ => "itemId",
        }
    }
}

/// Which retention rule authorised a forgetting, as verified by the code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ForgetRule {
    Stale,
    Capacity,
}

impl ForgetRule {
    pub fn as_str(self) -> &'static str {
        match self {
            ForgetRule::Stale => "stale",
            ForgetRule::Capacity => "capacity",
        }
    }
}

/// An edit a gate accepted, with what it verified.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// A new fact for scratch (ids are assigned when it is stored).
    Add {
        text: String,
        category: String,
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
            Edit::Forget { item_id, rule, age_days } => {
                format!("{item_id} forgotten under the {} rule ({age_days:.1}d old)", rule.as_str())
            }
            Edit::Supersede { old_id, new_id, .. } => {
                format!("{new_id} supersedes {old_id}: same subject, newer value")
            }
        }
    }

    /// The item the edit is about (`None` for a fact not yet stored).
    pub fn item_id(&self) -> Option<&str> {
        match self {
            Edit::Add { .. } => None,
            Edit::Drop { item_id, .. } | Edit::Promote { item_id, .. } | Edit::Forget { item_id, .. } => Some(item_id),
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
#[derive(Clone, Copy, Debug)]
pub struct Ground<'a> {
    /// Every item of the pre-pass store, by id (inactive ones included).
    pub items: &'a BTreeMap<String, Item>,
    pub policy: &'a RetentionPolicy,
    /// Unix seconds; ages are measured against it.
    pub now: i64,
    /// Transcript lines the encode gate traces facts to.
    pub transcript: &'a [String],
}

/// Judges the proposals of one pass in order, remembering what earlier accepted edits of
/// the same pass consumed, so an id consumed earlier is told apart from one that never
/// existed.
#[derive(Debug)]
pub struct Judge<'a> {
    pass: PassKind,
    ground: Ground<'a>,
    /// id → what consumed it (`dropped`, `merged into m_3`, …).
    consumed: BTreeMap<String, String>,
    /// Items other drops were folded into in this pass (dropping one would form a chain).
    keepers: BTreeSet<String>,
    overflow: BTreeSet<String>,
    active_now: usize,
    transcript_vocab: BTreeSet<String>,
    transcript_names: BTreeSet<String>,
}

type Check<T> = Result<T, String>;

impl<'a> Judge<'a> {
    pub fn new(pass: PassKind, ground: Ground<'a>) -> Self {
        let (overflow, active_now) = match pass {
            PassKind::Forget => (
                ground.policy.overflow(ground.items.values(), ground.now),
                ground.items.values().filter(|i| i.active).count(),
            ),
            _ => (BTreeSet::new(), 0),
        };
        let (transcript_vocab, transcript_names) = match pass {
            PassKind::Encode => (
                textmath::vocabulary(ground.transcript.iter().map(|s| strip_role(s))),
                textmath::capitalised_words(ground.transcript.iter().map(|s| strip_role(s))),
            ),
            _ => Default::default(),
        };
        Judge {
            pass,
            ground,
            consumed: BTreeMap::new(),
            keepers: BTreeSet::new(),
            overflow,
            active_now,
            transcript_vocab,
            transcript_names,
        }
    }

    pub fn pass(&self) -> PassKind {
        self.pass
    }

    /// Whether an earlier accepted edit of this pass consumed `id`.
    pub fn is_consumed(&self, id: &str) -> bool {
        self.consumed.contains_key(id)
    }

    /// Judges one proposed edit and, when it is accepted, remembers what it consumed.
    pub fn judge(&mut self, proposal: &Value) -> Verdict {
        let checked = match proposal.as_object() {
            None => Err(format!("malformed proposal: expected a JSON object, got {}", json_type(proposal))),
            Some(_) => match self.pass {
                PassKind::Encode => self.encode(proposal),
                PassKind::Dedupe => self.dedupe(proposal),
                PassKind::Merge => self.merge(proposal),
                PassKind::Promote => self.promote(proposal),
                PassKind::Forget => self.forget(proposal),
                PassKind::Supersede => self.supersede(proposal),
            },
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
        match edit {
            Edit::Add { .. } => {}
            Edit::Drop { item_id, duplicate_of, .. } => {
                self.consumed.insert(item_id.clone(), format!("dropped as a duplicate of {duplicate_of}"));
                self.keepers.insert(duplicate_of.clone());
            }
            Edit::Merge { into_id, from_ids, .. } => {
                self.consumed.insert(into_id.clone(), "merged".into());
                for id in from_ids {
                    self.consumed.insert(id.clone(), format!("merged into {into_id}"));
                }
            }
            Edit::Promote { item_id, to, .. } => {
                self.consumed.insert(item_id.clone(), format!("promoted to {to}"));
            }
            Edit::Forget { item_id, .. } => {
                self.consumed.insert(item_id.clone(), "forgotten".into());
                self.active_now = self.active_now.saturating_sub(1);
            }
            Edit::Supersede { old_id, new_id, .. } => {
                self.consumed.insert(old_id.clone(), format!("superseded by {new_id}"));
            }
        }
    }

    /// Finds an item that must exist in the pre-pass store, be active and unconsumed.
    fn live(&self, field: &str, id: &str) -> Check<&'a Item> {
        let Some(item) = self.ground.items.get(id) else {
            return Err(format!("{field} '{id}' does not exist in the pre-pass store"));
        };
        if let Some(what) = self.consumed.get(id) {
            return Err(format!("{field} {id} was already removed by an earlier mutation in this pass ({what})"));
        }
        if !item.active {
            return Err(format!("{field} {id} is not active (it was forgotten or superseded before this pass)"));
        }
        Ok(item)
    }

    fn encode(&self, p: &Value) -> Check<Edit> {
        let text = required_str(p, "text")?;
        if textmath::content_tokens(text).is_empty() {
            return Err(format!("fact '{text}' has no content tokens, so it states nothing"));
        }
        let category = optional_str(p, "category")?.unwrap_or("context");
        if category.trim().is_empty() {
            return Err("category is empty".into());
        }
        let block = match optional_str(p, "block")? {
            None => Block::Scratch,
            Some(name) => match Block::parse(name) {
                Some(Block::Scratch) => Block::Scratch,
                Some(other) => {
                    return Err(format!("new facts enter scratch; block '{other}' is reached only through Promote"))
                }
                None => return Err(format!("block '{name}' is not one of persona, human, episodes, scratch")),
            },
        };
        let cov = textmath::coverage_in(text, &self.transcript_vocab);
        if !cov.is_full() {
            return Err(format!(
                "fact is not traceable to the transcript: {} content token(s) invented ({})",
                cov.missing.len(),
                cov.missing.iter().take(8).cloned().collect::<Vec<_>>().join(", ")
            ));
        }
        let names: Vec<_> =
            textmath::proper_nouns(text).into_iter().filter(|n| !self.transcript_names.contains(n)).collect();
        if !names.is_empty() {
            return Err(format!("fact introduces proper nouns absent from the transcript: {}", names.join(", ")));
        }
        Ok(Edit::Add { text: text.trim().to_string(), category: category.trim().to_string(), block })
    }

    fn dedupe(&self, p: &Value) -> Check<Edit> {
        let item_id = required_str(p, "itemId")?;
        let keeper_id = required_str(p, "duplicateOf")?;
        let reason = optional_str(p, "reason")?;
        if item_id == keeper_id {
            return Err(format!("itemId {item_id} is paired with itself (a self-pair is not a duplicate)"));
        }
        let item = self.live("itemId", item_id)?;
        if self.keepers.contains(item_id) {
            return Err(format!(
                "itemId {item_id} is the keeper of an earlier drop in this pass; dropping it would form a chain"
            ));
        }
        let keeper = match self.live("duplicateOf", keeper_id) {
            Err(_) if self.consumed.contains_key(keeper_id) => {
                return Err(format!(
                    "duplicateOf {keeper_id} was already removed by an earlier mutation in this pass ({}); a drop into it would form a chain",
                    self.consumed[keeper_id]
                ))
            }
            other => other?,
        };
        let sim = textmath::similarity(&item.text, &keeper.text);
        let threshold = self.ground.policy.similarity_threshold;
        if !textmath::reaches(sim, threshold) {
            return Err(format!(
                "similarity {sim:.3} between {item_id} and {keeper_id} is below the threshold {threshold} (a different fact)"
            ));
        }
        require_reason(reason)?;
        Ok(Edit::Drop { item_id: item_id.into(), duplicate_of: keeper_id.into(), similarity: sim })
    }

    fn merge(&self, p: &Value) -> Check<Edit> {
        let into_id = required_str(p, "intoId")?;
        let from_ids = required_str_list(p, "fromIds")?;
        let merged_text = required_str(p, "mergedText")?;
        let reason = optional_str(p, "reason")?;
        if from_ids.is_empty() {
            return Err("fromIds is empty: a merge needs at least one source besides intoId".into());
        }
        let mut seen = HashSet::new();
        for id in &from_ids {
            if *id == into_id {
                return Err(format!("intoId {into_id} is also listed in fromIds"));
            }
            if !seen.insert(*id) {
                return Err(format!("fromIds lists {id} twice"));
            }
        }
        let into = self.live("intoId", into_id)?;
        let mut sources = vec![into];
        for id in &from_ids {
            sources.push(self.live("fromIds", id)?);
        }
        if let Some(other) = sources.iter().find(|s| s.block != into.block) {
            return Err(format!(
                "sources span two blocks: {} is in {}, {} is in {}",
                into.item_id, into.block, other.item_id, other.block
            ));
        }
        if merged_text.trim().is_empty() {
            return Err("mergedText is empty".into());
        }
        let texts: Vec<&str> = sources.iter().map(|s| s.text.as_str()).collect();
        let cov = textmath::coverage(merged_text, texts.iter().copied());
        if !cov.is_full() {
            return Err(format!(
                "mergedText is not traceable to its sources: {} content token(s) appear in none of them ({})",
                cov.missing.len(),
                cov.missing.iter().take(8).cloned().collect::<Vec<_>>().join(", ")
            ));
        }
        let names = textmath::new_proper_nouns(merged_text, texts.iter().copied());
        if !names.is_empty() {
            return Err(format!("mergedText introduces proper nouns absent from every source: {}", names.join(", ")));
        }
        require_reason(reason)?;
        Ok(Edit::Merge {
            into_id: into_id.into(),
            from_ids: from_ids.into_iter().map(String::from).collect(),
            merged_text: merged_text.trim().to_string(),
        })
    }

    fn promote(&self, p: &Value) -> Check<Edit> {
        let item_id = required_str(p, "itemId")?;
        let to_name = required_str(p, "toBlock")?;
        let reason = optional_str(p, "reason")?;
        let to = match Block::parse(to_name) {
            Some(b) if Block::PROMOTION_TARGETS.contains(&b) => b,
            _ => return Err(format!("toBlock '{to_name}' is not one of persona, human, episodes")),
        };
        let item = self.live("itemId", item_id)?;
        if item.block == to {
            return Err(format!("itemId {item_id} is already in {to}"));
        }
        require_reason(reason)?;
        Ok(Edit::Promote { item_id: item_id.into(), from: item.block, to })
    }

    fn forget(&self, p: &Value) -> Check<Edit> {
        let item_id = required_str(p, "itemId")?;
        let reason = optional_str(p, "reason")?;
        optional_str(p, "policy")?;
        let item = self.live("itemId", item_id)?;
        let policy = self.ground.policy;
        if policy.is_protected(&item.category) {
            return Err(format!(
                "category '{}' is protected by the retention policy ({})",
                item.category,
                policy.protected_categories.join(", ")
            ));
        }
        let age = item.age_days(self.ground.now);
        let rule = if policy.is_stale(item, self.ground.now) {
            ForgetRule::Stale
        } else if self.overflow.contains(item_id) && self.active_now > policy.max_active_facts {
            ForgetRule::Capacity
        } else {
            let capacity = if self.active_now > policy.max_active_facts {
                format!("not among the {} lowest-salience unprotected facts over capacity", self.overflow.len())
            } else {
                format!("not over capacity ({} active, maxActiveFacts={})", self.active_now, policy.max_active_facts)
            };
            return Err(format!(
                "item is {age:.1}d old (staleAfterDays={}) and {capacity}, so no retention rule authorises forgetting it",
                policy.stale_after_days
            ));
        };
        require_reason(reason)?;
        Ok(Edit::Forget { item_id: item_id.into(), rule, age_days: age })
    }

    fn supersede(&self, p: &Value) -> Check<Edit> {
        let old_id = required_str(p, "oldId")?;
        let new_id = required_str(p, "newId")?;
        let reason = optional_str(p, "reason")?;
        if old_id == new_id {
            return Err(format!("oldId {old_id} is paired with itself"));
        }
        let old = self.live("oldId", old_id)?;
        let new = self.live("newId", new_id)?;
        if old.block != new.block {
            return Err(format!(
                "{old_id} is in {} and {new_id} in {}: a supersession stays within one block",
                old.block, new.block
            ));
        }
        if (new.created_at, new.ordinal()) <= (old.created_at, old.ordinal()) {
            return Err(format!(
                "newId {new_id} is not newer than oldId {old_id}: only a later fact can supersede an earlier one"
            ));
        }
        let threshold = self.ground.policy.similarity_threshold;
        let sim = textmath::similarity(&old.text, &new.text);
        if textmath::reaches(sim, threshold) {
            return Err(format!(
                "similarity {sim:.3} reaches the threshold {threshold}: a duplicate, which is Dedupe's job"
            ));
        }
        let (a, b) = (textmath::content_tokens(&old.text), textmath::content_tokens(&new.text));
        if !textmath::conflicts(&a, &b, threshold) {
            let (subject, _, _) = textmath::subject_and_values(&old.text, &new.text);
            return Err(format!(
                "{old_id} and {new_id} are not about the same thing: they share {} of {} content tokens ({}), not half of the smaller fact with a value each",
                subject.len(),
                a.len().min(b.len()),
                if subject.is_empty() { "none".to_string() } else { subject.join(", ") }
            ));
        }
        require_reason(reason)?;
        Ok(Edit::Supersede { old_id: old_id.into(), new_id: new_id.into(), valid_to: new.created_at })
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

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn required_str<'v>(p: &'v Value, field: &str) -> Check<&'v str> {
    match p.get(field) {
        None | Some(Value::Null) => Err(format!("malformed proposal: field '{field}' is missing")),
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(format!("malformed proposal: field '{field}' must be a string, got {}", json_type(other))),
    }
}

fn optional_str<'v>(p: &'v Value, field: &str) -> Check<Option<&'v str>> {
    match p.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(format!("malformed proposal: field '{field}' must be a string, got {}", json_type(other))),
    }
}

fn required_str_list<'v>(p: &'v Value, field: &str) -> Check<Vec<&'v str>> {
    match p.get(field) {
        None | Some(Value::Null) => Err(format!("malformed proposal: field '{field}' is missing")),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.as_str()),
                other => Err(format!(
                    "malformed proposal: every entry of '{field}' must be a string, got {}",
                    json_type(other)
                )),
            })
            .collect(),
        Some(other) => {
            Err(format!("malformed proposal: field '{field}' must be an array of ids, got {}", json_type(other)))
        }
    }
}

fn require_reason(reason: Option<&str>) -> Check<()> {
    match reason {
        Some(r) if !r.trim().is_empty() => Ok(()),
        _ => Err("reason is empty: every edit must say why".into()),
    }
}
