//! Meridian's DEM service, without HTTP: uploads checked and kept in the blob store (datasets),
//! processing requests parsed with a JSON pointer for every mistake, the `dem.process` job
//! handler that runs the raster engine (hillshade, slope, aspect, color relief, TRI, TPI,
//! roughness, contours) and stores Cloud Optimized GeoTIFF and GeoJSON outputs with statistics,
//! and terrain tiles of a job's layers and source DEM with a tile cache. The HTTP routes under
//! `/api/v1/dem` are thin wrappers around [`DemService`].

/// The job kind of DEM processing (`dem.process`).
pub const JOB_KIND: &str = "dem.process";

pub mod blobs;
pub mod datasets;
pub mod job;
pub mod operations;
pub mod tiles;

pub use datasets::{Dataset, RasterInfo};
pub use job::{DemJobHandler, JobOutput, JobParams, OutputRecord, Statistics};
pub use operations::DemOperation;
pub use tiles::{Tile, TileQuery};

use meridian_core::config::{Config, DemConfig};
use meridian_core::id::JobId;
use meridian_core::DomainError;
use meridian_raster::tiff::{BlockCache, GeoTiff, Limits};
use meridian_store::{BlobStore, Store, StoreError};
use std::path::PathBuf;
use std::sync::Arc;

/// What can go wrong in the DEM service.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The caller's mistake (invalid input, not found, conflict).
    #[error(transparent)]
    Domain(#[from] DomainError),
    #[error("store: {0}")]
    Store(#[from] StoreError),
    #[error("raster engine: {0}")]
    Raster(#[from] meridian_raster::Error),
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Internal(String),
}

meridian_store::area_error!(Error);

/// Results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The DEM service shared by the HTTP routes and the job handler.
pub struct DemService {
    store: Store,
    config: DemConfig,
    /// Where uploads and outputs are staged before they go to the blob store.
    tmp_dir: PathBuf,
    /// Base of links in events (`server.public_url`); links are paths without it.
    public_url: Option<String>,
    max_attempts: u32,
    opened: meridian_core::cache::Bounded<String, Arc<GeoTiff>>,
    /// Decoded chunks of the rasters opened for tiles (`dem.block_cache_bytes`), shared by all.
    block_cache: Arc<BlockCache>,
}

impl std::fmt::Debug for DemService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DemService").field("config", &self.config).field("tmp_dir", &self.tmp_dir).finish()
    }
}

impl DemService {
    /// The service over `store`, staging files in `<data_dir>/tmp` (made when first needed).
    pub fn new(config: &Config, store: Store) -> Self {
        let tmp_dir = config.staging_dir();
        Self {
            store,
            config: config.dem.clone(),
            tmp_dir,
            public_url: config.server.public_url.as_ref().map(|u| u.trim_end_matches('/').to_owned()),
            max_attempts: config.jobs.max_attempts,
            opened: meridian_core::cache::Bounded::entries(tiles::OPENED_CAPACITY),
            block_cache: Arc::new(BlockCache::new(usize::try_from(config.dem.block_cache_bytes).unwrap_or(usize::MAX))),
        }
    }

    /// The area's configuration.
    pub fn config(&self) -> &DemConfig {
        &self.config
    }

    /// The cache of decoded COG chunks that tiles are rendered through.
    pub fn block_cache(&self) -> &Arc<BlockCache> {
        &self.block_cache
    }

    /// What an input GeoTIFF may declare (`dem.max_pixels`, `dem.max_chunk_bytes`, `dem.max_chunks`).
    pub fn raster_limits(&self) -> Limits {
        raster_limits(&self.config)
    }

    /// The blob store the area's files live in.
    pub fn blobs(&self) -> &BlobStore {
        &self.store.blobs
    }

    /// Where uploads and outputs are staged, made if missing.
    pub fn staging_dir(&self) -> std::io::Result<&std::path::Path> {
        std::fs::create_dir_all(&self.tmp_dir)?;
        Ok(&self.tmp_dir)
    }
}

/// The engine's limits from the area's configuration.
pub fn raster_limits(config: &DemConfig) -> Limits {
    Limits { max_pixels: config.max_pixels, max_chunk_bytes: config.max_chunk_bytes, max_chunks: config.max_chunks }
}

/// The download link of a job's output.
pub fn output_href(base: &str, job: &JobId, name: &str) -> String {
    format!("{base}/api/v1/dem/jobs/{job}/outputs/{name}")
}

/// The URL template of a job's tiles: `layer=<operation>` or `style=<style>`.
pub fn tile_template(base: &str, job: &JobId, param: &str, value: &str) -> String {
    format!("{base}/api/v1/dem/tiles/{{z}}/{{x}}/{{y}}.png?job={job}&{param}={value}")
}
