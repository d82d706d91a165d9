//! A plan applied: the edits the user approved (or all of a Sleep's own plan), each judged
//! again on the memory as it is then, pass by pass as one Sleep; an edit not approved, or
//! refused when planned, logged as refused with why.

use super::{Applied, Decisions, Proposed, Review, ReviewError};
use crate::flow::pass::{self, Outcome, PassInput, Refused, Replay};
use crate::flow::report::{PassEvent, PassReport, SleepReport};
use crate::flow::sleep::{self, SleepOptions};
use crate::model::candidate::Candidates;
use crate::model::memory::Item;
use crate::model::pass::PassKind;
use crate::store::Store;
use std::collections::{BTreeMap, HashSet};

/// How a plan is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applying {
    /// As the user decided on it: an edit not approved is logged as refused by the user, one
    /// the gates refused when planned as "refused when planned", and a plan whose every edit
    /// the log already holds applies nothing.
    Reviewed,
    /// As the Sleep that just made it ([`apply_sleep`]): every edit approved, one the gates
    /// refused logged with their own reason, and every pass written even when it changes
    /// nothing — a Sleep with nothing to do still completes, and the next incremental Sleep
    /// counts from it.
    Sleep,
}

/// Applies the edits of `review` that `decisions` approve to the memory as it is at `now`,
/// each judged again, as one Sleep (a version per pass); logs each edit not approved as
/// refused by the user and each edit refused when planned with that reason. Edits the log
/// already holds are skipped, so a second apply applies nothing.
pub async fn apply<S: Store>(
    store: &S,
    review: &Review,
    decisions: &Decisions,
    now: i64,
    on_event: &mut dyn FnMut(&PassEvent),
) -> Result<Applied, ReviewError> {
    apply_as(store, review, decisions, Applying::Reviewed, now, on_event).await
}

/// A Sleep's own plan applied as that Sleep: what it planned, judged again on the memory as
/// it is (so nothing beyond the plan is applied, and on the head it was planned on exactly
/// the plan), a version per pass. No model is asked and no rule runs again.
pub async fn apply_sleep<S: Store>(
    store: &S,
    review: &Review,
    now: i64,
    on_event: &mut dyn FnMut(&PassEvent),
) -> Result<Applied, ReviewError> {
    apply_as(store, review, &Decisions::all(), Applying::Sleep, now, on_event).await
}

/// [`apply`] or [`apply_sleep`], as `how` says.
pub async fn apply_as<S: Store>(
    store: &S,
    review: &Review,
    decisions: &Decisions,
    how: Applying,
    now: i64,
    on_event: &mut dyn FnMut(&PassEvent),
) -> Result<Applied, ReviewError> {
    review.check(decisions)?;
    let log = store.mutations().await?;
    // What the user refused before is refused again, even when approved now.
    let refused = Refused::from_log(&store.versions().await?, &log);
    let logged: HashSet<String> = log.into_iter().filter_map(|m| m.refs.review).collect();
    let todo: Vec<&Proposed> = review.edits.iter().filter(|e| !logged.contains(&review.reference(&e.id))).collect();
    let already = review.edits.len() - todo.len();
    let mut applied = Applied { already, ..Default::default() };
    if todo.is_empty() && how == Applying::Reviewed {
        return Ok(applied);
    }
    let meta = store.meta().await?;
    let options = SleepOptions::new(now);
    let (policy, policy_note) =
        crate::flow::policy::policy_for(store, &meta, options.policy.as_ref(), options.dry_run, now).await?;
    // Read again: moving a store off the old default policy writes a version.
    let meta = store.meta().await?;
    applied.moved = (meta.head != review.planned_on).then_some((review.planned_on, meta.head));
    let mut memory = Target {
        head: meta.head,
        items: store.items().await?.into_iter().map(|i| (i.item_id.clone(), i)).collect(),
        turns: store.transcript().await?,
        policy,
        refused,
    };
    let active_before = memory.active();
    let mut passes = Vec::new();
    for kind in PassKind::SLEEP {
        let edits: Vec<&Proposed> = todo.iter().copied().filter(|e| e.pass == kind).collect();
        let replays = edits.iter().map(|e| replay_of(review, e, decisions, how)).collect();
        let first = passes.is_empty();
        let (report, outcomes) = memory.pass(store, kind, first, replays, &edits, review, now, on_event).await?;
        applied.count(&edits, &outcomes, decisions);
        passes.push(report);
    }
    applied.report = Some(SleepReport {
        dry_run: false,
        fresh: None,
        active_before,
        active_after: memory.active(),
        passes,
        policy_note,
        planned_on: meta.head,
    });
    Ok(applied)
}

/// How edit `e` of `review` is applied again: judged afresh, or refused unjudged with why.
fn replay_of(review: &Review, e: &Proposed, decisions: &Decisions, how: Applying) -> Replay {
    let refusal = match (&e.refused, how) {
        (Some(why), Applying::Sleep) => Some(why.clone()),
        (Some(why), Applying::Reviewed) => Some(format!("refused when planned (v{}): {why}", review.planned_on)),
        (None, _) if !decisions.approves(&e.id) => Some(decisions.why_not(&e.id)),
        (None, _) => None,
    };
    Replay { proposer: e.proposer, proposal: e.proposal.clone(), refusal }
}

/// The memory a plan is being applied to, pass by pass.
struct Target {
    head: u64,
    items: BTreeMap<String, Item>,
    turns: Vec<crate::model::memory::Turn>,
    policy: crate::model::policy::RetentionPolicy,
    /// What the user refused before: refused again, even when approved now.
    refused: Refused,
}

impl Target {
    fn active(&self) -> usize {
        self.items.values().filter(|i| i.active).count()
    }

    /// Judges and writes one pass of the plan: its report, and each edit's outcome.
    #[allow(clippy::too_many_arguments)]
    async fn pass<S: Store>(
        &mut self,
        store: &S,
        kind: PassKind,
        first: bool,
        replays: Vec<Replay>,
        edits: &[&Proposed],
        review: &Review,
        now: i64,
        on_event: &mut dyn FnMut(&PassEvent),
    ) -> Result<(PassReport, Vec<Outcome>), ReviewError> {
        let input = self.active();
        on_event(&PassEvent::start(kind, false, input));
        let plan = pass::replay(
            kind,
            PassInput {
                items: &self.items,
                policy: &self.policy,
                now,
                candidates: &Candidates::None,
                turns: &self.turns,
                shown: None,
                refused: Some(&self.refused),
            },
            replays,
        );
        let mut mutations = plan.mutations(&self.items, now);
        for (m, e) in mutations.iter_mut().zip(edits) {
            m.refs.review = Some(review.reference(&e.id));
        }
        let written = sleep::commit_pass(store, kind, first, &plan, &mutations, self.head, now).await?;
        self.head = written.last().map_or(self.head, |v| v.seq);
        for row in &plan.changed {
            self.items.insert(row.item_id.clone(), row.clone());
        }
        let event = PassEvent {
            after_version: written.last().map(|v| v.seq),
            before_version: written.iter().rev().nth(1).map(|v| v.seq),
            ..PassEvent::start(kind, false, input)
        }
        .done(&plan, self.active());
        on_event(&event);
        let report = PassReport {
            event,
            mutations,
            search: Default::default(),
            calls: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            notes: Vec::new(),
            outcomes: plan.outcomes.clone(),
        };
        Ok((report, plan.outcomes))
    }
}
