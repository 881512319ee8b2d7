//! Meridian's OGC classic services without HTTP: the per-tenant layer catalogue that areas
//! register their layers in, KVP request parsing, capabilities documents, map rendering
//! (anti-aliased vectors, DEM rasters reprojected like the terrain tiles, composition, PNG and
//! JPEG), OGC exception reports and tile matrix sets; WMS 1.3.0 and WMTS 1.0.0 on top of them.
//! The routes under `/api/v1/ogc` call [`OgcService`].

pub mod catalogue;
pub mod kvp;
pub mod ows;
pub mod render;
pub mod service;
pub mod sources;
pub mod srs;
pub mod wms;
pub mod wmts;

pub use catalogue::{Catalogue, LayerInfo, LayerKind, LayerSource};
pub use ows::{ExceptionCode, OgcError};
pub use service::{Context, MapConfig, OgcService, Reply};
