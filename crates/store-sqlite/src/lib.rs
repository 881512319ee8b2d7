//! The embedded SQLite backend of the repository traits of `meridian-store`: WAL, one writer
//! connection and a pool of readers, and the migrations of its schema.
//!
//! Check-then-act rules (a name free before it is taken, a version still current before it is
//! replaced, a lease still held before an outcome is recorded) hold because every write runs in a
//! `BEGIN IMMEDIATE` transaction on the one writer connection: writes are serial. Uniqueness is
//! also a constraint of the schema, so a backend with concurrent writers keeps it with the same
//! constraints and row locks (docs/architecture.md, "Store").

mod accounts;
mod dem;
mod dns;
mod eo;
mod error;
mod features;
mod jobs;
mod outbox;
mod pointcloud;
mod settings;
mod twin;
mod webhooks;

use async_trait::async_trait;
use meridian_core::event::NewEvent;
use meridian_store::repo::{Health, Store};
use meridian_store::{BlobStore, Result, StoreError};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, SqlitePool, Transaction};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use error::db;
use outbox::insert_events;

/// The migration files compiled into the binary, in order: (version, description, SQL).
const MIGRATION_FILES: &[(i64, &str, &str)] = &[
    (1, "foundation", include_str!("../migrations/0001_foundation.sql")),
    (2, "dns", include_str!("../migrations/0002_dns.sql")),
    (3, "webhooks", include_str!("../migrations/0003_webhooks.sql")),
    (4, "features", include_str!("../migrations/0004_features.sql")),
    (5, "feature extents", include_str!("../migrations/0005_feature_extents.sql")),
    (6, "feature scale", include_str!("../migrations/0006_feature_scale.sql")),
    (7, "dem datasets", include_str!("../migrations/0007_dem.sql")),
    (8, "earth observation", include_str!("../migrations/0008_eo.sql")),
    (9, "point clouds", include_str!("../migrations/0009_pointcloud.sql")),
    (10, "digital twins", include_str!("../migrations/0010_twin.sql")),
    (11, "collection imports", include_str!("../migrations/0011_collection_imports.sql")),
    (12, "node seats", include_str!("../migrations/0012_node_seats.sql")),
];

/// The migration numbers of this backend.
pub fn migration_versions() -> Vec<i64> {
    MIGRATION_FILES.iter().map(|(v, _, _)| *v).collect()
}

/// The migrations compiled into the binary, built at run time (no compile-time macro, so the
/// build does not need a second SQLite for sqlx's macros).
pub fn migrator() -> sqlx::migrate::Migrator {
    use sqlx::migrate::{Migration, MigrationType, Migrator};
    use std::borrow::Cow;
    let migrations: Vec<Migration> = MIGRATION_FILES
        .iter()
        .map(|(version, description, sql)| {
            Migration::new(*version, Cow::Borrowed(*description), MigrationType::Simple, Cow::Borrowed(*sql), false)
        })
        .collect();
    Migrator { migrations: Cow::Owned(migrations), ignore_missing: false, locking: true, no_tx: false }
}

/// How much of the database file each reading connection maps into memory (address space, not
/// memory: the pages are the operating system's file cache, shared by every connection).
const READER_MMAP_BYTES: u64 = 1 << 30;

/// A SQLite database: every write goes through one connection, reads through several.
#[derive(Clone, Debug)]
pub struct SqliteDb {
    writer: SqlitePool,
    reader: SqlitePool,
    appends: Arc<outbox::AppendQueue>,
    events: meridian_store::Signal,
    jobs_queued: meridian_store::Signal,
    notices: meridian_store::Notices,
}

