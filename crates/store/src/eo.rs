//! The earth-observation area's records: STAC collections and items (scenes) as stored, and the
//! part of an item search the store decides (collections, ids, box, time, order, keyset).

use meridian_core::id::AccountId;
use meridian_core::Timestamp;
use serde_json::Value;

/// A STAC Collection as stored (its links are made when answering).
#[derive(Clone, Debug, PartialEq)]
pub struct EoCollection {
    pub account_id: AccountId,
    pub id: String,
    pub body: Value,
    pub version: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A STAC Item as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct EoItem {
    /// Insertion order; the last tie-breaker of every search order.
    pub seq: i64,
    pub account_id: AccountId,
    pub collection: String,
    pub id: String,
    /// The item's time as an interval (milliseconds): `datetime`, or `start_`/`end_datetime`.
    pub start_at: i64,
    pub end_at: i64,
    /// WGS84 box (min lon, min lat, max lon, max lat).
    pub bbox: [f64; 4],
    /// The Item without links.
    pub body: Value,
    pub version: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// An item about to be stored.
#[derive(Clone, Debug, PartialEq)]
pub struct NewItem {
    pub id: String,
    pub start_at: i64,
    pub end_at: i64,
    pub bbox: [f64; 4],
    pub body: Value,
}

/// What a search orders by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SortField {
    /// The start of the item's time.
    Datetime,
    Id,
    Collection,
    /// A member of `properties`.
    Property(String),
}

/// One key of a search order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemSort {
    pub field: SortField,
    pub descending: bool,
}

/// The default order of searches: newest first, as STAC APIs answer.
pub fn default_sort() -> Vec<ItemSort> {
    vec![ItemSort { field: SortField::Datetime, descending: true }, ItemSort { field: SortField::Id, descending: false }]
}

/// The filters and order of an item search that the store applies.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ItemQuery {
    pub collections: Vec<String>,
    pub ids: Vec<String>,
    /// WGS84 boxes, any of which an item's box must intersect (two when a box crosses the
    /// antimeridian).
    pub boxes: Vec<[f64; 4]>,
    /// Items whose time interval meets [start, end] (milliseconds, inclusive).
    pub time: Option<(i64, i64)>,
    pub sort: Vec<ItemSort>,
    /// Continue after this item: the sort keys' values of the last item seen and its `seq`.
    pub after: Option<(Vec<Value>, i64)>,
    pub limit: u32,
}

/// The values an item has for the sort keys (what a continuation token carries).
pub fn sort_values(item: &EoItem, sort: &[ItemSort]) -> Vec<Value> {
    sort.iter()
        .map(|k| match &k.field {
            SortField::Datetime => Value::from(item.start_at),
            SortField::Id => Value::from(item.id.clone()),
            SortField::Collection => Value::from(item.collection.clone()),
            SortField::Property(p) => item.body.get("properties").and_then(|ps| ps.get(p)).cloned().unwrap_or(Value::Null),
        })
        .collect()
}

/// What a collection holds: item count, WGS84 extent and time span.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CollectionSummary {
    pub items: u64,
    pub bbox: Option<[f64; 4]>,
    pub start_at: Option<i64>,
    pub end_at: Option<i64>,
}
