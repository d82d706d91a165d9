//! `nocturne sleep`: the Sleep planned (its passes as they go), the estimate with what the
//! plan would retire, the guard, the Sleep applied, and the report — one `Sleep` command
//! through the one write path; a dry run is the same command, only planned.

use crate::args::{ProviderArgs, StoreArgs};
use crate::error::CliError;
use crate::store::Memory;
use crate::{progress, write};
use nocturne_core::flow::report::{self, SleepReport};
use nocturne_core::flow::sleep::SleepOptions;
use nocturne_core::write::{Progress, Refusal, Sleep, Watch, WriteError};

/// How `nocturne sleep` was asked to run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SleepFlags {
    pub(crate) dry_run: bool,
    pub(crate) deep: bool,
    pub(crate) yes: bool,
}

pub(crate) fn sleep_command(store: &StoreArgs, provider: &ProviderArgs, flags: SleepFlags) -> Result<(), CliError> {
    let memory = Memory::open_existing(&store.store)?;
    let mut options = SleepOptions::new(store.now());
    if flags.deep {
        options = options.deep();
    }
    let p = provider.build()?;
    // The Sleep is planned whole before anything is written; then each pass is in the file
    // as soon as it is committed, so the file is always the memory after the last one.
    progress("while the Sleep was planned; nothing was written");
    let mut on = |said: Progress<'_>| match said {
        Progress::Pass(ev) => {
            println!("{}", ev.event_line());
            if ev.phase == report::Phase::Done && !ev.dry_run {
                progress(format!("after pass {}", ev.pass.name()));
            }
        }
        Progress::Planned(estimate) => println!("{}", estimate.line()),
        Progress::Delta(_) | Progress::Replied | Progress::Import(_) => {}
    };
    let sleep = Sleep::new(options).go_ahead(flags.yes);
    let sleep = if flags.dry_run { sleep.plan_only() } else { sleep };
    let done = write::perform(&store.store, &memory, sleep, &p, &mut Watch::new(&mut on)).map_err(refused)?;
    if let Some(note) = &done.done.lease_note {
        println!("note: {note}");
    }
    if let Some(what) = &done.recorded {
        println!("sleep recorded for the next sync ({what})");
    }
    print_report(&done.done.report());
    Ok(())
}

/// A Sleep that did not run, in the command line's words: a heavy one says how to see what
/// it retires and how to let it.
fn refused(e: WriteError) -> CliError {
    match &e {
        WriteError::Refused(Refusal::Heavy(_)) => CliError::caused(
            format!("{e}. Review what goes with `nocturne sleep --review plan.json` (then `nocturne apply plan.json`), or run it with --yes"),
            e,
        ),
        WriteError::Model { .. } | WriteError::Stopped(_) => {
            CliError::caused(format!("{e}; the store file holds the memory as it was before"), e)
        }
        _ => CliError::caused(format!("{e}; the store file holds the passes that completed"), e),
    }
}

fn print_report(report: &SleepReport) {
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
}
