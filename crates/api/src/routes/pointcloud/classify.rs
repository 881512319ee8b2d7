//! `POST /api/v1/pointcloud/{id}/classify`: queue a classification (noise, ground, height above
//! ground, learned classes); the answer is the job.

use crate::auth::Caller;
use crate::error::{area_error, ApiError, ApiResult};
use crate::extract::{parse_json, Json, Path};
use crate::routes::jobs::JobView;
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use meridian_core::FieldError;
use meridian_pointcloud::service::ClassifyParams;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The classify route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(classify_point_cloud))
}

/// The steps of a classification.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
pub enum ClassifyStep {
    Noise,
    Ground,
    Hag,
    Classes,
}

/// The body of `POST /api/v1/pointcloud/{id}/classify` (every member optional; `{}` or no body
/// runs every step with the defaults). Lengths are metres whatever the file's unit. The engine's
/// parser (`meridian_pointcloud::pipeline::PipelineParams::from_json`) is the authority: an
/// unknown member or a value out of range is a 422 with its JSON pointer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"ground": {"method": "smrf", "window": 24.0}, "classes": {"method": "combined"}}))]
#[allow(dead_code)]
pub struct ClassifyBody {
    /// The steps that run (all by default); at least one.
    #[schema(nullable = false, min_items = 1)]
    pub steps: Option<Vec<ClassifyStep>>,
    #[schema(nullable = false)]
    pub noise: Option<ClassifyNoise>,
    #[schema(nullable = false)]
    pub ground: Option<ClassifyGround>,
    #[schema(nullable = false)]
    pub classes: Option<ClassifyClasses>,
    /// `default` (the configured model) or `meridian-pointcloud-classifier`.
    #[schema(nullable = false, pattern = "^(default|meridian-pointcloud-classifier)$")]
    pub model: Option<String>,
}

/// The noise step: PDAL's `filters.outlier` (and `filters.elm`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct ClassifyNoise {
    /// `radius` (the default) or `statistical`.
    #[schema(nullable = false, pattern = "^(radius|statistical)$")]
    pub method: Option<String>,
    #[schema(nullable = false, minimum = 1, maximum = 100)]
    pub mean_k: Option<u32>,
    #[schema(nullable = false, minimum = 0.1, maximum = 100)]
    pub multiplier: Option<f64>,
    /// Metres; null or absent: four times the point spacing.
    #[schema(minimum = 0.01, maximum = 100)]
    pub radius: Option<f64>,
    #[schema(nullable = false, minimum = 1, maximum = 100)]
    pub min_k: Option<u32>,
    /// Run the extended local minimum filter for low outliers first (false: in a sparse closed
    /// canopy it takes the few ground returns for low noise).
    #[schema(nullable = false)]
    pub elm: Option<bool>,
}

/// The ground step: PDAL's `filters.smrf` or `filters.csf` names, and the raised-ground step.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct ClassifyGround {
    /// `smrf` (the default) or `csf`.
    #[schema(nullable = false, pattern = "^(smrf|csf)$")]
    pub method: Option<String>,
    /// SMRF cell, metres; null or absent: 1 m, or the point spacing where points are sparser.
    #[schema(minimum = 0.05, maximum = 100)]
    pub cell: Option<f64>,
    #[schema(nullable = false, minimum = 0, maximum = 10)]
    pub slope: Option<f64>,
    #[schema(nullable = false, minimum = 0.5, maximum = 500)]
    pub window: Option<f64>,
    #[schema(nullable = false, minimum = 0, maximum = 100)]
    pub scalar: Option<f64>,
    #[schema(nullable = false, minimum = 0.01, maximum = 100)]
    pub threshold: Option<f64>,
    #[schema(nullable = false, minimum = 0, maximum = 500)]
    pub cut: Option<f64>,
    /// CSF cloth resolution, metres.
    #[schema(nullable = false, minimum = 0.05, maximum = 100)]
    pub resolution: Option<f64>,
    #[schema(nullable = false, minimum = 1, maximum = 3)]
    pub rigidness: Option<u32>,
    #[schema(nullable = false, minimum = 0.01, maximum = 10)]
    pub step: Option<f64>,
    #[schema(nullable = false, minimum = 1, maximum = 10000)]
    pub iterations: Option<u32>,
    #[schema(nullable = false)]
    pub smooth: Option<bool>,
    #[schema(nullable = false, minimum = 0, maximum = 100)]
    pub hdiff: Option<f64>,
    /// Take roofs wider than the window back out of the ground (true).
    #[schema(nullable = false)]
    pub roofs: Option<bool>,
    /// Take the ground at z ≈ 0 when the file is height-normalised, rather than filter it (true).
    #[schema(nullable = false)]
    pub normalised: Option<bool>,
    /// Low noise within the ground filter's tolerance of the ground surface is ground, as the few
    /// ground returns under a closed canopy (true).
    #[schema(nullable = false)]
    pub low_noise: Option<bool>,
    /// Ground points more than this many metres above the ground surface are given back to the
    /// classes step; null (the default) keeps them.
    #[schema(minimum = 0, maximum = 100)]
    pub offset: Option<f64>,
}

/// The classes step.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct ClassifyClasses {
    /// `combined` (the default: the model where it is confident, the geometric rules elsewhere),
    /// `rules`, `model`, or `heights` (vegetation by height band alone, the PDAL-style baseline).
    #[schema(nullable = false, pattern = "^(combined|rules|model|heights)$")]
    pub method: Option<String>,
    /// Ground points on water (sparse, flat, single returns below the ground around them)
    /// become class 9 (true).
    #[schema(nullable = false)]
    pub water: Option<bool>,
}

#[utoipa::path(
    post,
    path = "/api/v1/pointcloud/{point_cloud_id}/classify",
    tag = "pointcloud",
    params(("point_cloud_id" = String, Path, description = "`pc_...`")),
    request_body(content((ClassifyBody = "application/json")), description = "Optional: an empty body runs every \
        step with the defaults. Every length is in metres, whatever the file's unit."),
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
    let (_, job) = state.pointcloud.classify(&caller.account_id, &point_cloud_id, params).await.map_err(area_error)?;
    let location = format!("/api/v1/jobs/{}", job.id);
    let mut response = (StatusCode::ACCEPTED, Json(JobView::from(job))).into_response();
    if let Ok(v) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, v);
    }
    Ok(response)
}
