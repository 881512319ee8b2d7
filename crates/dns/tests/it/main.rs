//! Engine tests over real sockets: a store in a temporary directory, the service, the served_zones and
//! the DNS server on port 0, queried with hickory-proto messages over UDP and TCP.
#![allow(clippy::unwrap_used)]

mod common;
mod fuzz;
mod import;
mod incremental;
mod queries;
mod rules;
mod tcp;
mod transfer;
