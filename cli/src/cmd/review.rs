//! `nocturne sleep --review`, `nocturne review` and `nocturne apply`: a Sleep planned into
//! a file the user reads, then applied edit by edit as approved (`flow::review`).

use crate::args::{ProviderArgs, StoreArgs};
use crate::error::CliError;
use crate::store::Memory;
use crate::write;
use nocturne_core::flow::review::{self, Decisions, Proposed, Review};
use nocturne_core::flow::sleep::SleepOptions;
use nocturne_core::model::memory::Proposer;
use nocturne_core::write::{Apply, NoModel, Progress, Sleep, Watch};
use std::path::Path;

/// Plans a Sleep for review into `plan_path`; the store file is only read.
pub(crate) fn plan_command(
    store: &StoreArgs,
    provider: &ProviderArgs,
    deep: bool,
    plan_path: &Path,
) -> Result<(), CliError> {
    let memory = Memory::open_existing(&store.store)?;
    let mut options = SleepOptions::new(store.now());
    if deep {
        options = options.deep();
    }
    let p = provider.build()?;
    let mut on = |said: Progress<'_>| {
        if let Progress::Pass(ev) = said {
            println!("{}", ev.event_line())
        }
    };
    let sleep = Sleep::new(options).plan_only();
    let plan = write::perform(&store.store, &memory, sleep, &p, &mut Watch::new(&mut on))?.done.plan;
    let text = serde_json::to_string_pretty(&plan)?;
    let tmp = plan_path.with_extension("json.tmp");
    std::fs::write(&tmp, text + "\n").and_then(|()| std::fs::rename(&tmp, plan_path)).map_err(|e| {
        CliError::caused(
            format!("cannot write the plan to {}: {e}; the store file is unchanged", plan_path.display()),
            e,
        )
    })?;
    let refused = plan.edits.iter().filter(|e| e.refused.is_some()).count();
    println!(
        "plan {} written to {}: {} edit(s), {} the gates accept, {} they refuse; the store file is unchanged. \
See it with `nocturne review {}`, apply it with `nocturne apply {} --store {}`",
        plan.id,
        plan_path.display(),
        plan.edits.len(),
        plan.edits.len() - refused,
        refused,
        plan_path.display(),
        plan_path.display(),
        store.store.display()
    );
    Ok(())
}

/// Lists a plan file.
pub(crate) fn list_command(plan_path: &Path) -> Result<(), CliError> {
    let plan = read(plan_path)?;
    println!("plan {} by {}, planned on v{}: {} edit(s)", plan.id, plan.provider, plan.planned_on, plan.edits.len());
    for e in &plan.edits {
        println!("{}", line(e));
        for c in &e.facts {
            let state = |f: &review::Fact| {
                format!("\"{}\" ({}{})", f.text, f.block.as_str(), if f.active { "" } else { ", retired" })
            };
            if c.before == c.after {
                println!("    {} {}", c.item_id, state(&c.before));
            } else {
                println!("    {} {} -> {}", c.item_id, state(&c.before), state(&c.after));
            }
        }
    }
    Ok(())
}

/// Applies a plan file to the store with the user's decisions.
pub(crate) fn apply_command(
    store: &StoreArgs,
    plan_path: &Path,
    only: Option<Vec<String>>,
    reject: &[String],
    reason: Option<&str>,
) -> Result<(), CliError> {
    let plan = read(plan_path)?;
    let memory = Memory::open_existing(&store.store)?;
    // A plan made on another memory or history is refused whole, before any write.
    pollster::block_on(review::belongs(&memory, &plan)).map_err(|e| CliError::caused(e.to_string(), e))?;
    let mut decisions = match &only {
        Some(ids) => Decisions::only(ids.iter().map(String::as_str)),
        None => Decisions::all(),
    };
    for id in reject {
        decisions = decisions.reject(id, reason.unwrap_or(""));
    }
    let mut on = |said: Progress<'_>| {
        if let Progress::Pass(ev) = said {
            println!("{}", ev.event_line())
        }
    };
    let apply = Apply { plan: Box::new(plan.clone()), decisions, at: store.now() };
    let applied = write::perform(&store.store, &memory, apply, &NoModel, &mut Watch::new(&mut on))?;
    if let Some(what) = &applied.recorded {
        println!("recorded for the next sync ({what})");
    }
    println!("{}", applied.done.summary(&plan));
    Ok(())
}

fn read(path: &Path) -> Result<Review, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::caused(format!("cannot read the plan {}: {e}", path.display()), e))?;
    Review::parse(&text).map_err(|e| CliError::caused(format!("{}: {e}", path.display()), e))
}

/// `r3 dedupe drop (model) accepted: "same fact"`.
fn line(e: &Proposed) -> String {
    let by = match e.proposer {
        Proposer::Model => "model".to_string(),
        other => serde_json::to_value(other).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default(),
    };
    let verdict = match &e.refused {
        None => "accepted".to_string(),
        Some(why) => format!("REFUSED ({why})"),
    };
    let reason = if e.reason.is_empty() { String::new() } else { format!(": \"{}\"", e.reason) };
    format!("{} {} {} ({by}) {verdict}{reason}", e.id, e.pass.name(), e.kind.as_str())
}
