//! Meridian's DNS engine, with no HTTP in it: names and IDN, record validation, master files,
//! the per-zone serving snapshot and its authoritative lookup, DNSSEC signing, and the DNS
//! protocol server (UDP and TCP, AXFR, NOTIFY, TSIG, RFC 2136 dynamic update). The write path
//! shared by the HTTP API and dynamic updates ([`service::DnsService`]) applies the rules and
//! commits changes with their events through the store.

mod answer_cache;
pub mod dnssec;
pub mod name;
pub mod notify;
pub mod record;
pub mod served;
pub mod server;
pub mod service;
pub mod tsig;
mod udp;
pub mod zone;
pub mod zonefile;
