//! `GET /api/v1/realtime/twin/{id}/features/{fid}`: one asset of a twin as of its clock.

use super::instant;
use super::tiles::TimeQuery;
use crate::auth::Caller;
use crate::error::{area_error, ApiResult};
use crate::extract::{Json, Path, Query};
use crate::state::AppState;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes of assets.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_asset))
}

#[utoipa::path(
    get,
    path = "/api/v1/realtime/twin/{twin_id}/features/{fid}",
    tag = "twin",
    params(
        ("twin_id" = String, Path, description = "`twin_...`"),
        ("fid" = String, Path, description = "The feature id (a parcel's `parcel_...`), as picked in the tileset (`id` property)"),
        TimeQuery,
    ),
    responses(
        (status = 200, description = "The asset as of the clock's instant (or `time`): `properties`, `footprint` (GeoJSON), `area_m2`, `height`, \
            `version` and `valid_from` (the parcel's version then), `sensors` (each with its `latest` reading then), `as_of`, `clock`", body = crate::schemas::TwinAsset, content_type = "application/json"),
        (status = 404, description = "No such feature in the twin at that instant (not yet registered, retired, outside its area or filter)", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn get_asset(
    State(state): State<AppState>,
    caller: Caller,
    Path((twin_id, fid)): Path<(String, String)>,
    Query(q): Query<TimeQuery>,
) -> ApiResult<Response> {
    let at = instant(q.time.as_deref(), "/time")?;
    let asset = state.twin.asset(&caller.account_id, &twin_id, &fid, at).await.map_err(area_error)?;
    Ok(Json(asset.body).into_response())
}
