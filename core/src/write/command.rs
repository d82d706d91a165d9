//! What an entry point asks of the memory — one [`Command`] for every write, each a plain
//! struct of what it needs (the time it happens at among them) — and what performing it
//! did: each command's own output, or an [`Outcome`] for the whole enum, wrapped in
//! [`Done`] with what its sync record did.

use crate::flow::chat::{Reply as ChatReply, TurnOutcome};
use crate::flow::edit::UserEdit;
use crate::flow::estimate::Estimate;
use crate::flow::import::{self, Report, TranscriptCache};
use crate::flow::import_plan::{ImportOptions, Plan};
use crate::flow::report::{PassEvent, SleepReport};
use crate::flow::review::{Applied, Decisions, Retiring, Review};
use crate::flow::sleep::SleepOptions;
use crate::model::memory::Version;
use crate::model::policy::RetentionPolicy;
use crate::store::erase::Erased;

/// Every write to the memory. An entry point (a command-line subcommand, an MCP tool, a
/// page's job) maps its request to one and renders what it did; the journal
/// (`write::journal::Journal::perform`) performs it, recorded when the memory syncs.
#[derive(Debug)]
pub enum Command {
    Say(Say),
    Reply(Reply),
    Edit(Edit),
    Erase(Erase),
    Restore(Restore),
    Policy(Policy),
    Sleep(Sleep),
    Apply(Apply),
    Import(Import),
    ImportSleep(ImportSleep),
}

/// A user's turn, stored and encoded through the Encode gate: with the reply it got, or
/// with none (words an assistant hands the memory through MCP's `add_memory`).
#[derive(Clone, Debug)]
pub struct Say {
    pub text: String,
    pub speaker: Option<String>,
    pub reply: Option<ChatReply>,
    /// When the memory received it.
    pub at: i64,
    /// Who said it and when, when not the user of this memory speaking at `at` (an MCP
    /// client, a claimed `said_at`): the turn and every fact encoded from it keep it.
    pub origin: crate::flow::chat::Origin,
}

/// A chat turn: the memory's reply to `text` (its words streamed through the watch), then
/// the turn stored as a [`Say`]. A reply the user stopped keeps what was streamed, marked
/// [`CUT`], and the turn is stored (`Progress::Replied` comes in between).
#[derive(Clone, Debug)]
pub struct Reply {
    pub text: String,
    pub speaker: Option<String>,
    pub at: i64,
}

/// How a reply the user stopped ends in the transcript.
pub const CUT: &str = "[stopped by the user]";

/// The user's correction, pin, unpin or forget of one active fact.
#[derive(Clone, Debug)]
pub struct Edit {
    pub edit: UserEdit,
    pub at: i64,
}

/// The user's erase of a fact's words from every version (and, when the memory syncs,
/// from every copy at the next sync).
#[derive(Clone, Debug)]
pub struct Erase {
    pub item_id: String,
    pub at: i64,
}

/// Version `seq` restored as a new version.
#[derive(Clone, Debug)]
pub struct Restore {
    pub seq: u64,
    pub at: i64,
}

/// The user's retention policy.
#[derive(Clone, Debug)]
pub struct Policy {
    pub policy: RetentionPolicy,
    pub at: i64,
}

/// A Sleep: planned whole first (every pass, the model asked once per request), then —
/// unless `plan_only` (a dry run, or a plan for the user's review) — its plan applied as one
/// Sleep, if the guard lets it: a plan that would retire more than
/// `flow::estimate::allowance` allows is refused, writing nothing, unless `go_ahead`.
#[derive(Clone, Debug)]
pub struct Sleep {
    /// `now`, the scope, the budget, the Stop; `dry_run` is not read (`plan_only` is).
    pub options: SleepOptions,
    pub plan_only: bool,
    /// The user saw what it retires and said go ahead (`--yes`, the page's confirmation,
    /// the MCP tool's `confirm`).
    pub go_ahead: bool,
    /// A plan this Sleep made before and the user was shown (the page's confirmation of a
    /// refused Sleep): applied without asking the model again.
    pub planned: Option<Box<Review>>,
}

