//! The DNS API under `/v1/dns`: zones, records, batches, zone files, DNSSEC and change history. Handlers are thin:
//! the rules, the serial bumps and the events live in the DNS engine's service.

pub mod batch;
pub mod changes;
pub mod dnssec;
pub mod records;
pub mod zonefile;
pub mod zones;

use crate::state::AppState;
use meridian_core::Timestamp;
use meridian_dns::record::RecordInput;
use meridian_store::dns::{Record, Zone};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;

/// Every DNS route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(zones::router())
        .merge(records::router())
        .merge(batch::router())
        .merge(zonefile::router())
        .merge(dnssec::router())
        .merge(changes::router())
}

/// A zone.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ZoneView {
    /// `zone_...`
    pub id: String,
    /// The zone's name, lowercase ASCII (internationalized names as punycode).
    pub name: String,
    /// `active`.
    pub status: String,
    /// How many records the zone holds (the server's SOA and apex NS not counted).
    pub records: u64,
    /// The name servers in the zone's apex NS records; delegate the domain to them.
    pub nameservers: Vec<String>,
    /// The SOA serial; every change increases it (RFC 1982).
    pub soa_serial: u32,
    /// `active` when the zone is signed, else `disabled`.
    pub dnssec: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl ZoneView {
    pub(crate) fn new(z: Zone, state: &AppState) -> Self {
        Self {
            id: z.id.0,
            name: z.name,
            status: z.status,
            records: z.records,
            nameservers: state.config.dns.nameservers.iter().map(|n| n.trim_end_matches('.').to_owned()).collect(),
            soa_serial: z.soa_serial,
            dnssec: if z.dnssec { "active" } else { "disabled" }.to_owned(),
            created_at: z.created_at,
            updated_at: z.updated_at,
        }
    }
}

/// A DNS record.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RecordView {
    /// `rec_...`
    pub id: String,
    /// `zone_...`
    pub zone_id: String,
    /// A, AAAA, CNAME, MX, TXT, NS, SRV, CAA or PTR.
    #[serde(rename = "type")]
    pub rtype: String,
    /// Fully qualified, without the trailing dot.
    pub name: String,
    /// The address, target host, text or CAA value.
    pub content: String,
    /// Seconds.
    pub ttl: u32,
    /// MX preference or SRV priority.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<u16>,
    /// SRV weight.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<u16>,
    /// SRV port.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// CAA flags (0, or 128 for critical).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flags: Option<u8>,
    /// CAA tag (`issue`, `issuewild`, `iodef`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl From<Record> for RecordView {
    fn from(r: Record) -> Self {
        Self {
            id: r.id.0,
            zone_id: r.zone_id.0,
            rtype: r.rtype,
            name: r.name,
            content: r.content,
            ttl: r.ttl,
            priority: r.priority,
            weight: r.weight,
            port: r.port,
            flags: r.flags,
            tag: r.tag,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

/// A record to create, or the fields of a record to change.
#[derive(Debug, Default, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordBody {
    /// A, AAAA, CNAME, MX, TXT, NS, SRV, CAA or PTR (required on create; cannot change).
    #[serde(rename = "type")]
    pub rtype: Option<String>,
    /// Relative to the zone (`www`, `@` for the apex, `*.dev` for a wildcard) or fully qualified;
    /// internationalized names are stored as punycode. Default `@`.
    pub name: Option<String>,
    /// IPv4/IPv6 address, target host name, text (split into 255-octet strings on the wire) or CAA value.
    pub content: Option<String>,
    /// Seconds, 60 to 86400; default 3600.
    #[serde(default, deserialize_with = "whole_number")]
    #[schema(minimum = 60, maximum = 86400)]
    pub ttl: Option<i64>,
    /// MX preference, SRV priority.
    #[serde(default, deserialize_with = "whole_number")]
    #[schema(minimum = 0, maximum = 65535)]
    pub priority: Option<i64>,
    /// SRV weight.
    #[serde(default, deserialize_with = "whole_number")]
    #[schema(minimum = 0, maximum = 65535)]
    pub weight: Option<i64>,
    /// SRV port.
    #[serde(default, deserialize_with = "whole_number")]
    #[schema(minimum = 0, maximum = 65535)]
    pub port: Option<i64>,
    /// CAA flags: 0, or 128 (critical).
    #[serde(default, deserialize_with = "whole_number")]
    #[schema(schema_with = caa_flags_schema)]
    pub flags: Option<i64>,
    /// CAA tag: issue, issuewild, iodef.
    pub tag: Option<String>,
}

/// An integer field that also takes a JSON number with no fraction (`3600.0`), as JSON Schema's
/// `integer` does; a fraction or a value past `i64` is a validation error.
pub(crate) fn whole_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    use serde::de::Error;
    match Option::<serde_json::Number>::deserialize(d)? {
        None => Ok(None),
        Some(n) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15).map(|f| f as i64))
            .map(Some)
            .ok_or_else(|| D::Error::custom(format!("invalid value: {n}, expected a whole number"))),
    }
}

pub(crate) fn caa_flags_schema() -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::Integer)
        .enum_values(Some([0, 128]))
        .description(Some("CAA flags: 0, or 128 (critical)."))
        .build()
}

impl From<RecordBody> for RecordInput {
    fn from(b: RecordBody) -> Self {
        RecordInput {
            rtype: b.rtype,
            name: b.name,
            content: b.content,
            ttl: b.ttl,
            priority: b.priority,
            weight: b.weight,
            port: b.port,
            flags: b.flags,
            tag: b.tag,
        }
    }
}

/// The answer to a delete.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Deleted {
    /// Always `true`.
    pub deleted: bool,
    /// The deleted resource.
    pub id: String,
}

pub(crate) use crate::paging::filter_query;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn integer_fields_take_whole_json_numbers_only() {
        let b: RecordBody = serde_json::from_str(r#"{"ttl": 3600.0, "priority": 10, "port": -1}"#).unwrap();
        assert_eq!((b.ttl, b.priority, b.port), (Some(3600), Some(10), Some(-1)));
        assert!(serde_json::from_str::<RecordBody>(r#"{"ttl": 3600.5}"#).is_err());
        assert!(serde_json::from_str::<RecordBody>(r#"{"ttl": 1e300}"#).is_err());
        assert!(serde_json::from_str::<RecordBody>(r#"{"ttl": "60"}"#).is_err());
        assert_eq!(serde_json::from_str::<RecordBody>(r#"{"ttl": null}"#).unwrap().ttl, None);
        assert_eq!(serde_json::from_str::<RecordBody>("{}").unwrap().ttl, None);
    }
}
