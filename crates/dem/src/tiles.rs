//! Terrain tiles of a job: WebMercatorQuad z/x/y PNGs of an output layer (painted from the
//! output COG) or of a style rendered from the job's source DEM, kept in a tile cache in the blob
//! store. Rendering runs on a blocking thread; opened rasters are kept for the next tile, and the
//! chunks they decode in the service's block cache (`dem.block_cache_bytes`).

use crate::blobs::keys;
use crate::datasets::RasterInfo;
use crate::job::{JobOutput, JobParams, KIND};
use crate::operations::OPERATION_TYPES;
use crate::{DemService, Error, Result};
use bytes::Bytes;
use meridian_core::DomainError;
use meridian_raster::dem::{ColorRamp, ColorReliefOptions, SlopeFormat, SlopeOptions};
use meridian_raster::tiff::GeoTiff;
use meridian_raster::tile::{slope_colors, LayerPaint, TileRenderer, TileStyle};
use meridian_store::model::{Job, JobStatus};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use tokio::runtime::Handle;

/// What to draw: a job's output layer, or a style of its source DEM.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TileQuery {
    /// An operation whose output to draw.
    pub layer: Option<String>,
    /// Or a style rendered from the source DEM.
    pub style: Option<String>,
    /// A named colour ramp for color-relief styles and Float32 layers.
    pub ramp: Option<String>,
}

/// A rendered (or cached) tile.
#[derive(Clone, Debug)]
pub struct Tile {
    pub png: Bytes,
    /// A strong validator: a digest of the PNG.
    pub etag: String,
}

fn invalid(pointer: &str, code: &str, detail: impl Into<String>) -> Error {
    Error::Domain(DomainError::invalid(pointer, code, detail))
}

fn no_tile(z: u8, x: u32, y: u32, why: &str) -> Error {
    Error::Domain(DomainError::NotFound { resource: "tile", id: format!("{z}/{x}/{y} ({why})") })
}

/// Longitude/latitude bounds of tile z/x/y.
fn tile_lonlat(z: u8, x: u32, y: u32) -> [f64; 4] {
    let n = (1u64 << z) as f64;
    let lon = |x: f64| x / n * 360.0 - 180.0;
    let lat = |y: f64| (std::f64::consts::PI * (1.0 - 2.0 * y / n)).sinh().atan().to_degrees();
    [lon(x as f64), lat(y as f64 + 1.0), lon(x as f64 + 1.0), lat(y as f64)]
}

enum Target {
    Layer(LayerPaint),
    Style(TileStyle),
}

