//! Why a write did not happen, or did not finish: [`WriteError`], one enum a caller
//! matches — a conflict, the store, the model, a stop, a refusal (the guard, the lock, the
//! lease, a record refused), bad input, the sync — each carrying what a user needs to act
//! and, where one failed underneath, that error as its `source()`.

use crate::flow::chat::ChatError;
use crate::flow::edit::EditError;
use crate::flow::estimate::Estimate;
use crate::flow::import::ImportError;
use crate::flow::review::{Retiring, ReviewError};
use crate::flow::sleep::SleepError;
use crate::llm::provider::ProviderError;
use crate::model::pass::PassKind;
use crate::model::policy::PolicyError;
use crate::store::StoreError;
use std::error::Error;
use std::fmt;

/// Why a write did not happen, or did not finish.
#[derive(Debug)]
pub enum WriteError {
    /// Another writer kept moving the memory between this write's read and its commit
    /// (`store::REPLAN_ATTEMPTS` times): nothing of the last attempt was written; run it
    /// again.
    Conflict { planned_at: u64, now_at: u64 },
    /// The store could not read or write (a full disk or quota, IndexedDB, SQLite, the
    /// file): its error is the source.
    Store(StoreError),
    /// The model could not answer (unreachable, HTTP, a timeout, a reply it could not use):
    /// what it was asked for, and its error as the source. What completed before stays.
    Model { asked: String, error: ModelError },
    /// The user stopped it.
    Stopped(Stopped),
    /// Refused before anything was written (the guard, the lock, the lease, the record's
    /// own check): what would have happened and what to do.
    Refused(Refusal),
    /// What was given cannot be done: the value, and why; nothing was written.
    BadInput(BadInput),
    /// This device's sync state or record could not be kept: what failed, and its error
    /// as the source.
    Sync { what: String, source: Box<dyn Error + Send + Sync> },
}

/// The model's failure: its error as a provider reported it, or in the words of the step
/// that could not use its reply.
#[derive(Debug)]
pub enum ModelError {
    Provider(ProviderError),
    Reply(String),
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::Provider(e) => e.fmt(f),
            ModelError::Reply(why) => f.write_str(why),
        }
    }
}

impl Error for ModelError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            ModelError::Provider(e) => Some(e),
            ModelError::Reply(_) => None,
        }
    }
}

/// Where a stop left the memory.
#[derive(Clone, Debug, PartialEq)]
pub enum Stopped {
    /// A Sleep stopped while it was planned: nothing was written (a Sleep is planned whole
    /// before it writes). `during`: the pass the model was asked for.
    Planning { during: Option<PassKind> },
    /// A Sleep or an import stopped with what completed before it kept, in words.
    Kept(String),
}

/// Why a write was refused before it wrote anything.
#[derive(Clone, Debug, PartialEq)]
pub enum Refusal {
    /// The Sleep's plan would retire more than `flow::estimate::allowance` allows and the
    /// user has not said go ahead: what would go, counted by the plan. The plan is here
    /// so the user can be shown it and, agreeing, have it applied without a second run of
    /// the model.
    Heavy(Box<Heavy>),
    /// Another writer holds the memory (a Sleep, or another write in another tab).
    Busy(String),
    /// Another device holds the space's Sleep lease: who, until when.
    Lease(String),
    /// The write's own check refused it where it was recorded (an edit of a fact another
    /// device changed), in its words; the refusal is logged.
    Record(String),
}

/// What a heavy Sleep would do.
#[derive(Clone, Debug, PartialEq)]
pub struct Heavy {
    pub estimate: Estimate,
    pub retiring: Retiring,
    pub plan: crate::flow::review::Review,
}

/// Input that cannot be written, and why (nothing was).
#[derive(Debug)]
pub enum BadInput {
    /// An empty message or text.
    Empty,
    /// Text longer than the memory holds: how long, the most.
    TooLong { chars: usize, max: usize },
    /// No such fact, or not one the edit applies to; the edit's own words say which.
    Fact(String),
    /// A version the memory does not have.
    NoVersion(u64),
    /// A retention policy that cannot be used: the field, its value, what it must be.
    Policy(PolicyError),
    /// A plan file or decisions that cannot be applied: the review's own error.
    Plan(ReviewError),
    /// A claimed time a turn cannot have (after it arrived, before 1970): why.
    SaidAt(String),
}

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadInput::Empty => f.write_str("the message is empty"),
            BadInput::TooLong { chars, max } => write!(
                f,
                "the message is {chars} characters long; a turn holds at most {max}: nothing was stored, send it in parts"
            ),
            BadInput::Fact(why) => write!(f, "{why}; nothing was changed"),
            BadInput::NoVersion(seq) => write!(f, "version v{seq} does not exist"),
            BadInput::Policy(why) => write!(f, "the retention policy is not usable: {why}; nothing was changed"),
            BadInput::Plan(e) => e.fmt(f),
            BadInput::SaidAt(why) => write!(f, "{why}; nothing was stored"),
        }
    }
}

