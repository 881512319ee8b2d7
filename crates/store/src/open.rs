//! Choosing a backend: the one place that knows both the repository traits and the backends,
//! so that neither knows the other.

use crate::blobs::BlobStore;
use crate::repo::{Store, StoreOptions};
use crate::Result;

impl Store {
    /// Opens the configured backend and applies pending migrations.
    pub async fn open(options: &StoreOptions) -> Result<Self> {
        let blobs = BlobStore::open(&options.blob_url)?;
        if let Some(path) = options.database_url.strip_prefix("sqlite://") {
            let db = crate::sqlite::SqliteDb::open(path, options.readers, options.busy_timeout).await?;
            db.migrate().await?;
            return Ok(db.into_store(blobs));
        }
        Err(crate::StoreError::Unsupported(format!(
            "storage.database_url: this build opens sqlite:// databases only (got {})",
            options.database_url.split(':').next().unwrap_or("")
        )))
    }
}