impl DemService {
    /// A tile of `job` (a DEM job of the caller's account), `size` 256 or 512 pixels.
    pub async fn tile(
        self: &Arc<Self>,
        job: &Job,
        query: &TileQuery,
        z: u8,
        x: u32,
        y: u32,
        size: usize,
    ) -> Result<Tile> {
        if job.kind != KIND {
            return Err(Error::Domain(DomainError::not_found("job", job.id.as_str())));
        }
        let params = JobParams::of(job)?;
        let ramp = match query.ramp.as_deref() {
            None => None,
            Some(name) => {
                Some(serde_json::from_value::<ColorRamp>(serde_json::Value::String(name.to_owned())).map_err(|_| {
                    invalid(
                        "/ramp",
                        "unknown_ramp",
                        format!("unknown ramp `{name}`; ramps are {}", ColorRamp::NAMES.join(", ")),
                    )
                })?)
            }
        };
        let (name, key, info, target) = match (query.layer.as_deref(), query.style.as_deref()) {
            (Some(_), Some(_)) => return Err(invalid("/style", "invalid_parameter", "give either layer or style, not both")),
            (None, None) => {
                return Err(invalid(
                    "/layer",
                    "required",
                    "name a layer (an operation of the job) or a style (hillshade, slope, color-relief, terrain-rgb, terrarium)",
                ))
            }
            (Some(layer), None) => {
                if !OPERATION_TYPES.contains(&layer) {
                    return Err(invalid(
                        "/layer",
                        "unknown_layer",
                        format!("unknown layer `{layer}`; layers are the job's operations: {}", OPERATION_TYPES.join(", ")),
                    ));
                }
                if job.status != JobStatus::Succeeded {
                    return Err(Error::Domain(DomainError::conflict(
                        "job_not_succeeded",
                        format!("job {} is {}; its layers can be drawn once it succeeded", job.id, job.status.as_str()),
                    )));
                }
                let output = JobOutput::of(job).unwrap_or_default();
                let record = output
                    .find(layer)
                    .ok_or_else(|| Error::Domain(DomainError::not_found("layer", format!("{layer} of job {}", job.id))))?;
                let Some(info) = record.info.clone() else {
                    return Err(invalid("/layer", "not_a_raster", format!("`{layer}` is vector output; download it instead")));
                };
                let paint = layer_paint(&params, layer, &info, record.statistics.map(|s| (s.min, s.max)), ramp);
                let name = match query.ramp.as_deref() {
                    Some(r) => format!("{layer}-{r}"),
                    None => layer.to_owned(),
                };
                (name, record.key(job), info, Target::Layer(paint))
            }
            (None, Some(style_name)) => {
                let mut style = TileStyle::by_name(style_name).ok_or_else(|| {
                    invalid(
                        "/style",
                        "unknown_style",
                        format!("unknown style `{style_name}`; styles are {}", TileStyle::NAMES.join(", ")),
                    )
                })?;
                if let (TileStyle::ColorRelief(o), Some(r)) = (&mut style, ramp) {
                    o.ramp = Some(r);
                }
                // Styles draw the job's source: once its dataset is deleted (through any node),
                // neither an open raster nor a cached tile may still answer for it.
                if let Some(dataset) = &params.source.dataset_id {
                    if self.store.dem.get_dataset(&job.account_id, dataset).await?.is_none() {
                        return Err(Error::Domain(DomainError::not_found("dataset", dataset)));
                    }
                }
                // The COG copy once the job made it; the upload itself before.
                let key = if job.status == JobStatus::Succeeded || self.blobs().exists(&params.tiles_key).await? {
                    params.tiles_key.clone()
                } else {
                    params.source_key.clone()
                };
                let name = match (query.ramp.as_deref(), &style) {
                    (Some(r), TileStyle::ColorRelief(_)) => format!("style-{style_name}-{r}"),
                    _ => format!("style-{style_name}"),
                };
                (name, key, params.source_info.clone(), Target::Style(style))
            }
        };
        let (Some(minzoom), Some(maxzoom), Some(bounds)) = (info.minzoom, info.maxzoom, info.bounds) else {
            return Err(invalid(
                "/job",
                "not_georeferenced",
                "the raster names no CRS this service knows, so it has no tiles",
            ));
        };
        if (x as u64) >= (1u64 << z) || (y as u64) >= (1u64 << z) {
            return Err(no_tile(z, x, y, "outside the tile matrix"));
        }
        if z < minzoom || z > maxzoom.min(self.config.max_zoom) {
            return Err(no_tile(z, x, y, &format!("zoom levels are {minzoom}–{}", maxzoom.min(self.config.max_zoom))));
        }
        let t = tile_lonlat(z, x, y);
        if t[0] >= bounds[2] || t[2] <= bounds[0] || t[1] >= bounds[3] || t[3] <= bounds[1] {
            return Err(no_tile(z, x, y, "outside the data"));
        }
        let cache_key = keys::tile(&job.account_id, &job.id, &name, z, x, y, size);
        if self.config.tile_cache {
            if let Some(png) = self.blobs().get(&cache_key).await? {
                return Ok(Tile { etag: etag(&png), png });
            }
        }
        let me = self.clone();
        let handle = Handle::current();
        let rendered = tokio::task::spawn_blocking(move || -> Result<Option<Vec<u8>>> {
            let src = me.open_cached(&key, &handle)?;
            let renderer = TileRenderer::new(&src)?;
            Ok(match target {
                Target::Layer(paint) => renderer.render_layer_png(z, x, y, size, &paint)?,
                Target::Style(style) => renderer.render_png(z, x, y, size, &style)?,
            })
        })
        .await
        .map_err(|e| Error::Internal(format!("tile rendering ended abnormally: {e}")))??;
        let Some(png) = rendered else { return Err(no_tile(z, x, y, "no data")) };
        let png = Bytes::from(png);
        if self.config.tile_cache {
            // The answer does not wait for the cache.
            let blobs = self.blobs().clone();
            let (k, v) = (cache_key, png.clone());
            tokio::spawn(async move {
                if let Err(e) = blobs.put(&k, v).await {
                    tracing::warn!(error = %e, key = %k, "caching a tile failed");
                }
            });
        }
        Ok(Tile { etag: etag(&png), png })
    }

    /// An open raster, from the cache of opened files when possible. Blocking.
    fn open_cached(&self, key: &str, handle: &Handle) -> Result<Arc<GeoTiff>> {
        if let Some(t) = self.opened.get(key) {
            return Ok(t);
        }
        let t = crate::blobs::open_geotiff(self.blobs(), key, handle, self.raster_limits())?;
        // Neighbouring tiles, and every style of a tile, read the same chunks: decode each once.
        let t = Arc::new(t.with_block_cache(self.block_cache.clone()));
        self.opened.insert(key.to_owned(), t.clone());
        Ok(t)
    }
}

/// Rasters kept open for tiles (the least likely to be asked for again are closed first).
pub(crate) const OPENED_CAPACITY: usize = 64;

