//! The PostgreSQL backend's errors as the store's: a unique violation becomes a conflict here,
//! at the store's edge, and every other failure the store's database error.

use meridian_core::DomainError;
use meridian_store::StoreError;

/// Any PostgreSQL failure as the store's error (`.map_err(db)` before `?`): a database that
/// cannot be reached now (no connection within the pool's wait, a connection lost, the server
/// shutting down or refusing connections) is `Unavailable`, anything else a database error.
pub(crate) fn db(e: sqlx::Error) -> StoreError {
    if unavailable(&e) {
        return StoreError::Unavailable(Box::new(e));
    }
    // 22021: text PostgreSQL cannot hold (the NUL character) in a value sent by a client: the
    // client's mistake, never a server error.
    if matches!(&e, sqlx::Error::Database(d) if d.code().as_deref() == Some("22021")) {
        return DomainError::invalid("", "invalid_text", "text may not contain the NUL character (U+0000)").into();
    }
    StoreError::database(e)
}

fn unavailable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) | sqlx::Error::Tls(_) => true,
        // Class 08: connection exceptions; 57P01-57P03: the server is shutting down or starting;
        // 53300: too many connections.
        sqlx::Error::Database(d) => {
            d.code().is_some_and(|c| c.starts_with("08") || c.starts_with("57P") || c == "53300")
        }
        _ => false,
    }
}

/// Whether `e` is a unique-constraint violation, which callers turn into a conflict.
pub(crate) fn is_unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.is_unique_violation())
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
