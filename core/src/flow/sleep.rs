//! The Sleep orchestrator: Dedupe → Merge → Promote → Forget over a Store and a
//! Provider. The only async part of a Sleep; each pass itself is [`crate::flow::pass::plan`].

use crate::flow::candidates::{self, Work};
use crate::flow::focus::{self, Fresh, Scope};
use crate::flow::pass::{self, PassInput};
use crate::flow::stop::StopToken;
use crate::llm::prompt::{self, Budget};
use crate::llm::provider::{self, Provider};
use crate::model::candidate::Candidates;
use crate::model::label::Label;
use crate::model::memory::{Item, Mutation, Proposer};
use crate::model::pass::PassKind;
use crate::model::policy::RetentionPolicy;
use crate::store::{Commit, Store, StoreError};
use crate::text::order;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};

/// How to run a Sleep.
#[derive(Clone, Debug, PartialEq)]
pub struct SleepOptions {
    /// Unix seconds; ages are measured against it and versions are stamped with it.
    pub now: i64,
    /// Run the identical passes but write nothing: no mutation, no version.
    pub dry_run: bool,
    pub budget: Budget,
    /// A what-if policy instead of the stored one; only honoured in a dry run, so every
    /// stored mutation was judged under the stored policy.
    pub policy: Option<crate::model::policy::RetentionPolicy>,
    /// Set from outside to stop between model calls; the pass under way writes nothing.
    pub stop: StopToken,
    /// Only what changed since the last completed Sleep (the default), or everything.
    pub scope: Scope,
    /// How much of the candidate search one fact may cost.
    pub bounds: candidates::Bounds,
}

impl SleepOptions {
    pub fn new(now: i64) -> Self {
        SleepOptions {
            now,
            dry_run: false,
            budget: Budget::default(),
            policy: None,
            stop: StopToken::default(),
            scope: Scope::default(),
            bounds: candidates::Bounds::default(),
        }
    }

    /// The same options for a deep Sleep, every pass over every fact.
    pub fn deep(mut self) -> Self {
        self.scope = Scope::Deep;
        self
    }

    /// The same options as a dry run.
    pub fn dry(mut self) -> Self {
        self.dry_run = true;
        self
    }
}

/// Where a pass is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Start,
    Done,
    Error,
}

/// Progress of one pass, streamed as it happens (`pass:<name>:start|done|error`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PassEvent {
    pub pass: PassKind,
    pub phase: Phase,
    pub dry_run: bool,
    pub input: usize,
    pub proposed: usize,
    pub accepted: usize,
    pub rejected: usize,
    pub enforced: usize,
    pub active_after: usize,
    pub before_version: Option<u64>,
    pub after_version: Option<u64>,
    pub error: Option<String>,
}

impl PassEvent {
    /// The event of a pass starting over `input` active facts.
    pub(crate) fn start(pass: PassKind, dry_run: bool, input: usize) -> PassEvent {
        PassEvent {
            pass,
            phase: Phase::Start,
            dry_run,
            input,
            proposed: 0,
            accepted: 0,
            rejected: 0,
            enforced: 0,
            active_after: input,
            before_version: None,
            after_version: None,
            error: None,
        }
    }

    /// The event of this pass done: what its plan decided, and the facts active after.
    pub(crate) fn done(self, plan: &pass::Plan, active_after: usize) -> PassEvent {
        PassEvent {
            phase: Phase::Done,
            proposed: plan.proposed(),
            accepted: plan.accepted(),
            rejected: plan.rejected(),
            enforced: plan.enforced(),
            active_after,
            ..self
        }
    }

    /// `pass:dedupe:done`.
    pub fn name(&self) -> String {
        let phase = match self.phase {
            Phase::Start => "start",
            Phase::Done => "done",
            Phase::Error => "error",
        };
        format!("pass:{}:{phase}", self.pass.name())
    }
}

