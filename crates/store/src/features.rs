//! Records of the feature store: collections, features and their versions.

use meridian_core::id::AccountId;
use meridian_core::Timestamp;
use serde_json::{Map, Value};

/// A feature collection of an account (`parcels` is the cadastre's).
#[derive(Clone, Debug, PartialEq)]
pub struct FeatureCollection {
    pub account_id: AccountId,
    /// The collection id used in paths, e.g. `parcels`.
    pub id: String,
    pub title: String,
    pub description: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A feature as stored: geometry in CRS84, properties as JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct Feature {
    pub id: String,
    pub account_id: AccountId,
    pub collection: String,
    /// GeoJSON geometry (CRS84), or none.
    pub geometry: Option<Value>,
    pub properties: Map<String, Value>,
    /// Bounding box (min x, min y, max x, max y) for the spatial index.
    pub bbox: Option<[f64; 4]>,
    /// Starts at 1; every change adds one. The ETag is made from it.
    pub version: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub retired_at: Option<Timestamp>,
}

impl Feature {
    fn text(&self, key: &str) -> Option<String> {
        self.properties.get(key).and_then(Value::as_str).map(str::to_owned)
    }

    /// Indexed properties of parcels.
    pub(crate) fn lot(&self) -> Option<String> {
        self.text("lot")
    }

    pub(crate) fn plan(&self) -> Option<String> {
        self.text("plan")
    }

    pub(crate) fn tenure(&self) -> Option<String> {
        self.text("tenure")
    }
}

/// One version in a feature's history.
#[derive(Clone, Debug, PartialEq)]
pub struct FeatureVersion {
    pub version: i64,
    /// `registered`, `updated` or `retired`.
    pub change: String,
    pub geometry: Option<Value>,
    pub properties: Map<String, Value>,
    /// When this version began.
    pub recorded_at: Timestamp,
}

/// The store-side part of a feature query; CQL2 and sorting happen above the store.
#[derive(Clone, Debug, Default)]
pub struct FeatureQuery {
    pub collection: String,
    /// CRS84 bounding box.
    pub bbox: Option<[f64; 4]>,
    /// Exact matches on the indexed properties `lot`, `plan`, `tenure`.
    pub lot: Option<String>,
    pub plan: Option<String>,
    pub tenure: Option<String>,
    /// `updated_at` within [from, to] (milliseconds), either end open.
    pub updated_from: Option<i64>,
    pub updated_to: Option<i64>,
    /// A page, or every match when `None` (for filters evaluated above the store).
    pub page: Option<(u32, u64)>,
}

/// The extent of a collection's live features.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Extent {
    /// CRS84 min x, min y, max x, max y of the features with a geometry; none if there are none.
    pub bbox: Option<[f64; 4]>,
    /// The earliest and latest `updated_at` (milliseconds); none for an empty collection.
    pub updated: Option<(i64, i64)>,
}

/// How a write names the version it expects (`If-Match`).
pub type ExpectedVersion = Option<i64>;
