//! Store errors. Constraint violations become domain conflicts here, at the store's edge.

use meridian_core::DomainError;

/// What a repository call can fail with.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A domain rule was broken (not found, conflict, ...).
    #[error(transparent)]
    Domain(#[from] DomainError),
    /// The database failed (the backend's own error inside).
    #[error("database error: {0}")]
    Database(#[source] Source),
    /// The database or the blob store cannot be reached now (down, restarting, a connection
    /// refused or cut off, out of connections): a passing failure, answered 503 and retried.
    #[error("the store is unavailable: {0}")]
    Unavailable(#[source] Source),
    /// Migrations could not be applied.
    #[error("migration error: {0}")]
    Migrate(#[source] Source),
    /// The blob store failed (the backend's own error inside).
    #[error("blob store error: {0}")]
    Blob(#[source] Source),
    /// Stored data could not be decoded.
    #[error("corrupt stored data: {0}")]
    Corrupt(String),
    /// The configuration names something this build cannot open.
    #[error("{0}")]
    Unsupported(String),
}

/// A backend's own error, kept whole for the log: the store's callers never look inside it.
pub type Source = Box<dyn std::error::Error + Send + Sync>;

impl StoreError {
    /// A database failure of any backend.
    pub fn database(e: impl Into<Source>) -> Self {
        Self::Database(e.into())
    }

    /// A blob store failure of any backend.
    pub fn blob(e: impl Into<Source>) -> Self {
        Self::Blob(e.into())
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError::Corrupt(e.to_string())
    }
}

/// Result with [`StoreError`].
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

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
