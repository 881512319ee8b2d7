//! What the DNS repository reads and writes. The rules (names, record data, CNAME exclusivity)
//! live in the DNS engine; the store keeps rows and enforces what needs a transaction.

use meridian_core::id::{AccountId, DnsKeyId, RecordId, ZoneId};
use meridian_core::Timestamp;

/// A hosted zone.
#[derive(Clone, Debug, PartialEq)]
pub struct Zone {
    pub id: ZoneId,
    pub account_id: AccountId,
    /// Lowercase ASCII, no trailing dot.
    pub name: String,
    /// `active`.
    pub status: String,
    pub soa_serial: u32,
    /// How many records the zone holds (the server's own SOA and apex NS not counted).
    pub records: u64,
    /// Whether the zone is signed.
    pub dnssec: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// What a DNS node needs to tell whether its copy of a zone is current.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneVersion {
    pub id: ZoneId,
    pub account_id: AccountId,
    pub name: String,
    pub soa_serial: u32,
    pub dnssec: bool,
}

/// A record of a zone, as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub id: RecordId,
    pub zone_id: ZoneId,
    /// Fully qualified, lowercase, no trailing dot.
    pub name: String,
    /// `A`, `AAAA`, `CNAME`, ...
    pub rtype: String,
    pub content: String,
    /// The record data in master-file form; equal rdata at the same name and type is a duplicate.
    pub rdata: String,
    pub ttl: u32,
    pub priority: Option<u16>,
    pub weight: Option<u16>,
    pub port: Option<u16>,
    pub flags: Option<u8>,
    pub tag: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// Filters of a record list; all given ones must hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordFilter {
    pub rtype: Option<String>,
    pub name: Option<String>,
    pub content: Option<String>,
}

/// Changes applied to a zone in one transaction: deletes, then updates, then creates.
#[derive(Clone, Debug, Default)]
pub struct ChangeSet {
    pub deletes: Vec<RecordId>,
    /// Full new rows; the id names the record to replace.
    pub updates: Vec<Record>,
    pub creates: Vec<Record>,
    /// Records that must still carry this `updated_at` (an `If-Match` the caller checked):
    /// otherwise nothing is applied and the answer is a failed precondition.
    pub unchanged_since: Vec<(RecordId, Timestamp)>,
    /// The zone's serial the change was computed against: when it moved since, nothing is applied
    /// and the answer is a failed precondition (dynamic updates use it to make their
    /// prerequisites atomic with the change).
    pub expect_serial: Option<u32>,
}

impl ChangeSet {
    /// Whether nothing would change.
    pub fn is_empty(&self) -> bool {
        self.deletes.is_empty() && self.updates.is_empty() && self.creates.is_empty()
    }
}

/// A DNSSEC signing key.
#[derive(Clone, PartialEq, Eq)]
pub struct DnsKey {
    pub id: DnsKeyId,
    pub zone_id: ZoneId,
    /// 13: ECDSA P-256 with SHA-256.
    pub algorithm: u8,
    /// 257: a key-signing key that also signs the zone (a combined signing key).
    pub flags: u16,
    /// The private scalar, hex.
    pub private_key: String,
    pub created_at: Timestamp,
}

impl std::fmt::Debug for DnsKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DnsKey")
            .field("id", &self.id)
            .field("zone_id", &self.zone_id)
            .field("algorithm", &self.algorithm)
            .field("flags", &self.flags)
            .field("private_key", &"[redacted]")
            .finish()
    }
}
