//! The verifier: the product proving itself. A scripted conversation through the real
//! chat path and encoder, a dry run, a real Sleep, the Wake quiz, a policy comparison,
//! the independent re-audit, the no-invention sweep and the model-free gate cases — each
//! check one line of evidence.

use crate::flow::chat;
use crate::flow::sleep::{self, SleepOptions};
use crate::gate::case;
use crate::llm::provider::Provider;
use crate::model::label::Label;
use crate::model::pass::PassKind;
use crate::model::policy::RetentionPolicy;
use crate::model::DAY;
use crate::proof::audit;
use crate::proof::check::{Check, Recorder, VerifyReport};
use crate::proof::recall::{falls_due, wake};
use crate::store::diff;
use crate::store::Store;
use crate::text::order;
use crate::text::{polarity, textmath};
use std::collections::BTreeSet;

/// The scripted conversation: (days before `now`, user message). Exact duplicates,
/// near-duplicates, old events (kept: forgetting is by value), a passing state whose week
/// is long over and a promise long past its date (both forgotten), protected facts, a
/// change of job, a negation and two facts that can both hold (two languages), then a
/// question.
pub const SCRIPT: &[(f64, &str)] = &[
    (70.0, "The kitchen leaks and the kettle is broken. I went to the hardware store yesterday."),
    (45.0, "I installed postgres 16 on the backup box. The backup box sits near the router. This week I'm swamped at work. I promised Marco I would return his drill by Monday."),
    (3.0, "I live in Lisbon and work best in the morning. I keep a bearded dragon. I work as a nurse."),
    (2.0, "I promised Ana I would review her thesis by Friday. I prefer green tea over coffee."),
    (2.0, "I keep a bearded dragon called Saffron. My stack is Airflow and Postgres. The cat next door is called Miso."),
    (1.0, "I live in Lisbon and work best in the morning."),
    (1.5, "I am not allergic to peanuts. I speak Portuguese."),
    (1.0, "My stack is Airflow and Postgres with dbt on top. I read science fiction on the train. My laptop has a cracked screen. I work as a teacher."),
    (0.5, "I speak English."),
    (0.1, "What do you remember about my dragon?"),
];

/// How strict the verifier is.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    pub now: i64,
    /// Require model-dependent checks (recall, the probe's reply) to pass — true for the
    /// offline provider, false for a real model whose skill is reported, not asserted.
    pub require_skill: bool,
    /// Gate case files to run with no model: (file name, JSON text).
    pub cases: Vec<(String, String)>,
}

/// Runs every check against `store`, which must be empty, calling `on_check` as each
/// result arrives. Errors of the store or provider become failed checks, not panics.
pub async fn verify<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    options: &VerifyOptions,
    on_check: &mut dyn FnMut(&Check),
) -> VerifyReport {
    let mut r = Recorder { report: VerifyReport::default(), require_skill: options.require_skill, sink: on_check };
    if let Err(message) = run(store, provider, options, &mut r).await {
        r.check("run", false, false, message);
    }
    r.report
}

async fn run<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    o: &VerifyOptions,
    r: &mut Recorder<'_>,
) -> Result<(), String> {
    // Gates first: they need no model, so a failing provider cannot hide them.
    gate_cases(&o.cases, r);
    let now = o.now;
    let active_seeded = seed(store, provider, now, r).await?;
    dry_run(store, provider, now, r).await?;
    policy_comparison(store, provider, now, active_seeded, r).await?;
    let Some(sleep) = real_sleep(store, provider, now, r).await? else { return Ok(()) };
    refusals_logged(store, &sleep, r).await?;
    re_audit(store, r).await?;
    no_invention(store, r).await?;
    meaning_held(store, r).await?;
    sleep_diff(store, &sleep, r).await?;
    restore_and_undo(store, &sleep, now, r).await?;
    wake(store, provider, now, r).await?;
    falls_due(store, provider, now, r).await?;
    erases(store, now, r).await
}

