//! Store errors. Constraint violations become domain conflicts here, at the store's edge.

use meridian_core::DomainError;

/// What a repository call can fail with.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A domain rule was broken (not found, conflict, ...).
    #[error(transparent)]
    Domain(#[from] DomainError),
    /// The database failed.
    #[error("database error: {0}")]
    Database(#[source] sqlx::Error),
    /// Migrations could not be applied.
    #[error("migration error: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The blob store failed.
    #[error("blob store error: {0}")]
    Blob(#[from] object_store::Error),
    /// Stored data could not be decoded.
    #[error("corrupt stored data: {0}")]
    Corrupt(String),
    /// The configuration names something this build cannot open.
    #[error("{0}")]
    Unsupported(String),
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        StoreError::Database(e)
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError::Corrupt(e.to_string())
    }
}

/// Result with [`StoreError`].
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Whether `e` is a unique-constraint violation, which callers turn into a conflict.
pub(crate) fn is_unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(db) if db.is_unique_violation())
}
