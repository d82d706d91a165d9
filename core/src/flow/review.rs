//! A reviewed Sleep: [`plan`] runs the passes and the gates as a dry run and
//! returns a [`Review`] — every proposal with a stable id, the facts it touches before and
//! after, the model's reason and the gate's verdict — writing nothing; [`apply`] applies
//! what the user approved, each edit judged again on the memory as it is then, as one
//! Sleep, and logs every edit not approved as refused by the user. A plan applies at most
//! once: each log entry names the plan's edit it came from (`Refs::review`).
//!
//! A plan is tied to what it was planned on: it names its memory (by the first version the
//! memory wrote) and its head (that version's row), and its id is the digest of all it
//! holds. [`Review::parse`] refuses a plan whose content no longer gives its id (an edit
//! changed by hand), and [`belongs`] one made on another memory or another history; either
//! is refused whole, before anything is written.
//!
//! ```
//! use nocturne_core::flow::review::Decisions;
//! let d = Decisions::only(["r1", "r3"]).reject("r2", "keep both, they differ");
//! assert!(d.approves("r1") && !d.approves("r2") && !d.approves("r4"));
//! ```

mod applying;

pub use applying::{apply, apply_as, apply_sleep, Applying};

use crate::flow::pass::{self, Outcome, NOT_APPROVED};
use crate::flow::report::{PassEvent, SleepReport};
use crate::flow::sleep::{self, SleepError, SleepOptions};
use crate::gate::{Edit, Verdict};
use crate::model::memory::{Block, Item, Proposer};
use crate::model::pass::{MutationKind, PassKind};
use crate::store::{Store, StoreError};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// The format tag every plan file carries.
pub const FORMAT: &str = "nocturne-review/2";

/// A Sleep's plan, for the user to approve edit by edit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Review {
    /// Always [`FORMAT`].
    pub format: String,
    /// `p-` and a digest of everything else the plan holds ([`Review::digest`]): the log
    /// names it on every edit applied.
    pub id: String,
    /// The memory it was planned on: a digest of the first version that memory wrote
    /// ([`memory_name`]); empty for a plan read from a report with no memory at hand.
    #[serde(default)]
    pub memory: String,
    /// The memory's head when planned: its seq and a digest of that version's row.
    #[serde(default)]
    pub head: String,
    /// The memory's head when planned.
    pub planned_on: u64,
    /// Unix seconds; the clock the gates judged by.
    pub planned_at: i64,
    /// The proposer the model's edits came from (`offline rules`, an endpoint's model).
    pub provider: String,
    pub edits: Vec<Proposed>,
}

/// One proposal of the plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Proposed {
    /// `r1`, `r2`, … in the order the passes judged them.
    pub id: String,
    pub pass: PassKind,
    pub kind: MutationKind,
    pub proposer: Proposer,
    /// The proposal as made; applying judges it again.
    pub proposal: Value,
    /// The proposer's reason.
    pub reason: String,
    /// `None`: the gate accepted it when planned. Otherwise the gate's reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// The facts it touches, as they were before it and as it leaves them.
    pub facts: Vec<Change>,
}

/// A fact before and after one edit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    pub item_id: String,
    pub before: Fact,
    pub after: Fact,
}

/// What a reader of the plan sees of a fact.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fact {
    pub text: String,
    pub block: Block,
    pub active: bool,
}

/// What the user decided: the edits approved (all, or only some) and those rejected, each
/// with a reason.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Decisions {
    /// `None`: every edit not rejected. `Some`: only these.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<BTreeSet<String>>,
    /// Edit id → the user's reason.
    #[serde(default)]
    pub rejected: BTreeMap<String, String>,
}

impl Decisions {
    /// Every edit approved.
    pub fn all() -> Self {
        Decisions::default()
    }

