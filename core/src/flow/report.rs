//! What a Sleep reports: each pass's progress as it happens ([`PassEvent`], streamed as
//! `pass:<name>:start|done|error` and written as one line), what each pass did
//! ([`PassReport`]) and the whole Sleep ([`SleepReport`]).

use crate::flow::pair_search::Work;
use crate::flow::pass;
use crate::model::memory::Mutation;
use crate::model::pass::PassKind;
use serde::{Deserialize, Serialize};

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
