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
    /// `sqlite://PATH` (PostgreSQL URLs are refused until that backend lands).
    pub database_url: String,
    /// `file://DIR`.
    pub blob_url: String,
    /// SQLite read connections.
    pub readers: u32,
    /// SQLite lock wait.
    pub busy_timeout: Duration,
}

/// Opens the configured backends and applies pending migrations.
pub async fn open(options: &StoreOptions) -> Result<Store> {
    let blobs = open_blobs(&options.blob_url)?;
    if let Some(path) = options.database_url.strip_prefix("sqlite://") {
        let db = meridian_store_sqlite::SqliteDb::open(path, options.readers, options.busy_timeout).await?;
        db.migrate().await?;
        return Ok(db.into_store(blobs));
    }
    Err(StoreError::Unsupported(format!(
        "storage.database_url: this build opens sqlite:// databases only (got {})",
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
