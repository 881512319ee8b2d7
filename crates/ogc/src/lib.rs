//! Meridian's OGC classic services without HTTP: the per-tenant layer registry that areas
//! register their layers in, KVP request parsing, capabilities documents, map rendering
//! (anti-aliased vectors, DEM rasters reprojected like the terrain tiles, composition, PNG and
//! JPEG), OGC exception reports and tile matrix sets; WMS 1.3.0 and WMTS 1.0.0 on top of them;
//! and WFS 2.0 over the feature service ([`wfs`]: capabilities, XML Schema of feature types, GML
//! 3.2 and GeoJSON output, FES 2.0 filters translated to CQL2, stored queries, transactions
//! through the cadastre's write path). The routes under `/api/v1/ogc` call [`OgcService`] and
//! [`wfs::WfsService`].

pub mod kvp;
pub mod layers;
pub mod ows;
pub mod render;
pub mod service;
pub mod sources;
pub mod srs;
pub mod wfs;
pub mod wms;
pub mod wmts;

pub use layers::{LayerInfo, LayerKind, LayerRegistry, LayerSource};
pub use ows::{ExceptionCode, OgcError};
pub use service::{Context, MapConfig, OgcService, Reply};
