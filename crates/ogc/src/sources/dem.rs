//! The DEM area's rasters as layers: every uploaded DEM dataset (styles `hillshade`,
//! `color-relief` and `slope`, rendered from the elevations as the DEM tiles are) and every
//! raster output of a succeeded `dem.process` job (painted as its tiles are). GetFeatureInfo
//! answers the raw value under the point (the elevation for a dataset).

use crate::layers::{Hit, LayerInfo, LayerKind, LayerSource, Legend, SourceError, StyleInfo};
use crate::render::pixmap_from_rgba;
use crate::srs::View;
use async_trait::async_trait;
use meridian_core::id::{AccountId, DatasetId, JobId};
use meridian_core::page::Page;
use meridian_dem::blobs::keys;
use meridian_dem::{DemService, JobOutput, JobParams};
use meridian_jobs::JobService;
use meridian_raster::dem::{ColorRamp, ColorReliefOptions};
use meridian_raster::tiff::GeoTiff;
use meridian_raster::tile::{slope_colors, LayerPaint, TileRenderer, TileStyle};
use meridian_raster::warp::{self, Grid, Resampling};
use meridian_store::model::JobStatus;
use serde_json::{json, Map};
use std::sync::Arc;
use tokio::runtime::Handle;

/// The prefix of DEM layer names.
pub const PREFIX: &str = "dem";

/// Most datasets and jobs listed as layers per account.
const MAX_LISTED: u32 = 500;

/// Rasters kept open between maps; the set starts afresh when full.
const OPENED_CAPACITY: usize = 64;

/// The styles of a DEM dataset, the default first.
pub const DATASET_STYLES: &[(&str, &str)] = &[
    ("hillshade", "Hillshade (315°, 45°)"),
    ("color-relief", "Colour relief (terrain ramp over the elevation range)"),
    ("slope", "Slope in degrees"),
];

/// The DEM rasters as layers.
pub struct DemLayers {
    dem: Arc<DemService>,
    jobs: JobService,
    opened: meridian_core::cache::Bounded<String, Arc<GeoTiff>>,
}

/// What a layer is drawn from.
enum Target {
    Style(TileStyle),
    Paint(LayerPaint),
}

/// A layer resolved to its raster.
struct Resolved {
    info: LayerInfo,
    key: String,
    /// For job outputs: how the output is painted.
    paint: Option<LayerPaint>,
}

fn ramp_legend(o: &ColorReliefOptions, min: f64, max: f64, unit: &str) -> Legend {
    Legend::Ramp(o.samples(min, max, 16).into_iter().map(|(v, c)| (format!("{v:.0}{unit}"), c)).collect())
}

fn style_legend(name: &str) -> Legend {
    match name {
        "hillshade" => Legend::Ramp((0..16).map(|i| (String::new(), [i * 17, i * 17, i * 17, 255])).collect()),
        "slope" => ramp_legend(&slope_colors(), 0.0, 90.0, "°"),
        _ => ramp_legend(
            &ColorReliefOptions { ramp: Some(ColorRamp::Terrain), ..ColorReliefOptions::default() },
            0.0,
            100.0,
            "%",
        ),
    }
}

impl DemLayers {
    /// A source over the DEM service.
    pub fn new(dem: Arc<DemService>, jobs: JobService) -> Self {
        Self { dem, jobs, opened: meridian_core::cache::Bounded::entries(OPENED_CAPACITY) }
    }

    fn dataset_info(&self, id: &str, title: Option<&str>, bounds: Option<[f64; 4]>) -> LayerInfo {
        LayerInfo {
            name: format!("{PREFIX}:{id}"),
            title: title.map_or_else(|| format!("DEM {id}"), |t| format!("DEM {t}")),
            abstract_: format!("Elevation model {id}; GetFeatureInfo gives the elevation under the point."),
            keywords: vec!["DEM".into(), "elevation".into()],
            kind: LayerKind::Raster,
            bbox: bounds,
            styles: DATASET_STYLES
                .iter()
                .map(|(n, t)| StyleInfo { name: (*n).into(), title: (*t).into(), legend: style_legend(n) })
                .collect(),
            queryable: true,
            revision: String::new(),
        }
    }

    async fn dataset_key(&self, account: &AccountId, id: &DatasetId) -> Result<String, SourceError> {
        let cog = keys::dataset_cog(account, id);
        let exists = self.dem.blobs().exists(&cog).await.map_err(|e| SourceError::from_err("DEM blob", e))?;
        Ok(if exists { cog } else { keys::dataset_source(account, id) })
    }

