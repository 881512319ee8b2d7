//! `POST /api/v1/pointcloud/{id}/classify`: queue a classification (noise, ground, height above
//! ground, learned classes); the answer is the job.

use super::pc_error;
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::extract::{parse_json, Json, Path};
use crate::routes::jobs::JobView;
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use meridian_core::FieldError;
use meridian_pointcloud::service::ClassifyParams;
use serde_json::Value;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The classify route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(classify_point_cloud))
}

#[utoipa::path(
    post,
    path = "/api/v1/pointcloud/{point_cloud_id}/classify",
    tag = "pointcloud",
    params(("point_cloud_id" = String, Path, description = "`pc_...`")),
    request_body(content((Object = "application/json")), description = "Optional. `steps` (any of `noise`, `ground`, \
        `hag`, `classes`; all by default), `noise` (`method`: `statistical` with `mean_k`, `multiplier`, or `radius` with \
        `radius`, `min_k`), `ground` (`method`: `smrf` with PDAL's filters.smrf parameters `cell`, `slope`, `window`, \
        `scalar`, `threshold`, `cut`; or `csf` with filters.csf's `resolution`, `rigidness`, `step`, `threshold`, \
        `iterations`, `smooth`, `hdiff`; and `roofs`, true by default, to take roofs wider than the window back out of \
        the ground), `classes` (`method`: `combined`, the default, the model where it is confident and the geometric \
        rules elsewhere; `rules`; `model`; or `heights`, vegetation by height band alone), `model` (`default`). Every length is in metres, whatever the file's unit. \
        An empty body runs everything with the defaults."),
    responses(
        (status = 202, description = "Queued; `Location` is the job; the point cloud's `status` is `classifying` until it ends", body = JobView),
        (status = 409, description = "Still being indexed, indexing failed, or already being classified", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 422, description = "An unknown step, method or parameter, or a value out of range (each with a JSON pointer)", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn classify_point_cloud(
    State(state): State<AppState>,
    caller: Caller,
    Path(point_cloud_id): Path<String>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> ApiResult<Response> {
    let empty = body.iter().all(u8::is_ascii_whitespace);
    // The same rule as every JSON body: a body that says it is something else is a 415.
    let content_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok());
    if !empty && !crate::extract::is_json(content_type) {
        return Err(ApiError::unsupported_media_type(format!(
            "expected Content-Type: application/json, got {}",
            content_type.unwrap_or("none")
        )));
    }
    let value: Value = if empty { Value::Object(Default::default()) } else { parse_json(&body)? };
    if !value.is_object() {
        return Err(ApiError::invalid(vec![FieldError::new(
            "",
            "invalid_type",
            "the body is a JSON object (or empty for the defaults)",
        )]));
    }
    let params = ClassifyParams::parse(&value).map_err(ApiError::from)?;
    let (_, job) = state.pointcloud.classify(&caller.account_id, &point_cloud_id, params).await.map_err(pc_error)?;
    state.job_waker.wake();
    let location = format!("/api/v1/jobs/{}", job.id);
    let mut response = (StatusCode::ACCEPTED, Json(JobView::from(job))).into_response();
    if let Ok(v) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, v);
    }
    Ok(response)
}