/// What one pass did (or, in a dry run, would do).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PassReport {
    pub event: PassEvent,
    pub mutations: Vec<Mutation>,
    /// The engine's candidate search for this pass: what it examined, found, and left
    /// beyond its per-fact bounds.
    pub search: Work,
    pub calls: usize,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// What changed in how the model was asked during this pass (`auto` moving to
    /// choosing after an unusable reply).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Every proposal judged, with its verdict, in the order of `mutations` (a review's
    /// plan is built from them).
    #[serde(skip)]
    pub outcomes: Vec<pass::Outcome>,
}

/// A whole Sleep.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SleepReport {
    pub dry_run: bool,
    /// Facts added or changed since the last completed Sleep that this one focused on;
    /// `None` for a deep Sleep (asked for, or no Sleep had completed yet).
    pub fresh: Option<usize>,
    pub active_before: usize,
    pub active_after: usize,
    pub passes: Vec<PassReport>,
    /// The retention policy moved off the old default at the start of this Sleep (or, in a
    /// dry run, would), and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_note: Option<String>,
    /// The head the Sleep read (its first pass was planned on it).
    #[serde(skip)]
    pub planned_on: u64,
}

impl SleepReport {
    pub fn total(&self, f: impl Fn(&PassEvent) -> usize) -> usize {
        self.passes.iter().map(|p| f(&p.event)).sum()
    }
    pub fn calls(&self) -> usize {
        self.passes.iter().map(|p| p.calls).sum()
    }
    pub fn prompt_tokens(&self) -> u64 {
        self.passes.iter().map(|p| p.prompt_tokens).sum()
    }
    pub fn completion_tokens(&self) -> u64 {
        self.passes.iter().map(|p| p.completion_tokens).sum()
    }
    /// Passes that ended on an unusable model reply and changed nothing (the Sleep went on).
    pub fn failed(&self) -> impl Iterator<Item = &PassEvent> {
        self.passes.iter().map(|p| &p.event).filter(|e| e.error.is_some())
    }
}

/// Why a Sleep stopped. Passes committed before the failing one stay; the failing pass
/// wrote nothing.
#[derive(Clone, Debug, PartialEq)]
pub enum SleepError {
    Store(StoreError),
    /// The model's call or reply failed this pass; the store is as it was before it.
    Pass {
        pass: PassKind,
        message: String,
    },
    /// Stopped by the user: the passes before `after` (inclusive) are committed, nothing
    /// of the pass that was under way is.
    Stopped {
        after: Option<PassKind>,
    },
}

impl std::fmt::Display for SleepError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SleepError::Store(e) => write!(f, "{e}"),
            SleepError::Stopped { after: Some(pass) } => write!(
                f,
                "stopped by the user after pass {}; the passes before it are kept, nothing of the next was written",
                pass.name()
            ),
            SleepError::Stopped { after: None } => {
                write!(f, "stopped by the user before the first pass; nothing was written")
            }
            SleepError::Pass { pass, message } => {
                write!(f, "the {} pass stopped and changed nothing: {message}", pass.name())
            }
        }
    }
}

impl std::error::Error for SleepError {}

impl From<StoreError> for SleepError {
    fn from(e: StoreError) -> Self {
        SleepError::Store(e)
    }
}

