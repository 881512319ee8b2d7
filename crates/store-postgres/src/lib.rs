//! The PostgreSQL (with PostGIS) backend of the repository traits of `meridian-store`, for
//! several nodes sharing one database.
//!
//! Check-then-act rules hold without a global writer lock:
//! - uniqueness is a constraint of the schema (a zone's name, a feature's (collection, id), an
//!   (event, subscription) delivery pair, every id), turned into a conflict at the store's edge;
//! - a write that reads before it decides (a zone's serial, a feature's current version, a
//!   subscription's state) locks what it reads: the row (`FOR UPDATE`) or, where the thing to
//!   lock may not exist yet, the thing's name (`lock`: a transaction-scoped advisory lock);
//! - jobs and deliveries are claimed with `FOR UPDATE SKIP LOCKED`, so claims never wait on
//!   each other and never take the same row; a write that locks a row a claim reads (a job, a
//!   subscription, a delivery) and then refuses ends its transaction before it answers
//!   ([`refuse`]), so that a claim made right after the refusal does not pass the row over;
//! - events get their place in the outbox under one advisory lock held to the commit
//!   (`commit_with_events`), so the outbox order is the commit order, as a dispatcher reading on
//!   from a position needs.
//!
//! Commits that wrote events or queued jobs `NOTIFY` every node; each node's listener fires the
//! store's signals (`Store::events`, `Store::jobs_queued`) on it.

mod accounts;
mod dem;
mod dns;
mod eo;
mod error;
mod features;
mod jobs;
mod outbox;
mod pointcloud;
mod seats;
mod settings;
mod twin;
mod webhooks;

use error::db;
use meridian_core::event::NewEvent;
use meridian_store::notices::NoticeBus;
use meridian_store::repo::{Health, Store};
use meridian_store::{BlobStore, Notice, Notices, Result, Signal, StoreError};
use sqlx::postgres::{PgConnectOptions, PgListener, PgPool, PgPoolOptions};
use sqlx::{Postgres, Transaction};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

/// The migration files compiled into the binary, in order: (version, description, SQL). The
/// numbers are those of the SQLite backend's migrations, one for one (a test checks it).
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

/// The migrations compiled into the binary, built at run time.
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

/// The channel of commits that wrote events.
const EVENTS_CHANNEL: &str = "meridian_events";

/// The channel of [`Notice`]s other than commits' events.
const NOTICES_CHANNEL: &str = "meridian_notices";
/// The channel of commits that queued jobs.
const JOBS_CHANNEL: &str = "meridian_jobs";
/// The advisory lock that orders the outbox.
const OUTBOX_LOCK: i64 = 0x6d65_7269_6469_616e;

/// How to connect.
#[derive(Clone, Debug)]
pub struct PgOptions {
    /// `postgres://user@host:port/database`.
    pub url: String,
    /// Connections in the pool.
    pub max_connections: u32,
    /// How long a request waits for a connection before it fails (503 `store_unavailable`).
    pub acquire_timeout: Duration,
    /// The longest a statement may run (`statement_timeout`); zero for none.
    pub statement_timeout: Duration,
    /// `application_name`, as `pg_stat_activity` shows it.
    pub application_name: String,
}

/// A PostgreSQL database.
#[derive(Clone, Debug)]
pub struct PgDb {
    pool: PgPool,
    events: Signal,
    jobs_queued: Signal,
    notices: Notices,
    statistics: Arc<Statistics>,
}

/// Rows inserted since the planner's statistics of a table were last refreshed.
///
/// A table filled faster than autovacuum looks at it is planned from statistics of when it was
/// nearly empty: a collection of 100,000 STAC items planned as if it held 14 walks all of them
/// through the wrong index (40 ms instead of 1 ms a search). Every `ANALYZE_EVERY` rows a node
/// inserts into a table, it refreshes that table's statistics in the background, one refresh of
/// a table at a time; `ANALYZE` reads a fixed sample, so the cost does not grow with the table.
#[derive(Debug, Default)]
pub(crate) struct Statistics {
    pending: std::sync::Mutex<std::collections::HashMap<&'static str, (u64, bool)>>,
}

/// Rows inserted into a table before its statistics are refreshed.
const ANALYZE_EVERY: u64 = 10_000;