impl Sleep {
    /// A Sleep with `options`, applied when the guard lets it.
    pub fn new(options: SleepOptions) -> Sleep {
        Sleep { options, plan_only: false, go_ahead: false, planned: None }
    }

    /// The same Sleep, only planned: a dry run, or a plan to review.
    pub fn plan_only(mut self) -> Sleep {
        self.plan_only = true;
        self
    }

    /// The same Sleep, going ahead when it retires a lot if `yes`.
    pub fn go_ahead(mut self, yes: bool) -> Sleep {
        self.go_ahead = yes;
        self
    }
}

/// A reviewed Sleep's plan applied with the user's decisions.
#[derive(Clone, Debug)]
pub struct Apply {
    pub plan: Box<Review>,
    pub decisions: Decisions,
    pub at: i64,
}

/// One piece of an import (`flow::import_plan::Plan::pieces`), with the Sleeps after each
/// day of history when `options.sleep` asks for them; `seen` is carried from piece to
/// piece (given back in [`Imported`]).
#[derive(Debug)]
pub struct Import {
    pub piece: Plan,
    pub options: ImportOptions,
    pub at: i64,
    pub seen: TranscriptCache,
}

/// The deep Sleep at the end of an import that asked for one (`SleepAfter::End`) and wrote
/// a turn of the user's, guarded like any Sleep: held, with `report.held` saying what would
/// go, unless `options.retire_a_lot`. `report` is the import's so far.
#[derive(Clone, Debug)]
pub struct ImportSleep {
    pub options: ImportOptions,
    pub at: i64,
    pub report: Report,
}

/// Which command, without its data: what a test enumerates, and what each entry point
/// says it offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Say,
    Reply,
    Edit,
    Erase,
    Restore,
    Policy,
    Sleep,
    Apply,
    Import,
    ImportSleep,
}

impl Kind {
    /// Every kind, in the order of [`Command`].
    pub const ALL: [Kind; 10] = [
        Kind::Say,
        Kind::Reply,
        Kind::Edit,
        Kind::Erase,
        Kind::Restore,
        Kind::Policy,
        Kind::Sleep,
        Kind::Apply,
        Kind::Import,
        Kind::ImportSleep,
    ];
}

impl Command {
    /// Which command this is.
    pub fn kind(&self) -> Kind {
        match self {
            Command::Say(_) => Kind::Say,
            Command::Reply(_) => Kind::Reply,
            Command::Edit(_) => Kind::Edit,
            Command::Erase(_) => Kind::Erase,
            Command::Restore(_) => Kind::Restore,
            Command::Policy(_) => Kind::Policy,
            Command::Sleep(_) => Kind::Sleep,
            Command::Apply(_) => Kind::Apply,
            Command::Import(_) => Kind::Import,
            Command::ImportSleep(_) => Kind::ImportSleep,
        }
    }

    /// When it happens (Unix seconds).
    pub fn at(&self) -> i64 {
        match self {
            Command::Say(c) => c.at,
            Command::Reply(c) => c.at,
            Command::Edit(c) => c.at,
            Command::Erase(c) => c.at,
            Command::Restore(c) => c.at,
            Command::Policy(c) => c.at,
            Command::Sleep(c) => c.options.now,
            Command::Apply(c) => c.at,
            Command::Import(c) => c.at,
            Command::ImportSleep(c) => c.at,
        }
    }
}

macro_rules! into_command {
    ($($variant:ident),* $(,)?) => {$(
        impl From<$variant> for Command {
            fn from(c: $variant) -> Command {
                Command::$variant(c)
            }
        }
    )*};
}

into_command!(Say, Reply, Edit, Erase, Restore, Policy, Sleep, Apply, Import, ImportSleep);

/// What a write did, and — when the memory syncs — what its record did, in words (it is
/// kept for the next sync).
#[derive(Clone, Debug, PartialEq)]
pub struct Done<T> {
    pub done: T,
    pub recorded: Option<String>,
}

impl<T> Done<T> {
    /// A write made directly (the memory does not sync).
    pub fn plain(done: T) -> Done<T> {
        Done { done, recorded: None }
    }

