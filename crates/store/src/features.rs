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

    /// The parcel properties a store indexes (`lot`, `plan`, `tenure`), as text.
    pub fn lot(&self) -> Option<String> {
        self.text("lot")
    }

    /// The indexed `plan` property.
    pub fn plan(&self) -> Option<String> {
        self.text("plan")
    }

    /// The indexed `tenure` property.
    pub fn tenure(&self) -> Option<String> {
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

/// The store-side part of a feature query: conditions the store can decide with its indexes.
/// Whatever the store cannot decide exactly (a feature's geometry against the box, CQL2 beyond
/// simple comparisons) is decided above it; every condition here only narrows, never widens.
#[derive(Clone, Debug, Default)]
pub struct FeatureQuery {
    pub collection: String,
    /// CRS84 bounding box, matched against the features' boxes (R*Tree).
    pub bbox: Option<[f64; 4]>,
    /// Exact matches on the indexed properties `lot`, `plan`, `tenure`.
    pub lot: Option<String>,
    pub plan: Option<String>,
    pub tenure: Option<String>,
    /// `updated_at` within [from, to] (milliseconds), either end open.
    pub updated_from: Option<i64>,
    pub updated_to: Option<i64>,
    /// Conditions on property values, all of which must hold; each is a disjunction.
    pub values: Vec<Vec<ValueCondition>>,
    /// Sort keys; features in insertion order when empty (and as the last key always).
    pub sort: Vec<(SortKey, bool)>,
    /// With a box: only the features whose own boxes are not wholly inside it.
    pub bbox_edge_only: bool,
    /// Without a box: search from the value index of the first single-condition key rather than
    /// along the collection (right when that condition selects few features).
    pub drive_by_values: bool,
}

/// A comparison of one top-level property with a scalar, answered from the property-value index.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueCondition {
    pub key: String,
    pub op: ValueOp,
    pub value: Scalar,
}

/// A comparison operator over property values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A property value as the index keeps it: strings (and arrays or objects as JSON text) as text,
/// numbers as numbers, booleans apart, so a comparison only meets values of its own type.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    Text(String),
    Num(f64),
    Bool(bool),
}

/// What a list can be ordered by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SortKey {
    Id,
    UpdatedAt,
    /// A top-level property (numbers before strings; missing values last in ascending order).
    Property(String),
}

/// Where a scan of matching features resumes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanFrom {
    /// After the feature with this sequence number (insertion order, no sort keys).
    After(i64),
    /// After skipping this many matches of the store's conditions (sorted scans).
    Skip(u64),
}

/// A feature with its position in insertion order (the keyset for paging).
#[derive(Clone, Debug, PartialEq)]
pub struct ScannedFeature {
    pub seq: i64,
    pub feature: StoredFeature,
}

/// A feature as a scan reads it: geometry and properties kept as the stored JSON text (checked
/// to be JSON, never turned into values), so that a page can be written out without parsing
/// and writing them again; [`StoredFeature::parse`] gives the [`Feature`] when its values are
/// needed.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredFeature {
    pub id: String,
    pub account_id: AccountId,
    pub collection: String,
    /// GeoJSON geometry (CRS84) as JSON text, or none.
    pub geometry: Option<String>,
    /// The properties as the text of a JSON object.
    pub properties: String,
    pub bbox: Option<[f64; 4]>,
    pub version: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub retired_at: Option<Timestamp>,
}

impl StoredFeature {
    /// Checks that `geometry` is JSON and `properties` a JSON object (a scan, no values built).
    pub fn check(self) -> crate::Result<Self> {
        if let Some(g) = &self.geometry {
            serde_json::from_str::<serde::de::IgnoredAny>(g)?;
        }
        let props = self.properties.trim_start();
        if !props.starts_with('{') {
            return Err(crate::StoreError::Corrupt("feature properties are not an object".into()));
        }
        serde_json::from_str::<serde::de::IgnoredAny>(props)?;
        Ok(self)
    }

    /// The geometry as a JSON value.
    pub fn geometry_value(&self) -> crate::Result<Option<Value>> {
        parse_geometry(self.geometry.as_deref())
    }

    /// The feature with its geometry and properties as values.
    pub fn parse(&self) -> crate::Result<Feature> {
        self.clone().into_feature()
    }