/// Tables whose statistics follow inserts, with what `ANALYZE` names for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Analyzed {
    /// Features and their value rows.
    Features,
    /// STAC items.
    EoItems,
}

impl Analyzed {
    fn tables(self) -> &'static str {
        match self {
            Analyzed::Features => "features, feature_values",
            Analyzed::EoItems => "eo_items",
        }
    }
}
/// Leads as session advisory locks, each on a connection of its own taken out of the pool: the
/// server frees the lock when the connection ends, so a node that dies leaves nothing held.
struct PgDuties(PgPool);

/// A held lead: its connection, closed when the lead is dropped.
struct PgLead(Option<sqlx::PgConnection>);

impl Drop for PgLead {
    fn drop(&mut self) {
        if let Some(conn) = self.0.take() {
            // Closing the session frees its advisory locks.
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move {
                    let _ = sqlx::Connection::close(conn).await;
                });
            }
        }
    }
}

#[async_trait::async_trait]
impl meridian_store::duties::Duties for PgDuties {
    async fn try_lead(&self, duty: &str) -> Result<Option<meridian_store::duties::Lead>> {
        let mut conn = self.0.acquire().await.map_err(db)?.detach();
        // Seed 1: a key space apart from the transaction locks of `lock` (seed 0).
        let led: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock(hashtextextended($1, 1))")
            .bind(duty)
            .fetch_one(&mut conn)
            .await
            .map_err(db)?;
        if led {
            Ok(Some(meridian_store::duties::Lead::new(PgLead(Some(conn)))))
        } else {
            let _ = sqlx::Connection::close(conn).await;
            Ok(None)
        }
    }
}

/// Notices as `NOTIFY` on [`NOTICES_CHANNEL`], heard by every node's listener (this one's too).
struct PgBus(PgPool);

#[async_trait::async_trait]
impl NoticeBus for PgBus {
    async fn publish(&self, notice: &Notice) -> Result<()> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(NOTICES_CHANNEL)
            .bind(notice.encode())
            .execute(&self.0)
            .await
            .map_err(db)?;
        Ok(())
    }

    async fn publish_all(&self, notices: &[Notice]) -> Result<()> {
        let texts: Vec<String> = notices.iter().map(Notice::encode).collect();
        sqlx::query("SELECT pg_notify($1, n) FROM unnest($2::text[]) WITH ORDINALITY AS t(n, i) ORDER BY i")
            .bind(NOTICES_CHANNEL)
            .bind(&texts)
            .execute(&self.0)
            .await
            .map_err(db)?;
        Ok(())
    }
}

/// A listener on every channel the nodes speak on.
async fn listener(pool: &PgPool) -> Result<PgListener> {
    let mut listener = PgListener::connect_with(pool).await.map_err(db)?;
    listener.listen_all([EVENTS_CHANNEL, JOBS_CHANNEL, NOTICES_CHANNEL]).await.map_err(db)?;
    Ok(listener)
}

impl PgDb {
    /// Connects (lazily: a database that is down now is connected to when it is back).
    pub async fn open(options: &PgOptions) -> Result<Self> {
        let mut connect = PgConnectOptions::from_str(&options.url)
            .map_err(|e| StoreError::Unsupported(format!("storage.database_url: {e}")))?
            .application_name(&options.application_name);
        if !options.statement_timeout.is_zero() {
            let ms = options.statement_timeout.as_millis().to_string();
            connect = connect.options([("statement_timeout", ms.as_str())]);
        }
        let pool = PgPoolOptions::new()
            .max_connections(options.max_connections.max(2))
            .acquire_timeout(options.acquire_timeout)
            .test_before_acquire(true)
            .connect_with(connect)
            .await
            .map_err(db)?;
        let notices = Notices::new(Arc::new(PgBus(pool.clone())));
        let db = Self { pool, events: Signal::new(), jobs_queued: Signal::new(), notices, statistics: Arc::default() };
        db.listen().await?;
        Ok(db)
    }

