//! `POST /api/v1/pointcloud/upload` (a LAS/LAZ body, raw or multipart, streamed to disk and
//! checked before it is accepted), and the point clouds: list, read, delete.

use super::{etag_prefix, PointCloudView};
use crate::auth::Caller;
use crate::error::{area_error, ApiError, ApiResult};
use crate::extract::{Json, Path, Query};
use crate::paging::PageQuery;
use crate::state::AppState;
use crate::upload::{declared_length, drain, drain_body};
use axum::extract::{DefaultBodyLimit, FromRequest, Multipart, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use meridian_core::FieldError;
use meridian_pointcloud::service::UploadParams;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes of point clouds. The upload may be far larger than the JSON body limit: it enforces
/// `limits.upload_bytes` itself, while streaming.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(upload_point_cloud))
        .layer(DefaultBodyLimit::disable())
        .routes(routes!(list_point_clouds))
        .routes(routes!(get_point_cloud, delete_point_cloud))
}

/// An upload as `multipart/form-data`.
#[derive(Debug, Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct PointCloudUpload {
    /// The LAS or LAZ file.
    #[schema(value_type = String, format = Binary)]
    file: Vec<u8>,
    /// JSON: `{"name": "...", "crs": 2154}` (both optional; `crs` overrides the file's CRS and is
    /// written into every download but the original as uploaded).
    #[schema(value_type = Object)]
    params: Value,
}

/// Parameters of a raw upload (a multipart upload sends them as its `params` part).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct UploadQuery {
    /// A name for the point cloud.
    #[param(max_length = 200)]
    pub name: Option<String>,
    /// EPSG code overriding the file's CRS: `2154` or `EPSG:2154`. Used for the WGS84 bounds and
    /// boxes, and written into every LAS, LAZ and COPC download but the original as uploaded.
    pub crs: Option<String>,
}

/// The 202 of an accepted upload.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct UploadAccepted {
    #[serde(flatten)]
    pub point_cloud: PointCloudView,
    /// The indexing job: `/api/v1/jobs/{id}`.
    #[schema(value_type = Object)]
    pub job: Value,
}

#[utoipa::path(
    post,
    path = "/api/v1/pointcloud/upload",
    tag = "pointcloud",
    params(UploadQuery),
    request_body(content(
        (PointCloudUpload = "multipart/form-data"),
        (String = "application/vnd.laszip"),
        (String = "application/vnd.las"),
        (String = "application/octet-stream"),
    ), description = "A LAS or LAZ file (LAS 1.0-1.4, point formats 0-10): the raw body (`application/vnd.laszip`, \
        `application/vnd.las` or `application/octet-stream`, with `name` and `crs` as query parameters), or multipart \
        with a `file` part and an optional `params` part. Streamed to disk up to `limits.upload_bytes`; the header, VLRs, \
        point format and point count (against the file's length) are checked before it is accepted; a job then indexes it."),
    responses(
        (status = 202, description = "Accepted: the point cloud (`status: indexing`) and its indexing job; `Location` is the point cloud", body = UploadAccepted),
        (status = 413, description = "Larger than `limits.upload_bytes`", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 415, description = "Neither a LAS/LAZ body nor multipart/form-data", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 422, description = "Not a LAS/LAZ file (signature, header, VLRs, point count against the file's length), too many points, or bad params; nothing was stored", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn upload_point_cloud(State(state): State<AppState>, caller: Caller, req: Request) -> ApiResult<Response> {
    let headers = req.headers().clone();
    let essence = crate::upload::media_type(&headers);
    let close = crate::upload::closing;
    let limits = &state.config.limits;
    let query = req.uri().query().unwrap_or("").to_owned();
    let (staged, filename, params) = if essence == "multipart/form-data" {
        if declared_length(&headers).is_some_and(|n| n > limits.upload_bytes.saturating_add(limits.body_bytes as u64)) {
            drain_body(&headers, req).await;
            return Err(close(crate::upload::too_large(limits.upload_bytes)));
        }
        let mut multipart =
            Multipart::from_request(req, &state).await.map_err(|r| ApiError::malformed(r.body_text()))?;
        match read_parts(&state, &mut multipart).await {
            Ok((Some((file, filename)), params)) => (file, filename, params),
            Ok((None, _)) => {
                return Err(ApiError::invalid(vec![FieldError::new(
                    "/file",
                    "required",
                    "send the LAS/LAZ file as a part named `file`",
                )]))
            }
            Err(e) => {
                drain(&mut multipart).await;
                return Err(close(e));
            }
        }
    } else if matches!(
        essence.as_str(),
        "application/vnd.laszip"
            | "application/vnd.las"
            | "application/octet-stream"
            | "application/x-las"
            | "application/x-laz"
    ) {
        let q: UploadQuery = serde_urlencoded::from_str(&query)
            .map_err(|e| ApiError::malformed(format!("the query string cannot be read: {e}")))?;
        if declared_length(&headers).is_some_and(|n| n > limits.upload_bytes) {
            drain_body(&headers, req).await;
            return Err(close(crate::upload::too_large(limits.upload_bytes)));
        }
        let body = req.into_body().into_data_stream();
        let staged = crate::upload::stage(&state, body, limits.upload_bytes, |e: axum::Error| {
            ApiError::malformed(format!("the body could not be read: {e}"))
        })
        .await
        .map_err(close)?;
        let crs = q.crs.map(Value::String);
        (staged, None, UploadParams { name: q.name, crs })
    } else {
        drain_body(&headers, req).await;
        return Err(close(ApiError::unsupported_media_type(format!(
            "send the LAS/LAZ file as application/vnd.laszip, application/vnd.las or application/octet-stream, or as multipart/form-data with a `file` part, not {}",
            if essence.is_empty() { "no Content-Type" } else { &essence }
        ))));
    };
    let (dataset, job) =
        state.pointcloud.upload(&caller.account_id, staged.path(), filename, params).await.map_err(area_error)?;
    let location = format!("/api/v1/pointcloud/{}", dataset.id);
    let etag = crate::etag::tag(&etag_prefix(dataset.id.as_str()), dataset.version);
    let body = UploadAccepted {
        point_cloud: dataset.into(),
        job: serde_json::to_value(crate::routes::jobs::JobView::from(job)).unwrap_or_default(),
    };
    let mut response = (StatusCode::ACCEPTED, Json(body)).into_response();
    if let Ok(v) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, v);
    }
    response.headers_mut().insert(header::ETAG, etag);
    Ok(response)
}