/// Where the real Sleep's versions start and end, and what it reported.
struct SleptRange {
    report: crate::flow::report::SleepReport,
    start: u64,
    end: u64,
}

/// 1. Seed through the real chat path and encoder; returns the active count.
async fn seed<S: Store, P: Provider>(store: &S, provider: &P, now: i64, r: &mut Recorder<'_>) -> Result<usize, String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    if !store.items().await.map_err(|x| e(&x))?.is_empty() {
        return Err("the verifier needs an empty store".into());
    }
    let (mut accepted, mut refused, mut errors, mut offered) = (0, 0, Vec::new(), 0);
    for (days, text) in SCRIPT {
        let at = now - (days * DAY as f64) as i64;
        let turn = chat::chat_turn(store, provider, text, at, chat::TurnOptions::default()).await.map_err(|x| e(&x))?;
        accepted += turn.encoded.iter().filter(|m| m.accepted).count();
        refused += turn.encoded.iter().filter(|m| !m.accepted).count();
        errors.extend(turn.encode_error);
        offered += turn.offered;
    }
    let transcript = store.transcript().await.map_err(|x| e(&x))?;
    let active_seeded = store.meta().await.map_err(|x| e(&x))?.active_count;
    // Independent of the chat path's own report: the stored user turns are what was said,
    // and every stored fact has its accepted encode mutation.
    let said: Vec<&str> =
        transcript.iter().filter(|t| t.role == crate::model::memory::Role::User).map(|t| t.text.as_str()).collect();
    let script: Vec<&str> = SCRIPT.iter().map(|(_, t)| *t).collect();
    let items = store.items().await.map_err(|x| e(&x))?;
    let log = store.mutations().await.map_err(|x| e(&x))?;
    let logged =
        items.iter().all(|i| log.iter().any(|m| m.accepted && m.pass == PassKind::Encode && m.item_id == i.item_id));
    let evidence = if active_seeded == 0 {
        format!("insufficient evidence: the encoder stored 0 facts from {} turns; ", SCRIPT.len())
    } else {
        String::new()
    };
    r.check(
        "seed",
        transcript.len() == SCRIPT.len() * 2 && said == script && active_seeded > 0 && logged,
        false,
        format!(
            "{evidence}{} turns stored (user turns as said: {}); {}encoder accepted {accepted}, refused {refused}; {} encode error(s){}; {active_seeded} active facts, each with its encode mutation: {logged}",
            transcript.len(),
            said == script,
            if offered > 0 { format!("{offered} candidate statement(s) offered, the model chose {}; ", accepted + refused) } else { String::new() },
            errors.len(),
            errors.first().map_or(String::new(), |e| format!(" (first: {})", e.chars().take(160).collect::<String>()))
        ),
    );
    r.check(
        "encoder",
        accepted > 0 && errors.is_empty(),
        true,
        format!("{accepted} fact(s) encoded from {} user turns", SCRIPT.len()),
    );

    Ok(active_seeded)
}

/// 2. Dry run: identical passes, nothing written.
async fn dry_run<S: Store, P: Provider>(store: &S, provider: &P, now: i64, r: &mut Recorder<'_>) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let before = (
        store.versions().await.map_err(|x| e(&x))?,
        store.mutations().await.map_err(|x| e(&x))?,
        store.items().await.map_err(|x| e(&x))?,
        store.rows_written(),
    );
    let dry = sleep::sleep(store, provider, &SleepOptions::new(now).dry(), &mut |_| {}).await;
    let after = (
        store.versions().await.map_err(|x| e(&x))?,
        store.mutations().await.map_err(|x| e(&x))?,
        store.items().await.map_err(|x| e(&x))?,
        store.rows_written(),
    );
    match &dry {
        Ok(plan) => r.check(
            "dry run",
            before == after && plan.passes.len() == PassKind::SLEEP.len() && plan.dry_run,
            false,
            format!(
                "would accept {} of {} model proposals (+{} engine-rule edits), active {}->{} planned; store untouched: {}",
                plan.total(|p| p.accepted) - plan.total(|p| p.enforced),
                plan.total(|p| p.proposed),
                plan.total(|p| p.enforced),
                plan.active_before,
                plan.active_after,
                before == after
            ),
        ),
        Err(err) => r.check(
            "dry run",
            false,
            false,
            format!("the dry run failed ({err}); store untouched: {}", before == after),
        ),
    }

    Ok(())
}

