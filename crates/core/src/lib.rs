//! Meridian's shared vocabulary: identifiers, timestamps, the problem document, domain errors,
//! scopes, platform events and the configuration tree. Nothing here speaks HTTP or SQL, so every
//! other crate can depend on it.

pub mod cache;
pub mod config;
pub mod crs;
pub mod error;
pub mod event;
pub mod id;
pub mod page;
pub mod problem;
pub mod scope;
pub mod time;

pub use error::{DomainError, FieldError};
pub use time::Timestamp;