impl SqliteDb {
    /// Opens (creating when absent) the database file at `path`.
    pub async fn open(path: &str, readers: u32, busy_timeout: Duration) -> Result<Self> {
        if let Some(parent) = Path::new(path).parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| StoreError::Unsupported(format!("cannot create {}: {e}", parent.display())))?;
        }
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(busy_timeout);
        let writer = SqlitePoolOptions::new().max_connections(1).connect_with(options.clone()).await.map_err(db)?;
        // Readers map the database file (no read system call and copy for each page) and keep a
        // larger page cache of their own: the R*Tree and the features' pages stay at hand.
        let reader_options = options.pragma("mmap_size", READER_MMAP_BYTES.to_string()).pragma("cache_size", "-16384");
        let reader =
            SqlitePoolOptions::new().max_connections(readers.max(1)).connect_with(reader_options).await.map_err(db)?;
        Ok(Self {
            writer,
            reader,
            appends: Arc::default(),
            events: meridian_store::Signal::new(),
            jobs_queued: meridian_store::Signal::new(),
            // One process holds the database file: notices stay in it.
            notices: meridian_store::Notices::in_process(),
        })
    }

    /// Applies pending migrations; applied ones are checked, never edited.
    pub async fn migrate(&self) -> Result<()> {
        migrator().run(&self.writer).await.map_err(|e| StoreError::Migrate(Box::new(e)))?;
        Ok(())
    }

    /// Wraps this database as a [`Store`].
    pub fn into_store(self, blobs: BlobStore) -> Store {
        let db = Arc::new(self);
        Store {
            accounts: db.clone(),
            settings: db.clone(),
            jobs: db.clone(),
            outbox: db.clone(),
            dns: db.clone(),
            features: db.clone(),
            dem: db.clone(),
            eo: db.clone(),
            pointcloud: db.clone(),
            twin: db.clone(),
            webhooks: db.clone(),
            events: db.events.clone(),
            jobs_queued: db.jobs_queued.clone(),
            notices: db.notices.clone(),
            // One process holds the database file: its leads are held in memory.
            duties: Arc::new(meridian_store::duties::InProcess::default()),
            seats: Arc::new(meridian_store::seats::InProcess::default()),
            health: db,
            blobs,
        }
    }

    /// A write transaction that takes the write lock up front, so that it never fails half-way
    /// on a lock upgrade.
    ///
    /// A writer connection that sqlx still counts inside a transaction SQLite has already ended
    /// (SQLite rolls a transaction back on its own after some errors, and the commit and the
    /// rollback of the `Transaction` then fail too) would refuse every later `BEGIN` and stop
    /// every write of the process. Such a connection is closed and the write begun on a fresh
    /// one.
    pub(crate) async fn write(&self) -> Result<Transaction<'static, Sqlite>> {
        match self.writer.begin_with("BEGIN IMMEDIATE").await {
            Err(sqlx::Error::InvalidSavePointStatement) => {
                tracing::error!("the writer connection was left inside a transaction: closing it and opening another");
                let stuck = self.writer.acquire().await.map_err(db)?;
                // Closing ends whatever transaction SQLite still holds on it; its errors are moot.
                let _ = stuck.close().await;
                self.writer.begin_with("BEGIN IMMEDIATE").await.map_err(db)
            }
            other => other.map_err(db),
        }
    }

    /// Inserts `events` in `tx`, commits it, and fires the event signal when there were any: the
    /// one way a write with events ends.
    pub(crate) async fn commit_with_events(
        &self,
        mut tx: Transaction<'static, Sqlite>,
        events: &[NewEvent],
    ) -> Result<()> {
        insert_events(&mut tx, events).await?;
        tx.commit().await.map_err(db)?;
        if !events.is_empty() {
            self.events_committed(events.iter());
        }
        Ok(())
    }

    /// After a commit that wrote `events`: wakes the dispatcher and tells the notices.
    pub(crate) fn events_committed<'a>(&self, events: impl Iterator<Item = &'a NewEvent>) {
        let types: Vec<String> = events.map(|e| e.event_type.to_string()).collect();
        self.events.fire();
        self.notices.deliver(meridian_store::Notice::of_events(types.iter().map(String::as_str)));
    }

    /// The writer's connection, for scripts that begin and commit their own transaction.
    pub(crate) async fn writer(&self) -> Result<Writer> {
        Ok(Writer { conn: self.writer.acquire().await.map_err(db)?, clean: true })
    }

    /// The pool for reads.
    pub(crate) fn read(&self) -> &SqlitePool {
        &self.reader
    }

    /// The sort key of a keyset page's anchor: `sql` (`SELECT <key columns> FROM <table> WHERE
    /// <scope column> = ? AND id = ?`) for `scope` and `page.after`; `None` without a cursor or
    /// when its item is gone (the page is then read by offset, [`meridian_core::page::Page::skip`]).
    pub(crate) async fn anchor<T>(&self, sql: &str, scope: &str, page: &meridian_core::page::Page) -> Result<Option<T>>
    where
        T: for<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow> + Send + Unpin,
    {
        let Some(after) = page.after else { return Ok(None) };
        sqlx::query_as::<_, T>(sql).bind(scope).bind(after.as_str()).fetch_optional(self.read()).await.map_err(db)
    }
}

