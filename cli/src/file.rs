//! The store file: a [`Store`] over one JSON document on disk that several processes
//! (`nocturne chat`, `nocturne mcp`, a Sleep) may write at once without losing a write.
//!
//! Every read looks at the file first and reloads it when another process replaced it, so
//! a plan is made against the memory as it is on disk. Every write takes an exclusive lock
//! on `FILE.lock`, reloads the file under the lock, commits against that fresh head — a
//! commit planned against an older head is refused as [`StoreError::Conflict`], which the
//! flows answer by planning again — and replaces the file atomically (a temporary file,
//! then a rename) before the lock is let go. Readers never take the lock: they always see
//! a whole file, the old one or the new one.

use crate::error::CliError;
use nocturne_core::model::memory::{Item, Mutation, Turn, Version};
use nocturne_core::model::policy::RetentionPolicy;
use nocturne_core::store::document::Document;
use nocturne_core::store::{Commit, MemStore, Meta, Store, StoreError};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// A memory kept in a JSON file, shared safely with other processes.
pub struct FileStore {
    path: PathBuf,
    /// The file as last read, and what identified it on disk then.
    loaded: RefCell<(Rc<MemStore>, Option<Stamp>)>,
}

/// What tells one version of the file from another without reading it: a replacement is
/// a new inode (written aside, then renamed over), and its size and time change too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    inode: u64,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl FileStore {
    /// The memory in `path`; an empty one when there is no file yet (the first write
    /// creates it).
    pub fn open(path: &Path) -> Result<FileStore, CliError> {
        let store = FileStore { path: path.to_path_buf(), loaded: RefCell::new((Rc::new(MemStore::new()), None)) };
        store.refresh().map_err(|e| e.to_string())?;
        Ok(store)
    }

    /// The memory as the file holds it now (reloaded if another process replaced it).
    fn current(&self) -> Result<Rc<MemStore>, StoreError> {
        self.refresh()?;
        Ok(self.loaded.borrow().0.clone())
    }

    /// Reloads the file when it is not the one last read.
    fn refresh(&self) -> Result<(), StoreError> {
        let stamp = stamp(&self.path);
        if stamp == self.loaded.borrow().1 {
            return Ok(());
        }
        let memory = match stamp {
            None => MemStore::new(),
            Some(_) => {
                let bytes = std::fs::read(&self.path)
                    .map_err(|e| StoreError::Backend(format!("cannot read {}: {e}", self.path.display())))?;
                let text = String::from_utf8(bytes).map_err(|_| invalid(&self.path, "it is not text (UTF-8)"))?;
                if text.trim().is_empty() {
                    // A file made empty, before its first write: an empty memory.
                    MemStore::new()
                } else {
                    let doc = Document::parse(&text).map_err(|e| invalid(&self.path, e))?;
                    MemStore::from_document(doc).map_err(|e| invalid(&self.path, e))?
                }
            }
        };
        *self.loaded.borrow_mut() = (Rc::new(memory), stamp);
        Ok(())
    }

    /// Runs `write` on the freshest memory with the file locked, then replaces the file
    /// (once, however many commits `write` made: an import writes many batches per save).
    pub async fn write<T, F, Fut>(&self, write: F) -> Result<T, StoreError>
    where
        F: FnOnce(Rc<MemStore>) -> Fut,
        Fut: std::future::Future<Output = Result<T, StoreError>>,
    {
        let lock = Lock::take(&self.path)?;
        let memory = self.current()?;
        let out = write(memory.clone()).await?;
        let written = write_atomically(&self.path, memory.document().to_json().as_bytes())
            .map_err(|e| StoreError::Backend(format!("cannot write {}: {e}", self.path.display())));
        if let Err(e) = written {
            // What is in memory no longer matches the file: read it again next time.
            self.loaded.borrow_mut().1 = None;
            return Err(e);
        }
        self.loaded.borrow_mut().1 = stamp(&self.path);
        drop(lock);
        Ok(out)
    }
}

/// Writes `bytes` to `path` whole or not at all: into a file beside it, then renamed over
/// it (a reader sees the old file or the new one, never half of one).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    let tmp = path.with_file_name(name);
    let written = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

fn invalid(path: &Path, e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(format!("{} is not a readable memory file: {e}", path.display()))
}

#[cfg(unix)]
fn stamp(path: &Path) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some(Stamp { inode: m.ino(), len: m.len(), modified: m.modified().ok() })
}

#[cfg(not(unix))]
fn stamp(path: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(path).ok()?;
    Some(Stamp { inode: 0, len: m.len(), modified: m.modified().ok() })
}

/// An exclusive lock on `FILE.lock`, held until dropped (the OS lets go of it if the
/// process dies, so a crash never leaves the file locked).
struct Lock(std::fs::File);

