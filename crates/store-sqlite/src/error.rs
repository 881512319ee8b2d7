//! The SQLite backend's errors as the store's: a unique violation becomes a conflict here, at
//! the store's edge, and every other failure the store's database error.

use meridian_core::DomainError;
use meridian_store::StoreError;

/// Any SQLite failure as the store's database error (`.map_err(db)` before `?`).
pub(crate) fn db(e: sqlx::Error) -> StoreError {
    StoreError::database(e)
}

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
        db(e)
    }
}
