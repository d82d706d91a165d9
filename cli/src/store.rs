//! The memory a `--store` path names, behind one [`Store`]: a SQLite database
//! ([`DbStore`], what a new memory is) or a JSON file as earlier versions kept it
//! ([`FileStore`], still read and written, and what `nocturne move-store` moves from).
//!
//! Which one is decided by the file's content and its name together ([`Kind::of`]), never
//! by a flag: a SQLite header is a database; JSON is a memory file, unless the name says
//! database; a file with no bytes yet, or only the start of a SQLite header (another
//! process is creating the database this moment), is what its name says — `*.json` a JSON
//! file, anything else a database; anything else is refused by name, with its first
//! bytes, and nothing is changed.

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

/// What a store file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Database,
    Json,
}

impl Kind {
    /// What the file at `path` is, by its first bytes (`None`: there is no file) and its
    /// name; `Err` names the file and what it holds instead.
    pub fn of(path: &Path, head: Option<&[u8]>) -> Result<Kind, CliError> {
        let ext = path.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
        let named_json = ext == "json";
        let named_db = ["db", "sqlite", "sqlite3", "nocturne"].contains(&ext.as_str());
        let Some(head) = head else {
            return Ok(if named_json { Kind::Json } else { Kind::Database });
        };
        if head.len() >= SQLITE_MAGIC.len() && head.starts_with(SQLITE_MAGIC) {
            return Ok(Kind::Database);
        }
        // No bytes yet, or only the start of a header: a database being made, or a new file.
        if SQLITE_MAGIC.starts_with(head) {
            return Ok(if named_json && head.is_empty() { Kind::Json } else { Kind::Database });
        }
        let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
        let first = text.iter().find(|b| !b.is_ascii_whitespace());
        match first {
            Some(b'{') if named_db => Err(format!(
                "{} holds JSON but its name says it is a database: rename it to end in .json, or move it with \
`nocturne move-store`; nothing was changed",
                path.display()
            )
            .into()),
            Some(b'{') => Ok(Kind::Json),
            None if !named_db => Ok(Kind::Json),
            _ => Err(format!(
                "{} is neither a Nocturne database nor a memory file (it starts with {}); nothing was changed",
                path.display(),
                head.iter().take(8).map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ")
            )
            .into()),
        }
    }
}

impl Memory {
    /// The memory at `path`; a new, empty one when there is no file yet (the first write
    /// creates it).
    pub fn open(path: &Path) -> Result<Memory, CliError> {
        let head = match std::fs::File::open(path) {
            Ok(mut file) => {
                let mut head = Vec::with_capacity(64);
                file.by_ref()
                    .take(64)
                    .read_to_end(&mut head)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                Some(head)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(format!("cannot open {}: {e}", path.display()).into()),
        };
        match Kind::of(path, head.as_deref())? {
            Kind::Database => Ok(DbStore::open(path).map(Memory::Db)?),
            Kind::Json => FileStore::open(path).map(Memory::File),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_s_kind_is_decided_by_its_content_and_its_name_together() {
        let kind = |name: &str, head: Option<&[u8]>| Kind::of(Path::new(name), head).map_err(|e| e.to_string());
        assert_eq!(kind("n.db", None), Ok(Kind::Database));
        assert_eq!(kind("n.json", None), Ok(Kind::Json));
        assert_eq!(kind("n.db", Some(b"")), Ok(Kind::Database), "another process is creating it");
        assert_eq!(kind("n", Some(b"SQLite for")), Ok(Kind::Database), "the start of a header");
        assert_eq!(kind("n.json", Some(b"SQLite format 3\0....")), Ok(Kind::Database));
        assert_eq!(kind("n.json", Some(b"")), Ok(Kind::Json));
        assert_eq!(kind("memory", Some(b"  {\"format\"")), Ok(Kind::Json));
        assert!(kind("n.db", Some(b"{\"format\"")).unwrap_err().contains("its name says it is a database"));
        let random = kind("n.db", Some(&[0x8f, 0x3a, 0x00, 0xff])).unwrap_err();
        assert!(random.contains("neither a Nocturne database nor a memory file") && random.contains("8f 3a 00 ff"));
    }
}
