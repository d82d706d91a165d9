//! The Sleep orchestrator: Dedupe → Merge → Supersede → Promote → Forget over a Store and a
//! Provider. The only async part of a Sleep; each pass itself is [`crate::flow::pass::plan`].
//! What it reports is [`crate::flow::report`], its estimate [`crate::flow::estimate`], the
//! policy it runs under [`crate::flow::policy`].

use crate::flow::focus::{self, Fresh, Scope};
use crate::flow::pair_search::{self, Work};
use crate::flow::pass::{self, PassInput};
use crate::flow::policy::policy_for;
use crate::flow::report::{PassEvent, PassReport, Phase, SleepReport};
use crate::flow::stop::StopToken;
use crate::llm::prompt::{self, Budget};
use crate::llm::provider::{self, Provider};
use crate::model::candidate::Candidates;
use crate::model::label::Label;
use crate::model::memory::{Item, Mutation, Proposer};
use crate::model::pass::PassKind;
use crate::store::{Commit, Store, StoreError};
use crate::text::order;
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
    pub bounds: pair_search::Bounds,
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
            bounds: pair_search::Bounds::default(),
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

impl std::error::Error for SleepError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SleepError::Store(e) => Some(e),
            SleepError::Pass { .. } | SleepError::Stopped { .. } => None,
        }
    }
}

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
    let (policy, policy_note) = policy_for(store, &meta, options.policy.as_ref(), options.dry_run, now).await?;
    let mut items: BTreeMap<String, Item> = store.items().await?.into_iter().map(|i| (i.item_id.clone(), i)).collect();
    let active_before = items.values().filter(|i| i.active).count();
    // Each pass is planned against this head; a writer that moves it meanwhile makes the
    // pass's commit a conflict, which ends the Sleep with nothing of that pass written.
    let mut head = meta.head;
    // Where Supersede looks for a change stated; the edits the user rejected or undid (never again).
    let (turns, refused) = (store.transcript().await?, pass::Refused::read(store).await?);
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
        let ask_about =
            RequestSettings { policy: &policy, now, budget: &options.budget, style: provider.proposal_style() };
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
                refused: Some(&refused),
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

/// The engine's candidate pairs for pass `kind` over the active facts (those touching
/// `seeds` where only new pairs are sent), and what finding them took.
pub(crate) fn candidates(
    kind: PassKind,
    active: &[&Item],
    policy: &crate::model::policy::RetentionPolicy,
    turns: &[crate::model::memory::Turn],
    seeds: Option<&HashSet<String>>,
    bounds: &pair_search::Bounds,
) -> (Candidates, Work) {
    match kind {
        PassKind::Dedupe => {
            let (pairs, work) = pair_search::duplicates(active, policy.similarity_threshold, bounds);
            (Candidates::Duplicates(pairs), work)
        }
        PassKind::Supersede => {
            let (pairs, work) = pair_search::conflicts(active, policy, turns, seeds, bounds);
            (Candidates::Conflicts(pairs), work)
        }
        PassKind::Merge => {
            let (pairs, work) = pair_search::merges(active, policy, seeds, bounds);
            (Candidates::Merges(pairs), work)
        }
        PassKind::Encode | PassKind::Promote | PassKind::Forget => (Candidates::None, Work::default()),
    }
}

/// What a pass's requests are built from, besides the facts: the policy, the clock, the
/// token budget and the proposal style.
#[derive(Clone, Copy)]
pub(crate) struct RequestSettings<'a> {
    pub(crate) policy: &'a crate::model::policy::RetentionPolicy,
    pub(crate) now: i64,
    pub(crate) budget: &'a Budget,
    pub(crate) style: provider::ProposalStyle,
}

impl RequestSettings<'_> {
    /// The requests of pass `kind` over `active`, or over its focus when only `fresh`
    /// ids are new; and the ids the model is shown (`None`: all of them).
    pub(crate) fn requests(
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
pub(crate) async fn fresh_since<'i, S: Store>(
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
    about: &RequestSettings<'_>,
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
    let about = RequestSettings { style: provider.proposal_style(), ..*about };
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
            let json = provider::extract_json(&completion.text).map_err(|e| unusable(e.into()))?;
            provider::proposals(&json, kind.proposal_key()).map_err(|e| unusable(e.into()))
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
