//! A Sleep through the journal: planned whole first — every pass, the model asked once per
//! request, nothing written — then the guard reads the plan: what it counts is everything
//! the Sleep would retire by every pass (a drop, a merge, a supersession, a forget), and a
//! plan that would retire more than `flow::estimate::allowance` allows is refused, writing
//! nothing, unless the user said go ahead. Otherwise the plan is applied as that Sleep
//! (`flow::review::apply_sleep`: judged again, no model call), recorded when the memory
//! syncs, under the space's Sleep lease. So the `retire=` shown before is what is applied.

use super::command::{Command, Done, ImportSleep, Progress, Sleep, Slept, Watch};
use super::error::{Heavy, Refusal, Stopped, WriteError};
use super::hooks::{Recorder, WriteLock};
use super::journal::{Journal, Perform};
use crate::flow::estimate::{self, Estimate};
use crate::flow::import::{self, Report};
use crate::flow::import_plan::SleepAfter;
use crate::flow::report::{PassEvent, SleepReport};
use crate::flow::review::{self, Review, ReviewError};
use crate::flow::sleep::SleepError;
use crate::llm::provider::Provider;
use crate::model::pass::PassKind;
use crate::store::{replanning, Store};
use crate::text::when::Day;

impl Perform for Sleep {
    type Output = Slept;
    async fn perform_in<S: Store, L: WriteLock, R: Recorder, P: Provider>(
        self,
        j: &Journal<'_, S, L, R>,
        provider: &P,
        watch: &mut Watch<'_>,
    ) -> Result<Done<Slept>, WriteError> {
        if self.plan_only {
            // Writes nothing: no lock, no lease.
            let (plan, planned, estimate) = plan(j.store, provider, &self, watch).await?;
            let retiring = plan.retiring();
            return Ok(Done::plain(Slept { plan, planned, estimate, retiring, applied: None, lease_note: None }));
        }
        // Only when no other writer holds the memory: a Sleep never waits behind one.
        j.lock.hold_if_free(leased(j, provider, self, watch)).await
    }
}

/// The Sleep under the space's lease (when the memory syncs), given back however it ends.
async fn leased<S: Store, L: WriteLock, R: Recorder, P: Provider>(
    j: &Journal<'_, S, L, R>,
    provider: &P,
    sleep: Sleep,
    watch: &mut Watch<'_>,
) -> Result<Done<Slept>, WriteError> {
    let at = sleep.options.now;
    let lease_note = j.sync.take_lease(at).await?;
    let done = guarded(j, provider, sleep, lease_note, watch).await;
    j.sync.release_lease(at).await;
    done
}

/// Plans (or takes the plan given), guards, applies.
async fn guarded<S: Store, L: WriteLock, R: Recorder, P: Provider>(
    j: &Journal<'_, S, L, R>,
    provider: &P,
    mut sleep: Sleep,
    lease_note: Option<String>,
    watch: &mut Watch<'_>,
) -> Result<Done<Slept>, WriteError> {
    let (plan, planned, estimate) = match sleep.planned.take() {
        Some(plan) => given(j.store, provider, *plan, &sleep).await?,
        None => plan(j.store, provider, &sleep, watch).await?,
    };
    let retiring = plan.retiring();
    if estimate.retires_a_lot() && !sleep.go_ahead {
        return Err(WriteError::Refused(Refusal::Heavy(Box::new(Heavy { estimate, retiring, plan }))));
    }
    let at = sleep.options.now;
    let (applied, recorded) = if j.sync.syncs().await? {
        sleep.planned = Some(Box::new(plan.clone()));
        let r = j.record(provider, Command::Sleep(sleep), watch).await?;
        let applied = r.applied.ok_or_else(|| WriteError::Refused(Refusal::Record(r.note.clone())))?;
        (applied, Some(r.note))
    } else {
        let mut on_event = |e: &PassEvent| watch.say(Progress::Pass(e));
        let conflict = |e: &ReviewError| matches!(e, ReviewError::Sleep(SleepError::Store(e)) if e.is_conflict());
        let applied =
            replanning(conflict, async || review::apply_sleep(j.store, &plan, at, &mut on_event).await).await?;
        (applied, None)
    };
    let slept = Slept { plan, planned, estimate, retiring, applied: applied.report, lease_note };
    Ok(Done { done: slept, recorded })
}

/// The Sleep planned (a dry run, every pass), what it will ask worked out first, and what it
/// would retire counted from the plan: said to the watch before anything is written.
async fn plan<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    sleep: &Sleep,
    watch: &mut Watch<'_>,
) -> Result<(Review, SleepReport, Estimate), WriteError> {
    let mut estimate = estimate::estimate(store, provider.proposal_style(), &sleep.options).await?;
    let planned = {
        let mut on_event = |e: &PassEvent| watch.say(Progress::Pass(e));
        review::planned(store, provider, &sleep.options, &mut on_event).await
    };
    let (plan, planned) = planned.map_err(|e| match e {
        SleepError::Stopped { after } => WriteError::Stopped(Stopped::Planning { during: next_pass(after) }),
        e => e.into(),
    })?;
    estimate.active = planned.active_before;
    estimate.retire = plan.retiring().count();
    watch.say(Progress::Planned(&estimate));
    Ok((plan, planned, estimate))
}

/// A plan made before (the user was shown it, and agreed): counted as it is, asking no model.
async fn given<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    plan: Review,
    sleep: &Sleep,
) -> Result<(Review, SleepReport, Estimate), WriteError> {
    let mut estimate = estimate::estimate(store, provider.proposal_style(), &sleep.options).await?;
    estimate.retire = plan.retiring().count();
    let planned = SleepReport {
        dry_run: true,
        fresh: None,
        active_before: estimate.active,
        active_after: estimate.active.saturating_sub(estimate.retire),
        passes: Vec::new(),
        policy_note: None,
        planned_on: plan.planned_on,
    };
    Ok((plan, planned, estimate))
}

/// The pass after `after` in a Sleep (the first when `None`): the one a stop interrupted.
fn next_pass(after: Option<PassKind>) -> Option<PassKind> {
    match after {
        None => PassKind::SLEEP.first().copied(),
        Some(done) => PassKind::SLEEP.iter().skip_while(|p| **p != done).nth(1).copied(),
    }
}

impl Perform for ImportSleep {
    type Output = Report;
    async fn perform_in<S: Store, L: WriteLock, R: Recorder, P: Provider>(
        self,
        j: &Journal<'_, S, L, R>,
        provider: &P,
        watch: &mut Watch<'_>,
    ) -> Result<Done<Report>, WriteError> {
        let mut report = self.report;
        if self.options.sleep != SleepAfter::End || report.stopped || report.user_turns == 0 {
            return Ok(Done::plain(report));
        }
        let options = import::final_sleep_options(&self.options, self.at);
        let sleep = Sleep { options, plan_only: false, go_ahead: self.options.retire_a_lot, planned: None };
        // An import's writes wait for the lock; so does the Sleep that ends it.
        let slept = j.lock.hold(leased(j, provider, sleep, watch)).await;
        let mut recorded = None;
        match slept {
            Ok(done) => {
                report.sleeps += 1;
                recorded = done.recorded;
            }
            Err(WriteError::Refused(Refusal::Heavy(h))) => {
                report.held = Some(import::held(&h.retiring, h.estimate.active));
            }
            Err(WriteError::Stopped(_)) => report.stopped = true,
            Err(e @ WriteError::Store(_)) => return Err(e),
            Err(e) => report.sleep_errors.push(format!("{}: {e}", Day::from_unix(self.at))),
        }
        Ok(Done { done: report, recorded })
    }
}