/// 3. Policy comparison: the same facts under two caps.
async fn policy_comparison<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    now: i64,
    active_seeded: usize,
    r: &mut Recorder<'_>,
) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let mut forgotten = Vec::new();
    let mut unprotected_left = 0;
    for cap in [120, 6] {
        let policy = RetentionPolicy { max_active_facts: Some(cap), ..store.meta().await.map_err(|x| e(&x))?.policy };
        let opts = SleepOptions { policy: Some(policy.clone()), ..SleepOptions::new(now).dry() };
        let plan = match sleep::sleep(store, provider, &opts, &mut |_| {}).await {
            Ok(plan) => plan,
            Err(err) => {
                r.check(
                    "policy comparison",
                    false,
                    active_seeded < 7,
                    format!("the dry run at maxActiveFacts={cap} failed: {err}"),
                );
                return Ok(());
            }
        };
        let forget = plan.passes.iter().find(|p| p.event.pass == PassKind::Forget);
        let n = forget.map_or(0, |p| p.event.accepted);
        let protected = forget.map_or(0, |p| {
            p.mutations
                .iter()
                .filter(|m| !m.accepted && m.rejection_reason.as_deref().is_some_and(|r| r.contains("protected")))
                .count()
        });
        forgotten.push((cap, n, plan.active_after, protected));
        unprotected_left = unprotected_after(store, &plan, &policy, now).await.map_err(|x| e(&x))?;
    }
    let protected_active = {
        let items = store.items().await.map_err(|x| e(&x))?;
        let policy = store.meta().await.map_err(|x| e(&x))?.policy;
        items.iter().filter(|i| i.active && policy.is_protected(&i.category)).count()
    };
    let (_, f120, left120, _) = forgotten[0];
    let (_, f6, left6, _) = forgotten[1];
    r.check(
        "policy comparison",
        f6 > f120 && left6 >= 6.min(left120) && left6 <= left120,
        // With fewer than 7 facts a cap of 6 has nothing to forget, and a cap never forgets a
        // protected fact: when the model's categories left at most one fact unprotected, or
        // none was left for the cap once the other passes and the value rules had done,
        // that is the model's doing too.
        active_seeded < 7 || active_seeded.saturating_sub(protected_active) <= 1 || unprotected_left == 0,
        format!("maxActiveFacts=120: forgotten={f120}, active left={left120}; maxActiveFacts=6: forgotten={f6}, active left={left6}, of them unprotected {unprotected_left} (protected facts seeded: {protected_active})"),
    );

    Ok(())
}

/// How many facts a dry run's `plan` leaves active that `policy` does not protect: what a
/// cap could still have forgotten.
async fn unprotected_after<S: Store>(
    store: &S,
    plan: &crate::flow::report::SleepReport,
    policy: &RetentionPolicy,
    now: i64,
) -> Result<usize, crate::store::StoreError> {
    let items = store.items().await?;
    let review = crate::flow::review::from_report(plan, items.clone(), String::new(), now);
    let mut active: std::collections::HashMap<&str, bool> =
        items.iter().map(|i| (i.item_id.as_str(), i.active)).collect();
    for change in review.edits.iter().flat_map(|e| &e.facts) {
        active.insert(&change.item_id, change.after.active);
    }
    Ok(items.iter().filter(|i| active.get(i.item_id.as_str()) == Some(&true) && !policy.protects(i, now)).count())
}

