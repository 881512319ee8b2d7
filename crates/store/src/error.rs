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

/// A unique violation on inserting `what` with `id` as the conflict it is (ids a server makes
/// collide only by accident, but a collision is never a 500); any other error as it is.
pub(crate) fn taken(e: sqlx::Error, what: &str, id: &str) -> StoreError {
    if is_unique_violation(&e) {
        DomainError::Conflict {
            code: meridian_core::problem::code::CONFLICT,
            detail: format!("{what} {id} already exists"),
        }
        .into()
    } else {
        e.into()
    }
}

/// How an area service's error is answered, decided once for every area: the caller's mistake
/// keeps its status, a store error is answered as the store says, anything else is internal.
pub enum ErrorClass<E> {
    /// Invalid input, not found, a conflict, a failed precondition.
    Domain(DomainError),
    /// A repository call failed (which may itself carry a domain error).
    Store(StoreError),
    /// Everything else (blob store, I/O, an engine's failure): shown to nobody but the log.
    Internal(E),
}

/// The error of an area service (DEM, earth observation, point clouds, twins): the HTTP layer
/// maps any of them to a problem through [`ErrorClass`], with one function.
pub trait AreaError: std::error::Error + Sized {
    /// Which kind of answer this error is.
    fn class(self) -> ErrorClass<Self>;
}

/// Implements [`AreaError`] for an area's error enum with `Domain` and `Store` variants.
#[macro_export]
macro_rules! area_error {
    ($error:ty) => {
        impl $crate::error::AreaError for $error {
            fn class(self) -> $crate::error::ErrorClass<Self> {
                match self {
                    Self::Domain(d) => $crate::error::ErrorClass::Domain(d),
                    Self::Store(s) => $crate::error::ErrorClass::Store(s),
                    other => $crate::error::ErrorClass::Internal(other),
                }
            }
        }
    };
}