    /// Applies pending migrations; applied ones are checked, never edited.
    pub async fn migrate(&self) -> Result<()> {
        migrator().run(&self.pool).await.map_err(|e| StoreError::Migrate(Box::new(e)))?;
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
            duties: Arc::new(PgDuties(db.pool.clone())),
            seats: seats::PgSeats::new(db.pool.clone(), db.notices.node()),
            health: db,
            blobs,
        }
    }

    /// Listens for every node's commits and notices, and fires this node's signals and delivers
    /// its notices on them. Notifications sent while the listening connection is down are lost:
    /// once it is back (listening again), both signals fire, the pollers catch up, and the
    /// notices say `Resync`, so every holder of kept state reads the store again.
    async fn listen(&self) -> Result<()> {
        let mut listener = listener(&self.pool).await?;
        let pool = self.pool.clone();
        let (events, jobs, notices) = (self.events.clone(), self.jobs_queued.clone(), self.notices.clone());
        tokio::spawn(async move {
            let mut missed = false;
            loop {
                if missed {
                    // A new listener, never the old one again: sqlx keeps a connection that failed
                    // with some errors (a reset, a server shutting down) and would use it forever.
                    match self::listener(&pool).await {
                        Ok(l) => listener = l,
                        Err(e) => {
                            tracing::debug!(error = %e, "the listening connection is still down");
                            tokio::time::sleep(Duration::from_millis(500)).await;
                            continue;
                        }
                    }
                    missed = false;
                    tracing::info!("listening for other nodes' commits again");
                    events.fire();
                    jobs.fire();
                    notices.deliver(Notice::Resync);
                }
                match listener.try_recv().await {
                    Ok(Some(n)) if n.channel() == EVENTS_CHANNEL => {
                        events.fire();
                        notices.deliver(Notice::decode(n.payload()).unwrap_or(Notice::Resync));
                    }
                    Ok(Some(n)) if n.channel() == NOTICES_CHANNEL => {
                        if let Some(notice) = Notice::decode(n.payload()) {
                            notices.deliver(notice);
                        }
                    }
                    Ok(Some(_)) => jobs.fire(),
                    Ok(None) => missed = true,
                    Err(e) => {
                        tracing::warn!(error = %e, "listening for other nodes' commits failed; retrying");
                        missed = true;
                    }
                }
            }
        });
        Ok(())
    }

    /// A write transaction (read committed: a write that reads before it decides locks what it
    /// reads, see the crate's documentation).
    pub(crate) async fn write(&self) -> Result<Transaction<'static, Postgres>> {
        self.pool.begin().await.map_err(db)
    }

    /// The pool for reads.
    pub(crate) fn read(&self) -> &PgPool {
        &self.pool
    }

    /// The sort key of a keyset page's anchor: `sql` (`SELECT <key columns> FROM <table> WHERE
    /// <scope column> = $1 AND id = $2`) for `scope` and `page.after`; `None` without a cursor
    /// or when its item is gone (the page is then read by offset, [`meridian_core::page::Page::skip`]).
    pub(crate) async fn anchor<T>(&self, sql: &str, scope: &str, page: &meridian_core::page::Page) -> Result<Option<T>>
    where
        T: for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow> + Send + Unpin,
    {
        let Some(after) = page.after else { return Ok(None) };
        sqlx::query_as::<_, T>(sql).bind(scope).bind(after.as_str()).fetch_optional(self.read()).await.map_err(db)
    }

    /// Counts `rows` committed into `table`, and refreshes its statistics in the background when
    /// enough have come since the last refresh (see [`Statistics`]); `now` refreshes them at once
    /// (and waits), after a load that filled a table in one go.
    pub(crate) async fn inserted(&self, table: Analyzed, rows: u64, now: bool) {
        let tables = table.tables();
        let due = {
            let Ok(mut pending) = self.statistics.pending.lock() else { return };
            let entry = pending.entry(tables).or_insert((0, false));
            entry.0 += rows;
            if (now || entry.0 >= ANALYZE_EVERY) && !entry.1 {
                *entry = (0, true);
                true
            } else {
                false
            }
        };
        if !due {
            return;
        }
        let (pool, statistics) = (self.pool.clone(), self.statistics.clone());
        let analyze = async move {
            if let Err(e) = sqlx::query(&format!("ANALYZE {tables}")).execute(&pool).await {
                tracing::warn!(error = %e, tables, "refreshing the planner's statistics failed");
            }
            if let Ok(mut pending) = statistics.pending.lock() {
                if let Some(entry) = pending.get_mut(tables) {
                    entry.1 = false;
                }
            }
        };
        if now {
            analyze.await;
        } else {
            tokio::spawn(analyze);
        }
    }

    /// Inserts `events` in `tx` in outbox order, commits it, and fires the event signal when
    /// there were any (other nodes hear of it through `NOTIFY`): the one way a write with events
    /// ends.
    pub(crate) async fn commit_with_events(
        &self,
        mut tx: Transaction<'static, Postgres>,
        events: &[NewEvent],
    ) -> Result<()> {
        outbox::insert_events(&mut tx, events).await?;
        tx.commit().await.map_err(db)?;
        if !events.is_empty() {
            self.events.fire();
        }
        Ok(())
    }

    /// Commits a transaction that queued jobs, telling every node.
    pub(crate) async fn commit_with_jobs(&self, mut tx: Transaction<'static, Postgres>) -> Result<()> {
        notify(&mut tx, JOBS_CHANNEL, "").await?;
        tx.commit().await.map_err(db)?;
        self.jobs_queued.fire();
        Ok(())
    }
}