/// Runs a Sleep, calling `on_event` as each pass starts, finishes or fails.
pub async fn sleep<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    options: &SleepOptions,
    on_event: &mut dyn FnMut(&PassEvent),
) -> Result<SleepReport, SleepError> {
    let now = options.now;
    let meta = store.meta().await?;
    let (policy, policy_note) = policy_for(store, &meta, options).await?;
    let mut items: BTreeMap<String, Item> = store.items().await?.into_iter().map(|i| (i.item_id.clone(), i)).collect();
    let active_before = items.values().filter(|i| i.active).count();
    // Each pass is planned against this head; a writer that moves it meanwhile makes the
    // pass's commit a conflict, which ends the Sleep with nothing of that pass written.
    let mut head = meta.head;
    // Supersede looks for a change the user stated in a newer fact's source turn.
    let turns = store.transcript().await?;
    let fresh = fresh_since(store, options.scope, head, items.values()).await?;
    let seeds = fresh.as_ref().map(Fresh::seeds);
    let mut passes = Vec::new();
    for kind in PassKind::SLEEP {
        if options.stop.is_stopped() {
            return Err(SleepError::Stopped { after: passes.last().map(|p: &PassReport| p.event.pass) });
        }
        let mut active: Vec<&Item> = items.values().filter(|i| i.active).collect();
        order::sort_by_key(&mut active, |i| i.ordinal());
        let mut event = PassEvent::start(kind, options.dry_run, active.len());
        on_event(&event);
        let (candidates, search) = candidates(kind, &active, &policy, &turns, seeds.as_ref(), &options.bounds);
        let ask_about = Asking { policy: &policy, now, budget: &options.budget, style: provider.proposal_style() };
        let (asked, shown, notes) =
            ask_pass(provider, &ask_about, kind, &active, &candidates, fresh.as_ref(), &options.stop).await;
        if options.stop.is_stopped() {
            event.phase = Phase::Error;
            event.error = Some("stopped by the user".into());
            on_event(&event);
            return Err(SleepError::Stopped { after: passes.last().map(|p: &PassReport| p.event.pass) });
        }
        let (calls, prompt_tokens, completion_tokens) = (asked.calls, asked.prompt_tokens, asked.completion_tokens);
        let proposals = match asked.proposals {
            Ok(list) => list,
            Err(Failure { message, unusable }) => {
                event.phase = Phase::Error;
                event.error = Some(message.clone());
                on_event(&event);
                if !unusable {
                    return Err(SleepError::Pass { pass: kind, message });
                }
                // One reply that ran long or came out malformed ends its pass, which
                // changes nothing; the Sleep goes on with the next pass.
                let (mutations, outcomes) = (Vec::new(), Vec::new());
                let report =
                    PassReport { event, mutations, search, calls, prompt_tokens, completion_tokens, notes, outcomes };
                passes.push(report);
                continue;
            }
        };
        drop(active);
        let plan = pass::plan(
            kind,
            PassInput {
                items: &items,
                policy: &policy,
                now,
                candidates: &candidates,
                turns: &turns,
                shown: shown.as_ref(),
            },
            proposals,
        );
        let mutations = plan.mutations(&items, now);
        let refused_model =
            plan.outcomes.iter().filter(|o| o.proposer == Proposer::Model && !o.verdict.is_accepted()).count();
        provider.observe_refusals(plan.proposed(), refused_model);
        if !options.dry_run {
            let written = commit_pass(store, kind, passes.is_empty(), &plan, &mutations, head, now).await?;
            head = written.last().map_or(head, |v| v.seq);
            event.after_version = written.last().map(|v| v.seq);
            event.before_version = written.iter().rev().nth(1).map(|v| v.seq);
        }
        for row in &plan.changed {
            items.insert(row.item_id.clone(), row.clone());
        }
        let event = event.done(&plan, items.values().filter(|i| i.active).count());
        on_event(&event);
        let outcomes = plan.outcomes;
        passes.push(PassReport { event, mutations, search, calls, prompt_tokens, completion_tokens, notes, outcomes });
    }
    let active_after = items.values().filter(|i| i.active).count();
    Ok(SleepReport {
        dry_run: options.dry_run,
        fresh: fresh.map(|f| f.len()),
        active_before,
        active_after,
        passes,
        policy_note,
        planned_on: meta.head,
    })
}

