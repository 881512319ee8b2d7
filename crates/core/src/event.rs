//! Platform events: the envelope every webhook payload shares, and the list of event types.

use crate::id::{AccountId, EventId};
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Every event type the platform emits. An area's events are listed once the area exists (no
/// subscription can be made to, and no list shows, an event nothing sends).
pub const EVENT_TYPES: &[&str] = &[
    "dns.zone.created",
    "dns.zone.deleted",
    "dns.record.created",
    "dns.record.updated",
    "dns.record.deleted",
    "cadastre.parcel.registered",
    "cadastre.parcel.updated",
    "cadastre.parcel.retired",
    "dem.job.succeeded",
    "dem.job.failed",
    "eo.scene.published",
    "pointcloud.uploaded",
    "pointcloud.classified",
    "pointcloud.failed",
    "twin.created",
    "twin.built",
    "twin.failed",
    "twin.deleted",
    "webhook.test",
];

/// An event about to be committed with the change it announces.
#[derive(Clone, Debug, PartialEq)]
pub struct NewEvent {
    /// The event id receivers deduplicate on.
    pub id: EventId,
    /// The tenant whose subscriptions may receive it.
    pub account_id: AccountId,
    /// One of [`EVENT_TYPES`].
    pub event_type: String,
    /// When the change happened.
    pub timestamp: Timestamp,
    /// The full payload: `id`, `event`, `timestamp` and the area's fields.
    pub payload: Value,
}

impl NewEvent {
    /// Builds the envelope `{id, event, timestamp, ...fields}`.
    pub fn new(account_id: AccountId, event_type: &str, fields: Map<String, Value>) -> Self {
        let id = EventId::generate();
        let timestamp = Timestamp::now();
        let mut payload = Map::new();
        payload.insert("id".into(), Value::String(id.0.clone()));
        payload.insert("event".into(), Value::String(event_type.to_owned()));
        payload.insert("timestamp".into(), Value::String(timestamp.to_rfc3339()));
        for (k, v) in fields {
            payload.entry(k).or_insert(v);
        }
        Self { id, account_id, event_type: event_type.to_owned(), timestamp, payload: Value::Object(payload) }
    }
}

/// An event as stored in the outbox.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Position in the outbox; increases with every commit.
    pub seq: i64,
    /// The event id.
    pub id: EventId,
    /// The tenant.
    pub account_id: AccountId,
    /// The event type.
    pub event_type: String,
    /// When it happened.
    pub timestamp: Timestamp,
    /// The payload, exactly as receivers get it.
    pub payload: Value,
}

/// Whether `pattern` (an exact type, `area.*`, `area.noun.*` or `*`) matches `event_type`.
///
/// ```
/// use meridian_core::event::matches;
/// assert!(matches("dns.*", "dns.record.created"));
/// assert!(matches("*", "webhook.test"));
/// assert!(!matches("dns.zone.*", "dns.record.created"));
/// ```
pub fn matches(pattern: &str, event_type: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some("") => true,
        Some(prefix) => prefix.ends_with('.') && event_type.starts_with(prefix),
        None => pattern == event_type,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_carries_id_event_timestamp_and_fields() {
        let mut fields = Map::new();
        fields.insert("zone".into(), Value::String("example.com".into()));
        fields.insert("id".into(), Value::String("must not win".into()));
        let e = NewEvent::new(AccountId::generate(), "dns.zone.created", fields);
        assert_eq!(e.payload["event"], "dns.zone.created");
        assert_eq!(e.payload["id"], Value::String(e.id.0.clone()));
        assert_eq!(e.payload["zone"], "example.com");
        assert!(e.payload["timestamp"].as_str().is_some_and(|t| t.ends_with('Z')));
    }

    /// The areas whose code sends events today; a type from any other area would be a promise
    /// the server cannot keep (a subscription that never fires).
    const EMITTING_AREAS: &[&str] = &["dns", "cadastre", "dem", "eo", "pointcloud", "twin", "webhook"];

    #[test]
    fn only_events_of_existing_areas_are_listed() {
        for t in EVENT_TYPES {
            let area = t.split('.').next().unwrap_or_default();
            assert!(EMITTING_AREAS.contains(&area), "{t} is listed but nothing sends it");
        }
    }
}
