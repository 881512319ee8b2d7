//! Meridian's earth-observation service, without HTTP: a STAC API 1.0 catalogue of collections
//! and scenes (items) whose assets live in the blob store, ingest that derives an item's
//! footprint, projection and band statistics from its GeoTIFFs, band math (NDVI, NDWI and any
//! expression over a scene's assets) into Float32 Cloud Optimized GeoTIFFs with statistics and
//! previews, and zonal statistics of an index over the cadastre's parcels. The HTTP routes under
//! `/api/v1/eo` are thin wrappers around [`EoService`].

pub mod bandmath;
pub mod compute;
pub mod expr;
pub mod zonal;
pub mod ingest;
pub mod search;
pub mod stac;
pub mod tiles;
pub mod service;

pub use service::{EoService, Error, Result, SearchPage};