    /// The same record, with what was done mapped.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Done<U> {
        Done { done: f(self.done), recorded: self.recorded }
    }
}

/// What a Sleep did: its plan, what planning found, what the guard counted and — unless
/// it was only planned — the Sleep as applied.
#[derive(Clone, Debug, PartialEq)]
pub struct Slept {
    /// Every edit the passes proposed and the gates judged, with ids `r1`, `r2` …
    pub plan: Review,
    /// The planning run (a dry run): each pass's calls, notes and candidate search.
    pub planned: SleepReport,
    /// What the Sleep asks the model (worked out before it ran) and retires (its plan).
    pub estimate: Estimate,
    pub retiring: Retiring,
    /// The Sleep as applied, a version per pass; `None` when only planned.
    pub applied: Option<SleepReport>,
    /// Why the space's Sleep lease could not be asked, when it could not.
    pub lease_note: Option<String>,
}

impl Slept {
    /// The Sleep's report as a user reads it: as applied (the versions, the counts), with
    /// what planning asked the model, noted and could not search; or the plan's when it
    /// was only planned.
    pub fn report(&self) -> SleepReport {
        let Some(applied) = &self.applied else { return self.planned.clone() };
        let mut report = applied.clone();
        report.fresh = self.planned.fresh;
        report.policy_note = self.planned.policy_note.clone().or(report.policy_note);
        for (pass, planned) in report.passes.iter_mut().zip(&self.planned.passes) {
            pass.calls = planned.calls;
            pass.prompt_tokens = planned.prompt_tokens;
            pass.completion_tokens = planned.completion_tokens;
            pass.notes = planned.notes.clone();
            pass.search = planned.search;
            if planned.event.error.is_some() {
                pass.event.error = planned.event.error.clone();
            }
        }
        report
    }
}

/// An import piece written, and what it saw of the transcript (for the next piece).
#[derive(Debug)]
pub struct Imported {
    pub report: Report,
    pub seen: TranscriptCache,
}

/// What a [`Command`] did, for the caller that performed the whole enum.
#[derive(Debug)]
pub enum Outcome {
    /// `Say`, `Reply`.
    Turn(TurnOutcome),
    /// `Edit`: the version it wrote.
    Edited(Version),
    Erased(Erased),
    Restored(Version),
    /// `Policy`: what was logged; `None` when it changed nothing.
    Policy(Option<String>),
    Slept(Box<Slept>),
    Applied(Applied),
    Imported(Imported),
    /// `ImportSleep`: the import's report, with the Sleep counted, held or failed.
    ImportSlept(Report),
}

/// What a write says as it goes, to the watch its caller gave.
#[derive(Debug)]
pub enum Progress<'p> {
    /// More of a chat reply's words.
    Delta(&'p str),
    /// The chat reply is made (or was stopped, and is cut): the turn is stored next. A
    /// caller whose Stop reaches the model lets the recording's calls through from here, so
    /// a stopped reply's turn is still encoded.
    Replied,
    /// A pass starting or ending: while the Sleep is planned (`dry_run`), then as it is
    /// applied.
    Pass(&'p PassEvent),
    /// The Sleep is planned: what it asked and what it would retire, before anything is
    /// written (and before the guard decides).
    Planned(&'p Estimate),
    Import(&'p import::Progress),
}

/// Where a write's progress goes: nowhere ([`Watch::quiet`]), or to a callback.
pub struct Watch<'a> {
    on: Option<&'a mut dyn FnMut(Progress<'_>)>,
}

impl std::fmt::Debug for Watch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watch")
    }
}

impl<'a> Watch<'a> {
    /// Shows nothing.
    pub fn quiet() -> Watch<'static> {
        Watch { on: None }
    }

    /// Hands each piece of progress to `on`.
    pub fn new(on: &'a mut dyn FnMut(Progress<'_>)) -> Watch<'a> {
        Watch { on: Some(on) }
    }

    /// Says `progress`.
    pub fn say(&mut self, progress: Progress<'_>) {
        if let Some(on) = self.on.as_mut() {
            on(progress)
        }
    }
}