/// How an output layer is painted: hillshade in grey, colour reliefs as they are, slope in
/// degrees on the slope style's ramp, other values on a ramp over the layer's range.
pub fn layer_paint(
    params: &JobParams,
    layer: &str,
    info: &RasterInfo,
    range: Option<(f64, f64)>,
    ramp: Option<ColorRamp>,
) -> LayerPaint {
    if info.bands >= 3 {
        return LayerPaint::Rgb;
    }
    if info.data_type == "UInt8" && ramp.is_none() {
        return LayerPaint::Gray;
    }
    let (min, max) = range.unwrap_or((0.0, 1.0));
    if let Some(r) = ramp {
        return LayerPaint::Ramp {
            colors: ColorReliefOptions { ramp: Some(r), ..ColorReliefOptions::default() },
            min,
            max,
        };
    }
    let slope_degrees = layer == "slope"
        && params.operations.iter().any(|o| {
            o["type"] == "slope"
                && serde_json::from_value::<SlopeOptions>(strip_type(o)).is_ok_and(|s| s.format == SlopeFormat::Degrees)
        });
    if slope_degrees {
        return LayerPaint::Ramp { colors: slope_colors(), min: 0.0, max: 90.0 };
    }
    LayerPaint::Ramp {
        colors: ColorReliefOptions { ramp: Some(ColorRamp::Viridis), ..ColorReliefOptions::default() },
        min,
        max,
    }
}

fn strip_type(v: &serde_json::Value) -> serde_json::Value {
    let mut v = v.clone();
    if let serde_json::Value::Object(m) = &mut v {
        m.remove("type");
    }
    v
}

fn etag(png: &[u8]) -> String {
    format!("\"{}\"", hex::encode(&Sha256::digest(png)[..16]))
}

impl DemService {
    /// Removes cached tiles written more than `ttl` ago, for every account; returns how many.
    pub async fn evict_tiles(&self, ttl: std::time::Duration) -> Result<u64> {
        let cutoff = chrono::Utc::now() - chrono::Duration::from_std(ttl).unwrap_or(chrono::Duration::MAX);
        crate::blobs::evict_tiles_before(self.blobs(), cutoff).await
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use meridian_backends::StoreOptions;
    use meridian_core::config::Config;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn tile_rasters_share_the_configured_block_cache() {
        let dir = tempfile::tempdir().unwrap();
        let store = meridian_backends::open(&StoreOptions {
            database_url: format!("sqlite://{}", dir.path().join("db.sqlite").display()),
            blob_url: format!("file://{}", dir.path().join("blobs").display()),
            readers: 2,
            busy_timeout: std::time::Duration::from_secs(5),
            postgres: Default::default(),
        })
        .await
        .unwrap();
        let dem =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../raster/tests/data/swissalti3d-2573-1085.tif");
        store.blobs.put("a/dem.tif", Bytes::from(std::fs::read(dem).unwrap())).await.unwrap();
        let mut config = Config::default();
        config.server.data_dir = dir.path().to_owned();
        config.dem.block_cache_bytes = 3 << 20;
        let service = Arc::new(DemService::new(&config, store));
        assert_eq!(service.block_cache().capacity(), 3 << 20);
        let (me, handle) = (service.clone(), Handle::current());
        tokio::task::spawn_blocking(move || {
            let src = me.open_cached("a/dem.tif", &handle).unwrap();
            assert!(Arc::ptr_eq(src.block_cache().unwrap(), me.block_cache()));
            let renderer = TileRenderer::new(&src).unwrap();
            let b = renderer.bounds_wgs84().unwrap();
            let (lon, lat) = ((b[0] + b[2]) / 2.0, ((b[1] + b[3]) / 2.0).to_radians());
            let n = (1u64 << 15) as f64;
            let x = ((lon + 180.0) / 360.0 * n) as u32;
            let y = ((1.0 - (lat.tan() + 1.0 / lat.cos()).ln() / std::f64::consts::PI) / 2.0 * n) as u32;
            let first = renderer.render_png(15, x, y, 256, &TileStyle::TerrainRgb).unwrap();
            let misses = me.block_cache().stats().misses;
            // The same raster again (from the opened set), another style: no chunk decoded again.
            let again = me.open_cached("a/dem.tif", &handle).unwrap();
            let hs =
                TileRenderer::new(&again).unwrap().render_png(15, x, y, 256, &TileStyle::by_name("hillshade").unwrap());
            assert!(first.is_some() && hs.unwrap().is_some());
            let stats = me.block_cache().stats();
            assert!(misses > 0 && stats.misses == misses && stats.hits > 0, "{stats:?}");
            assert!(stats.bytes <= 3 << 20);
        })
        .await
        .unwrap();
    }

    #[test]
    fn tile_bounds_in_degrees() {
        let b = tile_lonlat(0, 0, 0);
        assert_eq!(b[0], -180.0);
        assert_eq!(b[2], 180.0);
        assert!((b[3] - 85.051_128_78).abs() < 1e-6);
        let b = tile_lonlat(1, 1, 1);
        assert_eq!([b[0], b[3]], [0.0, 0.0]);
    }
}