    /// Only the edits named approved.
    pub fn only<'a>(ids: impl IntoIterator<Item = &'a str>) -> Self {
        Decisions { only: Some(ids.into_iter().map(str::to_string).collect()), ..Default::default() }
    }

    /// The same decisions with `id` rejected for `reason`.
    pub fn reject(mut self, id: &str, reason: &str) -> Self {
        self.rejected.insert(id.to_string(), reason.to_string());
        self
    }

    /// Whether edit `id` is approved.
    pub fn approves(&self, id: &str) -> bool {
        !self.rejected.contains_key(id) && self.only.as_ref().is_none_or(|only| only.contains(id))
    }

    /// The log's reason for an edit not approved.
    fn why_not(&self, id: &str) -> String {
        match (self.rejected.get(id).map(|r| r.trim()), &self.only) {
            (Some(reason), _) if !reason.is_empty() => format!("{NOT_APPROVED}: {reason}"),
            (Some(_), _) => format!("{NOT_APPROVED} (rejected, no reason given)"),
            (None, Some(only)) => format!(
                "{NOT_APPROVED} (not among the edits chosen: {})",
                only.iter().cloned().collect::<Vec<_>>().join(", ")
            ),
            (None, None) => NOT_APPROVED.into(),
        }
    }
}

/// What applying a plan did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Applied {
    /// The Sleep it was applied as; `None` when nothing was left to apply.
    pub report: Option<SleepReport>,
    /// Edits of this plan the log already holds (applied or refused by an earlier apply),
    /// skipped.
    pub already: usize,
    /// Approved edits applied; approved edits the gates refused on the memory as it is now;
    /// edits the user did not approve; edits the gates had refused when planned.
    pub applied: usize,
    pub refused_now: usize,
    pub not_approved: usize,
    pub refused_when_planned: usize,
    /// The head it was planned on and the head it was applied to, when the memory moved.
    pub moved: Option<(u64, u64)>,
}

impl Applied {
    /// Counts the verdicts on one pass's `edits`.
    fn count(&mut self, edits: &[&Proposed], outcomes: &[Outcome], decisions: &Decisions) {
        for (e, o) in edits.iter().zip(outcomes) {
            match (&e.refused, decisions.approves(&e.id), o.verdict.is_accepted()) {
                (Some(_), _, _) => self.refused_when_planned += 1,
                (None, false, _) => self.not_approved += 1,
                (None, true, true) => self.applied += 1,
                (None, true, false) => self.refused_now += 1,
            }
        }
    }

    /// One line for the user.
    pub fn summary(&self, review: &Review) -> String {
        if self.report.is_none() {
            return format!(
                "nothing applied: every edit of plan {} is already in the log ({} edit(s)); a plan applies at most once",
                review.id, self.already
            );
        }
        let moved = match self.moved {
            Some((from, to)) => format!(
                " The memory moved since the plan (v{from} → v{to}); every approved edit was judged again on it."
            ),
            None => String::new(),
        };
        format!(
            "plan {} applied as one Sleep: {} applied, {} refused by the gates now, {} not approved by the user, {} refused when planned{}.{moved}",
            review.id,
            self.applied,
            self.refused_now,
            self.not_approved,
            self.refused_when_planned,
            if self.already > 0 { format!(", {} already applied before", self.already) } else { String::new() },
        )
    }
}

/// Why a plan cannot be applied at all (nothing was written).
#[derive(Debug)]
pub enum ReviewError {
    /// The file is not a plan this version reads.
    Format(String),
    /// A decision names an edit the plan does not have.
    UnknownEdit {
        id: String,
        plan: String,
        known: usize,
    },
    /// The plan's content does not give its id: an edit was changed after planning.
    Tampered {
        id: String,
        digest: String,
    },
    /// The plan was made on another memory, or on a version this memory does not hold.
    Foreign(String),
    Sleep(SleepError),
}