    /// [`StoredFeature::parse`], taking the feature.
    pub fn into_feature(self) -> crate::Result<Feature> {
        let properties = parse_properties(&self.properties)?;
        Ok(Feature {
            geometry: self.geometry_value()?,
            id: self.id,
            account_id: self.account_id,
            collection: self.collection,
            properties,
            bbox: self.bbox,
            version: self.version,
            created_at: self.created_at,
            updated_at: self.updated_at,
            retired_at: self.retired_at,
        })
    }
}

/// Stored properties (the text of a JSON object) as values.
pub fn parse_properties(text: &str) -> crate::Result<Map<String, Value>> {
    match serde_json::from_str(text)? {
        Value::Object(m) => Ok(m),
        _ => Err(crate::StoreError::Corrupt("feature properties are not an object".into())),
    }
}

/// A stored geometry (JSON text) as a value.
pub fn parse_geometry(text: Option<&str>) -> crate::Result<Option<Value>> {
    text.map(serde_json::from_str).transpose().map_err(Into::into)
}

/// The extent of a collection's live features.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Extent {
    /// CRS84 min x, min y, max x, max y of the features with a geometry; none if there are none.
    pub bbox: Option<[f64; 4]>,
    /// The earliest and latest `updated_at` (milliseconds); none for an empty collection.
    pub updated: Option<(i64, i64)>,
}

impl Extent {
    /// The extent of an empty collection.
    pub const EMPTY: Extent = Extent { bbox: None, updated: None };

    /// The extent once `features` (new, live) have joined a collection whose extent was this:
    /// a kept extent grows with an insert and need not be computed again from every feature
    /// (removals and updates, which may shrink it, forget it instead).
    pub fn grown_by<'a>(self, features: impl IntoIterator<Item = &'a Feature>) -> Extent {
        let mut out = self;
        for f in features {
            if let Some([x0, y0, x1, y1]) = f.bbox {
                out.bbox = Some(match out.bbox {
                    Some([a0, b0, a1, b1]) => [a0.min(x0), b0.min(y0), a1.max(x1), b1.max(y1)],
                    None => [x0, y0, x1, y1],
                });
            }
            let t = f.updated_at.millis();
            out.updated = Some(match out.updated {
                Some((t0, t1)) => (t0.min(t), t1.max(t)),
                None => (t, t),
            });
        }
        out
    }
}

/// How a write names the version it expects (`If-Match`).
pub type ExpectedVersion = Option<i64>;

/// One change of a batch applied in one transaction ([`crate::FeatureRepo::apply_feature_changes`]).
#[derive(Clone, Debug)]
pub enum FeatureChange {
    /// A new feature (version 1).
    Insert(Feature),
    /// `next` replaces the live feature, which must still be at `based_on` (and at `expected`
    /// when given).
    Update { next: Feature, based_on: i64, expected: ExpectedVersion },
    /// The live feature is retired.
    Retire { account: AccountId, collection: String, id: String, expected: ExpectedVersion },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x: f64, y: f64, t: i64) -> Feature {
        Feature {
            id: format!("{x},{y}"),
            account_id: AccountId("acct".into()),
            collection: "c".into(),
            geometry: None,
            properties: Map::new(),
            bbox: Some([x, y, x, y]),
            version: 1,
            created_at: Timestamp::from_millis(t),
            updated_at: Timestamp::from_millis(t),
            retired_at: None,
        }
    }

    #[test]
    fn an_extent_grows_by_the_boxes_and_times_of_new_features() {
        let first = Extent::EMPTY.grown_by(&[at(1.0, 2.0, 10)]);
        assert_eq!(first, Extent { bbox: Some([1.0, 2.0, 1.0, 2.0]), updated: Some((10, 10)) });
        let grown = first.grown_by(&[at(-1.0, 5.0, 20), at(3.0, 0.0, 5)]);
        assert_eq!(grown, Extent { bbox: Some([-1.0, 0.0, 3.0, 5.0]), updated: Some((5, 20)) });
        let mut unlocated = at(0.0, 0.0, 30);
        unlocated.bbox = None;
        assert_eq!(Extent::EMPTY.grown_by(&[unlocated]), Extent { bbox: None, updated: Some((30, 30)) });
    }
}