/// 4. The real Sleep: every pass, its versions in order.
async fn real_sleep<S: Store, P: Provider>(
    store: &S,
    provider: &P,
    now: i64,
    r: &mut Recorder<'_>,
) -> Result<Option<SleptRange>, String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let mut events = Vec::new();
    let report = sleep::sleep(store, provider, &SleepOptions::new(now), &mut |ev| events.push(ev.name())).await;
    let report = match report {
        Ok(rep) => rep,
        Err(err) => {
            r.check("sleep", false, false, err.to_string());
            return Ok(None);
        }
    };
    let versions = store.versions().await.map_err(|x| e(&x))?;
    let markers = 1 + 2 * PassKind::SLEEP.len();
    let labels: Vec<&str> = versions.iter().rev().take(markers).rev().map(|v| v.label.as_str()).collect();
    let mut want = vec![Label::SleepStart.to_string()];
    for p in PassKind::SLEEP {
        want.push(Label::PassBefore(p).to_string());
        want.push(Label::PassAfter(p).to_string());
    }
    let per_pass: Vec<String> = report
        .passes
        .iter()
        .map(|p| {
            let v = &p.event;
            format!(
                "{} in={} proposed={} accepted={} rejected={} enforced={} activeAfter={}",
                v.pass.name(),
                v.input,
                v.proposed,
                v.accepted,
                v.rejected,
                v.enforced,
                v.active_after
            )
        })
        .collect();
    r.check(
        "sleep",
        labels == want && events.len() == 2 * PassKind::SLEEP.len(),
        false,
        format!("{}; versions {}", per_pass.join(" | "), labels.join(", ")),
    );

    let start = versions.iter().rev().nth(markers - 1).map_or(0, |v| v.seq);
    let end = versions.last().map_or(0, |v| v.seq);
    Ok(Some(SleptRange { report, start, end }))
}

/// 5. Every refusal is in the log with its reason.
async fn refusals_logged<S: Store>(store: &S, sleep: &SleptRange, r: &mut Recorder<'_>) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let log = store.mutations().await.map_err(|x| e(&x))?;
    // Every verdict the Sleep reported — accepted and refused — is in the stored log, in
    // its range, as reported; refusals carry their reason and the raw proposal.
    let reported: Vec<&crate::model::memory::Mutation> =
        sleep.report.passes.iter().flat_map(|p| &p.mutations).collect();
    let logged: Vec<_> = log.iter().filter(|m| m.seq > sleep.start && m.seq <= sleep.end).collect();
    let same = reported.len() == logged.len()
        && reported.iter().zip(&logged).all(|(a, b)| {
            (a.pass, a.kind, &a.item_id, a.accepted, &a.rejection_reason)
                == (b.pass, b.kind, &b.item_id, b.accepted, &b.rejection_reason)
        });
    let refused: Vec<_> = logged.iter().filter(|m| !m.accepted).collect();
    let reasoned = refused
        .iter()
        .all(|m| m.rejection_reason.as_deref().is_some_and(|x| !x.is_empty()) && m.refs.proposal.is_some());
    r.check(
        "refusals logged",
        !reported.is_empty() && same && reasoned,
        false,
        format!(
            "{} verdict(s) reported by the Sleep, {} in the log for v{}..v{} (identical: {same}); {} refusal(s), each with its reason and proposal: {reasoned}",
            reported.len(),
            logged.len(),
            sleep.start,
            sleep.end,
            refused.len()
        ),
    );

    Ok(())
}

/// 6. Independent re-audit from the stored log.
async fn re_audit<S: Store>(store: &S, r: &mut Recorder<'_>) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let audit = audit::audit(store).await.map_err(|x| e(&x))?;
    r.check(
        "re-audit",
        audit.problems.is_empty(),
        false,
        format!(
            "{} accepted mutation(s) re-verified from the log, {} refused logged, {} problem(s){}",
            audit.checked,
            audit.refused_logged,
            audit.problems.len(),
            audit
                .problems
                .iter()
                .map(|p| format!("; #{} {} {}: {}", p.mutation_id, p.pass, p.item_id, p.problem))
                .collect::<String>()
        ),
    );

    Ok(())
}

