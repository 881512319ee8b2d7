//! GeoTIFF and Cloud Optimized GeoTIFF: reading (classic and BigTIFF, stripped and tiled, the
//! usual compressions and predictors, GeoKeys, nodata, overviews, windowed reads) and writing
//! (a streaming tiled writer and a COG writer with overviews).

mod cache;
mod codec;
mod lzw;
mod reader;
mod tags;
mod writer;

pub use cache::{BlockCache, CacheStats};
pub use codec::Compression;
pub use reader::Sample;
pub use reader::{GeoTiff, Image, Limits, ReadAt};
pub use writer::{
    write_cog, write_cog_with_progress, write_raster_cog, CogOptions, Pixel, TiffWriter, WriterOptions, FASTEST,
};

/// Georeferencing that a writer stores and a reader recovers.
#[derive(Clone, Debug, PartialEq)]
pub struct GeoInfo {
    pub geo_transform: crate::GeoTransform,
    /// EPSG code of the CRS, projected or geographic.
    pub epsg: Option<u16>,
    /// True when the EPSG code names a geographic CRS (degrees).
    pub geographic: bool,
}