impl fmt::Display for Heavy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "this Sleep would retire {} of {} active facts ({}: {}) — more than {} a Sleep retires without asking; nothing was written",
            self.retiring.count(),
            self.estimate.active,
            self.retiring.by_kind(),
            self.retiring.named(5),
            crate::flow::estimate::allowance(self.estimate.active)
        )
    }
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Conflict { planned_at, now_at } => {
                StoreError::Conflict { planned_at: *planned_at, now_at: *now_at }.fmt(f)
            }
            WriteError::Store(e) => e.fmt(f),
            WriteError::Model { asked, error } if asked.is_empty() => error.fmt(f),
            WriteError::Model { asked, error } => write!(f, "{asked}: {error}"),
            WriteError::Stopped(Stopped::Planning { during: Some(pass) }) => {
                write!(f, "stopped by the user while the Sleep was planned (pass {}); nothing was written", pass.name())
            }
            WriteError::Stopped(Stopped::Planning { during: None }) => {
                f.write_str("stopped by the user before the Sleep was planned; nothing was written")
            }
            WriteError::Stopped(Stopped::Kept(what)) => f.write_str(what),
            WriteError::Refused(Refusal::Heavy(h)) => h.fmt(f),
            WriteError::Refused(Refusal::Busy(why) | Refusal::Lease(why) | Refusal::Record(why)) => f.write_str(why),
            WriteError::BadInput(b) => b.fmt(f),
            WriteError::Sync { what, source } => write!(f, "{what}: {source}"),
        }
    }
}

impl Error for WriteError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            WriteError::Store(e) => Some(e),
            WriteError::Model { error, .. } => Some(error),
            WriteError::BadInput(BadInput::Plan(e)) => Some(e),
            WriteError::BadInput(BadInput::Policy(e)) => Some(e),
            WriteError::Sync { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

impl WriteError {
    /// The model failed while asked for `asked`.
    pub fn model(asked: impl Into<String>, error: ProviderError) -> WriteError {
        match error {
            ProviderError::Stopped => WriteError::Stopped(Stopped::Kept("stopped by the user".into())),
            error => WriteError::Model { asked: asked.into(), error: ModelError::Provider(error) },
        }
    }

    /// The sync state or record failed doing `what`, because of `source`.
    pub fn sync(what: impl Into<String>, source: impl Error + Send + Sync + 'static) -> WriteError {
        WriteError::Sync { what: what.into(), source: Box::new(source) }
    }

    /// Whether another writer moved the memory under this write (so it may be planned again).
    pub fn is_conflict(&self) -> bool {
        matches!(self, WriteError::Conflict { .. })
    }
}

impl From<StoreError> for WriteError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Conflict { planned_at, now_at } => WriteError::Conflict { planned_at, now_at },
            StoreError::NoSuchVersion(seq) => WriteError::BadInput(BadInput::NoVersion(seq)),
            e => WriteError::Store(e),
        }
    }
}

impl From<ChatError> for WriteError {
    fn from(e: ChatError) -> Self {
        match e {
            ChatError::Store(e) => e.into(),
            ChatError::Provider(e) => WriteError::model("", e),
            ChatError::EmptyMessage => WriteError::BadInput(BadInput::Empty),
            ChatError::TooLong { chars, max } => WriteError::BadInput(BadInput::TooLong { chars, max }),
            ChatError::SaidAt(why) => WriteError::BadInput(BadInput::SaidAt(why)),
        }
    }
}

impl From<EditError> for WriteError {
    fn from(e: EditError) -> Self {
        match e {
            EditError::Store(e) => e.into(),
            EditError::NotEditable(why) => WriteError::BadInput(BadInput::Fact(why)),
        }
    }
}

impl From<SleepError> for WriteError {
    fn from(e: SleepError) -> Self {
        match e {
            SleepError::Store(e) => e.into(),
            SleepError::Pass { pass, message } => WriteError::Model {
                asked: format!("the {} pass stopped and changed nothing", pass.name()),
                error: ModelError::Reply(message),
            },
            SleepError::Stopped { after } => {
                WriteError::Stopped(Stopped::Kept(SleepError::Stopped { after }.to_string()))
            }
        }
    }
}

impl From<ReviewError> for WriteError {
    fn from(e: ReviewError) -> Self {
        match e {
            ReviewError::Sleep(e) => e.into(),
            e => WriteError::BadInput(BadInput::Plan(e)),
        }
    }
}

impl From<ImportError> for WriteError {
    fn from(e: ImportError) -> Self {
        match e {
            ImportError::Store(e) => e.into(),
            e @ ImportError::Provider(_) => {
                WriteError::Model { asked: String::new(), error: ModelError::Reply(e.to_string()) }
            }
        }
    }
}

/// Why a write lock did not let a write run.
#[derive(Clone, Debug, PartialEq)]
pub enum LockError {
    /// Another writer holds it (a Sleep asks only when it is free).
    Busy(String),
    /// The lock cannot be asked for here, and why.
    Unavailable(String),
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockError::Busy(why) | LockError::Unavailable(why) => f.write_str(why),
        }
    }
}

impl Error for LockError {}

impl From<LockError> for WriteError {
    fn from(e: LockError) -> Self {
        WriteError::Refused(Refusal::Busy(e.to_string()))
    }
}