/// 7. No-invention sweep.
async fn no_invention<S: Store>(store: &S, r: &mut Recorder<'_>) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let (ok, total, offenders) = audit::sweep(store).await.map_err(|x| e(&x))?;
    r.check(
        "no invention",
        offenders.is_empty() && total > 0,
        false,
        format!(
            "{}{ok}/{total} active facts fully traceable to the transcript{}",
            if total == 0 { "insufficient evidence: no active fact to sweep; " } else { "" },
            if offenders.is_empty() { String::new() } else { format!("; untraceable: {}", offenders.join(", ")) }
        ),
    );

    Ok(())
}

/// 7b. The script's negation is stored with its negation, and its two languages (facts
/// that can both hold) both survive the Sleep's Supersede pass. Depends on what the model
/// stored, so it is a reported figure for a real model; inversions are the sweep's job.
async fn meaning_held<S: Store>(store: &S, r: &mut Recorder<'_>) -> Result<(), String> {
    let items = store.items().await.map_err(|x| x.to_string())?;
    let active: Vec<&str> = items.iter().filter(|i| i.active).map(|i| i.text.as_str()).collect();
    let about = |word: &str| -> Vec<&str> {
        active.iter().copied().filter(|t| textmath::content_tokens(t).contains(word)).collect()
    };
    let peanuts: Vec<&str> = about("peanut");
    let negated = peanuts.iter().filter(|t| polarity::is_negated(t)).count();
    let languages = about("speak");
    r.check(
        "meaning held",
        negated >= 1 && negated == peanuts.len() && languages.len() >= 2,
        true,
        format!(
            "peanut facts active: {} ({} with the user's negation); language facts active: {} ({})",
            peanuts.len(),
            negated,
            languages.len(),
            languages.join(" / ")
        ),
    );
    Ok(())
}

/// 8. Diff of the Sleep: every item accounted for.
async fn sleep_diff<S: Store>(store: &S, sleep: &SleptRange, r: &mut Recorder<'_>) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let (start, end) = (sleep.start, sleep.end);
    let d = diff::diff(store, start, end).await.map_err(|x| e(&x))?;
    // The same four sets, measured independently from the two exact versions.
    let active =
        |items: Vec<crate::model::memory::Item>| -> std::collections::BTreeMap<String, crate::model::memory::Item> {
            items.into_iter().filter(|i| i.active).map(|i| (i.item_id.clone(), i)).collect()
        };
    let (lo, hi) = (
        active(store.items_at(start).await.map_err(|x| e(&x))?),
        active(store.items_at(end).await.map_err(|x| e(&x))?),
    );
    let kept = lo.iter().filter(|(id, i)| hi.get(*id).is_some_and(|h| h.text == i.text && h.block == i.block)).count();
    let changed =
        lo.iter().filter(|(id, i)| hi.get(*id).is_some_and(|h| h.text != i.text || h.block != i.block)).count();
    let forgotten = lo.keys().filter(|id| !hi.contains_key(*id)).count();
    let added = hi.keys().filter(|id| !lo.contains_key(*id)).count();
    let agrees = (d.kept, d.changed.len(), d.forgotten.len(), d.added.len()) == (kept, changed, forgotten, added);
    let explained = d.forgotten.iter().all(|f| f.by.is_some()) && d.changed.iter().all(|c| !c.sources.is_empty());
    let moved = changed + forgotten + added > 0;
    r.check(
        "diff",
        agrees && explained && moved,
        false,
        format!(
            "{}v{start}..v{end}: kept {}, changed {}, forgotten {} (each with its mutation: {explained}), added {}, refused {}; the versions themselves say kept {kept}, changed {changed}, forgotten {forgotten}, added {added}",
            if moved { "" } else { "insufficient evidence: the Sleep changed nothing; " },
            d.kept, d.changed.len(), d.forgotten.len(), d.added.len(), d.refused.len()
        ),
    );

    Ok(())
}

