//! The DEM service under `/api/v1/dem`: submit processing (an upload or an earlier result),
//! poll, cancel and download jobs, read uploaded datasets, and terrain tiles. The work is done by
//! `meridian_dem::DemService`; these routes parse HTTP and shape answers.

pub mod datasets;
pub mod jobs;
pub mod process;
pub mod tiles;

use crate::state::AppState;
use meridian_core::id::JobId;
use meridian_core::Timestamp;
use meridian_dem::{output_href, tile_template, JobOutput, JobParams};
use meridian_store::model::{Job, JobStatus};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;

/// Every DEM route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().merge(process::router()).merge(jobs::router()).merge(datasets::router()).merge(tiles::router())
}

/// Minimum, maximum and mean of an output's valid samples (contours: of the line levels).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct StatisticsView {
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    /// Valid samples (contours: lines).
    pub count: u64,
}

/// One output of a job.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct OutputView {
    /// The operation that made it; also its tile layer.
    pub operation: String,
    /// `image/tiff; application=geotiff; profile=cloud-optimized` or `application/geo+json`.
    pub media_type: String,
    /// Where to download it (with the same credentials).
    pub href: String,
    /// Bytes.
    pub size: u64,
    /// Of the output's valid samples; absent for colour reliefs (their bands are colours).
    pub statistics: Option<StatisticsView>,
}

/// A tile layer of a job: a URL template (`{z}`, `{x}`, `{y}`; `{y}@2x.png` for 512-px tiles).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct TileLayerView {
    /// An output layer (its operation) ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer: Option<String>,
    /// ... or a style rendered from the source DEM.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub style: Option<String>,
    pub template: String,
    pub minzoom: u8,
    pub maxzoom: u8,
    /// Longitude/latitude bounds: min lon, min lat, max lon, max lat.
    pub bounds: [f64; 4],
}

/// A DEM processing job as its owner sees it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct DemJobView {
    /// `job_...`
    pub id: String,
    /// `queued`, `running`, `succeeded`, `failed` or `cancelled`.
    pub status: String,
    /// 0 to 100.
    pub progress: u8,
    /// Whether cancellation was asked for; it stays true once the job is cancelled.
    pub cancel_requested: bool,
    pub created_at: Timestamp,
    pub started_at: Option<Timestamp>,
    pub finished_at: Option<Timestamp>,
    pub updated_at: Timestamp,
    /// What the job reads: `{"dataset_id": ...}` or `{"job_id": ..., "operation": ...}`.
    #[schema(value_type = Object)]
    pub source: Value,
    /// The operations with every option spelt out (defaults included).
    #[schema(value_type = Vec<Object>)]
    pub operations: Vec<Value>,
    /// Why it failed, as a problem document.
    #[schema(value_type = Option<Object>)]
    pub error: Option<Value>,
    /// One per operation, once the job succeeded.
    pub outputs: Vec<OutputView>,
    /// Tile URL templates: the styles of the source DEM at once, each raster output once the job succeeded.
    pub tiles: Vec<TileLayerView>,
}

impl DemJobView {
    /// The view of a `dem.process` job, with links under `base`; tiles stop at zoom `zoom_cap`.
    pub(crate) fn new(job: Job, base: &str, zoom_cap: u8) -> Self {
        let params = JobParams::of(&job).ok();
        let id = JobId(job.id.0.clone());
        let mut tiles = Vec::new();
        if let Some(p) = &params {
            if let (Some(minzoom), Some(maxzoom), Some(bounds)) =
                (p.source_info.minzoom, p.source_info.maxzoom, p.source_info.bounds)
            {
                for style in ["hillshade", "slope", "color-relief", "terrain-rgb", "terrarium"] {
                    tiles.push(TileLayerView {
                        layer: None,
                        style: Some(style.to_owned()),
                        template: tile_template(base, &id, "style", style),
                        minzoom,
                        maxzoom: maxzoom.min(zoom_cap),
                        bounds,
                    });
                }
            }
        }
        let mut outputs = Vec::new();
        if job.status == JobStatus::Succeeded {
            for o in JobOutput::of(&job).unwrap_or_default().outputs {
                if let Some(info) = &o.info {
                    if let (Some(minzoom), Some(maxzoom), Some(bounds)) = (info.minzoom, info.maxzoom, info.bounds) {
                        tiles.push(TileLayerView {
                            layer: Some(o.operation.clone()),
                            style: None,
                            template: tile_template(base, &id, "layer", &o.operation),
                            minzoom,
                            maxzoom: maxzoom.min(zoom_cap),
                            bounds,
                        });
                    }
                }
                outputs.push(OutputView {
                    href: output_href(base, &id, &o.name),
                    operation: o.operation,
                    media_type: o.media_type,
                    size: o.size,
                    statistics: o.statistics.map(|s| StatisticsView {
                        min: s.min,
                        max: s.max,
                        mean: s.mean,
                        count: s.count,
                    }),
                });
            }
        }
        let terminal = job.status.is_terminal();
        Self {
            id: job.id.0,
            status: job.status.as_str().to_owned(),
            progress: if job.status == JobStatus::Succeeded { 100 } else { job.progress },
            cancel_requested: job.cancel_requested,
            created_at: job.created_at,
            started_at: job.started_at,
            finished_at: job.finished_at,
            updated_at: job.updated_at,
            source: params.as_ref().map(|p| serde_json::to_value(&p.source).unwrap_or_default()).unwrap_or_default(),
            operations: params.map(|p| p.operations).unwrap_or_default(),
            // A failure on an attempt that will be retried is not the job's error yet.
            error: if terminal { job.error } else { None },
            outputs,
            tiles,
        }
    }
}
