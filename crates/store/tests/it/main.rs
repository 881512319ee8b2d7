//! Integration tests of the SQLite store, through the repository traits only.
#![allow(clippy::unwrap_used)]

mod accounts;
mod common;
mod dns;
mod features;
mod jobs;
mod outbox;
mod settings;
