//! The feature engine behind the cadastre and OGC API Features: GeoJSON geometry parsing,
//! validation and normalisation (RFC 7946 winding), geodesic area, bounding boxes, CQL2
//! (text and JSON) parsing and evaluation, and FlatGeobuf reading. No HTTP and no SQL here.

pub mod cql2;
pub mod fgb;
pub mod geometry;

pub use geometry::{Bbox, ParsedGeometry};
