//! Timestamps: RFC 3339 in UTC with a `Z`, millisecond precision.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A point in time, always UTC, serialised as `2026-01-02T03:04:05.678Z`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub DateTime<Utc>);

impl Timestamp {
    /// Now, truncated to milliseconds so that a stored and re-read value compares equal.
    pub fn now() -> Self {
        Self::from_millis(Utc::now().timestamp_millis())
    }

    /// From milliseconds since the Unix epoch.
    pub fn from_millis(ms: i64) -> Self {
        Self(DateTime::from_timestamp_millis(ms).unwrap_or_default())
    }

    /// Milliseconds since the Unix epoch.
    pub fn millis(&self) -> i64 {
        self.0.timestamp_millis()
    }

    /// This time plus a duration.
    pub fn plus(&self, d: std::time::Duration) -> Self {
        Self::from_millis(self.millis().saturating_add(d.as_millis() as i64))
    }

    /// RFC 3339 text with a `Z`.
    pub fn to_rfc3339(&self) -> String {
        self.0.to_rfc3339_opts(SecondsFormat::Millis, true)
    }

    /// Parses RFC 3339 text in any offset.
    pub fn parse(s: &str) -> Option<Self> {
        DateTime::parse_from_rfc3339(s).ok().map(|t| Self(t.with_timezone(&Utc)))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_rfc3339())
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).ok_or_else(|| serde::de::Error::custom("expected an RFC 3339 timestamp"))
    }
}

impl utoipa::PartialSchema for Timestamp {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(utoipa::openapi::KnownFormat::DateTime)))
            .examples([serde_json::json!("2026-01-02T03:04:05.678Z")])
            .into()
    }
}

impl utoipa::ToSchema for Timestamp {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_with_z_and_round_trips() {
        let t = Timestamp::from_millis(1_767_322_245_678);
        let json = serde_json::to_string(&t).unwrap_or_default();
        assert_eq!(json, "\"2026-01-02T02:50:45.678Z\"");
        let back: Timestamp = serde_json::from_str(&json).unwrap_or(Timestamp::from_millis(0));
        assert_eq!(back, t);
    }

    #[test]
    fn parses_offsets_into_utc() {
        let t = Timestamp::parse("2026-01-02T04:50:45.678+02:00");
        assert_eq!(t, Some(Timestamp::from_millis(1_767_322_245_678)));
    }
}