    /// Every output layer of one job, with its key and paint.
    fn job_layers(job: &meridian_store::model::Job) -> Vec<Resolved> {
        if job.status != JobStatus::Succeeded {
            return Vec::new();
        }
        let (Ok(params), Some(output)) = (JobParams::of(job), JobOutput::of(job)) else { return Vec::new() };
        let mut out = Vec::new();
        for record in &output.outputs {
            let Some(info) = &record.info else { continue };
            if info.bounds.is_none() {
                continue;
            }
            let paint = meridian_dem::tiles::layer_paint(
                &params,
                &record.operation,
                info,
                record.statistics.as_ref().map(|s| (s.min, s.max)),
                None,
            );
            let legend = match &paint {
                LayerPaint::Ramp { colors, min, max } => ramp_legend(colors, *min, *max, ""),
                LayerPaint::Gray => style_legend("hillshade"),
                LayerPaint::Rgb => style_legend("color-relief"),
            };
            out.push(Resolved {
                info: LayerInfo {
                    name: format!("{PREFIX}:{}:{}", job.id, record.operation),
                    title: format!("{} of job {}", record.operation, job.id),
                    abstract_: format!("The {} output of DEM job {}.", record.operation, job.id),
                    keywords: vec!["DEM".into(), record.operation.clone()],
                    kind: LayerKind::Raster,
                    bbox: info.bounds,
                    styles: vec![StyleInfo { name: "default".into(), title: record.operation.clone(), legend }],
                    queryable: true,
                    revision: String::new(),
                },
                key: record.key(job),
                paint: Some(paint),
            });
        }
        out
    }

    async fn resolve(&self, account: &AccountId, name: &str) -> Result<Option<Resolved>, SourceError> {
        let Some(rest) = name.strip_prefix(PREFIX).and_then(|r| r.strip_prefix(':')) else { return Ok(None) };
        match rest.split_once(':') {
            None => {
                let Ok(d) = self.dem.get_dataset(account, rest).await else { return Ok(None) };
                let key = self.dataset_key(account, &d.id).await?;
                Ok(Some(Resolved {
                    info: self.dataset_info(d.id.as_str(), d.filename.as_deref(), d.info.bounds),
                    key,
                    paint: None,
                }))
            }
            Some((job_id, _operation)) => {
                if !meridian_core::id::has_shape(job_id, JobId::PREFIX) {
                    return Ok(None);
                }
                let job = self
                    .jobs
                    .find_of(account, job_id, Some(meridian_dem::JOB_KIND))
                    .await
                    .map_err(|e| SourceError::from_err("reading a job", e))?;
                let Some(job) = job else { return Ok(None) };
                Ok(Self::job_layers(&job).into_iter().find(|r| r.info.name == name))
            }
        }
    }
}

