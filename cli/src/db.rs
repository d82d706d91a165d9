//! The store database: a [`Store`] in one SQLite file (WAL), so a write costs the rows it
//! changes, not the memory's lifetime, and `nocturne chat`, `nocturne mcp` and a Sleep may
//! share a memory without waiting on each other for long.
//!
//! The rows are the store's own (live items, change rows per version, versions, mutations,
//! turns, the meta), each kept as its export JSON beside the columns a query needs. Every
//! write is one `BEGIN IMMEDIATE` transaction that reads the head *inside* it and refuses a
//! commit planned against another head as [`StoreError::Conflict`] — the same rows, seqs and
//! refusals as every backend, planned by `store::plan_rows`. Readers run beside the one
//! writer (WAL) and always see a whole commit. Two indexes serve search: `words` (each
//! live row's content tokens, stemmed as the gates stem them) and `mentions` (each log
//! entry under every item id it names), so `nocturne search` reads the facts it finds and
//! their history, not the memory. Three serve a large memory's chat prompt: `roots` (each
//! active fact's own and context roots, as `store::retrieval::fact_terms` makes them, with its
//! length), `totals` (the active facts' summed length) and `speakers`, so
//! [`Store::prompt_shortlist`] reads a few hundred facts and the whole memory's statistics
//! instead of every fact.

use nocturne_core::model::memory::Block;
use nocturne_core::model::memory::{Item, Mutation, Turn, Version};
use nocturne_core::model::policy::RetentionPolicy;
use nocturne_core::store::document::Document;
use nocturne_core::store::retrieval::{context_turns, fact_terms};
use nocturne_core::store::{check_turns, plan_rows, Commit, Corpus, Meta, Rows, Shortlist, Store, StoreError};
use nocturne_core::text::order;
use nocturne_core::text::textmath::content_tokens;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde::de::DeserializeOwned;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Marks a SQLite file as a Nocturne memory (`PRAGMA application_id`, "Noct").
const APPLICATION_ID: i32 = 0x4E6F_6374;
/// The layout below; a file from a newer layout is refused, not misread. Layout 2 finds a
/// fact by the words of more of the conversation before it (`context_turns`): a file of
/// layout 1 has its facts' context roots written again when it is opened ([`refresh_context`]).
const SCHEMA_VERSION: i32 = 2;
/// Below this many active facts a chat prompt reads every fact: the whole index costs
/// less than the rest of the turn.
const CANDIDATE_FLOOR: usize = 1_000;
/// Facts each source of the prompt's shortlist gives: more than a prompt's budget has room for
/// (2,000 tokens hold about 150 facts), from each pinned block, each asked root and each
/// other block.
const PER_SOURCE: i64 = 100;
/// How long a writer waits for another writer's transaction before giving up.
const BUSY_MS: u64 = 30_000;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS live (item_id TEXT PRIMARY KEY, json TEXT NOT NULL, active INTEGER NOT NULL, block TEXT NOT NULL,
  category TEXT NOT NULL, created_at INTEGER NOT NULL, len INTEGER NOT NULL, speaker TEXT);
