//! The repository conformance suite: every repository trait tested through the traits only, so
//! that any backend passes the same tests. They run against the embedded SQLite store; another
//! backend runs them by answering `common::open` (the one place that names the backend).
#![allow(clippy::unwrap_used)]

mod accounts;
mod common;
mod dem;
mod dns;
mod eo;
mod features;
mod jobs;
mod outbox;
mod pointcloud;
mod settings;
mod twin;
mod webhooks;