/// The policy a Sleep runs under: the what-if one a dry run was given, else the store's —
/// moved to forget by value when it is still on the old default, with the note saying so.
pub fn in_force(stored: &RetentionPolicy, options: &SleepOptions) -> (RetentionPolicy, Option<String>) {
    match (&options.policy, stored.migrated()) {
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
    options: &SleepOptions,
) -> Result<(RetentionPolicy, Option<String>), SleepError> {
    if options.policy.is_some() && !options.dry_run {
        return Err(SleepError::Store(StoreError::Invalid("a what-if policy is only allowed in a dry run".into())));
    }
    let (policy, note) = in_force(&meta.policy, options);
    if let Some(note) = note.as_deref().filter(|_| options.policy.is_none() && !options.dry_run) {
        move_policy(store, &meta.policy, &policy, note, meta.head, options.now).await?;
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

/// What a Sleep is expected to ask the model, worked out before anything runs: each
/// pass's requests built against the memory as it is now (later passes will see fewer
/// facts once earlier ones retire some, so this is an upper estimate).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Estimate {
    /// `incremental` or `deep` (a first Sleep is deep whatever was asked).
    pub scope: &'static str,
    /// Facts added or changed since the last completed Sleep (for an incremental Sleep).
    pub fresh: Option<usize>,
    pub active: usize,
    pub calls: usize,
    pub prompt_tokens: u64,
    /// Calls per pass, in pass order.
    pub by_pass: Vec<(PassKind, usize)>,
    /// Active facts the retention rules alone would retire (stale and unprotected, past
    /// due, over capacity) — what a Sleep forgets whatever the model says.
    pub retire: usize,
}

impl Estimate {
    /// `estimate: scope=incremental fresh=12 active=430 calls=9 promptTokens=11062 retire=3`.
    pub fn line(&self) -> String {
        let fresh = self.fresh.map_or(String::new(), |f| format!(" fresh={f}"));
        format!(
            "estimate: scope={}{fresh} active={} calls={} promptTokens={} retire={}",
            self.scope, self.active, self.calls, self.prompt_tokens, self.retire
        )
    }

    /// Whether the Sleep would retire more than a quarter of the active memory (and at
    /// least [`CONFIRM_RETIRE_AT_LEAST`] facts), so a person should confirm it first.
    pub fn retires_a_lot(&self) -> bool {
        self.retire * 4 > self.active && self.retire >= CONFIRM_RETIRE_AT_LEAST
    }
}

/// A small memory losing a stale fact or two is not worth a question.
pub const CONFIRM_RETIRE_AT_LEAST: usize = 10;

/// Estimates the calls and prompt tokens of a Sleep with `options` over `store`, asking
/// no model and writing nothing: [`Basis::read`], then [`Estimating`] to its end.
pub async fn estimate<S: Store>(
    store: &S,
    style: provider::ProposalStyle,
    options: &SleepOptions,
) -> Result<Estimate, StoreError> {
    let basis = Basis::read(store, options).await?;
    let mut estimating = Estimating::new(&basis, style, options);
    loop {
        if let Some(estimate) = estimating.step(usize::MAX) {
            return Ok(estimate);
        }
    }
}

/// What a Sleep's estimate is worked out from, read from the store once: the policy in
/// force, the facts, the transcript, and what is new since the last completed Sleep.
pub struct Basis {
    policy: RetentionPolicy,
    items: Vec<Item>,
    turns: Vec<crate::model::memory::Turn>,
    fresh: Option<Fresh>,
}

impl Basis {
    /// Reads what a Sleep with `options` over `store` would start from.
    pub async fn read<S: Store>(store: &S, options: &SleepOptions) -> Result<Basis, StoreError> {
        let meta = store.meta().await?;
        let (policy, _) = in_force(&meta.policy, options);
        let items = store.items().await?;
        let turns = store.transcript().await?;
        let fresh = fresh_since(store, options.scope, meta.head, items.iter()).await?;
        Ok(Basis { policy, items, turns, fresh })
    }
}

/// A Sleep's [`Estimate`] worked out a step at a time, so a page can return to its event
/// loop between steps: first the retention rules over the active facts, `facts` of them a
/// step, then for each pass a step finding its candidates and one building its requests.
/// Stepped to its end, it is [`estimate`]'s result, whatever the step sizes.
///
/// ```
/// # use nocturne_core::flow::sleep::{Basis, Estimating, SleepOptions};
/// # use nocturne_core::llm::provider::ProposalStyle;
/// # use nocturne_core::store::MemStore;
/// # pollster::block_on(async {
/// let options = SleepOptions::new(0);
/// let basis = Basis::read(&MemStore::new(), &options).await.unwrap();
/// let mut estimating = Estimating::new(&basis, ProposalStyle::FreeText, &options);
/// let estimate = loop {
///     if let Some(e) = estimating.step(100) { break e; }
/// };
/// assert_eq!(estimate.active, 0);
/// # });
/// ```
pub struct Estimating<'a> {
    basis: &'a Basis,
    style: provider::ProposalStyle,
    options: &'a SleepOptions,
    active: Vec<&'a Item>,
    seeds: Option<HashSet<String>>,
    overflow: std::collections::BTreeSet<String>,
    /// Active facts the retention rules have looked at so far.
    ruled: usize,
    /// Passes estimated so far.
    passes: usize,
    /// The next pass's candidates, found in the step before its requests are built.
    found: Option<Candidates>,
    out: Estimate,
}

impl<'a> Estimating<'a> {
    pub fn new(basis: &'a Basis, style: provider::ProposalStyle, options: &'a SleepOptions) -> Self {
        let mut active: Vec<&Item> = basis.items.iter().filter(|i| i.active).collect();
        order::sort_by_key(&mut active, |i| i.ordinal());
        let overflow = basis.policy.overflow(active.iter().copied(), options.now);
        let out = Estimate {
            retire: 0,
            scope: if basis.fresh.is_some() { "incremental" } else { "deep" },
            fresh: basis.fresh.as_ref().map(Fresh::len),
            active: active.len(),
            calls: 0,
            prompt_tokens: 0,
            by_pass: Vec::new(),
        };
        let seeds = basis.fresh.as_ref().map(Fresh::seeds);
        Estimating { basis, style, options, active, seeds, overflow, ruled: 0, passes: 0, found: None, out }
    }

    /// Works out the next step (the retention rules over the next `facts` active facts, at
    /// least one; once all are ruled, the next pass's candidates, then its requests); the
    /// estimate once every step is done.
    pub fn step(&mut self, facts: usize) -> Option<Estimate> {
        let (policy, now) = (&self.basis.policy, self.options.now);
        if self.ruled < self.active.len() {
            let end = self.active.len().min(self.ruled.saturating_add(facts.max(1)));
            self.out.retire += self.active[self.ruled..end]
                .iter()
                .filter(|i| {
                    self.overflow.contains(&i.item_id)
                        || policy.fell_due(i, now).is_some()
                        || policy.passed(i, now).is_some()
                        || (!policy.protects(i, now) && policy.is_stale(i, now))
                })
                .count();
            self.ruled = end;
        } else if let Some(&kind) = PassKind::SLEEP.get(self.passes) {
            let options = self.options;
            match self.found.take() {
                None => {
                    let seeds = self.seeds.as_ref();
                    let (found, _) = candidates(kind, &self.active, policy, &self.basis.turns, seeds, &options.bounds);
                    self.found = Some(found);
                }
                Some(found) => {
                    let asking = Asking { policy, now, budget: &options.budget, style: self.style };
                    let (requests, _) = asking.requests(kind, &self.active, &found, self.basis.fresh.as_ref());
                    self.out.calls += requests.len();
                    self.out.prompt_tokens += requests
                        .iter()
                        .flat_map(|r| &r.messages)
                        .map(|m| provider::estimate_tokens(&m.content))
                        .sum::<u64>();
                    self.out.by_pass.push((kind, requests.len()));
                    self.passes += 1;
                }
            }
        }
        (self.ruled == self.active.len() && self.passes == PassKind::SLEEP.len()).then(|| self.out.clone())
    }
}

/// The engine's candidate pairs for pass `kind` over the active facts (those touching
/// `seeds` where only new pairs are sent), and what finding them took.
fn candidates(
    kind: PassKind,
    active: &[&Item],
    policy: &crate::model::policy::RetentionPolicy,
    turns: &[crate::model::memory::Turn],
    seeds: Option<&HashSet<String>>,
    bounds: &candidates::Bounds,
) -> (Candidates, Work) {
    match kind {
        PassKind::Dedupe => {
            let (pairs, work) = candidates::duplicates(active, policy.similarity_threshold, bounds);
            (Candidates::Duplicates(pairs), work)
        }
        PassKind::Supersede => {
            let (pairs, work) = candidates::conflicts(active, policy, turns, seeds, bounds);
            (Candidates::Conflicts(pairs), work)
        }
        PassKind::Merge => {
            let (pairs, work) = candidates::merges(active, policy, seeds, bounds);
            (Candidates::Merges(pairs), work)
        }
        PassKind::Encode | PassKind::Promote | PassKind::Forget => (Candidates::None, Work::default()),
    }
}

/// What a pass's requests are built from, besides the facts.
#[derive(Clone, Copy)]
struct Asking<'a> {
    policy: &'a crate::model::policy::RetentionPolicy,
    now: i64,
    budget: &'a Budget,
    style: provider::ProposalStyle,
}

