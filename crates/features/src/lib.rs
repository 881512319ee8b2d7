//! The feature engine behind the cadastre and OGC API Features: GeoJSON geometry parsing,
//! validation and normalisation (RFC 7946 winding), geodesic area, bounding boxes, and CQL2
//! (text and JSON) parsing and evaluation. No HTTP and no SQL here.

pub mod cql2;
pub mod geometry;

pub use geometry::{Bbox, ParsedGeometry};
