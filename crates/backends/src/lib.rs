//! Opening a configured store: the one crate that knows every backend, so that the backends
//! and the code above the store (which sees only `meridian-store`'s traits) never know each
//! other. The database is chosen by the scheme of `database_url`, the blob store by the scheme
//! of `blob_url`.

mod blobs;

pub use blobs::ObjectBlobs;
use meridian_store::{BlobStore, Result, Store, StoreError};
use std::sync::Arc;
use std::time::Duration;

/// How to open a store.
#[derive(Clone, Debug)]
pub struct StoreOptions {
    /// `sqlite://PATH` or `postgres://user@host:port/database`.
    pub database_url: String,
    /// `file://DIR`.
    pub blob_url: String,
    /// SQLite read connections.
    pub readers: u32,
    /// SQLite lock wait.
    pub busy_timeout: Duration,
    /// PostgreSQL: the connection pool's size, how long a request waits for a connection, the
    /// longest statement, and `application_name`.
    pub postgres: PostgresOptions,
}

/// PostgreSQL's connection settings (ignored by SQLite).
#[derive(Clone, Debug)]
pub struct PostgresOptions {
    pub max_connections: u32,
    pub acquire_timeout: Duration,
    pub statement_timeout: Duration,
    pub application_name: String,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        Self {
            max_connections: 16,
            acquire_timeout: Duration::from_secs(5),
            statement_timeout: Duration::from_secs(30),
            application_name: "meridian".into(),
        }
    }
}

/// Opens the configured backends and applies pending migrations.
pub async fn open(options: &StoreOptions) -> Result<Store> {
    let blobs = open_blobs(&options.blob_url)?;
    if let Some(path) = options.database_url.strip_prefix("sqlite://") {
        let db = meridian_store_sqlite::SqliteDb::open(path, options.readers, options.busy_timeout).await?;
        db.migrate().await?;
        return Ok(db.into_store(blobs));
    }
    if options.database_url.starts_with("postgres://") || options.database_url.starts_with("postgresql://") {
        let pg = &options.postgres;
        let db = meridian_store_postgres::PgDb::open(&meridian_store_postgres::PgOptions {
            url: options.database_url.clone(),
            max_connections: pg.max_connections,
            acquire_timeout: pg.acquire_timeout,
            statement_timeout: pg.statement_timeout,
            application_name: pg.application_name.clone(),
        })
        .await?;
        db.migrate().await?;
        return Ok(db.into_store(blobs));
    }
    Err(StoreError::Unsupported(format!(
        "storage.database_url: sqlite:// or postgres:// (got {})",
        options.database_url.split(':').next().unwrap_or("")
    )))
}

/// Opens the blob store at `url` (`file://DIR`, creating the folder).
pub fn open_blobs(url: &str) -> Result<BlobStore> {
    Ok(BlobStore::new(Arc::new(ObjectBlobs::open(url)?)))
}

/// A blob store held in memory (tests).
pub fn memory_blobs() -> BlobStore {
    BlobStore::new(Arc::new(ObjectBlobs::memory()))
}
