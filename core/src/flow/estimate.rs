//! What a Sleep will ask the model, worked out before it runs and without a call: each
//! pass's requests built against the memory as it is, counted as calls and prompt tokens,
//! and what the retention rules alone would retire.

use crate::flow::focus::Fresh;
use crate::flow::policy::in_force;
use crate::flow::sleep::{candidates, fresh_since, RequestSettings, SleepOptions};
use crate::llm::provider;
use crate::model::candidate::Candidates;
use crate::model::memory::Item;
use crate::model::pass::PassKind;
use crate::model::policy::RetentionPolicy;
use crate::store::{Store, StoreError};
use crate::text::order;
use serde::Serialize;
use std::collections::HashSet;

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
    /// Active facts the Sleep would retire. Worked out without a model it is what the
    /// retention rules alone retire (stale and unprotected, past due, over capacity) — what a
    /// Sleep forgets whatever the model says; once the Sleep is planned
    /// ([`crate::flow::review::Retiring`]) it is everything the plan retires by every pass
    /// (drop, merge, supersede, forget), which is what the guard reads.
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

    /// Whether the Sleep would retire more than [`allowance`] allows, so a person should
    /// say go ahead first.
    pub fn retires_a_lot(&self) -> bool {
        retires_a_lot(self.retire, self.active)
    }
}

/// How many of `active` facts a Sleep may retire without the user's go-ahead: a quarter of
/// them, rounded down, or two if that is more — a small memory's everyday Sleep drops a
/// duplicate and supersedes an old value — but never more than half: no memory, however
/// small, loses most of itself (or its last fact) without a question.
///
/// ```
/// use nocturne_core::flow::estimate::{allowance, retires_a_lot};
/// assert_eq!((allowance(1), allowance(2), allowance(5), allowance(7), allowance(14), allowance(501)), (0, 1, 2, 2, 3, 125));
/// assert!(retires_a_lot(7, 7) && retires_a_lot(7, 14) && retires_a_lot(246, 501) && retires_a_lot(1, 1));
/// assert!(!retires_a_lot(1, 2) && !retires_a_lot(2, 5) && retires_a_lot(2, 3) && !retires_a_lot(3, 12));
/// ```
pub fn allowance(active: usize) -> usize {
    (active / 4).max(2).min(active / 2)
}

/// Whether retiring `retire` of `active` facts needs the user's go-ahead: more than
/// [`allowance`]. No floor lets a small memory be emptied.
pub fn retires_a_lot(retire: usize, active: usize) -> bool {
    retire > allowance(active)
}

/// Estimates the calls and prompt tokens of a Sleep with `options` over `store`, asking
/// no model and writing nothing: [`EstimateInput::read`], then [`Estimating`] to its end.
pub async fn estimate<S: Store>(
    store: &S,
    style: provider::ProposalStyle,
    options: &SleepOptions,
) -> Result<Estimate, StoreError> {
    let basis = EstimateInput::read(store, options).await?;
    let mut estimating = Estimating::new(&basis, style, options);
    loop {
        if let Some(estimate) = estimating.step(usize::MAX) {
            return Ok(estimate);
        }
    }
}

/// What a Sleep's estimate is worked out from, read from the store once: the policy in
/// force, the facts, the transcript, and what is new since the last completed Sleep.
pub struct EstimateInput {
    policy: RetentionPolicy,
    items: Vec<Item>,
    turns: Vec<crate::model::memory::Turn>,
    fresh: Option<Fresh>,
}

impl EstimateInput {
    /// Reads what a Sleep with `options` over `store` would start from.
    pub async fn read<S: Store>(store: &S, options: &SleepOptions) -> Result<EstimateInput, StoreError> {
        let meta = store.meta().await?;
        let (policy, _) = in_force(&meta.policy, options.policy.as_ref());
        let items = store.items().await?;
        let turns = store.transcript().await?;
        let fresh = fresh_since(store, options.scope, meta.head, items.iter()).await?;
        Ok(EstimateInput { policy, items, turns, fresh })
    }
}

/// A Sleep's [`Estimate`] worked out a step at a time, so a page can return to its event
/// loop between steps: first the retention rules over the active facts, `facts` of them a
/// step, then for each pass a step finding its candidates and one building its requests.
/// Stepped to its end, it is [`estimate`]'s result, whatever the step sizes.
///
/// ```
/// # use nocturne_core::flow::estimate::{EstimateInput, Estimating};
/// # use nocturne_core::flow::sleep::SleepOptions;
/// # use nocturne_core::llm::provider::ProposalStyle;
/// # use nocturne_core::store::MemStore;
/// # pollster::block_on(async {
/// let options = SleepOptions::new(0);
/// let basis = EstimateInput::read(&MemStore::new(), &options).await.unwrap();
/// let mut estimating = Estimating::new(&basis, ProposalStyle::FreeText, &options);
/// let estimate = loop {
///     if let Some(e) = estimating.step(100) { break e; }
/// };
/// assert_eq!(estimate.active, 0);
/// # });
/// ```
pub struct Estimating<'a> {
    basis: &'a EstimateInput,
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
    pub fn new(basis: &'a EstimateInput, style: provider::ProposalStyle, options: &'a SleepOptions) -> Self {
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
                    let asking = RequestSettings { policy, now, budget: &options.budget, style: self.style };
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
