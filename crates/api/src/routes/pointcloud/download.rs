//! `GET /api/v1/pointcloud/{id}/download`: a version (original or classified) as LAS, LAZ or
//! COPC, whole or filtered by a box and classes. Stored files and kept conversions are served
//! with `ETag` and `Range`; filtered downloads with `Content-Length`.

use crate::auth::Caller;
use crate::download::{serve, serve_file, Download};
use crate::error::{area_error, ApiError, ApiResult};
use crate::extract::{Path, Query};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use meridian_core::FieldError;
use meridian_pointcloud::service::{DownloadFormat, DownloadRequest, Prepared, Version};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The download route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(download_point_cloud))
}

/// What to download.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct DownloadQuery {
    /// `laz` (default), `las` or `copc` (COPC 1.0: LAS 1.4, point format 6-8, an octree of LAZ chunks).
    #[param(pattern = "^(laz|las|copc)$")]
    pub format: Option<String>,
    /// `original` or `classified`; by default the classified version when there is one, else the original.
    #[param(pattern = "^(original|classified)$")]
    pub version: Option<String>,
    /// Only points inside: `min lon,min lat,max lon,max lat` (or the point cloud's own coordinates with `bbox-crs=native`).
    pub bbox: Option<String>,
    /// `CRS84` (default) or `native`.
    #[serde(rename = "bbox-crs")]
    #[param(rename = "bbox-crs", pattern = "^(CRS84|native)$")]
    pub bbox_crs: Option<String>,
    /// Only these ASPRS class codes, comma-separated, e.g. `2,6`.
    pub classes: Option<String>,
}

fn bad(pointer: &str, code: &str, detail: impl Into<String>) -> ApiError {
    ApiError::invalid(vec![FieldError::new(pointer, code, detail)])
}

impl DownloadQuery {
    fn request(&self) -> ApiResult<DownloadRequest> {
        let format = match self.format.as_deref() {
            None => DownloadFormat::Laz,
            Some(f) => DownloadFormat::parse(f)
                .ok_or_else(|| bad("/format", "invalid_format", "format is laz, las or copc"))?,
        };
        let version = match self.version.as_deref() {
            None => None,
            Some(v) => Some(
                Version::parse(v)
                    .ok_or_else(|| bad("/version", "invalid_version", "version is original or classified"))?,
            ),
        };
        let bbox_native = match self.bbox_crs.as_deref() {
            None | Some("CRS84") | Some("http://www.opengis.net/def/crs/OGC/1.3/CRS84") => false,
            Some("native") => true,
            Some(_) => return Err(bad("/bbox-crs", "invalid_crs", "bbox-crs is CRS84 or native")),
        };
        let bbox = match &self.bbox {
            None => None,
            Some(text) => {
                let v: Vec<f64> =
                    text.split(',').map(|p| p.trim().parse::<f64>()).collect::<Result<_, _>>().map_err(|_| {
                        bad("/bbox", "invalid_bbox", "bbox is four numbers: min x, min y, max x, max y")
                    })?;
                let ok = v.len() == 4 && v.iter().all(|x| x.is_finite()) && v[0] <= v[2] && v[1] <= v[3];
                let geographic =
                    !bbox_native && v.len() == 4 && v[0] >= -180.0 && v[2] <= 180.0 && v[1] >= -90.0 && v[3] <= 90.0;
                if !ok || (!bbox_native && !geographic) {
                    return Err(bad("/bbox", "invalid_bbox", "bbox is four numbers, minimums first (longitudes -180..180, latitudes -90..90 unless bbox-crs=native)"));
                }
                Some([v[0], v[1], v[2], v[3]])
            }
        };
        let classes = match &self.classes {
            None => None,
            Some(text) => {
                Some(text.split(',').map(|p| p.trim().parse::<u8>()).collect::<Result<Vec<_>, _>>().map_err(|_| {
                    bad("/classes", "invalid_classes", "classes are class codes 0 to 255, comma-separated")
                })?)
            }
        };
        Ok(DownloadRequest { format, version, bbox, bbox_native, classes })
    }
}

#[utoipa::path(
    get,
    path = "/api/v1/pointcloud/{point_cloud_id}/download",
    tag = "pointcloud",
    params(("point_cloud_id" = String, Path, description = "`pc_...`"), DownloadQuery),
    responses(
        (status = 200, description = "The file (`application/vnd.laszip` for LAZ and COPC, `application/vnd.las` for LAS); `ETag` and `Accept-Ranges` unless filtered", content_type = "application/octet-stream"),
        (status = 202, description = "A whole file in another format is being converted (once, whichever request started it): `Retry-After` says when to ask again", body = crate::schemas::Pending, content_type = "application/json"),
        (status = 206, description = "The requested byte range of a stored file"),
        (status = 304, description = "`If-None-Match` names the current ETag"),
        (status = 409, description = "Not indexed yet, or no classified version yet", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 416, description = "The range lies past the end", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad format, version, bbox or classes", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn download_point_cloud(
    State(state): State<AppState>,
    caller: Caller,
    Path(point_cloud_id): Path<String>,
    Query(q): Query<DownloadQuery>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let req = q.request()?;
    let prepared = state.pointcloud.download(&caller.account_id, &point_cloud_id, &req).await.map_err(area_error)?;
    match prepared {
        Prepared::Stored { key, size, etag, media_type, filename } => {
            let d = Download {
                store: state.pointcloud.blobs(),
                key: &key,
                size,
                media_type,
                etag: &etag,
                filename: &filename,
                cache_control: "private, max-age=0, must-revalidate",
            };
            serve(d, &headers).await
        }
        Prepared::Written { file, size, media_type, filename } => serve_file(file, size, media_type, &filename).await,
        Prepared::Pending { retry_after } => {
            let body = serde_json::json!({
                "status": "converting",
                "detail": "the file is being converted for download (once, for every request); ask again after Retry-After seconds",
            });
            let mut r = (StatusCode::ACCEPTED, crate::extract::Json(body)).into_response();
            if let Ok(v) = HeaderValue::from_str(&retry_after.to_string()) {
                r.headers_mut().insert(header::RETRY_AFTER, v);
            }
            Ok(r)
        }
    }
}
