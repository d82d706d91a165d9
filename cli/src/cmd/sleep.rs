//! `nocturne sleep`: the estimate, the guard, the passes as they go, and the report.

use crate::args::{ProviderArgs, StoreArgs};
use crate::error::CliError;
use crate::store::Memory;
use crate::{progress, write};
use nocturne_core::flow::{estimate, report, sleep};
use nocturne_core::llm::provider::Provider;
use nocturne_sync::journal::{Heavy, SleepCall, SleepFailure};

/// How `nocturne sleep` was asked to run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SleepFlags {
    pub(crate) dry_run: bool,
    pub(crate) deep: bool,
    pub(crate) yes: bool,
}

pub(crate) fn sleep_command(store: &StoreArgs, provider: &ProviderArgs, flags: SleepFlags) -> Result<(), CliError> {
    let dry_run = flags.dry_run;
    let memory = Memory::open_existing(&store.store)?;
    let mut options = sleep::SleepOptions::new(store.now());
    options.dry_run = dry_run;
    if flags.deep {
        options = options.deep();
    }
    let p = provider.build()?;
    // Each pass is in the file as soon as it is committed (written aside, then renamed), so
    // the file is always the memory after the last completed pass.
    progress("before the first pass; nothing was written");
    let mut on_event = |ev: &report::PassEvent| {
        println!("{}", ev.event_line());
        if ev.phase == report::Phase::Done && !dry_run {
            progress(format!("after pass {}", ev.pass.name()));
        }
    };
    let result = if dry_run {
        let estimate = pollster::block_on(estimate::estimate(&memory, p.proposal_style(), &options))?;
        println!("{}", estimate.line());
        pollster::block_on(sleep::sleep(&memory, &p, &options, &mut on_event)).map_err(CliError::from)
    } else {
        // The journal estimates and guards first, whether the memory syncs or not: a
        // synced Sleep once retired 14 of 14 facts without asking.
        let mut call = SleepCall {
            options: &options,
            heavy: if flags.yes { Heavy::GoAhead } else { Heavy::Refuse },
            on_estimate: Box::new(|e| println!("{}", e.line())),
            on_event: Box::new(on_event),
            notes: Vec::new(),
        };
        let written = write::Writer::new(&store.store, &memory).sleep(&p, &mut call);
        for note in &call.notes {
            println!("note: {note}");
        }
        written
            .map(|w| {
                if let Some(what) = &w.recorded {
                    println!("sleep recorded for the next sync ({what})");
                }
                w.done
            })
            .map_err(|e| match e {
                SleepFailure::Heavy(_) => {
                    CliError::caused(format!("{e}. See which with --dry-run, or run it with --yes"), e)
                }
                SleepFailure::Failed(why) => why.into(),
            })
    };
    let report = result?;
    println!(
        "{}: active {} -> {}; proposed {} accepted {} rejected {} enforced {}; {} model call(s)",
        if report.dry_run { "dry run (nothing written)" } else { "sleep" },
        report.active_before,
        report.active_after,
        report.total(|p| p.proposed),
        report.total(|p| p.accepted),
        report.total(|p| p.rejected),
        report.total(|p| p.enforced),
        report.passes.iter().map(|p| p.calls).sum::<usize>()
    );
    for line in report.passes.iter().flat_map(|p| &p.notes) {
        println!("note: {line}");
    }
    for e in report.failed() {
        println!(
            "note: the {} pass ended on an unusable model reply and changed nothing ({}); the Sleep went on",
            e.pass.name(),
            e.error.as_deref().unwrap_or("")
        );
    }
    for p in report.passes.iter().filter(|p| p.search.left > 0) {
        println!(
            "note: the {} candidate search reached its bound per fact and left {} pairs or index entries unexamined ({} examined, {} found)",
            p.event.pass.name(),
            p.search.left,
            p.search.examined,
            p.search.found
        );
    }
    Ok(())
}