impl std::fmt::Display for ReviewError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReviewError::Format(why) => write!(f, "not a review plan: {why}"),
            ReviewError::UnknownEdit { id, plan, known } => {
                write!(f, "plan {plan} has no edit {id} (it has r1 … r{known}); nothing was applied")
            }
            ReviewError::Tampered { id, digest } => write!(
                f,
                "plan {id} was changed after it was planned (its content gives {digest}): no edit of it is applied; \
plan the Sleep again"
            ),
            ReviewError::Foreign(why) => write!(f, "{why}: no edit of it is applied; plan the Sleep on this memory"),
            ReviewError::Sleep(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReviewError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReviewError::Sleep(e) => Some(e),
            ReviewError::Format(_)
            | ReviewError::UnknownEdit { .. }
            | ReviewError::Tampered { .. }
            | ReviewError::Foreign(_) => None,
        }
    }
}

impl From<SleepError> for ReviewError {
    fn from(e: SleepError) -> Self {
        ReviewError::Sleep(e)
    }
}

impl From<StoreError> for ReviewError {
    fn from(e: StoreError) -> Self {
        ReviewError::Sleep(SleepError::Store(e))
    }
}

impl Review {
    /// `p-` and the digest of the plan with its id left out: what its id must be.
    pub fn digest(&self) -> String {
        let unnamed = Review { id: String::new(), ..self.clone() };
        format!("p-{:016x}", fnv1a(&serde_json::to_string(&unnamed).unwrap_or_default()))
    }

    /// Reads a plan file's text, refusing one of another format, with repeated ids, or
    /// whose content is not what its id was made from (changed after it was planned).
    pub fn parse(text: &str) -> Result<Review, ReviewError> {
        let review: Review = serde_json::from_str(text).map_err(|e| ReviewError::Format(e.to_string()))?;
        if review.format != FORMAT {
            return Err(ReviewError::Format(format!(
                "its format is {:?}, this version reads {FORMAT:?}",
                review.format
            )));
        }
        let mut seen = HashSet::new();
        if let Some(dup) = review.edits.iter().find(|e| !seen.insert(e.id.as_str())) {
            return Err(ReviewError::Format(format!("edit id {} appears twice", dup.id)));
        }
        let digest = review.digest();
        if review.id != digest {
            return Err(ReviewError::Tampered { id: review.id, digest });
        }
        Ok(review)
    }

    /// The plan's edit `id`.
    pub fn edit(&self, id: &str) -> Option<&Proposed> {
        self.edits.iter().find(|e| e.id == id)
    }

    /// Every id `decisions` names that this plan lacks, as an error.
    pub fn check(&self, decisions: &Decisions) -> Result<(), ReviewError> {
        let named = decisions.only.iter().flatten().chain(decisions.rejected.keys());
        match named.into_iter().find(|id| self.edit(id).is_none()) {
            Some(id) => {
                Err(ReviewError::UnknownEdit { id: id.clone(), plan: self.id.clone(), known: self.edits.len() })
            }
            None => Ok(()),
        }
    }

    /// The log's reference for edit `id` of this plan.
    pub fn reference(&self, id: &str) -> String {
        format!("{}/{id}", self.id)
    }

    /// Every fact the edits the gates accepted would retire, by every pass: a duplicate
    /// dropped, a source merged away, an older value superseded, a fact forgotten.
    pub fn retiring(&self) -> Retiring {
        let facts = self
            .edits
            .iter()
            .filter(|e| e.refused.is_none())
            .flat_map(|e| {
                e.facts.iter().filter(|c| c.before.active && !c.after.active).map(|c| Retired {
                    item_id: c.item_id.clone(),
                    text: c.before.text.clone(),
                    kind: e.kind,
                    edit: e.id.clone(),
                })
            })
            .collect();
        Retiring { facts }
    }
}

/// What a plan would retire: what the guard against a heavy Sleep counts
/// (`flow::estimate::retires_a_lot`), and what its refusal names.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Retiring {
    /// In the order the passes judged them.
    pub facts: Vec<Retired>,
}

/// One fact a plan would retire, and the edit that does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Retired {
    pub item_id: String,
    pub text: String,
    /// `drop`, `merge`, `supersede` or `forget`.
    pub kind: MutationKind,
    /// The plan's edit (`r3`).
    pub edit: String,
}