#[async_trait]
impl Health for SqliteDb {
    async fn ping(&self) -> Result<()> {
        sqlx::query("SELECT 1").execute(&self.reader).await.map_err(db)?;
        Ok(())
    }
}

/// Optional millisecond column to a timestamp.
pub(crate) fn ts(ms: Option<i64>) -> Option<meridian_core::Timestamp> {
    ms.map(meridian_core::Timestamp::from_millis)
}

/// The writer's connection, for scripts of several statements (such as `BEGIN IMMEDIATE; ...;
/// COMMIT`) sent in one round trip to the connection's thread instead of one per statement.
/// A transaction left open (a failure whose rollback failed too, or a caller that went away
/// between two scripts) closes the connection instead of returning it to the pool.
pub(crate) struct Writer {
    conn: sqlx::pool::PoolConnection<Sqlite>,
    clean: bool,
}

impl Writer {
    /// Runs `query`, answering the rows its statements return; `ends` says whether it ends the
    /// transaction it runs in. On failure the transaction is rolled back.
    pub(crate) async fn script<'q>(
        &mut self,
        query: sqlx::query::Query<'q, Sqlite, sqlx::sqlite::SqliteArguments<'q>>,
        ends: bool,
    ) -> Result<Vec<sqlx::sqlite::SqliteRow>> {
        self.clean = false;
        match query.fetch_all(&mut *self.conn).await {
            Ok(rows) => {
                self.clean = ends;
                Ok(rows)
            }
            Err(e) => {
                self.rollback().await;
                Err(db(e))
            }
        }
    }
}

impl Writer {
    /// Ends the open transaction without its changes.
    pub(crate) async fn rollback(&mut self) {
        self.clean = sqlx::query("ROLLBACK").execute(&mut *self.conn).await.is_ok();
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        if !self.clean {
            self.conn.close_on_drop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_writer_left_inside_a_transaction_is_replaced() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("w.db");
        let db = SqliteDb::open(path.to_str().ok_or("path")?, 1, Duration::from_secs(5)).await?;
        db.migrate().await?;
        // A transaction that SQLite ends behind sqlx's back: its commit and its rollback on drop
        // both fail, and sqlx still counts the connection inside it.
        let mut tx = db.write().await?;
        sqlx::query("ROLLBACK").execute(&mut *tx).await?;
        assert!(tx.commit().await.is_err());
        let conn = db.writer.acquire().await?;
        assert_eq!(
            <<Sqlite as sqlx::Database>::TransactionManager as sqlx::TransactionManager>::get_transaction_depth(&conn),
            1
        );
        drop(conn);
        // Writes go on.
        for _ in 0..3 {
            let mut tx = db.write().await?;
            sqlx::query("CREATE TABLE IF NOT EXISTS t (v INTEGER)").execute(&mut *tx).await?;
            sqlx::query("INSERT INTO t (v) VALUES (1)").execute(&mut *tx).await?;
            tx.commit().await?;
        }
        let (n,): (i64,) = sqlx::query_as("SELECT count(*) FROM t").fetch_one(db.read()).await?;
        assert_eq!(n, 3);
        Ok(())
    }

    #[tokio::test]
    async fn every_migration_is_applied_once_across_reopens() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("m.db");
        let path = path.to_str().ok_or("path")?;
        for _ in 0..3 {
            let db = SqliteDb::open(path, 1, Duration::from_secs(5)).await?;
            db.migrate().await?;
            db.writer.close().await;
            db.reader.close().await;
        }
        let pool = SqlitePool::connect(&format!("sqlite://{path}")).await?;
        let applied: Vec<(i64, bool)> =
            sqlx::query_as("SELECT version, success FROM _sqlx_migrations ORDER BY version").fetch_all(&pool).await?;
        let expected: Vec<(i64, bool)> = migrator().iter().map(|m| (m.version, true)).collect();
        assert_eq!(applied.len(), MIGRATION_FILES.len());
        assert_eq!(applied, expected);
        pool.close().await;
        Ok(())
    }
}