impl Lock {
    fn take(path: &Path) -> Result<Lock, StoreError> {
        let name = format!("{}.lock", path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default());
        let lock_path = path.with_file_name(name);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| StoreError::Backend(format!("cannot open the lock file {}: {e}", lock_path.display())))?;
        file.lock().map_err(|e| StoreError::Backend(format!("cannot lock {}: {e}", lock_path.display())))?;
        Ok(Lock(file))
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

impl Store for FileStore {
    async fn items(&self) -> Result<Vec<Item>, StoreError> {
        self.current()?.items().await
    }

    async fn meta(&self) -> Result<Meta, StoreError> {
        self.current()?.meta().await
    }

    async fn versions(&self) -> Result<Vec<Version>, StoreError> {
        self.current()?.versions().await
    }

    async fn mutations(&self) -> Result<Vec<Mutation>, StoreError> {
        self.current()?.mutations().await
    }

    async fn transcript(&self) -> Result<Vec<Turn>, StoreError> {
        self.current()?.transcript().await
    }

    async fn turn_count(&self) -> Result<u32, StoreError> {
        self.current()?.turn_count().await
    }

    async fn turns_from(&self, start: u32) -> Result<Vec<Turn>, StoreError> {
        self.current()?.turns_from(start).await
    }

    async fn items_at(&self, seq: u64) -> Result<Vec<Item>, StoreError> {
        self.current()?.items_at(seq).await
    }

    async fn changes(&self, lo: u64, hi: u64) -> Result<Vec<(u64, Item)>, StoreError> {
        self.current()?.changes(lo, hi).await
    }

    async fn item_states(&self, ids: &[String], seq: u64) -> Result<Vec<Item>, StoreError> {
        self.current()?.item_states(ids, seq).await
    }

    async fn mutations_between(&self, lo: u64, hi: u64) -> Result<Vec<Mutation>, StoreError> {
        self.current()?.mutations_between(lo, hi).await
    }

    async fn commit(&self, commit: Commit) -> Result<Vec<Version>, StoreError> {
        self.write(|memory| async move { memory.commit(commit).await }).await
    }

    async fn set_policy(&self, policy: RetentionPolicy) -> Result<(), StoreError> {
        self.write(|memory| async move { memory.set_policy(policy).await }).await
    }

    fn rows_written(&self) -> u64 {
        self.loaded.borrow().0.rows_written()
    }

    async fn replace_all(&self, doc: Document, base: u64) -> Result<(), StoreError> {
        self.write(|memory| async move { memory.replace_all(doc, base).await }).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nocturne_core::model::memory::Block;
    use nocturne_core::testkit::conformance;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("nocturne-file-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join(name);
        let _ = std::fs::remove_file(&path);
        path
    }

    fn add(store: &FileStore, n: u64, text: &str, base: Option<u64>) -> Result<Vec<Version>, StoreError> {
        let fact = conformance::fact(n, Block::Scratch, text, 1_700_000_000 + n as i64);
        pollster::block_on(store.commit(Commit {
            at: 1_700_000_000 + n as i64,
            label: Some(format!("turn:{n}")),
            created: vec![fact],
            base,
            ..Default::default()
        }))
    }

    #[test]
    fn file_store_passes_every_conformance_check() {
        let mut failures = Vec::new();
        for name in conformance::CHECKS {
            let path = temp(&format!("{name}.json"));
            let store = FileStore::open(&path).expect("open");
            if let Err(e) = pollster::block_on(conformance::check(name, &store)) {
                failures.push(format!("{name}: {e}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn a_commit_planned_against_a_head_another_process_moved_is_refused_and_loses_nothing() {
        let path = temp("two-writers.json");
        let (a, b) = (FileStore::open(&path).expect("a"), FileStore::open(&path).expect("b"));
        add(&a, 1, "I live in Ghent.", Some(0)).expect("first write");
        // B reads the file A wrote, then A writes again: B's plan is now stale.
        let head = pollster::block_on(b.meta()).expect("meta").head;
        add(&a, 2, "I keep a cat called Miso.", Some(head)).expect("second write");
        let stale = add(&b, 3, "I teach chemistry.", Some(head));
        assert!(matches!(stale, Err(StoreError::Conflict { .. })), "{stale:?}");
        // Planned again against what B now reads, it lands beside both of A's facts.
        let head = pollster::block_on(b.meta()).expect("meta").head;
        add(&b, 3, "I teach chemistry.", Some(head)).expect("replanned write");
        let fresh = FileStore::open(&path).expect("reopen");
        let texts: Vec<String> =
            pollster::block_on(fresh.items()).expect("items").into_iter().map(|i| i.text).collect();
        assert_eq!(texts, ["I live in Ghent.", "I keep a cat called Miso.", "I teach chemistry."]);
    }

    #[test]
    fn a_store_file_that_is_not_a_memory_is_an_error_naming_it() {
        let path = temp("garbage.json");
        std::fs::write(&path, "{ not json").expect("write");
        let err = FileStore::open(&path).err().expect("refused").to_string();
        assert!(err.contains("garbage.json") && err.contains("not a readable memory file"), "{err}");
    }
}