#[async_trait]
impl LayerSource for DemLayers {
    fn name(&self) -> &'static str {
        PREFIX
    }

    fn title(&self) -> &'static str {
        "Elevation models and terrain products"
    }

    async fn layers(&self, account: &AccountId) -> Result<Vec<LayerInfo>, SourceError> {
        let page = Page::at(MAX_LISTED, 0);
        let (datasets, _) =
            self.dem.list_datasets(account, page).await.map_err(|e| SourceError::from_err("listing datasets", e))?;
        let mut out: Vec<LayerInfo> = datasets
            .iter()
            .filter(|d| d.info.bounds.is_some())
            .map(|d| self.dataset_info(d.id.as_str(), d.filename.as_deref(), d.info.bounds))
            .collect();
        let (jobs, _) = self
            .jobs
            .list(account, Some(meridian_dem::JOB_KIND), page)
            .await
            .map_err(|e| SourceError::from_err("listing jobs", e))?;
        for job in &jobs {
            out.extend(Self::job_layers(job).into_iter().map(|r| r.info));
        }
        Ok(out)
    }

    async fn layer(&self, account: &AccountId, name: &str) -> Result<Option<LayerInfo>, SourceError> {
        Ok(self.resolve(account, name).await?.map(|r| r.info))
    }

    async fn render(
        &self,
        account: &AccountId,
        layer: &LayerInfo,
        style: &StyleInfo,
        view: &View,
    ) -> Result<Option<tiny_skia::Pixmap>, SourceError> {
        let Some(r) = self.resolve(account, &layer.name).await? else { return Ok(None) };
        let target = match r.paint {
            Some(p) => Target::Paint(p),
            None => Target::Style(
                TileStyle::by_name(&style.name)
                    .ok_or_else(|| SourceError(format!("style {} has no renderer", style.name)))?,
            ),
        };
        let view = *view;
        let opened = self.open_async(&r.key, Handle::current()).await?;
        tokio::task::spawn_blocking(move || -> Result<Option<tiny_skia::Pixmap>, SourceError> {
            let renderer = TileRenderer::new(&opened).map_err(|e| SourceError::from_err("DEM renderer", e))?;
            let grid = Grid::from_bbox(view.bbox, view.width as usize, view.height as usize, view.crs.epsg());
            let rgba = match &target {
                Target::Style(s) => renderer.render_grid_rgba(&grid, view.ground_scale(), s),
                Target::Paint(p) => renderer.render_layer_grid_rgba(&grid, p),
            };
            let rgba = match rgba {
                Ok(r) => r,
                // A map no point of which reaches the DEM's CRS (a box far outside the
                // projection's domain) shows nothing of it; that is the request, not a fault.
                Err(meridian_raster::Error::Crs(_) | meridian_raster::Error::InvalidArgument(_)) => None,
                Err(e) => return Err(SourceError::from_err("rendering a DEM", e)),
            };
            Ok(rgba.and_then(|px| pixmap_from_rgba(&px, view.width, view.height)))
        })
        .await
        .map_err(|e| SourceError::from_err("rendering a DEM", e))?
    }

    async fn feature_info(
        &self,
        account: &AccountId,
        layer: &LayerInfo,
        view: &View,
        i: u32,
        j: u32,
        _count: usize,
    ) -> Result<Vec<Hit>, SourceError> {
        let Some(r) = self.resolve(account, &layer.name).await? else { return Ok(Vec::new()) };
        let opened = self.open_async(&r.key, Handle::current()).await?;
        let (x0, y1) = view.to_map(f64::from(i), f64::from(j));
        let (x1, y0) = view.to_map(f64::from(i) + 1.0, f64::from(j) + 1.0);
        let epsg = view.crs.epsg();
        let is_dataset = r.paint.is_none();
        let bands = opened.bands().min(4);
        let sample = tokio::task::spawn_blocking(move || -> Result<Vec<f32>, SourceError> {
            let grid = Grid::from_bbox([x0, y0, x1, y1], 1, 1, epsg);
            let to_src = meridian_raster::crs::transformer(epsg, opened.epsg().unwrap_or(epsg))
                .map_err(|e| SourceError::from_err("DEM CRS", e))?;
            let Ok(pos) = warp::source_positions(&grid, &opened.geo_transform(), &to_src, 1) else {
                // The point does not reach the DEM's CRS: nothing is under it.
                return Ok(vec![f32::NAN]);
            };
            let mut values = Vec::new();
            for b in 0..if is_dataset { 1 } else { bands } {
                let v = warp::warp_band_positions(&opened, b, &grid, &pos, Resampling::Nearest, None)
                    .map_err(|e| SourceError::from_err("DEM sample", e))?
                    .map_or(f32::NAN, |r| r.data[0]);
                values.push(v);
            }
            Ok(values)
        })
        .await
        .map_err(|e| SourceError::from_err("DEM sample", e))??;
        if sample.first().is_none_or(|v| v.is_nan()) {
            return Ok(Vec::new());
        }
        let mut properties = Map::new();
        if is_dataset {
            properties.insert("elevation".into(), json!(sample[0]));
        } else if sample.len() == 1 {
            properties.insert("value".into(), json!(sample[0]));
        } else {
            for (k, v) in sample.iter().enumerate() {
                properties.insert(format!("band_{}", k + 1), json!(v));
            }
        }
        Ok(vec![Hit { layer: layer.name.clone(), id: None, properties, geometry: None }])
    }
}

impl DemLayers {
    async fn open_async(&self, key: &str, handle: Handle) -> Result<Arc<GeoTiff>, SourceError> {
        if let Some(t) = self.opened.get(key) {
            return Ok(t);
        }
        let blobs = self.dem.blobs().clone();
        let limits = self.dem.raster_limits();
        let k = key.to_owned();
        let t = tokio::task::spawn_blocking(move || meridian_dem::blobs::open_geotiff(&blobs, &k, &handle, limits))
            .await
            .map_err(|e| SourceError::from_err("opening a DEM", e))?
            .map_err(|e| SourceError::from_err("opening a DEM", e))?;
        // Maps and tiles of a raster overlap the same chunks: they are decoded once, into the DEM
        // service's block cache (`dem.block_cache_bytes`), shared with its terrain tiles.
        let t = Arc::new(t.with_block_cache(self.dem.block_cache().clone()));
        self.opened.insert(key.to_owned(), t.clone());
        Ok(t)
    }
}
