//! The feature engine behind the cadastre and OGC API Features: GeoJSON geometry parsing,
//! validation and normalisation (RFC 7946 winding), geodesic area, bounding boxes, CQL2
//! (text and JSON) parsing and evaluation, and FlatGeobuf reading. No HTTP and no SQL here.
//!
//! Every parser takes hostile input: each has limits (`cql2::Limits`, `geometry::Limits`,
//! `fgb::FgbLimits`) that end in an error, never a panic, a stack overflow or unbounded work, and
//! each has a fuzz target (`tests/it/fuzz.rs`, `fuzz/fuzz_targets/`). Validation is CPU work to run
//! off async threads; stored geometry is read back with `geometry::decode`, without validation.

pub mod cql2;
pub mod fgb;
pub mod geometry;

pub use geometry::{Bbox, ParsedGeometry};