impl Asking<'_> {
    /// The requests of pass `kind` over `active`, or over its focus when only `fresh`
    /// ids are new; and the ids the model is shown (`None`: all of them).
    fn requests(
        &self,
        kind: PassKind,
        active: &[&Item],
        candidates: &Candidates,
        fresh: Option<&Fresh>,
    ) -> (Vec<provider::Request>, Option<HashSet<String>>) {
        let f = focus::focus(kind, active, fresh, candidates);
        let requests =
            prompt::pass_requests(kind, &f.items, &f.candidates, self.policy, self.now, self.budget, self.style);
        let shown = fresh.map(|_| f.items.iter().map(|i| i.item_id.clone()).collect());
        (requests, shown)
    }
}

/// What is new since the last completed Sleep ([`Fresh`]), or `None` when the Sleep is
/// deep: asked for, or no Sleep has completed yet.
async fn fresh_since<'i, S: Store>(
    store: &S,
    scope: Scope,
    head: u64,
    items: impl Iterator<Item = &'i Item>,
) -> Result<Option<Fresh>, StoreError> {
    if scope == Scope::Deep {
        return Ok(None);
    }
    let active: HashMap<&str, &Item> = items.filter(|i| i.active).map(|i| (i.item_id.as_str(), i)).collect();
    let versions = store.versions().await?;
    let Some((start, end)) = focus::last_completed_sleep(&versions) else { return Ok(None) };
    // The last Sleep's own versions: its passes' (another writer's commits between them
    // carry their own labels).
    let own: HashSet<u64> =
        versions.iter().filter(|v| v.seq > start && v.seq <= end && v.kind().is_sleep()).map(|v| v.seq).collect();
    let mut fresh = Fresh::default();
    let mut judged: HashSet<String> = HashSet::new();
    for (seq, item) in store.changes(start, head).await? {
        if !active.contains_key(item.item_id.as_str()) {
            continue;
        }
        if own.contains(&seq) {
            judged.insert(item.item_id);
        } else {
            fresh.ids.insert(item.item_id);
        }
    }
    judged.retain(|id| !fresh.ids.contains(id));
    let ids: Vec<String> = judged.iter().cloned().collect();
    let before: HashMap<String, Item> =
        store.item_states(&ids, start).await?.into_iter().map(|i| (i.item_id.clone(), i)).collect();
    for id in ids {
        let (Some(was), Some(is)) = (before.get(&id), active.get(id.as_str())) else {
            fresh.ids.insert(id); // written by the Sleep (a merge's fact)
            continue;
        };
        if was.text != is.text || was.category != is.category || was.speaker != is.speaker {
            fresh.ids.insert(id);
        } else if was.block != is.block {
            fresh.moved.insert(id, was.block);
        }
    }
    Ok(Some(fresh))
}

