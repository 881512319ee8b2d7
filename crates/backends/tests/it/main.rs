//! The repository conformance suite: every repository trait tested through the traits only, so
//! that any backend passes the same tests. They run against the embedded SQLite store; another
//! backend runs them by answering `common::open` (the one place that names the backend).
#![allow(clippy::unwrap_used)]

mod accounts;
mod blobs;
mod common;
mod dem;
mod dns;
mod duties;
mod eo;
mod features;
mod jobs;
mod keyset;
mod outbox;
mod pointcloud;
mod seats;
mod settings;
mod twin;
mod webhooks;

/// Both backends' migrations are numbered in step: every number exists for both.
#[test]
fn every_migration_number_exists_for_both_backends() {
    let sqlite = meridian_store_sqlite::migration_versions();
    assert_eq!(sqlite, meridian_store_postgres::migration_versions());
    assert_eq!(sqlite, (1..=sqlite.len() as i64).collect::<Vec<_>>(), "numbered from 1 without gaps");
}
