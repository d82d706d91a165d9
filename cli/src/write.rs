//! The command line's and the MCP server's side of the one write path
//! (`nocturne_sync::journal`): a journal over the store file and the sync state beside it,
//! driven to completion. The commands and the tools only print.

use crate::store::Memory;
use crate::sync::{Files, Os, Socket};
use nocturne_core::flow::chat::{self, TurnOutcome};
use nocturne_core::flow::edit::UserEdit;
use nocturne_core::flow::import::{Report, TranscriptCache};
use nocturne_core::flow::import_plan::{ImportOptions, Plan};
use nocturne_core::flow::report::{PassEvent, SleepReport};
use nocturne_core::flow::review::{Applied, Decisions, Review};
use nocturne_core::llm::provider::Provider;
use nocturne_core::model::memory::Version;
use nocturne_core::model::policy::RetentionPolicy;
use nocturne_core::store::erase::Erased;
use nocturne_sync::journal::{Journal, Journaled, ServerLease, SleepCall, SleepFailure};
use nocturne_sync::procedure::StoreLocks;
use std::path::Path;

/// A store file and the sync state beside it.
pub struct Writer<'a> {
    files: Files<'a>,
    memory: &'a Memory,
}

impl<'a> Writer<'a> {
    pub fn new(path: &'a Path, memory: &'a Memory) -> Self {
        Writer { files: Files(path), memory }
    }

    fn journal(&self) -> Journal<'_, Files<'a>, Memory, StoreLocks> {
        Journal { keeper: &self.files, store: self.memory, lock: &StoreLocks }
    }

    /// The space's Sleep lease, over this store's replica and the command line's WebSocket.
    fn lease(&self) -> ServerLease<'_, Files<'a>, Socket, Os> {
        ServerLease { keeper: &self.files, exchange: &Socket, random: &Os }
    }

    /// A chat turn: the reply from the memory, then the turn stored and encoded.
    pub fn say<P: Provider>(
        &self,
        provider: &P,
        speaker: Option<&str>,
        text: &str,
        at: i64,
    ) -> Result<Journaled<TurnOutcome>, String> {
        let reply = pollster::block_on(chat::reply(self.memory, provider, text, at, &mut |_| {}))
            .map_err(|e| format!("{e}; the store file holds the turns before this one"))?;
        pollster::block_on(self.journal().say(provider, speaker, text, Some(&reply), at))
    }

    /// What the user said, with no reply (an MCP host's `add_memory`), stored and encoded.
    pub fn remember<P: Provider>(&self, provider: &P, text: &str, at: i64) -> Result<Journaled<TurnOutcome>, String> {
        pollster::block_on(self.journal().say(provider, None, text, None, at))
    }

    /// The user's correction, pin, unpin or forget of one active fact.
    pub fn edit(&self, edit: &UserEdit, at: i64) -> Result<Journaled<Version>, String> {
        pollster::block_on(self.journal().edit(edit, at))
    }

    /// The user's retention policy: what it logged, `None` when it changed nothing.
    pub fn set_policy(&self, policy: &RetentionPolicy, at: i64) -> Result<Journaled<Option<String>>, String> {
        pollster::block_on(self.journal().set_policy(policy, at))
    }

    /// Restores version `seq` as a new version.
    pub fn restore(&self, seq: u64, at: i64) -> Result<Journaled<Version>, String> {
        pollster::block_on(self.journal().restore(seq, at))
    }

    /// Erases a fact's words from every version.
    pub fn erase(&self, item_id: &str, at: i64) -> Result<Journaled<Erased>, String> {
        pollster::block_on(self.journal().erase(item_id, at))
    }

    /// A Sleep that is not a dry run, through the journal: the estimate first, a heavy
    /// retirement refused unless `call.heavy` says go ahead.
    pub fn sleep<P: Provider>(
        &self,
        provider: &P,
        call: &mut SleepCall<'_>,
    ) -> Result<Journaled<SleepReport>, SleepFailure> {
        pollster::block_on(self.journal().sleep(provider, &self.lease(), call)).map_err(|e| match e {
            SleepFailure::Failed(why) => {
                SleepFailure::Failed(format!("{why}; the store file holds the passes that completed"))
            }
            heavy => heavy,
        })
    }

    /// One piece of an import (`flow::import_plan::Plan::pieces`): a database commits each
    /// batch as it goes; a JSON file is rewritten once for the piece, under its lock.
    pub fn import<P: Provider>(
        &self,
        provider: &P,
        piece: &Plan,
        options: &ImportOptions,
        seen: &mut TranscriptCache,
        now: i64,
    ) -> Result<Journaled<Report>, String> {
        let lease = self.lease();
        match self.memory {
            Memory::Db(db) => {
                let journal = Journal { keeper: &self.files, store: db, lock: &StoreLocks };
                pollster::block_on(journal.import(provider, &lease, piece, options, seen, now, &mut |_| {}))
            }
            Memory::File(file) => pollster::block_on(file.write(|mem| async move {
                let journal = Journal { keeper: &self.files, store: &*mem, lock: &StoreLocks };
                Ok(journal.import(provider, &lease, piece, options, seen, now, &mut |_| {}).await)
            }))
            .map_err(|e| e.to_string())?,
        }
    }

    /// The deep Sleep at the end of an import, when it asked for one.
    pub fn import_sleep<P: Provider>(
        &self,
        provider: &P,
        options: &ImportOptions,
        now: i64,
        report: &mut Report,
    ) -> Result<(), String> {
        pollster::block_on(self.journal().import_sleep(provider, &self.lease(), options, now, report))
    }

    /// A reviewed Sleep's plan applied with the user's decisions.
    pub fn apply(
        &self,
        plan: &Review,
        decisions: &Decisions,
        at: i64,
        on_event: &mut dyn FnMut(&PassEvent),
    ) -> Result<Journaled<Applied>, String> {
        pollster::block_on(self.journal().apply(plan, decisions, &self.lease(), at, on_event))
    }
}
