//! `GET` and `POST /api/v1/realtime/twin/{id}/time`: the twin's simulation clock.

use crate::auth::Caller;
use crate::error::{area_error, ApiResult};
use crate::extract::{Json, Path};
use crate::state::AppState;
use axum::extract::State;
use meridian_core::Timestamp;
use meridian_twin::service::ClockChange;
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes of the clock.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_time, set_time))
}

/// A change of the clock: every field optional, the others are kept.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SetTime {
    /// An RFC 3339 instant, or `now`.
    #[schema(example = "2026-01-01T08:00:00Z")]
    pub time: Option<String>,
    /// Simulated seconds per real second while playing; negative plays backwards (-1e6 to 1e6).
    #[schema(minimum = -1000000, maximum = 1000000)]
    pub rate: Option<f64>,
    /// Whether the clock runs.
    pub playing: Option<bool>,
}

#[utoipa::path(
    get,
    path = "/api/v1/realtime/twin/{twin_id}/time",
    tag = "twin",
    params(("twin_id" = String, Path, description = "`twin_...`")),
    responses((status = 200, description = "The clock: `time` (its instant now), `mode` (`live` follows the present, `simulated` otherwise), `rate`, `playing`, `set_at`", body = crate::schemas::Clock, content_type = "application/json"))
)]
async fn get_time(
    State(state): State<AppState>,
    caller: Caller,
    Path(twin_id): Path<String>,
) -> ApiResult<Json<Value>> {
    let t = state.twin.get(&caller.account_id, &twin_id).await.map_err(area_error)?;
    Ok(Json(t.clock.view(Timestamp::now().millis())))
}

#[utoipa::path(
    post,
    path = "/api/v1/realtime/twin/{twin_id}/time",
    tag = "twin",
    params(("twin_id" = String, Path, description = "`twin_...`")),
    request_body = SetTime,
    responses(
        (status = 200, description = "The clock as set. `{\"time\": \"now\"}` (rate 1, playing) follows the present; any other setting is a simulated clock: \
            assets, tilesets and sensor values are answered as of its instant, and WebSocket clients switch at once (replaying stored readings at its rate while it plays)", body = crate::schemas::Clock, content_type = "application/json"),
        (status = 422, description = "`time` is not RFC 3339 or `now`, or `rate` is out of range", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn set_time(
    State(state): State<AppState>,
    caller: Caller,
    Path(twin_id): Path<String>,
    Json(body): Json<SetTime>,
) -> ApiResult<Json<Value>> {
    let change = ClockChange { time: body.time, rate: body.rate, playing: body.playing };
    let t = state.twin.set_clock(&caller.account_id, &twin_id, &change).await.map_err(area_error)?;
    Ok(Json(t.clock.view(Timestamp::now().millis())))
}