/// Writes one pass atomically: its markers, changed rows and every verdict, planned
/// against `head` (a conflict if the memory moved meanwhile).
pub(crate) async fn commit_pass<S: Store>(
    store: &S,
    kind: PassKind,
    first: bool,
    plan: &pass::Plan,
    mutations: &[Mutation],
    head: u64,
    now: i64,
) -> Result<Vec<crate::model::memory::Version>, StoreError> {
    let mut markers = Vec::new();
    if first {
        markers.push(Label::SleepStart.to_string());
    }
    markers.push(Label::PassBefore(kind).to_string());
    store
        .commit(Commit {
            at: now,
            markers,
            label: Some(Label::PassAfter(kind).to_string()),
            items: plan.changed.clone(),
            mutations: mutations.to_vec(),
            base: Some(head),
            ..Default::default()
        })
        .await
}

/// What asking the model for one pass's proposals gave, and cost.
struct Asked {
    proposals: Result<Vec<serde_json::Value>, Failure>,
    calls: usize,
    prompt_tokens: u64,
    completion_tokens: u64,
}

/// Why asking failed: a transport error or a stop (`unusable: false`), or a reply that
/// came back cut off or malformed (`unusable: true`).
struct Failure {
    message: String,
    unusable: bool,
}

/// Asks for one pass's proposals. A free-text reply cut off or malformed counts against
/// free text: on `auto` the pass is asked again at once, by choosing, and the switch is
/// noted. Returns what was asked, the facts shown (an incremental Sleep's focus) and notes.
async fn ask_pass<P: Provider>(
    provider: &P,
    about: &Asking<'_>,
    kind: PassKind,
    active: &[&Item],
    candidates: &Candidates,
    fresh: Option<&Fresh>,
    stop: &StopToken,
) -> (Asked, Option<HashSet<String>>, Vec<String>) {
    let (requests, shown) = about.requests(kind, active, candidates, fresh);
    let asked = ask(provider, kind, &requests, stop).await;
    let retry = match &asked.proposals {
        Err(failure) if failure.unusable && about.style == provider::ProposalStyle::FreeText => {
            provider.observe_unusable(&failure.message)
        }
        _ => None,
    };
    let Some(line) = retry else { return (asked, shown, Vec::new()) };
    let about = Asking { style: provider.proposal_style(), ..*about };
    let (requests, shown) = about.requests(kind, active, candidates, fresh);
    let again = ask(provider, kind, &requests, stop).await;
    let asked = Asked {
        calls: asked.calls + again.calls,
        prompt_tokens: asked.prompt_tokens + again.prompt_tokens,
        completion_tokens: asked.completion_tokens + again.completion_tokens,
        proposals: again.proposals,
    };
    (asked, shown, vec![line])
}