/// 9. Restore the pre-Sleep version, then undo the restore.
async fn restore_and_undo<S: Store>(
    store: &S,
    sleep: &SleptRange,
    now: i64,
    r: &mut Recorder<'_>,
) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let (start, end) = (sleep.start, sleep.end);
    let active_sorted = |items: Vec<crate::model::memory::Item>| {
        let mut v: Vec<_> = items.into_iter().filter(|i| i.active).collect();
        order::sort_by_key(&mut v, crate::model::memory::Item::ordinal);
        v
    };
    let start_state = active_sorted(store.items_at(start).await.map_err(|x| e(&x))?);
    let undo = store.restore(start, now).await.map_err(|x| e(&x))?;
    let restored = active_sorted(store.items().await.map_err(|x| e(&x))?);
    let redo = store.restore(end, now).await.map_err(|x| e(&x))?;
    let end_state = active_sorted(store.items_at(end).await.map_err(|x| e(&x))?);
    let back = active_sorted(store.items().await.map_err(|x| e(&x))?);
    let moved = !start_state.is_empty() && start_state != end_state;
    r.check(
        "restore",
        moved && restored == start_state && back == end_state,
        false,
        format!(
            "{}{} restored v{start} exactly: {} ({} active); {} brought back v{end} exactly: {} ({} active)",
            if moved { "" } else { "insufficient evidence: the two versions hold the same active facts; " },
            undo.id(),
            restored == start_state,
            restored.len(),
            redo.id(),
            back == end_state,
            back.len()
        ),
    );

    Ok(())
}

/// Step 12, erase: the script's neighbour's cat is erased, and no row of the memory — no
/// version, log entry, proposal or turn — holds any of its words that no other fact holds.
async fn erases<S: Store>(store: &S, now: i64, r: &mut Recorder<'_>) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let items = store.items().await.map_err(|x| e(&x))?;
    let Some(cat) = items.iter().find(|i| i.active && i.text.contains("Miso")) else {
        r.check("erase", false, true, "insufficient evidence: no active fact about Miso to erase".into());
        return Ok(());
    };
    let others: BTreeSet<String> = items
        .iter()
        .filter(|i| i.active && i.item_id != cat.item_id && textmath::similarity(&i.text, &cat.text) < 0.5)
        .flat_map(|i| textmath::content_tokens(&i.text))
        .collect();
    let secret: Vec<String> = textmath::content_tokens(&cat.text).into_iter().filter(|t| !others.contains(t)).collect();
    let erased = crate::flow::edit::erase(store, &cat.item_id, now + 60).await.map_err(|x| e(&x))?;
    let everything = textmath::tokens(&store.document().await.map_err(|x| e(&x))?.to_json());
    let left: Vec<&String> = secret.iter().filter(|t| everything.contains(t)).collect();
    let kept = store.items().await.map_err(|x| e(&x))?.iter().filter(|i| i.active).count();
    r.check(
        "erase",
        !secret.is_empty() && left.is_empty() && kept > 0,
        false,
        format!(
            "erased {} ({} fact(s), {} row(s) rewritten); words of its own: {}; left anywhere in the memory: {}; {kept} facts still active",
            cat.item_id,
            erased.item_ids.len(),
            erased.rows,
            secret.len(),
            if left.is_empty() { "none".to_string() } else { left.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ") }
        ),
    );
    Ok(())
}

/// Step 13, gates with no model at all.
fn gate_cases(cases: &[(String, String)], r: &mut Recorder<'_>) {
    let mut failures = Vec::new();
    for (name, text) in cases {
        match case::parse(text).and_then(|c| c.judge()) {
            Ok(res) if res.disagreements.is_empty() => {}
            Ok(res) => failures.push(format!("{name}: {}", res.disagreements.join("; "))),
            Err(err) => failures.push(format!("{name}: {err}")),
        }
    }
    r.check(
        "gate cases",
        !cases.is_empty() && failures.is_empty(),
        false,
        format!(
            "{}/{} case files judged as expected{}",
            cases.len() - failures.len(),
            cases.len(),
            failures.iter().map(|f| format!("; {f}")).collect::<String>()
        ),
    );
}
