//! What the journal asks of the device it runs on, as traits: the lock the memory's writers
//! share ([`WriteLock`]), and whoever records what is performed ([`Recorder`]: the sync
//! crate, when the memory syncs; [`NoSync`] when it does not). The journal holds no
//! clock, no network and no file of its own.

use super::command::{Command, Watch};
use super::error::{LockError, WriteError};
use crate::flow::chat::TurnOutcome;
use crate::flow::import::Report;
use crate::flow::review::Applied;
use crate::llm::provider::{Completion, Provider, ProviderError, Request};
use crate::model::memory::Version;
use crate::store::erase::Erased;
use crate::store::Store;
use std::future::Future;

/// Holds the memory's other writers off while a write runs: the page's tabs (a Web Lock);
/// on the command line nothing more than the store's own lock ([`StoreLocks`]).
#[allow(async_fn_in_trait)]
pub trait WriteLock {
    /// Runs `work` holding the lock, waiting for another holder to finish.
    async fn hold<T, E: From<LockError>>(&self, work: impl Future<Output = Result<T, E>>) -> Result<T, E>;
    /// Runs `work` holding the lock, or refuses at once, saying so, when another writer
    /// holds it (a Sleep: the user tries again later rather than wait behind a long write).
    async fn hold_if_free<T, E: From<LockError>>(&self, work: impl Future<Output = Result<T, E>>) -> Result<T, E> {
        self.hold(work).await
    }
}

/// No lock beyond the store's own (the command line's store locks each commit itself).
#[derive(Clone, Copy, Debug, Default)]
pub struct StoreLocks;

impl WriteLock for StoreLocks {
    async fn hold<T, E: From<LockError>>(&self, work: impl Future<Output = Result<T, E>>) -> Result<T, E> {
        work.await
    }
}

/// Whoever records what the journal performs: when the memory syncs, it performs each
/// command as this device's next record — through the same core functions, as every other
/// device will replay it — and keeps the record for the next sync; when it does not, it
/// records nothing and the journal performs the command itself. The sync crate's
/// implementation is the only one that records; [`NoSync`] is the memory that does not sync.
///
/// It is handed only what is performed: a `Say` (a `Reply` once replied), an `Edit`, an
/// `Erase`, a `Restore`, a `Policy` that changes something, a `Sleep` with its plan
/// (`planned`, the guard passed), an `Apply`, an `Import`.
#[allow(async_fn_in_trait)]
pub trait Recorder {
    /// Whether the memory syncs: then every write is [`Recorder::record`]ed.
    async fn syncs(&self) -> Result<bool, WriteError>;

    /// Performs `command` as this device's next record, kept for the next sync (asked only
    /// when [`Recorder::syncs`]; a memory that stopped syncing since is an error and
    /// nothing is changed).
    async fn record<S: Store, P: Provider>(
        &self,
        store: &S,
        provider: &P,
        command: &Command,
        watch: &mut Watch<'_>,
    ) -> Result<Recorded, WriteError>;

    /// Takes the space's Sleep lease before a Sleep (or a reviewed plan's application), so
    /// one device sleeps at a time: `Err` when another device holds it (nothing may be
    /// written), `Ok(Some(note))` when it could not be asked (the Sleep goes ahead),
    /// `Ok(None)` when taken or when the memory does not sync.
    async fn take_lease(&self, _at: i64) -> Result<Option<String>, WriteError> {
        Ok(None)
    }

    /// Gives it back (best effort: it expires by itself).
    async fn release_lease(&self, _at: i64) {}
}

/// A memory that does not sync: nothing is recorded, there is no lease.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoSync;

impl Recorder for NoSync {
    async fn syncs(&self) -> Result<bool, WriteError> {
        Ok(false)
    }

    async fn record<S: Store, P: Provider>(
        &self,
        _store: &S,
        _provider: &P,
        _command: &Command,
        _watch: &mut Watch<'_>,
    ) -> Result<Recorded, WriteError> {
        Err(WriteError::Refused(super::error::Refusal::Record(
            "this memory does not sync; nothing was recorded".into(),
        )))
    }
}

/// What performing a command as a record did: what its record did in words, and the
/// command's own result (the field of its kind).
#[derive(Debug, Default)]
pub struct Recorded {
    /// `done`, or what a replay on a moved head did.
    pub note: String,
    pub turn: Option<TurnOutcome>,
    /// The version an edit or a restore wrote.
    pub version: Option<Version>,
    /// What a policy change logged.
    pub policy: Option<String>,
    pub erased: Option<Erased>,
    /// A plan applied: a reviewed one, or a Sleep's own.
    pub applied: Option<Applied>,
    pub import: Option<Report>,
}

/// The provider of a write that asks no model (an edit, a restore, a plan applied):
/// every call is refused.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoModel;

impl Provider for NoModel {
    fn label(&self) -> String {
        "no model".into()
    }

    async fn complete(&self, _request: &Request) -> Result<Completion, ProviderError> {
        Err(ProviderError::Unreachable("this write asks no model".into()))
    }
}