impl Retiring {
    /// How many facts go.
    pub fn count(&self) -> usize {
        self.facts.len()
    }

    /// `7 superseded, 1 forgotten`: how many go by each kind of edit.
    pub fn by_kind(&self) -> String {
        let mut counts: Vec<(MutationKind, usize)> = Vec::new();
        for f in &self.facts {
            match counts.iter_mut().find(|(k, _)| *k == f.kind) {
                Some((_, n)) => *n += 1,
                None => counts.push((f.kind, 1)),
            }
        }
        let word = |k: MutationKind| match k {
            MutationKind::Drop => "dropped as duplicates",
            MutationKind::Merge => "merged away",
            MutationKind::Supersede => "superseded",
            MutationKind::Forget => "forgotten",
            other => other.as_str(),
        };
        counts.iter().map(|(k, n)| format!("{n} {}", word(*k))).collect::<Vec<_>>().join(", ")
    }

    /// The first `limit` facts that go, each with its id and words:
    /// `m_1 "I painted fence number 1 …"; m_3 "…"` (and how many more).
    pub fn named(&self, limit: usize) -> String {
        let mut out: Vec<String> = self
            .facts
            .iter()
            .take(limit)
            .map(|f| {
                let text: String = f.text.chars().take(60).collect();
                let cut = if text.len() < f.text.len() { "…" } else { "" };
                format!("{} \"{text}{cut}\"", f.item_id)
            })
            .collect();
        if self.facts.len() > limit {
            out.push(format!("and {} more", self.facts.len() - limit));
        }
        out.join("; ")
    }
}

/// Plans a Sleep for review: the passes and gates of `options` run as a dry run (nothing is
/// written) and every judged proposal becomes an edit of the plan.
pub async fn plan<S: Store, P: crate::llm::provider::Provider>(
    store: &S,
    provider: &P,
    options: &SleepOptions,
    on_event: &mut dyn FnMut(&PassEvent),
) -> Result<Review, SleepError> {
    planned(store, provider, options, on_event).await.map(|(review, _)| review)
}

/// [`plan`], with the dry run's own report: what each pass asked the model, found and
/// would leave active (a Sleep prints it, and applies the plan).
pub async fn planned<S: Store, P: crate::llm::provider::Provider>(
    store: &S,
    provider: &P,
    options: &SleepOptions,
    on_event: &mut dyn FnMut(&PassEvent),
) -> Result<(Review, SleepReport), SleepError> {
    let report = sleep::sleep(store, provider, &options.clone().dry(), on_event).await?;
    // The facts as the Sleep read them, though a writer may have moved the memory since.
    let items = store.items_at(report.planned_on).await?;
    let mut review = from_report(&report, items, provider.label(), options.now);
    let versions = store.versions().await?;
    review.memory = memory_name(&versions);
    review.head = head_name(&versions, review.planned_on);
    review.id = review.digest();
    Ok((review, report))
}

/// The memory a plan names: `m-` and a digest of the first version it wrote (its seq, time
/// and label, never rewritten); `m-new` before it wrote one.
pub fn memory_name(versions: &[crate::model::memory::Version]) -> String {
    match versions.iter().min_by_key(|v| v.seq) {
        Some(v) => format!("m-{:016x}", fnv1a(&format!("{}\n{}\n{}", v.seq, v.at, v.label))),
        None => "m-new".into(),
    }
}

/// Version `seq` as a plan names its head: `v12-` and a digest of that version's row.
pub fn head_name(versions: &[crate::model::memory::Version], seq: u64) -> String {
    let row = versions.iter().find(|v| v.seq == seq);
    let digest = row.map_or(0, |v| fnv1a(&format!("{}\n{}\n{}\n{}", v.at, v.label, v.active_count, v.changed)));
    format!("v{seq}-{digest:016x}")
}

