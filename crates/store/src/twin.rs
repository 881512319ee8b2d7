//! The digital-twin area's records: twins, their sensors, readings and tileset builds.

use meridian_core::id::AccountId;
use meridian_core::Timestamp;
use serde_json::Value;

/// A twin as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct TwinRow {
    pub account_id: AccountId,
    pub id: String,
    /// `building`, `ready` or `failed`.
    pub status: String,
    /// The definition and what its builds found (the service's own shape).
    pub body: Value,
    /// The simulation clock (the service's own shape); changing it does not bump `version`.
    pub clock: Value,
    /// Bumped by every change of `status` or `body`; the ETag.
    pub version: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A sensor of a twin.
#[derive(Clone, Debug, PartialEq)]
pub struct SensorRow {
    pub twin_id: String,
    pub id: String,
    pub account_id: AccountId,
    /// The asset (feature id) it is attached to.
    pub feature_id: Option<String>,
    /// Name, unit, value type (the service's own shape).
    pub body: Value,
    pub created_at: Timestamp,
}

/// One reading: a sensor's value at an instant.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadingRow {
    pub sensor_id: String,
    /// Milliseconds since the epoch.
    pub ts: i64,
    /// The value as JSON text.
    pub value: String,
}

/// A reading to store.
#[derive(Clone, Debug, PartialEq)]
pub struct NewReading {
    pub row: ReadingRow,
    /// Stamped by the server: `row.ts` is the earliest instant it may take, and it takes the first
    /// instant from there that the sensor has free (a stamped reading never replaces another).
    /// Otherwise the client chose the instant and a reading already there is replaced.
    pub stamped: bool,
}

/// What storing readings did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StoredReadings {
    /// The readings as stored (stamped ones at the instant they took), in the order given.
    pub rows: Vec<ReadingRow>,
    /// How many replaced a reading the sensor already had at their instant.
    pub replaced: u64,
}

/// A tileset build kept for a twin.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildRow {
    pub twin_id: String,
    /// Versions of the source features at the build's instant (see the migration).
    pub stamp: i64,
    /// Tiles, features, triangles, skipped footprints (the service's own shape).
    pub summary: Value,
    pub created_at: Timestamp,
}

/// A feature of a collection as it was at an instant (or as it is).
#[derive(Clone, Debug, PartialEq)]
pub struct FeatureAsOf {
    pub id: String,
    pub geometry: Option<Value>,
    pub properties: serde_json::Map<String, Value>,
    /// The feature's version at that instant.
    pub version: i64,
    /// When that version began.
    pub valid_from: Timestamp,
    /// When the feature was first registered.
    pub created_at: Timestamp,
}

/// One bucket of a downsampled series.
#[derive(Clone, Debug, PartialEq)]
pub struct BucketRow {
    /// The bucket's start (ms).
    pub ts: i64,
    pub count: i64,
    /// Numbers: the smallest, largest and mean value.
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub mean: Option<f64>,
    /// Other values: the bucket's last value (JSON text).
    pub last: Option<String>,
}

/// A downsampling of one sensor's readings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Downsample {
    /// Readings with `from <= ts <= to` (ms).
    pub from: i64,
    pub to: i64,
    /// Bucket width (ms).
    pub interval: i64,
    /// Numbers: count, min, max, mean; otherwise count and the last value.
    pub numeric: bool,
    /// Most buckets.
    pub limit: u32,
}