/// Sends each request of a pass in turn; the first transport error, truncated or
/// unparseable reply ends the pass (nothing of it is applied).
async fn ask<P: Provider>(provider: &P, kind: PassKind, requests: &[provider::Request], stop: &StopToken) -> Asked {
    let mut asked = Asked { proposals: Ok(Vec::new()), calls: 0, prompt_tokens: 0, completion_tokens: 0 };
    let mut proposals = Vec::new();
    for request in requests {
        if stop.is_stopped() {
            asked.proposals = Err(Failure { message: "stopped by the user".into(), unusable: false });
            return asked;
        }
        let reply = async {
            let completion =
                provider.complete(request).await.map_err(|e| Failure { message: e.to_string(), unusable: false })?;
            asked.calls += 1;
            asked.prompt_tokens += completion.prompt_tokens;
            asked.completion_tokens += completion.completion_tokens;
            let unusable = |message: String| Failure { message, unusable: true };
            if completion.truncated {
                return Err(unusable("the reply was cut off at the token limit (finish_reason: length)".to_string()));
            }
            let json = provider::extract_json(&completion.text).map_err(unusable)?;
            provider::proposals(&json, kind.proposal_key()).map_err(unusable)
        }
        .await;
        match reply {
            Ok(list) => proposals.extend(list),
            Err(message) => {
                asked.proposals = Err(message);
                return asked;
            }
        }
    }
    asked.proposals = Ok(proposals);
    asked
}

impl PassEvent {
    /// One human-readable line: `pass:dedupe:done in=22 proposed=10 …`.
    pub fn event_line(&self) -> String {
        let versions = match (self.before_version, self.after_version) {
            (Some(b), Some(a)) => format!(" v{b}->v{a}"),
            _ => String::new(),
        };
        match &self.error {
            Some(e) => format!("{} {e}", self.name()),
            None => format!(
                "{} in={} proposed={} accepted={} rejected={} enforced={} activeAfter={}{versions}",
                self.name(),
                self.input,
                self.proposed,
                self.accepted,
                self.rejected,
                self.enforced,
                self.active_after
            ),
        }
    }
}
