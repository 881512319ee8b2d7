//! `GET /api/v1/dem/tiles/{z}/{x}/{y}.png`: WebMercatorQuad terrain tiles of a job, 256 px or
//! 512 px (`{y}@2x.png`), with `ETag`/`If-None-Match` and `Cache-Control`.

use super::jobs::load_job;
use crate::auth::Caller;
use crate::error::{area_error, ApiError, ApiResult};
use crate::extract::{Path, Query};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use meridian_core::FieldError;
use meridian_dem::TileQuery;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes under `/api/v1/dem/tiles`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_dem_tile))
}

/// What a tile shows.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TileParams {
    /// The job (`job_...`).
    #[param(value_type = String, required = true)]
    pub job: Option<String>,
    /// An output layer: the operation that made it (`hillshade`, `slope`, `color-relief`, ...).
    pub layer: Option<String>,
    /// Or a style rendered from the job's source DEM: `hillshade`, `slope`, `color-relief`,
    /// `terrain-rgb` (Mapbox) or `terrarium`.
    pub style: Option<String>,
    /// Colour ramp (`terrain`, `viridis`, `grayscale`, `spectral`) for the `color-relief` style
    /// and Float32 layers.
    pub ramp: Option<String>,
}

fn bad(pointer: &str, detail: impl Into<String>) -> ApiError {
    ApiError::invalid(vec![FieldError::new(pointer, "invalid_parameter", detail)])
}

#[utoipa::path(
    get,
    path = "/api/v1/dem/tiles/{z}/{x}/{y}",
    tag = "dem",
    params(
        ("z" = u8, Path, minimum = 0, maximum = 30, description = "Zoom level"),
        ("x" = u32, Path, description = "Column"),
        ("y" = String, Path, pattern = r"^[0-9]{1,9}(@2x)?\.png$", description = "Row with the format: `{y}.png` (256 px) or `{y}@2x.png` (512 px)"),
        TileParams,
    ),
    responses(
        (status = 200, description = "An RGBA PNG, transparent where there is no data; `ETag`, `Cache-Control`", content_type = "image/png"),
        (status = 304, description = "Not modified (`If-None-Match`)"),
        (status = 404, description = "Outside the data or the zoom range", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad parameter: no job, an unknown layer, style or ramp", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn get_dem_tile(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path((z, x, y)): Path<(String, String, String)>,
    Query(q): Query<TileParams>,
) -> ApiResult<Response> {
    let z: u8 = z.parse().ok().filter(|z| *z <= 30).ok_or_else(|| bad("/z", "z is a zoom level from 0 to 30"))?;
    let x: u32 = x.parse().map_err(|_| bad("/x", "x is a tile column"))?;
    let (row, size) = match y.strip_suffix(".png") {
        Some(r) => match r.strip_suffix("@2x") {
            Some(r) => (r, 512),
            None => (r, 256),
        },
        None => return Err(bad("/y", "tiles are PNG: {y}.png, or {y}@2x.png for 512-px tiles")),
    };
    let y: u32 = row.parse().map_err(|_| bad("/y", "y is a tile row"))?;
    let Some(job_id) = q.job.as_deref() else {
        return Err(ApiError::invalid(vec![FieldError::new("/job", "required", "name the job: ?job=job_...")]));
    };
    let job = load_job(&state, &caller, job_id).await?;
    let query = TileQuery { layer: q.layer, style: q.style, ramp: q.ramp };
    let tile = state.dem.tile(&job, &query, z, x, y, size).await.map_err(area_error)?;
    let etag = HeaderValue::from_str(&tile.etag).map_err(ApiError::internal)?;
    let max_age = state.config.dem.tile_max_age.as_secs();
    let cache = HeaderValue::from_str(&format!("private, max-age={max_age}")).map_err(ApiError::internal)?;
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == "*" || t.trim().trim_start_matches("W/") == tile.etag));
    if fresh {
        return Ok((StatusCode::NOT_MODIFIED, [(header::ETAG, etag), (header::CACHE_CONTROL, cache)]).into_response());
    }
    Ok((
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("image/png")),
            (header::ETAG, etag),
            (header::CACHE_CONTROL, cache),
        ],
        tile.png,
    )
        .into_response())
}
