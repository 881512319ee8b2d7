//! Integration tests of the worker pool and the outbox dispatcher against a real SQLite store.
#![allow(clippy::unwrap_used)]

mod common;
mod dispatch;
mod service;
mod worker;
