//! Meridian's raster engine: GeoTIFF and Cloud Optimized GeoTIFF reading and writing, DEM
//! algorithms that follow `gdaldem` and `gdal_contour` in method, CRS transformations,
//! reprojection and resampling, and WebMercatorQuad tile rendering.
//!
//! Nothing here speaks HTTP or SQL. Large rasters are processed in row blocks with a one-pixel
//! buffer, so memory stays bounded by the block size rather than the raster size, and each block
//! is computed on the rayon thread pool.

pub mod crs;
pub mod dem;
mod error;
pub mod tiff;
pub mod tile;
mod types;
pub mod warp;

pub use error::{Error, Result};
pub use types::{DataType, GeoTransform, Raster, Window};
