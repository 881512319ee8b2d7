//! `POST /api/v1/dem/process`: a GeoTIFF upload (multipart, streamed to disk and checked with the
//! engine) or a JSON request naming an earlier upload or result, validated in full before a job
//! is queued.

use super::DemJobView;
use crate::auth::Caller;
use crate::error::{area_error, ApiError, ApiResult};
use crate::extract::{parse_json, Json};
use crate::paging::base_url;
use crate::state::AppState;
use crate::upload::{declared_length, drain, drain_body};
use axum::extract::{DefaultBodyLimit, FromRequest, Multipart, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use meridian_core::FieldError;
use meridian_dem::datasets::{inspect, RasterInfo};
use meridian_dem::operations::parse_params;
use meridian_dem::DemOperation;
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// `POST /api/v1/dem/process`. Uploads may be far larger than the JSON body limit: this route
/// enforces `limits.upload_bytes` itself, while streaming.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(submit_process)).layer(DefaultBodyLimit::disable())
}

/// A processing request with a file: `multipart/form-data` with these parts.
#[derive(Debug, Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct ProcessUpload {
    /// The DEM: a GeoTIFF (stripped or tiled; uncompressed, Deflate, LZW, PackBits or ZSTD).
    #[schema(value_type = String, format = Binary)]
    file: Vec<u8>,
    /// JSON: `{"operations": [{"type": "hillshade", ...}, ...]}`.
    #[schema(value_type = Object)]
    params: Value,
}

/// A processing request on an earlier upload or result.
#[derive(Debug, Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct ProcessRequest {
    /// `{"dataset_id": "dataset_..."}`, or `{"job_id": "job_...", "operation": "hillshade"}` for an
    /// earlier job's raster output.
    #[schema(value_type = Object)]
    source: Value,
    /// `{"operations": [{"type": "slope", "format": "percent"}, ...]}`.
    #[schema(value_type = Object)]
    params: Value,
}

#[utoipa::path(
    post,
    path = "/api/v1/dem/process",
    tag = "dem",
    request_body(content(
        (ProcessUpload = "multipart/form-data"),
        (ProcessRequest = "application/json"),
    ), description = "A GeoTIFF upload with `params`, or a JSON body naming an earlier upload or output as `source`. \
        Operations: hillshade, slope, aspect, color-relief, contours, roughness, tri, tpi, with gdaldem's option names and defaults."),
    responses(
        (status = 202, description = "Queued; `Location` is the job", body = DemJobView),
        (status = 413, description = "The upload is larger than `limits.upload_bytes`", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 415, description = "Neither multipart/form-data nor JSON", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 422, description = "Not a GeoTIFF, an unknown operation or a bad option (each with a JSON pointer); nothing was queued", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn submit_process(State(state): State<AppState>, caller: Caller, req: Request) -> ApiResult<Response> {
    let headers = req.headers().clone();
    let essence = crate::upload::media_type(&headers);
    let close = crate::upload::closing;
    let job = if essence == "multipart/form-data" {
        submit_upload(&state, &caller, &headers, req).await.map_err(close)?
    } else if essence == "application/json" || (essence.starts_with("application/") && essence.ends_with("+json")) {
        submit_json(&state, &caller, &headers, req).await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                close(e)
            } else {
                e
            }
        })?
    } else {
        drain_body(&headers, req).await;
        return Err(close(ApiError::unsupported_media_type(format!(
            "send multipart/form-data (a `file` and `params`) or application/json (`source` and `params`), not {}",
            if essence.is_empty() { "no Content-Type" } else { &essence }
        ))));
    };
    let location = format!("/api/v1/dem/jobs/{}", job.id);
    let view = DemJobView::new(job, &base_url(&state, &headers), state.config.dem.max_zoom);
    let mut response = (StatusCode::ACCEPTED, Json(view)).into_response();
    if let Ok(v) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, v);
    }
    Ok(response)
}