/// Rolls `tx` back, then answers `refusal`. A dropped transaction is rolled back only when its
/// connection is next used (a task the pool starts when the connection comes back): until then
/// its row locks stay held, and a claim (`SKIP LOCKED`) made meanwhile passes the rows over. The
/// refusal is what the caller needs to hear, so a failed rollback is logged, not answered (its
/// connection is then closed by the pool).
pub(crate) async fn refuse<T>(tx: Transaction<'static, Postgres>, refusal: impl Into<StoreError>) -> Result<T> {
    if let Err(e) = tx.rollback().await {
        tracing::warn!(error = %e, "rolling back a refused write failed");
    }
    Err(refusal.into())
}

/// Sends `NOTIFY channel, payload` when `tx` commits.
async fn notify(tx: &mut sqlx::PgConnection, channel: &str, payload: &str) -> Result<()> {
    sqlx::query("SELECT pg_notify($1, $2)").bind(channel).bind(payload).execute(&mut *tx).await.map_err(db)?;
    Ok(())
}

/// Locks `name` until the transaction ends: the check-then-act guard for a thing that may not
/// have a row yet (a zone name being taken, a collection being created).
pub(crate) async fn lock(tx: &mut sqlx::PgConnection, name: &str) -> Result<()> {
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
        .bind(name)
        .execute(&mut *tx)
        .await
        .map_err(db)?;
    Ok(())
}

#[async_trait::async_trait]
impl Health for PgDb {
    async fn ping(&self) -> Result<()> {
        sqlx::query("SELECT 1").execute(&self.pool).await.map_err(db)?;
        Ok(())
    }
}

/// Creates the database `name` on the server at `server` (`postgres://user@host:port`) when it
/// does not exist, and answers its URL: tests give every run a database of its own this way.
pub async fn create_database(server: &str, name: &str) -> Result<String> {
    use sqlx::Connection;
    if !name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') {
        return Err(StoreError::Unsupported(format!("database name {name}: lowercase letters, digits and _ only")));
    }
    let server = server.trim_end_matches('/');
    let mut conn = sqlx::PgConnection::connect(&format!("{server}/postgres")).await.map_err(db)?;
    let exists: Option<i32> = sqlx::query_scalar("SELECT 1 FROM pg_database WHERE datname = $1")
        .bind(name)
        .fetch_optional(&mut conn)
        .await
        .map_err(db)?;
    if exists.is_none() {
        match sqlx::query(&format!("CREATE DATABASE {name}")).execute(&mut conn).await {
            // Another test created it meanwhile.
            Err(e) if error::is_unique_violation(&e) => {}
            Err(e) => return Err(db(e)),
            Ok(_) => {}
        }
    }
    conn.close().await.map_err(db)?;
    Ok(format!("{server}/{name}"))
}

/// Optional millisecond column to a timestamp.
pub(crate) fn ts(ms: Option<i64>) -> Option<meridian_core::Timestamp> {
    ms.map(meridian_core::Timestamp::from_millis)
}