/// `Err` unless `review` was planned on this memory, on a version it holds as it held it
/// then: a plan made on another memory (or on a history rewritten since) is refused whole.
pub async fn belongs<S: Store>(store: &S, review: &Review) -> Result<(), ReviewError> {
    let versions = store.versions().await?;
    let (memory, head) = (memory_name(&versions), head_name(&versions, review.planned_on));
    if review.memory != memory {
        return Err(ReviewError::Foreign(format!(
            "plan {} was made on memory {}, and this is memory {memory}",
            review.id,
            if review.memory.is_empty() { "(none named)" } else { review.memory.as_str() }
        )));
    }
    if review.head != head {
        return Err(ReviewError::Foreign(format!(
            "plan {} was made on version {}, and this memory's v{} is {head}",
            review.id, review.head, review.planned_on
        )));
    }
    Ok(())
}

/// The plan of a dry run's `report`, over `items` as they were when it began.
pub fn from_report(report: &SleepReport, items: Vec<Item>, provider: String, now: i64) -> Review {
    let mut items: BTreeMap<String, Item> = items.into_iter().map(|i| (i.item_id.clone(), i)).collect();
    let mut edits = Vec::new();
    for pass in &report.passes {
        for (o, m) in pass.outcomes.iter().zip(&pass.mutations) {
            let ids = touched(o);
            let before: Vec<Option<Item>> = ids.iter().map(|id| items.get(id).cloned()).collect();
            for row in pass::apply(&items, std::slice::from_ref(o), now) {
                items.insert(row.item_id.clone(), row);
            }
            let facts = ids
                .iter()
                .zip(before)
                .filter_map(|(id, before)| {
                    let (before, after) = (before?, items.get(id)?);
                    Some(Change { item_id: id.clone(), before: fact(&before), after: fact(after) })
                })
                .collect();
            edits.push(Proposed {
                id: format!("r{}", edits.len() + 1),
                pass: pass.event.pass,
                kind: m.kind,
                proposer: o.proposer,
                proposal: o.proposal.clone(),
                reason: m.reason.clone(),
                refused: o.verdict.refusal().map(str::to_string),
                facts,
            });
        }
    }
    let mut review = Review {
        format: FORMAT.into(),
        id: String::new(),
        memory: String::new(),
        head: String::new(),
        planned_on: report.planned_on,
        planned_at: now,
        provider,
        edits,
    };
    review.id = review.digest();
    review
}

/// The ids an outcome touches: its edit's, or those its refused proposal named.
fn touched(o: &Outcome) -> Vec<String> {
    match &o.verdict {
        Verdict::Accept(edit) => match edit {
            Edit::Add { .. } => Vec::new(),
            Edit::Drop { item_id, duplicate_of, .. } => vec![item_id.clone(), duplicate_of.clone()],
            Edit::Merge { into_id, from_ids, .. } => std::iter::once(into_id).chain(from_ids).cloned().collect(),
            Edit::Promote { item_id, .. } | Edit::Forget { item_id, .. } | Edit::Cite { item_id } => {
                vec![item_id.clone()]
            }
            Edit::Supersede { old_id, new_id, .. } => vec![old_id.clone(), new_id.clone()],
        },
        Verdict::Refuse(_) => {
            let mut ids = Vec::new();
            for field in ["itemId", "duplicateOf", "intoId", "oldId", "newId", "fromIds"] {
                match o.proposal.get(field) {
                    Some(Value::String(id)) => ids.push(id.clone()),
                    Some(Value::Array(list)) => ids.extend(list.iter().filter_map(Value::as_str).map(str::to_string)),
                    _ => {}
                }
            }
            let mut seen = HashSet::new();
            ids.retain(|id| seen.insert(id.clone()));
            ids
        }
    }
}

fn fact(item: &Item) -> Fact {
    Fact { text: item.text.clone(), block: item.block, active: item.active }
}

/// FNV-1a, 64 bits: a plan's id from its content (no randomness, no clock).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}
