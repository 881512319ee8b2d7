//! The point-cloud area under `/api/v1/pointcloud`: upload LAS/LAZ, list, read and delete point
//! clouds, classify them, download LAS, LAZ or COPC. The work is done by
//! `meridian_pointcloud::service::PointCloudService`; these routes parse HTTP and shape answers.

pub mod classify;
pub mod datasets;
pub mod download;

use crate::state::AppState;
use meridian_core::Timestamp;
use meridian_pointcloud::service::Dataset;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;

/// Every point-cloud route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().merge(datasets::router()).merge(classify::router()).merge(download::router())
}

/// The ETag prefix of a point cloud's versions.
pub(crate) fn etag_prefix(id: &str) -> String {
    format!("{id}-v")
}

/// A point cloud as its owner sees it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PointCloudView {
    /// `pc_...`
    pub id: String,
    pub name: Option<String>,
    /// `indexing`, `ready`, `classifying` or `failed`.
    pub status: String,
    /// The file name sent with the upload.
    pub filename: Option<String>,
    /// Bytes as uploaded.
    pub size: u64,
    /// `las` or `laz`.
    pub format: String,
    /// Points in the file (once indexed).
    pub points: Option<u64>,
    /// e.g. `1.4`.
    pub las_version: Option<String>,
    /// Point data record format, 0 to 10.
    pub point_format: Option<u8>,
    /// Scale of the stored integer coordinates, x, y, z.
    pub scale: Option<[f64; 3]>,
    /// Offset of the stored integer coordinates, x, y, z.
    pub offset: Option<[f64; 3]>,
    /// `native`: min x, min y, min z, max x, max y, max z in the file's CRS; `wgs84`: min lon, min
    /// lat, max lon, max lat (when the CRS is known).
    #[schema(value_type = Option<Object>)]
    pub bounds: Value,
    /// `epsg`, `wkt` and `source` (`wkt`, `geotiff` or `override`); null when the file declares none.
    #[schema(value_type = Option<Object>)]
    pub crs: Value,
    /// Points per square metre over the occupied area.
    pub density: Option<f64>,
    /// Points per ASPRS class code, as the file holds them.
    #[schema(value_type = Option<Object>)]
    pub classification_histogram: Value,
    /// Points per return number and per number of returns, and single/first/intermediate/last counts.
    #[schema(value_type = Option<Object>)]
    pub returns: Value,
    /// Intensity range, GPS time span, colour, NIR, extra bytes, VLR counts.
    #[schema(value_type = Option<Object>)]
    pub attributes: Value,
    /// The latest classification: its job, status, parameters, model, histogram, per-class
    /// counts, timings; null before the first.
    #[schema(value_type = Option<Object>)]
    pub classification: Value,
    /// Why indexing failed, as a problem document.
    #[schema(value_type = Option<Object>)]
    pub error: Value,
    /// `self`, `download`, `classify`, `index_job` and, once classified, `classified`.
    #[schema(value_type = Object)]
    pub links: Value,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl From<Dataset> for PointCloudView {
    fn from(d: Dataset) -> Self {
        let id = d.id.0.clone();
        let base = format!("/api/v1/pointcloud/{id}");
        let s = d.summary.as_ref();
        let mut links = json!({
            "self": base,
            "download": format!("{base}/download"),
            "classify": format!("{base}/classify"),
            "index_job": format!("/api/v1/jobs/{}", d.index_job),
        });
        if d.classified().is_some() {
            links["classified"] = json!(format!("{base}/download?version=classified"));
        }
        if let Some(c) = &d.classification {
            links["classification_job"] = json!(format!("/api/v1/jobs/{}", c.job));
        }
        Self {
            name: d.name.clone(),
            status: serde_json::to_value(d.status).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
            filename: d.filename.clone(),
            size: d.size,
            format: d.format.clone(),
            points: s.map(|s| s.points),
            las_version: s.map(|s| s.las_version.clone()),
            point_format: s.map(|s| s.point_format),
            scale: s.map(|s| s.scale),
            offset: s.map(|s| s.offset),
            bounds: match s {
                Some(s) => json!({ "native": s.bounds, "wgs84": d.bounds_wgs84 }),
                None => Value::Null,
            },
            crs: d.crs.as_ref().map(|c| json!(c)).unwrap_or(Value::Null),
            density: s.map(|s| s.density),
            classification_histogram: s.map(|s| json!(s.classification)).unwrap_or(Value::Null),
            returns: s
                .map(|s| {
                    json!({
                        "return_numbers": s.return_numbers,
                        "number_of_returns": s.number_of_returns,
                        "only": s.returns.only,
                        "first": s.returns.first,
                        "intermediate": s.returns.intermediate,
                        "last": s.returns.last,
                    })
                })
                .unwrap_or(Value::Null),
            attributes: s
                .map(|s| {
                    json!({
                        "intensity": s.intensity,
                        "gps_time": s.gps_time,
                        "has_color": s.has_color,
                        "has_nir": s.has_nir,
                        "extra_bytes": s.extra_bytes,
                        "record_length": s.record_length,
                        "compressed": s.compressed,
                        "vlrs": s.vlrs,
                        "evlrs": s.evlrs,
                    })
                })
                .unwrap_or(Value::Null),
            classification: d.classification.as_ref().map(|c| json!(c)).unwrap_or(Value::Null),
            error: d.error.as_ref().map(|e| json!(e)).unwrap_or(Value::Null),
            links,
            created_at: d.created_at,
            updated_at: d.updated_at,
            id,
        }
    }
}
