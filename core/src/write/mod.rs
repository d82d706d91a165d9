//! The one write path, a layer of its own above `flow`: every write a device makes — a
//! chat turn, an MCP host's memory, the user's edits, an erase, a restore, the retention
//! policy, a Sleep, a reviewed plan applied, an imported history — is one [`Command`],
//! performed by [`Journal::perform`], which returns what the command did or a
//! [`WriteError`] a caller can match.
//!
//! The journal is sans-IO like the rest of the core: the lock the memory's writers share
//! ([`WriteLock`]) and whoever records performed commands ([`Recorder`]: the sync crate
//! when the memory syncs, [`NoSync`] when it does not) come in as traits. Entry points — a
//! command-line subcommand, an MCP tool, a page's job — map their request to a command and
//! render its outcome; none of them decides whether the memory syncs.
//!
//! - `command`: [`Command`], each command's data, [`Outcome`], [`Done`], the [`Watch`].
//! - `error`: [`WriteError`] and what its variants carry.
//! - `hooks`: the device's seams: [`WriteLock`], [`Recorder`], [`NoSync`], [`NoModel`].
//! - `journal`: [`Journal`] and [`Perform`], every command but the Sleep; [`LockedWrite`], what is
//!   particular to each command done whole under the lock (the journal does the rest).
//! - `sleep`: a Sleep planned, guarded by its plan, applied.
//!
//! ```
//! use nocturne_core::llm::offline::OfflineProvider;
//! use nocturne_core::store::{MemStore, Store};
//! use nocturne_core::write::{Journal, NoSync, Say, StoreLocks, Watch};
//! # pollster::block_on(async {
//! let store = MemStore::new();
//! let journal = Journal::new(&store, &StoreLocks, &NoSync);
//! let say = Say { text: "I live in Ghent.".into(), speaker: None, reply: None, at: 1_767_139_200, origin: Default::default() };
//! let done = journal.perform(say, &OfflineProvider, &mut Watch::quiet()).await.unwrap();
//! assert!(done.recorded.is_none() && done.done.encoded.iter().any(|m| m.accepted));
//! assert_eq!(store.turn_count().await.unwrap(), 1);
//! # });
//! ```

pub mod command;
pub mod error;
pub mod hooks;
pub mod journal;
pub mod sleep;

pub use command::{
    Apply, Command, Done, Edit, Erase, Import, ImportSleep, Imported, Kind, Outcome, Policy, Progress, Reply, Restore,
    Say, Sleep, Slept, Watch, CUT,
};
pub use error::{BadInput, Heavy, LockError, ModelError, Refusal, Stopped, WriteError};
pub use hooks::{NoModel, NoSync, Recorded, Recorder, StoreLocks, WriteLock};
pub use journal::{Journal, LockedWrite, Perform};
