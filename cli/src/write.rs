//! Every write the command line and the MCP server make to a store file: recorded for the
//! next sync when the store syncs (as a record other devices replay, never a whole-memory
//! checkpoint), made directly through the same core function when it does not. The one
//! place that decides which; the commands and the tools only print.

use crate::file::FileStore;
use crate::sync;
use nocturne_core::flow::chat::{self, TurnOutcome};
use nocturne_core::flow::edit::{self, UserEdit};
use nocturne_core::flow::sleep::{self, SleepReport};
use nocturne_core::llm::provider::Provider;
use nocturne_core::model::memory::Version;
use nocturne_core::store::erase::Erased;
use nocturne_core::store::{replanning, Store};
use nocturne_sync::record::{EditRow, Op, ReplyRow};
use std::path::Path;

/// A store file and where it lives (its sync state sits beside it).
pub struct Writer<'a> {
    pub path: &'a Path,
    pub memory: &'a FileStore,
}

/// What a write did, and whether it waits for the next sync.
#[derive(Debug)]
pub struct Written<T> {
    pub done: T,
    /// `Some(what the record did)` when the store syncs: kept for the next sync.
    pub recorded: Option<String>,
}

impl Writer<'_> {
    /// A chat turn: the reply from the memory, then the user's words and the reply stored
    /// and encoded.
    pub fn say<P: Provider>(
        &self,
        provider: &P,
        speaker: Option<&str>,
        text: &str,
        at: i64,
    ) -> Result<Written<TurnOutcome>, String> {
        if sync::syncs(self.path)? {
            let reply = pollster::block_on(chat::reply_streaming(self.memory, provider, text, at, &mut |_| {}))
                .map_err(|e| e.to_string())?;
            let row =
                ReplyRow { text: reply.text.clone(), memory: reply.memory.clone(), refused: reply.refused.clone() };
            let op = Op::Say { text: text.trim().to_string(), speaker: speaker.map(String::from), reply: Some(row) };
            let done = sync::act(self.path, self.memory, provider, op, at)?.ok_or("the store stopped syncing")?;
            let turn = done.turn.clone().ok_or_else(|| format!("the turn was not stored: {}", done.applied))?;
            return Ok(Written { done: turn, recorded: Some(done.applied.to_string()) });
        }
        let turn = pollster::block_on(chat::chat_turn_by(self.memory, provider, speaker, text, at))
            .map_err(|e| format!("{e}; the store file holds the turns before this one"))?;
        Ok(Written { done: turn, recorded: None })
    }

    /// Stores what the user said (no reply: an MCP host's `add_memory`), encoded.
    pub fn remember<P: Provider>(&self, provider: &P, text: &str, at: i64) -> Result<Written<TurnOutcome>, String> {
        if sync::syncs(self.path)? {
            let op = Op::Say { text: text.trim().to_string(), speaker: None, reply: None };
            let done = sync::act(self.path, self.memory, provider, op, at)?.ok_or("the store stopped syncing")?;
            let turn = done.turn.clone().ok_or_else(|| format!("the turn was not stored: {}", done.applied))?;
            return Ok(Written { done: turn, recorded: Some(done.applied.to_string()) });
        }
        let turn = pollster::block_on(chat::remember_by(self.memory, provider, None, text, at))
            .map_err(|e| format!("{e}; nothing was stored"))?;
        Ok(Written { done: turn, recorded: None })
    }

    /// The user's correction, pin, unpin or forget of one active fact. Returns the version
    /// it wrote.
    pub fn edit(&self, edit: &UserEdit, at: i64) -> Result<Written<Version>, String> {
        if sync::syncs(self.path)? {
            let items = pollster::block_on(self.memory.items()).map_err(|e| e.to_string())?;
            let fact = items
                .iter()
                .find(|i| i.item_id == edit.item_id() && i.active)
                .ok_or_else(|| format!("there is no active fact {}; nothing was changed", edit.item_id()))?;
            let op = Op::Edit { edit: EditRow::from_edit(edit, &fact.text) };
            let done = sync::act(self.path, self.memory, &nocturne_core::llm::offline::OfflineProvider, op, at)?
                .ok_or("the store stopped syncing")?;
            if let nocturne_sync::replay::Applied::Refused(why) = &done.applied {
                return Err(why.clone());
            }
            let versions = pollster::block_on(self.memory.versions()).map_err(|e| e.to_string())?;
            let version = versions.last().cloned().ok_or("the edit wrote no version")?;
            return Ok(Written { done: version, recorded: Some(done.applied.to_string()) });
        }
        let version = pollster::block_on(edit::apply(self.memory, edit, at)).map_err(|e| e.to_string())?;
        Ok(Written { done: version, recorded: None })
    }

    /// Erases a fact's words from every version (and, when the store syncs, from every
    /// copy at the next sync).
    pub fn erase(&self, item_id: &str, at: i64) -> Result<Written<Erased>, String> {
        if let Some(erased) = sync::erase(self.path, self.memory, item_id, at)? {
            return Ok(Written { done: erased, recorded: Some("done".into()) });
        }
        let erased = pollster::block_on(edit::erase(self.memory, item_id, at)).map_err(|e| e.to_string())?;
        Ok(Written { done: erased, recorded: None })
    }

    /// A Sleep that is not a dry run. On a store that syncs it takes the space's Sleep
    /// lease first (`notes` gets why it could not be asked) and is recorded; otherwise a
    /// pass planned on a head another writer moved makes the Sleep run again on the new
    /// memory. `on_event` sees each pass.
    pub fn sleep<P: Provider>(
        &self,
        provider: &P,
        options: &sleep::SleepOptions,
        notes: &mut Vec<String>,
        on_event: &mut dyn FnMut(&sleep::PassEvent),
    ) -> Result<Written<SleepReport>, String> {
        if sync::syncs(self.path)? {
            notes.extend(sync::take_lease(self.path, options.now)?);
            let op = Op::Sleep { deep: options.scope == nocturne_core::flow::focus::Scope::Deep };
            let done = sync::act_watched(self.path, self.memory, provider, op, options, on_event);
            sync::release_lease(self.path, options.now);
            let done = done?.ok_or("the store stopped syncing")?;
            let report = done.sleep.clone().ok_or_else(|| done.applied.to_string())?;
            return Ok(Written { done: report, recorded: Some(done.applied.to_string()) });
        }
        let report = pollster::block_on(replanning(
            |e| matches!(e, sleep::SleepError::Store(e) if e.is_conflict()),
            async || sleep::sleep(self.memory, provider, options, on_event).await,
        ))
        .map_err(|e| format!("{e}; the store file holds the passes that completed"))?;
        Ok(Written { done: report, recorded: None })
    }
}