CREATE INDEX IF NOT EXISTS live_recent ON live (active, block, created_at);
CREATE INDEX IF NOT EXISTS live_kind ON live (active, category, created_at);
CREATE TABLE IF NOT EXISTS speakers (name TEXT PRIMARY KEY, active INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS roots (root TEXT NOT NULL, own INTEGER NOT NULL, len INTEGER NOT NULL, item_id TEXT NOT NULL,
  PRIMARY KEY (root, own, len, item_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS roots_item ON roots (item_id);
CREATE TABLE IF NOT EXISTS totals (id INTEGER PRIMARY KEY CHECK (id = 1), active_len INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS changes (n INTEGER PRIMARY KEY, seq INTEGER NOT NULL, item_id TEXT NOT NULL, json TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS changes_item ON changes (item_id, seq);
CREATE INDEX IF NOT EXISTS changes_seq ON changes (seq);
CREATE TABLE IF NOT EXISTS versions (seq INTEGER PRIMARY KEY, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS mutations (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, json TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS mutations_seq ON mutations (seq);
CREATE TABLE IF NOT EXISTS mentions (item_id TEXT NOT NULL, mutation INTEGER NOT NULL, PRIMARY KEY (item_id, mutation)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS turns (idx INTEGER PRIMARY KEY, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS words (token TEXT NOT NULL, item_id TEXT NOT NULL, PRIMARY KEY (token, item_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS words_item ON words (item_id);
";

/// A memory kept in a SQLite database file.
pub struct DbStore {
    path: PathBuf,
    /// `None` until the file holds a memory: reading a memory that was never written
    /// creates and writes nothing (a dry run, a read-only command, an empty file); the
    /// first write creates it.
    conn: RefCell<Option<Connection>>,
    /// Whether the connection was made ready to write (WAL, the layout, the tables): done
    /// once, at the first write, never by a read.
    writable: Cell<bool>,
    rows_written: Cell<u64>,
}

/// The first bytes of every SQLite database file.
pub const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Removes the database at `path` and the files SQLite keeps beside it (its write-ahead
/// log and shared memory), ignoring any that are not there.
pub fn remove_files(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

impl DbStore {
    /// The memory in the database at `path`; an empty one when there is no file yet (the
    /// first write creates it).
    pub fn open(path: &Path) -> Result<DbStore, StoreError> {
        let store = DbStore {
            path: path.to_path_buf(),
            conn: RefCell::new(None),
            writable: Cell::new(false),
            rows_written: Cell::new(0),
        };
        if path.exists() {
            store.connect(false)?;
        }
        Ok(store)
    }

    /// Opens the file unless it is open — creating it and making it ready to write when
    /// `write` — and says whether it holds a memory to read. A read never writes: an empty
    /// file, or a database with no tables yet (another process is creating it), reads as
    /// an empty memory and is left as it is.
    fn connect(&self, write: bool) -> Result<bool, StoreError> {
        if self.conn.borrow().is_none() {
            let empty = std::fs::metadata(&self.path).map_or(true, |m| m.len() == 0);
            if !write && empty {
                return Ok(false);
            }
            let conn = Connection::open(&self.path).map_err(|e| backend(&self.path, "cannot open", e))?;
            if !self.check(&conn)? && !write {
                return Ok(false);
            }
            *self.conn.borrow_mut() = Some(conn);
        }
        if write && !self.writable.get() {
            let conn = self.conn.borrow();
            let conn =
                conn.as_ref().ok_or_else(|| StoreError::Backend(format!("{} is not open", self.path.display())))?;
            self.ready_to_write(conn)?;
            self.writable.set(true);
        }
        Ok(true)
    }

    /// Runs `read` on the open file; `empty` when there is no memory in it (yet: another
    /// process may make one since this store was opened).
    fn reading<T>(
        &self,
        empty: impl FnOnce() -> T,
        read: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if self.conn.borrow().is_none() && !self.connect(false)? {
            return Ok(empty());
        }
        match &*self.conn.borrow() {
            Some(conn) => read(conn),
            None => Ok(empty()),
        }
    }

    /// Sets the connection up (nothing it sets is written to the file) and refuses a
    /// database that is not a Nocturne memory, or one from a newer layout; whether it holds
    /// a memory's tables yet.
    fn check(&self, conn: &Connection) -> Result<bool, StoreError> {
        let fail = |e: rusqlite::Error| backend(&self.path, "cannot prepare", e);
        conn.busy_timeout(std::time::Duration::from_millis(BUSY_MS)).map_err(fail)?;
        // The tables first: a creator's one transaction writes them and the marks below
        // together, so marks read after tables are seen are the creator's.
        let tables: i64 =
            conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0)).map_err(|e| self.unreadable(e))?;
        let app: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0)).map_err(|e| self.unreadable(e))?;
        let version: i32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(fail)?;
        if tables > 0 && app != APPLICATION_ID {
            return Err(StoreError::Backend(format!(
                "{} is a SQLite database but not a Nocturne memory; nothing was changed",
                self.path.display()
            )));
        }
        if version > SCHEMA_VERSION {
            return Err(StoreError::Backend(format!(
                "{} is a memory from a newer Nocturne (layout {version}, this one reads {SCHEMA_VERSION}); nothing was changed",
                self.path.display()
            )));
        }
        // WAL with NORMAL: a commit is atomic and survives a killed process; only a power
        // cut may lose the last commits (never corrupt the file).
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(fail)?;
        // A deleted row's bytes are overwritten, not left in free pages: an erased fact's
        // words leave the file.
        conn.pragma_update(None, "secure_delete", "ON").map_err(fail)?;
        // Pages are read from the OS's cache in place rather than copied in, and a command
        // that reads many keeps them.
        conn.pragma_update(None, "mmap_size", 1i64 << 30).map_err(fail)?;
        conn.pragma_update(None, "cache_size", -32_768).map_err(fail)?;
        Ok(tables > 0)
    }

    /// Before the first write: WAL, the layout brought up to date, the tables of a new
    /// memory (in one transaction, so two processes creating one memory at once both
    /// succeed: the second finds the tables there).
    fn ready_to_write(&self, conn: &Connection) -> Result<(), StoreError> {
        let fail = |e: rusqlite::Error| backend(&self.path, "cannot prepare", e);
        // Another process making the file a WAL database at this moment holds it briefly.
        let mut tries = 0;
        while let Err(e) = conn.pragma_update(None, "journal_mode", "WAL") {
            tries += 1;
            if tries > 100 {
                return Err(fail(e));
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let tables: i64 =
            conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0)).map_err(|e| self.unreadable(e))?;
        let version: i32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(fail)?;
        if tables > 0 && version < SCHEMA_VERSION {
            let tx = conn.unchecked_transaction().map_err(&fail)?;
            refresh_context(&tx)?;
            tx.pragma_update(None, "user_version", SCHEMA_VERSION).map_err(&fail)?;
            tx.commit().map_err(&fail)?;
        }
        if tables == 0 {
            conn.execute_batch(&format!(
                "BEGIN IMMEDIATE; {SCHEMA} PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
            ))
            .map_err(fail)?;
        }
        self.check(conn).map(|_| ())
    }

    fn unreadable(&self, e: rusqlite::Error) -> StoreError {
        StoreError::Backend(format!("{} is not a readable memory database: {e}", self.path.display()))
    }

    fn fail(&self, what: &str) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
        let what = what.to_string();
        move |e| backend(&self.path, &what, e)
    }

    /// Rows of one JSON column, in the query's order.
    fn rows<T: DeserializeOwned>(&self, sql: &str, args: impl rusqlite::Params) -> Result<Vec<T>, StoreError> {
        self.reading(Vec::new, |conn| {
            let mut stmt = conn.prepare_cached(sql).map_err(self.fail("cannot read"))?;
            let texts = stmt.query_map(args, |r| r.get::<_, String>(0)).map_err(self.fail("cannot read"))?;
            let mut out = Vec::new();
            for text in texts {
                out.push(self.decode(&text.map_err(self.fail("cannot read"))?)?);
            }
            Ok(out)
        })
    }

    fn decode<T: DeserializeOwned>(&self, text: &str) -> Result<T, StoreError> {
        serde_json::from_str(text)
            .map_err(|e| StoreError::Backend(format!("{} holds a row it cannot read: {e}", self.path.display())))
    }

    /// Runs `write` in one `BEGIN IMMEDIATE` transaction: all of it is written, or none.
    fn transaction<T>(
        &self,
        write: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.connect(true)?;
        let mut conn = self.conn.borrow_mut();
        let conn = conn.as_mut().ok_or_else(|| StoreError::Backend(format!("{} is not open", self.path.display())))?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(self.fail("cannot write"))?;
        let out = write(&tx)?;
        tx.commit().map_err(self.fail("cannot write"))?;
        Ok(out)
    }
}

impl DbStore {
    /// The prompt's shortlist (see [`Store::prompt_shortlist`]), read in one snapshot.
    fn shortlist(&self, conn: &Connection, asked: &[String], meta: &Meta) -> Result<Shortlist, StoreError> {
        let tx = conn.unchecked_transaction().map_err(self.fail("cannot read"))?;
        let fail = self.fail("cannot read the prompt's candidates");
        let mut ids: Vec<String> = Vec::new();
        let mut take = |sql: &str, args: &[&dyn rusqlite::ToSql]| -> Result<(), StoreError> {
            let mut stmt = tx.prepare_cached(sql).map_err(&fail)?;
            let rows = stmt.query_map(args, |r| r.get::<_, String>(0)).map_err(&fail)?;
            for id in rows {
                ids.push(id.map_err(&fail)?);
            }
            Ok(())
        };
        // The newest of every block (the pinned blocks' salience falls with age), and the
        // newest of each category the policy protects (it outranks age).
        for block in Block::ALL {
            take(
                "SELECT item_id FROM live WHERE active = 1 AND block = ?1 ORDER BY created_at DESC LIMIT ?2",
                &[&block.as_str(), &PER_SOURCE],
            )?;
        }
        for category in &meta.policy.protected_categories {
            take(
                "SELECT item_id FROM live WHERE active = 1 AND category = ?1 ORDER BY created_at DESC LIMIT ?2",
                &[category, &PER_SOURCE],
            )?;
        }
        // For each asked root, its facts with it in their own words first, shortest first:
        // those BM25 ranks highest for it.
        let mut df = HashMap::new();
        for root in asked {
            take(
                "SELECT item_id FROM roots WHERE root = ?1 ORDER BY own DESC, len ASC LIMIT ?2",
                &[root, &PER_SOURCE],
            )?;
            let n: i64 =
                tx.query_row("SELECT count(*) FROM roots WHERE root = ?1", [root], |r| r.get(0)).map_err(&fail)?;
            df.insert(root.clone(), n as usize);
        }
        order::sort(&mut ids);
        ids.dedup();
        let mut items = Vec::with_capacity(ids.len());
        let mut turn_ids = std::collections::BTreeSet::new();
        {
            let mut stmt = tx.prepare_cached("SELECT json FROM live WHERE item_id = ?1").map_err(&fail)?;
            for id in &ids {
                let text: String = stmt.query_row([id], |r| r.get(0)).map_err(&fail)?;
                let item: Item = self.decode(&text)?;
                if let Some(at) = item.source_turn {
                    turn_ids.extend(context_turns(at));
                }
                items.push(item);
            }
        }
        let mut turns = Vec::with_capacity(turn_ids.len());
        {
            let mut stmt = tx.prepare_cached("SELECT json FROM turns WHERE idx = ?1").map_err(&fail)?;
            for at in turn_ids {
                let text: Option<String> = stmt.query_row([at], |r| r.get(0)).optional().map_err(&fail)?;
                if let Some(text) = text {
                    turns.push(self.decode(&text)?);
                }
            }
        }
        let active_len: i64 =
            tx.query_row("SELECT coalesce(max(active_len), 0) FROM totals", [], |r| r.get(0)).map_err(&fail)?;
        let mut speakers = Vec::new();
        {
            let mut stmt =
                tx.prepare_cached("SELECT name FROM speakers WHERE active > 0 ORDER BY name").map_err(&fail)?;
            for s in stmt.query_map([], |r| r.get::<_, String>(0)).map_err(&fail)? {
                speakers.push(s.map_err(&fail)?);
            }
        }
        let facts = meta.active_count;
        let corpus = Corpus { facts, avg_len: active_len as f64 / facts.max(1) as f64, df, speakers };
        Ok(Shortlist { items, turns, corpus })
    }
}

fn backend(path: &Path, what: &str, e: rusqlite::Error) -> StoreError {
    if let rusqlite::Error::SqliteFailure(f, _) = &e {
        if f.code == rusqlite::ErrorCode::DiskFull {
            return StoreError::QuotaExceeded(format!("{} is on a full disk", path.display()));
        }
    }
    StoreError::Backend(format!("{what} {}: {e}", path.display()))
}

fn json<T: serde::Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError::Invalid(format!("a row cannot be written as JSON: {e}")))
}

fn sql(e: rusqlite::Error) -> StoreError {
    StoreError::Backend(format!("the memory database refused a write: {e}"))
}

fn read_meta(tx: &Connection) -> Result<Meta, StoreError> {
    let text: Option<String> =
        tx.query_row("SELECT json FROM meta WHERE id = 1", [], |r| r.get(0)).optional().map_err(sql)?;
    match text {
        Some(t) => serde_json::from_str(&t).map_err(|e| StoreError::Backend(format!("the memory's meta row: {e}"))),
        None => Ok(Meta::default()),
    }
}

fn write_meta(tx: &Connection, meta: &Meta) -> Result<(), StoreError> {
    tx.execute("INSERT OR REPLACE INTO meta (id, json) VALUES (1, ?1)", [json(meta)?]).map_err(sql)?;
    Ok(())
}

/// The turns a fact's context words come from (`context_turns`: its source turn and those
/// before it).
fn turns_around(tx: &Connection, item: &Item) -> Result<Vec<Turn>, StoreError> {
    let Some(at) = item.source_turn else { return Ok(Vec::new()) };
    let mut stmt = tx.prepare_cached("SELECT json FROM turns WHERE idx BETWEEN ?1 AND ?2 ORDER BY idx").map_err(sql)?;
    let turns = context_turns(at);
    let texts =
        stmt.query_map([i64::from(*turns.start()), i64::from(*turns.end())], |r| r.get::<_, String>(0)).map_err(sql)?;
    let mut out = Vec::new();
    for text in texts {
        let text = text.map_err(sql)?;
        out.push(serde_json::from_str(&text).map_err(|e| StoreError::Backend(format!("a turn row: {e}")))?);
    }
    Ok(out)
}

/// Writes every active fact's context roots again, from the turns [`context_turns`] names
/// now (its own roots and everything else are unchanged): a file of an older layout.
fn refresh_context(tx: &Connection) -> Result<(), StoreError> {
    let mut items = Vec::new();
    {
        let mut stmt = tx.prepare("SELECT json FROM live WHERE active = 1").map_err(sql)?;
        for text in stmt.query_map([], |r| r.get::<_, String>(0)).map_err(sql)? {
            let text = text.map_err(sql)?;
            let item: Item =
                serde_json::from_str(&text).map_err(|e| StoreError::Backend(format!("a fact row: {e}")))?;
            items.push(item);
        }
    }
    tx.execute("DELETE FROM roots WHERE own = 0", []).map_err(sql)?;
    let mut root = tx
        .prepare_cached("INSERT OR IGNORE INTO roots (root, own, len, item_id) VALUES (?1, 0, ?2, ?3)")
        .map_err(sql)?;
    for item in &items {
        let around = turns_around(tx, item)?;
        let (own, context) = fact_terms(item, &around.iter().collect::<Vec<_>>());
        for t in context {
            root.execute(params![t, own.len() as i64, item.item_id]).map_err(sql)?;
        }
    }
    Ok(())
}

/// Writes `rows` (one commit's, or a whole document's) and the indexes that follow them.
fn write_rows(tx: &Connection, rows: &Rows) -> Result<(), StoreError> {
    let mut change = tx.prepare_cached("INSERT INTO changes (seq, item_id, json) VALUES (?1, ?2, ?3)").map_err(sql)?;
    for (seq, item) in &rows.changes {
        change.execute(params![*seq as i64, item.item_id, json(item)?]).map_err(sql)?;
    }
    // Turns first: a fact's roots read the turns around it, which may be in this commit.
    let mut turn = tx.prepare_cached("INSERT INTO turns (idx, json) VALUES (?1, ?2)").map_err(sql)?;
    for t in &rows.turns {
        turn.execute(params![t.index as i64, json(t)?]).map_err(sql)?;
    }
    let mut live = tx
        .prepare_cached(
            "INSERT OR REPLACE INTO live (item_id, json, active, block, category, created_at, len, speaker) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )
        .map_err(sql)?;
    let mut was = tx.prepare_cached("SELECT active, len, speaker FROM live WHERE item_id = ?1").map_err(sql)?;
    let mut speaking = tx
        .prepare_cached(
            "INSERT INTO speakers (name, active) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET active = active + ?2",
        )
        .map_err(sql)?;
    let mut unword = tx.prepare_cached("DELETE FROM words WHERE item_id = ?1").map_err(sql)?;
    let mut word = tx.prepare_cached("INSERT OR IGNORE INTO words (token, item_id) VALUES (?1, ?2)").map_err(sql)?;
    let mut unroot = tx.prepare_cached("DELETE FROM roots WHERE item_id = ?1").map_err(sql)?;
    let mut root = tx
        .prepare_cached("INSERT OR IGNORE INTO roots (root, own, len, item_id) VALUES (?1, ?2, ?3, ?4)")
        .map_err(sql)?;
    let mut active_len: i64 = 0;
    for item in &rows.live {
        let before: Option<(bool, i64, Option<String>)> =
            was.query_row([&item.item_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).optional().map_err(sql)?;
        let around = turns_around(tx, item)?;
        let (own, context) = fact_terms(item, &around.iter().collect::<Vec<_>>());
        let len = own.len() as i64;
        active_len += i64::from(item.active) * len;
        if let Some((true, len, speaker)) = &before {
            active_len -= len;
            if let Some(name) = speaker {
                speaking.execute(params![name, -1]).map_err(sql)?;
            }
        }
        if let (true, Some(name)) = (item.active, &item.speaker) {
            speaking.execute(params![name, 1]).map_err(sql)?;
        }
        let row = params![
            item.item_id,
            json(item)?,
            item.active,
            item.block.as_str(),
            item.category.as_str(),
            item.created_at,
            len,
            item.speaker
        ];
        live.execute(row).map_err(sql)?;
        unword.execute([&item.item_id]).map_err(sql)?;
        for token in content_tokens(&item.text) {
            word.execute(params![token, item.item_id]).map_err(sql)?;
        }
        // The prompt's index holds active facts only.
        unroot.execute([&item.item_id]).map_err(sql)?;
        if item.active {
            for (terms, is_own) in [(own, true), (context, false)] {
                for t in terms {
                    root.execute(params![t, is_own, len, item.item_id]).map_err(sql)?;
                }
            }
        }
    }
    tx.execute(
        "INSERT INTO totals (id, active_len) VALUES (1, ?1) ON CONFLICT (id) DO UPDATE SET active_len = active_len + ?1",
        [active_len],
    )
    .map_err(sql)?;
    let mut version = tx.prepare_cached("INSERT INTO versions (seq, json) VALUES (?1, ?2)").map_err(sql)?;
    for v in &rows.versions {
        version.execute(params![v.seq as i64, json(v)?]).map_err(sql)?;
    }
    let mut mutation = tx.prepare_cached("INSERT INTO mutations (id, seq, json) VALUES (?1, ?2, ?3)").map_err(sql)?;
    let mut mention =
        tx.prepare_cached("INSERT OR IGNORE INTO mentions (item_id, mutation) VALUES (?1, ?2)").map_err(sql)?;
    for m in &rows.mutations {
        mutation.execute(params![m.id as i64, m.seq as i64, json(m)?]).map_err(sql)?;
        for id in m.names() {
            mention.execute(params![id, m.id as i64]).map_err(sql)?;
        }
    }
    write_meta(tx, &rows.meta)
}

impl Store for DbStore {
    async fn items(&self) -> Result<Vec<Item>, StoreError> {
        self.rows("SELECT json FROM live ORDER BY item_id", [])
    }

    async fn meta(&self) -> Result<Meta, StoreError> {
        self.reading(Meta::default, read_meta)
    }

    async fn versions(&self) -> Result<Vec<Version>, StoreError> {
        self.rows("SELECT json FROM versions ORDER BY seq", [])
    }

    async fn mutations(&self) -> Result<Vec<Mutation>, StoreError> {
        self.rows("SELECT json FROM mutations ORDER BY id", [])
    }

    async fn transcript(&self) -> Result<Vec<Turn>, StoreError> {
        self.rows("SELECT json FROM turns ORDER BY idx", [])
    }

    async fn turn_count(&self) -> Result<u32, StoreError> {
        // Turns are numbered from 0 without a gap (every commit checks), so the count is the
        // last index plus one: a lookup, where count(*) would read every turn.
        self.reading(
            || 0,
            |conn| {
                let n: i64 = conn
                    .query_row("SELECT coalesce(max(idx) + 1, 0) FROM turns", [], |r| r.get(0))
                    .map_err(self.fail("cannot read"))?;
                Ok(n as u32)
            },
        )
    }

    async fn turns_from(&self, start: u32) -> Result<Vec<Turn>, StoreError> {
        self.rows("SELECT json FROM turns WHERE idx >= ?1 ORDER BY idx", [start as i64])
    }

    async fn items_at(&self, seq: u64) -> Result<Vec<Item>, StoreError> {
        if seq > self.meta().await?.head {
            return Err(StoreError::NoSuchVersion(seq));
        }
        // SQLite takes a bare column from the row that holds the max: each item's newest
        // change row at or before `seq`.
        let mut items: Vec<Item> =
            self.rows("SELECT json, max(n) FROM changes WHERE seq <= ?1 GROUP BY item_id", [seq as i64])?;
        order::sort_by_key(&mut items, Item::ordinal);
        Ok(items)
    }

    async fn changes(&self, lo: u64, hi: u64) -> Result<Vec<(u64, Item)>, StoreError> {
        if hi <= lo {
            return Ok(Vec::new());
        }
        self.reading(Vec::new, |conn| {
            let mut stmt = conn
                .prepare_cached("SELECT seq, json FROM changes WHERE seq > ?1 AND seq <= ?2 ORDER BY n")
                .map_err(self.fail("cannot read"))?;
            let rows = stmt
                .query_map(params![lo as i64, hi as i64], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
                .map_err(self.fail("cannot read"))?;
            let mut out = Vec::new();
            for row in rows {
                let (seq, text) = row.map_err(self.fail("cannot read"))?;
                out.push((seq as u64, self.decode(&text)?));
            }
            Ok(out)
        })
    }

    async fn item_states(&self, ids: &[String], seq: u64) -> Result<Vec<Item>, StoreError> {
        let mut out = Vec::new();
        for id in ids {
            let rows: Vec<Item> = self.rows(
                "SELECT json FROM changes WHERE item_id = ?1 AND seq <= ?2 ORDER BY n DESC LIMIT 1",
                params![id, seq as i64],
            )?;
            out.extend(rows);
        }
        Ok(out)
    }

    async fn mutations_between(&self, lo: u64, hi: u64) -> Result<Vec<Mutation>, StoreError> {
        self.rows("SELECT json FROM mutations WHERE seq > ?1 AND seq <= ?2 ORDER BY id", params![lo as i64, hi as i64])
    }

    async fn items_holding(&self, tokens: &[String]) -> Result<Vec<Item>, StoreError> {
        let Some((first, rest)) = tokens.split_first() else {
            return self.items().await;
        };
        // The rarest-first order is SQLite's to choose: one INTERSECT per further token.
        let mut sql = String::from("SELECT item_id FROM words WHERE token = ?1");
        for n in 0..rest.len() {
            sql.push_str(&format!(" INTERSECT SELECT item_id FROM words WHERE token = ?{}", n + 2));
        }
        let query = format!("SELECT json FROM live WHERE item_id IN ({sql}) ORDER BY item_id");
        let args: Vec<&str> = std::iter::once(first).chain(rest).map(String::as_str).collect();
        self.rows(&query, rusqlite::params_from_iter(args))
    }

    async fn mutations_about(&self, ids: &[String]) -> Result<Vec<Mutation>, StoreError> {
        let found = self.reading(std::collections::BTreeSet::new, |conn| {
            let mut found = std::collections::BTreeSet::new();
            let mut stmt = conn
                .prepare_cached("SELECT mutation FROM mentions WHERE item_id = ?1")
                .map_err(self.fail("cannot read"))?;
            for id in ids {
                let rows = stmt.query_map([id], |r| r.get::<_, i64>(0)).map_err(self.fail("cannot read"))?;
                for row in rows {
                    found.insert(row.map_err(self.fail("cannot read"))?);
                }
            }
            Ok(found)
        })?;
        let mut out = Vec::with_capacity(found.len());
        for id in found {
            out.extend(self.rows::<Mutation>("SELECT json FROM mutations WHERE id = ?1", [id])?);
        }
        Ok(out)
    }

    async fn prompt_shortlist(&self, asked: &[String]) -> Result<Option<Shortlist>, StoreError> {
        let meta = self.meta().await?;
        if meta.active_count <= CANDIDATE_FLOOR {
            return Ok(None);
        }
        self.reading(|| None, |conn| self.shortlist(conn, asked, &meta).map(Some))
    }

    async fn commit(&self, commit: Commit) -> Result<Vec<Version>, StoreError> {
        let (written, versions) = self.transaction(|tx| {
            let meta = read_meta(tx)?;
            let turns: i64 =
                tx.query_row("SELECT coalesce(max(idx) + 1, 0) FROM turns", [], |r| r.get(0)).map_err(sql)?;
            check_turns(turns as u32, &meta, &commit)?;
            let mut previous = HashMap::new();
            let mut stmt = tx.prepare_cached("SELECT json FROM live WHERE item_id = ?1").map_err(sql)?;
            for item in commit.items.iter().chain(&commit.created) {
                let text: Option<String> = stmt.query_row([&item.item_id], |r| r.get(0)).optional().map_err(sql)?;
                if let Some(text) = text {
                    previous.insert(item.item_id.clone(), self.decode::<Item>(&text)?);
                }
            }
            drop(stmt);
            let rows = plan_rows(&meta, &previous, commit)?;
            write_rows(tx, &rows)?;
            Ok((rows.count(), rows.versions))
        })?;
        self.rows_written.set(self.rows_written.get() + written);
        Ok(versions)
    }

    async fn set_policy(&self, policy: RetentionPolicy) -> Result<(), StoreError> {
        policy.validate().map_err(|e| StoreError::Invalid(e.to_string()))?;
        self.transaction(|tx| {
            let meta = Meta { policy, ..read_meta(tx)? };
            write_meta(tx, &meta)
        })?;
        self.rows_written.set(self.rows_written.get() + 1);
        Ok(())
    }

    fn rows_written(&self) -> u64 {
        self.rows_written.get()
    }

    async fn replace_all(&self, doc: Document, base: u64) -> Result<(), StoreError> {
        self.transaction(|tx| {
            let now_at = read_meta(tx)?.head;
            if now_at != base {
                return Err(StoreError::Conflict { planned_at: base, now_at });
            }
            let rows = doc.into_rows()?;
            tx.execute_batch(
                "DELETE FROM live; DELETE FROM changes; DELETE FROM versions; DELETE FROM mutations; \
                 DELETE FROM mentions; DELETE FROM turns; DELETE FROM words; DELETE FROM meta; \
                 DELETE FROM roots; DELETE FROM totals; DELETE FROM speakers;",
            )
            .map_err(sql)?;
            write_rows(tx, &rows)
        })?;
        // The log of recent writes still holds the pages as they were: fold it into the
        // file and empty it, so rewritten words (an erase) are gone from the disk too.
        self.reading(
            || (),
            |conn| {
                conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
                    .map_err(self.fail("cannot checkpoint"))
            },
        )?;
        self.rows_written.set(self.rows_written.get() + 1);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nocturne_core::store::MemStore;
    use nocturne_core::testkit::{conformance, lifetime};

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("nocturne-db-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join(name);
        remove_files(&path);
        path
    }

    #[test]
    fn database_store_passes_every_conformance_check() {
        let mut failures = Vec::new();
        for name in conformance::CHECKS {
            let store = DbStore::open(&temp(&format!("{name}.db"))).expect("open");
            if let Err(e) = pollster::block_on(conformance::check(name, &store)) {
                failures.push(format!("{name}: {e}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// A memory past [`CANDIDATE_FLOOR`] with planted facts and the conversation they came
    /// from, some facts since retired and some reworded (so the indexes were maintained, not
    /// only built), in a database and in memory.
    fn large_memory(name: &str) -> (DbStore, MemStore, Vec<lifetime::Probe>) {
        let mem = MemStore::new();
        let planted = lifetime::plant(12, 3_001, 1_767_225_600);
        let mut items = lifetime::memory(3_000, 1_767_225_600, 7);
        items.extend(planted.facts.clone());
        let (turns, encoded_through) = crate::scale::transcript(&items);
        let seed = Commit {
            at: 1_767_225_600,
            label: Some("seed".into()),
            items,
            turns,
            encoded_through,
            ..Default::default()
        };
        pollster::block_on(mem.commit(seed)).expect("seed");
        let mut changed: Vec<Item> = pollster::block_on(mem.items()).expect("items").into_iter().take(60).collect();
        for (n, item) in changed.iter_mut().enumerate() {
            if n % 2 == 0 {
                item.active = false;
            } else {
                item.text = format!("{} Also a harpsichord.", item.text);
            }
        }
        pollster::block_on(mem.commit(Commit {
            at: 1_767_300_000,
            label: Some("edits".into()),
            items: changed,
            ..Default::default()
        }))
        .expect("edits");
        let db = DbStore::open(&temp(name)).expect("open");
        // Written as commits would write them: the seed, then the edits.
        let doc = mem.document();
        pollster::block_on(db.replace_all(doc, 0)).expect("load");
        (db, mem, planted.probes)
    }

    /// Every row of the prompt index's roots table, sorted.
    fn roots_table(path: &Path) -> Vec<(String, i64, i64, String)> {
        let conn = Connection::open(path).expect("open");
        let mut stmt = conn.prepare("SELECT root, own, len, item_id FROM roots ORDER BY 1, 2, 3, 4").expect("query");
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))).expect("rows");
        rows.map(|r| r.expect("row")).collect()
    }

    #[test]
    fn a_file_of_layout_1_has_its_context_roots_written_again_when_opened() {
        let path = temp("layout1.db");
        let (db, _mem, _) = large_memory("layout1.db");
        drop(db);
        let fresh = roots_table(&path);
        assert!(fresh.iter().any(|(_, own, _, _)| *own == 0), "the memory has context roots");
        // As layout 1 left it: only the source turn and the one before were context.
        {
            let conn = Connection::open(&path).expect("open");
            conn.execute_batch("DELETE FROM roots WHERE own = 0; PRAGMA user_version = 1;").expect("plant layout 1");
        }
        let planted = roots_table(&path);
        assert_ne!(planted, fresh, "the planted file differs");
        let reopened = DbStore::open(&path).expect("reopen");
        pollster::block_on(reopened.items()).expect("a read");
        assert_eq!(roots_table(&path), planted, "a read writes nothing, not even the new layout");
        // The first write brings the layout up to date.
        pollster::block_on(reopened.set_policy(RetentionPolicy::default())).expect("a write");
        drop(reopened);
        assert_eq!(roots_table(&path), fresh, "the context roots are those a new file writes");
        let conn = Connection::open(&path).expect("open");
        let version: i32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).expect("version");
        assert_eq!(version, SCHEMA_VERSION);
    }

    #[test]
    fn a_sqlite_file_that_is_not_a_memory_is_refused_and_left_alone() {
        let path = temp("other.db");
        let conn = Connection::open(&path).expect("open");
        conn.execute_batch("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine');").expect("write");
        drop(conn);
        let err = DbStore::open(&path).err().expect("refused").to_string();
        assert!(err.contains("other.db") && err.contains("not a Nocturne memory"), "{err}");
        let conn = Connection::open(&path).expect("reopen");
        let n: i64 = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0)).expect("count");
        assert_eq!(n, 1, "a table was added to someone else's database");
    }

    #[test]
    fn a_file_that_is_not_a_database_is_an_error_naming_it() {
        let path = temp("garbage.db");
        std::fs::write(&path, "{ not a database, and long enough to have a header of sorts }").expect("write");
        let err = DbStore::open(&path).err().expect("refused").to_string();
        assert!(err.contains("garbage.db"), "{err}");
    }
}