async fn submit_upload(
    state: &AppState,
    caller: &Caller,
    headers: &HeaderMap,
    req: Request,
) -> ApiResult<meridian_store::model::Job> {
    let limits = &state.config.limits;
    let upload_limit = limits.upload_bytes;
    // Refuse at once what cannot fit: the file plus a params part of at most body_bytes.
    let declared = declared_length(headers);
    if declared.is_some_and(|n| n > upload_limit.saturating_add(limits.body_bytes as u64)) {
        // Read what a client sends anyway (up to a bound), so that it gets to read the answer.
        drain_body(headers, req).await;
        return Err(crate::upload::too_large(upload_limit));
    }
    let mut multipart = Multipart::from_request(req, state).await.map_err(|r| ApiError::malformed(r.body_text()))?;
    let (file, params) = match crate::upload::file_and_params(state, &mut multipart).await {
        Ok(parts) => parts,
        Err(e) => {
            drain(&mut multipart).await;
            return Err(e);
        }
    };
    let mut errors = Vec::new();
    let ops = match &params {
        None => {
            errors.push(FieldError::new("/params", "required", "send a `params` part: {\"operations\": [...]}"));
            None
        }
        Some(bytes) => {
            let value: Value =
                parse_json(bytes).map_err(|e| ApiError::malformed(format!("the params part: {}", e.problem.detail)))?;
            match parse_params("/params", &value, state.config.dem.max_operations) {
                Ok(ops) => Some(ops),
                Err(mut e) => {
                    errors.append(&mut e);
                    None
                }
            }
        }
    };
    let info = match &file {
        None => {
            errors.push(FieldError::new("/file", "required", "send the DEM as a `file` part"));
            None
        }
        Some((staged, _)) => {
            let path = staged.path().to_owned();
            let limits = state.dem.raster_limits();
            match tokio::task::spawn_blocking(move || inspect(&path, "/file", limits))
                .await
                .map_err(ApiError::internal)?
            {
                Ok(info) => Some(info),
                Err(e) => {
                    errors.push(e);
                    None
                }
            }
        }
    };
    let (Some(ops), Some(info), Some((staged, filename)), true) = (ops, info, file, errors.is_empty()) else {
        return Err(ApiError::invalid(errors));
    };
    queue_upload(state, caller, headers, &staged, filename, info, &ops).await
}

/// Stores the checked upload and queues its job; the dataset is removed if the job cannot be queued.
async fn queue_upload(
    state: &AppState,
    caller: &Caller,
    headers: &HeaderMap,
    staged: &crate::upload::StagedFile,
    filename: Option<String>,
    info: RasterInfo,
    ops: &[DemOperation],
) -> ApiResult<meridian_store::model::Job> {
    let dem = &state.dem;
    let dataset = dem.create_dataset(&caller.account_id, staged.path(), filename, info).await.map_err(area_error)?;
    let source = dem
        .resolve_source(&caller.account_id, &serde_json::json!({"dataset_id": dataset.id.as_str()}))
        .await
        .map_err(area_error)?;
    match dem.submit(&caller.account_id, source, ops, Some(base_url(state, headers))).await {
        Ok(job) => Ok(job),
        Err(e) => {
            if let Err(cleanup) = dem.delete_dataset(&caller.account_id, &dataset.id).await {
                tracing::warn!(error = %cleanup, "removing the dataset of a job that was not queued failed");
            }
            Err(area_error(e))
        }
    }
}

async fn submit_json(
    state: &AppState,
    caller: &Caller,
    headers: &HeaderMap,
    req: Request,
) -> ApiResult<meridian_store::model::Job> {
    let limit = state.config.limits.body_bytes;
    let too_large = || ApiError::too_large(format!("the body is larger than {limit} bytes (limits.body_bytes)"));
    if declared_length(headers).is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    let body = http_body_util::Limited::new(req.into_body(), limit);
    let bytes = http_body_util::BodyExt::collect(body).await.map_err(|e| {
        if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() {
            too_large()
        } else {
            ApiError::malformed(format!("the body could not be read: {e}"))
        }
    })?;
    let value: Value = parse_json(&bytes.to_bytes())?;
    let Value::Object(map) = &value else {
        return Err(ApiError::invalid(vec![FieldError::new(
            "",
            "invalid_type",
            "the body is an object with `source` and `params`",
        )]));
    };
    let mut errors = Vec::new();
    for key in map.keys().filter(|k| *k != "source" && *k != "params") {
        errors.push(FieldError::new(format!("/{key}"), "unknown_field", format!("unknown field `{key}`")));
    }
    let ops = match map.get("params") {
        None => {
            errors.push(FieldError::new("/params", "required", "params is required: {\"operations\": [...]}"));
            None
        }
        Some(p) => match parse_params("/params", p, state.config.dem.max_operations) {
            Ok(ops) => Some(ops),
            Err(mut e) => {
                errors.append(&mut e);
                None
            }
        },
    };
    let source = match map.get("source") {
        None => {
            errors.push(FieldError::new("/source", "required", "source is required: {\"dataset_id\": ...}"));
            None
        }
        Some(s) => match state.dem.resolve_source(&caller.account_id, s).await {
            Ok(source) => Some(source),
            Err(meridian_dem::Error::Domain(meridian_core::DomainError::Invalid(mut e))) => {
                errors.append(&mut e);
                None
            }
            Err(other) => return Err(area_error(other)),
        },
    };
    let (Some(ops), Some(source), true) = (ops, source, errors.is_empty()) else {
        return Err(ApiError::invalid(errors));
    };
    state.dem.submit(&caller.account_id, source, &ops, Some(base_url(state, headers))).await.map_err(area_error)
}
