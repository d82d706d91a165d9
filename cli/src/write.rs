//! The command line's and the MCP server's side of the one write path
//! (`nocturne_sync::journal`): a journal over the store file and the sync state beside it,
//! driven to completion. The commands and the tools only print.

use crate::store::Memory;
use crate::sync::{Files, Os, Socket};
use nocturne_core::flow::chat::{self, TurnOutcome};
use nocturne_core::flow::edit::UserEdit;
use nocturne_core::flow::review::{Applied, Decisions, Review};
use nocturne_core::flow::sleep::{PassEvent, SleepReport};
use nocturne_core::llm::provider::Provider;
use nocturne_core::model::memory::Version;
use nocturne_core::store::erase::Erased;
use nocturne_sync::journal::{Journal, Journaled, ServerLease, SleepCall, SleepFailure};
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

    fn journal(&self) -> Journal<'_, Files<'a>, Memory> {
        Journal { keeper: &self.files, store: self.memory }
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
        let reply = pollster::block_on(chat::reply_streaming(self.memory, provider, text, at, &mut |_| {}))
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