/// The `file` (staged on disk) and `params` parts, the params checked.
async fn read_parts(
    state: &AppState,
    multipart: &mut Multipart,
) -> ApiResult<(Option<(crate::upload::StagedFile, Option<String>)>, UploadParams)> {
    let (file, params) = crate::upload::file_and_params(state, multipart).await?;
    let params = match params {
        None => UploadParams::default(),
        Some(bytes) => {
            let value: Value = serde_json::from_slice(&bytes)
                .map_err(|e| ApiError::invalid(vec![FieldError::new("/params", "invalid_json", e.to_string())]))?;
            serde_json::from_value(value).map_err(|e| {
                ApiError::invalid(vec![FieldError::new(
                    "/params",
                    "invalid_params",
                    format!("{e}; params take `name` and `crs`"),
                )])
            })?
        }
    };
    Ok((file, params))
}

#[utoipa::path(
    get,
    path = "/api/v1/pointcloud/{point_cloud_id}",
    tag = "pointcloud",
    params(("point_cloud_id" = String, Path, description = "`pc_...`")),
    responses((status = 200, description = "The point cloud: status, points, bounds (native and WGS84), CRS, format, \
        scale/offset, density, classification histogram, return statistics, and its latest classification; `ETag`", body = PointCloudView))
)]
async fn get_point_cloud(
    State(state): State<AppState>,
    caller: Caller,
    Path(point_cloud_id): Path<String>,
) -> ApiResult<Response> {
    let d = state.pointcloud.get(&caller.account_id, &point_cloud_id).await.map_err(area_error)?;
    let etag = crate::etag::tag(&etag_prefix(d.id.as_str()), d.version);
    let mut response = Json(PointCloudView::from(d)).into_response();
    response.headers_mut().insert(header::ETAG, etag);
    Ok(response)
}

/// A page of point clouds.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PointCloudList {
    pub point_clouds: Vec<PointCloudView>,
    /// All point clouds of the account.
    pub total: u64,
}

#[utoipa::path(
    get,
    path = "/api/v1/pointcloud",
    tag = "pointcloud",
    params(PageQuery),
    responses((status = 200, description = "The account's point clouds, newest first; `Link` has next/prev", body = PointCloudList))
)]
async fn list_point_clouds(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<PageQuery>,
) -> ApiResult<Response> {
    let page = crate::paging::page(&state.config, q.limit, q.offset, q.cursor.as_deref())?;
    let (list, total) = state.pointcloud.list(&caller.account_id, page).await.map_err(area_error)?;
    let last = list.last().map(|v| v.id.to_string());
    let point_clouds = list.into_iter().map(Into::into).collect();
    let mut response = Json(PointCloudList { point_clouds, total }).into_response();
    crate::paging::link(&mut response, "/api/v1/pointcloud", "", page, total, last.as_deref());
    Ok(response)
}

#[utoipa::path(
    delete,
    path = "/api/v1/pointcloud/{point_cloud_id}",
    tag = "pointcloud",
    params(
        ("point_cloud_id" = String, Path, description = "`pc_...`"),
        ("If-Match" = Option<String>, Header, description = "The ETag of the version to delete"),
    ),
    responses(
        (status = 204, description = "Deleted with its files (original, classified version, conversions)"),
        (status = 409, description = "A job indexes or classifies it", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 412, description = "`If-Match` names another version", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn delete_point_cloud(
    State(state): State<AppState>,
    caller: Caller,
    Path(point_cloud_id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<StatusCode> {
    let expected = crate::etag::expected_version(&headers, &etag_prefix(&point_cloud_id))?;
    state.pointcloud.delete(&caller.account_id, &point_cloud_id, expected).await.map_err(area_error)?;
    Ok(StatusCode::NO_CONTENT)
}
