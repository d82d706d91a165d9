//! The memory a `--store` path names, behind one [`Store`]: a SQLite database
//! ([`DbStore`], what a new memory is) or a JSON file as earlier versions kept it
//! ([`FileStore`], still read and written, and what `nocturne move-store` moves from).
//!
//! Which one is decided by the file, never by a flag: an existing file by its first bytes
//! (a SQLite header, or JSON), a new one by its name (`*.json` stays a JSON file, anything
//! else is a database).

use crate::db::{DbStore, SQLITE_MAGIC};
use crate::error::CliError;
use crate::file::FileStore;
use nocturne_core::model::memory::{Item, Mutation, Turn, Version};
use nocturne_core::model::policy::RetentionPolicy;
use nocturne_core::store::document::Document;
use nocturne_core::store::{Commit, Meta, Shortlist, Store, StoreError};
use std::io::Read;
use std::path::Path;

/// One memory on disk, whichever way it is kept.
pub enum Memory {
    Db(DbStore),
    File(FileStore),
}

impl Memory {
    /// The memory at `path`; a new, empty one when there is no file yet (the first write
    /// creates it).
    pub fn open(path: &Path) -> Result<Memory, CliError> {
        let database = match std::fs::File::open(path) {
            Ok(mut file) => {
                let mut head = [0u8; 16];
                let read = file.read(&mut head).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                read == head.len() && &head == SQLITE_MAGIC
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                path.extension().is_none_or(|ext| !ext.eq_ignore_ascii_case("json"))
            }
            Err(e) => return Err(format!("cannot open {}: {e}", path.display()).into()),
        };
        if database {
            Ok(DbStore::open(path).map(Memory::Db)?)
        } else {
            FileStore::open(path).map(Memory::File)
        }
    }

    /// The memory at `path`, which must exist.
    pub fn open_existing(path: &Path) -> Result<Memory, CliError> {
        if !path.exists() {
            return Err(format!(
                "no memory at {} (start one with `nocturne chat --store {}`)",
                path.display(),
                path.display()
            )
            .into());
        }
        Memory::open(path)
    }
}

/// Forwards each [`Store`] method to the backend in use.
macro_rules! forward {
    ($self:ident, $store:ident => $call:expr) => {
        match $self {
            Memory::Db($store) => $call,
            Memory::File($store) => $call,
        }
    };
}

impl Store for Memory {
    async fn items(&self) -> Result<Vec<Item>, StoreError> {
        forward!(self, s => s.items().await)
    }

    async fn meta(&self) -> Result<Meta, StoreError> {
        forward!(self, s => s.meta().await)
    }

    async fn versions(&self) -> Result<Vec<Version>, StoreError> {
        forward!(self, s => s.versions().await)
    }

    async fn mutations(&self) -> Result<Vec<Mutation>, StoreError> {
        forward!(self, s => s.mutations().await)
    }

    async fn transcript(&self) -> Result<Vec<Turn>, StoreError> {
        forward!(self, s => s.transcript().await)
    }

    async fn turn_count(&self) -> Result<u32, StoreError> {
        forward!(self, s => s.turn_count().await)
    }

    async fn turns_from(&self, start: u32) -> Result<Vec<Turn>, StoreError> {
        forward!(self, s => s.turns_from(start).await)
    }

    async fn items_at(&self, seq: u64) -> Result<Vec<Item>, StoreError> {
        forward!(self, s => s.items_at(seq).await)
    }

    async fn changes(&self, lo: u64, hi: u64) -> Result<Vec<(u64, Item)>, StoreError> {
        forward!(self, s => s.changes(lo, hi).await)
    }

    async fn commit(&self, commit: Commit) -> Result<Vec<Version>, StoreError> {
        forward!(self, s => s.commit(commit).await)
    }

    async fn set_policy(&self, policy: RetentionPolicy) -> Result<(), StoreError> {
        forward!(self, s => s.set_policy(policy).await)
    }

    fn rows_written(&self) -> u64 {
        forward!(self, s => s.rows_written())
    }

    async fn replace_all(&self, doc: Document, base: u64) -> Result<(), StoreError> {
        forward!(self, s => s.replace_all(doc, base).await)
    }

    async fn item_states(&self, ids: &[String], seq: u64) -> Result<Vec<Item>, StoreError> {
        forward!(self, s => s.item_states(ids, seq).await)
    }

    async fn mutations_between(&self, lo: u64, hi: u64) -> Result<Vec<Mutation>, StoreError> {
        forward!(self, s => s.mutations_between(lo, hi).await)
    }

    async fn items_holding(&self, tokens: &[String]) -> Result<Vec<Item>, StoreError> {
        forward!(self, s => s.items_holding(tokens).await)
    }

    async fn prompt_shortlist(&self, asked: &[String]) -> Result<Option<Shortlist>, StoreError> {
        forward!(self, s => s.prompt_shortlist(asked).await)
    }

    async fn mutations_about(&self, ids: &[String]) -> Result<Vec<Mutation>, StoreError> {
        forward!(self, s => s.mutations_about(ids).await)
    }
}
